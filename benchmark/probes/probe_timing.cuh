// What the 2026-11-29 probes (level1_split.cu, launch_latency_probe.cu, exact_one_block_probe.cu)
// share: the check, a spin kernel that keeps the GPU busy while calls are enqueued behind it, one
// call timed between CUDA events, one call's host time, and medians.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#define CHECK(x)                                                                             \
  do {                                                                                       \
    const auto e_ = (x);                                                                     \
    if (int(e_) != 0) {                                                                      \
      std::fprintf(stderr, "%s:%d %s failed (%d)\n", __FILE__, __LINE__, #x, int(e_));       \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)

__global__ void spin_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// µs from an event before the call to one after it, on the legacy stream.
inline double events_around_us(const std::function<void()>& call, cudaEvent_t (&e)[2]) {
  float ms = 0;
  CHECK(cudaEventRecord(e[0]));
  call();
  CHECK(cudaEventRecord(e[1]));
  CHECK(cudaEventSynchronize(e[1]));
  CHECK(cudaEventElapsedTime(&ms, e[0], e[1]));
  return 1e3 * ms;
}

// The call between events on an idle GPU (the paired harnesses' measure).
inline double idle_call_us(const std::function<void()>& call, cudaEvent_t (&e)[2]) {
  CHECK(cudaDeviceSynchronize());
  return events_around_us(call, e);
}

// µs the host spends in the call.
inline double host_us(const std::function<void()>& call) {
  const auto t0 = std::chrono::steady_clock::now();
  call();
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(t1 - t0).count();
}
