// The arithmetic of correctly rounded sums (detail/exact/), checked on the host against MPFR:
// the final rounding on random exact states, and the per-thread accumulation (float bins, double
// expansions) run as the device runs it, with its flushes, on every input shape of the issue.
// The GPU tests check that the kernels run this arithmetic; these check the arithmetic itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/exact_inputs.hpp"
#include "common/integer_rounding.hpp"
#include "common/mpfr_oracle.hpp"
#include "gpureduce/detail/exact/double_thread.hpp"
#include "gpureduce/detail/exact/float_bins.hpp"
#include "gpureduce/detail/exact/round.hpp"

namespace gpureduce::testing {
namespace {

using namespace detail::exact;

template <class T>
std::string hex(const T& v) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  std::string s = "0x";
  char buf[3];
  for (int i = int(sizeof(T)) - 1; i >= 0; --i) {
    std::snprintf(buf, sizeof buf, "%02x", b[i]);
    s += buf;
  }
  return s;
}
template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}
// Bitwise equal to the oracle; a NaN must be the canonical quiet NaN (MPFR's carries no sign).
template <class T>
bool same_result(const T& got, const T& oracle) {
  if (std::isnan(oracle)) return same_bits(got, std::numeric_limits<T>::quiet_NaN());
  return same_bits(got, oracle);
}

// ---- The device's accumulation, one "thread" at a time ------------------------------------------

// Threads take inputs t, t + threads, ...: for floats and bfloat16 the window and the bins
// (thread_sum.cuh's FloatWindowThread: groups of up to 8, a window opened by a thread's first group
// and moved by a group mostly outside it, the rest into bins), for halves one double; everything
// flushed before `capacity` inputs (the device's capacities are kFloatBinCapacity and
// kHalfCapacity; a smaller one exercises the flush).
template <class In>
ExactState<FloatFamily> model_float_family(const std::vector<In>& x, int threads, int capacity) {
  ExactState<FloatFamily> total{};
  constexpr bool kHalf = std::is_same_v<In, __half>;
  const int group = capacity < 8 ? capacity : 8;
  for (int t = 0; t < threads; ++t) {
    double bins[kFloatBins];
    for (double& b : bins) b = -0.0;
    double hot = -0.0;
    int start = 0;
    unsigned seen = 0;
    int count = 0;
    auto flush_window = [&] {
      if (kHalf) add_scaled(total.limb, half_sum_integer(hot, seen), kHalfPosition);
      else add_scaled(total.limb, window_integer(hot, start != 0 ? start : 1, seen), window_position(start));
      hot = -0.0;
    };
    auto flush = [&] {
      flush_window();
      for (int b = 0; b < kFloatBins; ++b) {
        add_scaled(total.limb, float_bin_integer(bins[b], b, seen), float_bin_position(b));
        bins[b] = -0.0;
      }
      count = 0;
    };
    std::vector<float> mine;
    for (std::size_t i = std::size_t(t); i < x.size(); i += std::size_t(threads)) mine.push_back(float(x[i]));
    for (std::size_t g = 0; g < mine.size(); g += std::size_t(group)) {
      const std::size_t end = std::min(mine.size(), g + std::size_t(group));
      const int size = int(end - g);
      if (count + size > capacity) flush();
      count += size;
      if (kHalf) {
        for (std::size_t i = g; i < end; ++i) hot += double(mine[i]);
        continue;
      }
      auto bits = [&](std::size_t i) {
        std::uint32_t u;
        std::memcpy(&u, &mine[i], 4);
        return u;
      };
      int inside = 0, largest = 0;
      for (std::size_t i = g; i < end; ++i) {
        inside += in_window(bits(i), start);
        const int field = int((bits(i) >> 23) & 0xffu);
        if (field < 255 && field > largest) largest = field;
      }
      if ((start == 0 || 2 * inside < size) && largest > 0) {
        if (start != 0) flush_window();
        start = window_start_for(largest);
      }
      for (std::size_t i = g; i < end; ++i) {
        if (in_window(bits(i), start)) hot += double(mine[i]);
        else bins[float_bin(mine[i])] += double(mine[i]);
      }
    }
    flush();
    for (int k = kNaNs; k < kCounts; ++k) total.count[k] += (seen >> k) & 1u;
  }
  total.count[kItems] = std::int64_t(x.size());
  return total;
}

