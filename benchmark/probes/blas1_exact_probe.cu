// Probe (stop 60, 2026-11-30): the correctly rounded Blas1 calls one at a time, for ncu's kernel
// times and event times: Dot and SumSquares of float and double, Sum of doubles beside them.
// Built against the library of its day: nvcc -O3 -arch=sm_90 -Iinclude
// benchmark/probes/blas1_exact_probe.cu build/libgpureduce.a -o blas1_exact_probe
#include <cstdio>
#include <cstdlib>
#include "gpureduce/blas.hpp"
#include "gpureduce/gpureduce.hpp"
#define CK(x) do { cudaError_t e_ = (x); if (e_) { printf("%s: %s %s\n", #x, cudaGetErrorString(e_), gpureduce::last_error_message()); exit(1);} } while (0)
template <class T> __global__ void fill(T* p, long n, unsigned salt) {
  for (long i = blockIdx.x * 256L + threadIdx.x; i < n; i += gridDim.x * 256L) {
    unsigned long long h = (i + salt) * 0x9E3779B97F4A7C15ull; h ^= h >> 31; h *= 0xBF58476D1CE4E5B9ull; h ^= h >> 29;
    p[i] = T(double(h >> 11) * 0x1p-53 * 2.0 - 1.0);
  }
}
template <class Call> float time_us(Call call) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  float best = 1e9f;
  for (int rep = 0; rep < 20; ++rep) {
    CK(cudaDeviceSynchronize()); CK(cudaEventRecord(a)); CK(call()); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
    float ms = 0; CK(cudaEventElapsedTime(&ms, a, b)); best = ms * 1000 < best ? ms * 1000 : best;
  }
  return best;
}
template <class T> void run(long n) {
  T *x, *y, *out; CK(cudaMalloc(&x, n * sizeof(T))); CK(cudaMalloc(&y, n * sizeof(T))); CK(cudaMalloc(&out, 64));
  fill<<<1024, 256>>>(x, n, 7); fill<<<1024, 256>>>(y, n, 99); CK(cudaDeviceSynchronize());
  void* temp; size_t big = 64 << 20; CK(cudaMalloc(&temp, big));
  gpureduce::Options cr; cr.accuracy = gpureduce::Accuracy::correctly_rounded;
  const float dot = time_us([&] { size_t b = big; return gpureduce::Blas1::Dot(temp, b, x, y, out, n, nullptr, cr); });
  const float squares = time_us([&] { size_t b = big; return gpureduce::Blas1::SumSquares(temp, b, x, out, n, nullptr, cr); });
  const float sum = time_us([&] { size_t b = big; return gpureduce::DeviceReduce::Sum(temp, b, x, out, n, nullptr, cr); });
  printf("%s n=%ld: Dot %.2f us, SumSquares %.2f us, Sum %.2f us (best of 20)\n", sizeof(T) == 8 ? "f64" : "f32", n, dot, squares, sum);
  cudaFree(x); cudaFree(y); cudaFree(out); cudaFree(temp);
}
int main(int argc, char** argv) {
  for (long n : {1L << 10, 1L << 16, 1L << 22, 1L << 26}) { run<float>(n); run<double>(n); }
}
