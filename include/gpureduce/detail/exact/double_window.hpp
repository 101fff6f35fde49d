// Exact sums of double inputs, one thread's fast path: two biased words that never leave their
// binades, so each add is Dekker's Fast2Sum (three double adds) where the expansion's TwoSum
// (double_expansion.hpp) takes six. Host and device code alike.
//
// The window is opened at `top`: it takes inputs below 2^top in magnitude. The high word starts at
// the bias 1.5 * 2^B1 (B1 = top + kCapacityLog2 + 2): kCapacity inputs move it by at most
// 2^(B1-2), so it stays in [1.25, 1.75] * 2^B1, larger than any input (Fast2Sum's condition), and
// its grid is fixed: an add leaves a part r below half its unit, 2^(B1-53), exactly (Fast2Sum).
// The low word does the same for the parts r at B2 = B1 - 51 + kCapacityLog2; what it cannot hold
// (bits of an input below its grid, 2^(B2-52), or a -0) comes back as a remainder, for the caller's
// slower exact path. The sum held is (high - bias1) + (low - bias2), each difference exact
// (Sterbenz: both in one binade). An input down to 2^B2 = 2^(top - 33) is on the grid: with
// kSlack, 30 binades below the largest input of the batch that opened the window.
#pragma once

#include <cstdint>
#include <cstring>

#include "../host_device.hpp"

namespace gpureduce::detail::exact {

// 1.5 * 2^e (e a normal double's exponent), built from its bits.
GPUREDUCE_HD double one_and_a_half_times_two_to(int e) {
  const std::uint64_t bits = (std::uint64_t(e + 1023) << 52) | (std::uint64_t(1) << 51);
  double d;
  memcpy(&d, &bits, 8);
  return d;
}

// The upper 32 bits of a double without its sign: magnitudes compare as these do.
GPUREDUCE_HD std::uint32_t magnitude_high_word(double x) {
  std::uint64_t bits;
  memcpy(&bits, &x, 8);
  return std::uint32_t(bits >> 32) & 0x7fffffffu;
}

// Any bit set in x (-0 included).
GPUREDUCE_HD std::uint32_t any_bits(double x) {
  std::uint64_t bits;
  memcpy(&bits, &x, 8);
  return std::uint32_t(bits >> 32) | std::uint32_t(bits);
}

struct DoubleWindow {
  // Inputs between folds into the expansion: 2^8 keeps 30 binades under the window's top (every
  // doubling of the capacity costs the low word two); a fold costs two expansion adds.
  static constexpr int kCapacityLog2 = 8;
  static constexpr int kCapacity = 1 << kCapacityLog2;
  // Binades opened above the opening batch's largest input, for later inputs a little larger.
  static constexpr int kSlack = 2;
  // The lowest top: its B2 is -1022 (low's bias normal; its grid 2^-1074 holds every double).
  static constexpr int kLowestTop = -1022 - 2 * kCapacityLog2 + 49;
  // The highest: inputs stay below the expansion's limit, 2^1000, so a fold keeps its bounds.
  static constexpr int kHighestTop = 1000;

  std::uint32_t limit = 0;  // inputs fit where magnitude_high_word(x) < limit; 0: closed
  double high = 0, low = 0;

  GPUREDUCE_HD int top() const { return int(limit >> 20) - 1023; }
  // 1.5 * 2^B1 and 1.5 * 2^B2, B2 = B1 - 51 + kCapacityLog2.
  GPUREDUCE_HD double high_bias() const {
    return one_and_a_half_times_two_to(top() + kCapacityLog2 + 2);
  }
  GPUREDUCE_HD double low_bias() const {
    return one_and_a_half_times_two_to(top() + 2 * kCapacityLog2 - 49);
  }
  GPUREDUCE_HD bool fits(double x) const { return magnitude_high_word(x) < limit; }

  // Opens for inputs up to the magnitude whose high word is `largest` (below 2^1000: the caller
  // sends larger ones to the expansion's slow path), with kSlack binades above it.
  GPUREDUCE_HD void open(std::uint32_t largest) {
    int t = int(largest >> 20) - 1022 + kSlack;  // |x| < 2^(exponent field - 1022)
    t = t < kLowestTop ? kLowestTop : t > kHighestTop ? kHighestTop : t;
    limit = std::uint32_t(t + 1023) << 20;
    high = high_bias();
    low = low_bias();
  }
  // Adds x (fits); returns what the low word could not hold: 0 unless x had bits below its grid,
  // or was -0 (-0 then, so that the caller's bit test sends it to the path that keeps its sign).
  GPUREDUCE_HD double add(double x) {
    const double a = high + x;
    const double r = x - (a - high);
    high = a;
    const double b = low + r;
    const double remainder = r - (b - low);
    low = b;
    return remainder;
  }
  // A third word, below the low one, for callers with somewhere to keep it (double_thread.hpp):
  // the low word's remainders, each below half its unit, 2^(B2-53), and at most kCapacity of them
  // between folds, move a word biased at 1.5 * 2^B3, B3 = B2 - kThirdBelowLow, by at most
  // 2^(B3-2): Fast2Sum again, on the grid 2^(B3-52). Inputs down to 2^(top - 76) are held.
  static constexpr int kThirdBelowLow = 51 - kCapacityLog2;
  // The lowest top whose third bias is a normal double (B3 >= -1022); below it, no third word.
  static constexpr int kLowestThirdTop = kLowestTop + kThirdBelowLow;
  GPUREDUCE_HD double third_bias() const {
    return one_and_a_half_times_two_to(top() + 2 * kCapacityLog2 - 49 - kThirdBelowLow);
  }
  GPUREDUCE_HD bool holds_third() const {
    return limit >= std::uint32_t(kLowestThirdTop + 1023) << 20;
  }
  // The sum held, as two exact doubles (zero if nothing was added).
  GPUREDUCE_HD double high_part() const { return high - high_bias(); }
  GPUREDUCE_HD double low_part() const { return low - low_bias(); }
  GPUREDUCE_HD void empty() {
    high = high_bias();
    low = low_bias();
  }
};

}  // namespace gpureduce::detail::exact
