// Segmented reductions: the one order in which a segment's chunk partials become its total,
// whoever computed them. Thread t folds partials t, t + 256, t + 512, ... in chunk order, then the
// block's shuffle tree combines the threads holding one (min(count, 256) of them). The last chunk's
// block of a split segment folds the ring this way, a block that reduced every chunk itself hands
// each partial to its thread as it goes (block_per_segment.cuh), and fixed-size segments' fold
// kernel reads them from temp storage: the same bits all three ways.
#pragma once

#include <cstdint>

#include "../block/shuffle_reduce.cuh"
#include "../block/vectorized.cuh"
#include "shape.cuh"

namespace gpureduce::detail::segmented {

// The thread that folds chunk `c`'s partial.
__device__ __forceinline__ bool folds_chunk(std::int64_t c) {
  return c % kBlockThreads == std::int64_t(threadIdx.x);
}

// The block tree over the threads' folds: result on thread 0. `warp_totals` as
// block_reduce_shuffle's (the caller syncs before reusing it).
template <class Accum, class Op>
__device__ __forceinline__ Accum finish_chunk_fold(const RunningFold<Accum, Op>& mine,
                                                   std::int64_t count, Accum* warp_totals) {
  const int valid = count < kBlockThreads ? int(count) : kBlockThreads;
  return block_reduce_shuffle(mine.value, valid, mine.op, warp_totals);
}

// `count` partials, partial c = load(c), all in memory: the whole fold.
template <class Accum, class Op, class Load>
__device__ __forceinline__ Accum fold_chunk_partials(std::int64_t count, const Load& load, Op op,
                                                     Accum* warp_totals) {
  RunningFold<Accum, Op> mine{op};
  for (std::int64_t c = threadIdx.x; c < count; c += kBlockThreads) mine.add_later(load(c));
  return finish_chunk_fold(mine, count, warp_totals);
}

}  // namespace gpureduce::detail::segmented
