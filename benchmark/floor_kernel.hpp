// The floor of a single-launch reduction in this harness: one launch of a kernel that does nothing.
// Timed between CUDA events like any contender, it is what no call that launches a kernel can beat
// (the host's launch cost and the GPU's kernel start-up, no memory traffic), measured in the same run
// as the reductions it bounds. Host-only interface, so plain C++ programs can call it.
#pragma once

#include <cuda_runtime_api.h>

namespace gpureduce_bench {

// Enqueues one launch of an empty __global__ kernel, 1 block of 32 threads, on `stream`;
// asynchronous. Returns the launch's error (cudaGetLastError after the <<<...>>>).
cudaError_t launch_empty_kernel(cudaStream_t stream);

}  // namespace gpureduce_bench
