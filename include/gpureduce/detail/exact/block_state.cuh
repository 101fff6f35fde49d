// A block's exact state in shared memory, and the concurrent adds into it (correctly rounded sums).
#pragma once

#include <cstdint>

#include "exact_state.hpp"

namespace gpureduce::detail::exact {

// Bits of "nonzero" per limb (double family) or per bin (float family), one word per 32.
template <class Family>
inline constexpr int kMaskWords = (Family::kLimbs + 31) / 32;

// Each warp's sums on their way into the block's state: a row of kWarpSlots words per warp (bins
// of the float family, limbs from the block's lowest of the double family), written by each warp's
// lane 0 and added up by warp 0. (Adding them with 64-bit shared atomics instead cost thousands of
// cycles: sm_90 has no native 64-bit shared atomic add; atomicAdd compiles to a CAS loop.)
inline constexpr int kWarpSlots = 32;

template <class Family>
struct BlockExact {
  ExactState<Family> state;  // this block's sum
  ExactState<Family> total;  // where the last block (or block 0) folds the grid's states
  unsigned seen;             // a bit per Count that some thread saw
  unsigned mask[kMaskWords<Family>];

  // Zero (and `warp_slots`, a row per warp), before the first barrier. Loops not unrolled: each
  // runs once or twice a thread, and unrolling them cost a division for the trip count, on every
  // block's critical path (ncu's SASS, 2026-11-26).
  __device__ void clear(long long* warp_slots) {
    auto* words = reinterpret_cast<long long*>(&state);
    const int tid = int(threadIdx.x), threads = int(blockDim.x);
#pragma unroll 1
    for (int i = tid; i < 2 * ExactState<Family>::kWords; i += threads) words[i] = 0;
#pragma unroll 1
    for (int i = tid; i < (threads / 32) * kWarpSlots; i += threads) warp_slots[i] = 0;
    if (tid == 0) seen = 0;
#pragma unroll 1
    for (int i = tid; i < kMaskWords<Family>; i += threads) mask[i] = 0;
  }
};

template <class Family>
__device__ __forceinline__ long long* words_of(ExactState<Family>& s) {
  return reinterpret_cast<long long*>(&s);
}

// N * 2^p units into `s`, from any thread at any time (shared-memory 64-bit atomics).
template <class Family>
__device__ __forceinline__ void atomic_add_scaled(ExactState<Family>& s, std::int64_t n, int p) {
  const Pieces pieces = pieces_of(n, p);
#pragma unroll
  for (int k = 0; k < 3; ++k)
    if (pieces.value[k] != 0)
      atomicAdd(reinterpret_cast<unsigned long long*>(&s.limb[pieces.index + k]),
                static_cast<unsigned long long>(pieces.value[k]));
}

// A finite double of the family, exactly, into `s`.
template <class Family>
__device__ __forceinline__ void atomic_add_value(ExactState<Family>& s, double v) {
  if (v == 0) return;
  std::int64_t n;
  int p;
  integer_and_position(v, n, p);
  atomic_add_scaled(s, n, p);
}

// The block-wide OR of every thread's `bits` into `into` (shared): a warp reduction, then one
// atomic per warp. The caller synchronises before reading it.
__device__ __forceinline__ void block_or(unsigned bits, unsigned& into) {
  bits = __reduce_or_sync(0xffffffffu, bits);
  if ((threadIdx.x & 31) == 0 && bits != 0) atomicOr(&into, bits);
}

}  // namespace gpureduce::detail::exact
