// One thread's exact sum of its inputs (correctly rounded sums): for floats and bfloat16 a window of
// exponents in a register and bins in shared memory, for halves one double, for doubles a window
// of two biased doubles and a double expansion in registers. What none can hold goes straight into
// the block's state (block_state.cuh).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "block_state.cuh"
#include "double_thread.hpp"
#include "float_bins.hpp"
#include "warp_sum.cuh"

namespace gpureduce::detail::exact {

template <class In>
struct FamilyOf {
  using type = FloatFamily;
};
template <>
struct FamilyOf<double> {
  using type = DoubleFamily;
};
// What the threads of a correctly rounded Dot or SumSquares of doubles sum: exact products of two
// doubles (blas1_shares.cuh), fed as doubles where they are the sum of two, else added exactly.
struct DoubleProducts {};
template <>
struct FamilyOf<DoubleProducts> {
  using type = ProductFamily;
};
template <class In>
using family_of = typename FamilyOf<In>::type;

// A bfloat16 is the top half of a float: a shift, where sm_90's cvt.f32.bf16 may take the
// conversion unit that the double conversions after it need.
template <class In>
__device__ __forceinline__ float widen(const In& x) {
  if constexpr (std::is_same_v<In, __half>) return __half2float(x);
  else if constexpr (std::is_same_v<In, __nv_bfloat16>)
    return __uint_as_float(unsigned(__bfloat16_as_ushort(x)) << 16);
  else return x;
}

// A thread's share of the float family's limbs, gathered at the end from its window and bins (or
// its half sum), for the block to add up column by column (block_combine.cuh). Registers: the
// limb a piece lands on is found by comparison, not by indexing (which would go to local memory).
struct ThreadLimbs {
  static constexpr int kLimbs = FloatFamily::kLimbs;
  long long limb[kLimbs] = {};

  __device__ __forceinline__ void add(std::int64_t n, int p) {
    if (n == 0) return;
    const Pieces pieces = pieces_of(n, p);
#pragma unroll
    for (int i = 0; i < kLimbs; ++i)
#pragma unroll
      for (int k = 0; k < 3; ++k)
        if (pieces.index + k == i) limb[i] += pieces.value[k];
  }
  __device__ __forceinline__ long long at(int i) const {
    long long v = 0;
#pragma unroll
    for (int j = 0; j < kLimbs; ++j) v = j == i ? limb[j] : v;
    return v;
  }
  __device__ __forceinline__ unsigned nonzero() const {
    unsigned bits = 0;
#pragma unroll
    for (int j = 0; j < kLimbs; ++j) bits |= unsigned(limb[j] != 0) << j;
    return bits;
  }
};

// Float and bfloat16 inputs: a window of 16 exponents in a register (float_bins.hpp), placed by the
// thread's first inputs, and the 16 bins in shared memory (one column of the block's
// bins[16][threads] per thread) for inputs outside it. Data of one magnitude, even straddling a bin
// edge (small integers, normal(0, 1) values), cost a conversion and a double add an input, with no
// shared-memory traffic. A bin is written first when its first input spills (`touched`); the
// others count as -0 and are never read.
struct FloatWindowThread {
  double* bins;  // bins[b * stride] is this thread's bin b
  int stride;
  ExactState<FloatFamily>* block;
  double hot = -0.0;  // the window's sum
  int start = 0;      // the window's first exponent field; 0: none yet
  unsigned touched = 0;  // bins written since the last flush
  int count = 0;         // inputs since the last flush
  unsigned seen = 0;

