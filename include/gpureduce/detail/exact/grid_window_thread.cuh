// One thread's part of the grid window (grid_window.cuh): its inputs, batch by batch as sum_inputs
// hands them over (kernels.cuh), summed exactly as one signed 128-bit integer in units of the last
// place of its least nonzero input so far (the sum moved down when a smaller one comes: at once
// for the float family, at the next flush for doubles), with the span of those last places, in a
// double's exponent fields. The block refuses the window where a
// thread saw an infinity or NaN or a span its sums cannot hold.
#pragma once

#include <cstdint>
#include <type_traits>

#include "one_block_sum.cuh"

namespace gpureduce::detail::exact {

// Spans are in a double's exponent fields throughout, of each input's last place: a float's field
// plus this has the same last place (2^(field - 150) = 2^(field + 925 - 1075)).
inline constexpr unsigned kFloatToDoubleField = 925;
template <class In>
inline constexpr int kSignificandBits = std::is_same_v<In, double> ? 53 : 24;

// How many fields above the lowest last place n inputs of In may reach for their sum to be exact
// in a signed 128-bit integer of units 2^(lowest - 1075): each is below 2^(significand + span)
// units, so n of them below 2^127 units, whatever the order (FieldSpan::fits).
template <class In>
__device__ __forceinline__ int int128_window_fields(std::int64_t n) {
  return 127 - kSignificandBits<In> - log2_ceil(n);
}

// A double that is a whole number of units 2^(lowest - 1075) (zero or not), as that integer.
__device__ __forceinline__ __int128 double_in_units(double d, unsigned lowest) {
  const auto bits = static_cast<unsigned long long>(__double_as_longlong(d));
  const unsigned field = unsigned(bits >> 52) & 0x7ffu;
  const unsigned place = field > 1u ? field : 1u;
  const unsigned long long mantissa =
      (bits & ((1ull << 52) - 1)) | (field != 0 ? 1ull << 52 : 0ull);
  // below `lowest` only by the mantissa's trailing zeros (a whole number of units is >= 1 unit)
  const __int128 magnitude =
      place >= lowest ? static_cast<__int128>(mantissa) << (place - lowest)
                      : static_cast<__int128>(mantissa >> min(lowest - place, 63u));  // 0: a zero
  return (bits >> 63) != 0 ? -magnitude : magnitude;
}

// A float's value in units 2^(lowest - 1075), out of line: the path of a batch spanning too many
// fields for one double, whose registers would otherwise crowd the common path's.
inline __device__ __noinline__ __int128 float_in_units(float f, unsigned lowest) {
  return double_in_units(double(f), lowest);
}

// Pairwise: v[0] = op over v, a chain of log2 N steps instead of N (N a power of two): v[i] with
// v[i + N/2], then the same over the first half. (As a loop over halving widths it stayed a loop
// at N = 16, its arrays in local memory.)
template <int N, class T, class Op>
__device__ __forceinline__ T tree(T (&v)[N], Op op) {
  if constexpr (N == 1) {
    return v[0];
  } else {
#pragma unroll
    for (int i = 0; i < N / 2; ++i) v[i] = op(v[i], v[i + N / 2]);
    return tree(reinterpret_cast<T(&)[N / 2]>(v), op);
  }
}

// What both families keep.
struct WindowSum {
  __int128 sum = 0;  // units 2^(span.lowest - 1075)
  FieldSpan span;    // of the nonzero inputs' last places, in double fields
  bool refuse = false;
  bool all_negative_zero = true;

