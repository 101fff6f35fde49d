// The fast path of automatic's one-block correctly rounded sums (at most kOneBlockBytes of input,
// nothing exported). Where every nonzero input of the block lies within a few exponent fields of
// the largest, their exact sum fits one double or, a little further apart, one 64-bit integer
// (float family), or one 128-bit integer (doubles) whatever the order of the adds, so rounding
// that once is the answer: no state to clear, no limbs to combine, no rounding limb by limb, which
// were most of a one-block call's time
// (docs/tuning.md, 'Correctly rounded sums', 'One-block window'). Otherwise (wider spans,
// infinities, a double NaN) the caller runs the general body (kernels.cuh), which gives the same
// bits: both are the exact sum rounded once.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda/std/bit>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../block/vectorized.cuh"
#include "../launch.cuh"
#include "exact_args.cuh"
#include "round.hpp"
#include "thread_sum.cuh"
#include "warp_sum.cuh"

namespace gpureduce::detail::exact {

// automatic's one-block limit, 16 KiB, not the default engine's 64 KiB: an exact add costs a
// conversion and a double add (floats) or two TwoSums (doubles), and one SM did 16K floats in
// 8.1 us against 5.7 us for 1K (H100, ncu, 2026-11-24), while 32 blocks took 7.4 us. Above it, up
// to 256 KiB, a cluster (cluster_window.cuh).
inline constexpr std::uint64_t kOneBlockBytes = std::uint64_t(16) << 10;

// ceil(log2(n)) for 0 < n < 2^63: a sum of n terms below 2^b is below 2^(b + this).
__host__ __device__ constexpr int log2_ceil(std::int64_t n) {
  return cuda::std::bit_width(static_cast<std::uint64_t>(n > 1 ? n - 1 : 0));  // no branch
}

// How many exponent fields below the largest the block's nonzero inputs may reach for every
// partial sum to be exact in the accumulator: each input is an integer number of the lowest
// field's units, below 2^(precision + span) of them, and n inputs must stay below 2^53 units (a
// double holds such integers exactly) or 2^127 (a signed 128-bit integer). Halves need no test:
// each is a multiple of 2^-24 below 2^16, so 2^13 of them (16 KiB) stay below 2^53 units.
// The same in a signed integer: 2^63 units for the float family (each widened to a float's 24
// bits), 2^127 for doubles.
template <class In>
__device__ __forceinline__ int integer_window_fields(int n) {
  if constexpr (std::is_same_v<In, double>) return 127 - 53 - log2_ceil(n);
  else return 63 - 24 - log2_ceil(n);
}
template <class In>
__device__ __forceinline__ int window_fields(int n) {
  if constexpr (std::is_same_v<In, __half>) return 1 << 16;
  else if constexpr (std::is_same_v<In, __nv_bfloat16>) return 53 - 8 - log2_ceil(n);
  else if constexpr (std::is_same_v<In, float>) return 53 - 24 - log2_ceil(n);
  else return integer_window_fields<double>(n);
}

// One thread's inputs, as VectorizedRung reads them: its vectors first + tid, first + tid +
// stride, ... (all loads issued before the first is used), and the scalar head's and tail's
// element of the same index, if any. A one-block call: first 0, stride BLOCK; a cluster's block
// of rank r (cluster_window.cuh): first r x BLOCK, stride the cluster's threads.
template <class In, int BLOCK, int kVectors = int(kOneBlockBytes / 16 / BLOCK)>
struct OwnInputs {
  static constexpr int kPerVector = int(16 / sizeof(In));
  static_assert(kVectors >= 1);
  uint4 vector[kVectors];
  In head, tail;
  int vectors;
  bool has_head, has_tail;

