// Host-side cost of enqueueing one reduction: wall time on the host for a call to return (validate,
// size the grid, enqueue its launches), not GPU time. Every benchmark runs the same loop: one call
// per iteration, the queue drained every 64 calls outside the timed region so it never fills (a
// full queue would make the launch itself wait for the GPU).
//   BM_EmptyKernelLaunch                  one launch of an empty kernel (floor_kernel.cu, gpureduce_bench's
//                                         `floor` contender): the least any call that launches pays.
//   BM_CubSumEnqueue/<n>                  cub::DeviceReduce::Sum, float, temp storage allocated once
//                                         (CubReducer from cub_reducer.cu).
//   BM_SumEnqueue_Default/<n>             gpureduce::DeviceReduce::Sum, float, default Options (the
//                                         pointer check is the build's default: off in Release).
//   BM_SumEnqueue_Zeroed/<n>              the same with temp_storage_zeroed = true (storage zeroed once
//                                         at set-up): no per-call memset of the counter.
//   BM_SumEnqueue_PointerCheckOff/On/<n>  Sum with Options::pointer_check off and on: the difference is
//                                         what the check (three cudaPointerGetAttributes calls) costs
//                                         per call; README's pointer-check default is decided by it.
//   BM_CurrentContext                     detail::current_context: the context key every call past
//                                         one block asks for (its caches and slots are per context).
// n = 1024 and 2^20 (PointerCheck pair: 2^20 only).
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>

#include "cases.hpp"
#include "gpureduce/detail/context.hpp"
#include "floor_kernel.hpp"
#include "gpureduce/gpureduce.hpp"
#include "reference_reducers.hpp"

namespace {

// The timed loop every benchmark here shares: `enqueue()` once per iteration (it returns false, after
// SkipWithError, on a failure), the queue drained every 64 calls with the timer paused, and drained
// once more at the end. One untimed call first, so lazy module loading is not in the first run.
template <class Enqueue>
void enqueue_loop(benchmark::State& state, Enqueue&& enqueue) {
  if (!enqueue()) return;
  cudaDeviceSynchronize();
  int calls = 0;
  for (auto _ : state) {
    if (!enqueue()) break;
    if (++calls % 64 == 0) {
      state.PauseTiming();
      cudaDeviceSynchronize();
      state.ResumeTiming();
    }
  }
  cudaDeviceSynchronize();
}

// n floats of 0x3c3c3c3c (0.0115f, not zero) and a float output, freed at scope exit.
struct SumBuffers {
  float* d_in = nullptr;
  float* d_out = nullptr;
  void* d_temp = nullptr;
  bool ok = false;
  explicit SumBuffers(std::int64_t n) {
    ok = cudaMalloc(reinterpret_cast<void**>(&d_in), std::size_t(n) * sizeof(float)) == cudaSuccess &&
         cudaMalloc(reinterpret_cast<void**>(&d_out), sizeof(float)) == cudaSuccess &&
         cudaMemset(d_in, 0x3c, std::size_t(n) * sizeof(float)) == cudaSuccess;
  }
  ~SumBuffers() {
    cudaFree(d_temp);
    cudaFree(d_out);
    cudaFree(d_in);
  }
  SumBuffers(const SumBuffers&) = delete;
  SumBuffers& operator=(const SumBuffers&) = delete;
};

void enqueue_sum(benchmark::State& state, const gpureduce::Options& options) {
  const std::int64_t n = state.range(0);
  SumBuffers b(n);
  std::size_t bytes = 0;
  if (!b.ok ||
      gpureduce::DeviceReduce::Sum(nullptr, bytes, b.d_in, b.d_out, n, nullptr, options) != cudaSuccess ||
      cudaMalloc(&b.d_temp, bytes) != cudaSuccess ||
      // temp_storage_zeroed promises zeroed storage: zero it once, as a user of the fast path does.
      (options.temp_storage_zeroed && cudaMemset(b.d_temp, 0, bytes) != cudaSuccess) ||
      cudaDeviceSynchronize() != cudaSuccess) {
    state.SkipWithError("setup failed (no GPU?)");
    return;
  }
  enqueue_loop(state, [&] {
    if (gpureduce::DeviceReduce::Sum(b.d_temp, bytes, b.d_in, b.d_out, n, nullptr, options) != cudaSuccess) {
      state.SkipWithError(gpureduce::last_error_message());
      return false;
    }
    return true;
  });
}

gpureduce::Options with_pointer_check(gpureduce::PointerCheck check) {
  gpureduce::Options options;
  options.pointer_check = check;
  return options;
}

gpureduce::Options zeroed() {
  gpureduce::Options options;
  options.temp_storage_zeroed = true;
  return options;
}

void BM_SumEnqueue_PointerCheckOff(benchmark::State& s) { enqueue_sum(s, with_pointer_check(gpureduce::PointerCheck::off)); }
void BM_SumEnqueue_PointerCheckOn(benchmark::State& s) { enqueue_sum(s, with_pointer_check(gpureduce::PointerCheck::on)); }
void BM_SumEnqueue_Default(benchmark::State& s) { enqueue_sum(s, gpureduce::Options{}); }
void BM_SumEnqueue_Zeroed(benchmark::State& s) { enqueue_sum(s, zeroed()); }

void BM_CubSumEnqueue(benchmark::State& state) {
  using gpureduce_bench::OpKind;
  const std::int64_t n = state.range(0);
  SumBuffers b(n);
  if (!b.ok) {
    state.SkipWithError("setup failed (no GPU?)");
    return;
  }
  try {
    // Sizes and allocates CUB's temp storage once; enqueue() is then cub::DeviceReduce::Sum alone.
    gpureduce_bench::CubReducer<float, OpKind::sum> cub(b.d_in, b.d_out, n);
    cudaDeviceSynchronize();
    enqueue_loop(state, [&] {
      cub.enqueue(nullptr);  // throws CudaFailure on an error
      return true;
    });
  } catch (const std::exception& e) {
    cudaDeviceSynchronize();
    state.SkipWithError(e.what());
  }
}

void BM_EmptyKernelLaunch(benchmark::State& state) {
  if (cudaFree(nullptr) != cudaSuccess) {  // creates the context outside the timed loop
    state.SkipWithError("setup failed (no GPU?)");
    return;
  }
  enqueue_loop(state, [&] {
    const cudaError_t e = gpureduce_bench::launch_empty_kernel(nullptr);
    if (e != cudaSuccess) {
      state.SkipWithError(cudaGetErrorString(e));
      return false;
    }
    return true;
  });
}

void BM_CurrentContext(benchmark::State& state) {
  if (cudaFree(nullptr) != cudaSuccess) {
    state.SkipWithError("setup failed (no GPU?)");
    return;
  }
  gpureduce::detail::ContextKey key;
  for (auto _ : state) {
    if (gpureduce::detail::current_context(0, key) != cudaSuccess) {
      state.SkipWithError(gpureduce::last_error_message());
      return;
    }
    benchmark::DoNotOptimize(key.id);
  }
}

BENCHMARK(BM_EmptyKernelLaunch)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_CurrentContext)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_CubSumEnqueue)->Arg(1 << 10)->Arg(1 << 20)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_SumEnqueue_Default)->Arg(1 << 10)->Arg(1 << 20)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_SumEnqueue_Zeroed)->Arg(1 << 10)->Arg(1 << 20)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_SumEnqueue_PointerCheckOff)->Arg(1 << 20)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_SumEnqueue_PointerCheckOn)->Arg(1 << 20)->Unit(benchmark::kNanosecond);

}  // namespace

BENCHMARK_MAIN();