void add_double_exactly(ExactState<DoubleFamily>& state, double v, unsigned& seen) {
  std::int64_t n;
  int p;
  if (std::isnan(v)) {
    seen |= 1u << kNaNs;
  } else if (std::isinf(v)) {
    seen |= 1u << (v < 0 ? kNegativeInfinities : kPositiveInfinities);
  } else if (v != 0) {
    integer_and_position(v, n, p);
    add_scaled(state.limb, n, p);
  }
}

// The device's double path (double_thread.hpp, the code the kernels run) with a sink that adds
// exactly and counts its calls: each thread's inputs in batches of 8 (the vectorized loop's), then
// of 2 (its ragged last vectors), then one (the scalar tail). With a `capacity` below the device's
// the window is folded and the expansion flushed every `capacity` inputs as well.
struct CountingSink {
  ExactState<DoubleFamily>* total;
  unsigned* seen;
  int* calls;
  double* third = nullptr;  // the window's third word, where the thread has one
  double& third_word() const { return *third; }
  void operator()(double v) const {
    ++*calls;
    add_double_exactly(*total, v, *seen);
  }
};

// kThirdWord: the window with its third word, as sums of doubles run it (thread_sum.cuh).
template <bool kThirdWord = false>
ExactState<DoubleFamily> model_double(const std::vector<double>& x, int threads, int capacity,
                                      int* sink_calls = nullptr) {
  ExactState<DoubleFamily> total{};
  int calls = 0;
  for (int t = 0; t < threads; ++t) {
    unsigned seen = 0;
    std::vector<double> mine;
    for (std::size_t i = std::size_t(t); i < x.size(); i += std::size_t(threads))
      mine.push_back(x[i]);
    double third_word;
    DoubleThreadSum<CountingSink, true, kThirdWord> thread(
        CountingSink{&total, &seen, &calls, &third_word});
    std::size_t i = 0;
    int since_flush = 0;
    auto step = [&](int added) {
      thread.template counted<8>(added);
      if ((since_flush += added) >= capacity) {
        thread.fold();
        thread.flush_expansion();
        since_flush = 0;
      }
    };
    for (; i + 8 <= mine.size(); i += 8) {
      double batch[8];
      std::copy(mine.begin() + std::ptrdiff_t(i), mine.begin() + std::ptrdiff_t(i + 8), batch);
      thread.add_batch(batch);
      step(8);
    }
    for (; i + 2 <= mine.size(); i += 2) {
      const double batch[2] = {mine[i], mine[i + 1]};
      thread.add_batch(batch);
      step(2);
    }
    if (i < mine.size()) {
      thread.add(mine[i]);
      step(1);
    }
    thread.fold();
    thread.flush_expansion();
    seen |= thread.seen;
    for (int k = kNaNs; k < kCounts; ++k) total.count[k] += (seen >> k) & 1u;
  }
  total.count[kItems] = std::int64_t(x.size());
  if (sink_calls) *sink_calls = calls;
  return total;
}

template <class In, class Out, bool kThirdWord = false>
Out model_sum(const std::vector<In>& x, int threads, int capacity) {
  if constexpr (std::is_same_v<In, double>)
    return round_to_nearest_even<Out>(model_double<kThirdWord>(x, threads, capacity));
  else
    return round_to_nearest_even<Out>(model_float_family(x, threads, capacity));
}

template <class In, class Out, bool kThirdWord = false>
void check_every_shape(std::uint64_t seed) {
  ExactInputs<In> inputs(seed);
  for (ExactShape shape : kAllExactShapes)
    for (std::int64_t n : {1, 2, 3, 31, 33, 257, 1000, 4097})
      for (int threads : {1, 5, 64})
        for (int capacity : {3, std::is_same_v<In, __half> ? kHalfCapacity : kFloatBinCapacity}) {
          const std::vector<In> x = inputs.make(shape, n);
          const Out want = correctly_rounded_sum<Out>(x.data(), n);
          const Out got = model_sum<In, Out, kThirdWord>(x, threads, capacity);
          ASSERT_TRUE(same_result(got, want))
              << to_string(shape) << " n=" << n << " threads=" << threads << " capacity=" << capacity
              << " seed=" << seed << ": " << hex(got) << " (" << double(got) << ") vs MPFR " << hex(want)
              << " (" << double(want) << ")";
        }
}

std::uint64_t seed() {
  static std::uint64_t s = std::random_device{}();
  return ++s;
}

