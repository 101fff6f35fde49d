// Probe (H100, 2026-11-25): where ArgMin's ~3 µs over TransformReduce goes, at every size from 64K
// to 256M items. Per (op, n): the median of one call between events after a sync (as the paired
// benchmark times it), the host time of the call alone, and 20 calls back to back between events
// (the host's cost hidden behind the GPU's), plus the plan. Built against the tree of this day:
//   nvcc -O3 -arch=sm_90 -std=c++17 -Iinclude benchmark/probes/h100-2026-11-25-argmin-probe.cu \
//        src/*.cpp -o argmin_probe
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <vector>

#include "gpureduce/detail/arg_extremum.cuh"
#include "gpureduce/detail/blas1_terms.cuh"

namespace d = gpureduce::detail;

#define OK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { std::printf("%s: %s\n", #call, cudaGetErrorString(e_)); std::exit(1); } } while (0)

__global__ void fill(float* x, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x)
    x[i] = float((i * 2654435761u) % 1000003u) / 1000003.0f - 0.5f;
}

struct Square { __device__ float operator()(float x) const { return x * x; } };

bool g_once = false;
int g_calls = 1;  // calls an op in the single-n mode (argv[2]; 2026-11-27: 3, for ncu on a call with its input in L2)

template <class Call>
void measure(const char* name, std::int64_t n, Call call) {
  gpureduce::LaunchPlan plan;
  OK(call(&plan));
  if (g_once) { for (int c = 0; c < g_calls; ++c) OK(call(nullptr)); OK(cudaDeviceSynchronize()); std::printf("%s %lld: %s\n", name, (long long)n, gpureduce::describe(plan).c_str()); return; }
  cudaEvent_t a, b;
  OK(cudaEventCreate(&a)); OK(cudaEventCreate(&b));
  std::vector<float> single, host, burst;
  for (int it = 0; it < 60; ++it) {
    OK(cudaDeviceSynchronize());
    OK(cudaEventRecord(a));
    const auto t0 = std::chrono::steady_clock::now();
    OK(call(nullptr));
    const auto t1 = std::chrono::steady_clock::now();
    OK(cudaEventRecord(b));
    OK(cudaEventSynchronize(b));
    float ms; OK(cudaEventElapsedTime(&ms, a, b));
    if (it >= 10) { single.push_back(ms * 1000); host.push_back(std::chrono::duration<float, std::micro>(t1 - t0).count()); }
  }
  for (int it = 0; it < 15; ++it) {
    OK(cudaDeviceSynchronize());
    OK(cudaEventRecord(a));
    for (int k = 0; k < 20; ++k) OK(call(nullptr));
    OK(cudaEventRecord(b));
    OK(cudaEventSynchronize(b));
    float ms; OK(cudaEventElapsedTime(&ms, a, b));
    if (it >= 5) burst.push_back(ms * 1000 / 20);
  }
  auto med = [](std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; };
  std::printf("| %s | %lld | %.2f | %.2f | %.2f | %s |\n", name, (long long)n, med(single), med(host), med(burst),
              gpureduce::describe(plan).c_str());
}

int main(int argc, char** argv) {
  // argv[1]: one n only, each op called argv[2] times (default once; for ncu)
  const bool once = argc > 1;
  g_once = once;
  if (argc > 2) g_calls = std::atoi(argv[2]);
  const std::int64_t max_n = std::int64_t(1) << 28;
  float* x; OK(cudaMalloc(&x, max_n * sizeof(float)));
  fill<<<1024, 256>>>(x, max_n); OK(cudaGetLastError());
  gpureduce::IndexedValue<float>* arg_out; OK(cudaMalloc(&arg_out, sizeof *arg_out));
  float* out; OK(cudaMalloc(&out, sizeof(float)));
  void* temp; const std::size_t temp_bytes = 64 << 20; OK(cudaMalloc(&temp, temp_bytes));
  gpureduce::Options options;
  std::printf("| op | n | one call µs | host µs | burst µs/call | plan |\n|---|---:|---:|---:|---:|---|\n");
  std::vector<std::int64_t> sizes = {std::int64_t(1) << 16, std::int64_t(1) << 20, std::int64_t(1) << 22,
                                     std::int64_t(1) << 24, std::int64_t(1) << 26, max_n};
  if (once) sizes = {std::atoll(argv[1])};
  for (std::int64_t n : sizes) {
    measure("ArgMin f32", n, [&](gpureduce::LaunchPlan* plan) {
      std::size_t bytes = temp_bytes;
      return d::reduce_input(plan ? nullptr : temp, &bytes, d::IndexedReader<float, gpureduce::IndexedValue<float>>(x),
                             arg_out, n, d::ArgMinOp{}, gpureduce::IndexedValue<float>{1, 0.f}, false, 0, options, plan);
    });
    measure("TransformReduce square", n, [&](gpureduce::LaunchPlan* plan) {
      std::size_t bytes = temp_bytes;
      return d::reduce_input(plan ? nullptr : temp, &bytes, d::TransformReader<float, float, Square>(x, Square{}),
                             out, n, ::cuda::std::plus<float>{}, 0.f, true, 0, options, plan);
    });
    measure("SumAbs-like", n, [&](gpureduce::LaunchPlan* plan) {
      std::size_t bytes = temp_bytes;
      return d::reduce_input(plan ? nullptr : temp, &bytes, d::TransformReader<float, float, d::AbsoluteValueIn<float>>(x, {}),
                             out, n, ::cuda::std::plus<float>{}, 0.f, true, 0, options, plan);
    });
  }
  return 0;
}
