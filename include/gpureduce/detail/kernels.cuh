// The two kernels every (rung, pipeline) pair is built from. The pipeline is a kernel argument, not
// a template parameter: its epilogue is a few instructions, and one kernel per rung and type keeps
// the build three times smaller.
#pragma once

#include "device_memory.cuh"
#include "launch.cuh"
#include "pipeline/fold_partials.cuh"
#include "pipeline/atomic.cuh"
#include "pipeline/cluster.cuh"
#include "pipeline/grid_sync.cuh"
#include "pipeline/last_block.cuh"
#include "pipeline/problem.cuh"
#include "pipeline/two_kernel.cuh"

namespace gpureduce::detail {

// Rungs whose block size is a run-time value compile for up to 1024 threads.
template <int BLOCK>
inline constexpr int kMaxThreadsFor = BLOCK > 0 ? BLOCK : 1024;

// The rung's occupancy floor for this operator (cub_block: CUB's occupancy for sums).
template <class Rung, class P>
inline constexpr int kMinBlocksFor = Rung::template min_blocks_per_sm<typename P::Op>();

template <class P>
__device__ __forceinline__ typename P::Accum* dynamic_shared() {
  extern __shared__ __align__(16) unsigned char dynamic_shared_bytes[];
  return reinterpret_cast<typename P::Accum*>(dynamic_shared_bytes);
}

// First pass: every block reduces its share of the input, then the pipeline's epilogue runs.
template <class Rung, int BLOCK, class P>
__global__ void __launch_bounds__(kMaxThreadsFor<BLOCK>, kMinBlocksFor<Rung, P>)
    reduce_input_kernel(KernelArgs<P> args) {
  using Accum = typename P::Accum;
  wait_for_previous_kernel_then_release_next();
  if (args.num_items == 0) {  // grid is one block; nothing to count
    if (threadIdx.x == 0) write_empty_result(args);
    return;
  }
  Accum* shared = dynamic_shared<P>();
  Accum* block_scratch = args.scratch ? args.scratch + std::int64_t(blockIdx.x) * blockDim.x : nullptr;
  const Accum partial = Rung::template reduce<BLOCK, Accum>(
      InputReader<typename P::In, Accum>{args.d_in}, args.num_items, std::int64_t(blockIdx.x),
      std::int64_t(gridDim.x), args.op, shared, block_scratch);
  switch (args.pipeline) {
    case Pipeline::last_block: last_block_epilogue<Rung, BLOCK>(args, partial, shared); break;
    case Pipeline::atomic: atomic_epilogue(args, partial); break;
    case Pipeline::grid_sync: grid_sync_epilogue<Rung, BLOCK>(args, partial, shared); break;
    case Pipeline::cluster: cluster_epilogue(args, partial); break;
    default: two_kernel_epilogue(args, partial); break;
  }
}

// Second pass of two_kernel: one block reduces the first pass's partials.
template <class Rung, int BLOCK, class P>
__global__ void __launch_bounds__(kMaxThreadsFor<BLOCK>, kMinBlocksFor<Rung, P>)
    reduce_partials_kernel(KernelArgs<P> args, int num_partials) {
  using Accum = typename P::Accum;
  wait_for_previous_kernel_then_release_next();  // the first pass's partials, complete and visible
  const Accum total = fold_partials<Rung, BLOCK>(args, num_partials, dynamic_shared<P>());
  if (threadIdx.x == 0) write_result(args, total);
}

}  // namespace gpureduce::detail
