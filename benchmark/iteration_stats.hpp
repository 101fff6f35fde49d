// Every timed iteration's GPU time, kept so that a benchmark can report robust statistics next to
// Google Benchmark's own result. With manual time that result (real_time) is a mean, and at the
// ~5 µs scale of small reductions a single OS or driver hiccup of a few hundred µs moves the mean
// of a thousand iterations by a tenth; the median and the 10th/90th percentiles do not move.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace gpureduce_bench {

class IterationTimes {
 public:
  // Reserves for the iterations Google Benchmark will run, so recording does not allocate inside
  // the timed loop (up to 2^20 of them, 8 MiB; beyond that the vector grows as usual).
  explicit IterationTimes(const benchmark::State& st) {
    const auto cap = static_cast<benchmark::IterationCount>(1) << 20;
    seconds_.reserve(static_cast<std::size_t>(std::min(st.max_iterations, cap)));
  }

  void add(double seconds) {
    seconds_.push_back(seconds);
    total_ += seconds;
  }
  double total_seconds() const { return total_; }
  bool empty() const { return seconds_.empty(); }

  // Counters median_us, p10_us and p90_us, in microseconds. Plain counters (no rate or average
  // flags): Google Benchmark reports the value as it is set here.
  void report(benchmark::State& st) const {
    if (seconds_.empty()) return;
    std::vector<double> sorted = seconds_;
    std::sort(sorted.begin(), sorted.end());
    st.counters["median_us"] = benchmark::Counter(1e6 * percentile(sorted, 0.5));
    st.counters["p10_us"] = benchmark::Counter(1e6 * percentile(sorted, 0.1));
    st.counters["p90_us"] = benchmark::Counter(1e6 * percentile(sorted, 0.9));
  }

  // The recorded values in ascending order, for percentiles of other quantities than a family's
  // own median_us/p10_us/p90_us (the paired family keeps A's, B's and the ratios' separately).
  std::vector<double> sorted() const {
    std::vector<double> v = seconds_;
    std::sort(v.begin(), v.end());
    return v;
  }

  // The p-quantile (p in [0, 1]) of sorted values, interpolated linearly between the two nearest
  // order statistics (numpy's default), so p = 0.5 is the usual median of an even count.
  static double percentile(const std::vector<double>& sorted, double p) {
    if (sorted.empty()) return 0.0;
    const double pos = p * double(sorted.size() - 1);
    const std::size_t lo = static_cast<std::size_t>(pos);
    const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
    const double frac = pos - double(lo);
    return sorted[lo] + frac * (sorted[hi] - sorted[lo]);
  }

 private:
  std::vector<double> seconds_;
  double total_ = 0.0;
};

}  // namespace gpureduce_bench
