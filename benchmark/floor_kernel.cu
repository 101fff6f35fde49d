// launch_empty_kernel (floor_kernel.hpp): gpureduce_bench's `floor` contender and
// gpureduce_overhead's BM_EmptyKernelLaunch.
#include "floor_kernel.hpp"

namespace gpureduce_bench {

namespace {
__global__ void empty_kernel() {}
}  // namespace

cudaError_t launch_empty_kernel(cudaStream_t stream) {
  empty_kernel<<<1, 32, 0, stream>>>();
  return cudaGetLastError();
}

}  // namespace gpureduce_bench
