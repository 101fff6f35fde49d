// What the 2026-11-29 segmented probes (segmented_stream_probe.cu, segmented_late_wait_probe.cu)
// share: 2^26 random floats with room for offsets and outputs, uniform offsets uploaded, CUB's and
// the library's calls, calls timed alternately each on an idle GPU, medians, and a bitwise check
// of the probe's own kernels.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <cub/device/device_segmented_reduce.cuh>

#include "gpureduce/segmented.hpp"
#include "segmented_probe.cuh"

struct TimedCall {
  std::string name;
  std::function<void()> call;
  std::vector<float> us;
};

struct SweepBuffers {
  static constexpr std::int64_t kTotal = std::int64_t(1) << 26;  // floats
  static constexpr std::size_t kTempBytes = std::size_t(64) << 20;
  float* in = nullptr;
  float* out = nullptr;  // a float per segment of 2^10 items or more
  void* temp = nullptr;
  std::int64_t* begin = nullptr;
  std::int64_t* end = nullptr;
  // Every call's stream: the legacy default stream, or with PROBE_STREAM=1 in the environment a
  // created non-blocking one (does programmatic dependent launch act on the legacy stream?).
  cudaStream_t stream = nullptr;
};

inline SweepBuffers sweep_buffers() {
  SweepBuffers b;
  CHECK(cudaMalloc(&b.in, SweepBuffers::kTotal * sizeof(float)));
  CHECK(cudaMalloc(&b.out, (SweepBuffers::kTotal >> 10) * sizeof(float)));
  CHECK(cudaMalloc(&b.temp, SweepBuffers::kTempBytes));
  CHECK(cudaMalloc(&b.begin, (SweepBuffers::kTotal >> 10) * 8));
  CHECK(cudaMalloc(&b.end, (SweepBuffers::kTotal >> 10) * 8));
  fill<<<1024, 256>>>(b.in, SweepBuffers::kTotal, 12345u);
  CHECK(cudaGetLastError());
  if (const char* e = std::getenv("PROBE_STREAM"); e != nullptr && e[0] == '1')
    CHECK(cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking));
  std::printf("calls on %s\n",
              b.stream == nullptr ? "the legacy default stream" : "a created stream");
  return b;
}

// Offsets of kTotal >> k segments of 2^k items each; returns the number of segments.
inline std::int64_t upload_uniform_offsets(const SweepBuffers& b, int k) {
  const std::int64_t n = SweepBuffers::kTotal >> k, size = std::int64_t(1) << k;
  std::vector<std::int64_t> begin(static_cast<std::size_t>(n)), end(begin.size());
  for (std::int64_t i = 0; i < n; ++i) begin[i] = i * size, end[i] = (i + 1) * size;
  CHECK(cudaMemcpy(b.begin, begin.data(), n * 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b.end, end.data(), n * 8, cudaMemcpyHostToDevice));
  return n;
}

// CUB's segmented sum, the library's fixed-size and offsets calls on segments of 2^k.
inline std::vector<TimedCall> library_calls(const SweepBuffers& b, std::int64_t n,
                                            std::int64_t size) {
  std::size_t cub_bytes = 0;
  CHECK(cub::DeviceSegmentedReduce::Sum(nullptr, cub_bytes, b.in, b.out, int(n), b.begin, b.end));
  std::vector<TimedCall> cs;
  cs.push_back({"cub segmented", [=] {
                  std::size_t bytes = cub_bytes;
                  CHECK(cub::DeviceSegmentedReduce::Sum(b.temp, bytes, b.in, b.out, int(n),
                                                        b.begin, b.end, b.stream));
                }});
  cs.push_back({"gpureduce fixed", [=] {
                  std::size_t bytes = SweepBuffers::kTempBytes;
                  CHECK(gpureduce::DeviceSegmentedReduce::FixedSizeSum(b.temp, bytes, b.in, b.out,
                                                                      n, size, b.stream));
                }});
  cs.push_back({"gpureduce offsets", [=] {
                  std::size_t bytes = SweepBuffers::kTempBytes;
                  CHECK(gpureduce::DeviceSegmentedReduce::Sum(b.temp, bytes, b.in, b.out, n,
                                                              b.begin, b.end, b.stream));
                }});
  return cs;
}

// calls[first..] write `count` floats to `out`: true when they all write the same bits.
inline bool same_bits_from(std::vector<TimedCall>& calls, std::size_t first, float* out,
                           std::size_t count) {
  std::vector<float> expect(count), got(count);
  for (std::size_t c = first; c < calls.size(); ++c) {
    CHECK(cudaMemset(out, 0xff, count * sizeof(float)));
    calls[c].call();
    CHECK(cudaDeviceSynchronize());  // the call may be on a non-blocking stream
    CHECK(cudaMemcpy(c == first ? expect.data() : got.data(), out, count * sizeof(float),
                     cudaMemcpyDeviceToHost));
    if (c > first && std::memcmp(expect.data(), got.data(), count * sizeof(float)) != 0) {
      std::printf("MISMATCH %s\n", calls[c].name.c_str());
      return false;
    }
  }
  return true;
}

// One warm-up call each, then `rounds` rounds: each call on an idle GPU between two events, the
// calls alternated.
inline void time_alternating(std::vector<TimedCall>& calls, int rounds, cudaStream_t stream) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (auto& c : calls) c.call();
  CHECK(cudaDeviceSynchronize());
  for (int r = 0; r < rounds; ++r)
    for (auto& c : calls) {
      CHECK(cudaDeviceSynchronize());
      CHECK(cudaEventRecord(start, stream));
      c.call();
      CHECK(cudaEventRecord(stop, stream));
      CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      c.us.push_back(1e3f * ms);
    }
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
}

inline float median_of(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// A line per call: µs, GB/s of the 2^26 floats, ratio to calls[0] (CUB's).
inline void print_rows(const std::vector<TimedCall>& calls, int k) {
  const float base = median_of(calls[0].us);
  for (const auto& c : calls) {
    const float m = median_of(c.us);
    std::printf("2^%d items, %-34s %8.2f us  %7.1f GB/s  %.3fx cub\n", k, c.name.c_str(), m,
                SweepBuffers::kTotal * 4 / m * 1e-3, m / base);
  }
}
