// Reduce and TransformReduce over pointers and iterators: the reader each input shape gets
// (readers.cuh), then the engine.
#pragma once

#include <iterator>
#include <type_traits>

#include <thrust/device_ptr.h>

#include "dispatch.cuh"
#include "readers.cuh"

namespace gpureduce::detail {

// A raw pointer behind a thrust::device_ptr, so it is read as vectors like any pointer.
template <class It>
auto unwrap_contiguous(It it) {
  if constexpr (std::is_pointer_v<It>) return static_cast<const std::remove_pointer_t<It>*>(it);
  else return it;
}
template <class T>
const T* unwrap_contiguous(thrust::device_ptr<T> it) {
  return thrust::raw_pointer_cast(it);
}
template <class T>
const T* unwrap_contiguous(thrust::device_ptr<const T> it) {
  return thrust::raw_pointer_cast(it);
}

template <class InputIt, class Out, class ReduceOp, class TransformOp, class Init>
cudaError_t reduce_transformed(void* d_temp_storage, std::size_t* temp_storage_bytes,
                               InputIt d_in, Out* d_out, std::int64_t num_items,
                               ReduceOp reduce_op, TransformOp transform_op, Init init,
                               cudaStream_t stream, const Options& options) {
  const auto input = unwrap_contiguous(d_in);
  using Input = std::remove_const_t<decltype(input)>;
  using Value = std::decay_t<decltype(*input)>;
  using Transformed = std::decay_t<std::invoke_result_t<TransformOp, Value>>;
  using Accum = accum_t<ReduceOp, Init, Transformed>;
  if constexpr (std::is_pointer_v<Input>) {
    using In = std::remove_cv_t<std::remove_pointer_t<Input>>;
    if constexpr (std::is_same_v<TransformOp, Identity>)
      return reduce_input(d_temp_storage, temp_storage_bytes, InputReader<In, Accum>(input), d_out,
                          num_items, reduce_op, init, true, stream, options, nullptr);
    else
      return reduce_input(d_temp_storage, temp_storage_bytes,
                          TransformReader<In, Accum, TransformOp>(input, transform_op), d_out,
                          num_items, reduce_op, init, true, stream, options, nullptr);
  } else {
    return reduce_input(d_temp_storage, temp_storage_bytes,
                        IteratorReader<Input, Accum, TransformOp>{input, transform_op}, d_out,
                        num_items, reduce_op, init, true, stream, options, nullptr);
  }
}

}  // namespace gpureduce::detail
