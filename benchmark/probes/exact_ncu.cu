// Probe: kernels to time under ncu: CUB, default, CR with several pipelines.
#include <cub/device/device_reduce.cuh>
#include <cstdio>
#include "gpureduce/gpureduce.hpp"
#define CK(x) do { cudaError_t e_ = (x); if (e_) { printf("%s: %s %s\n", #x, cudaGetErrorString(e_), gpureduce::last_error_message()); exit(1);} } while (0)
template <class T> __global__ void fill(T* p, long n) {
  for (long i = blockIdx.x * 256L + threadIdx.x; i < n; i += gridDim.x * 256L) {
    unsigned long long h = (i + 77) * 0x9E3779B97F4A7C15ull; h ^= h >> 31; h *= 0xBF58476D1CE4E5B9ull; h ^= h >> 29;
    p[i] = T(double(h >> 11) * 0x1p-53 * 2.0 - 1.0);
  }
}
template <class T> void run(long n) {
  T* in; T* out; CK(cudaMalloc(&in, n * sizeof(T))); CK(cudaMalloc(&out, 16 * sizeof(T)));
  fill<<<1024, 256>>>(in, n); CK(cudaDeviceSynchronize());
  size_t cub_bytes = 0; cub::DeviceReduce::Sum(nullptr, cub_bytes, in, out, n); void* cub_temp; CK(cudaMalloc(&cub_temp, cub_bytes));
  void* temp; size_t big = 64 << 20; CK(cudaMalloc(&temp, big));
  for (int rep = 0; rep < 3; ++rep) {
    cub::DeviceReduce::Sum(cub_temp, cub_bytes, in, out, n);
    size_t b = big; CK(gpureduce::DeviceReduce::Sum(temp, b, in, out + 1, n));
    for (auto p : {gpureduce::Pipeline::automatic, gpureduce::Pipeline::last_block, gpureduce::Pipeline::two_kernel}) {
      gpureduce::Options cr; cr.accuracy = gpureduce::Accuracy::correctly_rounded; cr.pipeline = p;
      b = big; CK(gpureduce::DeviceReduce::Sum(temp, b, in, out + 2, n, nullptr, cr));
    }
  }
  CK(cudaDeviceSynchronize());
  cudaFree(in); cudaFree(out); cudaFree(cub_temp); cudaFree(temp);
}
int main() {
  for (long n : {1L << 10, 1L << 14, 1L << 16, 1L << 20, 1L << 22}) { run<float>(n); run<double>(n); }
}
