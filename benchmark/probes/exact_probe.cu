// Probe: per-call time of CUB Sum, gpureduce default and correctly rounded.
#include <cub/device/device_reduce.cuh>
#include <cstdio>
#include <vector>
#include <algorithm>
#include <random>
#include "gpureduce/gpureduce.hpp"
#define CK(x) do { cudaError_t e_ = (x); if (e_) { printf("%s: %s %s\n", #x, cudaGetErrorString(e_), gpureduce::last_error_message()); exit(1);} } while (0)
template <class T> __global__ void fill(T* p, long n, unsigned long long seed) {
  for (long i = blockIdx.x * 256L + threadIdx.x; i < n; i += gridDim.x * 256L) {
    unsigned long long h = (i + seed) * 0x9E3779B97F4A7C15ull; h ^= h >> 31; h *= 0xBF58476D1CE4E5B9ull; h ^= h >> 29;
    p[i] = T(double(h >> 11) * 0x1p-53 * 2.0 - 1.0);
  }
}
template <class T> void run(const char* name) {
  const long maxn = 1L << 28;
  T* in; T* out; CK(cudaMalloc(&in, maxn * sizeof(T))); CK(cudaMalloc(&out, 16 * sizeof(T)));
  fill<<<2048, 256>>>(in, maxn, 1234); CK(cudaDeviceSynchronize());
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  printf("%s: n, cub us, default us, CR us, CR/cub, default/cub, CR GB/s\n", name);
  for (long n = 1L << 10; n <= maxn; n *= 4) {
    size_t cub_bytes = 0; cub::DeviceReduce::Sum(nullptr, cub_bytes, in, out, n); void* cub_temp; CK(cudaMalloc(&cub_temp, cub_bytes));
    gpureduce::Options cr; cr.accuracy = gpureduce::Accuracy::correctly_rounded;
    size_t d_bytes = 0, c_bytes = 0; CK(gpureduce::DeviceReduce::Sum(nullptr, d_bytes, in, out, n)); CK(gpureduce::DeviceReduce::Sum(nullptr, c_bytes, in, out, n, nullptr, cr));
    void *d_temp, *c_temp; CK(cudaMalloc(&d_temp, d_bytes)); CK(cudaMalloc(&c_temp, c_bytes));
    auto time = [&](auto call) { std::vector<float> t; for (int r = 0; r < 60; ++r) { cudaEventRecord(a); call(); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); if (r >= 10) t.push_back(ms * 1000); } std::sort(t.begin(), t.end()); return t[t.size()/2]; };
    float tc = time([&] { cub::DeviceReduce::Sum(cub_temp, cub_bytes, in, out, n); });
    float td = time([&] { CK(gpureduce::DeviceReduce::Sum(d_temp, d_bytes, in, out + 1, n)); });
    float tr = time([&] { CK(gpureduce::DeviceReduce::Sum(c_temp, c_bytes, in, out + 2, n, nullptr, cr)); });
    CK(cudaDeviceSynchronize());
    T h[3]; CK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
    gpureduce::LaunchPlan plan; gpureduce::DeviceReduce::PlanSum<T, T>(plan, in, n, cr);
    printf("%10ld %8.2f %8.2f %8.2f %6.3f %6.3f %8.1f  cub=%.9g cr=%.9g  %s\n", n, tc, td, tr, tr / tc, td / tc, n * sizeof(T) / tr / 1e3, double(h[0]), double(h[2]), gpureduce::describe(plan).substr(0, 60).c_str());
    cudaFree(cub_temp); cudaFree(d_temp); cudaFree(c_temp);
  }
  cudaFree(in); cudaFree(out);
}
int main() { run<float>("f32"); run<double>("f64"); }