  // The sum's unit moved down to `low`'s.
  __device__ __forceinline__ void lower_to(unsigned low) {
    // a shift past 127 means a span past the window, which the block then refuses
    if (span.lowest != ~0u) sum <<= min(span.lowest - low, 127u);
    span.lowest = low;
  }
};

// The float family: a batch's inputs added in one double, exact where the batch spans at most
// 53 - 24 - log2(batch) fields (else in bands, kWideBands, or one by one, out of line), then that
// double into the sum: the one-block window's double (one_block_sum.cuh), a conversion and a
// double add an input, and the 128-bit add once a batch. (Pairwise trees and the doubles' parts
// below ran 0.2-0.6 µs slower from 256K to 1M items: docs/tuning.md, 'Grid window'.)
template <bool kWideBands>
struct FloatFamilyWindowThread : WindowSum {
  template <class F, int N>
  __device__ __forceinline__ void add_batch(const F (&items)[N]) {
    if constexpr (N > 16) {  // halves and bfloat16, 32 a batch: as two (one spilled registers)
      F half_batch[N / 2];
#pragma unroll
      for (int k = 0; k < 2; ++k) {
#pragma unroll
        for (int j = 0; j < N / 2; ++j) half_batch[j] = items[k * (N / 2) + j];
        add_batch(half_batch);
      }
      return;
    }
    FloatMagnitudes magnitudes;
    double batch_sum = -0.0;  // stays -0 only where every input is -0
#pragma unroll
    for (int j = 0; j < N; ++j) {
      const float f = widen(items[j]);
      magnitudes.note(f);
      batch_sum += double(f);
    }
    const FieldSpan batch = magnitudes.span();
    refuse = refuse || batch.highest == 0xffu || batch_sum != batch_sum;
    all_negative_zero = all_negative_zero && __double_as_longlong(batch_sum) == (1ll << 63);
    if (batch.lowest == ~0u) return;
    if (batch.lowest + kFloatToDoubleField < span.lowest)
      lower_to(batch.lowest + kFloatToDoubleField);
    span.highest = max(span.highest, max(batch.highest, 1u) + kFloatToDoubleField);
    constexpr int kExactFields = 53 - 24 - log2_ceil(N);
    if (int(batch.highest) - int(batch.lowest) <= kExactFields) {
      sum += double_in_units(batch_sum, span.lowest);
    } else {
      if constexpr (kWideBands) {
        add_wide_batch(items, int(batch.highest));
      } else {
#pragma unroll
        for (int j = 0; j < N; ++j) sum += float_in_units(widen(items[j]), span.lowest);
      }
    }
  }
  // A batch spanning more fields than one double holds exactly: its inputs in bands of 16 fields
  // down from its largest, a double each (16 inputs of a band, multiples of its lowest field's
  // last place below 2^39 of them, add up exactly in any order), each band then into the sum;
  // inputs more than 4 bands down one by one, out of line. Input by input, every input of such a
  // batch cost a 128-bit shift out of line: floats of 2^-20 to 2^21 ran 3.9x CUB's time at 4M in
  // graphs, 2.6x with the bands. The deep window's kernel only: in the square-root grid's (64
  // registers) the bands' code put 24 more bytes of spill on every batch's path, and its rows of
  // every kind of data ran 7-9% slower (docs/tuning.md, 'Wide data').
  static constexpr int kBandFields = 16, kBands = 4;
  template <class F, int N>
  __device__ __forceinline__ void add_wide_batch(const F (&items)[N], int highest) {
    double band[kBands];
#pragma unroll
    for (int k = 0; k < kBands; ++k) band[k] = -0.0;
#pragma unroll
    for (int j = 0; j < N; ++j) {
      const float f = widen(items[j]);
      const int field = int((__float_as_uint(f) >> 23) & 0xffu);
      // highest is the largest finite field (a NaN's band is past them all: the block refuses it)
      const unsigned k = unsigned(highest - (field > 1 ? field : 1)) / kBandFields;
      const double d = double(f);
#pragma unroll
      for (int b = 0; b < kBands; ++b) band[b] += k == unsigned(b) ? d : -0.0;
      if (k >= unsigned(kBands)) sum += float_in_units(f, span.lowest);
    }
#pragma unroll
    for (int k = 0; k < kBands; ++k) sum += double_in_units(band[k], span.lowest);
  }
  template <class X>
  __device__ __forceinline__ void add(const X& x) {
    const X one[1] = {x};
    add_batch(one);
  }
  template <int kBatch>
  __device__ __forceinline__ void counted(int) {}
  __device__ __forceinline__ void finish() {}
};

// Doubles: integer arithmetic on each input (a 128-bit shift and add) cost ~40 instructions a
// double, three times what the H200 has to spare at memory speed. So each input is scaled by
// 2^(1075 - lowest), exact, into an integer-valued double below 2^(53 + span), and split in
// floating point: the multiple of 2^39 above and the rest below (at most 2^38), each batch summed
// by pairwise trees into a double of its own, exactly while the thread's span stays within
// kThreadFields: six floating-point operations an input. Both go into the 128-bit sum every
// kFlushItems inputs. When a smaller input lowers the unit by d fields, the doubles are
// multiplied by 2^d (exact) and split again, a dozen instructions; the 128-bit sum keeps its own
// unit until the next flush. (Flushing and shifting the 128-bit sum at every new lowest put that
// work in nearly every batch of every warp, since some lane of a warp nearly always meets a new
// least input: docs/tuning.md, 'Grid window'.)
//
// kParts 3, for a block that kParts 2 refused (its second read: kernels.cuh,
// refused_double_block): each input's multiple of 2^79 goes first into a third double, `top`,
// four more operations an input, to spans of 61. Doubles of 2^-20 to 2^21 pass 27 in every
// thread, and their blocks took the general body: 7.7x CUB's time at 4M. Three parts in every
// block, or a thread's choice of two or three batch by batch, cost integer data 0.3-0.4 µs a call
// at 1M-4M (docs/tuning.md, 'Wide data, continued').
template <int kParts>
struct DoubleWindowThread : WindowSum {
  static_assert(kParts == 2 || kParts == 3, "two or three parts");
  static constexpr int kFlushLog2 = 12;
  static constexpr int kFlushItems = 1 << kFlushLog2;
  // kFlushItems inputs below 2^(53 + span) add up below 2^(65 + span). Two parts: `above`,
  // multiples of 2^39, stays below 2^92 (53 bits) to a span of 27; `below`, rests of at most
  // 2^38, below 2^51. Three: `top`, multiples of 2^79, is exact to a span of 67, and flush() moves
  // it into the 128-bit sum, which holds it below 2^127 to a span of 61; `above` takes parts of at
  // most 2^78.
  static constexpr int kThreadFields =
      kParts == 2 ? 92 - (53 + kFlushLog2) : 126 - (53 + kFlushLog2);
  static constexpr double kSplit = 0x1.8p+91;      // rounds |v| < 2^90 to multiples of 2^39
  static constexpr double kSplitTop = 0x1.8p+131;  // rounds |v| < 2^130 to multiples of 2^79
  // Three parts: unit moves of this many fields flush first; below it, `above` times 2^d stays
  // under 2^130 and `below` times 2^d under 2^90, where the splits hold.
  static constexpr int kRescaleFields = 32;
  double top = 0.0;                 // three parts only: integers, units 2^(span.lowest - 1075)
  double above = 0.0, below = 0.0;  // integers, units 2^(span.lowest - 1075)
  double scale = 0.0;               // 2^(1075 - span.lowest)
  unsigned sum_lowest = ~0u;        // WindowSum::sum's unit until flush(): 2^(sum_lowest - 1075)
  int items = 0;                    // inputs in the parts

