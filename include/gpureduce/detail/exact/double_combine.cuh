// The double family's block combine for the vectorized rung (correctly rounded sums): the
// threads' two-word expansions merged by TwoSum (exact; what two doubles cannot hold goes into the
// block's state as a remainder, rare for data of like magnitude), halving in shared memory down to
// a warp, then by shuffles; lane 0 adds the block's two words into the state. The merges replaced
// six pieces a thread summed on the limb grid four limbs at a time (3700-5000 cycles a block,
// against 3000-3600; a tree of 128-bit integer sums took 4400-6100: docs/tuning.md, 'The double
// family's combine').
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
// 2^1020); a thread holding a larger one (inputs near DBL_MAX) adds its words into the state with
// atomics instead.
inline constexpr double kMergeLimit = 0x1p1010;

// Merges the expansion (hi, lo) into `e`: what two doubles cannot hold goes into `state` (the
// double family's, or the products' of a lower unit).
template <class Family>
__device__ __forceinline__ void merge_words(DoubleExpansion& e, double hi, double lo,
                                            ExactState<Family>& state) {
  const double r1 = e.add(hi);
  const double r2 = e.add(lo);
  if (r1 != 0 || r2 != 0) add_words(state, r1, r2);
}

// The expansions of the first `lanes` lanes (the others zero) merged into lane 0's.
template <class Family>
__device__ __forceinline__ void merge_across_lanes(DoubleExpansion& e, int lanes,
                                                   ExactState<Family>& state) {
  const int lane = int(threadIdx.x & 31);
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) {
    if (d >= lanes) continue;  // uniform: the tree starts below the lanes in use
    const double hi = __shfl_down_sync(0xffffffffu, e.hi, d);
    const double lo = __shfl_down_sync(0xffffffffu, e.lo, d);
    if (lane < d) merge_words(e, hi, lo, state);
  }
}

// The block's expansions (one a thread) into its state. Halving in shared memory while more than
// a warp is left (`his`, `los`: a double a thread each), so that every merge instruction has a
// full warp of work; then warp 0's tree of shuffles, and lane 0 adds the block's two words. A
// shuffle tree in every warp first kept 1 to 16 of 32 lanes busy at each level: 43 warp merges a
// block of 256 against 12 here, and at four blocks an SM the combine is bound by FP64 issue
// (docs/tuning.md, 'The double combine by halves'). Ends with the state complete for warp 0
// only: the caller synchronises the block.
template <class Family>
__device__ __forceinline__ void combine_expansions_by_halves(BlockExact<Family>& shared,
                                                             DoubleExpansion e, double* his,
                                                             double* los) {
  const int tid = int(threadIdx.x);
  if (!(fabs(e.hi) < kMergeLimit && fabs(e.lo) < kMergeLimit)) {
    add_words(shared.state, e.hi, e.lo);
    e = DoubleExpansion{};
  }
  // Level k's reads ([active, 2 active)) and level k + 1's writes ([active / 2, active)) are
  // disjoint, so one barrier a level orders them.
  for (int active = int(blockDim.x) / 2; active >= 32; active /= 2) {
    if (tid >= active && tid < 2 * active) {
      his[tid] = e.hi;
      los[tid] = e.lo;
    }
    __syncthreads();
    if (tid < active) merge_words(e, his[tid + active], los[tid + active], shared.state);
  }
  if (tid >= 32) return;
  merge_across_lanes(e, 32, shared.state);
  __syncwarp();  // the lanes' remainders are in the state before lane 0's plain adds
  if (tid != 0) return;
  const double words[2] = {e.hi, e.lo};
#pragma unroll
  for (int w = 0; w < 2; ++w) {
    if (words[w] == 0) continue;
    std::int64_t n;
    int p;
    integer_and_position(words[w], n, p);
    add_scaled(shared.state.limb, n, p + kDoubleUnitOffset<Family>);
  }
}

}  // namespace gpureduce::detail::exact