TEST(ExactModel, FloatToFloatMatchesMpfr) { check_every_shape<float, float>(seed()); }
TEST(ExactModel, FloatToDoubleMatchesMpfr) { check_every_shape<float, double>(seed()); }
TEST(ExactModel, HalfToFloatMatchesMpfr) { check_every_shape<__half, float>(seed()); }
TEST(ExactModel, BFloat16ToFloatMatchesMpfr) { check_every_shape<__nv_bfloat16, float>(seed()); }
TEST(ExactModel, DoubleToDoubleMatchesMpfr) { check_every_shape<double, double>(seed()); }
TEST(ExactModel, DoubleWithThirdWordMatchesMpfr) { check_every_shape<double, double, true>(seed()); }

// The capacities at their worst case, one thread: a window opened by a value of field f reaches f + 2,
// so kFloatBinCapacity inputs of its largest magnitude plus one on its lowest place add up to just
// below 2^53 of its units; kHalfCapacity halves of the largest magnitude plus the smallest
// subnormal likewise. Exact only if the capacities are right.
TEST(ExactModel, CapacitiesHoldTheirWorstCase) {
  for (int f : {10, 127, 200, 237}) {
    std::vector<float> x(8, std::ldexp(1.5f, f - 127));
    x.push_back(std::ldexp(1.0f + 0x1p-23f, f - 13 - 127));
    x.resize(kFloatBinCapacity, std::ldexp(2.0f - 0x1p-23f, f + 2 - 127));
    ASSERT_TRUE(same_result(model_sum<float, float>(x, 1, kFloatBinCapacity),
                            correctly_rounded_sum<float>(x.data(), std::int64_t(x.size()))))
        << "window opened at field " << f;
    ASSERT_TRUE(same_result(model_sum<float, double>(x, 1, kFloatBinCapacity),
                            correctly_rounded_sum<double>(x.data(), std::int64_t(x.size()))))
        << "window opened at field " << f;
  }
  std::vector<__half> h(kHalfCapacity, __float2half(65504.0f));
  h[0] = __float2half(0x1p-24f);
  ASSERT_TRUE(same_result(model_sum<__half, float>(h, 1, kHalfCapacity),
                          correctly_rounded_sum<float>(h.data(), std::int64_t(h.size()))));
}

// x (whole batches of 8) into one thread's sum, batch by batch, counted after each but the last.
template <class Thread>
void add_in_batches_of_8(Thread& thread, const std::vector<double>& x) {
  for (std::size_t i = 0; i < x.size(); i += 8) {
    double batch[8];
    std::copy(x.begin() + std::ptrdiff_t(i), x.begin() + std::ptrdiff_t(i + 8), batch);
    thread.add_batch(batch);
    if (i + 8 < x.size()) thread.template counted<8>(8);
  }
}

// The double window at its worst case: a first batch of 1.5 * 2^e opens it at top e + 3; then
// inputs just below 2^top of one sign whose parts under the high word's grid, 2^(top - 42), are
// just under half of it (both words' largest drift), to kCapacity inputs, the last batch of them
// with their last bit on the low word's grid, 2^(top - 33 - 52). Exact only if the biases and the
// capacity are right; and on the window's path throughout (the expansion untouched until the
// end).
TEST(ExactModel, DoubleWindowHoldsItsWorstCase) {
  for (int e : {-980, -500, 0, 3, 600, 996}) {
    for (double sign : {1.0, -1.0}) {
      const int top = e + 3;
      std::vector<double> x(8, sign * std::ldexp(1.5, e));
      x.resize(DoubleWindow::kCapacity - 8, sign * std::ldexp(1.0 - 0x1p-43 - 0x1p-53, top));
      x.resize(DoubleWindow::kCapacity, sign * std::ldexp(1.0 + 0x1p-52, top - 33));
      ExactState<DoubleFamily> total{};
      unsigned seen = 0;
      int calls = 0;
      DoubleThreadSum<CountingSink> thread(CountingSink{&total, &seen, &calls});
      add_in_batches_of_8(thread, x);
      ASSERT_TRUE(thread.window.limit != 0 && same_bits(thread.expansion.hi, -0.0))
          << "e=" << e << ": an input left the window's path";
      thread.fold();
      thread.flush_expansion();
      total.count[kItems] = std::int64_t(x.size());
      total.count[kNotNegativeZero] = 1;
      const double got = round_to_nearest_even<double>(total);
      ASSERT_TRUE(same_result(got, correctly_rounded_sum<double>(x.data(), std::int64_t(x.size()))))
          << "e=" << e << " sign=" << sign;
      ASSERT_EQ(calls, 2);
    }
  }
}

