// Probe (2026-11-29, H200): where a small level-1 call's time goes, host or GPU. For each call
// (ours and the competitor's, as gpureduce_level1_paired pairs them) and n, three medians:
//   idle  the harness's own measure: the call between CUDA events on an idle GPU (the host's
//         path to the launch is in it);
//   busy  the same with a ~40 us spin kernel queued first, so the call is enqueued before the GPU
//         reaches it: GPU time alone (launches and the gaps between a call's kernels);
//   host  wall time of the call's return on the host during the busy form.
// Also an empty kernel launched with <<<>>> and with cudaLaunchKernelEx + the PDL attribute.
// Inputs stay in L2 (no flush), as the harness leaves them below half the L2. Built against the
// library of the commit that adds it:
//   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude benchmark/probes/level1_split.cu \
//        build/libgpureduce.a -lcublas -o level1_split
#include <cublas_v2.h>
#include <cub/device/device_reduce.cuh>
#include <gpureduce/blas.hpp>
#include <gpureduce/device_reduce.cuh>
#include <gpureduce/gpureduce.hpp>

#include <functional>
#include <vector>

#include "probe_timing.cuh"

__global__ void empty_kernel() {}
__global__ void fill(float* x, double* xd, std::int64_t n, unsigned seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u ^ seed;
    h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
    x[i] = float(h >> 8) / float(1 << 23) - 1.0f;
    xd[i] = x[i];
  }
}
struct Square {
  __host__ __device__ float operator()(float v) const { return v * v; }
};

struct Split {
  double idle, busy, host;
};

// Contenders alternated call by call, 41 rounds; returns each one's medians.
std::vector<Split> time_all(const std::vector<std::function<void()>>& calls) {
  cudaEvent_t e[2];
  for (auto& ev : e) CHECK(cudaEventCreate(&ev));
  for (int w = 0; w < 5; ++w)
    for (auto& c : calls) c();
  CHECK(cudaDeviceSynchronize());
  std::vector<std::vector<double>> idle(calls.size()), busy(calls.size()), host_(calls.size());
  for (int round = 0; round < 41; ++round) {
    for (std::size_t k = 0; k < calls.size(); ++k) {
      const std::size_t i = (k + round) % calls.size();
      idle[i].push_back(idle_call_us(calls[i], e));
      spin_kernel<<<1, 1>>>(80000);  // ~40 us at 1.98 GHz
      double host = 0;
      busy[i].push_back(events_around_us([&] { host = host_us(calls[i]); }, e));
      host_[i].push_back(host);
    }
  }
  for (auto& ev : e) CHECK(cudaEventDestroy(ev));
  std::vector<Split> out;
  for (std::size_t i = 0; i < calls.size(); ++i)
    out.push_back({median(idle[i]), median(busy[i]), median(host_[i])});
  return out;
}

