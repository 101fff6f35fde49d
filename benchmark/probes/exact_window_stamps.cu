// Probe (2026-11-29, stop 56, H200): the correctly rounded deep grid window's phases, timed on
// the SMs. exact_window_stamps.patch (made against caa9faa's grid_window.cuh and kernels.cuh)
// makes thread 0 of each block of the deep window write %globaltimer after the launch's wait,
// after its loads, after its record and after its ticket's compare, and the last block's thread 0
// %globaltimer and %clock64 on entering its finish and after the records, the span, the total
// and the rounding (each stamp depending on the value it follows), into a __device__ array that
// exact_float_float.cu defines when built with -DGR_STAMPS. This program reads it after one call
// on an idle GPU and after the 20th call of a graph of 20, f32 at 1M, 2M and 4M items (integers
// in [-16, 16] without 0), three times.
//   patch -p1 < benchmark/probes/exact_window_stamps.patch   (in a copy of the tree)
//   nvcc -O3 -DNDEBUG -std=c++17 -arch=sm_90 -DGR_STAMPS -Iinclude -c src/exact_float_float.cu -o ff.o
//   (ff.o in place of exact_float_float.cu.o in a copy of libgpureduce.a, as lib.a)
//   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude benchmark/probes/exact_window_stamps.cu lib.a -o stamps
#include <gpureduce/gpureduce.hpp>
#include <algorithm>
#include <cstdio>
#include <vector>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)
extern "C" void gr_read_stamps(unsigned long long* host);

__global__ void fill(float* x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned long long h = i * 0x9e3779b97f4a7c15ull + 12345;
    h ^= h >> 33, h *= 0xff51afd7ed558ccdull, h ^= h >> 33;
    const int k = int(h % 32);
    x[i] = k < 16 ? float(k - 16) : float(k - 15);
  }
}

void report(const char* what, int n) {
  std::vector<unsigned long long> s(128 * 4 + 16);
  gr_read_stamps(s.data());
  unsigned long long t0 = ~0ull;
  for (int b = 0; b < 128; ++b) t0 = std::min(t0, s[b * 4]);
  std::vector<double> ph[4];
  for (int b = 0; b < 128; ++b)
    for (int i = 0; i < 4; ++i) ph[i].push_back(double(s[b * 4 + i] - t0));
  std::printf("%s n=%d (ns from the first block's start; min / median / max over 128 blocks)\n", what, n);
  const char* names[4] = {"start", "loads in", "record out", "ticket back"};
  for (int i = 0; i < 4; ++i) {
    std::sort(ph[i].begin(), ph[i].end());
    std::printf("  %-12s %7.0f %7.0f %7.0f\n", names[i], ph[i][0], ph[i][64], ph[i][127]);
  }
  const char* last[5] = {"last: enter", "records in", "span", "total", "rounded"};
  for (int i = 0; i < 5; ++i)
    std::printf("  %-12s %7.0f ns  clock +%llu\n", last[i], double(s[512 + 2 * i] - t0),
                s[513 + 2 * i] - s[513]);
}

int main() {
  float *x, *out;
  void* temp;
  const std::size_t temp_bytes = std::size_t(16) << 20;
  CHECK(cudaMalloc(&x, std::size_t(1 << 22) * 4));
  CHECK(cudaMalloc(&out, 64));
  CHECK(cudaMalloc(&temp, temp_bytes));
  gpureduce::Options cr;
  cr.accuracy = gpureduce::Accuracy::correctly_rounded;
  cudaStream_t st;
  CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  for (int n : {1 << 20, 1 << 21, 1 << 22}) {
    fill<<<256, 256>>>(x, n);
    CHECK(cudaDeviceSynchronize());
    for (int rep = 0; rep < 3; ++rep) {
      for (int w = 0; w < 5; ++w) {
        std::size_t b = temp_bytes;
        CHECK(gpureduce::DeviceReduce::Sum(temp, b, x, out, n, st, cr));
      }
      CHECK(cudaStreamSynchronize(st));
      std::size_t b = temp_bytes;
      CHECK(gpureduce::DeviceReduce::Sum(temp, b, x, out, n, st, cr));
      CHECK(cudaStreamSynchronize(st));
      report("one call, idle GPU:", n);
      cudaGraph_t g;
      cudaGraphExec_t e;
      CHECK(cudaStreamBeginCapture(st, cudaStreamCaptureModeRelaxed));
      for (int k = 0; k < 20; ++k) {
        std::size_t bb = temp_bytes;
        CHECK(gpureduce::DeviceReduce::Sum(temp, bb, x, out, n, st, cr));
      }
      CHECK(cudaStreamEndCapture(st, &g));
      CHECK(cudaGraphInstantiate(&e, g, 0));
      CHECK(cudaGraphLaunch(e, st));
      CHECK(cudaGraphLaunch(e, st));
      CHECK(cudaStreamSynchronize(st));
      report("20th call of a graph:", n);
      CHECK(cudaGraphExecDestroy(e));
      CHECK(cudaGraphDestroy(g));
    }
  }
  float r;
  CHECK(cudaMemcpy(&r, out, 4, cudaMemcpyDeviceToHost));
  std::printf("result %a\n", r);
  return 0;
}
