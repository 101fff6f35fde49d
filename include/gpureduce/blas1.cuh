// The definitions behind blas.hpp, for nvcc users (and src/blas1_*.cu): each BLAS level-1
// reduction is the engine run on a reader of its terms (readers.cuh, blas1_terms.cuh), so every
// strategy and pipeline serves it.
#pragma once

#include <type_traits>

#include "blas.hpp"
#include "detail/arg_extremum.cuh"
#include "detail/blas1_terms.cuh"
#include "detail/dispatch.cuh"
#include "detail/exact/blas1_exact.hpp"
#include "detail/readers.cuh"

namespace gpureduce {

namespace detail {
// The vectors a correctly rounded call reads, named for validate_buffers: x, and y for Dot.
template <exact::Blas1Term kTerm>
struct ExactBlas1Inputs {
  const void* x;
  const void* y;
  ReaderPointers pointers() const {
    if constexpr (kTerm == exact::Blas1Term::product) return {{x, y}, {"x", "y"}, 2};
    else return {{x, nullptr}, {"x", ""}, 1};
  }
};

// Accuracy::correctly_rounded for Dot, SumSquares and SumAbs (y: Dot's, else null): validated as
// the other calls are, then the exact engine on the terms (exact/blas1_exact.hpp), compiled into
// the library.
template <exact::Blas1Term kTerm, class T, class Out>
cudaError_t blas1_correctly_rounded(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                    const T* x, const T* y, Out* d_out, std::int64_t num_items,
                                    cudaStream_t stream, const Options& options) {
  cudaError_t error = validate_options(num_items, options);
  if (error == cudaSuccess)
    error = validate_buffers(d_temp_storage, &temp_storage_bytes, ExactBlas1Inputs<kTerm>{x, y},
                             d_out, num_items, options);
  if (error != cudaSuccess) return error;
  if constexpr (!exact::kCorrectlyRoundedBlas1<T, Out>) {
    return fail(cudaErrorInvalidValue,
                "gpureduce: Accuracy::correctly_rounded is built for Blas1's shipped pairs (float, "
                "double, and half or bfloat16 to float)");
  } else {
    int device = 0;
    DeviceFacts facts;
    ContextKey context;
    error = check(cudaGetDevice(&device), "cudaGetDevice");
    if (error == cudaSuccess) error = device_facts(device, facts);
    if (error == cudaSuccess) error = current_context(device, context);
    if (error != cudaSuccess) return error;
    return exact::reduce_blas1_exact<kTerm, T, Out>(
        exact::ExactCall{d_temp_storage, &temp_storage_bytes, x, d_out, num_items, stream, options,
                         nullptr, context, facts},
        y);
  }
}
}  // namespace detail

template <class T, class Out>
cudaError_t Blas1::Dot(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* x,
                       const T* y, Out* d_out, std::int64_t num_items, cudaStream_t stream,
                       const Options& options) {
  using Reader = detail::PairReader<T, Out, detail::MultiplyIn<Out>>;
  if (options.accuracy == Accuracy::correctly_rounded)
    return detail::blas1_correctly_rounded<detail::exact::Blas1Term::product>(
        d_temp_storage, temp_storage_bytes, x, y, d_out, num_items, stream, options);
  return detail::reduce_input(d_temp_storage, &temp_storage_bytes,
                              Reader(x, y, detail::MultiplyIn<Out>{}), d_out, num_items,
                              ::cuda::std::plus<Out>{}, Out{}, true, stream, options, nullptr);
}

namespace detail {
// SumSquares (kRoot false) and Norm2 (true): squares in double for the float family, Blue's
// three sums for doubles.
template <bool kRoot, class T, class Out>
cudaError_t reduce_squares(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* x,
                           Out* d_out, std::int64_t num_items, cudaStream_t stream,
                           const Options& options) {
  if (options.accuracy == Accuracy::correctly_rounded) {
    if constexpr (kRoot) {
      const cudaError_t error = validate_options(num_items, options);
      if (error != cudaSuccess) return error;
      return fail(cudaErrorInvalidValue,
                  "gpureduce: Norm2 is a square root, not a sum: Accuracy::correctly_rounded is "
                  "refused (SumSquares takes it)");
    } else {
      return blas1_correctly_rounded<exact::Blas1Term::square>(
          d_temp_storage, temp_storage_bytes, x, static_cast<const T*>(nullptr), d_out, num_items,
          stream, options);
    }
  }
  if constexpr (std::is_same_v<T, double>) {
    using Accum = BlueSums<kRoot>;
    return reduce_input(d_temp_storage, &temp_storage_bytes,
                        TransformReader<T, Accum, BlueSquare<kRoot>>(x, {}), d_out, num_items,
                        BlueSumsPlus<kRoot>{}, Accum{0.0, 0.0, 0.0}, true, stream, options,
                        nullptr);
  } else {
    using Accum = SquareSum<kRoot>;
    return reduce_input(d_temp_storage, &temp_storage_bytes,
                        TransformReader<T, Accum, SquareInDouble<kRoot>>(x, {}), d_out, num_items,
                        SquareSumPlus<kRoot>{}, Accum{0.0}, true, stream, options, nullptr);
  }
}
}  // namespace detail

template <class T, class Out>
cudaError_t Blas1::SumSquares(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* x,
                              Out* d_out, std::int64_t num_items, cudaStream_t stream,
                              const Options& options) {
  return detail::reduce_squares<false>(d_temp_storage, temp_storage_bytes, x, d_out, num_items,
                                       stream, options);
}

template <class T, class Out>
cudaError_t Blas1::Norm2(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* x,
                         Out* d_out, std::int64_t num_items, cudaStream_t stream,
                         const Options& options) {
  return detail::reduce_squares<true>(d_temp_storage, temp_storage_bytes, x, d_out, num_items,
                                      stream, options);
}

template <class T, class Out>
cudaError_t Blas1::SumAbs(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* x,
                          Out* d_out, std::int64_t num_items, cudaStream_t stream,
                          const Options& options) {
  using Reader = detail::TransformReader<T, Out, detail::AbsoluteValueIn<Out>>;
  if (options.accuracy == Accuracy::correctly_rounded)
    return detail::blas1_correctly_rounded<detail::exact::Blas1Term::magnitude>(
        d_temp_storage, temp_storage_bytes, x, static_cast<const T*>(nullptr), d_out, num_items,
        stream, options);
  return detail::reduce_input(d_temp_storage, &temp_storage_bytes, Reader(x, {}), d_out, num_items,
                              ::cuda::std::plus<Out>{}, Out{}, true, stream, options, nullptr);
}

template <class T>
cudaError_t Blas1::ArgMaxAbs(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* x,
                             IndexedValue<T>* d_out, std::int64_t num_items, cudaStream_t stream,
                             const Options& options) {
  return detail::reduce_arg_extremum<detail::ArgMaxOp>(
      d_temp_storage, temp_storage_bytes, x, d_out, num_items, stream, options,
      detail::AbsoluteValue{}, IndexedValue<T>{-1, T(0.0f)});
}

}  // namespace gpureduce

#include "detail/blas1_instantiations.hpp"
