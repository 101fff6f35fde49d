// The reduction operators behind Sum, Min and Max.
//
// Sum is ::cuda::std::plus<> itself, the functor cub::DeviceReduce::Sum uses: CUB picks its
// per-thread reduction order by the functor's type, so the cub_block rung must pass the same one to
// reproduce CUB's bits. Min and Max are our own: they propagate NaN (any NaN in, NaN out) and order
// -0 below +0, so that for n > 0 the answer depends on the inputs alone and not on the order.
#pragma once

#include <cstring>
#include <type_traits>

#include <cuda/std/functional>

#include "value_traits.cuh"

namespace gpureduce::detail {

using SumOp = ::cuda::std::plus<>;

// Sum's operator for In -> Out. plus<> when the types agree, as cub::DeviceReduce::Sum. For
// __half/__nv_bfloat16 -> float, plus<> is ambiguous (float + __half converts either way; CUB 3.0.1's
// Sum does not compile for it), so plus<Out>: the input converts to Out before each add.
template <class In, class Out>
using sum_op_t = std::conditional_t<std::is_same_v<In, Out>, SumOp, ::cuda::std::plus<Out>>;

template <class Op>
inline constexpr bool is_sum_op_v = false;
template <class T>
inline constexpr bool is_sum_op_v<::cuda::std::plus<T>> = true;

// Min (kMin) or Max: NaN wins, and -0 orders below +0 so that ties between zeros do not depend on
// the order of evaluation.
template <bool kMin>
struct ExtremumOp {
  // float on the device: one instruction. PTX min.NaN/max.NaN (sm_80+) return the canonical NaN
  // (0x7fffffff) if either input is NaN and order -0 below +0 (checked on an H200, 2026-11-22), which
  // is this operator's contract; the generic path below costs ~10 instructions per element and made
  // Min f32 1.1-1.45x slower than CUB's from 1M items up (benchmark/results, 2026-11-22).
  __host__ __device__ float operator()(const float& a, const float& b) const {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    float r;
    if constexpr (kMin) asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    else asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
#else
    return generic(a, b);
#endif
  }
  // __half and __nv_bfloat16 likewise: PTX min.NaN/max.NaN .f16 and .bf16 (sm_80+), one
  // instruction with the same contract, whose NaN is the canonical 0x7fff. Through the generic
  // path (widen to float, test NaN, order the zeros) bf16 Min and Max ran 1.60-1.66x CUB's time on
  // 64-256 MiB inside graphs on an H200, and f16 Min 1.53x; with these 0.88-0.93x (probe runs
  // 16a-16b, benchmark/results/h200-2026-11-22g-probe.txt).
  __host__ __device__ __half operator()(const __half& a, const __half& b) const {
    return half_like(a, b);
  }
  __host__ __device__ __nv_bfloat16 operator()(const __nv_bfloat16& a,
                                               const __nv_bfloat16& b) const {
    return half_like(a, b);
  }
  // double: PTX has no min.NaN.f64, so integers. Flipping a negative number's magnitude bits makes
  // the bits order as signed integers the way the values do, with -0 below +0 (the key); a NaN
  // (magnitude above infinity's) is then taken first, a before b, as generic does. The same answers
  // as generic for every input, in 32 registers where generic's branches and encodings took
  // reduce_last_block_kernel to 36 (3 blocks of 512 per SM, not 4): f64 Max ran 1.33-1.35x CUB's
  // time on 64-256 MiB inside graphs on an H200 at two of those three places, 1.15-1.19x at one;
  // with this, at two of four, 1.01-1.07x (probe runs 16a, 16c, 16d).
  __host__ __device__ double operator()(const double& a, const double& b) const {
#if defined(__CUDA_ARCH__)
    const long long x = __double_as_longlong(a), y = __double_as_longlong(b);
    const long long magnitude = 0x7fffffffffffffffll, infinity = 0x7ff0000000000000ll;
    const long long kx = x ^ ((x >> 63) & magnitude), ky = y ^ ((y >> 63) & magnitude);
    long long r = ((ky < kx) == kMin) ? y : x;
    r = (y & magnitude) > infinity ? y : r;
    r = (x & magnitude) > infinity ? x : r;
    return __longlong_as_double(r);
#else
    return generic(a, b);
#endif
  }
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const {
    return generic(a, b);
  }

 private:
  template <class Half>
  __host__ __device__ static Half half_like(const Half& a, const Half& b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned short x, y, r;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    if constexpr (std::is_same_v<Half, __half>) {
      if constexpr (kMin) asm("min.NaN.f16 %0, %1, %2;" : "=h"(r) : "h"(x), "h"(y));
      else asm("max.NaN.f16 %0, %1, %2;" : "=h"(r) : "h"(x), "h"(y));
    } else {
      if constexpr (kMin) asm("min.NaN.bf16 %0, %1, %2;" : "=h"(r) : "h"(x), "h"(y));
      else asm("max.NaN.bf16 %0, %1, %2;" : "=h"(r) : "h"(x), "h"(y));
    }
    Half result;
    memcpy(&result, &r, sizeof r);
    return result;
#else
    return generic(a, b);
#endif
  }

