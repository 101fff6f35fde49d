// The definitions behind blas.hpp, for nvcc users (and src/blas1_*.cu): each BLAS level-1
// reduction is the engine run on a reader of its terms (readers.cuh, blas1_terms.cuh), so every
// strategy and pipeline serves it.
#pragma once

#include <type_traits>

#include "blas.hpp"
#include "detail/arg_extremum.cuh"
#include "detail/blas1_terms.cuh"
#include "detail/dispatch.cuh"
#include "detail/readers.cuh"

namespace gpureduce {

template <class T, class Out>
cudaError_t Blas1::Dot(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* x,
                       const T* y, Out* d_out, std::int64_t num_items, cudaStream_t stream,
                       const Options& options) {
  using Reader = detail::PairReader<T, Out, detail::MultiplyIn<Out>>;
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
