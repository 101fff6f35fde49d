// The contenders gpureduce is measured against, behind a host-only interface so that the ladder
// and the benchmark suite (plain C++) share one compiled copy of CUB's and Thrust's templates.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "cases.hpp"

namespace gpureduce_bench {

// cub::DeviceReduce::Sum/Min/Max as a careful user calls it: temp storage sized and allocated once
// (in the constructor), then only the reduction is enqueued per call.
template <class In, OpKind Op>
class CubReducer {
 public:
  using Out = out_t<In, Op>;
  CubReducer(const In* d_in, Out* d_out, std::int64_t n);
  ~CubReducer();
  CubReducer(const CubReducer&) = delete;
  CubReducer& operator=(const CubReducer&) = delete;
  void enqueue(cudaStream_t stream);  // asynchronous
  std::size_t temp_storage_bytes() const { return temp_bytes_; }

 private:
  const In* d_in_;
  Out* d_out_;
  std::int64_t n_;
  void* d_temp_ = nullptr;
  std::size_t temp_bytes_ = 0;
};

// thrust::reduce(thrust::device, first, last, init, op) as a user calls it: each call allocates its
// temp storage, launches, copies the result to the host and synchronises (on the default stream).
template <class In, OpKind Op>
out_t<In, Op> thrust_reduce(const In* d_in, std::int64_t n);

}  // namespace gpureduce_bench
