// Segmented sums for ncu (2026-11-26): one shape, a warm-up call and a measured call, so that
//   ncu --set full -k regex:reduce_kernel --launch-skip 1 --launch-count 1 ./segmented_ncu SHAPE
// profiles the reduce kernel of the second call. SHAPE: huge (4 segments of 2^24 floats), mix
// (64K segments of 256-4K floats, the benchmark's seed), or K (2^26 floats in segments of 2^K).
// A second argument picks who reduces (2026-11-27): offsets (the default), fixed (FixedSizeSum,
// uniform shapes only) or cub (cub::DeviceSegmentedReduce::Sum on the same offsets), so the
// kernels of the three can be profiled on the same items; a third, log2 of the items for K
// shapes (default 26). `power` (2026-11-28): the benchmark's power-law lengths (its own seed), 2^20
// segments or 2^(third argument).
// Built against the library:
//   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -Ibenchmark -Ibenchmark/probes benchmark/probes/segmented_ncu.cu build/libgpureduce.a -o segmented_ncu
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <cub/device/device_segmented_reduce.cuh>

#include "gpureduce/detail/segmented/state.cuh"
#include "gpureduce/segmented.hpp"
#include "segment_lengths.hpp"
#include "segmented_probe.cuh"

int main(int argc, char** argv) {
  const std::string shape = argc > 1 ? argv[1] : "huge";
  std::vector<std::int64_t> lengths;
  if (shape == "huge") {
    lengths.assign(4, std::int64_t(1) << 24);
  } else if (shape == "mix") {
    std::mt19937_64 rng(20261125);
    std::uniform_int_distribution<std::int64_t> pick(256, 4096);
    for (int i = 0; i < 65536; ++i) lengths.push_back(pick(rng));
  } else if (shape == "power") {  // the benchmark's power law (a seed of its own), up to 2^24
    std::mt19937_64 rng(20261128);
    const int log2_segments = argc > 3 ? std::atoi(argv[3]) : 20;
    lengths = gpureduce_bench::power_law_lengths(rng, std::int64_t(1) << log2_segments, 1 << 24);
  } else {
    const int k = std::atoi(shape.c_str());
    const int log2_items = argc > 3 ? std::atoi(argv[3]) : 26;
    lengths.assign(std::size_t((std::int64_t(1) << log2_items) >> k), std::int64_t(1) << k);
  }
  std::vector<std::int64_t> begin, end;
  std::int64_t span = 0;
  for (std::int64_t l : lengths) begin.push_back(span), span += l, end.push_back(span);
  const std::int64_t n = std::int64_t(lengths.size());
  float *in = nullptr, *out = nullptr;
  std::int64_t *d_begin = nullptr, *d_end = nullptr;
  CHECK(cudaMalloc(&in, span * sizeof(float)));
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  CHECK(cudaMalloc(&d_begin, n * 8));
  CHECK(cudaMalloc(&d_end, n * 8));
  CHECK(cudaMemcpy(d_begin, begin.data(), n * 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_end, end.data(), n * 8, cudaMemcpyHostToDevice));
  fill<<<1024, 256>>>(in, span, 12345u);
  CHECK(cudaGetLastError());
  const std::string who = argc > 2 ? argv[2] : "offsets";
  // GPUREDUCE_SEGMENTED_DIRECT_LIMIT=N (2026-11-28): the library's direct_segments_limit, as in
  // gpureduce_segmented_paired (0: classify and the reduce kernel).
  if (const char* limit = std::getenv("GPUREDUCE_SEGMENTED_DIRECT_LIMIT"))
    gpureduce::detail::segmented::direct_segments_limit = std::atoll(limit);
  const std::int64_t size = lengths.front();
  const auto call = [&](void* temp, std::size_t& bytes) {
    if (who == "cub")
      return cub::DeviceSegmentedReduce::Sum(temp, bytes, in, out, n, d_begin, d_end);
    if (who == "fixed")
      return gpureduce::DeviceSegmentedReduce::FixedSizeSum(temp, bytes, in, out, n, size);
    return gpureduce::DeviceSegmentedReduce::Sum(temp, bytes, in, out, n, d_begin, d_end);
  };
  std::size_t bytes = 0;
  void* temp = nullptr;
  CHECK(call(temp, bytes));
  CHECK(cudaMalloc(&temp, bytes > 0 ? bytes : 1));
  for (int round = 0; round < 2; ++round) CHECK(call(temp, bytes));
  CHECK(cudaDeviceSynchronize());
  std::printf("%s by %s: %lld segments, %lld floats\n", shape.c_str(), who.c_str(), (long long)n,
              (long long)span);
  return 0;
}
