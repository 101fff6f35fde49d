// The exact accumulator of correctly rounded sums (Accuracy::correctly_rounded), and the integer
// arithmetic on it. Host and device code alike (g++ compiles it for the host tests).
//
// Every float, __half and __nv_bfloat16 is an integer multiple of 2^-149, every double of
// 2^-1074. So a sum of them is an integer N times that unit, and the state holds N exactly, as
// limbs of 32-bit digits kept in signed 64-bit words (value = sum of limb[i] * 2^(32 i) units):
// the spare 32 bits of each word absorb carries, so adding to a limb needs no carry propagation
// until the end (normalize). Beside the limbs, counts of what cannot be a finite number: NaNs,
// +inf and -inf seen, and how many contributors saw anything but -0 (for the sign of an exact
// zero). States of blocks, grids or GPUs combine by adding every word: integer addition, exact and
// order-free, which is what makes the result independent of grid, strategy and rank count.
#pragma once

#include <cstdint>
#include <cstring>

#include "../host_device.hpp"

namespace gpureduce::detail::exact {

// float, __half and __nv_bfloat16 inputs. 10 limbs: positions up to 2^(288 + 62) units, past the
// 277 bits of float's range plus 2^62 items' worth of carries.
struct FloatFamily {
  static constexpr int kLsbExponent = -149;
  static constexpr int kLimbs = 10;
};
// double inputs: 2098 bits of range; 68 limbs reach 2^(2144 + 62) units.
struct DoubleFamily {
  static constexpr int kLsbExponent = -1074;
  static constexpr int kLimbs = 68;
};
// Exact products of two doubles (correctly rounded Dot and SumSquares of doubles): integers of up
// to 106 bits times 2^-2148 (the square of double's unit) up to 2^2048; 136 limbs reach
// 2^(4352) units, past those 4196 bits plus 2^62 items' worth of carries.
struct ProductFamily {
  static constexpr int kLsbExponent = -2148;
  static constexpr int kLimbs = 136;
};
// Where a double's integer_and_position (units of 2^-1074) lands in a family of a lower unit.
template <class Family>
inline constexpr int kDoubleUnitOffset = -1074 - Family::kLsbExponent;

enum Count : int {
  kItems = 0,           // inputs summed
  kNaNs,                // contributors that saw a NaN
  kPositiveInfinities,  // ... a +inf
  kNegativeInfinities,  // ... a -inf
  kNotNegativeZero,     // ... an input other than -0 (none, with items: the sum of only -0 is -0)
  kCounts
};

template <class Family>
struct ExactState {
  static constexpr int kLimbs = Family::kLimbs;
  static constexpr int kWords = kLimbs + kCounts;  // int64 words, limbs first
  std::int64_t limb[kLimbs];
  std::int64_t count[kCounts];
};
static_assert(sizeof(ExactState<FloatFamily>) == 15 * 8, "the state is a plain array of words");

// Leading zeros of a nonzero 32- or 64-bit word.
GPUREDUCE_HD int leading_zeros(std::uint32_t x) {
#if defined(__CUDA_ARCH__)
  return __clz(x);
#else
  return __builtin_clz(x);
#endif
}
GPUREDUCE_HD int leading_zeros64(std::uint64_t x) {
#if defined(__CUDA_ARCH__)
  return __clzll(static_cast<long long>(x));
#else
  return __builtin_clzll(x);
#endif
}

// N * 2^p units (p >= 0), split on the limb grid: value[0] and value[1] are digits in [0, 2^32),
// value[2] is signed, at limbs index, index + 1, index + 2.
struct Pieces {
  int index;
  std::int64_t value[3];
};
GPUREDUCE_HD Pieces pieces_of(std::int64_t n, int p) {
  const __int128 w = static_cast<__int128>(n) << (p & 31);
  Pieces pieces;
  pieces.index = p >> 5;
  pieces.value[0] = static_cast<std::int64_t>(static_cast<std::uint32_t>(w));
  pieces.value[1] = static_cast<std::int64_t>(static_cast<std::uint32_t>(w >> 32));
  pieces.value[2] = static_cast<std::int64_t>(w >> 64);
  return pieces;
}

// Adds N * 2^p units to the limbs (plain adds; the device's concurrent forms use atomics).
GPUREDUCE_HD void add_scaled(std::int64_t* limb, std::int64_t n, int p) {
  const Pieces pieces = pieces_of(n, p);
  for (int k = 0; k < 3; ++k) limb[pieces.index + k] += pieces.value[k];
}

// A finite value's integer and position: value = n * 2^p units of the family. For doubles in the
// double family and floats in the float family (both: bits, exponent width, mantissa width).
template <class Bits, int kMantissaBits, int kExponentMask>
GPUREDUCE_HD void integer_and_position(Bits bits, std::int64_t& n, int& p) {
  const int biased = static_cast<int>((bits >> kMantissaBits) & Bits(kExponentMask));
  const Bits mantissa =
      (bits & ((Bits(1) << kMantissaBits) - 1)) | (biased != 0 ? Bits(1) << kMantissaBits : Bits(0));
  p = (biased > 0 ? biased : 1) - 1;
  n = static_cast<std::int64_t>(mantissa);
  if (bits >> (sizeof(Bits) * 8 - 1)) n = -n;
}
GPUREDUCE_HD void integer_and_position(double x, std::int64_t& n, int& p) {
  std::uint64_t bits;
  memcpy(&bits, &x, 8);
  integer_and_position<std::uint64_t, 52, 0x7ff>(bits, n, p);
}
GPUREDUCE_HD void integer_and_position(float x, std::int64_t& n, int& p) {
  std::uint32_t bits;
  memcpy(&bits, &x, 4);
  integer_and_position<std::uint32_t, 23, 0xff>(bits, n, p);
}

// Carries every limb's excess into the next: limbs 0 .. L-2 end in [0, 2^32), the top one keeps
// the sign of the whole.
template <int L>
GPUREDUCE_HD void normalize(std::int64_t (&limb)[L]) {
  for (int i = 0; i + 1 < L; ++i) {
    limb[i + 1] += limb[i] >> 32;  // arithmetic shift: floor(limb / 2^32)
    limb[i] &= 0xffffffff;
  }
}

}  // namespace gpureduce::detail::exact
