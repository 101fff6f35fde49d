// Segmented reductions by a block: a chunk of a segment is reduced in the vectorized rung's own
// order (thread t folds vectors t, t + 256, ..., four in flight, the scalar head and tail, then the
// block's shuffle tree), the rung's code itself; a block that takes a segment alone reduces its
// chunks one after another and folds their partials in fold.cuh's order, so a segment gives the
// same bits whether its chunks ran on one block or many (an order-free operator's segment, whose
// answer is the same in any order, in one stream).
#pragma once

#include <cstdint>

#include "../block/vectorized.cuh"
#include "../ops.cuh"
#include "fold.cuh"
#include "shape.cuh"
#include "state.cuh"

namespace gpureduce::detail::segmented {

// Chunk `c` of a segment of `length` items cut by `chunking`: its first in-segment index and size.
struct ChunkRange {
  std::int64_t first;
  std::int64_t items;
};
__host__ __device__ inline ChunkRange chunk_range(const Chunking& chunking, std::int64_t length,
                                                  std::int64_t c) {
  const std::int64_t first = c * chunking.span;
  const std::int64_t rest = length - first;
  return {first, rest < chunking.span ? rest : chunking.span};
}

// Chunk `c` of the segment starting at absolute offset `begin`, reduced by the whole block: the
// total on thread 0. warp_totals: kWarpsPerBlock accumulators of shared memory, which warp 0 may
// still read on return (sync before reusing it).
template <class P>
__device__ __forceinline__ typename P::Accum reduce_chunk(const Args<P>& a, std::int64_t begin,
                                                          std::int64_t length,
                                                          const Chunking& chunking, std::int64_t c,
                                                          typename P::Accum* warp_totals) {
  using Accum = typename P::Accum;
  const ChunkRange r = chunk_range(chunking, length, c);
  Accum total = VectorizedRung::reduce<kBlockThreads, Accum>(a.source.reader(begin + r.first),
                                                             r.items, 0, 1, a.op, warp_totals,
                                                             static_cast<Accum*>(nullptr));
  a.source.rebase(total, r.first);
  return total;
}

// A whole segment of `length` > 0 items on this block alone; thread 0 writes its output.
// `handover`: one accumulator of shared memory (a chunk's partial on its way to its thread).
template <class P>
__device__ void reduce_segment_in_block(const Args<P>& a, std::int64_t segment, std::int64_t begin,
                                        std::int64_t length, typename P::Accum* warp_totals,
                                        typename P::Accum* handover) {
  using Accum = typename P::Accum;
  using S = Shape<sizeof(typename P::In)>;
  const Chunking chunking = S::chunking(length);
  // One chunk, or an order-free operator (one answer in any order): the segment as one stream,
  // one tree at its end, where chunk by chunk each chunk's end drained the block's loads
  // (docs/tuning.md, 'Order-free whole segments').
  if (kOrderFree<typename P::Op, Accum> || chunking.count == 1) {
    const Accum total = reduce_chunk(a, begin, length, Chunking{1, length}, 0, warp_totals);
    if (threadIdx.x == 0) a.out[segment] = a.finish(total);
    return;
  }
  RunningFold<Accum, typename P::Op> mine{a.op};
  for (std::int64_t c = 0; c < chunking.count; ++c) {
    const Accum partial = reduce_chunk(a, begin, length, chunking, c, warp_totals);
    if (threadIdx.x == 0) *handover = partial;
    __syncthreads();
    if (folds_chunk(c)) mine.add_later(*handover);
    __syncthreads();
  }
  const Accum total = finish_chunk_fold(mine, chunking.count, warp_totals);
  if (threadIdx.x == 0) a.out[segment] = a.finish(total);
}

}  // namespace gpureduce::detail::segmented
