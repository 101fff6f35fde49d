// gpureduce's segmented reductions for nvcc users: the definitions behind segmented.hpp, and
// Reduce / FixedSizeReduce for any associative, commutative operator, type and input iterator.
#pragma once

#include <cstdint>
#include <type_traits>

#include "detail/arg_extremum.cuh"
#include "detail/dispatch.cuh"
#include "detail/ops.cuh"
#include "detail/segmented/describe.cuh"
#include "detail/segmented/dispatch.cuh"
#include "detail/segmented/source.cuh"
#include "detail/value_traits.cuh"
#include "segmented.hpp"

namespace gpureduce {
namespace detail::segmented {

// Operations whose result is exact whatever the order: correctly_rounded changes nothing for them.
template <class Op, class Accum>
inline constexpr bool kExactOp = (is_sum_op_v<Op> && std::is_integral_v<Accum>) ||
                                 std::is_same_v<Op, MinOp> || std::is_same_v<Op, MaxOp> ||
                                 std::is_same_v<Op, ArgMinOp> || std::is_same_v<Op, ArgMaxOp>;

// Either entry point: general offsets (fixed == false) or num_segments x segment_size items.
template <class Source, class Out, class Op, class Init>
cudaError_t run(void* d_temp_storage, std::size_t& temp_storage_bytes, const Source& source,
                Out* d_out, std::int64_t num_segments, const std::int64_t* d_begin_offsets,
                const std::int64_t* d_end_offsets, bool fixed, std::int64_t segment_size, Op op,
                Init init, bool fold_init, cudaStream_t stream, const Options& options,
                bool sum_entry = false) {
  using Accum = typename Source::Reader::accum_type;
  using P = Problem<Source, Out, Accum, Op, Init>;
  return reduce_segments(Call<P>{d_temp_storage, &temp_storage_bytes, source, d_out, num_segments,
                                 d_begin_offsets, d_end_offsets, fixed, segment_size, op, init,
                                 fold_init, kExactOp<Op, Accum>, stream, options, sum_entry});
}

// The calls of segmented.hpp by operation: source, operator, init and whether init is folded in
// (Sum and Reduce: CUB's op(init, total); Min, Max, ArgMin, ArgMax: the inputs alone, init only
// for empty segments, as DeviceReduce).
template <class In, class Out>
struct SumCall {
  using Op = sum_op_t<In, Out>;
  using Source = ArraySource<In, accum_t<Op, Out, In>>;
  static Source source(const In* d_in) { return Source{d_in}; }
  static Op op() { return Op{}; }
  static Out init() { return Out{}; }
  static constexpr bool kFoldInit = true;
  static constexpr bool kSum = true;  // Accuracy::correctly_rounded: the exact engine's pairs
};
template <class T, bool kMin>
struct ExtremumCall {
  using Op = std::conditional_t<kMin, MinOp, MaxOp>;
  using Source = ArraySource<T, T>;
  static Source source(const T* d_in) { return Source{d_in}; }
  static Op op() { return Op{}; }
  static T init() { return kMin ? value_traits<T>::max() : value_traits<T>::lowest(); }
  static constexpr bool kFoldInit = false;
  static constexpr bool kSum = false;
};
template <class T, bool kMin>
struct ArgExtremumCall {
  using Op = std::conditional_t<kMin, ArgMinOp, ArgMaxOp>;
  using Source = IndexedSource<T, IndexedValue<T>>;
  static Source source(const T* d_in) { return Source{d_in}; }
  static Op op() { return Op{}; }
  static IndexedValue<T> init() { return cub_empty_arg_extremum<Op, T>(); }
  static constexpr bool kFoldInit = false;
  static constexpr bool kSum = false;
};

template <class C, class In, class Out>
cudaError_t run_offsets(void* temp, std::size_t& bytes, const In* d_in, Out* d_out,
                        std::int64_t num_segments, const std::int64_t* d_begin,
                        const std::int64_t* d_end, cudaStream_t stream, const Options& options) {
  return run(temp, bytes, C::source(d_in), d_out, num_segments, d_begin, d_end, false, 0, C::op(),
             C::init(), C::kFoldInit, stream, options, C::kSum);
}
template <class C, class In, class Out>
cudaError_t run_fixed_size(void* temp, std::size_t& bytes, const In* d_in, Out* d_out,
                           std::int64_t num_segments, std::int64_t segment_size,
                           cudaStream_t stream, const Options& options) {
  return run(temp, bytes, C::source(d_in), d_out, num_segments, nullptr, nullptr, true,
             segment_size, C::op(), C::init(), C::kFoldInit, stream, options, C::kSum);
}

template <class InputIt, class Op, class Init>
using reduce_source_t =
    source_for_t<InputIt, accum_t<Op, Init, typename std::iterator_traits<InputIt>::value_type>>;

}  // namespace detail::segmented

template <class In, class Out>
cudaError_t DeviceSegmentedReduce::Sum(void* t, std::size_t& b, const In* d_in, Out* d_out,
                                       std::int64_t n, const std::int64_t* begin,
                                       const std::int64_t* end, cudaStream_t s, const Options& o) {
  return detail::segmented::run_offsets<detail::segmented::SumCall<In, Out>>(t, b, d_in, d_out, n,
                                                                            begin, end, s, o);
}
template <class T>
cudaError_t DeviceSegmentedReduce::Min(void* t, std::size_t& b, const T* d_in, T* d_out,
                                       std::int64_t n, const std::int64_t* begin,
                                       const std::int64_t* end, cudaStream_t s, const Options& o) {
  return detail::segmented::run_offsets<detail::segmented::ExtremumCall<T, true>>(
      t, b, d_in, d_out, n, begin, end, s, o);
}
template <class T>
cudaError_t DeviceSegmentedReduce::Max(void* t, std::size_t& b, const T* d_in, T* d_out,
                                       std::int64_t n, const std::int64_t* begin,
                                       const std::int64_t* end, cudaStream_t s, const Options& o) {
  return detail::segmented::run_offsets<detail::segmented::ExtremumCall<T, false>>(
      t, b, d_in, d_out, n, begin, end, s, o);
}
template <class T>
cudaError_t DeviceSegmentedReduce::ArgMin(void* t, std::size_t& b, const T* d_in,
                                          IndexedValue<T>* d_out, std::int64_t n,
                                          const std::int64_t* begin, const std::int64_t* end,
                                          cudaStream_t s, const Options& o) {
  return detail::segmented::run_offsets<detail::segmented::ArgExtremumCall<T, true>>(
      t, b, d_in, d_out, n, begin, end, s, o);
}
template <class T>
cudaError_t DeviceSegmentedReduce::ArgMax(void* t, std::size_t& b, const T* d_in,
                                          IndexedValue<T>* d_out, std::int64_t n,
                                          const std::int64_t* begin, const std::int64_t* end,
                                          cudaStream_t s, const Options& o) {
  return detail::segmented::run_offsets<detail::segmented::ArgExtremumCall<T, false>>(
      t, b, d_in, d_out, n, begin, end, s, o);
}

template <class In, class Out>
cudaError_t DeviceSegmentedReduce::FixedSizeSum(void* t, std::size_t& b, const In* d_in,
                                                Out* d_out, std::int64_t n, std::int64_t size,
                                                cudaStream_t s, const Options& o) {
  return detail::segmented::run_fixed_size<detail::segmented::SumCall<In, Out>>(t, b, d_in, d_out,
                                                                               n, size, s, o);
}
template <class T>
cudaError_t DeviceSegmentedReduce::FixedSizeMin(void* t, std::size_t& b, const T* d_in, T* d_out,
                                                std::int64_t n, std::int64_t size, cudaStream_t s,
                                                const Options& o) {
  return detail::segmented::run_fixed_size<detail::segmented::ExtremumCall<T, true>>(
      t, b, d_in, d_out, n, size, s, o);
}
template <class T>
cudaError_t DeviceSegmentedReduce::FixedSizeMax(void* t, std::size_t& b, const T* d_in, T* d_out,
                                                std::int64_t n, std::int64_t size, cudaStream_t s,
                                                const Options& o) {
  return detail::segmented::run_fixed_size<detail::segmented::ExtremumCall<T, false>>(
      t, b, d_in, d_out, n, size, s, o);
}
template <class T>
cudaError_t DeviceSegmentedReduce::FixedSizeArgMin(void* t, std::size_t& b, const T* d_in,
                                                   IndexedValue<T>* d_out, std::int64_t n,
                                                   std::int64_t size, cudaStream_t s,
                                                   const Options& o) {
  return detail::segmented::run_fixed_size<detail::segmented::ArgExtremumCall<T, true>>(
      t, b, d_in, d_out, n, size, s, o);
}
template <class T>
cudaError_t DeviceSegmentedReduce::FixedSizeArgMax(void* t, std::size_t& b, const T* d_in,
                                                   IndexedValue<T>* d_out, std::int64_t n,
                                                   std::int64_t size, cudaStream_t s,
                                                   const Options& o) {
  return detail::segmented::run_fixed_size<detail::segmented::ArgExtremumCall<T, false>>(
      t, b, d_in, d_out, n, size, s, o);
}

template <class InputIt, class Out, class Op, class Init>
cudaError_t DeviceSegmentedReduce::Reduce(void* t, std::size_t& b, InputIt d_in, Out* d_out,
                                          std::int64_t n, const std::int64_t* begin,
                                          const std::int64_t* end, Op op, Init init,
                                          cudaStream_t s, const Options& o) {
  using Source = detail::segmented::reduce_source_t<InputIt, Op, Init>;
  return detail::segmented::run(t, b, Source{d_in}, d_out, n, begin, end, false, 0, op, init, true,
                                s, o);
}
template <class InputIt, class Out, class Op, class Init>
cudaError_t DeviceSegmentedReduce::FixedSizeReduce(void* t, std::size_t& b, InputIt d_in,
                                                   Out* d_out, std::int64_t n, std::int64_t size,
                                                   Op op, Init init, cudaStream_t s,
                                                   const Options& o) {
  using Source = detail::segmented::reduce_source_t<InputIt, Op, Init>;
  return detail::segmented::run(t, b, Source{d_in}, d_out, n, nullptr, nullptr, true, size, op,
                                init, true, s, o);
}

template <class T>
std::string DeviceSegmentedReduce::describe(std::int64_t n, const std::int64_t* begin,
                                            const std::int64_t* end, const Options& o) {
  return detail::segmented::describe_offsets<detail::segmented::ExtremumCall<T, true>>(n, begin,
                                                                                      end, o);
}
template <class T>
std::string DeviceSegmentedReduce::describe(std::int64_t n, std::int64_t size, const Options& o) {
  return detail::segmented::describe_fixed_size<detail::segmented::ExtremumCall<T, true>>(n, size,
                                                                                         o);
}

}  // namespace gpureduce

// The instantiations libgpureduce.a ships; listed here so nvcc users reuse them, not rebuild them.
#include "detail/segmented_instantiations.hpp"
