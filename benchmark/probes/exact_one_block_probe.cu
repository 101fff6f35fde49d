// Probe (2026-11-29, H200): how far automatic's one-block correctly rounded double sum (the
// window, one_block_sum.cuh) should reach. Built once a variant of the library's double limit
// (GPUREDUCE_DOUBLE_ONE_BLOCK_KIB = 16, 32, 64, 128 while the probe ran: the library object of
// src/exact_double_double.cu compiled with it, replacing the archive's member), each binary timing
// cub::DeviceReduce::Sum, the default Sum and the correctly rounded Sum of doubles (and floats, as
// a control) at 1K-32K items, in three ways:
//   call   between CUDA events on an idle GPU, contenders alternated (the paired harness's way);
//   graph  20 calls captured into a graph, replayed: µs a call;
//   host   wall time of the call's return while the GPU is busy.
// Inputs: uniform in [-1, 1) ("uniform"), and finite doubles of random bit patterns ("wide":
// every exponent, so the window refuses and the general body runs). Medians of 31.
//   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -c benchmark/probes/exact_one_block_probe.cu -o p.o
//   nvcc -arch=sm_90 p.o exact_double_double_K.o libgpureduce_without_it.a -o probe_K
#include "exact_probe_calls.cuh"

__global__ void fill(double* xd, float* xf, int n, int wide, unsigned seed) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const unsigned long long h = mix(i * 0x9e3779b97f4a7c15ull + seed);
    double v = double(h >> 11) / double(1ull << 53) * 2.0 - 1.0;
    if (wide) {
      unsigned long long bits = mix(h);
      if (((bits >> 52) & 0x7ff) == 0x7ff) bits ^= 1ull << 62;  // finite
      v = __longlong_as_double(bits);
    }
    xd[i] = v;
    xf[i] = float(v);
  }
}

int main(int argc, char** argv) {
  const char* label = argc > 1 ? argv[1] : "?";
  const ProbeBuffers b(1 << 16);
  print_header(label);
  for (int wide = 0; wide < 2; ++wide)
    for (int n : {1 << 10, 1 << 11, 1 << 12, 1 << 13, 1 << 14, 1 << 15, 1 << 16}) {
      fill<<<64, 256>>>(b.xd, b.xf, n, wide, 7u + n);
      CHECK(cudaDeviceSynchronize());
      for (int is_double = 1; is_double >= 0; --is_double) {
        if ((!is_double && wide) || (is_double && n > (1 << 15))) continue;
        time_and_print(label, wide ? "wide" : "uniform", n, is_double, b);
      }
    }
  return 0;
}