int main() {
  const std::int64_t largest = std::int64_t(1) << 22;
  float *x, *y, *f;
  double *xd, *yd, *d;
  void* temp;
  const std::size_t temp_bytes = std::size_t(64) << 20;
  CHECK(cudaMalloc(&x, largest * 4));
  CHECK(cudaMalloc(&y, largest * 4));
  CHECK(cudaMalloc(&xd, largest * 8));
  CHECK(cudaMalloc(&yd, largest * 8));
  CHECK(cudaMalloc(&f, 256));
  CHECK(cudaMalloc(&d, 256));
  CHECK(cudaMalloc(&temp, temp_bytes));
  fill<<<1024, 256>>>(x, xd, largest, 1);
  fill<<<1024, 256>>>(y, yd, largest, 2);
  CHECK(cudaDeviceSynchronize());
  cublasHandle_t blas;
  CHECK(cublasCreate(&blas));
  CHECK(cublasSetPointerMode(blas, CUBLAS_POINTER_MODE_DEVICE));
  auto* idx = reinterpret_cast<std::int64_t*>(d) + 8;
  auto* arg = reinterpret_cast<gpureduce::IndexedValue<float>*>(d + 16);
  cudaLaunchAttribute pdl{};
  pdl.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  pdl.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(1), config.blockDim = dim3(32), config.attrs = &pdl, config.numAttrs = 1;
  const std::vector<std::function<void()>> empties = {
      [] { empty_kernel<<<1, 32>>>(); },
      [&] { CHECK(cudaLaunchKernelEx(&config, empty_kernel)); }};
  const auto e = time_all(empties);
  std::printf("empty <<<>>>: idle %.2f busy %.2f host %.2f us\n", e[0].idle, e[0].busy, e[0].host);
  std::printf("empty Ex+PDL: idle %.2f busy %.2f host %.2f us\n", e[1].idle, e[1].busy, e[1].host);
  std::printf("%-18s %9s | %7s %7s %7s | %7s %7s %7s | %s\n", "call", "n", "idle", "busy", "host",
              "idle", "busy", "host", "ratio idle / busy (ours over theirs)");
  for (std::int64_t n : {std::int64_t(1) << 14, std::int64_t(1) << 16, std::int64_t(1) << 18,
                         std::int64_t(1) << 20, std::int64_t(1) << 22}) {
    auto ours = [&](auto call) {
      return [=] {
        std::size_t b = temp_bytes;
        CHECK(call(temp, b));
      };
    };
    const struct {
      const char* name;
      std::function<void()> ours, theirs;
    } rows[] = {
        {"Sum f32 vs CUB", ours([=](void* t, std::size_t& b) {
           return gpureduce::DeviceReduce::Sum(t, b, x, f, n);
         }),
         [=] { std::size_t b = temp_bytes; CHECK(cub::DeviceReduce::Sum(temp, b, x, f + 1, n)); }},
        {"ArgMin f32", ours([=](void* t, std::size_t& b) {
           return gpureduce::DeviceReduce::ArgMin(t, b, x, arg, n);
         }),
         [=] {
           std::size_t b = temp_bytes;
           CHECK(cub::DeviceReduce::ArgMin(temp, b, x, f + 2, idx, n));
         }},
        {"TransformReduce", ours([=](void* t, std::size_t& b) {
           return gpureduce::TransformReduce(t, b, x, f, n, ::cuda::std::plus<>{}, Square{}, 0.0f);
         }),
         [=] {
           std::size_t b = temp_bytes;
           CHECK(cub::DeviceReduce::TransformReduce(temp, b, x, f + 1, n, ::cuda::std::plus<>{},
                                                    Square{}, 0.0f));
         }},
        {"Dot f64", ours([=](void* t, std::size_t& b) {
           return gpureduce::Blas1::Dot(t, b, xd, yd, d, n);
         }),
         [=] { CHECK(cublasDdot_64(blas, n, xd, 1, yd, 1, d + 1)); }},
        {"SumAbs f32", ours([=](void* t, std::size_t& b) {
           return gpureduce::Blas1::SumAbs(t, b, x, f, n);
         }),
         [=] { CHECK(cublasSasum_64(blas, n, x, 1, f + 1)); }},
        {"ArgMaxAbs f32", ours([=](void* t, std::size_t& b) {
           return gpureduce::Blas1::ArgMaxAbs(t, b, x, arg, n);
         }),
         [=] { CHECK(cublasIsamax_64(blas, n, x, 1, idx)); }},
    };
    for (const auto& r : rows) {
      const auto s = time_all({r.ours, r.theirs});
      std::printf("%-18s %9lld | %7.2f %7.2f %7.2f | %7.2f %7.2f %7.2f | %.3f / %.3f\n", r.name,
                  (long long)n, s[0].idle, s[0].busy, s[0].host, s[1].idle, s[1].busy, s[1].host,
                  s[0].idle / s[1].idle, s[0].busy / s[1].busy);
    }
  }
  CHECK(cublasDestroy(blas));
  return 0;
}
