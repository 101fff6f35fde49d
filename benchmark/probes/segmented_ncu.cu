// Segmented sums for ncu (2026-11-26): one shape, a warm-up call and a measured call, so that
//   ncu --set full -k regex:reduce_kernel --launch-skip 1 --launch-count 1 ./segmented_ncu SHAPE
// profiles the reduce kernel of the second call. SHAPE: huge (4 segments of 2^24 floats), mix
// (64K segments of 256-4K floats, the benchmark's seed), or K (2^26 floats in segments of 2^K).
// Built against the library:
//   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -Ibenchmark/probes benchmark/probes/segmented_ncu.cu build/libgpureduce.a -o segmented_ncu
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "gpureduce/segmented.hpp"
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
  } else {
    const int k = std::atoi(shape.c_str());
    lengths.assign(std::size_t((std::int64_t(1) << 26) >> k), std::int64_t(1) << k);
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
  std::size_t bytes = 0;
  void* temp = nullptr;
  CHECK(gpureduce::DeviceSegmentedReduce::Sum(temp, bytes, in, out, n, d_begin, d_end));
  CHECK(cudaMalloc(&temp, bytes));
  for (int call = 0; call < 2; ++call)
    CHECK(gpureduce::DeviceSegmentedReduce::Sum(temp, bytes, in, out, n, d_begin, d_end));
  CHECK(cudaDeviceSynchronize());
  std::printf("%s: %lld segments, %lld floats\n", shape.c_str(), (long long)n, (long long)span);
  return 0;
}
