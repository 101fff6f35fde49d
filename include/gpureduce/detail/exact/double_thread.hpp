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
// kThirdWord: the window has a third word (DoubleWindow::third_bias), kept by the sink
// (`sink.third_word()`: on the device shared memory, as in registers it spilled automatic's general
// double kernel, docs/tuning.md 'Wide data, continued'), touched only where a batch leaves the low
// word remainders and where the window folds; 0 while it holds nothing. Two words hold 33 binades
// under the window's top, three 76: doubles of 2^-20 to 2^21 then stay on the window's path
// instead of closing it nearly every batch.
template <class Sink, bool kWindow = true, bool kThirdWord = false>
struct DoubleThreadSum {
  Sink sink;
  DoubleExpansion expansion;
  DoubleWindow window;
  int count = 0;         // inputs since the expansion last went into the sink
  int window_count = 0;  // inputs in the window since it last went into the expansion
  unsigned seen = 0;
  // The third word in use, until it first leaves a remainder (add_to_third_word). Its state as
  // flags in a register instead (holds something; off), which would spare the fold its shared
  // load, spilled 4 bytes in automatic's general double kernel: f64 16M-64M 1-3% slower.
  bool third_on = kThirdWord;

  GPUREDUCE_HD explicit DoubleThreadSum(Sink s) : sink(s) {
    if constexpr (kThirdWord) sink.third_word() = 0;
  }
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
    if (window_count > DoubleWindow::kCapacity - N) {  // room for this batch
      // a window whose third word took inputs reopens at this batch: data that shrank after an
      // outlier go back to two words
      if (fold()) window.open(largest_high_word(x));
    }
    window_count += N;
    double remainder[N];
    std::uint32_t bits = 0;
    GPUREDUCE_UNROLL
    for (int j = 0; j < N; ++j) {
      remainder[j] = window.add(x[j]);
      bits |= any_bits(remainder[j]);
    }
    if constexpr (kThirdWord)
      if (bits != 0 && third_on && window.holds_third()) bits = add_to_third_word(remainder);
    if (bits == 0) seen |= 1u << kNotNegativeZero;  // every input on the grid, none -0 (its
    else spill(remainder);                          // remainders stay -0)
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
  // The window's sum into the expansion: before the end, and before it reopens. True if the third
  // word held something.
  GPUREDUCE_HD bool fold() {
    window_count = 0;
    if (window.limit == 0) return false;
    const double parts[2] = {window.high_part(), window.low_part()};
    GPUREDUCE_UNROLL
    for (int k = 0; k < 2; ++k) add_to_expansion(parts[k]);
    window.empty();
    if constexpr (kThirdWord) {
      double& third = sink.third_word();
      if (third != 0) {
        add_to_expansion(third - window.third_bias());
        third = 0;
        return true;
      }
    }
    return false;
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
  // The largest magnitude_high_word of a batch.
  template <int N>
  static GPUREDUCE_HD std::uint32_t largest_high_word(const double (&x)[N]) {
    std::uint32_t largest = 0;
    GPUREDUCE_UNROLL
    for (int j = 0; j < N; ++j) {
      const std::uint32_t m = magnitude_high_word(x[j]);
      largest = m > largest ? m : largest;
    }
    return largest;
  }
  // The window anew at this batch's largest input, if that is below the expansion's limit.
  template <int N>
  GPUREDUCE_HD bool reopen(const double (&x)[N]) {
    const std::uint32_t largest = largest_high_word(x);
    if (largest >= kExpansionLimitWord) return false;
    fold();
    window.open(largest);
    return true;
  }
  // The low word's remainders into the third word (a Fast2Sum each, in order): what it could not
  // hold (bits under its grid, or a -0) left in `remainder`, and their bits returned. Bits under
  // its grid turn the third word off for good: data spanning more than three words hold took
  // their batches through all three and the expansion (doubles of 2^-60 to 2^61, H200, graphs:
  // 4M 74.5 -> 107 µs, 64M 312 -> 562).
  template <int N>
  GPUREDUCE_HD std::uint32_t add_to_third_word(double (&remainder)[N]) {
    double& third = sink.third_word();
    double t = third != 0 ? third : window.third_bias();
    std::uint32_t bits = 0;
    bool lost = false;
    GPUREDUCE_UNROLL
    for (int j = 0; j < N; ++j) {
      const double a = t + remainder[j];
      remainder[j] = remainder[j] - (a - t);
      t = a;
      bits |= any_bits(remainder[j]);
      lost = lost || remainder[j] != 0;  // -0 (an input -0) is not a loss
    }
    third = t;
    third_on = !lost;
    return bits;
  }
  // Some input left a remainder (bits under the window's grid, or a -0): remainders into the
  // expansion, the sign of zero noted input by input, and the window closed, so that the next batch
  // reopens it at its own largest input (data that shrank after an outlier fits again). An input's
  // remainder is -0 exactly where the input was (each word's Fast2Sum turns -0 into -0, and a
  // difference into -0 only from -0), so the inputs need not stay in registers for this.
  template <int N>
  GPUREDUCE_HD void spill(const double (&remainder)[N]) {
    GPUREDUCE_UNROLL
    for (int j = 0; j < N; ++j) {
      std::uint64_t bits;
      memcpy(&bits, &remainder[j], 8);
      if (bits != 0x8000000000000000ull) seen |= 1u << kNotNegativeZero;
      add_to_expansion(remainder[j]);
    }
    fold();
    window.limit = 0;
  }
};

}  // namespace gpureduce::detail::exact
