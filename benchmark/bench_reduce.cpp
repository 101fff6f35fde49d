// gpureduce_bench: Google Benchmark head-to-head of gpureduce against cub::DeviceReduce and
// thrust::reduce, in two families:
//   stream: <op>/<type>/n:<n>/<contender>        one call between two CUDA events on the default
//           stream; contender = <strategy>/<pipeline>, automatic/automatic+zeroed, cub, thrust or
//           floor.
//   graph:  graph/<op>/<type>/n:<n>/<contender>  sum f32/i32/f64; automatic/automatic,
//           automatic/automatic+zeroed, cub and floor. 100 calls on the same input captured into
//           one CUDA graph (graph_timing.hpp); one replay between events per iteration, reported
//           per reduction (elapsed / 100): the time without host launch overhead.
// floor is not a reduction: one launch of an empty kernel (1 block of 32 threads, floor_kernel.cu)
// per call, timed exactly like the others at every (op, type, n) and not validated. Its time is the
// launch cost no single-launch reduction can get below in this harness; report.py adds the input
// bytes at the theoretical bandwidth to it for the "floor" columns of its automatic-vs-CUB tables.
// Time is GPU time from CUDA events (UseManualTime); Google Benchmark's real_time is its mean.
// Counters: median_us, p10_us, p90_us (percentiles of the iterations' times, per call or per
// reduction: robust to one slow iteration, unlike the mean); for gpureduce contenders the launch
// plan as plan_grid, plan_block, plan_items_per_thread, plan_launches and as text in the label.
//
// Own flags (removed before Google Benchmark sees argv):
//   --modes=stream|graph|all         which families to register (default all).
//   --contenders=default|main|full   stream family only. default: every strategy x pipeline for
//                                    sum/f32, the main contenders (automatic, automatic+zeroed,
//                                    cub_block/last_block, cub, thrust) elsewhere; main: main
//                                    everywhere; full: all. floor is in every set.
//   --graph_min_time=SECONDS         the graph family's min time (default 0.002), in reported
//                                    (per-reduction) time, so each graph benchmark runs ~100x that
//                                    on the GPU; --benchmark_min_time does not apply to it.
//   --flush_l2                       stream family: flush L2 before every timed iteration (also
//                                    GPUREDUCE_BENCH_FLUSH_L2=1); outside the timed region. The
//                                    graph family never flushes (99 of 100 replays would hit L2).
// --benchmark_min_time defaults to 0.05 s here for the stream family.
#include <benchmark/benchmark.h>
#include <gpureduce/gpureduce.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cases.hpp"
#include "contender_call.hpp"
#include "cuda_check.hpp"
#include "cuda_timer.hpp"
#include "device_buffer.hpp"
#include "device_info.hpp"
#include "gpureduce_call.hpp"
#include "graph_timing.hpp"
#include "inputs.hpp"
#include "iteration_stats.hpp"
#include "l2_flush.hpp"
#include "plan_report.hpp"
#include "reference_reducers.hpp"