// At the lowest top the low word's grid is 2^-1074: subnormals and the least normals stay on the
// window's path, and add up exactly.
TEST(ExactModel, DoubleWindowHoldsSubnormals) {
  std::vector<double> x(8, 0x1p-1000);
  x.resize(64, -0x1p-1074);
  x.resize(128, 0x1.0000000000001p-1022);
  ExactState<DoubleFamily> total{};
  unsigned seen = 0;
  int calls = 0;
  DoubleThreadSum<CountingSink> thread(CountingSink{&total, &seen, &calls});
  add_in_batches_of_8(thread, x);
  ASSERT_TRUE(thread.window.limit != 0 && same_bits(thread.expansion.hi, -0.0));
  EXPECT_EQ(thread.window.top(), DoubleWindow::kLowestTop);
  EXPECT_EQ(calls, 0);
  const double got = round_to_nearest_even<double>(model_double(x, 1, kDoubleExpansionCapacity));
  EXPECT_TRUE(same_result(got, correctly_rounded_sum<double>(x.data(), std::int64_t(x.size()))));
}

// The third word at its worst case: a first batch of 1.5 * 2^e opens the window at top e + 3; then
// inputs 2^(top - 76) + 2^(top - 86) - 2^(top - 128), at the third word's lowest magnitude, whose
// part under the low word's grid, 2^(top - 85), is just under half of it (the third word's largest
// drift) and ends on the third word's grid, 2^(top - 128), to kCapacity inputs. On the window's
// path throughout only if the third bias is low enough (one binade higher fails), and exact. Below
// kLowestThirdTop there is no third word: the same inputs close the window, and still add up
// exactly.
TEST(ExactModel, DoubleWindowThirdWordHoldsItsWorstCase) {
  for (int e : {DoubleWindow::kLowestThirdTop - 3, -500, 0, 3, 600, 996, -960}) {
    for (double sign : {1.0, -1.0}) {
      const int top = e + 3;
      std::vector<double> x(8, sign * std::ldexp(1.5, e));
      const double drifting =
          std::ldexp(1.0, top - 76) + (std::ldexp(1.0, top - 86) - std::ldexp(1.0, top - 128));
      x.resize(DoubleWindow::kCapacity, sign * drifting);
      const double want = correctly_rounded_sum<double>(x.data(), std::int64_t(x.size()));
      const double got = round_to_nearest_even<double>(model_double<true>(x, 1, kDoubleExpansionCapacity));
      ASSERT_TRUE(same_result(got, want)) << "e=" << e << " sign=" << sign << ": " << hex(got)
                                          << " vs MPFR " << hex(want);
      if (top < DoubleWindow::kLowestThirdTop) continue;
      ExactState<DoubleFamily> total{};
      unsigned seen = 0;
      int calls = 0;
      double third_word;
      DoubleThreadSum<CountingSink, true, true> thread(
          CountingSink{&total, &seen, &calls, &third_word});
      add_in_batches_of_8(thread, x);
      ASSERT_TRUE(thread.window.limit != 0 && same_bits(thread.expansion.hi, -0.0) && calls == 0)
          << "e=" << e << ": an input left the window's path";
      ASSERT_NE(third_word, 0.0) << "e=" << e << ": the third word took nothing";
    }
  }
}

// Data that shrank after an outlier: a first batch of 2^40 opens the window; inputs near 1 (40
// binades under its top) then leave the low word remainders, which the third word takes; the
// capacity's fold then reopens the window at the next batch, down where the data are, with the
// third word empty; a batch spanning more than three words turns the third word off for good.
// Exact throughout.
TEST(ExactModel, DoubleWindowThirdWordFollowsShrinkingData) {
  std::vector<double> x(8, 0x1.8p40);
  for (int i = 0; i < DoubleWindow::kCapacity + 8; ++i) x.push_back(1.0 + 0x1p-52 * (i + 1));
  ExactState<DoubleFamily> total{};
  unsigned seen = 0;
  int calls = 0;
  double third_word;
  DoubleThreadSum<CountingSink, true, true> thread(CountingSink{&total, &seen, &calls, &third_word});
  std::vector<double> first(x.begin(), x.begin() + 16);
  add_in_batches_of_8(thread, first);
  EXPECT_EQ(thread.window.top(), 40 + DoubleWindow::kSlack + 1);
  EXPECT_NE(third_word, 0.0);
  std::vector<double> rest(x.begin() + 16, x.end());
  add_in_batches_of_8(thread, rest);
  EXPECT_EQ(thread.window.top(), 0 + DoubleWindow::kSlack + 1) << "the window did not come down";
  EXPECT_TRUE(thread.third_on);
  double wide[8] = {0x1.8p40, 0x1.0000000000001p-50, 1, 1, 1, 1, 1, 1};
  thread.add_batch(wide);
  EXPECT_FALSE(thread.third_on) << "a batch spanning 90 binades left the third word on";
  x.insert(x.end(), wide, wide + 8);
  const double got = round_to_nearest_even<double>(model_double<true>(x, 1, kDoubleExpansionCapacity));
  EXPECT_TRUE(same_result(got, correctly_rounded_sum<double>(x.data(), std::int64_t(x.size()))));
}

