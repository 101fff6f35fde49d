// The exact answer on the host, from the values actually on the GPU: inputs are k * 2^-s (see
// inputs.hpp), so a sum is an integer sum of the k (in __int128: 2^28 values of 2^40 need 69 bits)
// and min / max are exact comparisons. Errors are then measured, not estimated against a double sum.
#pragma once

#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "cases.hpp"

namespace gpureduce_bench {

template <class T>
long double to_long_double(T v) {
  if constexpr (std::is_same_v<T, __half>) return (long double)__half2float(v);
  else return (long double)v;
}

struct ExactReference {
  long double exact = 0;    // the right answer; for an i32 sum, wrapped to 32 bits as the GPU does
  long double sum_abs = 0;  // sum of |x|, for the worst-case rounding bound of a float sum
  std::int64_t n = 0;
  bool exact_only = true;   // integer sums, min and max: any difference is a bug
  double unit_roundoff = 0; // of the accumulator, for float sums
};

template <class In, OpKind Op>
ExactReference exact_reference(const std::vector<In>& values, int scale_exponent) {
  using Out = out_t<In, Op>;
  ExactReference ref;
  ref.n = std::int64_t(values.size());
  if constexpr (Op == OpKind::sum) {
    __int128 sum_k = 0, sum_abs_k = 0;
    for (const In& v : values) {
      // v * 2^s is the integer k exactly (scaling by a power of two is exact).
      const auto k = (std::int64_t)std::ldexp((double)to_long_double(v), scale_exponent);
      sum_k += k;
      sum_abs_k += k < 0 ? -k : k;
    }
    ref.sum_abs = std::ldexp((long double)sum_abs_k, -scale_exponent);
    if constexpr (std::is_integral_v<Out>) {
      ref.exact = (long double)(Out)(std::make_unsigned_t<Out>)(unsigned __int128)sum_k;
    } else {
      ref.exact = std::ldexp((long double)sum_k, -scale_exponent);
      ref.exact_only = false;
      ref.unit_roundoff = std::ldexp(1.0, -(std::numeric_limits<Out>::digits));
    }
  } else {
    long double best = to_long_double(values.empty() ? In{} : values[0]);
    for (const In& v : values) {
      const long double x = to_long_double(v);
      best = (Op == OpKind::min) ? (x < best ? x : best) : (x > best ? x : best);
    }
    ref.exact = best;
  }
  return ref;
}

struct ErrorReport {
  long double abs_error = 0;
  long double rel_error = 0;  // abs / |exact|; 0 when exact == 0
  bool within_bound = true;
};

// Float sums: within the worst-case bound of any summation order, (n - 1) * u * sum|x| (Higham,
// first order); it only catches gross errors at large n, the error column shows the rest.
template <class Out>
ErrorReport compare(const ExactReference& ref, Out result) {
  ErrorReport e;
  e.abs_error = std::fabs(to_long_double(result) - ref.exact);
  e.rel_error = ref.exact != 0 ? e.abs_error / std::fabs(ref.exact) : 0;
  e.within_bound = ref.exact_only
                       ? e.abs_error == 0
                       : e.abs_error <= (long double)(ref.n > 1 ? ref.n - 1 : 0) *
                                            ref.unit_roundoff * ref.sum_abs;
  return e;
}

template <class T>
bool bitwise_equal(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

}  // namespace gpureduce_bench