namespace gpureduce_bench {
namespace {

enum class ContenderSet { by_case, main, full };

struct Suite {
  DeviceInfo device;
  bool flush_l2 = false;
  std::unique_ptr<L2Flusher> flusher;
  std::uint64_t seed = 0;
  std::map<std::string, std::vector<unsigned char>> cub_results;  // "<op>/<type>/<n>" -> bits
};
Suite* suite = nullptr;

// n = 2^10 ... 2^28 in steps of 4x, plus one size that is not a power of two (nor a multiple of
// any vector or tile width) so tail handling is timed too.
constexpr std::int64_t kNonPowerOfTwo = 10000019;
std::vector<std::int64_t> sizes() {
  std::vector<std::int64_t> n;
  for (int k = 10; k <= 28; k += 2) {
    if (std::int64_t(1) << k > kNonPowerOfTwo && (n.empty() || n.back() < kNonPowerOfTwo))
      n.push_back(kNonPowerOfTwo);
    n.push_back(std::int64_t(1) << k);
  }
  return n;
}
constexpr std::int64_t kMaxN = std::int64_t(1) << 28;

struct Case {
  OpKind op;
  ElemType type;
};
// The stream family's cases.
const Case kCases[] = {{OpKind::sum, ElemType::f32},
                       {OpKind::sum, ElemType::i32},
                       {OpKind::sum, ElemType::f64},
                       {OpKind::sum, ElemType::f16},
                       {OpKind::min, ElemType::f32}};
// The graph family's: the sums the issue "faster than CUB at every size" is about.
const Case kGraphCases[] = {{OpKind::sum, ElemType::f32},
                            {OpKind::sum, ElemType::i32},
                            {OpKind::sum, ElemType::f64}};

// The number of reductions captured into one graph; each graph iteration reports elapsed / this.
constexpr int kCallsPerGraph = 100;

// The label note of the floor contender (report.py recognises the contender by its name, "floor").
constexpr const char* kFloorNote = "floor: one empty kernel launch (no work)";

std::vector<Contender> contenders_for(const Case& c, ContenderSet set) {
  using gpureduce::Pipeline;
  using gpureduce::Strategy;
  std::vector<Contender> list;
  const bool full = set == ContenderSet::full ||
                    (set == ContenderSet::by_case && c.op == OpKind::sum && c.type == ElemType::f32);
  if (full) {
    for (Strategy s : gpureduce::kAllStrategies)
      for (Pipeline p : gpureduce::kAllPipelines) list.push_back(gpureduce_contender(s, p));
  } else {
    list.push_back(gpureduce_contender(Strategy::cub_block, Pipeline::last_block));
  }
  list.push_back(gpureduce_contender(Strategy::automatic, Pipeline::automatic));
  // The documented fast path: storage zero-filled once, so no per-call memset of the counter.
  list.push_back(gpureduce_contender(Strategy::automatic, Pipeline::automatic, true));
  list.push_back(cub_contender());
  list.push_back(thrust_contender());
  list.push_back(floor_contender());  // in every set: report.py's floor columns need it at every n
  return list;
}

// Thrust is not in the graph family: it synchronises inside every call, so it cannot be captured.
std::vector<Contender> graph_contenders() {
  using gpureduce::Pipeline;
  using gpureduce::Strategy;
  return {gpureduce_contender(Strategy::automatic, Pipeline::automatic),
          gpureduce_contender(Strategy::automatic, Pipeline::automatic, true), cub_contender(),
          floor_contender()};
}

// One input per type, 2^28 elements, filled once; every n reads a prefix of it. Small random
// integers (inputs.hpp), so float sums are exact in any order and validation can be strict.
template <class In>
const In* input() {
  static DeviceBuffer<In> buffer;
  if (buffer.size() == 0) {
    buffer = DeviceBuffer<In>(std::size_t(kMaxN));
    fill_random(buffer.get(), kMaxN, suite->seed, ValueMode::small_integers);
    BENCH_CUDA_CHECK(cudaDeviceSynchronize());
  }
  return buffer.get();
}

template <class T>
std::vector<unsigned char> bits_of(const T& v) {
  std::vector<unsigned char> b(sizeof(T));
  std::memcpy(b.data(), &v, sizeof(T));
  return b;
}

// CUB's answer for (op, type, n), computed once and kept: what every contender is checked against.
template <class In, OpKind Op>
out_t<In, Op> cub_reference(std::int64_t n) {
  using Out = out_t<In, Op>;
  const std::string key = std::string(to_string(Op)) + "/" + to_string(elem_type_of<In>()) + "/" +
                          std::to_string(n);
  auto it = suite->cub_results.find(key);
  if (it == suite->cub_results.end()) {
    DeviceBuffer<Out> d_out(1);
    CubReducer<In, Op> cub(input<In>(), d_out.get(), n);
    cub.enqueue(nullptr);
    Out v{};
    BENCH_CUDA_CHECK(cudaMemcpy(&v, d_out.get(), sizeof(Out), cudaMemcpyDeviceToHost));
    it = suite->cub_results.emplace(key, bits_of(v)).first;
  }
  Out v{};
  std::memcpy(&v, it->second.data(), sizeof(Out));
  return v;
}

template <class T>
double as_double(T v) {
  if constexpr (std::is_same_v<T, __half>) return double(__half2float(v));
  else return double(v);
}

// Integer sums, min and max must match CUB bit for bit. Float sums of the small-integer inputs are
// exact in any summation order, so a correct contender returns the same integer; the 0.5 slack
// only keeps a signed zero or a future change of inputs from failing a correct result.
template <class In, OpKind Op>
bool matches_cub(out_t<In, Op> result, std::int64_t n, std::string& why) {
  using Out = out_t<In, Op>;
  const Out expected = cub_reference<In, Op>(n);
  const bool ok = (Op == OpKind::sum && !std::is_integral_v<Out>)
                      ? std::fabs(as_double(result) - as_double(expected)) <= 0.5
                      : std::memcmp(&result, &expected, sizeof(Out)) == 0;
  if (!ok)
    why = "wrong result: " + std::to_string(as_double(result)) + ", CUB gives " +
          std::to_string(as_double(expected));
  return ok;
}

// For a gpureduce contender: the plan the call uses, as counters and as the label's "plan: ..."
// part; "" for CUB and Thrust. Asked at run time: the plan depends on the device (and on d_in's
// alignment).
template <class In, OpKind Op>
std::string describe_plan(benchmark::State& st, const Contender& c, const In* d_in,
                          std::int64_t n) {
  if (c.kind != Contender::gpureduce) return "";
  gpureduce::LaunchPlan plan;
  BENCH_GPUREDUCE_CHECK((gpureduce_plan<In, Op>(plan, d_in, n, c.options)));
  add_plan_counters(st, plan);
  return plan_text(plan);
}

// What every benchmark reports once its timed loop is done: bytes, % of peak, L2 residency, the
// robust statistics, and a label of "; "-separated notes after the device name. A contender that
// reads no input (floor) reports no bytes, no % of peak and l2_resident = 0.
void report(benchmark::State& st, std::int64_t n, std::size_t elem_bytes,
            const IterationTimes& times, bool l2_flushed, const std::vector<std::string>& notes,
            bool reads_input = true) {
  const double bytes = double(n) * double(elem_bytes);
  const bool l2_resident =
      reads_input && !l2_flushed && suite->device.l2_resident(std::size_t(bytes));
  if (reads_input) {
    st.SetBytesProcessed(std::int64_t(st.iterations()) * std::int64_t(bytes));
    const double pct =
        suite->device.percent_of_peak(bytes * double(st.iterations()), times.total_seconds());
    if (pct >= 0) st.counters["pct_peak_bw"] = pct;
  }
  st.counters["l2_resident"] = l2_resident ? 1 : 0;
  times.report(st);
  std::string label = suite->device.name;
  for (const std::string& note : notes)
    if (!note.empty()) label += "; " + note;
  if (l2_resident) label += "; L2-resident: cache bandwidth";
  st.SetLabel(label.c_str());
}

// The stream family: each timed iteration is one call between two events on the default stream.
template <class In, OpKind Op>
void run_stream(benchmark::State& st, const Contender& c, std::int64_t n) {
  const In* d_in = input<In>();
  ContenderCall<In, Op> call(c, d_in, n);
  std::vector<std::string> notes{describe_plan<In, Op>(st, c, d_in, n)};

  // Validate once, untimed (not floor: it computes nothing); these runs also warm up (module load,
  // clocks).
  if (call.has_result()) call.poison_output(nullptr);
  call.enqueue(nullptr);
  std::string why;
  if (call.has_result() && !matches_cub<In, Op>(call.result(nullptr), n, why)) {
    st.SkipWithError(why.c_str());
    return;
  }
  call.enqueue(nullptr);
  BENCH_CUDA_CHECK(cudaDeviceSynchronize());

  CudaEventTimer timer(nullptr);
  IterationTimes times(st);
  for ([[maybe_unused]] auto _ : st) {
    if (suite->flusher) suite->flusher->flush(nullptr);  // before the start event: not timed
    timer.start();
    call.enqueue(nullptr);
    const double s = timer.stop_seconds();
    st.SetIterationTime(s);
    times.add(s);
  }

  if (c.kind == Contender::thrust) notes.push_back("thrust allocates and synchronises per call");
  if (c.options.temp_storage_zeroed)
    notes.push_back("temp storage zeroed once, no per-call memset");
  if (!call.has_result()) notes.push_back(kFloorNote);
  report(st, n, sizeof(In), times, suite->flush_l2, notes, call.has_result());
}

// The graph family: kCallsPerGraph calls captured into one graph on a stream of its own; each
// timed iteration is one replay between two events on that stream, reported per reduction.
template <class In, OpKind Op>
void run_graph(benchmark::State& st, const Contender& c, std::int64_t n) {
  const In* d_in = input<In>();
  ContenderCall<In, Op> call(c, d_in, n);  // temp storage allocated once, before the capture
  std::vector<std::string> notes{
      "per reduction, " + std::to_string(kCallsPerGraph) + " per graph",
      describe_plan<In, Op>(st, c, d_in, n)};
  // The set-up ran on the legacy default stream (e.g. +zeroed's cudaMemset of the temp storage),
  // which a non-blocking stream does not wait for: finish it before the graph can run.
  BENCH_CUDA_CHECK(cudaDeviceSynchronize());
  CudaStream stream;
  CapturedGraph graph(stream.get(), kCallsPerGraph,
                      [&](cudaStream_t s) { call.enqueue(s); });

  // Validate after one replay (the last of its calls wrote the output; floor has nothing to
  // validate), then warm up.
  if (call.has_result()) call.poison_output(stream.get());
  graph.launch();
  std::string why;
  if (call.has_result() && !matches_cub<In, Op>(call.result(stream.get()), n, why)) {
    st.SkipWithError(why.c_str());
    return;
  }
  for (int i = 0; i < 2; ++i) graph.launch();
  BENCH_CUDA_CHECK(cudaStreamSynchronize(stream.get()));

  CudaEventTimer timer(stream.get());
  IterationTimes times(st);
  for ([[maybe_unused]] auto _ : st) {
    timer.start();
    graph.launch();
    const double per_reduction = timer.stop_seconds() / kCallsPerGraph;
    st.SetIterationTime(per_reduction);
    times.add(per_reduction);
  }

  if (c.options.temp_storage_zeroed)
    notes.push_back("temp storage zeroed once, no per-call memset");
  if (!call.has_result()) notes.push_back(kFloorNote);
  if (suite->flush_l2) notes.push_back("L2 not flushed in graph mode");
  report(st, n, sizeof(In), times, /*l2_flushed=*/false, notes, call.has_result());
}

enum class Mode { stream, graph };

template <class In, OpKind Op, Mode M>
void run_guarded(benchmark::State& st, const Contender& c, std::int64_t n) {
  try {
    if constexpr (M == Mode::graph) run_graph<In, Op>(st, c, n);
    else run_stream<In, Op>(st, c, n);
  } catch (const CudaFailure& e) {
    cudaGetLastError();  // a launch error is not sticky: let the next benchmark run
    st.SkipWithError(e.what());
  }
}

// Registers one benchmark per (case, contender, n); `prefix` is "" or "graph/".
template <Mode M>
std::vector<benchmark::internal::Benchmark*> register_family(const std::string& prefix,
                                                             const Case* cases, std::size_t count,
                                                             ContenderSet set) {
  std::vector<benchmark::internal::Benchmark*> registered;
  for (std::size_t i = 0; i < count; ++i) {
    const Case& k = cases[i];
    const std::string type_name = to_string(k.type);
    const std::vector<Contender> list =
        M == Mode::graph ? graph_contenders() : contenders_for(k, set);
    for (const Contender& c : list) {
      for (std::int64_t n : sizes()) {
        const std::string name = prefix + to_string(k.op) + "/" + type_name + "/n:" +
                                 std::to_string(n) + "/" + c.name;
        with_elem_type(k.type, [&](auto tag) {
          using In = decltype(tag);
          with_op(k.op, [&](auto op) {
            constexpr OpKind Op = decltype(op)::value;
            registered.push_back(
                benchmark::RegisterBenchmark(name.c_str(), [c, n](benchmark::State& st) {
                  run_guarded<In, Op, M>(st, c, n);
                })->UseManualTime()->Unit(benchmark::kMicrosecond));
          });
        });
      }
    }
  }
  return registered;
}

void register_stream(ContenderSet set) {
  register_family<Mode::stream>("", kCases, std::size(kCases), set);
}

// MinTime per benchmark takes precedence over --benchmark_min_time, so one run can give the graph
// family its own (smaller) budget; it counts the per-reduction time Google Benchmark is given.
void register_graph(double min_time) {
  for (auto* b : register_family<Mode::graph>("graph/", kGraphCases, std::size(kGraphCases),
                                              ContenderSet::by_case))
    b->MinTime(min_time);
}

}  // namespace
}  // namespace gpureduce_bench

