// Block partials -> the total, in index order with the same rung: two_kernel's second kernel,
// last_block's folding block and grid_sync's block 0 all finish this way (so, for a given grid, their
// floating-point order is the same). The partials were written by other blocks (or an earlier
// kernel), so they are read through L2 (PartialsReader). The total is valid in thread 0.
#pragma once

#include <cstdint>

#include "../device_memory.cuh"
#include "problem.cuh"

namespace gpureduce::detail {

// `read` yields partial i: PartialsReader, or last_block's FlaggedPartialsReader (the same values).
template <class Rung, int BLOCK, class P, class Reader>
__device__ __forceinline__ typename P::Accum fold_partials_from(Reader read,
                                                                const KernelArgs<P>& args,
                                                                std::int64_t count,
                                                                typename P::Accum* shared) {
  using Accum = typename P::Accum;
  // The global_memory rung folds through the folding block's own scratch, which its own first pass
  // has finished with, whichever block folds. Block 0's, used before, is free only if block 0 is
  // done: true of every pipeline here, but not of the collector tried in 8a28981 (the block that
  // started last folded while others still reduced; reverted, benchmark/results/
  // h200-2026-11-22i-probe.txt), whose fold wrote over block 0's scratch (wrong sums under
  // compute-sanitizer synccheck). `count` is the first pass's grid, which sized the storage (also
  // in two_kernel's one-block second kernel, where gridDim.x is 1 and blockIdx.x 0).
  Accum* scratch = Rung::kUsesGlobalScratch
                       ? args.scratch(count) + std::int64_t(blockIdx.x) * blockDim.x
                       : nullptr;
  return Rung::template reduce<BLOCK, Accum>(read, count, 0, 1, args.op, shared, scratch);
}

template <class Rung, int BLOCK, class P>
__device__ __forceinline__ typename P::Accum fold_partials(const KernelArgs<P>& args,
                                                           std::int64_t count,
                                                           typename P::Accum* shared) {
  return fold_partials_from<Rung, BLOCK>(PartialsReader<typename P::Accum>{args.partials()}, args,
                                         count, shared);
}

}  // namespace gpureduce::detail
