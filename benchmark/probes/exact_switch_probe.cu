// Probe (2026-11-30, H200): why automatic's one-block correctly rounded Sum loses per call to
// cub::DeviceReduce::Sum (f32 4K 1.03-1.04x, f16 4K 1.04-1.05x, f64 1K 1.05-1.06x paired) while in
// graphs it takes 0.85-0.9 of CUB's time, with a host path no longer than CUB's
// (h200-2026-11-29-exact-cluster-ab.txt). Suspects: what the GPU pays when the kernel it launches
// differs from the one before (the shared-memory carveout, cold instruction caches), which a graph
// of 20 like calls never pays. Each call X is timed between CUDA events on an idle GPU right after
// a call Y (synchronized), medians of 41, for every (X, Y): X after itself against X after another.
// (CUB's half sums as gpureduce_bench calls them: Reduce with plus<float>.) Also empty kernels of 256 threads with 0 to 48 KiB of dynamic shared memory after each other.
//   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -Ibenchmark/probes \
//        benchmark/probes/exact_switch_probe.cu build/libgpureduce.a -o exact_switch_probe
#include <cuda_fp16.h>

#include <cub/device/device_reduce.cuh>
#include <gpureduce/gpureduce.hpp>

#include <string>
#include <vector>

#include "probe_timing.cuh"

__global__ void empty_kernel() {
  extern __shared__ unsigned char shared[];
  if (threadIdx.x == 1024) shared[0] = 0;  // never: the allocation alone
}
__global__ void fill(float* f, double* d, __half* h, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned v = unsigned(i) * 2654435761u ^ 0x9e3779b9u;
    v ^= v >> 15, v *= 2246822519u, v ^= v >> 13;
    const float x = float(v >> 8) / float(1 << 23) - 1.0f;  // uniform in [-1, 1)
    f[i] = x, d[i] = x, h[i] = __float2half(x);
  }
}

struct Named {
  std::string name;
  std::function<void()> call;
};

// X's idle time right after Y, medians of 41 (both orders of every pair interleaved).
void matrix(const std::vector<Named>& calls) {
  cudaEvent_t e[2];
  for (auto& ev : e) CHECK(cudaEventCreate(&ev));
  for (int w = 0; w < 3; ++w)
    for (auto& c : calls) c.call();
  const std::size_t k = calls.size();
  std::vector<std::vector<double>> t(k * k);
  for (int round = 0; round < 41; ++round)
    for (std::size_t x = 0; x < k; ++x)
      for (std::size_t y = 0; y < k; ++y) {
        calls[y].call();
        CHECK(cudaDeviceSynchronize());
        t[x * k + y].push_back(idle_call_us(calls[x].call, e));
      }
  std::printf("%-22s", "X \\ after Y");
  for (const auto& c : calls) std::printf(" %12s", c.name.c_str());
  std::printf("\n");
  for (std::size_t x = 0; x < k; ++x) {
    std::printf("%-22s", calls[x].name.c_str());
    for (std::size_t y = 0; y < k; ++y) std::printf(" %12.2f", median(t[x * k + y]));
    std::printf("\n");
  }
  for (auto& ev : e) CHECK(cudaEventDestroy(ev));
}

int main() {
  const int largest = 1 << 12;
  float *xf, *of;
  double *xd, *od;
  __half* xh;
  void* temp;
  const std::size_t temp_bytes = std::size_t(1) << 20;
  CHECK(cudaMalloc(&xf, largest * 4));
  CHECK(cudaMalloc(&xd, largest * 8));
  CHECK(cudaMalloc(&xh, largest * 2));
  CHECK(cudaMalloc(&of, 64));
  CHECK(cudaMalloc(&od, 64));
  CHECK(cudaMalloc(&temp, temp_bytes));
  fill<<<16, 256>>>(xf, xd, xh, largest);
  CHECK(cudaDeviceSynchronize());
  gpureduce::Options cr;
  cr.accuracy = gpureduce::Accuracy::correctly_rounded;
  auto ours = [=](auto call) {
    return [=] {
      std::size_t b = temp_bytes;
      CHECK(call(temp, b));
    };
  };
  std::printf("# empty kernels, 1 block of 256 threads, dynamic shared bytes as named\n");
  std::vector<Named> empties;
  for (int bytes : {0, 6 << 10, 16 << 10, 36 << 10, 48 << 10})
    empties.push_back({"empty " + std::to_string(bytes >> 10) + "K",
                       [=] { empty_kernel<<<1, 256, bytes>>>(); }});
  matrix(empties);
  for (int n : {1024, 4096}) {
    std::printf("# n = %d, uniform in [-1, 1)\n", n);
    matrix({{"CUB f32", [=] { std::size_t b = temp_bytes; CHECK(cub::DeviceReduce::Sum(temp, b, xf, of + 1, n)); }},
            {"default f32", ours([=](void* t, std::size_t& b) { return gpureduce::DeviceReduce::Sum(t, b, xf, of + 2, n); })},
            {"CR f32", ours([=](void* t, std::size_t& b) { return gpureduce::DeviceReduce::Sum(t, b, xf, of + 3, n, nullptr, cr); })},
            {"CUB f64", [=] { std::size_t b = temp_bytes; CHECK(cub::DeviceReduce::Sum(temp, b, xd, od + 1, n)); }},
            {"CR f64", ours([=](void* t, std::size_t& b) { return gpureduce::DeviceReduce::Sum(t, b, xd, od + 3, n, nullptr, cr); })},
            {"CUB f16", [=] { std::size_t b = temp_bytes; CHECK(cub::DeviceReduce::Reduce(temp, b, xh, of + 4, n, ::cuda::std::plus<float>{}, 0.0f)); }},
            {"CR f16", ours([=](void* t, std::size_t& b) { return gpureduce::DeviceReduce::Sum(t, b, xh, of + 5, n, nullptr, cr); })}});
  }
  return 0;
}
