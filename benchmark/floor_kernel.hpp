// The floor of a single-launch reduction in this harness: one launch of a kernel that does nothing.
// Timed between CUDA events like any contender, it is what no call that launches a kernel can beat
// (the host's launch cost and the GPU's kernel start-up, no memory traffic), measured in the same run
// as the reductions it bounds. Host-only interface, so plain C++ programs can call it.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace gpureduce_bench {

// Enqueues one launch of an empty __global__ kernel, 1 block of 32 threads, on `stream`;
// asynchronous. Returns the launch's error (cudaGetLastError after the <<<...>>>).
cudaError_t launch_empty_kernel(cudaStream_t stream);

// The other floor, for inputs whose time is bandwidth: one launch of a kernel that reads `bytes`
// from `data` (16-byte aligned) and reduces nothing: 16-byte loads, 8 in flight per thread, one
// wave of 512-thread blocks (the occupancy of the kernel, cached). Its time is what reading the
// input once costs here, as fast as we know how to read it; gpureduce_bench's `read` contender.
// cudaErrorInvalidValue for a misaligned `data`.
cudaError_t launch_read_kernel(const void* data, std::size_t bytes, cudaStream_t stream);

}  // namespace gpureduce_bench