  __device__ __forceinline__ OwnInputs(const In* in, int n, int first = 0, int stride = BLOCK) {
    const auto l = VectorizedRung::layout(reinterpret_cast<std::uintptr_t>(in), sizeof(In), n);
    const uint4* vectors_in = reinterpret_cast<const uint4*>(in + l.head);
    const int mine = first + int(threadIdx.x);
    vectors = 0;
#pragma unroll
    for (int k = 0; k < kVectors; ++k)
      if (mine + k * stride < int(l.vectors))
        vector[k] = __ldg(vectors_in + mine + k * stride), ++vectors;
    has_head = mine < int(l.head);
    has_tail = mine < n - int(l.tail_begin);
    if (has_head) head = in[mine];
    if (has_tail) tail = in[l.tail_begin + mine];
  }
  // visit(item) for every input held.
  template <class Visit>
  __device__ __forceinline__ void each(Visit&& visit) const {
#pragma unroll
    for (int k = 0; k < kVectors; ++k)
      if (k < vectors) {
        In items[kPerVector];
        memcpy(items, &vector[k], sizeof(items));
#pragma unroll
        for (int j = 0; j < kPerVector; ++j) visit(items[j]);
      }
    if (has_head) visit(head);
    if (has_tail) visit(tail);
  }
};

// The exponent fields a block's inputs span: the largest, and the least of the nonzero ones
// (subnormals as field 1: both are multiples of the smallest unit). Fields of all ones are
// infinities and NaN, which the fast path leaves to the general body.
struct FieldSpan {
  unsigned highest = 0;
  unsigned lowest = ~0u;  // none nonzero
  __device__ __forceinline__ void note(unsigned field, bool nonzero) {
    highest = highest > field ? highest : field;
    const unsigned low = field > 1u ? field : 1u;
    if (nonzero) lowest = lowest < low ? lowest : low;
  }
  __device__ __forceinline__ void reduce_warp() {
    highest = __reduce_max_sync(0xffffffffu, highest);
    lowest = __reduce_min_sync(0xffffffffu, lowest);
  }
  __device__ __forceinline__ bool fits(unsigned special_field, int window) const {
    return highest < special_field && (lowest > highest || int(highest - lowest) <= window);
  }
};

// The warps' spans in shared memory (plain words: a __shared__ object's constructor never runs),
// and the block's, which every thread reads back after a barrier.
template <int BLOCK>
struct WarpSpans {
  unsigned highest[BLOCK / 32];
  unsigned lowest[BLOCK / 32];
  __device__ __forceinline__ void put(int warp, const FieldSpan& span) {
    highest[warp] = span.highest;
    lowest[warp] = span.lowest;
  }
  __device__ __forceinline__ FieldSpan block() const {
    FieldSpan all;
#pragma unroll
    for (int w = 0; w < BLOCK / 32; ++w) {
      all.highest = all.highest > highest[w] ? all.highest : highest[w];
      all.lowest = all.lowest < lowest[w] ? all.lowest : lowest[w];
    }
    return all;
  }
};

// A float family thread's span, two operations an input beside the add: the largest magnitude
// (fmaxf of |x|, on the float pipe; it passes over NaN, which the sum then carries) and the least
// nonzero one, as min(2|x|_bits - 1) (one VIADDMNMX: a zero wraps to the top).
struct FloatMagnitudes {
  float largest = 0.0f;
  unsigned least_less_one = ~0u;
  __device__ __forceinline__ void note(float f) {
    largest = fmaxf(largest, fabsf(f));
    least_less_one = __viaddmin_u32(__float_as_uint(f) << 1, ~0u, least_less_one);
  }
  __device__ __forceinline__ FieldSpan span() const {
    return span_of(__float_as_uint(largest), least_less_one);
  }
  // The fields of a largest magnitude's bits and of the least nonzero one's (as noted here).
  __device__ __forceinline__ static FieldSpan span_of(unsigned largest_bits,
                                                      unsigned least_less_one) {
    FieldSpan s;
    s.highest = largest_bits >> 23;
    if (least_less_one != ~0u) s.lowest = max((least_less_one + 1u) >> 24, 1u);
    return s;
  }
};

// As FloatMagnitudes, but the largest magnitude by its bits, an integer max: infinities and NaN
// lie above every number, so they leave any window (the integer paths cannot carry a NaN).
struct FloatFields {
  unsigned largest = 0;
  unsigned least_less_one = ~0u;
  __device__ __forceinline__ void note(float f) {
    const unsigned bits = __float_as_uint(f);
    largest = max(largest, bits & 0x7fffffffu);
    least_less_one = __viaddmin_u32(bits << 1, ~0u, least_less_one);
  }
  __device__ __forceinline__ FieldSpan span() const {
    return FloatMagnitudes::span_of(largest, least_less_one);
  }
};

// One thread's span of the inputs it holds, and whether each of them was -0.
template <class In, class Inputs>
__device__ __forceinline__ FieldSpan thread_span(const Inputs& inputs, bool& all_negative_zero) {
  if constexpr (std::is_same_v<In, double>) {
    FieldSpan span;
    inputs.each([&](const double& x) {
      const auto bits = static_cast<unsigned long long>(__double_as_longlong(x));
      span.note(unsigned(bits >> 52) & 0x7ffu, (bits << 1) != 0);
      all_negative_zero = all_negative_zero && bits == (1ull << 63);
    });
    return span;
  } else {
    FloatFields fields;
    inputs.each([&](const In& x) {
      const float f = widen(x);
      fields.note(f);
      all_negative_zero = all_negative_zero && __float_as_uint(f) == 0x80000000u;
    });
    return fields.span();
  }
}

// A double's integer value in units of 2^(lowest - 1075), for a field within the window above
// `lowest` (a shift of at most 74: 53 + 74 bits; a zero is 0 whatever its field).
__device__ __forceinline__ __int128 scaled_integer(double x, unsigned lowest) {
  const auto bits = static_cast<unsigned long long>(__double_as_longlong(x));
  const unsigned field = unsigned(bits >> 52) & 0x7ffu;
  const unsigned long long mantissa =
      (bits & ((1ull << 52) - 1)) | (field != 0 ? 1ull << 52 : 0ull);
  const __int128 magnitude = static_cast<__int128>(mantissa)
                             << ((field > lowest ? field : lowest) - lowest);
  return (bits >> 63) != 0 ? -magnitude : magnitude;
}

// A float's integer value in units of 2^(lowest - 150), for a field within the window above
// `lowest` (a zero is 0 whatever its field).
__device__ __forceinline__ long long scaled_float(float f, unsigned lowest) {
  const unsigned bits = __float_as_uint(f);
  const unsigned field = (bits >> 23) & 0xffu;
  const unsigned mantissa = (bits & 0x7fffffu) | (field != 0 ? 0x800000u : 0u);
  const long long magnitude = static_cast<long long>(mantissa)
                              << ((field > lowest ? field : lowest) - lowest);
  return (bits >> 31) != 0 ? -magnitude : magnitude;
}

// Float family, a span too wide for a double's window but within a 64-bit integer's (63 - 24 -
// log2 n fields: 27 at 4K items, against 17): the inputs again, each an integer number of the
// lowest field's units. Uniform inputs in [-1, 1) reach past 17 fields in about one 4K call in 60
// (a least magnitude below 2^-18), which the general body then took at 3x the time. Some input
// is nonzero (the double's window takes a block of zeros), so an exact zero sum is +0. A NaN (which
// the span passes over) leaves it to the general body.
template <int BLOCK, class In, class Out, class Inputs>
__device__ __forceinline__ bool float_family_in_integers(const ExactArgs<In, Out>& args,
                                                         const Inputs& inputs, FieldSpan block) {
  __shared__ long long warp_sums[BLOCK / 32];
  if (!block.fits(255u, integer_window_fields<In>(int(args.num_items)))) return false;
  long long sum = 0;
  bool nan = false;
  inputs.each([&](const In& x) {
    const float f = widen(x);
    nan = nan || f != f;
    sum += scaled_float(f, block.lowest);
  });
  sum = warp_sum(sum);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
  if (__syncthreads_or(nan)) return false;
  if (threadIdx.x == 0) {
    long long total = 0;
#pragma unroll
    for (int w = 0; w < BLOCK / 32; ++w) total += warp_sums[w];
    *args.d_out = total != 0 ? round_integer<Out>(total, int(block.lowest) - 150) : Out(0);
  }
  return true;
}

// Float family: every input widened to float (exact), its magnitude noted, and added to one
// double, speculatively: the block's span, known after the one barrier, says whether every add
// was exact (else float_family_in_integers). The identity is -0, so a sum of -0 alone is -0 and
// any other exact zero +0, as IEEE gives; a NaN the span passed over makes the sum NaN, written as
// the canonical NaN.
template <int BLOCK, class In, class Out>
__device__ __forceinline__ bool float_family_in_window(const ExactArgs<In, Out>& args) {
  __shared__ WarpSpans<BLOCK> warp_spans;
  __shared__ double warp_sums[BLOCK / 32];
  const int n = int(args.num_items);
  const OwnInputs<In, BLOCK> inputs(args.d_in, n);
  FloatMagnitudes magnitudes;
  double sum = -0.0;
  inputs.each([&](const In& x) {
    const float f = widen(x);
    magnitudes.note(f);
    sum += double(f);
  });
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  FieldSpan span = magnitudes.span();
  span.reduce_warp();
  const int warp = int(threadIdx.x) / 32;
  if (threadIdx.x % 32 == 0) warp_spans.put(warp, span), warp_sums[warp] = sum;
  __syncthreads();
  const FieldSpan block = warp_spans.block();
  if (!block.fits(255u, window_fields<In>(n)))
    return float_family_in_integers<BLOCK>(args, inputs, block);
  if (threadIdx.x == 0) {
    double total = warp_sums[0];
#pragma unroll
    for (int w = 1; w < BLOCK / 32; ++w) total += warp_sums[w];
    if (n == 0) total = 0.0;  // an empty sum is +0
    if constexpr (std::is_same_v<Out, float>)
      *args.d_out = total != total ? __uint_as_float(0x7fc00000u) : __double2float_rn(total);
    else
      *args.d_out = total != total ? __longlong_as_double(0x7ff8000000000000ll) : total;
  }
  return true;
}

// Doubles: the block's span first (one barrier), then every input as an integer in units of the
// lowest field's, summed in 128 bits (a second barrier for the warps' sums) and rounded by thread 0.
template <int BLOCK, class Out>
__device__ __forceinline__ bool doubles_in_window(const ExactArgs<double, Out>& args) {
  __shared__ WarpSpans<BLOCK> warp_spans;
  __shared__ bool warp_all_negative_zero[BLOCK / 32];
  __shared__ __int128 warp_sums[BLOCK / 32];
  const int n = int(args.num_items);
  const OwnInputs<double, BLOCK> inputs(args.d_in, n);
  bool all_negative_zero = true;
  FieldSpan span = thread_span<double>(inputs, all_negative_zero);
  span.reduce_warp();
  all_negative_zero = __all_sync(0xffffffffu, all_negative_zero);
  const int warp = int(threadIdx.x) / 32;
  if (threadIdx.x % 32 == 0) warp_spans.put(warp, span), warp_all_negative_zero[warp] = all_negative_zero;
  __syncthreads();
  const FieldSpan block = warp_spans.block();
  if (!block.fits(0x7ffu, window_fields<double>(n))) return false;
  __int128 sum = 0;
  inputs.each([&](const double& x) { sum += scaled_integer(x, block.lowest); });
  sum = warp_sum(sum);
  if (threadIdx.x % 32 == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    __int128 total = 0;
    bool negative_zero = n > 0;
#pragma unroll
    for (int w = 0; w < BLOCK / 32; ++w)
      total += warp_sums[w], negative_zero = negative_zero && warp_all_negative_zero[w];
    *args.d_out = total != 0        ? round_integer<double>(total, int(block.lowest) - 1075)
                  : negative_zero ? -0.0
                                  : 0.0;
  }
  return true;
}

// The fast path: true when it wrote the answer; false, for every thread of the block alike, when
// the inputs lie too far apart (or hold an infinity or NaN) and the general body must run.
template <int BLOCK, class In, class Out>
__device__ __forceinline__ bool one_block_in_window(const ExactArgs<In, Out>& args) {
  static_assert(kOneBlockBytes % (16 * BLOCK) == 0 && kOneBlockBytes >= 16 * BLOCK,
                "a block's threads hold its whole input in whole vectors");
  wait_for_previous_kernel_then_release_next();
  if constexpr (std::is_same_v<In, double>) return doubles_in_window<BLOCK>(args);
  else return float_family_in_window<BLOCK>(args);
}

}  // namespace gpureduce::detail::exact
