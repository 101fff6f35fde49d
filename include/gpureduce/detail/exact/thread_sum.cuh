// One thread's exact sum of its inputs (correctly rounded sums): float-family bins in shared memory
// with the current bin in a register, or a double expansion in registers. What neither can hold
// goes straight into the block's state (block_state.cuh).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "block_state.cuh"
#include "double_expansion.hpp"
#include "float_bins.hpp"

namespace gpureduce::detail::exact {

template <class In>
struct FamilyOf {
  using type = FloatFamily;
};
template <>
struct FamilyOf<double> {
  using type = DoubleFamily;
};
template <class In>
using family_of = typename FamilyOf<In>::type;

template <class In>
__device__ __forceinline__ float widen(const In& x) {
  if constexpr (std::is_same_v<In, __half>) return __half2float(x);
  else if constexpr (std::is_same_v<In, __nv_bfloat16>) return __bfloat162float(x);
  else return x;
}

// Float-family inputs into 16 bins (float_bins.hpp). The bins live in shared memory, one column of
// the block's bins[16][threads] per thread; the two bins met last stay in registers (`hot`, most
// recent first), so inputs of one or two bins cost a conversion, two compares and a double add
// each, with no shared-memory traffic. Two, because data of one magnitude often straddle a bin
// edge: 1.0 is in bin 7 and 2.0 in bin 8, so normal(0, 1) values or small integers alternate.
// Exact: a run in a register is part of its bin's at most kFloatBinCapacity inputs. A bin is
// written first when its first run spills (`touched`); the others count as -0 and are never read.
struct FloatBinsThread {
  double* bins;  // bins[b * stride] is this thread's bin b
  int stride;
  double hot = -0.0, warm = -0.0;  // the sums of the last bin met, and of the one before
  int hot_bin = -1, warm_bin = -1;
  unsigned touched = 0;  // bins written since the last flush
  int count = 0;         // inputs since the last flush
  unsigned seen = 0;

