// Timing with CUDA events: the GPU's own clock around the enqueued work, so host-side jitter between
// iterations does not count. One timer per program; warm-up and median live here too.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <vector>

#include "cuda_check.hpp"

namespace gpureduce_bench {

class CudaEventTimer {
 public:
  explicit CudaEventTimer(cudaStream_t stream = nullptr) : stream_(stream) {
    BENCH_CUDA_CHECK(cudaEventCreate(&start_));
    BENCH_CUDA_CHECK(cudaEventCreate(&stop_));
  }
  ~CudaEventTimer() {
    cudaEventDestroy(start_);  // no check: destructors must not throw
    cudaEventDestroy(stop_);
  }
  CudaEventTimer(const CudaEventTimer&) = delete;
  CudaEventTimer& operator=(const CudaEventTimer&) = delete;

  void start() { BENCH_CUDA_CHECK(cudaEventRecord(start_, stream_)); }
  // Waits for the stop event, so the returned time is final.
  double stop_seconds() {
    BENCH_CUDA_CHECK(cudaEventRecord(stop_, stream_));
    BENCH_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0.0f;
    BENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return double(ms) * 1e-3;
  }

 private:
  cudaStream_t stream_;
  cudaEvent_t start_{};
  cudaEvent_t stop_{};
};

inline double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

// Runs `enqueue` `warmups` times untimed (first-call costs: module loading, allocation caches,
// clocks ramping up), then `repeats` times each between two events; returns the median seconds.
// `before_each` runs before every timed repeat, outside the timed region (e.g. an L2 flush).
template <class Enqueue, class Before>
double time_median_seconds(CudaEventTimer& timer, int warmups, int repeats, Enqueue&& enqueue,
                           Before&& before_each) {
  for (int i = 0; i < warmups; ++i) enqueue();
  BENCH_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> seconds;
  seconds.reserve(std::size_t(repeats));
  for (int i = 0; i < repeats; ++i) {
    before_each();
    timer.start();
    enqueue();
    seconds.push_back(timer.stop_seconds());
  }
  return median(std::move(seconds));
}

}  // namespace gpureduce_bench