// Uniform doubles take the window's path: after 31 batches (below a fold) the window is open and
// the expansion untouched. Inputs 2^-40 times smaller than the batch that opened it leave
// remainders (the window then closes and the expansion takes them), and still add up exactly.
TEST(ExactModel, DoubleWindowTakesEverydayInputs) {
  ExactInputs<double> inputs(seed());
  const std::vector<double> everyday = inputs.make(ExactShape::everyday, 31 * 8);
  ExactState<DoubleFamily> total{};
  unsigned seen = 0;
  int calls = 0;
  DoubleThreadSum<CountingSink> thread(CountingSink{&total, &seen, &calls});
  double batch[8];
  for (std::size_t i = 0; i < everyday.size(); i += 8) {
    std::copy(everyday.begin() + std::ptrdiff_t(i), everyday.begin() + std::ptrdiff_t(i + 8),
              batch);
    thread.add_batch(batch);
    thread.counted<8>(8);
  }
  EXPECT_NE(thread.window.limit, 0u);
  EXPECT_TRUE(same_bits(thread.expansion.hi, -0.0));
  EXPECT_EQ(calls, 0);
  batch[3] = std::ldexp(batch[3], -40);
  thread.add_batch(batch);
  EXPECT_EQ(thread.window.limit, 0u);
  EXPECT_FALSE(same_bits(thread.expansion.hi, -0.0));

  std::vector<double> tiny = inputs.make(ExactShape::everyday, 4096);
  for (std::size_t i = 9; i < tiny.size(); i += 64) tiny[i] = std::ldexp(tiny[i], -40);
  const double got = round_to_nearest_even<double>(model_double(tiny, 4, kDoubleExpansionCapacity));
  EXPECT_TRUE(
      same_result(got, correctly_rounded_sum<double>(tiny.data(), std::int64_t(tiny.size()))));
}

// Whether a bfloat16 (its bits) lies in the window starting at `start` or in the
// kWidenedFields fields below it, input by input: its field, a subnormal's as 0.
bool in_widened_window(std::uint16_t half, int start) {
  const int field = (half >> 7) & 0xff;
  const int bottom = std::max(start - Bfloat16PairBounds::kWidenedFields, 0);
  return (half & 0x7fff) == 0 || (start != 0 && field >= bottom && field < start + 16);
}

