// The one small step at the end of a correctly rounded sum: the exact state (exact_state.hpp),
// rounded once to nearest, ties to even, into float or double, with IEEE 754's rules for what is
// not a finite nonzero number. Host and device code alike.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "exact_state.hpp"

namespace gpureduce::detail::exact {

template <class Out>
struct OutFormat;
template <>
struct OutFormat<float> {
  using Bits = std::uint32_t;
  static constexpr int kPrecision = 24;  // significand bits, the hidden one included
  static constexpr int kMinExponent = -126;
  static constexpr int kMaxExponent = 127;
  static constexpr Bits kInfinity = 0x7f800000u;
  static constexpr Bits kQuietNaN = 0x7fc00000u;
};
template <>
struct OutFormat<double> {
  using Bits = std::uint64_t;
  static constexpr int kPrecision = 53;
  static constexpr int kMinExponent = -1022;
  static constexpr int kMaxExponent = 1023;
  static constexpr Bits kInfinity = 0x7ff0000000000000ull;
  static constexpr Bits kQuietNaN = 0x7ff8000000000000ull;
};

// A magnitude m * 2^(e - 63) (m's top bit set) plus `sticky` (bits below m), rounded to nearest
// even into Out's bits (without sign): subnormal results keep fewer bits, overflow gives infinity.
template <class Out>
GPUREDUCE_HD typename OutFormat<Out>::Bits round_magnitude(std::uint64_t m, bool sticky, int e) {
  using F = OutFormat<Out>;
  using Bits = typename F::Bits;
  if (e > F::kMaxExponent) return F::kInfinity;
  // Bits of m below the result's last place: 64 - precision, plus what a subnormal loses.
  const int shift = 64 - F::kPrecision + (e < F::kMinExponent ? F::kMinExponent - e : 0);
  std::uint64_t kept = 0;
  bool round_bit = false;
  if (shift < 64) {
    kept = m >> shift;
    round_bit = (m >> (shift - 1)) & 1u;
    sticky = sticky || (m & ((std::uint64_t(1) << (shift - 1)) - 1)) != 0;
  } else if (shift == 64) {
    round_bit = m >> 63;
    sticky = sticky || (m << 1) != 0;
  } else {
    sticky = true;  // everything lies below the round bit: rounds to zero
  }
  if (round_bit && (sticky || (kept & 1u))) ++kept;
  // A normal result's exponent field and significand add up (a carry out of the significand
  // moves the exponent up, into infinity if need be); a subnormal's is the significand alone.
  const std::uint64_t bits =
      e >= F::kMinExponent
          ? (std::uint64_t(e - F::kMinExponent) << (F::kPrecision - 1)) + kept
          : kept;
  return bits >= F::kInfinity ? F::kInfinity : static_cast<Bits>(bits);
}

// Out with these bits.
template <class Out>
GPUREDUCE_HD Out from_bits(typename OutFormat<Out>::Bits bits) {
  Out out;
  memcpy(&out, &bits, sizeof(out));
  return out;
}

#if defined(__CUDA_ARCH__)
// On the device, a result that is normal (2^e <= |value| < 2^(e + 1), e within Out's exponents):
// `odd`, the top 64 bits of the magnitude with whatever lies below folded into its last bit
// (rounding to odd at 64 bits, more than the precision plus two, so that rounding it again to
// nearest even is the one rounding of the whole), converted by the hardware's round-to-nearest-
// even conversion into [2^63, 2^64], and its exponent moved by e - 63 as an integer add on the
// bits (2^64 at e = kMaxExponent becomes infinity, as overflow should). A few instructions in
// place of round_magnitude's dependent steps, on the grid window's last block's path (its
// rounding 0.2-0.3 µs of it on an H200: docs/tuning.md, 'Window finish').
template <class Out>
__device__ __forceinline__ typename OutFormat<Out>::Bits round_normal_on_device(std::uint64_t odd,
                                                                               int e) {
  using F = OutFormat<Out>;
  using Bits = typename F::Bits;
  Bits converted;
  if constexpr (std::is_same_v<Out, float>) converted = __float_as_uint(__ull2float_rn(odd));
  else converted = static_cast<Bits>(__double_as_longlong(__ull2double_rn(odd)));
  return converted + (static_cast<Bits>(e - 63) << (F::kPrecision - 1));  // modulo 2^bits
}
#endif

// x * 2^unit_exponent (x != 0, a 64- or 128-bit signed integer) rounded once to nearest, ties to
// even, into Out: the last step of every window (one block, cluster, grid), whose sum is one
// integer. Its top 64 bits from the most significant one go to round_magnitude, the rest as
// sticky (on the device, a normal result's to round_normal_on_device).
template <class Out, class Integer>
GPUREDUCE_HD Out round_integer(Integer x, int unit_exponent) {
  static_assert(sizeof(Integer) == 8 || sizeof(Integer) == 16, "a 64- or 128-bit integer");
  using Bits = typename OutFormat<Out>::Bits;
  using Unsigned = std::conditional_t<sizeof(Integer) == 16, unsigned __int128, std::uint64_t>;
  const bool negative = x < 0;
  const Unsigned magnitude = negative ? Unsigned(0) - Unsigned(x) : Unsigned(x);  // -2^(bits-1) too
  int msb = 0;
  std::uint64_t top = 0;
  bool sticky = false;
  if constexpr (sizeof(Integer) == 16) {
    const auto high = static_cast<std::uint64_t>(magnitude >> 64);
    msb = high != 0 ? 127 - leading_zeros64(high)
                    : 63 - leading_zeros64(static_cast<std::uint64_t>(magnitude));
    const Unsigned normalized = magnitude << (127 - msb);
    top = static_cast<std::uint64_t>(normalized >> 64);
    sticky = static_cast<std::uint64_t>(normalized) != 0;
  } else {
    msb = 63 - leading_zeros64(magnitude);
    top = magnitude << (63 - msb);
  }
  const int e = msb + unit_exponent;
#if defined(__CUDA_ARCH__)
  const bool normal = e >= OutFormat<Out>::kMinExponent && e <= OutFormat<Out>::kMaxExponent;
  Bits bits = normal ? round_normal_on_device<Out>(top | std::uint64_t(sticky), e)
                     : round_magnitude<Out>(top, sticky, e);
#else
  Bits bits = round_magnitude<Out>(top, sticky, e);
#endif
  if (negative) bits |= Bits(1) << (8 * sizeof(Bits) - 1);
  return from_bits<Out>(bits);
}

// Rounds the value of limb[lowest .. highest] (every nonzero limb lies there, within the first N;
// the limbs may have any sign and up to 2^62 in magnitude), a unit being 2^lsb_exponent, into Out's
// bits with sign; 0 for an exact zero (the caller decides its sign). The range is clobbered.
// Normalising it leaves a carry out of its top limb, whose sign is the value's; a negative value is
// negated within the range, and its magnitude is then the range's 32-bit digits under a 64-bit top
// digit. Every loop runs over all N with the range as a predicate, so that a window of limbs in
// registers is indexed by constants only. Host and device run this same code.
template <class Out, int N, class Limbs>
GPUREDUCE_HD typename OutFormat<Out>::Bits round_limbs(Limbs& limb, int lowest, int highest,
                                                       int lsb_exponent) {
  using Bits = typename OutFormat<Out>::Bits;
  std::int64_t carry = 0;
GPUREDUCE_UNROLL
  for (int i = 0; i < N; ++i)
    if (i >= lowest && i <= highest) {
      const std::int64_t v = limb[i] + carry;
      carry = v >> 32;  // floor
      limb[i] = v & 0xffffffff;
    }
  const bool negative = carry < 0;
  std::uint64_t top = static_cast<std::uint64_t>(carry);  // the digit above the range
  if (negative) {  // |V| = -carry * 2^(32 (highest + 1)) - D: D's complement, one borrowed
    std::int64_t borrow = 0;
GPUREDUCE_UNROLL
    for (int i = 0; i < N; ++i)
      if (i >= lowest && i <= highest) {
        const std::int64_t v = -limb[i] - borrow;
        borrow = v < 0;
        limb[i] = v & 0xffffffff;
      }
    top = static_cast<std::uint64_t>(-carry) - static_cast<std::uint64_t>(borrow);
  }
  // The highest set bit (in units) and the three digits from the one holding its window's
  // lowest bit up, gathered by constant-indexed selects.
  int msb = -1;
  if (top != 0) {
    msb = 32 * (highest + 1) + 63 - leading_zeros64(top);
  } else {
GPUREDUCE_UNROLL
    for (int i = 0; i < N; ++i)
      if (i >= lowest && i <= highest && limb[i] != 0)
        msb = 32 * i + 31 - leading_zeros(static_cast<std::uint32_t>(limb[i]));
  }
  if (msb < 0) return Bits(0);
  const int low = msb - 63;  // the window is bits [low, msb]
  const int base = low >= 0 ? low >> 5 : 0;
  std::uint64_t d[3] = {0, 0, 0};  // digits base, base + 1, base + 2
  bool sticky = false;             // a set bit below the window
GPUREDUCE_UNROLL
  for (int i = 0; i < N; ++i)
    if (i >= lowest && i <= highest) {
      const std::uint64_t digit = static_cast<std::uint64_t>(limb[i]);
GPUREDUCE_UNROLL
      for (int k = 0; k < 3; ++k)
        if (i == base + k) d[k] = digit;
      if (i < base) sticky = sticky || digit != 0;
    }
GPUREDUCE_UNROLL
  for (int k = 0; k < 3; ++k) {  // the top digit's halves, above the range
    if (base + k == highest + 1) d[k] = top & 0xffffffffu;
    if (base + k == highest + 2) d[k] = top >> 32;
  }
  // The 64 bits from `low` up: digits base and base + 1 shifted down, base + 2's low bits above.
  const std::uint64_t pair = (d[1] << 32) | d[0];
  const int shift = low & 31;
  const std::uint64_t m = low >= 0 ? (pair >> shift) | (shift != 0 ? d[2] << (64 - shift) : 0)
                                   : pair << (-low);
  sticky = sticky || (low > 0 && (d[0] & ((std::uint64_t(1) << (low & 31)) - 1)) != 0);
  const Bits sign = negative ? Bits(1) << (sizeof(Bits) * 8 - 1) : Bits(0);
  return round_magnitude<Out>(m, sticky, msb + lsb_exponent) | sign;
}

// What the counts say before any limb is looked at: NaN, an infinity, or nothing (0).
template <class Out, class Family>
GPUREDUCE_HD typename OutFormat<Out>::Bits special_result(const ExactState<Family>& state) {
  using F = OutFormat<Out>;
  using Bits = typename F::Bits;
  const bool positive_infinity = state.count[kPositiveInfinities] != 0;
  const bool negative_infinity = state.count[kNegativeInfinities] != 0;
  if (state.count[kNaNs] != 0 || (positive_infinity && negative_infinity)) return F::kQuietNaN;
  if (positive_infinity) return F::kInfinity;
  if (negative_infinity) return F::kInfinity | (Bits(1) << (sizeof(Bits) * 8 - 1));
  return Bits(0);
}
// An exact zero is -0 only when there were inputs and all of them were -0.
template <class Out, class Family>
GPUREDUCE_HD typename OutFormat<Out>::Bits zero_result(const ExactState<Family>& state) {
  using Bits = typename OutFormat<Out>::Bits;
  const bool negative = state.count[kItems] != 0 && state.count[kNotNegativeZero] == 0;
  return negative ? Bits(1) << (sizeof(Bits) * 8 - 1) : Bits(0);
}

// Limbs [lowest, highest] of the state (highest - lowest < W; none nonzero outside), rounded in a
// window of W limbs copied out, where round_limbs's loops run over all W: its chain of dependent
// 64-bit steps is as long as W, not the state. The host's form (round_to_nearest_even); the
// device rounds by a warp (warp_round.cuh), and ranges too wide for it with round_limbs itself.
template <class Out, int W, class Family>
GPUREDUCE_HD typename OutFormat<Out>::Bits round_in_window(const ExactState<Family>& state,
                                                           int lowest, int highest) {
  std::int64_t window[W];
GPUREDUCE_UNROLL
  for (int k = 0; k < W; ++k) window[k] = lowest + k <= highest ? state.limb[lowest + k] : 0;
  return round_limbs<Out, W>(window, 0, highest - lowest, Family::kLsbExponent + 32 * lowest);
}

// The sum the state holds, rounded once (the host's form: it scans for the nonzero limbs and
// rounds them in a window as wide as the state).
template <class Out, class Family>
GPUREDUCE_HD Out round_to_nearest_even(const ExactState<Family>& state) {
  constexpr int L = Family::kLimbs;
  const auto special = special_result<Out>(state);
  if (special != 0) return from_bits<Out>(special);
  int lowest = L, highest = -1;
  for (int i = 0; i < L; ++i) {
    if (state.limb[i] != 0) {
      lowest = lowest < i ? lowest : i;
      highest = i;
    }
  }
  if (highest < 0) return from_bits<Out>(zero_result<Out>(state));
  const auto bits = round_in_window<Out, L>(state, lowest, highest);
  return from_bits<Out>(bits != 0 ? bits : zero_result<Out>(state));
}

}  // namespace gpureduce::detail::exact
