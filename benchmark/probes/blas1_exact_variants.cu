// Probe (stop 60, 2026-11-30, H200): Blas1::Dot and SumSquares of doubles, correctly rounded, with
// the library's exact_blas1 code compiled into the probe (so a header edit needs no library
// rebuild): best of 20 event times, inputs by WIDENED (0: 53-bit significands; 1: floats widened;
// 2: doubles made as gpureduce_level1_paired's, floats k 2^-23 - 1 times 1 + 1e-9 (i % 7)), alone and after each
// cublasDdot, with the stack limit printed. Calls 6-7 also built it with `#ifndef PROBE_NO_SLOW` /
// `PROBE_NO_LOW` around DoubleProductFeed's exact-product atomics and its lo adds (timing only).
// Output: benchmark/results/h200-2026-11-30-blas1-exact-probe.txt. Build (one file, the library
// of its day): nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -DWIDENED=2 -DVARIANT='"W2"'
//   benchmark/probes/blas1_exact_variants.cu build/libgpureduce.a -lcublas
#include "gpureduce/detail/exact/blas1_sum.cuh"
namespace gpureduce::detail::exact {
template cudaError_t reduce_blas1_exact<Blas1Term::product, double, double>(const ExactCall&, const double*);
}
namespace gpureduce::detail::exact {
template cudaError_t reduce_blas1_exact<Blas1Term::square, double, double>(const ExactCall&, const double*);
}
#include "gpureduce/blas.hpp"
#include <cstdio>
#include <cstdlib>
#include <cublas_v2.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_) { printf("%s: %s %s\n", #x, cudaGetErrorString(e_), gpureduce::last_error_message()); exit(1);} } while (0)
template <class T> __global__ void fill(T* p, long n, unsigned salt) {
  for (long i = blockIdx.x * 256L + threadIdx.x; i < n; i += gridDim.x * 256L) {
    unsigned long long h = (i + salt) * 0x9E3779B97F4A7C15ull; h ^= h >> 31; h *= 0xBF58476D1CE4E5B9ull; h ^= h >> 29;
    const double v = double(h >> 11) * 0x1p-53 * 2.0 - 1.0;
    const float f = float(h >> 40) / float(1 << 23) - 1.0f;  // floats k 2^-23 - 1, widened as the benchmark does
    p[i] = WIDENED == 2 ? T(double(f) * (1.0 + 1e-9 * double(i % 7))) : WIDENED ? T(float(v)) : T(v);
  }
}
size_t stack_limit() { size_t v = 0; cudaDeviceGetLimit(&v, cudaLimitStackSize); return v; }
int main() {
  cublasHandle_t blas; cublasCreate(&blas); cublasSetPointerMode(blas, CUBLAS_POINTER_MODE_DEVICE);
  printf("stack limit at start %zu\n", stack_limit());
  for (long n : {1L << 10, 1L << 16}) {
    double *x, *y, *out; CK(cudaMalloc(&x, n * 8)); CK(cudaMalloc(&y, n * 8)); CK(cudaMalloc(&out, 64));
    fill<<<1024, 256>>>(x, n, 7); fill<<<1024, 256>>>(y, n, 99); CK(cudaDeviceSynchronize());
    void* temp; size_t big = 64 << 20; CK(cudaMalloc(&temp, big));
    gpureduce::Options cr; cr.accuracy = gpureduce::Accuracy::correctly_rounded;
    cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    for (int with_cublas = 0; with_cublas < 2; ++with_cublas) {
      float best = 1e9f, sum = 0;
      for (int rep = 0; rep < 20; ++rep) {
        if (with_cublas) { cublasDdot_64(blas, n, x, 1, y, 1, out + 1); }
        CK(cudaDeviceSynchronize()); size_t before = stack_limit(); CK(cudaEventRecord(a)); size_t bb = big;
        CK(gpureduce::Blas1::Dot(temp, bb, x, y, out, n, nullptr, cr)); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
        float ms = 0; CK(cudaEventElapsedTime(&ms, a, b)); best = ms * 1000 < best ? ms * 1000 : best; sum += ms * 1000;
        if (rep < 2) printf("  rep %d: stack limit before our call %zu, after %zu\n", rep, before, stack_limit());
      }
      printf("n=%ld %s: Dot f64 CR best %.2f us, mean %.2f us\n", n, with_cublas ? "after each cublasDdot" : "alone", best, sum / 20);
    }
    cudaFree(x); cudaFree(y); cudaFree(out); cudaFree(temp);
  }
  for (long n : {1L << 10}) {
    double *x, *y, *out; CK(cudaMalloc(&x, n * 8)); CK(cudaMalloc(&y, n * 8)); CK(cudaMalloc(&out, 64));
    fill<<<1024, 256>>>(x, n, 7); fill<<<1024, 256>>>(y, n, 99); CK(cudaDeviceSynchronize());
    void* temp; size_t big = 64 << 20; CK(cudaMalloc(&temp, big));
    gpureduce::Options cr; cr.accuracy = gpureduce::Accuracy::correctly_rounded;
    cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    float best = 1e9f;
    for (int rep = 0; rep < 20; ++rep) {
      CK(cudaDeviceSynchronize()); CK(cudaEventRecord(a)); size_t bb = big;
      CK(gpureduce::Blas1::Dot(temp, bb, x, y, out, n, nullptr, cr)); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
      float ms = 0; CK(cudaEventElapsedTime(&ms, a, b)); best = ms * 1000 < best ? ms * 1000 : best;
    }
    double r; CK(cudaMemcpy(&r, out, 8, cudaMemcpyDeviceToHost));
    float best_sq = 1e9f;
    for (int rep = 0; rep < 20; ++rep) {
      CK(cudaDeviceSynchronize()); CK(cudaEventRecord(a)); size_t bb = big;
      CK(gpureduce::Blas1::SumSquares(temp, bb, x, out, n, nullptr, cr)); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
      float ms = 0; CK(cudaEventElapsedTime(&ms, a, b)); best_sq = ms * 1000 < best_sq ? ms * 1000 : best_sq;
    }
    printf("%s n=%ld Dot f64 CR %.2f us (%.17g), SumSquares f64 CR %.2f us\n", VARIANT, n, best, r, best_sq);
    cudaFree(x); cudaFree(y); cudaFree(out); cudaFree(temp);
  }
}
