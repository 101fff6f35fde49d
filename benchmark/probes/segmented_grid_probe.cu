// Where a few huge segments lose to one device-wide sum (2026-11-27): the same 2^26 floats as one
// cub::DeviceReduce::Sum, as segments of 2^K through the offsets path, and through the fixed-size
// path, each path at its own grid and at grids capped to B blocks an SM (Options::grid_blocks).
// If the fixed-size chunk kernel (40 registers, 6+ blocks an SM) slows to the offsets path's time
// at 4 blocks an SM, the offsets path's loss is its loads in flight, not its claims or tickets.
// Contenders alternate call by call; median of 21 rounds (`segmented_grid_probe K ROUNDS`: only
// segments of 2^K, ROUNDS rounds after one warm-up, e.g. for ncu). Built against the library:
//   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -Ibenchmark/probes benchmark/probes/segmented_grid_probe.cu build/libgpureduce.a -o segmented_grid_probe
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <cub/device/device_reduce.cuh>

#include "gpureduce/segmented.hpp"
#include "segmented_probe.cuh"

struct Contender {
  std::string name;
  std::function<void()> call;
  std::vector<float> us;
};

int main(int argc, char** argv) {
  const int only_k = argc > 1 ? std::atoi(argv[1]) : 0;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 21;
  const std::int64_t total = std::int64_t(1) << 26;
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  float *in = nullptr, *out = nullptr, *one = nullptr;
  CHECK(cudaMalloc(&in, total * sizeof(float)));
  CHECK(cudaMalloc(&out, (total >> 10) * sizeof(float)));
  CHECK(cudaMalloc(&one, sizeof(float)));
  fill<<<1024, 256>>>(in, total, 12345u);
  CHECK(cudaGetLastError());
  std::size_t cub_bytes = 0;
  CHECK(cub::DeviceReduce::Sum(nullptr, cub_bytes, in, one, total));
  void* temp = nullptr;
  const std::size_t temp_bytes = std::size_t(64) << 20;
  CHECK(cudaMalloc(&temp, temp_bytes));
  std::int64_t *d_begin = nullptr, *d_end = nullptr;
  CHECK(cudaMalloc(&d_begin, (total >> 10) * 8));
  CHECK(cudaMalloc(&d_end, (total >> 10) * 8));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::printf("SMs %d; 2^26 floats; median us of %d rounds, contenders alternated\n", sms, rounds);
  for (int k : {12, 16, 20, 24}) {
    if (only_k != 0 && k != only_k) continue;
    const std::int64_t n = total >> k, size = std::int64_t(1) << k;
    std::vector<std::int64_t> begin(n), end(n);
    for (std::int64_t i = 0; i < n; ++i) begin[i] = i * size, end[i] = (i + 1) * size;
    CHECK(cudaMemcpy(d_begin, begin.data(), n * 8, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_end, end.data(), n * 8, cudaMemcpyHostToDevice));
    std::vector<Contender> cs;
    cs.push_back({"cub device-wide", [&] {
                    std::size_t b = cub_bytes;
                    CHECK(cub::DeviceReduce::Sum(temp, b, in, one, total));
                  }, {}});
    for (int per_sm : {0, 3, 2}) {
      gpureduce::Options o;
      o.grid_blocks = per_sm * sms;
      cs.push_back({"offsets grid " + (per_sm ? std::to_string(per_sm) + "/SM" : "auto"), [=] {
                      std::size_t b = temp_bytes;
                      CHECK(gpureduce::DeviceSegmentedReduce::Sum(temp, b, in, out, n, d_begin,
                                                                  d_end, nullptr, o));
                    }, {}});
    }
    for (int per_sm : {0, 6, 5, 4, 3}) {
      gpureduce::Options o;
      o.grid_blocks = per_sm * sms;
      cs.push_back({"fixed grid " + (per_sm ? std::to_string(per_sm) + "/SM" : "auto"), [=] {
                      std::size_t b = temp_bytes;
                      CHECK(gpureduce::DeviceSegmentedReduce::FixedSizeSum(temp, b, in, out, n,
                                                                           size, nullptr, o));
                    }, {}});
    }
    for (int round = only_k ? -1 : -2; round < rounds; ++round)
      for (auto& c : cs) {
        CHECK(cudaEventRecord(start));
        c.call();
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        if (round >= 0) c.us.push_back(ms * 1000);
      }
    std::printf("\n2^%d segments of 2^%d floats\n", int(26 - k), k);
    for (auto& c : cs) {
      std::sort(c.us.begin(), c.us.end());
      std::printf("  %-22s %8.2f us  (%.2f-%.2f)\n", c.name.c_str(), c.us[c.us.size() / 2],
                  c.us.front(), c.us.back());
    }
  }
  std::printf("\n%s\n", gpureduce::DeviceSegmentedReduce::describe<float>(4, std::int64_t(1) << 24)
                            .c_str());
  return 0;
}
