// Exact sums of floats, one thread's wide window (thread_sum.cuh): two biased doubles
// that take the 50 exponent fields from the top of the thread's 16-field window down, so that data
// spanning up to 50 fields (floats of 2^-20 to 2^21, say) never reach the bins. The double
// window's trick (double_window.hpp) on floats: a float's 24-bit significand leaves the low word
// 29 more binades than a double's does. Host and device code alike.
//
// The wide window's top field F takes float fields F - 49 .. F, inputs below 2^(F - 126). Between
// folds it takes at most kFloatBinCapacity = 2^14 of them (the window's and the bins' count), so
// their sum stays below 2^(F - 112). The high word starts at the bias 1.5 * 2^B1, B1 = F - 110:
// the sum moves it by less than 2^(B1 - 1), so it keeps its binade and is larger than any input,
// and each add is Dekker's Fast2Sum with an exact part r below half its unit, 2^(B1 - 53). The low
// word, biased at 1.5 * 2^B2, B2 = B1 - 51 + 14 = F - 147, takes 2^14 of those parts the same way
// on the grid 2^(B2 - 52) = 2^(F - 199): a part is a multiple of its input's last place,
// 2^(field - 150), which is on that grid for every field down to F - 49. So the low word's adds are
// exact, one double add each, and nothing is left over. F is at least 50, so that both grids are
// multiples of the float family's unit 2^-149 and each word's sum is a whole number of units.
#pragma once

#include <cstdint>
#include <cstring>

#include "double_window.hpp"
#include "exact_state.hpp"
#include "float_bins.hpp"

namespace gpureduce::detail::exact {

struct FloatWideWindow {
  static constexpr int kCapacityLog2 = 14;
  static_assert(1 << kCapacityLog2 == kFloatBinCapacity, "folded with the window and the bins");
  static constexpr int kHighAboveTop = kCapacityLog2 + 2 - 126;  // B1 - F
  static constexpr int kLowAboveTop = kHighAboveTop - 51 + kCapacityLog2;  // B2 - F
  // The fields whose last place, 2^(field - 150), lies on the low word's grid 2^(F + kLowAboveTop
  // - 52): F - 49 .. F.
  static constexpr int kFields = -150 - (kLowAboveTop - 52) + 1;
  // The lowest top whose low grid is the family's unit, 2^-149 (so both words hold whole units).
  static constexpr int kLowestTop = FloatFamily::kLsbExponent - (kLowAboveTop - 52);
  static constexpr int kHighestTop = 254;     // finite inputs only

  // The top of a thread's 16-field window starting at `start` (float_bins.hpp), where the wide
  // window's lies too: a group within the wide window then goes into it alone.
  static GPUREDUCE_HD int top_for(int start) {
    const int top = start + 15;
    return top < kLowestTop ? kLowestTop : top > kHighestTop ? kHighestTop : top;
  }
  // Whether a float (its bits) is one of the wide window's: a field in F - 49 .. F, or a zero
  // (which changes neither word). As float_bins.hpp's in_window: the magnitude's bits shifted up
  // one, less the bottom field's, below kFields exponents.
  static GPUREDUCE_HD bool holds(std::uint32_t bits, int top) {
    const std::uint32_t magnitude = bits << 1;
    const std::uint32_t bottom = std::uint32_t(top - (kFields - 1)) << 24;
    return magnitude == 0 || magnitude - bottom < std::uint32_t(kFields) << 24;
  }
  static GPUREDUCE_HD double high_bias(int top) { return one_and_a_half_times_two_to(top + kHighAboveTop); }
  static GPUREDUCE_HD double low_bias(int top) { return one_and_a_half_times_two_to(top + kLowAboveTop); }
  // x (held, or -0, which changes nothing) into the two words.
  static GPUREDUCE_HD void add(double& high, double& low, double x) {
    const double a = high + x;
    low += x - (a - high);
    high = a;
  }
  // Each word's sum as an integer number of its grid (below 2^51) and where that grid sits in the
  // float family's units: high's 2^(F - 162), low's 2^(F - 199).
  static GPUREDUCE_HD int high_position(int top) { return top + kHighAboveTop - 52 - FloatFamily::kLsbExponent; }
  static GPUREDUCE_HD int low_position(int top) { return top + kLowAboveTop - 52 - FloatFamily::kLsbExponent; }
  static GPUREDUCE_HD std::int64_t high_integer(double high, int top) {
    return word_integer(high - high_bias(top), high_position(top));
  }
  static GPUREDUCE_HD std::int64_t low_integer(double low, int top) {
    return word_integer(low - low_bias(top), low_position(top));
  }

 private:
  // An exact multiple of 2^(position - 149) as that many units (the multiplication is exact).
  static GPUREDUCE_HD std::int64_t word_integer(double part, int position) {
    const std::uint64_t bits = std::uint64_t(1023 - (position + FloatFamily::kLsbExponent)) << 52;
    double scale;
    memcpy(&scale, &bits, 8);
    return static_cast<std::int64_t>(part * scale);
  }
};

}  // namespace gpureduce::detail::exact
