// One thread's exact sum of double inputs (correctly rounded sums): a batch that fits the window
// (double_window.hpp) costs three double adds an input, the rest goes through the two-word
// expansion (double_expansion.hpp, six adds and a remainder test an input), and what neither holds
// goes to the sink, an exact adder (on the device: atomics into the block's state). Host and
// device code alike: the host tests run this same policy against MPFR.
#pragma once

#include <cmath>
#include <cstdint>

#include "double_expansion.hpp"
#include "double_window.hpp"

namespace gpureduce::detail::exact {

// magnitude_high_word of kDoubleExpansionLimit: a batch whose largest word reaches it (huge,
// infinite or NaN inputs) goes through the expansion's slow path instead of the window.
inline constexpr std::uint32_t kExpansionLimitWord = std::uint32_t(1000 + 1023) << 20;

// kWindow false: every batch through the expansion (automatic's kernel below kDoubleWindowMinItems,
// where threads have no full batch, and the one-block kernel's fallback).
template <class Sink, bool kWindow = true>
struct DoubleThreadSum {
  Sink sink;
  DoubleExpansion expansion;
  DoubleWindow window;
  int count = 0;         // inputs since the expansion last went into the sink
  int window_count = 0;  // inputs in the window since it last went into the expansion
  unsigned seen = 0;

  GPUREDUCE_HD explicit DoubleThreadSum(Sink s) : sink(s) {}
  // One input through the expansion (the scalar head and tail, the seed rungs, slow batches).
  GPUREDUCE_HD void add(double v) {
    if (!(std::fabs(v) < kDoubleExpansionLimit)) return add_slowly(v);
    const double remainder = expansion.add(v);
    if (remainder != 0) sink(remainder);
  }
  GPUREDUCE_HD void add_slowly(double v) {
    if (std::isnan(v)) {
      seen |= 1u << kNaNs;
    } else if (std::isinf(v)) {
      seen |= 1u << (v < 0 ? kNegativeInfinities : kPositiveInfinities);
    } else {
      seen |= 1u << kNotNegativeZero;
      sink(v);
    }
  }
  // Batches shorter than this (the ragged last vectors: two doubles) take the expansion: opening
  // and folding a window for them cost more than it saved (0.25-0.45 µs a call from 4K to 256K
  // items in graphs, H100, where each thread has one such batch; docs/tuning.md).
  static constexpr int kShortestWindowBatch = 4;
  // A batch through the expansion: one test for inputs out of its range, one for remainders.
  template <int N>
  GPUREDUCE_HD void add_batch_to_expansion(const double (&x)[N]) {
    bool in_range = true;
    GPUREDUCE_UNROLL
    for (int j = 0; j < N; ++j) in_range = in_range && std::fabs(x[j]) < kDoubleExpansionLimit;
    if (!in_range) {
      GPUREDUCE_UNROLL
      for (int j = 0; j < N; ++j) add(x[j]);
      return;
    }
    double remainder[N];
    bool any = false;
    GPUREDUCE_UNROLL
    for (int j = 0; j < N; ++j) {
      remainder[j] = expansion.add(x[j]);
      any = any || remainder[j] != 0;
    }
    if (any) {
      GPUREDUCE_UNROLL
      for (int j = 0; j < N; ++j)
        if (remainder[j] != 0) sink(remainder[j]);
    }
  }
  // A batch: one test that every input fits the window (else the window reopens at this batch's
  // largest, or the batch takes the expansion), one test of the remainders' bits.
  template <int N>
  GPUREDUCE_HD void add_batch(const double (&x)[N]) {
    if constexpr (!kWindow || N < kShortestWindowBatch) return add_batch_to_expansion(x);
    bool fit = true;
    GPUREDUCE_UNROLL
    for (int j = 0; j < N; ++j) fit = fit && window.fits(x[j]);
    if (!fit && !reopen(x)) return add_batch_to_expansion(x);
    if (window_count > DoubleWindow::kCapacity - N) fold();  // room for this batch
    window_count += N;
    double remainder[N];
    std::uint32_t bits = 0;
    GPUREDUCE_UNROLL
    for (int j = 0; j < N; ++j) {
      remainder[j] = window.add(x[j]);
      bits |= any_bits(remainder[j]);
    }
    if (bits == 0) seen |= 1u << kNotNegativeZero;  // every input was on the grid, none -0
    else spill(x, remainder);
  }
  // After each step, told the most the next step can add: the expansion into the sink every
  // kDoubleExpansionCapacity inputs. (The window counts its own, in add_batch: the ragged last
  // vectors and the seed rungs' loop then carry none of its code.)
  template <int kBatch>
  GPUREDUCE_HD void counted(int added) {
    count += added;
    if (count > kDoubleExpansionCapacity - kBatch) flush_expansion();
  }
  GPUREDUCE_HD void flush_expansion() {
    note_sign_of_zero();
    sink(expansion.hi);
    sink(expansion.lo);
    expansion = DoubleExpansion{};
    count = 0;
  }
  // The window's sum into the expansion: before the end, and before it reopens.
  GPUREDUCE_HD void fold() {
    window_count = 0;
    if (window.limit == 0) return;
    const double parts[2] = {window.high_part(), window.low_part()};
    GPUREDUCE_UNROLL
    for (int k = 0; k < 2; ++k) add_to_expansion(parts[k]);
    window.empty();
  }
  GPUREDUCE_HD void note_sign_of_zero() {
    std::uint64_t hi_bits;
    memcpy(&hi_bits, &expansion.hi, 8);
    if (hi_bits != 0x8000000000000000ull) seen |= 1u << kNotNegativeZero;
  }

 private:
  // A finite value below kDoubleExpansionLimit, or a sum of at most kCapacity of them; zeros
  // skipped (an expansion of only -0 inputs keeps its -0).
  GPUREDUCE_HD void add_to_expansion(double v) {
    if (v == 0) return;
    const double remainder = expansion.add(v);
    if (remainder != 0) sink(remainder);
  }
  // The window anew at this batch's largest input, if that is below the expansion's limit.
  template <int N>
  GPUREDUCE_HD bool reopen(const double (&x)[N]) {
    std::uint32_t largest = 0;
    GPUREDUCE_UNROLL
    for (int j = 0; j < N; ++j) {
      const std::uint32_t m = magnitude_high_word(x[j]);
      largest = m > largest ? m : largest;
    }
    if (largest >= kExpansionLimitWord) return false;
    fold();
    window.open(largest);
    return true;
  }
  // Some input left a remainder (bits under the low word's grid, or a -0): remainders into the
  // expansion, the sign of zero noted input by input, and the window closed, so that the next batch
  // reopens it at its own largest input (data that shrank after an outlier fits again).
  template <int N>
  GPUREDUCE_HD void spill(const double (&x)[N], const double (&remainder)[N]) {
    GPUREDUCE_UNROLL
    for (int j = 0; j < N; ++j) {
      std::uint64_t x_bits;
      memcpy(&x_bits, &x[j], 8);
      if (x_bits != 0x8000000000000000ull) seen |= 1u << kNotNegativeZero;
      add_to_expansion(remainder[j]);
    }
    fold();
    window.limit = 0;
  }
};

}  // namespace gpureduce::detail::exact
