// Block partials -> the total, in index order with the same rung: two_kernel's second kernel,
// last_block's folding block and grid_sync's block 0 all finish this way (so, for a given grid, their
// floating-point order is the same). The partials were written by other blocks (or an earlier
// kernel), so they are read through L2 (PartialsReader). The total is valid in thread 0.
#pragma once

#include <cstdint>

#include "../block/shuffle_reduce.cuh"
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
  // The short path: no more partials than threads, each thread reads at most one, with 32-bit
  // indices and no loop, into the same shuffle tree as the rung's fold (the same adds in the same
  // order, so the same bits). The general fold's 64-bit grid-stride loop and its bookkeeping were
  // about twice the instructions on the folding block's path, which inside graphs is the
  // reduction's critical path (docs/tuning.md, 'Folding partials').
  if constexpr (Rung::kFoldsPartialsOnePerThread) {
    const int threads = BLOCK > 0 ? BLOCK : int(blockDim.x);
    if (count <= threads) {
      Accum value{};
      if (int(threadIdx.x) < int(count)) value = read(std::int64_t(threadIdx.x));
      return block_reduce_shuffle(value, int(count), args.op, shared);
    }
  }
  // The global_memory rung folds through the folding block's own scratch, which its own first pass
  // has finished with, whichever block folds. Block 0's, used before, is free only if block 0 is
  // done: true of every pipeline here, but not of the collector tried in 8a28981 (the block that
  // started last folded while others still reduced; reverted: docs/tuning.md, 'Tried and not
  // adopted'), whose fold wrote over block 0's scratch (wrong sums under compute-sanitizer
  // synccheck). `count` is the first pass's grid, which sized the storage (also
  // in two_kernel's one-block second kernel, where gridDim.x is 1 and blockIdx.x 0).
  Accum* scratch = Rung::kUsesGlobalScratch
                       ? args.scratch(count) + std::int64_t(blockIdx.x) * blockDim.x
                       : nullptr;
  return Rung::template reduce<BLOCK, Accum>(read, count, 0, 1, args.op, shared, scratch);
}

// fold_partials_from's short path (BLOCK threads, count <= BLOCK of them each reading one partial,
// then block_reduce_shuffle over those `count` threads), done by one warp alone: lane l of
// virtual warp w reads partial 32 w + l, the virtual warps' shuffle trees run as the real warps'
// would (the same valid lanes; where all 32 are valid, warp_reduce_full says why lane 0 is
// unaffected by lanes that read past the warp), lane w takes virtual warp w's total, and the same
// second tree folds the totals. The same adds in the same order, so the same bits as BLOCK
// threads, without the block's barrier and shared-memory hand-over between the trees, and with
// every partial's load in flight at once. Result on lane 0.
//
// Used by two_kernel's second kernel (reduce_partials_in_warp_kernel). Not by last_block's folding
// block: there it made the kernel slower inside graphs and took more registers, which the zeroed
// streaming grid's sizing cares about (docs/tuning.md, 'Folding partials').
template <int BLOCK, class Reader, class Op>
__device__ __forceinline__ typename Reader::value_type fold_partials_in_warp(const Reader& read,
                                                                             int count, Op op) {
  using Accum = typename Reader::value_type;
  constexpr int kVirtualWarps = BLOCK / kWarpThreads;
  static_assert(BLOCK % kWarpThreads == 0 && kVirtualWarps >= 1 && kVirtualWarps <= kWarpThreads,
                "one warp folds for a block of 32 to 1024 threads");
  const int lane = int(threadIdx.x) & (kWarpThreads - 1);
  Accum values[kVirtualWarps] = {};
  read.template read_strided<kVirtualWarps>(lane, kWarpThreads, count, values);
  // The virtual warps' trees level by level, all of them at each level, so that their shuffles
  // are independent and issue back to back (tree by tree, each level waited on the one before,
  // and the pair took 0.14-0.54 us more: docs/tuning.md, 'Folding partials').
#pragma unroll
  for (int offset = kWarpThreads / 2; offset > 0; offset >>= 1) {
    Accum other[kVirtualWarps];
#pragma unroll
    for (int w = 0; w < kVirtualWarps; ++w) other[w] = shuffle_down(values[w], offset);
#pragma unroll
    for (int w = 0; w < kVirtualWarps; ++w)
      if (lane + offset < count - w * kWarpThreads) values[w] = op(values[w], other[w]);
  }
  Accum warp_total = values[0];  // lane w: virtual warp w's total (lanes past the last: unused)
#pragma unroll
  for (int w = 1; w < kVirtualWarps; ++w) {
    const Accum total = shuffle_from(values[w], 0);
    if (lane == w) warp_total = total;
  }
  return warp_reduce_prefix(warp_total, (count + kWarpThreads - 1) / kWarpThreads, op);
}

template <class Rung, int BLOCK, class P>
__device__ __forceinline__ typename P::Accum fold_partials(const KernelArgs<P>& args,
                                                           std::int64_t count,
                                                           typename P::Accum* shared) {
  return fold_partials_from<Rung, BLOCK>(PartialsReader<typename P::Accum>{args.partials()}, args,
                                         count, shared);
}

}  // namespace gpureduce::detail
