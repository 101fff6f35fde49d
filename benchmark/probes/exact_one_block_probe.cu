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
#include <cub/device/device_reduce.cuh>
#include <gpureduce/gpureduce.hpp>

#include <functional>
#include <string>
#include <vector>

#include "probe_timing.cuh"

__device__ unsigned long long mix(unsigned long long h) {
  h ^= h >> 33, h *= 0xff51afd7ed558ccdull, h ^= h >> 33, h *= 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 33);
}
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

cudaStream_t g_stream = nullptr;  // where the calls go: null, or the stream being captured

struct Times {
  double call, graph, host;
};

std::vector<Times> time_all(const std::vector<std::function<void()>>& calls) {
  cudaEvent_t e[2];
  for (auto& ev : e) CHECK(cudaEventCreate(&ev));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (int w = 0; w < 3; ++w)
    for (auto& c : calls) c();
  CHECK(cudaDeviceSynchronize());
  std::vector<Times> out;
  std::vector<std::vector<double>> call(calls.size()), host(calls.size());
  for (int round = 0; round < 31; ++round)
    for (std::size_t k = 0; k < calls.size(); ++k) {
      const std::size_t i = (k + round) % calls.size();
      call[i].push_back(idle_call_us(calls[i], e));
      spin_kernel<<<1, 1>>>(40000);
      host[i].push_back(host_us(calls[i]));
      CHECK(cudaDeviceSynchronize());
    }
  // Graphs: the calls are made on the legacy stream above; capture them through a stream switch.
  for (std::size_t i = 0; i < calls.size(); ++i) {
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    g_stream = s;
    for (int k = 0; k < 20; ++k) calls[i]();
    g_stream = nullptr;
    CHECK(cudaStreamEndCapture(s, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    std::vector<double> g;
    for (int r = 0; r < 15; ++r) {
      float ms = 0;
      CHECK(cudaEventRecord(e[0], s));
      CHECK(cudaGraphLaunch(exec, s));
      CHECK(cudaEventRecord(e[1], s));
      CHECK(cudaEventSynchronize(e[1]));
      CHECK(cudaEventElapsedTime(&ms, e[0], e[1]));
      g.push_back(1e3 * ms / 20);
    }
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    out.push_back({median(call[i]), median(g), median(host[i])});
  }
  for (auto& ev : e) CHECK(cudaEventDestroy(ev));
  CHECK(cudaStreamDestroy(s));
  return out;
}

int main(int argc, char** argv) {
  const char* label = argc > 1 ? argv[1] : "?";
  const int largest = 1 << 16;
  double *xd, *od;
  float *xf, *of;
  void* temp;
  const std::size_t temp_bytes = std::size_t(16) << 20;
  CHECK(cudaMalloc(&xd, largest * 8));
  CHECK(cudaMalloc(&xf, largest * 4));
  CHECK(cudaMalloc(&od, 64));
  CHECK(cudaMalloc(&of, 64));
  CHECK(cudaMalloc(&temp, temp_bytes));
  gpureduce::Options cr;
  cr.accuracy = gpureduce::Accuracy::correctly_rounded;
  std::printf("# variant %s: µs (call = between events on an idle GPU; graph = a call in a graph; "
              "host = the call's return)\n", label);
  std::printf("%-8s %-7s %6s | %-20s | %-20s | %-20s | CR/CUB call graph\n", "variant", "input",
              "n", "CUB call graph host", "default", "correctly rounded");
  for (int wide = 0; wide < 2; ++wide)
    for (int n : {1 << 10, 1 << 11, 1 << 12, 1 << 13, 1 << 14, 1 << 15, 1 << 16}) {
      fill<<<64, 256>>>(xd, xf, n, wide, 7u + n);
      CHECK(cudaDeviceSynchronize());
      for (int is_double = 1; is_double >= 0; --is_double) {
        if ((!is_double && wide) || (is_double && n > (1 << 15))) continue;
        std::vector<std::function<void()>> calls = {
            [=] {
              std::size_t b = temp_bytes;
              if (is_double) CHECK(cub::DeviceReduce::Sum(temp, b, xd, od + 1, n, g_stream));
              else CHECK(cub::DeviceReduce::Sum(temp, b, xf, of + 1, n, g_stream));
            },
            [=] {
              std::size_t b = temp_bytes;
              if (is_double) CHECK(gpureduce::DeviceReduce::Sum(temp, b, xd, od + 2, n, g_stream));
              else CHECK(gpureduce::DeviceReduce::Sum(temp, b, xf, of + 2, n, g_stream));
            },
            [=] {
              std::size_t b = temp_bytes;
              if (is_double)
                CHECK(gpureduce::DeviceReduce::Sum(temp, b, xd, od + 3, n, g_stream, cr));
              else CHECK(gpureduce::DeviceReduce::Sum(temp, b, xf, of + 3, n, g_stream, cr));
            }};
        const auto t = time_all(calls);
        unsigned long long bits = 0;  // the correctly rounded result: the same in every variant
        if (is_double) CHECK(cudaMemcpy(&bits, od + 3, 8, cudaMemcpyDeviceToHost));
        else CHECK(cudaMemcpy(&bits, of + 3, 4, cudaMemcpyDeviceToHost));
        std::printf("%-8s %-7s %6d %s | %6.2f %6.2f %6.2f | %6.2f %6.2f %6.2f | %6.2f %6.2f %6.2f | %.3f %.3f | %016llx\n",
                    label, wide ? "wide" : "uniform", n, is_double ? "f64" : "f32", t[0].call,
                    t[0].graph, t[0].host, t[1].call, t[1].graph, t[1].host, t[2].call,
                    t[2].graph, t[2].host, t[2].call / t[0].call, t[2].graph / t[0].graph, bits);
      }
    }
  return 0;
}
