// Evicts the input from L2 before a timed iteration: writing a buffer of twice the L2 size leaves
// none of the previous iteration's lines behind, so small inputs are read from HBM, not from cache.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "cuda_check.hpp"

namespace gpureduce_bench {

class L2Flusher {
 public:
  explicit L2Flusher(std::size_t l2_bytes) : bytes_(2 * l2_bytes) {
    if (bytes_ > 0) BENCH_CUDA_CHECK(cudaMalloc(&buffer_, bytes_));
  }
  ~L2Flusher() {
    if (buffer_) cudaFree(buffer_);
  }
  L2Flusher(const L2Flusher&) = delete;
  L2Flusher& operator=(const L2Flusher&) = delete;

  // Enqueue before recording the start event: the event then fires after the flush completes.
  void flush(cudaStream_t stream) {
    if (buffer_) BENCH_CUDA_CHECK(cudaMemsetAsync(buffer_, 0, bytes_, stream));
  }

 private:
  std::size_t bytes_;
  void* buffer_ = nullptr;
};

}  // namespace gpureduce_bench
