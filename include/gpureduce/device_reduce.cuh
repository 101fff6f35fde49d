// gpureduce for nvcc users: the engine's templates, for any input type and any associative,
// commutative operator, plus the definitions behind gpureduce.hpp's Sum/Min/Max (so nvcc users can
// also instantiate those for types the library does not ship, e.g. Sum<uint8_t, uint64_t>).
#pragma once

#include "detail/arg_extremum.cuh"
#include "detail/dispatch.cuh"
#include "detail/ops.cuh"
#include "detail/transform_reduce.cuh"
#include "detail/value_traits.cuh"
#include "gpureduce.hpp"

namespace gpureduce {

// d_out[0] = reduce_op(init, reduce_op-reduction of transform_op(d_in[i])), as
// cub::DeviceReduce::TransformReduce (the accumulator is what reduce_op(init, transform_op(*d_in))
// returns): the transform is applied as each element is read, in the kernel, so nothing is
// materialised. Raw pointers keep vector loads. Plan-order bits, as Reduce; the cub_block strategy
// reproduces CUB's order (and bits) for raw pointers.
template <class InputIt, class Out, class ReduceOp, class TransformOp, class Init>
cudaError_t TransformReduce(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                            Out* d_out, std::int64_t num_items, ReduceOp reduce_op,
                            TransformOp transform_op, Init init, cudaStream_t stream = nullptr,
                            const Options& options = {}) {
  if (options.accuracy == Accuracy::correctly_rounded)
    return detail::fail(cudaErrorInvalidValue,
                        "gpureduce: Reduce and TransformReduce with an operator of the caller's "
                        "cannot be correctly rounded (DeviceReduce::Sum can)");
  return detail::reduce_transformed(d_temp_storage, &temp_storage_bytes, d_in, d_out, num_items,
                                    reduce_op, transform_op, init, stream, options);
}

// d_out[0] = op(init, op-reduction of d_in[0..num_items)); d_out[0] = init when num_items == 0.
// As cub::DeviceReduce::Reduce: the accumulator type is what op(init, *d_in) returns. d_in is any
// random-access iterator (counting, constant, transform, zip, thrust::device_ptr) or a pointer;
// raw pointers (and device_ptr, which is one) are loaded as 16-byte vectors, iterators element by
// element. The atomic pipeline takes plus, cuda::minimum and cuda::maximum of built-in types
// (pipeline/atomic_combine.cuh) and refuses other operators.
template <class InputIt, class Out, class Op, class Init>
cudaError_t Reduce(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                   Out* d_out, std::int64_t num_items, Op op, Init init,
                   cudaStream_t stream = nullptr, const Options& options = {}) {
  return TransformReduce(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, op,
                         detail::Identity{}, init, stream, options);
}

template <class In, class Out>
cudaError_t DeviceReduce::Sum(void* d_temp_storage, std::size_t& temp_storage_bytes,
                              const In* d_in, Out* d_out, std::int64_t num_items,
                              cudaStream_t stream, const Options& options) {
  return detail::reduce(d_temp_storage, &temp_storage_bytes, d_in, d_out, num_items,
                        detail::sum_op_t<In, Out>{}, Out{}, true, stream, options, nullptr);
}

// Min and Max use init only for empty inputs (what CUB writes then); for n > 0 the result depends
// on the inputs alone.
template <class T>
cudaError_t DeviceReduce::Min(void* d_temp_storage, std::size_t& temp_storage_bytes,
                              const T* d_in, T* d_out, std::int64_t num_items,
                              cudaStream_t stream, const Options& options) {
  return detail::reduce(d_temp_storage, &temp_storage_bytes, d_in, d_out, num_items,
                        detail::MinOp{}, detail::value_traits<T>::max(), false, stream, options,
                        nullptr);
}

template <class T>
cudaError_t DeviceReduce::Max(void* d_temp_storage, std::size_t& temp_storage_bytes,
                              const T* d_in, T* d_out, std::int64_t num_items,
                              cudaStream_t stream, const Options& options) {
  return detail::reduce(d_temp_storage, &temp_storage_bytes, d_in, d_out, num_items,
                        detail::MaxOp{}, detail::value_traits<T>::lowest(), false, stream, options,
                        nullptr);
}

template <class T>
cudaError_t DeviceReduce::ArgMin(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                 const T* d_in, IndexedValue<T>* d_out, std::int64_t num_items,
                                 cudaStream_t stream, const Options& options) {
  return detail::reduce_arg_extremum<detail::ArgMinOp>(d_temp_storage, temp_storage_bytes, d_in,
                                                       d_out, num_items, stream, options);
}

template <class T>
cudaError_t DeviceReduce::ArgMax(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                 const T* d_in, IndexedValue<T>* d_out, std::int64_t num_items,
                                 cudaStream_t stream, const Options& options) {
  return detail::reduce_arg_extremum<detail::ArgMaxOp>(d_temp_storage, temp_storage_bytes, d_in,
                                                       d_out, num_items, stream, options);
}

template <class In, class Out>
cudaError_t DeviceReduce::PlanSum(LaunchPlan& plan, const In* d_in, std::int64_t num_items,
                                  const Options& options, cudaStream_t stream) {
  return detail::reduce(nullptr, nullptr, d_in, static_cast<Out*>(nullptr), num_items,
                        detail::sum_op_t<In, Out>{}, Out{}, true, stream, options, &plan);
}

template <class T>
cudaError_t DeviceReduce::PlanMin(LaunchPlan& plan, const T* d_in, std::int64_t num_items,
                                  const Options& options, cudaStream_t stream) {
  return detail::reduce(nullptr, nullptr, d_in, static_cast<T*>(nullptr), num_items,
                        detail::MinOp{}, detail::value_traits<T>::max(), false, stream, options,
                        &plan);
}

template <class T>
cudaError_t DeviceReduce::PlanMax(LaunchPlan& plan, const T* d_in, std::int64_t num_items,
                                  const Options& options, cudaStream_t stream) {
  return detail::reduce(nullptr, nullptr, d_in, static_cast<T*>(nullptr), num_items,
                        detail::MaxOp{}, detail::value_traits<T>::lowest(), false, stream, options,
                        &plan);
}

}  // namespace gpureduce

// The instantiations libgpureduce.a ships; listed here so nvcc users reuse them, not rebuild them.
#include "detail/shipped_instantiations.hpp"