// The bfloat16 batch tests (Bfloat16PairBounds, two inputs a word) against in_window and
// in_widened_window input by input, on batches of 16 words mostly in a random window with a few
// inputs at its edges and the widened band's, zeros, field 254, subnormals, infinities and NaN.
// Every answer must occur.
TEST(ExactModel, Bfloat16PairBoundsAgreeWithTheWindow) {
  std::mt19937_64 rng(seed());
  auto uniform = [&](int lo, int hi) { return int(rng() % std::uint64_t(hi - lo + 1)) + lo; };
  int inside = 0, outside = 0, widened = 0, beyond = 0;
  for (int trial = 0; trial < 200000; ++trial) {
    const int start = uniform(0, kLastWindowStart);
    const int outliers = uniform(0, 2);  // per batch, of the kinds below
    const bool band = uniform(0, 1) == 0;  // a few inputs in the 16 fields below the window
    std::uint32_t word[16];
    std::uint16_t half[32];
    for (int j = 0; j < 32; ++j) {
      int field = uniform(start, start + 15);
      const int kind = outliers > 0 && uniform(0, 15) == 0 ? uniform(0, 8) : band && uniform(0, 7) == 0 ? 9 : 10;
      if (kind == 0) field = start - 1;
      if (kind == 1) field = start + 16;
      if (kind == 2) field = 254;
      if (kind == 3) field = 0;
      if (kind == 4) field = 255;
      if (kind == 6) field = start - Bfloat16PairBounds::kWidenedFields;
      if (kind == 7 || kind == 8) field = start - Bfloat16PairBounds::kWidenedFields - 1;
      if (kind == 9) field = uniform(start - Bfloat16PairBounds::kWidenedFields, start - 1);
      if (field < 0 || field > 255) field = start;
      std::uint32_t mantissa = std::uint32_t(uniform(0, 127));
      if (kind == 3 && mantissa == 0) mantissa = 1;  // a subnormal, not a zero
      std::uint16_t h = std::uint16_t((field << 7) | mantissa | (uniform(0, 1) << 15));
      if (kind == 5 || uniform(0, 15) == 0) h = std::uint16_t(uniform(0, 1) << 15);  // +-0
      half[j] = h;
    }
    bool want = start != 0, want_widened = start != 0;
    int largest_field = 0;  // of the largest magnitude: where the window opens (thread_sum.cuh)
    for (int j = 0; j < 32; ++j) {
      largest_field = std::max(largest_field, int((half[j] & 0x7fffu) >> 7));
      want = want && in_window(std::uint32_t(half[j]) << 16, start) && ((half[j] >> 7) & 0xff) < 254;
      want_widened = want_widened && in_widened_window(half[j], start);
      if (j % 2 == 1) word[j / 2] = std::uint32_t(half[j - 1]) | (std::uint32_t(half[j]) << 16);
    }
    Bfloat16PairBounds bounds;
    for (std::uint32_t w : word) bounds.add(w);
    ASSERT_EQ(bounds.inside(start), want) << "trial " << trial << ", window start " << start;
    ASSERT_EQ(bounds.inside_widened(start), want_widened) << "trial " << trial << ", window start " << start;
    ASSERT_EQ(bounds.largest_field(), largest_field) << "trial " << trial;
    (want ? inside : outside) += 1;
    if (!want) (want_widened ? widened : beyond) += 1;
  }
  EXPECT_GT(inside, 1000);
  EXPECT_GT(outside, 1000);
  EXPECT_GT(widened, 1000);
  EXPECT_GT(beyond, 1000);
}

// Every bfloat16 the widened test lets into a window (every bit pattern, every window start) is an
// integer multiple of the window's unit 2^(start - 150) below 2^(start - 111), so 2^14 of them add
// exactly in its double, in any order; an odd significand in the normal field just below the band
// is not.
TEST(ExactModel, Bfloat16WidenedWindowHoldsItsInputs) {
  for (int start = 1; start <= kLastWindowStart; ++start) {
    const double unit = std::ldexp(1.0, start - 150);
    for (std::uint32_t bits = 0; bits < 0x7f80u; ++bits) {  // every finite magnitude
      const double magnitude = to_double(from_bits<__nv_bfloat16>(std::uint16_t(bits)));
      const double units = magnitude / unit;
      const bool multiple = units == std::floor(units) && units < 0x1p39;
      if (in_widened_window(std::uint16_t(bits), start))
        ASSERT_TRUE(multiple) << "bits 0x" << std::hex << bits << std::dec << ", window start " << start;
      else if (const int below = start - Bfloat16PairBounds::kWidenedFields - 1;
               below >= 1 && (bits >> 7) == std::uint32_t(below) && (bits & 1u))
        ASSERT_FALSE(multiple) << "bits 0x" << std::hex << bits << std::dec << ", window start " << start;
    }
  }
}

// Two bfloat16 in a window add exactly in a float, at every window start the pair path takes:
// the largest two of either sign, and the largest with the window's smallest step.
TEST(ExactModel, Bfloat16PairsAddExactlyInAFloat) {
  auto bf16 = [](int field, std::uint32_t mantissa, int sign) {
    float f;
    const std::uint32_t bits = (std::uint32_t(sign) << 31) | (std::uint32_t(field) << 23) | (mantissa << 16);
    std::memcpy(&f, &bits, 4);
    return f;
  };
  for (int start = 1; start <= kLastWindowStart; ++start) {
    const int top = std::min(start + 15, 253);
    const float pairs[][2] = {{bf16(top, 127, 0), bf16(top, 127, 0)},
                              {bf16(top, 127, 1), bf16(top, 127, 1)},
                              {bf16(top, 127, 0), bf16(start, 1, 0)},
                              {bf16(top, 127, 0), bf16(start, 1, 1)},
                              {bf16(top, 0, 1), bf16(start, 0, 0)}};
    for (const auto& p : pairs) {
      ASSERT_EQ(double(p[0] + p[1]), double(p[0]) + double(p[1])) << "window start " << start;
    }
  }
}

