// Shared by the correctly rounded tests (test_correctly_rounded.cu, test_segmented_exact.cu): the
// Options that ask for it, and a result's comparison with MPFR's (any NaN is the canonical one).
#pragma once

#include <cmath>
#include <limits>

#include "gpu/common.cuh"

namespace gpureduce::testing {

inline Options correctly_rounded(Options o = {}) {
  o.accuracy = Accuracy::correctly_rounded;
  return o;
}

template <class T>
bool same_result(const T& got, const T& oracle) {
  if (std::isnan(oracle)) return same_bits(got, std::numeric_limits<T>::quiet_NaN());
  return same_bits(got, oracle);
}

}  // namespace gpureduce::testing
