// Exact sums of float, __half and __nv_bfloat16 inputs (the float family), one thread's part: a
// window of 16 float exponents in a register, 16 double-precision bins (one per group of 16 float
// exponents) for what falls outside it, and for __half one double alone. Host and device code alike.
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

// What one double of exact sums holds (a bin, the window or a half sum), as an integer number of
// 1/scale (0 if not finite: only bin 15 and a half sum can be), and what it says about NaN,
// infinities and -0 (OR-ed into `seen`, a bit per Count).
GPUREDUCE_HD std::int64_t exact_double_integer(double sum, double scale, unsigned& seen) {
  std::uint64_t bits;
  memcpy(&bits, &sum, 8);
  if (bits != 0x8000000000000000ull) seen |= 1u << kNotNegativeZero;
  if ((bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull) {
    if (bits & 0x000fffffffffffffull) seen |= 1u << kNaNs;
    else seen |= 1u << (bits >> 63 ? kNegativeInfinities : kPositiveInfinities);
    return 0;
  }
  return static_cast<std::int64_t>(sum * scale);  // an exact integer below 2^53
}
GPUREDUCE_HD std::int64_t float_bin_integer(double bin_sum, int b, unsigned& seen) {
  return exact_double_integer(bin_sum, float_bin_scale(b), seen);
}

// The window: exponent fields E0 .. E0 + 15 for any E0 in [1, kLastWindowStart], chosen by each
// thread from its data. What holds for a bin holds for it: every value in it is an integer multiple
// of 2^(E0 - 150) below 2^(E0 - 111), so a double takes kFloatBinCapacity of them exactly; zeros
// belong to every window. Unlike the bins it can sit where the data are: small integers or
// normal(0, 1) values straddle a bin edge (1.0 is in bin 7, 2.0 in bin 8) but fit one window.
inline constexpr int kLastWindowStart = 254 - 15;  // the window's top is the largest finite field
// Exponent fields a new window keeps above the largest one that opened it, for larger values to
// come: with 2, a window opened by a group whose largest input is at least an eighth of the data's
// largest holds every input from that largest down to about 2^-14 of it (of 8 inputs uniform in
// [-1, 1), all fall below an eighth once in 2^24 groups); each further field would raise the
// window's bottom by one. Inputs outside cost speed only (bins, or a moved window). Reasoned, not
// swept.
inline constexpr int kWindowHeadroom = 2;
GPUREDUCE_HD constexpr int window_start_for(int largest_field) {
  const int start = largest_field + kWindowHeadroom - 15;
  return start < 1 ? 1 : start > kLastWindowStart ? kLastWindowStart : start;
}
// Where 2^(E0 - 150) sits in the float family's units.
GPUREDUCE_HD constexpr int window_position(int start) { return start - 1; }
// Whether a float (its bits) lies in the window starting at `start`, zeros included: its magnitude
// bits shifted up one, less the window's start field, are below 16 exponents.
// (No window yet, start 0: zeros only.)
GPUREDUCE_HD bool in_window(std::uint32_t bits, int start) {
  const std::uint32_t magnitude = bits << 1;
  return magnitude == 0 || (start != 0 && magnitude - (std::uint32_t(start) << 24) < (16u << 24));
}
// 2^-(E0 - 150), exactly, as a double.
GPUREDUCE_HD double window_scale(int start) {
  const std::uint64_t bits = std::uint64_t(1023 + 150 - start) << 52;
  double scale;
  memcpy(&scale, &bits, 8);
  return scale;
}
// The window's sum as an integer number of 2^(E0 - 150).
GPUREDUCE_HD std::int64_t window_integer(double sum, int start, unsigned& seen) {
  return exact_double_integer(sum, window_scale(start), seen);
}
// How far apart the windows of a warp's lanes may start and still be added as integers at the
// lowest one: a window's integer is below 2^53, shifted up at most 4 places below 2^57, and 32 of
// them below 2^62. Data of one magnitude open windows a field or two apart (a thread's largest of
// four uniform inputs lies in [0.5, 1) 15 times in 16), so lanes of small calls rarely share one.
inline constexpr int kWindowSpread = 4;
// The window's sum (window starting at `start`) as an integer number of 2^(base - 150), for a
// base at most kWindowSpread fields below start: exact, below 2^57 in magnitude.
GPUREDUCE_HD std::int64_t window_integer_at(double sum, int start, int base, unsigned& seen) {
  return window_integer(sum, start, seen) * (std::int64_t(1) << (start - base));
}

// bfloat16 inputs two a word (thread_sum.cuh's batch test): per 16-bit half, the largest
// magnitude and the least nonzero magnitude less one, zero wrapping to 0xffff, above every bound
// (a half is at most 0x7fff, so adding 0x7fff never carries into the next half, and the xor takes
// back the 0x8000). `inside` says whether every input met lies in the window starting at `start`
// (zeros included; none with start 0) and below field 254: two inputs in the window are integer
// multiples of 2^(start - 134) below 2^(start - 111), so their sum is exact in a float, and two of
// field 254 could overflow one. The same answer as in_window input by input, bar field 254.
GPUREDUCE_HD std::uint32_t max_u16x2(std::uint32_t a, std::uint32_t b) {
#ifdef __CUDA_ARCH__
  return __vmaxu2(a, b);
#else
  const std::uint32_t lo = (a & 0xffffu) > (b & 0xffffu) ? a & 0xffffu : b & 0xffffu;
  return ((a >> 16) > (b >> 16) ? a & 0xffff0000u : b & 0xffff0000u) | lo;
#endif
}
GPUREDUCE_HD std::uint32_t min_u16x2(std::uint32_t a, std::uint32_t b) {
#ifdef __CUDA_ARCH__
  return __vminu2(a, b);
#else
  const std::uint32_t lo = (a & 0xffffu) < (b & 0xffffu) ? a & 0xffffu : b & 0xffffu;
  return ((a >> 16) < (b >> 16) ? a & 0xffff0000u : b & 0xffff0000u) | lo;
#endif
}
struct Bfloat16PairBounds {
  std::uint32_t largest = 0, least_less_one = 0xffffffffu;
  GPUREDUCE_HD void add(std::uint32_t word) {
    const std::uint32_t magnitude = word & 0x7fff7fffu;
    largest = max_u16x2(largest, magnitude);
    least_less_one = min_u16x2(least_less_one, (magnitude + 0x7fff7fffu) ^ 0x80008000u);
  }
  GPUREDUCE_HD bool inside(int start) const {
    const std::uint32_t top = std::uint32_t(start + 16) << 7;
    return high() < (top < (254u << 7) ? top : 254u << 7) && low() >= (std::uint32_t(start) << 7) - 1u;
  }
  // Fields below the window where a bfloat16 is still a multiple of the window's unit: 24 - 8.
  static constexpr int kWidenedFields = 16;
  // Whether every input met lies in the window or in the kWidenedFields fields below it (zeros
  // included; none with start 0): a bfloat16 of field start - 16 or above is an integer multiple
  // of 2^(start - 150), the window's own unit, and below 2^(start - 111), so the window's double
  // takes it exactly one input at a time (not two in a float). A subnormal (field 0, a multiple of
  // 2^-133) is met only where start <= 16. Field 254 needs no exclusion here: no float add.
  GPUREDUCE_HD bool inside_widened(int start) const {
    const int bottom = start > kWidenedFields ? start - kWidenedFields : 0;
    return start != 0 && high() < (std::uint32_t(start + 16) << 7) && low() + 1u >= (std::uint32_t(bottom) << 7);
  }
  // The exponent field of the largest magnitude met (255: an infinity or NaN among them).
  GPUREDUCE_HD int largest_field() const { return int(high() >> 7); }

 private:
  GPUREDUCE_HD std::uint32_t high() const {
    return (largest >> 16) > (largest & 0xffffu) ? largest >> 16 : largest & 0xffffu;
  }
  GPUREDUCE_HD std::uint32_t low() const {
    return (least_less_one >> 16) < (least_less_one & 0xffffu) ? least_less_one >> 16 : least_less_one & 0xffffu;
  }
};

// __half inputs need no bins: every half is an integer multiple of 2^-24 below 2^16 in magnitude, so
// one double holds the sum of kHalfCapacity of them exactly (below 2^29 = 2^(53 - 24)), whatever
// their exponents; NaN and infinities take IEEE 754's rules in it as in bin 15.
inline constexpr int kHalfCapacity = 1 << 13;
inline constexpr int kHalfPosition = -24 - FloatFamily::kLsbExponent;  // 2^-24 in 2^-149 units
// The half sum as an integer number of 2^-24.
GPUREDUCE_HD std::int64_t half_sum_integer(double sum, unsigned& seen) {
  return exact_double_integer(sum, 0x1p24, seen);
}

}  // namespace gpureduce::detail::exact
