// Segment lengths of the power-law shape, shared by gpureduce_segmented_paired and the probe
// benchmark/probes/segmented_ncu.cu, so the probe's `power` shape is the benchmark's distribution.
// Host-only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace gpureduce_bench {

// n lengths with P(length >= k) ~ 1/k, up to `largest` (the tests' zipf_lengths, without empty
// segments).
inline std::vector<std::int64_t> power_law_lengths(std::mt19937_64& rng, std::int64_t n,
                                                   std::int64_t largest) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<std::int64_t> v(static_cast<std::size_t>(n));
  for (auto& x : v) {
    const auto length = std::int64_t(1.0 / std::max(u(rng), 1e-12));
    x = std::min<std::int64_t>(largest, length);
  }
  return v;
}

}  // namespace gpureduce_bench
