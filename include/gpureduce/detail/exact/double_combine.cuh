// The double family's block combine for the vectorized rung (correctly rounded sums): the
// threads' two-word expansions merged by TwoSum (exact; what two doubles cannot hold goes into the
// block's state as a remainder, rare for data of like magnitude) in a tree of shuffles per warp,
// lane 0's into the warp's slots; then warp 0 merges the warps' and lane 0 adds the block's two
// words into the state. It replaced six pieces a thread summed on the limb grid four limbs at a
// time (3700-5000 cycles a block, against 3000-3600; a tree of 128-bit integer sums took
// 4400-6100: docs/tuning.md, 'The double family's combine').
#pragma once

#include <cstdint>

#include "block_state.cuh"
#include "double_expansion.hpp"

namespace gpureduce::detail::exact {

// Out of line: rare, and inlined at every level of the trees its atomics' code spread the levels
// over many more instruction cache lines (the combine took 8000 cycles a block).
template <class Family>
__device__ __noinline__ void add_words(ExactState<Family>& state, double a, double b) {
  atomic_add_value(state, a);
  atomic_add_value(state, b);
}

// Merged sums stay finite where every word is below kMergeLimit (2^10 threads' words stay below
// 2^1020); a warp whose lanes hold larger ones (inputs near DBL_MAX) adds its words into the state
// with atomics instead.
inline constexpr double kMergeLimit = 0x1p1010;

// The expansions of the first `lanes` lanes (the others zero) merged into lane 0's.
__device__ __forceinline__ void merge_across_lanes(DoubleExpansion& e, int lanes,
                                                   ExactState<DoubleFamily>& state) {
  const int lane = int(threadIdx.x & 31);
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) {
    if (d >= lanes) continue;  // uniform: the tree starts below the lanes in use
    const double hi = __shfl_down_sync(0xffffffffu, e.hi, d);
    const double lo = __shfl_down_sync(0xffffffffu, e.lo, d);
    if (lane < d) {
      const double r1 = e.add(hi);
      const double r2 = e.add(lo);
      if (r1 != 0 || r2 != 0) add_words(state, r1, r2);
    }
  }
}

// The block's expansions (one a thread) into its state; `slots` holds a row per warp. Ends with
// the state complete for warp 0 only: the caller synchronises the block.
__device__ __forceinline__ void combine_expansions_by_warps(BlockExact<DoubleFamily>& shared,
                                                            DoubleExpansion e, long long* slots) {
  const int tid = int(threadIdx.x), lane = tid & 31, warps = int(blockDim.x) / 32;
  double* row = reinterpret_cast<double*>(slots) + (tid >> 5) * kWarpSlots;
  if (__all_sync(0xffffffffu, fabs(e.hi) < kMergeLimit && fabs(e.lo) < kMergeLimit)) {
    merge_across_lanes(e, 32, shared.state);
  } else {
    add_words(shared.state, e.hi, e.lo);
    e = DoubleExpansion{};
  }
  if (lane == 0) {
    row[0] = e.hi;
    row[1] = e.lo;
  }
  __syncthreads();
  if (tid >= 32) return;
  const double* rows = reinterpret_cast<const double*>(slots);
  DoubleExpansion block;
  block.hi = lane < warps ? rows[lane * kWarpSlots] : 0.0;
  block.lo = lane < warps ? rows[lane * kWarpSlots + 1] : 0.0;
  merge_across_lanes(block, warps, shared.state);
  __syncwarp();  // the lanes' remainders are in the state before lane 0's plain adds
  if (lane != 0) return;
  const double words[2] = {block.hi, block.lo};
#pragma unroll
  for (int w = 0; w < 2; ++w) {
    if (words[w] == 0) continue;
    std::int64_t n;
    int p;
    integer_and_position(words[w], n, p);
    add_scaled(shared.state.limb, n, p);
  }
}

}  // namespace gpureduce::detail::exact