  __device__ FloatBinsThread(double* column, int threads) : bins(column), stride(threads) {}
  // A batch goes in groups of 8. Where every lane's group falls in its hot bin, each is added as a
  // pairwise tree: one LOP3 an input to find out, one branch a group, and a dependency chain of
  // three adds instead of eight. Any order is exact within a bin (see above), so the sums are the
  // ones input-by-input adds would give. A thread's first group opens its first input's bin as the
  // hot one (empty: -0). Groups of 8, not 16: two trees of a batch of 16 at once held too many
  // doubles for automatic's 64 registers (the half kernel spilled 76 bytes, the float kernel
  // issued two of its four loads after the first trees).
  static constexpr int kGroup = 8;
  template <class In, int N>
  __device__ __forceinline__ void add_batch(const In (&items)[N]) {
    constexpr int kSize = N < kGroup ? N : kGroup;
    static_assert(N % kSize == 0, "whole groups");
#pragma unroll
    for (int g = 0; g < N; g += kSize) add_group<In, kSize>(items + g);
  }
  template <class In, int N>
  __device__ __forceinline__ void add_group(const In* items) {
    float v[N];
#pragma unroll
    for (int j = 0; j < N; ++j) v[j] = widen(items[j]);
    if (hot_bin < 0) hot_bin = float_bin(v[0]);
    // An input outside the hot bin leaves a bit of its bin field set here.
    const std::uint32_t hot_field = std::uint32_t(hot_bin) << kFloatBinShift;
    std::uint32_t outside = 0;
#pragma unroll
    for (int j = 0; j < N; ++j) outside |= (__float_as_uint(v[j]) ^ hot_field) & kFloatBinField;
    // Decided for the whole warp: a lane taking the slower path would make the warp run both.
    if (!__all_sync(__activemask(), outside == 0)) return add_group_slowly<N>(v);
    double d[N];
#pragma unroll
    for (int j = 0; j < N; ++j) d[j] = double(v[j]);
    hot += pairwise_sum(d);
  }
  // The other groups. All in the two register bins (zeros in the hot one): two trees, where -0
  // stands in for the other bin's inputs (it leaves every sum as it was, the sign of an exact zero
  // included). Else input by input.
  template <int N>
  __device__ __forceinline__ void add_group_slowly(const float (&v)[N]) {
    unsigned hot_inputs = 0, known_inputs = 0;  // bit j: input j is in the hot (a known) bin
#pragma unroll
    for (int j = 0; j < N; ++j) {  // bitwise, not ||: no branch per input
      const int b = float_bin(v[j]);
      const bool in_hot = (b == hot_bin) | (v[j] == 0.0f);  // hot_bin >= 0 here: bin_of's rule
      hot_inputs |= unsigned(in_hot) << j;
      known_inputs |= unsigned(in_hot | (b == warm_bin)) << j;
    }
    if (known_inputs != (1u << N) - 1) {
#pragma unroll
      for (int j = 0; j < N; ++j) add(v[j]);
      return;
    }
    double h[N], w[N];
#pragma unroll
    for (int j = 0; j < N; ++j) {
      const bool in_hot = (hot_inputs >> j) & 1u;
      h[j] = in_hot ? double(v[j]) : -0.0;
      w[j] = in_hot ? -0.0 : double(v[j]);
    }
    hot += pairwise_sum(h);
    warm += pairwise_sum(w);
    if (hot_inputs == 0) {  // all in the warm bin: it becomes the hot one, so the next group is fast
      const double sum = hot;
      hot = warm;
      warm = sum;
      const int bin = hot_bin;
      hot_bin = warm_bin;
      warm_bin = bin;
    }
  }
  // An input's bin, a zero's being the hot one: a zero changes no bin's value, only the sign of an
  // exact zero (-0 + +0 is +0 in any bin), so it joins the current bin rather than opening bin 0
  // (zeros are common: ReLU outputs).
  __device__ __forceinline__ int bin_of(float v) const {
    const int b = float_bin(v);
    return v == 0.0f && hot_bin >= 0 ? hot_bin : b;
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
    const int b = bin_of(v);
    if (b == hot_bin) {
      hot += double(v);
    } else if (b == warm_bin) {
      warm += double(v);
    } else {  // a third bin: the one before last spills, the last becomes the one before
      spill(warm_bin, warm);
      warm_bin = hot_bin;
      warm = hot;
      hot_bin = b;
      hot = double(v);
    }
  }
  __device__ __forceinline__ void spill(int b, double& sum) {
    if (b < 0) return;
    double& bin = bins[b * stride];
    if (touched & (1u << b)) {
      bin += sum;
    } else {
      bin = sum;
      touched |= 1u << b;
    }
    sum = -0.0;
  }
  __device__ __forceinline__ void spill_hot() {
    spill(hot_bin, hot);
    spill(warm_bin, warm);
    hot_bin = warm_bin = -1;
  }
  // After `added` more inputs: empties the bins into the block's state when the next batch could
  // pass the capacity.
  template <int kBatch>
  __device__ __forceinline__ void counted(int added, ExactState<FloatFamily>& block) {
    count += added;
    if (count > kFloatBinCapacity - kBatch) {
      spill_hot();
      for (unsigned left = touched; left != 0; left &= left - 1) {
        const int b = __ffs(int(left)) - 1;
        atomic_add_scaled(block, float_bin_integer(bins[b * stride], b, seen), float_bin_position(b));
      }
      touched = 0;
      count = 0;
    }
  }
  // The end: each touched bin becomes its integer (in place, as long long; with kEveryBin the
  // others become 0, for combines that read every thread's column); returns the nonzero ones.
  template <bool kEveryBin>
  __device__ __forceinline__ unsigned finish() {
    spill_hot();
    auto* integers = reinterpret_cast<long long*>(bins);
    unsigned nonzero = 0;
    if constexpr (kEveryBin) {
      double sums[kFloatBins];
#pragma unroll
      for (int b = 0; b < kFloatBins; ++b) sums[b] = (touched >> b) & 1u ? bins[b * stride] : -0.0;
#pragma unroll
      for (int b = 0; b < kFloatBins; ++b) {
        const std::int64_t n = float_bin_integer(sums[b], b, seen);
        integers[b * stride] = n;
        nonzero |= unsigned(n != 0) << b;
      }
    } else {
      for (unsigned left = touched; left != 0; left &= left - 1) {
        const int b = __ffs(int(left)) - 1;
        const std::int64_t n = float_bin_integer(bins[b * stride], b, seen);
        integers[b * stride] = n;
        nonzero |= unsigned(n != 0) << b;
      }
    }
    return nonzero;
  }
};

// Double inputs into a two-word expansion (double_expansion.hpp); remainders, huge values, and
// the expansion every kDoubleExpansionCapacity inputs go into the block's state.
struct DoubleExpansionThread {
  DoubleExpansion expansion;
  ExactState<DoubleFamily>* block;
  int count = 0;
  unsigned seen = 0;

