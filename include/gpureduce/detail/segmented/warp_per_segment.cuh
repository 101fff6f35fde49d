// Segmented reductions below a block: a group of G lanes per segment of at most 128 items, a warp
// per segment of at most 16 KiB (shape.cuh). Each piece's order is a function of the segment's
// length (and, for the warp, its start's alignment) alone.
#pragma once

#include <cstdint>

#include "../block/shuffle_reduce.cuh"
#include "../block/vectorized.cuh"
#include "../device_memory.cuh"
#include "claim.hpp"
#include "shape.cuh"
#include "state.cuh"

namespace gpureduce::detail::segmented {

// This warp's place in the grid, and the grid's warps.
__device__ __forceinline__ std::int64_t global_warp() {
  return std::int64_t(blockIdx.x) * kWarpsPerBlock + threadIdx.x / kWarpThreads;
}
__device__ __forceinline__ std::int64_t grid_warps() {
  return std::int64_t(gridDim.x) * kWarpsPerBlock;
}

// __shfl_down_sync within aligned groups of `width` lanes, for any trivially copyable type.
template <class T>
__device__ __forceinline__ T shuffle_down_in_group(T value, int delta, int width) {
  return shuffle_words(value, [delta, width](unsigned word) {
    return __shfl_down_sync(kFullWarpMask, word, delta, width);
  });
}

// One segment of `length` items (G <= length <= 4G) reduced by the G = `lanes` lanes of a group;
// `rank` is the lane's place in its group. Lane r folds items r, r + G, r + 2G, r + 3G (loads all
// in flight), then the group's shuffle tree; the total lands on rank 0. Every lane of the warp
// calls this (the shuffles take the whole warp); an inactive group's lanes load nothing. G is a
// run-time value: inlined where it is a constant (fixed-size segments), the tree unrolls; in the
// general kernel one copy serves every G (see reduce_batch).
template <class Accum, class Reader, class Op>
__device__ __forceinline__ Accum group_reduce(const Reader& read, std::int64_t length, int lanes,
                                              int rank, bool active, Op op) {
  Accum items[kGroupItemsPerLane];
#pragma unroll
  for (int k = 0; k < kGroupItemsPerLane; ++k)
    if (active && rank + k * lanes < length) items[k] = read(rank + k * lanes);
  Accum value = active ? items[0] : Accum{};
#pragma unroll
  for (int k = 1; k < kGroupItemsPerLane; ++k)
    if (active && rank + k * lanes < length) value = op(value, items[k]);
  // Every lane of the group holds a value (G <= length), so no lane tests: a lane whose partner is
  // past the group's end combines garbage, which rank 0 never reads (warp_reduce_full's argument).
  for (int offset = lanes / 2; offset > 0; offset /= 2)
    value = op(value, shuffle_down_in_group(value, offset, lanes));
  return value;
}

// One segment of more than 128 items reduced by a whole warp: the vectorized rung's order at warp
// scale (16-byte vectors lane, lane + 32, ... four in flight, then the scalar head and tail, then
// the warp's tree over the lanes holding values). The total lands on lane 0.
template <class Accum, class Reader, class Op>
__device__ __forceinline__ Accum warp_reduce(const Reader& read, std::int64_t length, Op op) {
  using In = typename Reader::value_type;
  const int lane = int(threadIdx.x) % kWarpThreads;
  RunningFold<Accum, Op> mine{op};
  if constexpr (VectorizedRung::kVectorizable<Reader>) {
    const VectorizedRung::Layout l = VectorizedRung::layout(read.address(), sizeof(In), length);
    // 32-bit indices: a warp's segment is at most 16 KiB (kWarpMaxBytes), and 64-bit ones cost the
    // registers that made the general kernel spill for Min and Max (docs/tuning.md, 'Segmented
    // registers').
    const int head = int(l.head), vectors = int(l.vectors);
    auto fold = vector_fold<VectorizedRung::kVectorsInFlight>(read, mine, head);
    // The scalar head and tail are loaded with the first vectors and folded after the last, in
    // the same order as ever: loaded after, they were one more memory round trip a segment (as
    // VectorizedRung::reduce_one_block).
    const bool has_head = lane < l.head, has_tail = lane < length - l.tail_begin;
    Accum head_item{}, tail_item{};
    if (has_head) head_item = read(lane);
    if (has_tail) tail_item = read(l.tail_begin + lane);
    VectorizedRung::fold_strided_vectors(read, head, lane, kWarpThreads, vectors, fold);
    if (has_head) mine.add(head_item);
    if (has_tail) mine.add_later(tail_item);
    std::int64_t valid = l.vectors < kWarpThreads ? l.vectors : kWarpThreads;
    valid = valid > l.head ? valid : l.head;
    valid = valid > length - l.tail_begin ? valid : length - l.tail_begin;
    return warp_reduce_prefix(mine.value, int(valid), op);
  } else {
    // Item by item (iterators, odd sizes): lane j folds j, j + 32, ..., four loads in flight.
    for (std::int64_t i = lane; i < length; i += 4 * kWarpThreads) {
      Accum items[4];
#pragma unroll
      for (int k = 0; k < 4; ++k)
        if (i + k * kWarpThreads < length) items[k] = read(i + k * kWarpThreads);
#pragma unroll
      for (int k = 0; k < 4; ++k)
        if (i + k * kWarpThreads < length) mine.add_later(items[k]);
    }
    return warp_reduce_full(mine.value, op);  // length > 128: every lane holds a value
  }
}

// The group-class segments of a batch whose lanes' group size is G = 2^log2 (`mask`), 32 / G of
// them per pass, each result to out[segment]. `stage` is this warp's 32 bytes of shared memory:
// lane ids of the pass's segments. G is a run-time value, so the lanes' places come from shifts and
// masks, not divisions.
template <class P>
__device__ __forceinline__ void reduce_group_class(const Args<P>& a, unsigned mask, int log2,
                                                   std::int64_t begin, std::int64_t length,
                                                   std::int64_t segment, unsigned char* stage,
                                                   typename P::Out* out) {
  using Accum = typename P::Accum;
  const int lane = int(threadIdx.x) % kWarpThreads;
  const int lanes = 1 << log2, per_pass = kWarpThreads >> log2;
  const int group = lane >> log2, rank_in_group = lane & (lanes - 1);
  while (mask != 0) {
    const int rank = __popc(mask & ((1u << lane) - 1));
    if ((mask >> lane) & 1u && rank < per_pass) stage[rank] = static_cast<unsigned char>(lane);
    __syncwarp();
    const int members = __popc(mask) < per_pass ? __popc(mask) : per_pass;
    const bool active = group < members;
    const int source = active ? stage[group] : lane;
    const int last = stage[members - 1];
    __syncwarp();  // stage is rewritten by the next pass
    const std::int64_t first = __shfl_sync(kFullWarpMask, begin, source);
    const std::int64_t items = __shfl_sync(kFullWarpMask, length, source);
    const std::int64_t index = __shfl_sync(kFullWarpMask, segment, source);
    const Accum total = group_reduce<Accum>(a.source.reader(first), items, lanes, rank_in_group,
                                            active, a.op);
    if (active && rank_in_group == 0) out[index] = a.finish(total);
    mask &= ~((2u << last) - 1u);  // the pass's segments are the lowest set bits, up to `last`
  }
}

// The group-class segments among the warp's lanes (each lane its own segment, or none: length
// <= 0 or any other class), every lane calling; results to out[segment].
template <class P>
__device__ __forceinline__ void reduce_group_lanes(const Args<P>& a, std::int64_t begin,
                                                   std::int64_t length, std::int64_t segment,
                                                   unsigned char* stage, typename P::Out* out) {
  using S = Shape<sizeof(typename P::In)>;
  const int lanes = S::classify(length) == SegmentClass::group ? S::group_lanes(length) : 0;
  // The group sizes one after another, G = 1, 2, 4, ..., 32, one copy of the code for all: six
  // unrolled copies made the kernel spill for Min and Max (docs/tuning.md, 'Segmented registers').
#pragma unroll 1
  for (int log2 = 0; (1 << log2) <= kWarpThreads; ++log2)
    reduce_group_class(a, __ballot_sync(kFullWarpMask, lanes == 1 << log2), log2, begin, length,
                       segment, stage, out);
}

// General offsets: segments [32 batch, 32 batch + 32), one per lane, offsets read once and
// coalesced. Empty ones get init, group-class ones are reduced here; the others are in the work
// lists (classify.cuh) and skipped.
template <class P>
__device__ __forceinline__ void reduce_batch(const Args<P>& a, std::int64_t batch,
                                             unsigned char* stage) {
  using S = Shape<sizeof(typename P::In)>;
  const std::int64_t segment = batch * kWarpThreads + int(threadIdx.x) % kWarpThreads;
  std::int64_t begin = 0, length = -1;
  if (segment < a.num_segments) {
    begin = a.begin[segment];
    length = a.end[segment] - begin;
  }
  if (length == 0) a.out[segment] = a.empty();
  reduce_group_lanes(a, begin, length, segment, stage, a.out);
}

// Entries [first, first + run) of the warp list (the back of the work list), run <= 32: lane k
// reads entry first + k's segment and offsets, all in one round trip, then the warp reduces the
// segments one after another, each whole; `peek` reads the claim counter as piece `peek.last`
// begins (claim.hpp).
template <class P>
__device__ __forceinline__ void reduce_warp_run(const Args<P>& a, unsigned first, int run,
                                                std::int64_t list_capacity, CounterPeek& peek) {
  const int lane = int(threadIdx.x) % kWarpThreads;
  unsigned segment = 0;
  std::int64_t begin = 0, length = 0;
  if (lane < run) {
    unsigned* slot = a.list + (list_capacity - 1 - std::int64_t(first + unsigned(lane)));
    segment = *slot;
    if (a.leave_zero) *slot = 0;  // this lane's own read above
    begin = a.begin[segment];
    length = a.end[segment] - begin;
  }
  for (int k = 0; k < run; ++k) {
    peek.at(unsigned(k));
    const unsigned s = __shfl_sync(kFullWarpMask, segment, k);
    const std::int64_t b = __shfl_sync(kFullWarpMask, begin, k);
    const std::int64_t l = __shfl_sync(kFullWarpMask, length, k);
    const typename P::Accum total = warp_reduce<typename P::Accum>(a.source.reader(b), l, a.op);
    if (lane == 0) a.out[s] = a.finish(total);
  }
}

}  // namespace gpureduce::detail::segmented
