// The sweep behind `automatic`'s constants (detail/policy.hpp): for each size, the configurations
// `automatic`'s rules were drawn from (one block of 128-1024 threads, one cluster of 8 or 16 blocks
// of 256-1024 threads, which automatic no longer picks since its state moved to the stream, grid_sync and zeroed last_block at grids of 1/2x to 4x the sqrt rule and one
// wave, with 256- and 512-thread blocks, above 64 KiB), each timed two ways against
// cub::DeviceReduce::Sum:
//   graph:  per reduction, 100 reductions captured into one CUDA graph, median of 25 replays
//           (no host launch cost; the input stays in L2 between replays where it fits);
//   paired: one call between CUDA events, alternated call by call with CUB in ABBA order, the
//           median of the per-pair ratios (host launch cost included).
// Every configuration's answer is checked against CUB's first (integer inputs in [-16, 16] \ {0}).
// Not a Google Benchmark: it is a tuning tool, run by hand on a GPU (a few minutes on an H200);
// benchmark/run_on_gpu.sh runs it (DEVICE-DATE-automatic-sweep.txt); the run the constants came
// from is benchmark/results/h200-2026-11-22-automatic-tuning.txt.
#include <cub/cub.cuh>
#include <gpureduce/gpureduce.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using gpureduce::Options;
using gpureduce::Pipeline;
using gpureduce::Strategy;
using Call = std::function<cudaError_t()>;

void check(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return;
  std::fprintf(stderr, "automatic_sweep: %s: %s\n", what, cudaGetErrorString(error));
  std::exit(1);
}

cudaStream_t stream;
cudaEvent_t start_event, stop_event;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double elapsed_us() {
  float ms = 0;
  check(cudaEventSynchronize(stop_event), "cudaEventSynchronize");
  check(cudaEventElapsedTime(&ms, start_event, stop_event), "cudaEventElapsedTime");
  return ms * 1e3;
}

constexpr int kReductionsPerGraph = 100;
double graph_us_per_reduction(const Call& call, int replays = 25) {
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "begin capture");
  for (int i = 0; i < kReductionsPerGraph; ++i) call();
  check(cudaStreamEndCapture(stream, &graph), "end capture");
  check(cudaGraphInstantiate(&exec, graph, 0), "graph instantiate");
  for (int i = 0; i < 3; ++i) check(cudaGraphLaunch(exec, stream), "graph warm-up");
  std::vector<double> times;
  for (int i = 0; i < replays; ++i) {
    check(cudaEventRecord(start_event, stream), "event");
    check(cudaGraphLaunch(exec, stream), "graph launch");
    check(cudaEventRecord(stop_event, stream), "event");
    times.push_back(elapsed_us() / kReductionsPerGraph);
  }
  check(cudaGraphExecDestroy(exec), "graph exec destroy");
  check(cudaGraphDestroy(graph), "graph destroy");
  return median(times);
}

struct Paired {
  double a_us, b_us, ratio;
};
Paired paired_us(const Call& a, const Call& b, int pairs) {
  std::vector<double> ta, tb, ratio;
  auto one = [](const Call& call) {
    check(cudaEventRecord(start_event, stream), "event");
    check(call(), "timed call");
    check(cudaEventRecord(stop_event, stream), "event");
    return elapsed_us();
  };
  for (int i = 0; i < pairs; ++i) {  // ABBA: each goes first half the time
    double x, y;
    if (i & 1) { y = one(b); x = one(a); } else { x = one(a); y = one(b); }
    ta.push_back(x);
    tb.push_back(y);
    ratio.push_back(x / y);
  }
  return {median(ta), median(tb), median(ratio)};
}

constexpr std::size_t kTempBytes = std::size_t(256) << 20;

template <class T>
struct Sweep {
  const char* type_name;
  T* d_in = nullptr;
  T* d_out = nullptr;
  void* cub_temp = nullptr;
  std::size_t cub_temp_bytes = 0;
  void* temp = nullptr;  // zero-filled once: valid for temp_storage_zeroed throughout

