// Probe (stop 63, 2026-11-30, H200): automatic's correctly rounded float sum at 1M and 4M items,
// three calls each, for Nsight Compute to compare the deep window's kernel across library builds
// (docs/tuning.md, 'More of the deep window on each SM': 256 threads a block against 384). Built
// against each library copy:
//   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -Ibenchmark/probes benchmark/probes/deep_window_ncu.cu \
//        LIB.a -o probe
//   ncu --kernel-name regex:deep_window --launch-skip 2 --launch-count 1 --set full ./probe 4194304
#include "gpureduce/gpureduce.hpp"
#include "probe_timing.cuh"

__global__ void fill(float* p, long n) {  // random integers in [-16, 16] without 0, as the bench
  for (long i = blockIdx.x * 256L + threadIdx.x; i < n; i += gridDim.x * 256L) {
    unsigned long long h = (i + 77) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 31, h *= 0xBF58476D1CE4E5B9ull, h ^= h >> 29;
    const int v = int(h % 32) - 16;
    p[i] = float(v >= 0 ? v + 1 : v);
  }
}

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 1L << 22;
  float *in, *out;
  CHECK(cudaMalloc(&in, n * sizeof(float)));
  CHECK(cudaMalloc(&out, sizeof(float)));
  fill<<<1024, 256>>>(in, n);
  CHECK(cudaDeviceSynchronize());
  gpureduce::Options cr;
  cr.accuracy = gpureduce::Accuracy::correctly_rounded;
  size_t bytes = 0;
  CHECK(gpureduce::DeviceReduce::Sum(nullptr, bytes, in, out, n, nullptr, cr));
  void* temp;
  CHECK(cudaMalloc(&temp, bytes));
  for (int rep = 0; rep < 3; ++rep) CHECK(gpureduce::DeviceReduce::Sum(temp, bytes, in, out, n, nullptr, cr));
  float host = 0;
  CHECK(cudaMemcpy(&host, out, sizeof host, cudaMemcpyDeviceToHost));
  printf("n=%ld sum=%.1f\n", n, host);
}
