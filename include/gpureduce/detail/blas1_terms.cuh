// The per-element terms and accumulators of the BLAS level-1 reductions (blas1.cuh).
#pragma once

#include <cmath>
#include <cstring>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "value_traits.cuh"

namespace gpureduce::detail {

// |x| by clearing the sign bit: exact for every type, -0 -> +0, NaN stays NaN. fabs, not a
// comparison: it is a free operand modifier of the add that follows, where the branchy form took
// 15 instructions an element (ncu, probe h100-2026-11-25-argmin).
struct AbsoluteValue {
  template <class T>
  __host__ __device__ T operator()(const T& x) const {
    if constexpr (std::is_floating_point_v<T>) {
      return std::fabs(x);
    } else {
      unsigned short bits;
      memcpy(&bits, &x, sizeof bits);
      bits = static_cast<unsigned short>(bits & 0x7fffu);
      T result;
      memcpy(&result, &bits, sizeof bits);
      return result;
    }
  }
};

// |x| converted to Accum.
template <class Accum>
struct AbsoluteValueIn {
  template <class T>
  __host__ __device__ Accum operator()(const T& x) const {
    return static_cast<Accum>(AbsoluteValue{}(x));
  }
};

// x * y in Accum (half and bfloat16 products are exact in float).
template <class Accum>
struct MultiplyIn {
  template <class T>
  __host__ __device__ Accum operator()(const T& x, const T& y) const {
    return static_cast<Accum>(x) * static_cast<Accum>(y);
  }
};

// A sum of squares of float, half or bfloat16 values, held in double: each square is exact
// there (at most 48 significant bits, exponents within double's range), and no sum of fewer
// than 2^900 of them overflows. Converting to Out rounds once (kRoot: the square root first).
template <bool kRoot>
struct SquareSum {
  double sum;
  __host__ __device__ explicit operator float() const {
    return static_cast<float>(kRoot ? sqrt(sum) : sum);
  }
};
template <bool kRoot>
struct SquareSumPlus {
  __host__ __device__ SquareSum<kRoot> operator()(const SquareSum<kRoot>& a,
                                                  const SquareSum<kRoot>& b) const {
    return {a.sum + b.sum};
  }
};
template <bool kRoot>
struct SquareInDouble {
  template <class T>
  __host__ __device__ SquareSum<kRoot> operator()(const T& x) const {
    const double d = static_cast<double>(static_cast<float>(x));
    return {d * d};
  }
};

// Blue's algorithm for doubles (as LAPACK 3.10's dnrm2, Anderson 2017): squares of small, middle
// and large magnitudes go to three sums, the small and large scaled by powers of two so that
// none overflows or underflows; the result combines them once (kRoot: the norm, else the sum of
// squares).
struct BlueConstants {
  static constexpr double kSmallBelow = 1.4916681462400413e-154;  // 2^-511
  static constexpr double kBigAbove = 1.9979190722022350e+146;    // 2^486
  static constexpr double kSmallScale = 4.4989137945431964e+161;  // 2^537
  static constexpr double kBigScale = 1.1113793747425387e-162;    // 2^-538
};
template <bool kRoot>
struct BlueSums {
  double small, middle, big;
  __host__ __device__ explicit operator double() const {
    using C = BlueConstants;
    double scale = 1.0, sum = middle;
    if (big > 0.0) {
      // The middle sum matters only if not negligible; scaled into the big one.
      sum = big + (middle * C::kBigScale) * C::kBigScale;
      scale = 1.0 / C::kBigScale;
    } else if (small > 0.0) {
      if (middle > 0.0) {
        const double m = sqrt(middle), s = sqrt(small) / C::kSmallScale;
        const double high = m > s ? m : s, low = m > s ? s : m;
        sum = high * high * (1.0 + (low / high) * (low / high));
      } else {
        sum = small;
        scale = 1.0 / C::kSmallScale;
      }
    }
    if (middle != middle || small != small || big != big) return middle + small + big;  // NaN
    return kRoot ? scale * sqrt(sum) : (sum * scale) * scale;  // scale^2 alone may overflow
  }
};
template <bool kRoot>
struct BlueSumsPlus {
  __host__ __device__ BlueSums<kRoot> operator()(const BlueSums<kRoot>& a,
                                                 const BlueSums<kRoot>& b) const {
    return {a.small + b.small, a.middle + b.middle, a.big + b.big};
  }
};
template <bool kRoot>
struct BlueSquare {
  __host__ __device__ BlueSums<kRoot> operator()(const double& x) const {
    using C = BlueConstants;
    const double a = x < 0.0 ? -x : x;
    if (a > C::kBigAbove) {
      const double s = x * C::kBigScale;
      return {0.0, 0.0, s * s};
    }
    if (a < C::kSmallBelow) {
      const double s = x * C::kSmallScale;
      return {s * s, 0.0, 0.0};
    }
    return {0.0, x * x, 0.0};  // NaN lands here and propagates through the middle sum
  }
};

}  // namespace gpureduce::detail
