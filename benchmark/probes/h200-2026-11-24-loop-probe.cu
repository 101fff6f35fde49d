// Probe (H200, 2026-11-24; output in benchmark/results/h200-2026-11-24-loop-probe.txt): built against
// the library of its day, nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude loop_probe.cu build/libgpureduce.a.
// Probe: what bounds the correctly rounded float loop on an H200? Variants of the per-thread loop
// over 256M floats (uniform [-1,1)), one wave of 256-thread blocks, 4 x 16-byte loads in flight,
// plus the library's own calls (default, correctly rounded) and CUB for reference.
#include <cub/device/device_reduce.cuh>
#include <cstdio>
#include <vector>
#include <algorithm>
#include "gpureduce/gpureduce.hpp"
#define CK(...) do { cudaError_t e_ = (__VA_ARGS__); if (e_) { printf("%s: %s %s\n", #__VA_ARGS__, cudaGetErrorString(e_), gpureduce::last_error_message()); exit(1);} } while (0)

__global__ void fill(float* p, long n) {
  for (long i = blockIdx.x * 256L + threadIdx.x; i < n; i += gridDim.x * 256L) {
    unsigned long long h = (i + 77) * 0x9E3779B97F4A7C15ull; h ^= h >> 31; h *= 0xBF58476D1CE4E5B9ull; h ^= h >> 29;
    long k = long(h % (2ull << 24)) - (1l << 24); if (k >= 0) ++k;
    p[i] = ldexpf(float(k), -24);
  }
}
__device__ __forceinline__ int bin(float x) { return (__float_as_uint(x) >> 27) & 15; }
// Exact float -> double by integer ops (normal floats only).
__device__ __forceinline__ double widen_int(float x) {
  const unsigned b = __float_as_uint(x);
  const unsigned hi = (b & 0x80000000u) | (((b >> 23) & 255u) + 896u) << 20 | ((b >> 3) & 0xFFFFFu);
  return __hiloint2double(int(hi), int(b << 29));
}
template <int V>
__global__ void __launch_bounds__(256, 4) loop(const float* in, long n, double* out) {
  const uint4* vec = reinterpret_cast<const uint4*>(in);
  const long nv = n / 4, stride = long(gridDim.x) * blockDim.x;
  double acc = 0, acc2 = 0; float facc = 0; int hot = -1, warm = -1; long long iacc = 0;
  for (long v = blockIdx.x * long(blockDim.x) + threadIdx.x; v + 3 * stride < nv; v += 4 * stride) {
    uint4 r[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) r[k] = __ldg(vec + v + k * stride);
    float x[16];
    memcpy(x, r, 64);
    if constexpr (V == 0) {
#pragma unroll
      for (int j = 0; j < 16; ++j) facc += x[j];
    } else if constexpr (V == 1) {  // convert + one serial double chain
#pragma unroll
      for (int j = 0; j < 16; ++j) acc += double(x[j]);
    } else if constexpr (V == 2) {  // convert + tree
      double d[16];
#pragma unroll
      for (int j = 0; j < 16; ++j) d[j] = double(x[j]);
#pragma unroll
      for (int w = 1; w < 16; w *= 2)
#pragma unroll
        for (int j = 0; j + w < 16; j += 2 * w) d[j] += d[j + w];
      acc += d[0];
    } else if constexpr (V == 3) {  // per-element bin check with branches (the old loop's shape)
#pragma unroll
      for (int j = 0; j < 16; ++j) {
        int b = bin(x[j]);
        if (x[j] == 0.0f && hot >= 0) b = hot;
        if (b == hot) acc += double(x[j]);
        else if (b == warm) acc2 += double(x[j]);
        else { warm = hot; acc2 = acc; hot = b; acc = double(x[j]); }
      }
    } else if constexpr (V == 4) {  // integer widening + tree
      double d[16];
#pragma unroll
      for (int j = 0; j < 16; ++j) d[j] = widen_int(x[j]);
#pragma unroll
      for (int w = 1; w < 16; w *= 2)
#pragma unroll
        for (int j = 0; j + w < 16; j += 2 * w) d[j] += d[j + w];
      acc += d[0];
    } else if constexpr (V == 5) {  // integers: mantissa << (exponent & 15), signed, int64 adds
#pragma unroll
      for (int j = 0; j < 16; ++j) {
        const unsigned b = __float_as_uint(x[j]);
        long long m = (long long)((b & 0x7FFFFFu) | 0x800000u) << ((b >> 23) & 15u);
        iacc += (b >> 31) ? -m : m;
      }
    } else if constexpr (V == 6) {  // tree with bin check mask (the new loop's shape)
      unsigned mask = 0;
      if (hot < 0) hot = bin(x[0]);
#pragma unroll
      for (int j = 0; j < 16; ++j) mask |= unsigned((bin(x[j]) == hot) | (x[j] == 0.0f)) << j;
      if (mask == 0xFFFFu) {
#pragma unroll
        for (int c = 0; c < 16; c += 8) {
          double d[8];
#pragma unroll
          for (int j = 0; j < 8; ++j) d[j] = double(x[c + j]);
#pragma unroll
          for (int w = 1; w < 8; w *= 2)
#pragma unroll
            for (int j = 0; j + w < 8; j += 2 * w) d[j] += d[j + w];
          acc += d[0];
        }
      } else {
        acc2 += 1;
      }
    }
  }
  if (facc + acc + acc2 + double(iacc) == 12345.678) out[0] = acc;  // keep the work
}
template <int V>
float time_loop(const float* in, long n, double* out, int grid, int shared = 0) {
  if (shared > 0) CK(cudaFuncSetAttribute(loop<V>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<float> t;
  for (int r = 0; r < 15; ++r) {
    cudaEventRecord(a); loop<V><<<grid, 256, shared>>>(in, n, out); cudaEventRecord(b); cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms * 1000);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
template <class F> float time_call(F f) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b); std::vector<float> t;
  for (int r = 0; r < 15; ++r) { cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms * 1000); }
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
int main() {
  const long n = 1L << 28;
  float* in; double* out; float* fout; CK(cudaMalloc(&in, n * 4)); CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&fout, 64));
  fill<<<4096, 256>>>(in, n); CK(cudaDeviceSynchronize());
  int sms = 0; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const char* names[] = {"float adds (read floor)", "convert + serial double", "convert + tree", "per-element bins, branches (old)", "integer widen + tree", "int64 mantissa shifts", "mask check + trees (new)"};
  for (int per_sm : {2, 4}) {
    const int grid = sms * per_sm;
    float t[7] = {time_loop<0>(in, n, out, grid), time_loop<1>(in, n, out, grid), time_loop<2>(in, n, out, grid), time_loop<3>(in, n, out, grid), time_loop<4>(in, n, out, grid), time_loop<5>(in, n, out, grid), time_loop<6>(in, n, out, grid)};
    for (int v = 0; v < 7; ++v) printf("grid %4d  %-34s %8.2f us  %6.0f GB/s\n", grid, names[v], t[v], n * 4 / t[v] / 1e3);
  }
  for (int carve : {-1, 100}) {
    if (carve >= 0) CK(cudaFuncSetAttribute(loop<6>, cudaFuncAttributePreferredSharedMemoryCarveout, carve));
    int occ = 0; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, loop<6>, 256, 36 << 10));
    printf("grid %4d  new loop + 36 KiB dynamic shared, carveout %d (occupancy %d): %8.2f us\n", sms * 4, carve, occ, time_loop<6>(in, n, out, sms * 4, 36 << 10));
  }
  size_t cb = 0; cub::DeviceReduce::Sum(nullptr, cb, in, fout, n); void* ct; CK(cudaMalloc(&ct, cb));
  void* temp; size_t big = 64 << 20; CK(cudaMalloc(&temp, big));
  gpureduce::Options cr; cr.accuracy = gpureduce::Accuracy::correctly_rounded;
  gpureduce::LaunchPlan plan; CK(gpureduce::DeviceReduce::PlanSum<float, float>(plan, in, n, cr));
  printf("CR plan: grid %d x %d\n", plan.grid_blocks, plan.block_threads);
  printf("cub             %8.2f us\n", time_call([&] { cub::DeviceReduce::Sum(ct, cb, in, fout, n); }));
  printf("gpureduce       %8.2f us\n", time_call([&] { size_t b = big; gpureduce::DeviceReduce::Sum(temp, b, in, fout + 1, n); }));
  printf("gpureduce CR    %8.2f us\n", time_call([&] { size_t b = big; gpureduce::DeviceReduce::Sum(temp, b, in, fout + 2, n, nullptr, cr); }));
  CK(cudaDeviceSynchronize());
}
