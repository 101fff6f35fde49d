// Segmented reductions, general offsets, more than a few segments and at most kDirectMaxSegments
// (state.cuh), not ArgMin or ArgMax: direct_kernel takes classify_kernel's place. A block takes
// rounds of 8 x per_warp consecutive segments, each lane of a warp one segment's offsets; it
// reduces the empty, group- and warp-class ones where they are read, with the functions the reduce
// kernel would run (reduce_group_lanes as its batches, warp_reduce as its warp runs: the same
// bits), into the stage, its 8 warps sharing the round's warp-class segments out; block- and
// split-class segments it files as classify does (settle_block_level; the round's block-list
// entries with one atomic). The reduce kernel then publishes the stage to the outputs once every
// offset is known good (an end below its begin writes nothing), and skips the group batches and the
// warp list, which are empty.
//
// Why: 2^12-float segments with offsets ran 1.21-1.25x CUB through classify and the warp list,
// where the fixed-size warp kernel, reducing the same segments with no pass before it, ran
// 1.03-1.04x (H200). Here the call's first kernel does the warp-level work, so the reduce kernel's
// launch hides behind it, and no warp claims or reads a list (docs/tuning.md, 'Direct warps').
#pragma once

#include <cstdint>

#include "../launch.cuh"
#include "classify.cuh"
#include "shape.cuh"
#include "state.cuh"
#include "warp_per_segment.cuh"

namespace gpureduce::detail::segmented {

// A block's round: its 8 x per_warp segments' lists in shared memory.
struct DirectShared {
  static constexpr int kMax = kBlockThreads;  // per_warp <= 32
  unsigned front_count;  // block-list entries of the round
  unsigned front_base;   // their first place in the list
  unsigned warp_count;   // warp-class segments of the round
  unsigned warp_next;    // the next one a warp takes
  unsigned segment[kMax];
  std::int64_t begin[kMax];
  std::int64_t length[kMax];
  unsigned char lane_ids[kWarpsPerBlock][kWarpThreads];  // reduce_group_class's staging
};

// One round of a block: warp w's lanes [0, per_warp) read segments first + w x per_warp + lane.
// Group-class ones the warp reduces as a batch's; warp-class ones go to the block's list, which
// the block's warps share out (so a block's warp work spreads over its 8 warps whatever its lanes
// read); block-level ones are settled and appended to the block list with one atomic for the block.
template <class P>
__device__ __forceinline__ void direct_round(const Args<P>& a, const ClassifyArgs& ca,
                                             std::int64_t first, int per_warp, DirectShared& sh) {
  using S = Shape<sizeof(typename P::In)>;
  using Accum = typename P::Accum;
  const int lane = int(threadIdx.x) % kWarpThreads, warp = int(threadIdx.x) / kWarpThreads;
  if (threadIdx.x == 0) sh.front_count = sh.warp_count = sh.warp_next = 0;
  __syncthreads();
  const std::int64_t segment = first + std::int64_t(warp) * per_warp + lane;
  const bool mine = lane < per_warp && segment < a.num_segments;
  std::int64_t begin = 0, length = -1;  // -1: no segment of this lane
  if (mine) {
    begin = a.begin[segment];
    length = a.end[segment] - begin;
    if (length < 0) {
      atomicOr(&ca.control->error, 1u);
      length = -1;
    }
  }
  if (length == 0) a.stage[segment] = a.empty();
  reduce_group_lanes(a, begin, length, segment, sh.lane_ids[warp], a.stage);
  SegmentClass c = length < 0 ? SegmentClass::empty : S::classify(length);
  c = settle_block_level<sizeof(typename P::In)>(ca, c, segment, begin, length);
  unsigned front_place = 0;
  if (c == SegmentClass::block) front_place = atomicAdd(&sh.front_count, 1u);
  if (c == SegmentClass::warp) {
    const unsigned k = atomicAdd(&sh.warp_count, 1u);
    sh.segment[k] = unsigned(segment), sh.begin[k] = begin, sh.length[k] = length;
  }
  __syncthreads();
  if (threadIdx.x == 0 && sh.front_count > 0)
    sh.front_base = atomicAdd(&ca.control->front_count, sh.front_count);
  __syncthreads();
  if (c == SegmentClass::block) ca.list[sh.front_base + front_place] = unsigned(segment);
  for (;;) {
    unsigned k = 0;
    if (lane == 0) k = atomicAdd(&sh.warp_next, 1u);
    k = __shfl_sync(kFullWarpMask, k, 0);
    if (k >= sh.warp_count) break;
    const Accum total = warp_reduce<Accum>(a.source.reader(sh.begin[k]), sh.length[k], a.op);
    if (lane == 0) a.stage[sh.segment[k]] = a.finish(total);
  }
  __syncthreads();  // the lists are the next round's
}

// Segments a warp's lanes read at once (a power of two, at most 32): the most that still leave 16
// warps an SM, so the grid is at most about one wave of 4 blocks an SM and every warp of it has
// work. Fewer cost tiny segments a round trip each (a warp a segment: 2^17 segments of 1-32 items
// 17 -> 44 us, H200) and the grid more waves of blocks.
inline int direct_per_warp(std::int64_t num_segments, int multiprocessors) {
  int per_warp = 1;
  while (per_warp < kWarpThreads &&
         std::int64_t(2 * per_warp) * multiprocessors * 16 <= num_segments)
    per_warp *= 2;
  return per_warp;
}

// Block b takes rounds of 8 x per_warp consecutive segments: b, b + G, ... for G blocks.
template <class P>
__global__ void __launch_bounds__(kBlockThreads) direct_kernel(Args<P> a, ClassifyArgs ca,
                                                               int per_warp) {
  __shared__ DirectShared sh;
  wait_for_previous_kernel_then_release_next();  // the previous call may still own the state
  arm_ring(ca);
  const std::int64_t per_block = std::int64_t(kWarpsPerBlock) * per_warp;
  for (std::int64_t first = std::int64_t(blockIdx.x) * per_block; first < a.num_segments;
       first += std::int64_t(gridDim.x) * per_block)
    direct_round(a, ca, first, per_warp, sh);
}

// In the reduce kernel, after direct_kernel: the stage's results to the outputs where `publish`
// (every offset good), and under the zeroed-storage promise the stage zero again either way.
template <class P>
__device__ void publish_stage(const Args<P>& a, bool publish) {
  using S = Shape<sizeof(typename P::In)>;
  const std::int64_t threads = std::int64_t(gridDim.x) * kBlockThreads;
  for (std::int64_t s = std::int64_t(blockIdx.x) * kBlockThreads + threadIdx.x; s < a.num_segments;
       s += threads) {
    if (publish) {
      const SegmentClass c = S::classify(a.end[s] - a.begin[s]);
      if (c == SegmentClass::empty || c == SegmentClass::group || c == SegmentClass::warp)
        a.out[s] = a.stage[s];
    }
    if (a.leave_zero) store_zero(a.stage + s);
  }
}

}  // namespace gpureduce::detail::segmented