  __device__ FloatWindowThread(double* column, int threads, ExactState<FloatFamily>& state)
      : bins(column), stride(threads), block(&state) {}
  // A batch goes in groups of 8. Where every lane's group lies in its window, each is added as a
  // pairwise tree: three integer operations an input to find out, one vote a group, and a chain of
  // three adds instead of eight. Any order is exact within the window, so the sums are the ones
  // input-by-input adds would give. Groups of 8, not 16: two trees of a batch of 16 at once held
  // too many doubles for automatic's 64 registers (docs/tuning.md).
  static constexpr int kGroup = 8;
  template <class In, int N>
  __device__ __forceinline__ void add_batch(const In (&items)[N]) {
    if constexpr (std::is_same_v<In, __nv_bfloat16>) {
      if (add_bfloat16_pairs(items)) return;
    }
    add_groups(items);
  }
  template <class In, int N>
  __device__ __forceinline__ void add_groups(const In (&items)[N]) {
    constexpr int kSize = N < kGroup ? N : kGroup;
    static_assert(N % kSize == 0, "whole groups");
#pragma unroll
    for (int g = 0; g < N; g += kSize) add_group<In, kSize>(items + g);
  }
  // bfloat16: the whole batch tested two inputs a word (Bfloat16PairBounds: ~2.5 integer
  // operations an input instead of ~6) and added a pair at a time in float, exactly: half the
  // conversions and double adds. Where some lane of the warp has an input outside its window but
  // every lane's lie in the window or the 16 fields below it (inside_widened), the batch goes into
  // the window's double one input at a time, still exactly: normal(0, 1) values about 2^-13 under
  // a lane's first largest sent their warp's batches to the groups' path, 2.0x CUB's time at 16M
  // where integers ran 1.4x (then 1.8x: docs/tuning.md, 'bfloat16 below the window'; since
  // open_window_on_batch 1.18x). False where neither holds (then add_groups).
  template <int N>
  __device__ __forceinline__ bool add_bfloat16_pairs(const __nv_bfloat16 (&items)[N]) {
    constexpr int kWords = N / 2;
    std::uint32_t word[kWords];
    memcpy(word, items, sizeof(word));
    Bfloat16PairBounds bounds;
#pragma unroll
    for (int j = 0; j < kWords; ++j) bounds.add(word[j]);
    if (start == 0) open_window_on_batch(bounds, word);
    const unsigned lanes = __activemask();
    if (__all_sync(lanes, bounds.inside(start))) {
      add_words<kWords, true>(word);
      return true;
    }
    if (!__all_sync(lanes, bounds.inside_widened(start))) return false;
    add_words<kWords, false>(word);
    return true;
  }
  // A bfloat16 thread's window opens at its first batch's largest finite normal input, all 32 of
  // them, not its first group's 8 as add_group's: of normal(0, 1) inputs, 8 all under 0.5 (a
  // thread in 2,000) opened windows whose top lay under later inputs of 2 and more, and the warps
  // of those threads took the groups' path on most of their batches; the SMs that held them ran
  // the 16M kernel 12K cycles past the average (ncu and per-warp counts, docs/tuning.md, 'The
  // bfloat16 window's first batch'). 32 under 0.5: 5e-14. The batch's largest magnitude is the
  // bounds' already (a loop over the words cost integers and uniform data 6% at 8M: a thread runs
  // only 2-4 batches there); where it is an infinity or NaN, the loop finds the largest finite,
  // over the words: largest_finite_field's widened floats, 8 at a time, put 8-44 bytes of spill
  // into two of the bfloat16 kernels (ptxas, stop 73).
  template <int kWords>
  __device__ __forceinline__ void open_window_on_batch(const Bfloat16PairBounds& bounds,
                                                       const std::uint32_t (&word)[kWords]) {
    int largest = bounds.largest_field();
    if (largest == 255) {
      largest = 0;
#pragma unroll
      for (int j = 0; j < kWords; ++j) {
        const int low = int((word[j] >> 7) & 0xffu), high = int((word[j] >> 23) & 0xffu);
        largest = low < 255 && low > largest ? low : largest;
        largest = high < 255 && high > largest ? high : largest;
      }
    }
    if (largest > 0) start = window_start_for(largest);
  }
  // Each word's two inputs summed in float (kInFloat: both in the window) or in double, into the
  // window's sum as trees of four.
  template <int kWords, bool kInFloat>
  __device__ __forceinline__ void add_words(const std::uint32_t (&word)[kWords]) {
    constexpr int kTree = kWords < 4 ? kWords : 4;  // four doubles at a time: 64 registers
#pragma unroll
    for (int g = 0; g < kWords; g += kTree) {
      double d[kTree];
#pragma unroll
      for (int j = 0; j < kTree; ++j) {
        const float low = __uint_as_float(word[g + j] << 16), high = __uint_as_float(word[g + j] & 0xffff0000u);
        d[j] = kInFloat ? double(low + high) : double(low) + double(high);
      }
      hot += pairwise_sum(d);
    }
  }
  template <class In, int N>
  __device__ __forceinline__ void add_group(const In* items) {
    float v[N];
#pragma unroll
    for (int j = 0; j < N; ++j) v[j] = widen(items[j]);
    if (start == 0) open_window(v);
    // An input outside the window (not zero) leaves one of the top four bits set here.
    const std::uint32_t base = std::uint32_t(start) << 24;
    std::uint32_t outside = 0;
#pragma unroll
    for (int j = 0; j < N; ++j) {
      const std::uint32_t bits = __float_as_uint(v[j]);
      outside |= (bits << 1) == 0 ? 0u : (bits << 1) - base;
    }
    // Decided for the whole warp: a lane taking the slower path would make the warp run both.
    if (!__all_sync(__activemask(), start != 0 && (outside >> 28) == 0))
      return add_group_slowly<N>(v);
    double d[N];
#pragma unroll
    for (int j = 0; j < N; ++j) d[j] = double(v[j]);
    hot += pairwise_sum(d);
  }
  // A thread's first group opens its window, at its largest finite normal input (none: no window
  // yet), here rather than on the slower path: with few batches a thread (a few million inputs),
  // the first batch going the slower path in every warp was a quarter of all batches (ncu, bf16 at
  // 2^24, H200). Before any window the window's sum is a zero: it stays, adding nothing.
  template <int N>
  __device__ __forceinline__ void open_window(const float (&v)[N]) {
    const int largest = largest_finite_field(v);
    if (largest > 0) start = window_start_for(largest);
  }
  // The other groups: a thread's first group opens its window; a group mostly outside it that
  // fits a window of its own moves the window there, where the data moved (its sum goes to the
  // block's state first). Data spanning more fields than a window (groups of 8 wider than it) keep
  // it and fill the bins: a move flushes the window by 64-bit shared atomics. Such data paid them
  // nearly every group when any group mostly outside moved it (floats of 2^-20 to 2^21 ran 8x
  // CUB's time; docs/tuning.md, 'Wide data'), and in half the groups of a warp when a group
  // reaching above the window's top still did (ncu; 'Wide data, once more'). The inputs in the
  // window (-0 standing in for the others: it leaves every sum as it was, the sign of an exact
  // zero included) go in as a tree, the rest into their bins one by one.
  template <int N>
  __device__ __forceinline__ void add_group_slowly(const float (&v)[N]) {
    unsigned in = window_mask(v);
    if (start == 0 || __popc(in) < N / 2) {
      int largest, least;
      span_of(v, largest, least);
      if (largest > 0 && (start == 0 || least >= window_start_for(largest))) {
        flush_window();
        start = window_start_for(largest);
        in = window_mask(v);
      }
    }
    double h[N];
#pragma unroll
    for (int j = 0; j < N; ++j) h[j] = (in >> j) & 1u ? double(v[j]) : -0.0;
    hot += pairwise_sum(h);
#pragma unroll
    for (int j = 0; j < N; ++j)
      if (!((in >> j) & 1u)) add_to_bin(v[j]);
  }
  template <int N>
  __device__ __forceinline__ unsigned window_mask(const float (&v)[N]) const {
    unsigned in = 0;
#pragma unroll
    for (int j = 0; j < N; ++j) in |= unsigned(in_window(__float_as_uint(v[j]), start)) << j;
    return in;
  }
  // The largest exponent field of a finite input (0 if none) and the least of a nonzero one
  // (subnormals as 0; 0 if all are zero), from the magnitudes' integer max and min, which carry the
  // field in their top bits: three operations an input where the loops below take ten (ncu: 95
  // instructions a group). An infinity or NaN (field 255) takes the loops.
  template <int N>
  static __device__ __forceinline__ void span_of(const float (&v)[N], int& largest, int& least) {
    std::uint32_t high = 0, low_less_one = 0xffffffffu;  // a zero's magnitude less one wraps
#pragma unroll
    for (int j = 0; j < N; ++j) {
      const std::uint32_t magnitude = __float_as_uint(v[j]) << 1;
      high = max(high, magnitude);
      low_less_one = min(low_less_one, magnitude - 1u);
    }
    largest = int(high >> 24);
    least = int((low_less_one + 1u) >> 24);
    if (largest == 255) {
      largest = largest_finite_field(v);
      least = least_nonzero_field(v);
    }
  }
  // The largest exponent field of a finite, normal input (0 if none).
  template <int N>
  static __device__ __forceinline__ int largest_finite_field(const float (&v)[N]) {
    int largest = 0;
#pragma unroll
    for (int j = 0; j < N; ++j) {
      const int field = int((__float_as_uint(v[j]) >> 23) & 0xffu);
      largest = field < 255 && field > largest ? field : largest;
    }
    return largest;
  }
  // The least exponent field of a nonzero input, subnormals as 0 (255 if none).
  template <int N>
  static __device__ __forceinline__ int least_nonzero_field(const float (&v)[N]) {
    int least = 255;
#pragma unroll
    for (int j = 0; j < N; ++j) {
      const std::uint32_t bits = __float_as_uint(v[j]);
      const int field = int((bits >> 23) & 0xffu);
      least = (bits << 1) != 0 && field < least ? field : least;
    }
    return least;
  }
  template <int N>
  static __device__ __forceinline__ double pairwise_sum(double (&d)[N]) {
#pragma unroll
    for (int width = 1; width < N; width *= 2)
#pragma unroll
      for (int j = 0; j + width < N; j += 2 * width) d[j] += d[j + width];
    return d[0];
  }
  template <class In>
  __device__ __forceinline__ void add(const In& x) {
    add(widen(x));
  }
  __device__ __forceinline__ void add(float v) {
    const std::uint32_t bits = __float_as_uint(v);
    const int field = int((bits >> 23) & 0xffu);
    if (start == 0 && field > 0 && field < 255) start = window_start_for(field);
    if (in_window(bits, start)) hot += double(v);
    else add_to_bin(v);
  }
  __device__ __forceinline__ void add_to_bin(float v) {
    const int b = float_bin(v);
    double& bin = bins[b * stride];
    if (touched & (1u << b)) {
      bin += double(v);
    } else {
      bin = double(v);
      touched |= 1u << b;
    }
  }
  // The window's sum into the block's state (the window stays where it is).
  __device__ __forceinline__ void flush_window() {
    if (start != 0) atomic_add_scaled(*block, window_integer(hot, start, seen), window_position(start));
    hot = -0.0;
  }
  // After `added` more inputs: empties the window and the bins into the block's state when the next
  // kBatch inputs could pass the capacity.
  template <int kBatch>
  __device__ __forceinline__ void counted(int added) {
    count += added;
    if (count > kFloatBinCapacity - kBatch) {
      flush_window();
      flush_bins();
      count = 0;
    }
  }
  // The touched bins into the block's state (64-bit shared atomics: slow, and rare for data of
  // one magnitude: an input 2^-14 below the window's top).
  __device__ __forceinline__ void flush_bins() {
    for (unsigned left = touched; left != 0; left &= left - 1) {
      const int b = __ffs(int(left)) - 1;
      atomic_add_scaled(*block, float_bin_integer(bins[b * stride], b, seen), float_bin_position(b));
    }
    touched = 0;
  }
  // Up to this many lanes with bins add their own (uniform data: a small input now and then): the
  // warp's sum a bin there cost 16M uniform and normal floats 0.3-0.4 µs. 8: reasoned, not swept.
  static constexpr int kFewLanesWithBins = 8;
  // At the end, the warp's touched bins into the block's state: each bin's integers (a bin sits at
  // one place for every lane) summed over the warp first, below 2^58, and one lane's atomics a bin.
  // Lane by lane, every thread of the block added its bins into the same few limbs, 64-bit
  // shared atomics that sm_90 runs as compare-and-swap loops: floats of 2^-20 to 2^21, every lane
  // with three or four bins, spent 30% of their instructions retrying them (ncu, 16M items,
  // H200; docs/tuning.md, 'Wide data, continued').
  __device__ __forceinline__ void flush_bins_by_warp() {
    if (__popc(__ballot_sync(0xffffffffu, touched != 0)) <= kFewLanesWithBins) return flush_bins();
    for (unsigned left = __reduce_or_sync(0xffffffffu, touched); left != 0; left &= left - 1) {
      const int b = __ffs(int(left)) - 1;
      const std::int64_t mine =
          (touched >> b) & 1u ? float_bin_integer(bins[b * stride], b, seen) : 0;
      const std::int64_t bin = warp_sum(mine);
      if (threadIdx.x % 32 == 0 && bin != 0) atomic_add_scaled(*block, bin, float_bin_position(b));
    }
    touched = 0;
  }
  // The common end: the window's integer and where it sits, at the lowest window of the warp
  // (windows up to kWindowSpread fields above it shift up; below 2^57 each), and the warp's
  // touched bins into the block's state; true only if every lane's window is that close, so that
  // the warp can add the integers as they are (block_combine.cuh's warp_window_into_row). Lanes
  // with no window hold a zero, which fits anywhere. The generic end (finish, ten limbs a thread)
  // costs ~500 instructions a warp: docs/tuning.md, 'The warp's end with spread windows and bins'.
  __device__ __forceinline__ bool finish_in_shared_window(std::int64_t& n, int& position) {
    constexpr int kNoWindow = kLastWindowStart + 1;
    const int lowest = __reduce_min_sync(0xffffffffu, start != 0 ? start : kNoWindow);
    const int highest = __reduce_max_sync(0xffffffffu, start);  // 0 where no lane has a window
    if (highest - lowest > kWindowSpread) return false;
    flush_bins_by_warp();
    const int base = lowest != kNoWindow ? lowest : 1;
    n = window_integer_at(hot, start != 0 ? start : base, base, seen);
    position = window_position(base);
    return true;
  }
  // The end: the window and every touched bin as limbs.
  __device__ __forceinline__ void finish(ThreadLimbs& limbs) {
    limbs.add(window_integer(hot, start != 0 ? start : 1, seen), window_position(start));
    for (unsigned left = touched; left != 0; left &= left - 1) {
      const int b = __ffs(int(left)) - 1;
      limbs.add(float_bin_integer(bins[b * stride], b, seen), float_bin_position(b));
    }
  }
};

// __half inputs: one double (float_bins.hpp: kHalfCapacity halves add up exactly in it, whatever
// their exponents), so no bins, no window and no test; groups of 8 as trees.
struct HalfSumThread {
  ExactState<FloatFamily>* block;
  double sum = -0.0;
  int count = 0;
  unsigned seen = 0;

