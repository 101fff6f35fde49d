// Probe (2026-11-25, H100; output benchmark/results/h100-2026-11-25-exact-probe.txt, built against
// the library of this commit): per-call medians of cub::DeviceReduce::Sum, gpureduce's default Sum and
// its correctly rounded Sum, for f32, f64, f16 -> f32 and bf16 -> f32, on two inputs (uniform in
// [-1, 1), and the benchmark's integers in [-16, 16] without 0), 2^10 .. 2^28 items. Each
// repetition times the three calls between CUDA events in rotating order; an empty kernel is the
// launch floor. `probe ncu TYPE N` instead makes a few correctly rounded calls for ncu.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude PROBE -Lbuild-gpu -lgpureduce
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <cub/device/device_reduce.cuh>
#include <string>
#include <vector>

#include "gpureduce/gpureduce.hpp"

#define CK(...)                                                                                 \
  do {                                                                                          \
    cudaError_t e_ = (__VA_ARGS__);                                                                     \
    if (e_) {                                                                                   \
      printf("%s: %s %s\n", #__VA_ARGS__, cudaGetErrorString(e_), gpureduce::last_error_message());      \
      exit(1);                                                                                  \
    }                                                                                           \
  } while (0)

template <class T>
__global__ void fill(T* p, long n, int shape, unsigned long long seed) {
  for (long i = blockIdx.x * 256L + threadIdx.x; i < n; i += gridDim.x * 256L) {
    unsigned long long h = (i + seed) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    double v = shape == 0 ? double(h >> 11) * 0x1p-53 * 2.0 - 1.0 : double(int(h % 32) - 16);
    if (shape == 1 && v >= 0) v += 1;  // [-16, 16] without 0
    p[i] = T(v);
  }
}
__global__ void empty_kernel() {}

template <class T>
struct OutOf {
  using type = T;
};
template <>
struct OutOf<__half> {
  using type = float;
};
template <>
struct OutOf<__nv_bfloat16> {
  using type = float;
};

// CUB's Sum of a half or bfloat16 into float is ambiguous in CCCL 3.0 (plus<void>(float, __half)):
// Reduce with plus<float> and a float init, as the benchmark does.
template <class T, class Out>
cudaError_t cub_sum(void* temp, size_t& bytes, const T* in, Out* out, long n) {
  if constexpr (std::is_same_v<T, Out>) return cub::DeviceReduce::Sum(temp, bytes, in, out, n);
  else return cub::DeviceReduce::Reduce(temp, bytes, in, out, n, ::cuda::std::plus<Out>{}, Out{});
}

template <class T>
void table(const char* name, int shape, std::vector<long> sizes) {
  using Out = typename OutOf<T>::type;
  const long maxn = sizes.back();
  T* in;
  Out* out;
  CK(cudaMalloc(&in, maxn * sizeof(T)));
  CK(cudaMalloc(&out, 16 * sizeof(Out)));
  fill<<<2048, 256>>>(in, maxn, shape, 1234);
  CK(cudaDeviceSynchronize());
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  printf("\n%s %s: n | cub us | default us | CR us | CR/cub | default/cub | empty us | CR plan\n", name,
         shape == 0 ? "uniform[-1,1)" : "ints[-16,16]");
  for (long n : sizes) {
    size_t cub_bytes = 0;
    cub_sum(nullptr, cub_bytes, in, out, n);
    void* cub_temp;
    CK(cudaMalloc(&cub_temp, cub_bytes));
    gpureduce::Options cr;
    cr.accuracy = gpureduce::Accuracy::correctly_rounded;
    size_t d_bytes = 0, c_bytes = 0;
    CK(gpureduce::DeviceReduce::Sum(nullptr, d_bytes, in, out, n));
    CK(gpureduce::DeviceReduce::Sum(nullptr, c_bytes, in, out, n, nullptr, cr));
    void *d_temp, *c_temp;
    CK(cudaMalloc(&d_temp, d_bytes));
    CK(cudaMalloc(&c_temp, c_bytes));
    std::vector<float> t[4];
    auto call = [&](int k) {
      if (k == 0) cub_sum(cub_temp, cub_bytes, in, out, n);
      if (k == 1) CK(gpureduce::DeviceReduce::Sum(d_temp, d_bytes, in, out + 1, n));
      if (k == 2) CK(gpureduce::DeviceReduce::Sum(c_temp, c_bytes, in, out + 2, n, nullptr, cr));
      if (k == 3) empty_kernel<<<1, 32>>>();
    };
    for (int r = 0; r < 40; ++r)
      for (int j = 0; j < 4; ++j) {
        const int k = (j + r) % 4;
        CK(cudaDeviceSynchronize());
        cudaEventRecord(a);
        call(k);
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms;
        cudaEventElapsedTime(&ms, a, b);
        if (r >= 10) t[k].push_back(ms * 1000);
      }
    float med[4];
    for (int k = 0; k < 4; ++k) {
      std::sort(t[k].begin(), t[k].end());
      med[k] = t[k][t[k].size() / 2];
    }
    gpureduce::LaunchPlan plan;
    CK(gpureduce::DeviceReduce::PlanSum<T, Out>(plan, in, n, cr));
    printf("%10ld | %8.2f | %8.2f | %8.2f | %6.3f | %6.3f | %6.2f | %s\n", n, med[0], med[1], med[2],
           med[2] / med[0], med[1] / med[0], med[3], gpureduce::describe(plan).substr(0, 70).c_str());
    cudaFree(cub_temp);
    cudaFree(d_temp);
    cudaFree(c_temp);
  }
  cudaFree(in);
  cudaFree(out);
}

template <class T>
void for_ncu(long n, int shape) {
  using Out = typename OutOf<T>::type;
  T* in;
  Out* out;
  CK(cudaMalloc(&in, n * sizeof(T)));
  CK(cudaMalloc(&out, 16 * sizeof(Out)));
  fill<<<2048, 256>>>(in, n, shape, 1234);
  size_t cub_bytes = 0;
  cub_sum(nullptr, cub_bytes, in, out, n);
  void* cub_temp;
  CK(cudaMalloc(&cub_temp, cub_bytes));
  gpureduce::Options cr;
  cr.accuracy = gpureduce::Accuracy::correctly_rounded;
  size_t c_bytes = 0;
  CK(gpureduce::DeviceReduce::Sum(nullptr, c_bytes, in, out, n, nullptr, cr));
  void* c_temp;
  CK(cudaMalloc(&c_temp, c_bytes));
  for (int r = 0; r < 3; ++r) {
    cub_sum(cub_temp, cub_bytes, in, out, n);
    CK(gpureduce::DeviceReduce::Sum(c_temp, c_bytes, in, out + 2, n, nullptr, cr));
  }
  CK(cudaDeviceSynchronize());
}


// Loop variants over 16-byte vectors, 4 in flight, one wave of 256-thread blocks (4 an SM): what
// the conversions and double adds cost at full bandwidth, apart from the library.
//   0: halves widened to float, float adds        1: halves to double, one double (a tree of 8)
//   2: floats, float adds                         3: floats to double, one double (a tree of 4)
//   4: bf16 widened to float, float adds          5: bf16 to double, one double (a tree of 8)
template <int V>
__global__ void __launch_bounds__(256, 4) loop_kernel(const uint4* in, long vectors, double* out) {
  const long stride = long(gridDim.x) * 256;
  float f = 0;
  double d = 0;
  for (long v = blockIdx.x * 256L + threadIdx.x; v < vectors; v += 4 * stride) {
    uint4 raw[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) raw[k] = v + k * stride < vectors ? __ldg(in + v + k * stride) : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      unsigned w[4] = {raw[k].x, raw[k].y, raw[k].z, raw[k].w};
      if constexpr (V == 0 || V == 1 || V == 4 || V == 5) {
        double e[8];
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          float lo, hi;
          if constexpr (V == 0 || V == 1) {
            __half2 h;
            memcpy(&h, &w[j], 4);
            float2 x = __half22float2(h);
            lo = x.x, hi = x.y;
          } else {
            lo = __uint_as_float(w[j] << 16);
            hi = __uint_as_float(w[j] & 0xffff0000u);
          }
          if constexpr (V == 0 || V == 4) f += lo + hi;
          else e[2 * j] = lo, e[2 * j + 1] = hi;
        }
        if constexpr (V == 1 || V == 5) d += ((e[0] + e[1]) + (e[2] + e[3])) + ((e[4] + e[5]) + (e[6] + e[7]));
      } else {
        float x[4] = {__uint_as_float(w[0]), __uint_as_float(w[1]), __uint_as_float(w[2]), __uint_as_float(w[3])};
        if constexpr (V == 2) f += (x[0] + x[1]) + (x[2] + x[3]);
        else d += (double(x[0]) + double(x[1])) + (double(x[2]) + double(x[3]));
      }
    }
  }
  if (f + d == 12345.678) out[0] = f + d;  // keeps the loop
}
template <int V>
float time_loop(const uint4* in, long vectors, double* out, int grid) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> t;
  for (int r = 0; r < 30; ++r) {
    cudaEventRecord(a);
    loop_kernel<V><<<grid, 256>>>(in, vectors, out);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    if (r >= 5) t.push_back(ms * 1000);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
void loops() {
  const long bytes = 1L << 30;
  uint4* in;
  double* out;
  CK(cudaMalloc(&in, bytes));
  CK(cudaMalloc(&out, 64));
  fill<<<2048, 256>>>(reinterpret_cast<float*>(in), bytes / 4, 0, 99);
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const long vectors = bytes / 16;
  printf("\nloops over 1 GiB, grid %d x 256 (us, GB/s):\n", 4 * sms);
  const float t[6] = {time_loop<0>(in, vectors, out, 4 * sms), time_loop<1>(in, vectors, out, 4 * sms),
                      time_loop<2>(in, vectors, out, 4 * sms), time_loop<3>(in, vectors, out, 4 * sms),
                      time_loop<4>(in, vectors, out, 4 * sms), time_loop<5>(in, vectors, out, 4 * sms)};
  const char* names[6] = {"f16 float adds", "f16 to double", "f32 float adds", "f32 to double",
                          "bf16 float adds", "bf16 to double"};
  for (int v = 0; v < 6; ++v) printf("  %-16s %8.1f us %7.1f GB/s\n", names[v], t[v], bytes / t[v] / 1e3);
  cudaFree(in);
  cudaFree(out);
}

// `probe grid TYPE` (added 2026-11-26; run that evening on an H200, docs/tuning.md): correctly rounded calls at a few grids
// (Options::grid_blocks; 0 = automatic's rule) from 2^20 to 2^26 uniform inputs, each grid's calls
// back to back, against CUB: whether fewer, longer-lived threads pay the per-warp fixed costs
// (docs/tuning.md, 'bfloat16 at 2^24-2^26 stays 1.17-1.47x') less often.
template <class T>
void grids() {
  using Out = typename OutOf<T>::type;
  const long maxn = 1L << 26;
  T* in;
  Out* out;
  CK(cudaMalloc(&in, maxn * sizeof(T)));
  CK(cudaMalloc(&out, 16 * sizeof(Out)));
  fill<<<2048, 256>>>(in, maxn, 0, 1234);
  CK(cudaDeviceSynchronize());
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  auto median_us = [&](auto&& call) {
    std::vector<float> t;
    for (int r = 0; r < 40; ++r) {
      cudaEventRecord(a);
      call();
      cudaEventRecord(b);
      cudaEventSynchronize(b);
      float ms;
      cudaEventElapsedTime(&ms, a, b);
      if (r >= 10) t.push_back(ms * 1000);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  };
  const int grid_list[] = {0, 66, 132, 264, 528};
  printf("\nn | cub us | CR us at grid_blocks 0 (automatic), 66, 132, 264, 528\n");
  for (long n = 1L << 20; n <= maxn; n *= 4) {
    size_t cub_bytes = 0;
    cub_sum(nullptr, cub_bytes, in, out, n);
    void* cub_temp;
    CK(cudaMalloc(&cub_temp, cub_bytes));
    printf("%10ld | %8.2f", n, median_us([&] { cub_sum(cub_temp, cub_bytes, in, out, n); }));
    for (int g : grid_list) {
      gpureduce::Options cr;
      cr.accuracy = gpureduce::Accuracy::correctly_rounded;
      cr.grid_blocks = g;
      size_t bytes = 0;
      CK(gpureduce::DeviceReduce::Sum(nullptr, bytes, in, out, n, nullptr, cr));
      void* temp;
      CK(cudaMalloc(&temp, bytes));
      printf(" | %8.2f", median_us([&] { CK(gpureduce::DeviceReduce::Sum(temp, bytes, in, out + 2, n, nullptr, cr)); }));
      cudaFree(temp);
    }
    printf("\n");
    cudaFree(cub_temp);
  }
  cudaFree(in);
  cudaFree(out);
}

int main(int argc, char** argv) {
  if (argc >= 2 && !strcmp(argv[1], "loops")) return loops(), 0;
  if (argc >= 3 && !strcmp(argv[1], "grid")) {
    const std::string type = argv[2];
    if (type == "f32") grids<float>();
    if (type == "f64") grids<double>();
    if (type == "f16") grids<__half>();
    if (type == "bf16") grids<__nv_bfloat16>();
    return 0;
  }
  if (argc >= 4 && !strcmp(argv[1], "ncu")) {
    const std::string type = argv[2];
    const long n = atol(argv[3]);
    const int shape = argc >= 5 ? atoi(argv[4]) : 0;
    if (type == "f32") for_ncu<float>(n, shape);
    if (type == "f64") for_ncu<double>(n, shape);
    if (type == "f16") for_ncu<__half>(n, shape);
    if (type == "bf16") for_ncu<__nv_bfloat16>(n, shape);
    return 0;
  }
  std::vector<long> sizes;
  for (long n = 1L << 10; n <= (1L << 28); n *= 4) sizes.push_back(n);
  const std::string only = argc >= 2 ? argv[1] : "";
  for (int shape = 0; shape < 2; ++shape) {
    if (only.empty() || only == "f32") table<float>("f32", shape, sizes);
    if (only.empty() || only == "f16") table<__half>("f16", shape, sizes);
    if (only.empty() || only == "bf16") table<__nv_bfloat16>("bf16", shape, sizes);
    if (only.empty() || only == "f64") table<double>("f64", shape, sizes);
  }
}
