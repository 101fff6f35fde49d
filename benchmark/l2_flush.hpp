// Evicts the input from L2 before a timed iteration: reading a buffer of twice the L2 size leaves
// none of the previous iteration's lines behind, so small inputs are read from HBM, not from cache.
// Read, not written: a written buffer (cudaMemsetAsync, as until 2026-11-28) leaves the L2 full of
// dirty lines, whose write-back the timed call then pays as it evicts them (about 60 MB on an H200:
// 5-12 us a flushed call, both contenders alike), which a reads-only floor does not count
// (docs/level1.md, 'The flush reads').
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "cuda_check.hpp"
#include "floor_kernel.hpp"

namespace gpureduce_bench {

class L2Flusher {
 public:
  explicit L2Flusher(std::size_t l2_bytes) : bytes_(2 * l2_bytes) {
    if (bytes_ == 0) return;
    BENCH_CUDA_CHECK(cudaMalloc(&buffer_, bytes_));
    // Written once, here: its dirty lines leave L2 in the first flush, before any timed call.
    BENCH_CUDA_CHECK(cudaMemset(buffer_, 0x5a, bytes_));
  }
  ~L2Flusher() {
    if (buffer_) cudaFree(buffer_);
  }
  L2Flusher(const L2Flusher&) = delete;
  L2Flusher& operator=(const L2Flusher&) = delete;

  // Enqueue before recording the start event: the event then fires after the flush completes.
  void flush(cudaStream_t stream) {
    if (buffer_) BENCH_CUDA_CHECK(launch_read_kernel(buffer_, bytes_, stream));
  }

 private:
  std::size_t bytes_;
  void* buffer_ = nullptr;
};

}  // namespace gpureduce_bench
