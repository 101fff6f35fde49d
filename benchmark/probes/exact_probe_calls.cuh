// What exact_one_block_probe.cu and exact_cluster_range_probe.cu share: the hash their inputs come
// from, and one case timed three ways for cub::DeviceReduce::Sum, the default Sum and the correctly
// rounded Sum (call = between CUDA events on an idle GPU, contenders alternated; graph = a call in
// a CUDA graph of 20; host = the call's return while the GPU is busy), printed as one row with the
// correctly rounded result's bits. PROBE_GRID sets the correctly rounded call's grid_blocks.
#pragma once

#include <cub/device/device_reduce.cuh>
#include <cuda_bf16.h>
#include <gpureduce/gpureduce.hpp>

#include <cstdlib>
#include <functional>
#include <vector>

#include "probe_timing.cuh"

__device__ unsigned long long mix(unsigned long long h) {
  h ^= h >> 33, h *= 0xff51afd7ed558ccdull, h ^= h >> 33, h *= 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 33);
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

// The inputs (doubles, and the same values as floats and as bfloat16), outputs and temp storage
// of a probe.
struct ProbeBuffers {
  double *xd = nullptr, *od = nullptr;
  float *xf = nullptr, *of = nullptr;
  __nv_bfloat16* xb = nullptr;
  void* temp = nullptr;
  std::size_t temp_bytes = std::size_t(16) << 20;
  explicit ProbeBuffers(int largest) {
    CHECK(cudaMalloc(&xd, std::size_t(largest) * 8));
    CHECK(cudaMalloc(&xf, std::size_t(largest) * 4));
    CHECK(cudaMalloc(&xb, std::size_t(largest) * 2));
    CHECK(cudaMalloc(&od, 64));
    CHECK(cudaMalloc(&of, 64));
    CHECK(cudaMalloc(&temp, temp_bytes));
  }
};

inline void print_header(const char* label) {
  std::printf("# variant %s: µs (call = between events on an idle GPU; graph = a call in a graph; "
              "host = the call's return)\n", label);
  std::printf("%-8s %-7s %6s | %-20s | %-20s | %-20s | CR/CUB call graph\n", "variant", "input",
              "n", "CUB call graph host", "default", "correctly rounded");
}

// A row's times (CUB, the default Sum, the correctly rounded Sum) and the correctly rounded bits.
inline void print_row(const char* label, const char* input, int n, const char* type,
                      const std::vector<Times>& t, unsigned long long bits) {
  std::printf("%-8s %-7s %6d %s | %6.2f %6.2f %6.2f | %6.2f %6.2f %6.2f | %6.2f %6.2f %6.2f | %.3f %.3f | %016llx\n",
              label, input, n, type, t[0].call, t[0].graph, t[0].host, t[1].call, t[1].graph,
              t[1].host, t[2].call, t[2].graph, t[2].host, t[2].call / t[0].call,
              t[2].graph / t[0].graph, bits);
}

// The correctly rounded call's Options: automatic's, or with PROBE_GRID set that many blocks
// (Options::grid_blocks; past the grid window's range automatic's general kernel on that grid).
inline gpureduce::Options correctly_rounded_options() {
  gpureduce::Options cr;
  cr.accuracy = gpureduce::Accuracy::correctly_rounded;
  if (const char* grid = std::getenv("PROBE_GRID")) cr.grid_blocks = std::atoi(grid);
  return cr;
}

// One row: the three contenders on the first n doubles (or floats) of `b`.
inline void time_and_print(const char* label, const char* input, int n, bool is_double,
                           const ProbeBuffers& b) {
  const gpureduce::Options cr = correctly_rounded_options();
  void* temp = b.temp;
  const std::size_t temp_bytes = b.temp_bytes;
  double *xd = b.xd, *od = b.od;
  float *xf = b.xf, *of = b.of;
  std::vector<std::function<void()>> calls = {
      [=] {
        std::size_t s = temp_bytes;
        if (is_double) CHECK(cub::DeviceReduce::Sum(temp, s, xd, od + 1, n, g_stream));
        else CHECK(cub::DeviceReduce::Sum(temp, s, xf, of + 1, n, g_stream));
      },
      [=] {
        std::size_t s = temp_bytes;
        if (is_double) CHECK(gpureduce::DeviceReduce::Sum(temp, s, xd, od + 2, n, g_stream));
        else CHECK(gpureduce::DeviceReduce::Sum(temp, s, xf, of + 2, n, g_stream));
      },
      [=] {
        std::size_t s = temp_bytes;
        if (is_double) CHECK(gpureduce::DeviceReduce::Sum(temp, s, xd, od + 3, n, g_stream, cr));
        else CHECK(gpureduce::DeviceReduce::Sum(temp, s, xf, of + 3, n, g_stream, cr));
      }};
  const auto t = time_all(calls);
  unsigned long long bits = 0;  // the correctly rounded result: the same in every variant
  if (is_double) CHECK(cudaMemcpy(&bits, od + 3, 8, cudaMemcpyDeviceToHost));
  else CHECK(cudaMemcpy(&bits, of + 3, 4, cudaMemcpyDeviceToHost));
  print_row(label, input, n, is_double ? "f64" : "f32", t, bits);
}

// The same row for bfloat16 inputs summed into a float (`b.xb`). CUB's Sum of bfloat16 into float
// is ambiguous in CCCL 3.0 (plus<void>(float, __nv_bfloat16)): Reduce with plus<float> and a float
// init, as the benchmark does.
inline void time_and_print_bf16(const char* label, const char* input, int n, const ProbeBuffers& b) {
  const gpureduce::Options cr = correctly_rounded_options();
  void* temp = b.temp;
  const std::size_t temp_bytes = b.temp_bytes;
  const __nv_bfloat16* xb = b.xb;
  float* of = b.of;
  std::vector<std::function<void()>> calls = {
      [=] {
        std::size_t s = temp_bytes;
        CHECK(cub::DeviceReduce::Reduce(temp, s, xb, of + 1, n, ::cuda::std::plus<float>{}, 0.0f,
                                        g_stream));
      },
      [=] {
        std::size_t s = temp_bytes;
        CHECK(gpureduce::DeviceReduce::Sum(temp, s, xb, of + 2, n, g_stream));
      },
      [=] {
        std::size_t s = temp_bytes;
        CHECK(gpureduce::DeviceReduce::Sum(temp, s, xb, of + 3, n, g_stream, cr));
      }};
  const auto t = time_all(calls);
  unsigned long long bits = 0;
  CHECK(cudaMemcpy(&bits, of + 3, 4, cudaMemcpyDeviceToHost));
  print_row(label, input, n, "b16", t, bits);
}
