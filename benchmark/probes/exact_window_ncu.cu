// Probe (2026-11-27, H100): automatic's one-block correctly rounded float sum (the window's
// kernel, exact_one_block_kernel) at 1024 and 4096 floats, three calls each, for ncu: where the
// 4K call's extra 0.26-0.29 us over 1K go (docs/tuning.md, 'One-block window'). Built against
// a library whose float kernels are f6728fa's:
//   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude benchmark/probes/exact_window_ncu.cu \
//        build/libgpureduce.a -o exact_window_ncu
//   ncu --clock-control none --kernel-name regex:exact_one_block_kernel --launch-skip 2 \
//       --launch-count 1 --set full ./exact_window_ncu 4096   (and 1024)
// Output: benchmark/results/h100-2026-11-27-exact-window-ncu.txt.
#include <gpureduce/gpureduce.hpp>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

int main(int argc, char** argv) {
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 4096;
  std::vector<float> host(n);
  std::mt19937 rng(20261127);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (float& v : host) v = uniform(rng);
  float *x = nullptr, *out = nullptr;
  void* temp = nullptr;
  std::size_t bytes = 0;
  gpureduce::Options o;
  o.accuracy = gpureduce::Accuracy::correctly_rounded;
  if (cudaMalloc(&x, n * sizeof(float)) != cudaSuccess || cudaMalloc(&out, sizeof(float)) != cudaSuccess ||
      cudaMemcpy(x, host.data(), n * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess ||
      gpureduce::DeviceReduce::Sum(nullptr, bytes, x, out, n, nullptr, o) != cudaSuccess ||
      cudaMalloc(&temp, bytes) != cudaSuccess)
    return std::puts(gpureduce::last_error_message()), 1;
  for (int call = 0; call < 3; ++call)
    if (gpureduce::DeviceReduce::Sum(temp, bytes, x, out, n, nullptr, o) != cudaSuccess)
      return std::puts(gpureduce::last_error_message()), 1;
  float sum = 0;
  if (cudaMemcpy(&sum, out, sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
  std::printf("n=%lld sum=%a\n", (long long)n, sum);
  return 0;
}