// The warp's shared finish (thread_sum.cuh's finish_in_shared_window, block_combine.cuh's
// warp_window_into_row): 32 windows up to kWindowSpread fields apart, each at its worst case (a
// full window's sum, just below 2^53 of its units, either sign), added as integers at the lowest
// window, equal the 32 windows added at their own places; and the total stays below 2^62.
TEST(ExactModel, WarpAddsWindowsOfSpreadStartsAtTheLowest) {
  std::mt19937_64 rng(seed());
  for (int trial = 0; trial < 20000; ++trial) {
    const int base = 1 + int(rng() % std::uint64_t(kLastWindowStart - kWindowSpread));
    ExactState<FloatFamily> apart{}, together{};
    std::int64_t total = 0;
    for (int lane = 0; lane < 32; ++lane) {
      const int start = base + (lane == 0 ? 0 : int(rng() % std::uint64_t(kWindowSpread + 1)));
      const double largest = std::ldexp(0x1p53 - 1, start - 150);  // 2^53 - 1 window units
      const double sum = trial % 2 == 0 ? largest * ((rng() & 1) ? 1 : -1)
                                        : std::ldexp(double(std::int64_t(rng() >> 11) - (1ll << 52)), start - 150);
      unsigned seen = 0;
      add_scaled(apart.limb, window_integer(sum, start, seen), window_position(start));
      const std::int64_t shifted = window_integer_at(sum, start, base, seen);
      ASSERT_LT(std::abs(shifted), std::int64_t(1) << 57);
      total += shifted;
    }
    ASSERT_LT(std::abs(total), std::int64_t(1) << 62);
    add_scaled(together.limb, total, window_position(base));
    normalize(apart.limb);
    normalize(together.limb);
    for (int i = 0; i < FloatFamily::kLimbs; ++i)
      ASSERT_EQ(apart.limb[i], together.limb[i]) << "trial " << trial << ", limb " << i;
  }
}

TEST(ExactModel, EmptyIsPositiveZero) {
  const std::vector<float> none;
  EXPECT_TRUE(same_bits(model_sum<float, float>(none, 1, 3), 0.0f));
  EXPECT_TRUE(same_bits(model_sum<double, double>(std::vector<double>{}, 1, 3), 0.0));
}

// ---- The final rounding on its own --------------------------------------------------------------

// Limbs of random size and sign around a random position (carries unnormalised), including states
// one unit either side of a tie and on the subnormal and overflow edges; the oracle builds the
// same value in MPFR from the limbs and rounds it.
template <class Family, class Out>
void check_random_states(std::uint64_t s) {
  std::mt19937_64 rng(s);
  constexpr int L = Family::kLimbs;
  mpfr_t exact, term;
  mpfr_init2(exact, 32 * (L + 4));
  mpfr_init2(term, 64);
  for (int trial = 0; trial < 20000; ++trial) {
    ExactState<Family> state{};
    state.count[kItems] = 1;
    state.count[kNotNegativeZero] = 1;
    const int top = int(rng() % L);
    const int width = 1 + int(rng() % 4);
    for (int i = std::max(0, top - width); i <= top; ++i) {
      const int kind = int(rng() % 4);
      std::int64_t v = kind == 0 ? std::int64_t(rng() >> 33) : kind == 1 ? -std::int64_t(rng() >> 33)
                       : kind == 2 ? std::int64_t(rng() >> 1) >> int(rng() % 40) : 0;
      if (i == L - 1) v >>= 20;  // keep the top limb clear of overflow through carries
      state.limb[i] = v;
    }
    if (trial % 3 == 0) state.limb[0] += int(rng() % 3) - 1;  // one unit off
    mpfr_set_zero(exact, 1);
    for (int i = 0; i < L; ++i) {
      mpfr_set_si_2exp(term, long(state.limb[i]), 32 * i + Family::kLsbExponent, MPFR_RNDN);
      mpfr_add(exact, exact, term, MPFR_RNDN);
    }
    const Out want = round_once<Out>(exact);
    const Out got = round_to_nearest_even<Out>(state);
    ASSERT_TRUE(same_bits(got, want)) << "trial " << trial << " seed " << s << ": " << hex(got)
                                      << " vs MPFR " << hex(want);
    // Windows of 4 and 8 limbs, where the nonzero range fits them (the device's rounding before
    // the warp's; round_in_window for any W).
    int lowest = L, highest = -1;
    for (int i = 0; i < L; ++i)
      if (state.limb[i] != 0) lowest = std::min(lowest, i), highest = i;
    if (highest < 0) continue;
    const auto nonzero = [&](auto bits) { return from_bits<Out>(bits != 0 ? bits : zero_result<Out>(state)); };
    if (highest - lowest < 4) {
      ASSERT_TRUE(same_bits(nonzero(round_in_window<Out, 4>(state, lowest, highest)), want))
          << "window of 4, trial " << trial << " seed " << s;
    }
    if (highest - lowest < 8) {
      ASSERT_TRUE(same_bits(nonzero(round_in_window<Out, 8>(state, lowest, highest)), want))
          << "window of 8, trial " << trial << " seed " << s;
    }
  }
  mpfr_clear(term);
  mpfr_clear(exact);
}