  __device__ __forceinline__ void flush() {
    // a shift past 127 means a span past kThreadFields, which finish() refuses
    if (sum_lowest != ~0u) sum <<= min(sum_lowest - span.lowest, 127u);
    sum_lowest = span.lowest;
    sum += double_in_units(above, 1075) + double_in_units(below, 1075);  // units of 1
    if constexpr (kParts == 3) sum += double_in_units(top, 1075);
    top = above = below = 0.0;
    items = 0;
  }
  // The unit moved down to `lowest`'s, d fields: the parts times 2^d, below split again at 2^39
  // (below 2^(51 + d) before: exact for d <= 39, and a larger d is a span finish() refuses); with
  // three parts, above split again at 2^79 too, or for d from kRescaleFields up, the parts
  // flushed first.
  __device__ __forceinline__ void move_unit_down(unsigned lowest) {
    const unsigned d = span.lowest != ~0u ? min(span.lowest - lowest, 1000u) : 0u;
    if (kParts == 3 && d >= unsigned(kRescaleFields)) {
      flush();
    } else {
      const double times = __longlong_as_double(static_cast<long long>(1023u + d) << 52);
      double scaled_above = above * times;
      if constexpr (kParts == 3) {
        const double to_top = (scaled_above + kSplitTop) - kSplitTop;
        top = top * times + to_top;
        scaled_above -= to_top;
      }
      const double scaled_below = below * times;
      const double moved = (scaled_below + kSplit) - kSplit;
      above = scaled_above + moved;
      below = scaled_below - moved;
    }
    span.lowest = lowest;
    // 2^(1075 - lowest) is a double for lowest >= 52; below (magnitudes under 2^-970), refuse
    refuse = refuse || lowest < 52u;
    scale = __longlong_as_double(static_cast<long long>(lowest >= 52u ? 2098u - lowest : 0u) << 52);
  }
  template <int N>
  __device__ __forceinline__ void add_batch(const double (&x)[N]) {
    unsigned largest[N], least_less_one[N], signs[N];
#pragma unroll
    for (int j = 0; j < N; ++j) {  // the span from the high words (and whether the low is zero)
      const auto bits = static_cast<unsigned long long>(__double_as_longlong(x[j]));
      signs[j] = unsigned(bits >> 32);
      largest[j] = signs[j] & 0x7fffffffu;
      least_less_one[j] = ((signs[j] << 1) | unsigned(unsigned(bits) != 0u)) - 1u;  // 0 wraps
    }
    const unsigned least = tree(least_less_one, [](unsigned a, unsigned b) { return min(a, b); });
    const unsigned highest = tree(largest, [](unsigned a, unsigned b) { return max(a, b); }) >> 20;
    if (least == ~0u) {  // zeros only: -0 alone leaves the verdict as it was
      const unsigned all = tree(signs, [](unsigned a, unsigned b) { return a & b; });
      all_negative_zero = all_negative_zero && (all >> 31) != 0;
      return;
    }
    all_negative_zero = false;
    refuse = refuse || highest == 0x7ffu;
    span.highest = max(span.highest, highest);
    const unsigned lowest = max((least + 1u) >> 21, 1u);
    if (lowest < span.lowest) move_unit_down(lowest);
    double high[N], rest[N];
    double highest_part[kParts == 3 ? N : 1];
#pragma unroll
    for (int j = 0; j < N; ++j) {
      double scaled = x[j] * scale;  // exact: an integer below 2^(53 + span)
      if constexpr (kParts == 3) {
        highest_part[j] = (scaled + kSplitTop) - kSplitTop;
        scaled -= highest_part[j];
      }
      high[j] = (scaled + kSplit) - kSplit;
      rest[j] = scaled - high[j];
    }
    const auto add = [](double a, double b) { return a + b; };
    if constexpr (kParts == 3) top += tree(highest_part, add);
    above += tree(high, add);
    below += tree(rest, add);
  }
  __device__ __forceinline__ void add(const double& x) {
    const double one[1] = {x};
    add_batch(one);
    counted<1>(1);
  }
  template <int kBatch>
  __device__ __forceinline__ void counted(int added) {
    items += added;
    if (items > kFlushItems - kBatch) flush();
  }
  __device__ __forceinline__ void finish() {
    flush();
    refuse = refuse ||
             (span.lowest <= span.highest && int(span.highest - span.lowest) > kThreadFields);
  }
};

template <class In, bool kDeep>
using WindowThread = std::conditional_t<std::is_same_v<In, double>, DoubleWindowThread<2>,
                                        FloatFamilyWindowThread<kDeep>>;

}  // namespace gpureduce::detail::exact