int main(int argc, char** argv) {
  using namespace gpureduce_bench;
  ContenderSet set = ContenderSet::by_case;
  bool stream_mode = true, graph_mode = true;
  double graph_min_time = 0.002;
  const char* env_flush = std::getenv("GPUREDUCE_BENCH_FLUSH_L2");
  bool flush_l2 = env_flush && std::strcmp(env_flush, "0") != 0 && *env_flush != '\0';

  // Our flags out, a default min_time in (first, so a user's --benchmark_min_time wins).
  std::vector<char*> args{argv[0]};
  static char default_min_time[] = "--benchmark_min_time=0.05";
  args.push_back(default_min_time);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--flush_l2") {
      flush_l2 = true;
    } else if (a.rfind("--contenders=", 0) == 0) {
      const std::string v = a.substr(13);
      if (v == "main") set = ContenderSet::main;
      else if (v == "full") set = ContenderSet::full;
      else if (v == "default") set = ContenderSet::by_case;
      else {
        std::fprintf(stderr, "gpureduce_bench: --contenders must be default, main or full\n");
        return 1;
      }
    } else if (a.rfind("--modes=", 0) == 0) {
      const std::string v = a.substr(8);
      stream_mode = v == "stream" || v == "all";
      graph_mode = v == "graph" || v == "all";
      if (!stream_mode && !graph_mode) {
        std::fprintf(stderr, "gpureduce_bench: --modes must be stream, graph or all\n");
        return 1;
      }
    } else if (a.rfind("--graph_min_time=", 0) == 0) {
      char* end = nullptr;
      graph_min_time = std::strtod(a.c_str() + 17, &end);
      if (end == a.c_str() + 17 || *end != '\0' || !(graph_min_time > 0)) {
        std::fprintf(stderr, "gpureduce_bench: --graph_min_time must be a number of seconds > 0\n");
        return 1;
      }
    } else {
      args.push_back(argv[i]);
    }
  }
  // Read before Initialize, which removes the flags it consumes from argv.
  bool listing = false;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--benchmark_list_tests", 22) == 0)
      listing = std::strcmp(argv[i], "--benchmark_list_tests=false") != 0 &&
                std::strcmp(argv[i], "--benchmark_list_tests=0") != 0;
  int bench_argc = int(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&bench_argc, args.data());
  if (benchmark::ReportUnrecognizedArguments(bench_argc, args.data())) return 1;

  // Registering needs no GPU, so --benchmark_list_tests works on a build machine too.
  if (stream_mode) register_stream(set);
  if (graph_mode) register_graph(graph_min_time);
  if (listing) {
    benchmark::RunSpecifiedBenchmarks();
    return 0;
  }

  std::string why;
  if (cuda_device_count(why) == 0) {
    std::fprintf(stderr, "gpureduce_bench: no CUDA GPU found (%s)\n", why.c_str());
    return 2;
  }
  try {
    Suite s;
    suite = &s;
    s.device = query_device();
    s.flush_l2 = flush_l2;
    if (flush_l2) s.flusher = std::make_unique<L2Flusher>(s.device.l2_bytes);
    s.seed = std::uint64_t(std::chrono::system_clock::now().time_since_epoch().count());

    benchmark::AddCustomContext("gpu", s.device.name);
    benchmark::AddCustomContext("gpu_sm", std::to_string(s.device.sm_major) + std::to_string(s.device.sm_minor));
    benchmark::AddCustomContext("gpu_peak_bandwidth", s.device.peak_text());
    benchmark::AddCustomContext("gpu_l2_bytes", std::to_string(s.device.l2_bytes));
    benchmark::AddCustomContext("versions", s.device.versions_text());
    benchmark::AddCustomContext("input_seed", std::to_string(s.seed));
    benchmark::AddCustomContext("inputs", "random integers in [-16,16] without 0, every n a prefix of one 2^28 buffer");
    benchmark::AddCustomContext("l2_flush", flush_l2 ? "yes: L2 flushed before every timed iteration" : "no: inputs below the L2 size are read from cache (l2_resident=1)");
    benchmark::AddCustomContext("timing", "CUDA events around each call (manual time); temp storage allocated outside the timed loop; gpureduce default Options include the per-call counter memset, +zeroed is the zeroed-once fast path");
    benchmark::AddCustomContext("graph_timing", "graph/...: " + std::to_string(kCallsPerGraph) + " reductions of the same input captured into one CUDA graph on a non-blocking stream, instantiated once; each iteration is one cudaGraphLaunch between events, reported per reduction (elapsed / " + std::to_string(kCallsPerGraph) + "); min time " + std::to_string(graph_min_time) + " s of per-reduction time; L2 never flushed");
    benchmark::AddCustomContext("statistics", "real_time is Google Benchmark's mean over iterations; median_us, p10_us, p90_us are percentiles of the iterations' times (per call; per reduction in graph mode)");
    benchmark::AddCustomContext("floor_note", "floor: not a reduction; one launch of an empty kernel (1 block of 32 threads) per call, timed like the others (per call in the stream family, per kernel of a 100-kernel graph in the graph family) and not validated: the launch cost no single-launch reduction can beat here");
    benchmark::AddCustomContext("thrust_note", "thrust::reduce(thrust::device, ...) as users call it: it allocates temp storage and synchronises on every call, and that is in its time");

    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    suite = nullptr;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpureduce_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
