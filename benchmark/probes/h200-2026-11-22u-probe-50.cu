// Probe run 50 (2026-11-22u): host cost of the pieces of automatic's default per-call path (stream-owned
// state) against the zeroed path. Build from the repository root (library at 0fd95c2):
//   nvcc -std=c++17 -O3 -arch=sm_90 -Iinclude -o probe50 benchmark/probes/h200-2026-11-22u-probe-50.cu <build dir>/libgpureduce.a
#include <gpureduce/gpureduce.hpp>
#include <gpureduce/detail/stream_owned_state.hpp>
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <functional>
#include <algorithm>
#include <vector>
using clk = std::chrono::steady_clock;
static double per_call_ns(const std::function<void()>& f, int calls, bool drain) {
  std::vector<double> reps;
  for (int r = 0; r < 7; ++r) {
    double total = 0;
    for (int i = 0; i < calls; i += 64) {
      auto t0 = clk::now();
      for (int k = 0; k < 64; ++k) f();
      total += std::chrono::duration<double, std::nano>(clk::now() - t0).count();
      if (drain) cudaDeviceSynchronize();
    }
    reps.push_back(total / calls);
  }
  std::sort(reps.begin(), reps.end());
  return reps[3];
}
int main() {
  cudaFree(0);
  cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  const long long n = 1 << 20;
  float *in, *out; cudaMalloc(&in, n * 4); cudaMalloc(&out, 4); cudaMemset(in, 0x3c, n * 4);
  size_t b = 0; gpureduce::DeviceReduce::Sum(nullptr, b, in, out, n, s);
  void *td, *tz; cudaMalloc(&td, b); cudaMalloc(&tz, b); cudaMemset(tz, 0, b);
  gpureduce::Options zo; zo.temp_storage_zeroed = true;
  cudaDeviceSynchronize();
  for (cudaStream_t st : {s, (cudaStream_t)nullptr}) {
    printf("stream %s\n", st ? "non-blocking" : "legacy");
    unsigned long long id; cudaStreamCaptureStatus cs; unsigned char* slot;
    printf("  cudaStreamIsCapturing        %7.1f ns\n", per_call_ns([&] { cudaStreamIsCapturing(st, &cs); }, 100000, false));
    printf("  cudaStreamGetId              %7.1f ns\n", per_call_ns([&] { cudaStreamGetId(st, &id); }, 100000, false));
    printf("  stream_owned_slot            %7.1f ns\n", per_call_ns([&] { gpureduce::detail::stream_owned_slot(st, 0, &slot); }, 100000, false));
    int dev; printf("  cudaGetDevice                %7.1f ns\n", per_call_ns([&] { cudaGetDevice(&dev); }, 100000, false));
    printf("  cudaGetLastError             %7.1f ns\n", per_call_ns([&] { (void)cudaGetLastError(); }, 100000, false));
    for (int rep = 0; rep < 2; ++rep) {
      printf("  Sum 2^20 default enqueue     %7.1f ns\n", per_call_ns([&] { size_t x = b; gpureduce::DeviceReduce::Sum(td, x, in, out, n, st); }, 20000, true));
      printf("  Sum 2^20 zeroed enqueue      %7.1f ns\n", per_call_ns([&] { size_t x = b; gpureduce::DeviceReduce::Sum(tz, x, in, out, n, st, zo); }, 20000, true));
    }
  }
  printf("done\n");
}
