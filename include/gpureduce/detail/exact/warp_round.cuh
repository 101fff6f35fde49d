// The final rounding of a correctly rounded sum by a whole warp, a limb a lane: the carries
// moved up by shuffles, the sign and the top 64 bits found by ballots and shuffles.
// It replaced lane 0's chain of dependent 64-bit steps over the range (round.hpp's round_limbs,
// which the host and the widest device ranges still use): that chain took 1100-2500 cycles for
// floats and 2800-4000 for doubles, on the path every call ends with (docs/tuning.md, 'The
// rounding by a warp').
#pragma once

#include <cstdint>

#include "round.hpp"

namespace gpureduce::detail::exact {

// The most limbs the warp rounds: the range and one lane above it for the top limb's excess.
inline constexpr int kWarpRoundSpan = 31;

// Limbs [lowest, highest] of `limb` (shared memory; none nonzero outside; highest - lowest <
// kWarpRoundSpan; any signs, up to 2^63 in magnitude), a unit being 2^lsb_exponent, rounded to
// nearest even into Out's bits with sign; 0 for an exact zero. Every lane of the warp calls and
// gets the answer.
//
// Lane j holds limb lowest + j; the lane above the range (`top`) holds the signed top digit. Each
// step moves every lower lane's excess over 32 bits up one lane: the first leaves carries of -1,
// 0 or 1, the second settles them unless a digit of 0 meets a borrow (or 2^32 - 1 a carry), which
// the loop runs on (rare: a zero limb inside the range under a negative one). The value is then
// top 2^(32 top) + D with digits of D in [0, 2^32): its sign is top's, and a negative one's
// magnitude is D's complement with one borrowed from top.
template <class Out>
__device__ __forceinline__ typename OutFormat<Out>::Bits round_by_warp(const std::int64_t* limb,
                                                                       int lowest, int highest,
                                                                       int lsb_exponent) {
  using Bits = typename OutFormat<Out>::Bits;
  constexpr unsigned kAll = 0xffffffffu;
  const int lane = int(threadIdx.x & 31);
  const int top = highest - lowest + 1;
  const bool below_top = lane < top;
  long long t = lowest + lane <= highest ? limb[lowest + lane] : 0;
  do {
    const long long carry = below_top ? t >> 32 : 0;  // floor
    const long long from_below = __shfl_up_sync(kAll, carry, 1);
    t = (below_top ? t & 0xffffffffll : t) + (lane == 0 ? 0 : from_below);
  } while (__any_sync(kAll, below_top && (t >> 32) != 0));
  const long long top_digit = __shfl_sync(kAll, t, top);
  const bool negative = top_digit < 0;
  std::uint32_t digit = below_top ? static_cast<std::uint32_t>(t) : 0u;
  long long top_magnitude = top_digit;
  if (negative) {
    const unsigned lower = __ballot_sync(kAll, digit != 0);
    const int first = __ffs(int(lower)) - 1;  // -1: D = 0
    if (below_top) digit = lane < first || first < 0 ? 0u : lane == first ? 0u - digit : ~digit;
    top_magnitude = -top_digit - (lower != 0 ? 1 : 0);
  }
  if (lane == top) digit = static_cast<std::uint32_t>(top_magnitude);  // below 2^32
  const unsigned nonzero = __ballot_sync(kAll, digit != 0);
  if (nonzero == 0) return Bits(0);
  // The 64 bits from the highest set bit down, from the top three digits, and a sticky bit for
  // what lies below them.
  const int high = 31 - __clz(int(nonzero));
  const std::uint64_t d0 = __shfl_sync(kAll, digit, high);
  const std::uint64_t d1 = high >= 1 ? __shfl_sync(kAll, digit, high - 1) : 0;
  const std::uint64_t d2 = high >= 2 ? __shfl_sync(kAll, digit, high - 2) : 0;
  const int b = 31 - __clz(static_cast<std::uint32_t>(d0));  // d0's highest bit
  const std::uint64_t m = (d0 << (63 - b)) | (d1 << (31 - b)) | (d2 >> (b + 1));
  const bool sticky = (d2 & ((std::uint64_t(2) << b) - 1)) != 0 ||
                      (high >= 3 && (nonzero & ((1u << (high - 2)) - 1)) != 0);
  const int exponent = lsb_exponent + 32 * (lowest + high) + b;
  const Bits sign = negative ? Bits(1) << (sizeof(Bits) * 8 - 1) : Bits(0);
  return round_magnitude<Out>(m, sticky, exponent) | sign;
}

}  // namespace gpureduce::detail::exact
