// Host-side cost of one gpureduce call: how long Sum takes to validate, size the grid and enqueue
// its launches (wall time on the host, not GPU time), with Options::pointer_check on and off. The
// difference is what the pointer check (three cudaPointerGetAttributes calls) costs per call;
// README's pointer-check default is decided by it. The queue is drained every 64 calls, outside
// the timed region, so the launch queue never fills.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <cstdio>

#include "gpureduce/gpureduce.hpp"

namespace {

void enqueue_sum(benchmark::State& state, gpureduce::PointerCheck check) {
  const std::int64_t n = state.range(0);
  float* d_in = nullptr;
  float* d_out = nullptr;
  void* d_temp = nullptr;
  std::size_t bytes = 0;
  gpureduce::Options options;
  options.pointer_check = check;
  if (cudaMalloc(reinterpret_cast<void**>(&d_in), std::size_t(n) * sizeof(float)) != cudaSuccess ||
      cudaMalloc(reinterpret_cast<void**>(&d_out), sizeof(float)) != cudaSuccess ||
      cudaMemset(d_in, 0x3c, std::size_t(n) * sizeof(float)) != cudaSuccess ||  // 0x3c3c3c3c: 0.0115f, not zero
      gpureduce::DeviceReduce::Sum(nullptr, bytes, d_in, d_out, n, nullptr, options) != cudaSuccess ||
      cudaMalloc(&d_temp, bytes) != cudaSuccess) {
    state.SkipWithError("setup failed (no GPU?)");
    return;
  }
  int calls = 0;
  for (auto _ : state) {
    if (gpureduce::DeviceReduce::Sum(d_temp, bytes, d_in, d_out, n, nullptr, options) != cudaSuccess) {
      state.SkipWithError(gpureduce::last_error_message());
      break;
    }
    if (++calls % 64 == 0) {
      state.PauseTiming();
      cudaDeviceSynchronize();
      state.ResumeTiming();
    }
  }
  cudaDeviceSynchronize();
  cudaFree(d_temp);
  cudaFree(d_out);
  cudaFree(d_in);
}

void BM_SumEnqueue_PointerCheckOff(benchmark::State& s) { enqueue_sum(s, gpureduce::PointerCheck::off); }
void BM_SumEnqueue_PointerCheckOn(benchmark::State& s) { enqueue_sum(s, gpureduce::PointerCheck::on); }
BENCHMARK(BM_SumEnqueue_PointerCheckOff)->Arg(1 << 20)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_SumEnqueue_PointerCheckOn)->Arg(1 << 20)->Unit(benchmark::kNanosecond);

}  // namespace

BENCHMARK_MAIN();