  Sweep(const char* name, long long max_items) : type_name(name) {
    check(cudaMalloc(&d_in, max_items * sizeof(T)), "cudaMalloc input");
    check(cudaMalloc(&d_out, 64), "cudaMalloc output");
    check(cudaMalloc(&temp, kTempBytes), "cudaMalloc temp");
    check(cudaMemset(temp, 0, kTempBytes), "zeroing temp");
    std::vector<T> host(max_items);
    std::mt19937_64 rng(12345);
    for (T& x : host) {
      int v = int(rng() % 32) - 16;
      x = T(v >= 0 ? v + 1 : v);
    }
    check(cudaMemcpy(d_in, host.data(), max_items * sizeof(T), cudaMemcpyHostToDevice), "upload");
    check(cub::DeviceReduce::Sum(nullptr, cub_temp_bytes, d_in, d_out, max_items, stream), "CUB size");
    check(cudaMalloc(&cub_temp, cub_temp_bytes), "cudaMalloc CUB temp");
  }
  ~Sweep() {
    check(cudaFree(d_in), "cudaFree input");
    check(cudaFree(d_out), "cudaFree output");
    check(cudaFree(temp), "cudaFree temp");
    check(cudaFree(cub_temp), "cudaFree CUB temp");
  }

  T read_result() {
    T r;
    check(cudaStreamSynchronize(stream), "sync");
    check(cudaMemcpy(&r, d_out, sizeof(T), cudaMemcpyDeviceToHost), "download");
    return r;
  }

  // What every candidate of one size is compared with: CUB's call, answer and graph time.
  struct Baseline {
    long long n;
    Call cub;
    T reference;
    double cub_graph_us;
    int pairs;
  };