  // Any NaN propagates (the first one met, so its payload may depend on the order).
  template <class T>
  __host__ __device__ static T generic(const T& a, const T& b) {
    using traits = value_traits<T>;
    if constexpr (traits::is_floating) {
      if (traits::is_nan(a)) return a;
      if (traits::is_nan(b)) return b;
      const auto wa = traits::widen(a), wb = traits::widen(b);
      if (wa != wb) return ((wb < wa) == kMin) ? b : a;
      const bool b_below = ordered_key<T>::encode(b) < ordered_key<T>::encode(a);  // -0 below +0
      return (b_below == kMin) ? b : a;
    } else {
      return ((b < a) == kMin) ? b : a;  // ties keep a, as the order-independent choice
    }
  }
};
using MinOp = ExtremumOp<true>;
using MaxOp = ExtremumOp<false>;

// ArgMin (kMin) or ArgMax on IndexedValue-like {index, value} pairs: the extreme value, ties to the
// smaller index, so the answer is the first extremum whatever the order of evaluation. Values
// compare with `<` as cub::ArgMin/ArgMax do (-0 ties +0), so NaN-free results are CUB's; a NaN
// wins, the first NaN's index (as Min/Max: any NaN in, NaN out).
template <bool kMin>
struct ArgExtremumOp {
  static constexpr bool kIsMin = kMin;
  template <class Pair>
  __host__ __device__ Pair operator()(const Pair& a, const Pair& b) const {
    using traits = value_traits<decltype(a.value)>;
    const bool a_nan = traits::is_nan(a.value), b_nan = traits::is_nan(b.value);
    if (a_nan || b_nan) {
      if (a_nan && b_nan) return b.index < a.index ? b : a;
      return a_nan ? a : b;
    }
    const auto wa = traits::widen(a.value), wb = traits::widen(b.value);
    const bool b_better = kMin ? (wb < wa) : (wa < wb);
    const bool a_better = kMin ? (wa < wb) : (wb < wa);
    if (b_better) return b;
    if (a_better) return a;
    return b.index < a.index ? b : a;
  }
  // operator()(a, b) where b's index is known to be above a's (combine_in_order): the later item
  // wins only if strictly better, or a NaN over a number, so the index takes no part.
  static constexpr bool kHasInOrder = true;
  template <class Pair>
  __host__ __device__ static Pair in_order(const Pair& a, const Pair& b) {
    return later_wins(a.value, b.value) ? b : a;
  }
  // Whether value b, later than a, replaces it: b strictly better, or b NaN and a not. As
  // "b < a or unordered, and a not NaN" it is two comparisons (a NaN stays: the first NaN wins).
  template <class T>
  __host__ __device__ static bool later_wins(const T& a, const T& b) {
    using traits = value_traits<T>;
    const auto wa = traits::widen(a), wb = traits::widen(b);
    const bool b_better_or_unordered = kMin ? !(wa <= wb) : !(wb <= wa);
    return b_better_or_unordered && !traits::is_nan(a);
  }
};
using ArgMinOp = ArgExtremumOp<true>;
using ArgMaxOp = ArgExtremumOp<false>;

// op(earlier, later) where `later` comes after everything `earlier` folded, in index order (a
// thread's own items, left to right): an op with an `in_order` form takes it, the rest their own.
template <class Op, class = void>
inline constexpr bool has_in_order_v = false;
template <class Op>
inline constexpr bool has_in_order_v<Op, std::void_t<decltype(Op::kHasInOrder)>> = Op::kHasInOrder;

// Whether a reduction's answer is one value whatever order and grouping its items meet in: Min
// and Max (a total order, NaN absorbing), ArgMin and ArgMax (ties to the first index), and sums
// of integers (exact, modulo 2^bits). A floating-point sum is not.
template <class Op>
inline constexpr bool is_extremum_op_v = false;
template <bool kMin>
inline constexpr bool is_extremum_op_v<ExtremumOp<kMin>> = true;
template <bool kMin>
inline constexpr bool is_extremum_op_v<ArgExtremumOp<kMin>> = true;
template <class Op, class Accum>
inline constexpr bool kOrderFree =
    is_extremum_op_v<Op> || (is_sum_op_v<Op> && std::is_integral_v<Accum>);

template <class Op, class Accum>
__host__ __device__ __forceinline__ Accum combine_in_order(const Op& op, const Accum& earlier,
                                                           const Accum& later) {
  if constexpr (has_in_order_v<Op>) return Op::in_order(earlier, later);
  else return op(earlier, later);
}

}  // namespace gpureduce::detail
