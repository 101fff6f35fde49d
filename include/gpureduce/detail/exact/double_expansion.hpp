// Exact sums of double inputs, one thread's part: a two-word floating-point expansion kept by
// error-free transformations (Knuth's TwoSum), after the per-thread expansions of Collange,
// Defour, Graillat and Iakymchuk (ExBLAS). Host and device code alike.
//
// hi + lo equals the exact sum of the inputs added so far, unless an add leaves a remainder: the
// part of the sum that two doubles cannot hold (rare for inputs of like magnitude); the caller
// moves a remainder into the limbs at once. TwoSum is exact for any two finite doubles whose sum
// does not overflow, subnormals included (gradual underflow makes such sums exact), so inputs of
// magnitude 2^1000 and above, infinities and NaN take the caller's slow path, and the caller
// flushes the expansion into the limbs every kDoubleExpansionCapacity inputs: then no word can
// pass 2^1020. hi starts at -0 and stays -0 only while every input is -0.
#pragma once

#include <cstdint>

#include "exact_state.hpp"

namespace gpureduce::detail::exact {

inline constexpr int kDoubleExpansionCapacity = 1 << 20;
inline constexpr double kDoubleExpansionLimit = 0x1p1000;  // inputs at or above take the slow path

GPUREDUCE_HD void two_sum(double a, double b, double& sum, double& error) {
  sum = a + b;
  const double b_virtual = sum - a;
  error = (a - (sum - b_virtual)) + (b - b_virtual);
}

struct DoubleExpansion {
  double hi = -0.0;
  double lo = 0.0;
  // Adds x (finite, |x| < kDoubleExpansionLimit); returns what hi + lo could not hold (0 mostly).
  GPUREDUCE_HD double add(double x) {
    double carry, remainder;
    two_sum(hi, x, hi, carry);
    two_sum(lo, carry, lo, remainder);
    return remainder;
  }
};

}  // namespace gpureduce::detail::exact