TEST(ExactRounding, RandomFloatStates) { check_random_states<FloatFamily, float>(seed()); }
TEST(ExactRounding, RandomFloatStatesToDouble) { check_random_states<FloatFamily, double>(seed()); }
TEST(ExactRounding, RandomDoubleStates) { check_random_states<DoubleFamily, double>(seed()); }

// round_integer, every window's last step (one block, cluster, grid), against MPFR on integers of
// 1 to 64 and 1 to 128 bits whose results run from below the least subnormal past the largest
// finite value, ties and one unit either side of them included.
template <class Out>
void rounds_integers_like_mpfr(std::uint64_t s) {
  std::mt19937_64 rng(s);
  for (int trial = 0; trial < 200000; ++trial) {
    const int width = trial % 2 == 0 ? 64 : 128;
    const IntegerCase c = random_integer_case<Out>(rng, trial, width);
    const Out want = mpfr_rounded_integer<Out>(c);
    const Out got = rounded_at_width<Out>(c, width);
    ASSERT_TRUE(same_bits(got, want)) << "trial " << trial << " seed " << s << ": " << hex(got)
                                      << " vs MPFR " << hex(want) << ", x = " << hex(c.x)
                                      << " x 2^" << c.unit_exponent << " (" << width << " bits)";
  }
}
TEST(ExactRounding, IntegersToFloatMatchMpfr) { rounds_integers_like_mpfr<float>(seed()); }
TEST(ExactRounding, IntegersToDoubleMatchMpfr) { rounds_integers_like_mpfr<double>(seed()); }

// Every float is its own correctly rounded sum, subnormals and the largest included; and a value
// exactly between two floats rounds to the even one.
TEST(ExactRounding, FloatsRoundTripAndTiesGoToEven) {
  std::mt19937 rng{static_cast<std::uint32_t>(seed())};
  for (int trial = 0; trial < 100000; ++trial) {
    std::uint32_t bits = rng() & 0x7fffffffu;
    if ((bits >> 23) == 0xff) continue;
    bits |= (rng() & 1u) << 31;
    float x;
    std::memcpy(&x, &bits, 4);
    ExactState<FloatFamily> state{};
    state.count[kItems] = 1;
    state.count[kNotNegativeZero] = bits != 0x80000000u;
    std::int64_t n;
    int p;
    integer_and_position(x, n, p);
    add_scaled(state.limb, n, p);
    ASSERT_TRUE(same_bits(round_to_nearest_even<float>(state), x)) << hex(x);
    // x + half its last place: the tie rounds to whichever of x and its successor is even (not
    // for zero, the largest float, or where half the last place is below the unit, 2^-149).
    if (n == 0 || p == 0 || (bits & 0x7fffffffu) == 0x7f7fffffu) continue;
    add_scaled(state.limb, n > 0 ? 1 : -1, p - 1);
    const std::uint32_t next = bits + 1;
    float even;
    const std::uint32_t even_bits = (bits & 1u) ? next : bits;
    std::memcpy(&even, &even_bits, 4);
    ASSERT_TRUE(same_bits(round_to_nearest_even<float>(state), even)) << "tie above " << hex(x);
  }
}

}  // namespace
}  // namespace gpureduce::testing