  __device__ explicit DoubleExpansionThread(ExactState<DoubleFamily>& state) : block(&state) {}
  __device__ __forceinline__ void add(double v) {
    if (!(fabs(v) < kDoubleExpansionLimit)) return add_slowly(v);
    const double remainder = expansion.add(v);
    if (remainder != 0) atomic_add_value(*block, remainder);
  }
  // A batch: one test for inputs out of the expansion's range, one for remainders.
  template <int N>
  __device__ __forceinline__ void add_batch(const double (&items)[N]) {
    bool in_range = true;
#pragma unroll
    for (int j = 0; j < N; ++j) in_range = in_range && fabs(items[j]) < kDoubleExpansionLimit;
    if (!in_range) {
#pragma unroll
      for (int j = 0; j < N; ++j) add(items[j]);
      return;
    }
    double remainder[N];
    bool any = false;
#pragma unroll
    for (int j = 0; j < N; ++j) {
      remainder[j] = expansion.add(items[j]);
      any = any || remainder[j] != 0;
    }
    if (any)
#pragma unroll
      for (int j = 0; j < N; ++j) atomic_add_value(*block, remainder[j]);
  }
  __device__ void add_slowly(double v) {
    if (isnan(v)) {
      seen |= 1u << kNaNs;
    } else if (isinf(v)) {
      seen |= 1u << (v < 0 ? kNegativeInfinities : kPositiveInfinities);
    } else {
      seen |= 1u << kNotNegativeZero;
      atomic_add_value(*block, v);
    }
  }
  __device__ __forceinline__ void note_sign_of_zero() {
    if (__double_as_longlong(expansion.hi) != static_cast<long long>(0x8000000000000000ull))
      seen |= 1u << kNotNegativeZero;
  }
  template <int kBatch>
  __device__ __forceinline__ void counted(int added, ExactState<DoubleFamily>&) {
    count += added;
    if (count > kDoubleExpansionCapacity - kBatch) {
      note_sign_of_zero();
      atomic_add_value(*block, expansion.hi);
      atomic_add_value(*block, expansion.lo);
      expansion = DoubleExpansion{};
      count = 0;
    }
  }
  // The end: the expansion's two words as pieces on the limb grid, for the block's combine.
  __device__ __forceinline__ void finish(Pieces (&pieces)[2]) {
    note_sign_of_zero();
    const double words[2] = {expansion.hi, expansion.lo};
#pragma unroll
    for (int w = 0; w < 2; ++w) {
      std::int64_t n = 0;
      int p = 0;
      if (words[w] != 0) integer_and_position(words[w], n, p);
      pieces[w] = pieces_of(n, p);
    }
  }
};

}  // namespace gpureduce::detail::exact