  // One candidate: its plan (and its plan while the stream is captured), its answer against CUB's,
  // its graph time and its per-call time paired with CUB's, as one line.
  void measure(const char* name, const Options& options, const Baseline& b) {
    const long long n = b.n;
    std::size_t needed = 0;
    if (gpureduce::DeviceReduce::Sum<T, T>(nullptr, needed, d_in, d_out, n, stream, options) != cudaSuccess ||
        needed > kTempBytes) {
      std::printf("%-26s not plannable: %s\n", name, gpureduce::last_error_message());
      return;
    }
    const Call call = [=] {
      std::size_t bytes = kTempBytes;
      return gpureduce::DeviceReduce::Sum<T, T>(temp, bytes, d_in, d_out, n, stream, options);
    };
    gpureduce::LaunchPlan plan, captured;
    check(gpureduce::DeviceReduce::PlanSum<T, T>(plan, d_in, n, options, stream), "plan");
    // The plan inside a graph: automatic may choose differently while the stream is captured.
    check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "begin capture");
    const cudaError_t planned = gpureduce::DeviceReduce::PlanSum<T, T>(captured, d_in, n, options, stream);
    cudaGraph_t empty = nullptr;
    check(cudaStreamEndCapture(stream, &empty), "end capture");
    if (empty) check(cudaGraphDestroy(empty), "destroy the empty graph");
    check(planned, "plan while capturing");
    std::string pipeline = gpureduce::to_string(plan.pipeline);
    if (captured.pipeline != plan.pipeline)
      pipeline += std::string("|graph:") + gpureduce::to_string(captured.pipeline);
    check(cudaMemset(d_out, 0x7f, 64), "poison output");
    check(call(), name);
    const T result = read_result();
    const bool ok = std::is_integral<T>::value
                        ? result == b.reference
                        : std::fabs(double(result) - double(b.reference)) <= 1e-5 * (1 + std::fabs(double(b.reference)));
    const double graph = graph_us_per_reduction(call);
    const Paired p = paired_us(call, b.cub, b.pairs);
    std::printf("%-26s %4dx%-4d %-10s graph %7.3f (%.2fx)  stream %7.2f vs CUB %7.2f paired %.3f %s\n",
                name, plan.grid_blocks, plan.block_threads, pipeline.c_str(), graph,
                graph / b.cub_graph_us, p.a_us, p.b_us, p.ratio, ok ? "" : "WRONG");
  }

  static Options fixed(Pipeline pipeline, int grid, int threads) {
    Options o;
    o.strategy = Strategy::vectorized;
    o.pipeline = pipeline;
    o.grid_blocks = grid;
    o.block_threads = threads;
    o.temp_storage_zeroed = pipeline == Pipeline::last_block;
    return o;
  }

  // automatic (with and without zeroed storage) and the fixed plans around its rules at this size:
  // one block of each size up to 64 KiB, clusters from 16 KiB to 4 MiB, grids around the sqrt
  // rule (and one wave) above one block.
  void size(long long n) {
    const Call cub = [=] { return cub::DeviceReduce::Sum(cub_temp, cub_temp_bytes, d_in, d_out, n, stream); };
    check(cub(), "CUB");
    const Baseline b{n, cub, read_result(), graph_us_per_reduction(cub), n >= (1 << 24) ? 60 : 300};
    std::printf("\n== %s n=%lld (%.0f KiB)  CUB graph %.3f us\n", type_name, n, n * sizeof(T) / 1024.0,
                b.cub_graph_us);
    char name[64];
    measure("automatic", Options{}, b);
    Options zeroed;
    zeroed.temp_storage_zeroed = true;
    measure("automatic+zeroed", zeroed, b);
    const long long bytes = n * (long long)sizeof(T);
    if (bytes <= 64 * 1024)
      for (int threads : {128, 256, 512, 1024}) {
        std::snprintf(name, sizeof name, "single %d", threads);
        measure(name, fixed(Pipeline::last_block, 1, threads), b);
      }
    if (bytes >= 16 * 1024 && bytes <= 4 * 1024 * 1024)
      for (int cluster : {8, 16})
        for (int threads : {256, 512, 1024}) {
          std::snprintf(name, sizeof name, "cluster %dx%d", cluster, threads);
          measure(name, fixed(Pipeline::cluster, cluster, threads), b);
        }
    if (bytes <= 64 * 1024) return;  // above one block: zeroed storage runs last_block at any size
    const int rule = int(std::ceil(std::sqrt(bytes / 256.0)));
    for (int threads : {256, 512})
      for (int grid : {rule / 2, rule, rule * 2, rule * 4, 100000}) {  // 100000: one wave
        if (grid < 8) continue;
        const int blocks = grid * 256 / threads;  // the same threads in flight at either size
        for (Pipeline pipeline : {Pipeline::grid_sync, Pipeline::last_block}) {
          std::snprintf(name, sizeof name, "%s g<=%d bt %d",
                        pipeline == Pipeline::grid_sync ? "gsync" : "lastz", blocks, threads);
          measure(name, fixed(pipeline, blocks, threads), b);
        }
      }
  }
};

}  // namespace

int main() {
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  check(cudaEventCreate(&start_event), "event");
  check(cudaEventCreate(&stop_event), "event");
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "device properties");
  std::printf("%s, %d SMs, L2 %d MiB. Columns: grid x block, pipeline (|graph: the one launched "
              "inside graphs where it differs), graph us per reduction (ratio to CUB's graph), paired "
              "per-call medians and the median per-pair ratio to CUB\n",
              prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);
  {
    Sweep<float> sweep("f32", 1LL << 26);
    for (long long n : {1LL << 10, 1LL << 12, 1LL << 14, 1LL << 16, 1LL << 18, 1LL << 20, 1LL << 22, 1LL << 24, 1LL << 26})
      sweep.size(n);
  }
  {
    Sweep<int> sweep("i32", 1LL << 24);
    for (long long n : {1LL << 10, 1LL << 12, 1LL << 16, 1LL << 20, 1LL << 24}) sweep.size(n);
  }
  {
    Sweep<double> sweep("f64", 1LL << 22);
    for (long long n : {1LL << 13, 1LL << 16, 1LL << 20, 1LL << 22}) sweep.size(n);
  }
  std::printf("done\n");
  return 0;
}
