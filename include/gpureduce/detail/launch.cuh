// Every kernel launch of the dispatch layer goes through here: one cudaLaunchKernelEx with the
// attributes the pipeline needs, and the device-side half of programmatic dependent launch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace gpureduce::detail {

// Programmatic dependent launch (PDL, sm_90+). A kernel launched with
// cudaLaunchAttributeProgrammaticStreamSerialization may start while the kernel before it in the
// stream is still finishing; griddepcontrol.wait then blocks until that kernel has completed and
// its memory is visible, so everything after it sees the stream order CUDA promises. Our kernels
// wait first thing, before touching memory, so no caller can tell the difference, except that
// the launch latency overlaps the previous kernel's tail. launch_dependents then lets the next
// PDL kernel start launching: it too must wait before reading what we write (that is the PDL
// contract, and our own kernels keep it). It saves about 0.3 us per reduction in a graph of
// back-to-back reductions (docs/tuning.md, 'Programmatic dependent launch'); on a kernel launched
// without the attribute both instructions are no-ops.
__device__ __forceinline__ void wait_for_previous_kernel_then_release_next() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// The same two instructions in the other order, for a kernel with little work of its own (the arm
// kernel, pipeline/arm.cuh): the next kernel may launch while this one still waits. The next
// kernel's griddepcontrol.wait still waits for this one to complete, so the order is as correct;
// what it changes is when the next kernel's blocks arrive. A reduction kernel keeps the order
// above: triggered first, its dependents' blocks arrived while it still had its data to read
// (docs/tuning.md, 'Programmatic dependent launch').
__device__ __forceinline__ void release_next_then_wait_for_previous_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

struct LaunchShape {
  unsigned grid_blocks;
  unsigned block_threads;
  std::size_t shared_bytes;
  cudaStream_t stream;
  bool cooperative;   // grid_sync: all blocks resident at once (cudaLaunchAttributeCooperative)
  bool programmatic;  // PDL allowed (device is sm_90+)
  unsigned cluster_blocks = 0;  // > 0: the grid is clusters of this many blocks
};

template <class... Params, class... Args>
cudaError_t launch_kernel(void (*kernel)(Params...), const LaunchShape& shape, Args&&... args) {
  cudaLaunchAttribute attributes[3];
  unsigned count = 0;
  if (shape.programmatic) {
    attributes[count].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attributes[count].val.programmaticStreamSerializationAllowed = 1;
    ++count;
  }
  if (shape.cooperative) {
    attributes[count].id = cudaLaunchAttributeCooperative;
    attributes[count].val.cooperative = 1;
    ++count;
  }
  if (shape.cluster_blocks > 0) {
    attributes[count].id = cudaLaunchAttributeClusterDimension;
    attributes[count].val.clusterDim.x = shape.cluster_blocks;
    attributes[count].val.clusterDim.y = 1;
    attributes[count].val.clusterDim.z = 1;
    ++count;
  }
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(shape.grid_blocks);
  config.blockDim = dim3(shape.block_threads);
  config.dynamicSmemBytes = shape.shared_bytes;
  config.stream = shape.stream;
  config.attrs = attributes;
  config.numAttrs = count;
  return cudaLaunchKernelEx(&config, kernel, static_cast<Args&&>(args)...);
}

}  // namespace gpureduce::detail
