// ArgMin / ArgMax: a reduction of {index, value} pairs read by IndexedReader (vector loads, the
// index computed, not loaded) under ArgExtremumOp.
#pragma once

#include "dispatch.cuh"
#include "ops.cuh"
#include "readers.cuh"
#include "value_traits.cuh"

namespace gpureduce::detail {

// What cub::DeviceReduce::ArgMin / ArgMax write for an empty input.
template <class Op, class T>
IndexedValue<T> cub_empty_arg_extremum() {
  return {1, std::is_same_v<Op, ArgMinOp> ? value_traits<T>::max() : value_traits<T>::lowest()};
}

// `empty` is written for an empty input; a non-empty one gives the first extremum of
// transform(d_in[i]) and its index.
template <class Op, class T, class Transform = Identity>
cudaError_t reduce_arg_extremum(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                const T* d_in, IndexedValue<T>* d_out, std::int64_t num_items,
                                cudaStream_t stream, const Options& options,
                                Transform transform = {},
                                IndexedValue<T> empty = cub_empty_arg_extremum<Op, T>()) {
  using Pair = IndexedValue<T>;
  return reduce_input(d_temp_storage, &temp_storage_bytes, IndexedReader<T, Pair, Transform>(d_in, transform),
                      d_out, num_items, Op{}, empty, false, stream, options, nullptr);
}

}  // namespace gpureduce::detail
