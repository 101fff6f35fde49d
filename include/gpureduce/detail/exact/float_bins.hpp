// Exact sums of float, __half and __nv_bfloat16 inputs (the float family), one thread's part: 16
// double-precision bins, one per group of 16 float exponents. Host and device code alike.
//
// An input's bin is the top 4 bits of its float exponent field (bits 27-30): bin b holds exponent
// fields 16b .. 16b + 15, so every value in it is an integer multiple of 2^G(b) (G(b) =
// max(16b, 1) - 150, the last place of its smallest exponent) below 2^(G(b) + 39) in magnitude.
// A double holds every integer multiple of 2^G(b) below 2^(G(b) + 53) exactly, so a bin can take
// 2^14 inputs with no rounding at all, in any order, signs mixed. One double add per input, then
// (flush) each bin is an exact integer number of 2^G(b), moved into the limbs.
//
// Infinities and NaN fall in bin 15 and stay there (their sum is what IEEE 754 says of it: NaN
// if either infinity met the other or a NaN); finite bin-15 sums stay below 2^142, far from
// overflow. A bin starts at -0 and stays -0 only while it adds nothing but -0.
#pragma once

#include <cstdint>
#include <cstring>

#include "exact_state.hpp"

namespace gpureduce::detail::exact {

inline constexpr int kFloatBins = 16;
inline constexpr int kFloatBinCapacity = 1 << 14;  // inputs a thread adds between flushes

inline constexpr int kFloatBinShift = 27;  // a bin is the float's bits 27-30
inline constexpr std::uint32_t kFloatBinField = 15u << kFloatBinShift;
GPUREDUCE_HD int float_bin(float x) {
  std::uint32_t bits;
  memcpy(&bits, &x, 4);
  return static_cast<int>((bits >> kFloatBinShift) & 15u);
}
// G(b): every input of bin b is an integer multiple of 2^G(b).
GPUREDUCE_HD constexpr int float_bin_exponent(int b) { return (b == 0 ? 1 : 16 * b) - 150; }
// Where 2^G(b) sits in the float family's units (2^-149).
GPUREDUCE_HD constexpr int float_bin_position(int b) {
  return float_bin_exponent(b) - FloatFamily::kLsbExponent;
}
// 2^-G(b), exactly, as a double.
GPUREDUCE_HD double float_bin_scale(int b) {
  const std::uint64_t bits = std::uint64_t(1023 - float_bin_exponent(b)) << 52;
  double scale;
  memcpy(&scale, &bits, 8);
  return scale;
}

// What one finite-or-not bin holds, as an integer number of 2^G(b) (0 for a non-finite bin), and
// what it says about NaN, infinities and -0 (OR-ed into `seen`, a bit per Count).
GPUREDUCE_HD std::int64_t float_bin_integer(double bin_sum, int b, unsigned& seen) {
  std::uint64_t bits;
  memcpy(&bits, &bin_sum, 8);
  if (bits != 0x8000000000000000ull) seen |= 1u << kNotNegativeZero;
  if ((bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull) {  // only bin 15 gets here
    if (bits & 0x000fffffffffffffull) seen |= 1u << kNaNs;
    else seen |= 1u << (bits >> 63 ? kNegativeInfinities : kPositiveInfinities);
    return 0;
  }
  return static_cast<std::int64_t>(bin_sum * float_bin_scale(b));  // an exact integer below 2^53
}

}  // namespace gpureduce::detail::exact
