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

// A finite double, exactly, into `s` (the double family's, or one of a lower unit).
template <class Family>
__device__ __forceinline__ void atomic_add_value(ExactState<Family>& s, double v) {
  static_assert(kDoubleUnitOffset<Family> >= 0, "a double's unit is a whole number of the family's");
  if (v == 0) return;
  std::int64_t n;
  int p;
  integer_and_position(v, n, p);
  atomic_add_scaled(s, n, p + kDoubleUnitOffset<Family>);
}

// The exact product of two finite doubles into a state whose unit is 2^-2148 (ProductFamily):
// their integers' 106-bit product, in two pieces of 53 bits, at the sum of their positions.
template <class Family>
__device__ __forceinline__ void atomic_add_exact_product(ExactState<Family>& s, double a, double b) {
  static_assert(Family::kLsbExponent == 2 * -1074, "positions add in units of 2^-2148");
  std::int64_t na, nb;
  int pa, pb;
  integer_and_position(a, na, pa);
  integer_and_position(b, nb, pb);
  const auto ua = static_cast<unsigned long long>(na < 0 ? -na : na);
  const auto ub = static_cast<unsigned long long>(nb < 0 ? -nb : nb);
  const unsigned long long low = ua * ub, high = __umul64hi(ua, ub);
  constexpr unsigned long long kMask53 = (1ull << 53) - 1;
  const bool negative = (na < 0) != (nb < 0);
  const auto bottom = static_cast<std::int64_t>(low & kMask53);
  const auto top = static_cast<std::int64_t>((high << 11) | (low >> 53));
  atomic_add_scaled(s, negative ? -bottom : bottom, pa + pb);
  atomic_add_scaled(s, negative ? -top : top, pa + pb + 53);
}

// The block-wide OR of every thread's `bits` into `into` (shared): a warp reduction, then one
// atomic per warp. The caller synchronises before reading it.
__device__ __forceinline__ void block_or(unsigned bits, unsigned& into) {
  bits = __reduce_or_sync(0xffffffffu, bits);
  if ((threadIdx.x & 31) == 0 && bits != 0) atomicOr(&into, bits);
}

}  // namespace gpureduce::detail::exact
