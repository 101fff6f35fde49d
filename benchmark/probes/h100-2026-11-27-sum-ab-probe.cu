// A/B probe (H100, 2026-11-27): float sums through reduce_input with default Options, as
// TransformReduce with the identity (InputReader would link the exact engine), per call (median
// of 60 single calls between events after a sync) and back to back (20 calls between events), at
// 4M, 16M, 64M, 256M. Output: benchmark/results/h100-2026-11-27-sum-ab-probe.txt. Built once against each tree's headers (dc71d9b and 0e2203c: VectorFold
// replacing the vectorized rung's fold lambda), run alternately on one H100:
//   nvcc -O3 -arch=sm_90 -std=c++17 -Iinclude benchmark/probes/h100-2026-11-27-sum-ab-probe.cu \
//        src/*.cpp -o sum_probe
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "gpureduce/detail/dispatch.cuh"
#include "gpureduce/detail/readers.cuh"
namespace d = gpureduce::detail;
#define OK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { std::printf("%s: %s\n", #call, cudaGetErrorString(e_)); std::exit(1); } } while (0)
__global__ void fill(float* x, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x)
    x[i] = float((i * 2654435761u) % 1000003u) / 1000003.0f - 0.5f;
}
int main() {
  const std::int64_t max_n = std::int64_t(1) << 28;
  float* x; OK(cudaMalloc(&x, max_n * sizeof(float)));
  fill<<<1024, 256>>>(x, max_n); OK(cudaGetLastError());
  float* out; OK(cudaMalloc(&out, sizeof(float)));
  void* temp; const std::size_t temp_bytes = 64 << 20; OK(cudaMalloc(&temp, temp_bytes));
  gpureduce::Options options;
  cudaEvent_t a, b; OK(cudaEventCreate(&a)); OK(cudaEventCreate(&b));
  for (std::int64_t n : {std::int64_t(1) << 22, std::int64_t(1) << 24, std::int64_t(1) << 26, max_n}) {
    auto call = [&] { std::size_t bytes = temp_bytes;
      return d::reduce_input(temp, &bytes, d::TransformReader<float, float, d::Identity>(x, d::Identity{}), out, n, ::cuda::std::plus<float>{}, 0.f, true, 0, options, nullptr); };
    std::vector<float> single, burst;
    for (int it = 0; it < 70; ++it) {
      OK(cudaDeviceSynchronize()); OK(cudaEventRecord(a)); OK(call()); OK(cudaEventRecord(b)); OK(cudaEventSynchronize(b));
      float ms; OK(cudaEventElapsedTime(&ms, a, b)); if (it >= 10) single.push_back(ms * 1000);
    }
    for (int it = 0; it < 15; ++it) {
      OK(cudaDeviceSynchronize()); OK(cudaEventRecord(a)); for (int k = 0; k < 20; ++k) OK(call()); OK(cudaEventRecord(b)); OK(cudaEventSynchronize(b));
      float ms; OK(cudaEventElapsedTime(&ms, a, b)); if (it >= 5) burst.push_back(ms * 1000 / 20);
    }
    std::sort(single.begin(), single.end()); std::sort(burst.begin(), burst.end());
    std::printf("| sum f32 | %lld | %.2f | %.2f |\n", (long long)n, single[single.size() / 2], burst[burst.size() / 2]);
  }
  return 0;
}