  __device__ explicit HalfSumThread(ExactState<FloatFamily>& state) : block(&state) {}
  template <int N>
  __device__ __forceinline__ void add_batch(const __half (&items)[N]) {
    constexpr int kGroup = N < 8 ? N : 8;
#pragma unroll
    for (int g = 0; g < N; g += kGroup) {
      double d[kGroup];
#pragma unroll
      for (int j = 0; j < kGroup; ++j) d[j] = double(__half2float(items[g + j]));
      sum += FloatWindowThread::pairwise_sum(d);
    }
  }
  __device__ __forceinline__ void add(const __half& x) { sum += double(__half2float(x)); }
  template <int kBatch>
  __device__ __forceinline__ void counted(int added) {
    count += added;
    if (count > kHalfCapacity - kBatch) {
      atomic_add_scaled(*block, half_sum_integer(sum, seen), kHalfPosition);
      sum = -0.0;
      count = 0;
    }
  }
  __device__ __forceinline__ void finish(ThreadLimbs& limbs) {
    limbs.add(half_sum_integer(sum, seen), kHalfPosition);
  }
  // Every lane's sum sits at kHalfPosition (below 2^29 of its units): the warp adds them as they are.
  __device__ __forceinline__ bool finish_in_shared_window(std::int64_t& n, int& position) {
    n = half_sum_integer(sum, seen);
    position = kHalfPosition;
    return true;
  }
};

// Double inputs (double_thread.hpp): batches that fit a window of exponents in three double adds
// an input, the rest through a two-word expansion; what neither holds into the block's state.
template <class Family = DoubleFamily>
struct BlockStateSink {
  ExactState<Family>* block;
  __device__ __forceinline__ void operator()(double v) const { atomic_add_value(*block, v); }
  __device__ __forceinline__ void flush() const {}  // holds nothing
};

// Sums of doubles: what a thread's expansion cannot hold goes through a second two-word expansion
// first. Inputs spanning more binades than one expansion holds (2^-60 to 2^61) left a remainder
// nearly every input, each into the block's state by 64-bit shared atomics that every thread of
// the block contended for: 4M such doubles took 647 µs against CUB's 7 (docs/tuning.md, 'Wide
// data'). Its two words live in shared memory (the words the block's combine takes later),
// touched only where the first expansion leaves a remainder: in registers they put 20-36 more
// bytes of spill in automatic's general double kernel and cost its 16M-64M rows 19-24% on any
// data. What it cannot hold, and anything from 2^900 up (so that its words never overflow: fewer
// than 2^123 adds), still goes to the block's state.
template <class Family = DoubleFamily>
struct CascadeSink {
  ExactState<Family>* block;
  double* hi;  // this thread's second expansion: hi + lo, exactly
  double* lo;
  __device__ CascadeSink(ExactState<Family>& state, double* hi_word, double* lo_word)
      : block(&state), hi(hi_word), lo(lo_word) {
    *hi = -0.0;
    *lo = 0.0;
  }
  // The thread's window's third word (double_thread.hpp): the column after the `hi` words
  // (kernels.cuh, kKeepsThirdWord), found from `hi` rather than kept in registers of its own.
  __device__ __forceinline__ double& third_word() const { return hi[blockDim.x]; }
  __device__ __forceinline__ void operator()(double v) {
    if (!(fabs(v) < 0x1p900)) return atomic_add_value(*block, v);
    DoubleExpansion second{*hi, *lo};
    const double remainder = second.add(v);
    *hi = second.hi;
    *lo = second.lo;
    if (remainder != 0) atomic_add_value(*block, remainder);
  }
  // The second expansion into the block's state, at the thread's end: the seed rungs' (the
  // vectorized rung's combine merges the block's: kernels.cuh, combine_second_expansions).
  __device__ __forceinline__ void flush() {
    atomic_add_value(*block, *hi);
    atomic_add_value(*block, *lo);
  }
};

// Sums of doubles cascade; exact products (ProductFamily, BLAS level-1) keep the block's state as
// their sink: there the cascade's code added spill to the kernels' loops (not measured).
template <class Family>
using ExpansionSink =
    std::conditional_t<std::is_same_v<Family, DoubleFamily>, CascadeSink<Family>, BlockStateSink<Family>>;
template <class Family>
__device__ __forceinline__ ExpansionSink<Family> expansion_sink(ExactState<Family>& state,
                                                                double* hi_word, double* lo_word) {
  if constexpr (std::is_same_v<Family, DoubleFamily>) return CascadeSink<Family>(state, hi_word, lo_word);
  else return BlockStateSink<Family>{&state};
}

// Sums of doubles keep the window's third word (double_thread.hpp) in shared memory too.
template <class Family>
inline constexpr bool kThirdWindowWord = std::is_same_v<Family, DoubleFamily>;

template <bool kWindow, class Family = DoubleFamily>
struct DoubleExpansionThread
    : DoubleThreadSum<ExpansionSink<Family>, kWindow, kThirdWindowWord<Family>> {
  // hi_word, lo_word: this thread's two doubles of shared memory for a second expansion (sums of
  // doubles: hi_word[blockDim.x] a third, CascadeSink::third_word)
  __device__ DoubleExpansionThread(ExactState<Family>& state, double* hi_word, double* lo_word)
      : DoubleThreadSum<ExpansionSink<Family>, kWindow, kThirdWindowWord<Family>>(
            expansion_sink(state, hi_word, lo_word)) {}
  // The end: the window folded, the second expansion into the block's state, the expansion's two
  // words as pieces on the limb grid, for the block's combine.
  __device__ __forceinline__ void finish(Pieces (&pieces)[2]) {
    this->fold();
    this->sink.flush();
    this->note_sign_of_zero();
    const double words[2] = {this->expansion.hi, this->expansion.lo};
#pragma unroll
    for (int w = 0; w < 2; ++w) {
      std::int64_t n = 0;
      int p = 0;
      if (words[w] != 0) integer_and_position(words[w], n, p);
      pieces[w] = pieces_of(n, p + kDoubleUnitOffset<Family>);
    }
  }
};

// Exact products of doubles (ProductFamily): `low` sums their lo terms (blas1_shares.cuh), some
// 53 binades under the hi terms, in an expansion of their own that the block combines apart: hi
// and lo together carry up to 106 bits a product, more than one two-word expansion holds. Only
// the vectorized rung sums products, so finish() (the seed rungs') never meets `low`.
template <bool kWindow, class Family>
struct ProductExpansionThread : DoubleExpansionThread<kWindow, Family> {
  DoubleThreadSum<BlockStateSink<Family>, false> low;
  __device__ ProductExpansionThread(ExactState<Family>& state, double* hi_word, double* lo_word)
      : DoubleExpansionThread<kWindow, Family>(state, hi_word, lo_word),
        low(BlockStateSink<Family>{&state}) {}
};

}  // namespace gpureduce::detail::exact
