// The grid_sync pipeline: last_block without its ticket counter. The kernel is launched
// cooperatively (cudaLaunchCooperativeKernel), which guarantees every block is resident at once, so
// blocks can wait for each other: each block publishes its partial, the whole grid meets at
// cooperative_groups' grid barrier, and block 0 reduces the partials in index order with the same
// rung. The barrier's state is the driver's, not ours: temp storage holds only the partials, so
// there is nothing to zero before a call and nothing to promise about the storage (last_block on
// unzeroed storage zeroes first: arm.cuh). The price is one cooperative launch and the
// co-residency limit: the grid is at most one wave (docs/tuning.md, 'grid_sync').
#pragma once

#include <cooperative_groups.h>

#include "fold_partials.cuh"
#include "problem.cuh"

namespace gpureduce::detail {

template <class Rung, int BLOCK, class P>
__device__ __forceinline__ void grid_sync_epilogue(const KernelArgs<P>& args,
                                                   const typename P::Accum& partial,
                                                   typename P::Accum* shared) {
  using Accum = typename P::Accum;
  if (threadIdx.x == 0) args.partials()[blockIdx.x] = partial;
  // The barrier orders the partials' stores before block 0's loads (it fences at device scope),
  // and, like __syncthreads, ends with the whole block past it, so `shared` is free for reuse.
  cooperative_groups::this_grid().sync();
  if (blockIdx.x != 0) return;
  const Accum total = fold_partials<Rung, BLOCK>(args, gridDim.x, shared);
  if (threadIdx.x == 0) write_result(args, total);
}

}  // namespace gpureduce::detail
