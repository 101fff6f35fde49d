// gpureduce_bench: Google Benchmark head-to-head of gpureduce against cub::DeviceReduce and
// thrust::reduce, in three families:
//   stream: <op>/<type>/n:<n>/<contender>        one call between two CUDA events on the default
//           stream; contender = <strategy>/<pipeline>, automatic/automatic+zeroed, (floating
//           sums) automatic/automatic+correctly_rounded, cub, thrust, floor or (sums) read.
//   graph:  graph/<op>/<type>/n:<n>/<contender>  sum f32/i32/f64; automatic/automatic,
//           automatic/automatic+zeroed, (f32, f64) automatic/automatic+correctly_rounded, cub and
//           floor. 100 calls on the same input captured into
//           one CUDA graph (graph_timing.hpp); one replay between events per iteration, reported
//           per reduction (elapsed / 100): the time without host launch overhead.
//   paired: paired/<op>/<type>/n:<n>/<A>_vs_cub   A = automatic, zeroed (automatic+zeroed) or
//           (floating sums) correctly_rounded (automatic+correctly_rounded), B =
//           cub; the stream family's cases at n = 2^10 ... 2^20 only. Each iteration times one call
//           of A and one of B, each between CUDA events on the default stream, in ABBA order; the
//           ratio to CUB comes from the per-iteration ratios a_i / b_i, which drift between
//           separately run benchmarks cannot bias (see run_paired).
// floor is not a reduction: one launch of an empty kernel (1 block of 32 threads, floor_kernel.cu)
// per call, timed exactly like the others at every (op, type, n) of the stream and graph families
// and not validated. Its time is the launch cost no single-launch reduction can get below in this
// harness; report.py adds the input bytes at the theoretical bandwidth to it for the "floor"
// columns of its automatic-vs-CUB tables.
// read is not a reduction either: one launch of a kernel that reads the input once and reduces
// nothing (floor_kernel.cu), for sums at every n of the stream family, not validated. Where the time
// is bandwidth its time is the floor: what reading these bytes costs on this machine in this run
// (report.py's "reading the input alone" tables).
// Time is GPU time from CUDA events (UseManualTime); Google Benchmark's real_time is its mean.
// Counters: median_us, p10_us, p90_us (percentiles of the iterations' times, per call or per
// reduction: robust to one slow iteration, unlike the mean); for gpureduce contenders the launch
// plan as plan_grid, plan_block, plan_items_per_thread, plan_launches and as text in the label.
//
// Own flags (removed before Google Benchmark sees argv):
//   --modes=stream|graph|paired|all  which families to register, comma-separated (default all).
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
//                                    The paired family flushes before each of its two calls.
//   --paired_min_time=SECONDS        the paired family's min time (default 0.05, the stream
//                                    family's), in A's time; B's calls come on top, so each paired
//                                    benchmark spends about twice that on the GPU.
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

// The paired family's: the stream family's cases, at the sizes paired_sizes() gives.
const Case* const kPairedCases = kCases;
constexpr std::size_t kPairedCaseCount = std::size(kCases);

// n = 2^10 ... 2^20 in steps of 4x: where launch overhead dominates. A call there takes ~6 us
// between events, of which reading the input is at most ~1 us (4 MiB of floats at ~4 TB/s), with a
// p10-p90 spread of ~2 us; the machine drifts by a few tenths of a us between benchmarks run one
// after another, so a ratio to CUB from separately run stream cases is noise at these sizes. Above
// 2^20 the read time dominates and the stream family's ratios are stable enough.
std::vector<std::int64_t> paired_sizes() {
  std::vector<std::int64_t> n;
  for (int k = 10; k <= 20; k += 2) n.push_back(std::int64_t(1) << k);
  return n;
}

// A paired benchmark: gpureduce with some Options (A) against cub::DeviceReduce (B).
struct PairedContenders {
  std::string name;    // the last part of the benchmark's name
  Contender a;
  std::string a_text;  // A in the label
};
// Whether a case's sums can be correctly rounded (floating inputs; integer sums are exact anyway).
bool correctly_roundable(const Case& c) { return c.op == OpKind::sum && c.type != ElemType::i32; }

std::vector<PairedContenders> paired_contenders(const Case& c) {
  using gpureduce::Pipeline;
  using gpureduce::Strategy;
  std::vector<PairedContenders> list = {
      {"automatic_vs_cub", gpureduce_contender(Strategy::automatic, Pipeline::automatic),
       "automatic (default Options)"},
      {"zeroed_vs_cub", gpureduce_contender(Strategy::automatic, Pipeline::automatic, true),
       "automatic+zeroed (temp storage zeroed once)"}};
  if (correctly_roundable(c))
    list.push_back({"correctly_rounded_vs_cub", correctly_rounded_contender(),
                    "automatic+correctly_rounded (Options::accuracy)"});
  return list;
}

// The number of reductions captured into one graph; each graph iteration reports elapsed / this.
constexpr int kCallsPerGraph = 100;

// The label note of the floor contender (report.py recognises the contender by its name, "floor").
constexpr const char* kFloorNote = "floor: one empty kernel launch (no work)";
constexpr const char* kReadNote = "read: one launch that reads the input and reduces nothing";
const char* no_result_note(const Contender& c) {
  return c.kind == Contender::read_input ? kReadNote : kFloorNote;
}

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
  if (correctly_roundable(c)) list.push_back(correctly_rounded_contender());
  list.push_back(cub_contender());
  list.push_back(thrust_contender());
  list.push_back(floor_contender());  // in every set: report.py's floor columns need it at every n
  // Sums only (the bytes are the same whatever the operation): report.py's read floor table.
  if (c.op == OpKind::sum) list.push_back(read_contender());
  return list;
}

// Thrust is not in the graph family: it synchronises inside every call, so it cannot be captured.
std::vector<Contender> graph_contenders(const Case& c) {
  using gpureduce::Pipeline;
  using gpureduce::Strategy;
  std::vector<Contender> list = {gpureduce_contender(Strategy::automatic, Pipeline::automatic),
                                 gpureduce_contender(Strategy::automatic, Pipeline::automatic, true)};
  if (correctly_roundable(c)) list.push_back(correctly_rounded_contender());
  list.push_back(cub_contender());
  list.push_back(floor_contender());
  return list;
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
// alignment), and on whether `stream` is being captured into a graph (the graph family asks
// during its capture).
template <class In, OpKind Op>
std::string describe_plan(benchmark::State& st, const Contender& c, const In* d_in,
                          std::int64_t n, cudaStream_t stream = nullptr) {
  if (c.kind != Contender::gpureduce) return "";
  gpureduce::LaunchPlan plan;
  BENCH_GPUREDUCE_CHECK((gpureduce_plan<In, Op>(plan, d_in, n, c.options, stream)));
  add_plan_counters(st, plan);
  return plan_text(plan);
}

// The label (the device name, then the non-empty notes, "; "-separated) and the l2_resident
// counter, with a note in the label when set.
void set_label(benchmark::State& st, const std::vector<std::string>& notes, bool l2_resident) {
  st.counters["l2_resident"] = l2_resident ? 1 : 0;
  std::string label = suite->device.name;
  for (const std::string& note : notes)
    if (!note.empty()) label += "; " + note;
  if (l2_resident) label += "; L2-resident: cache bandwidth";
  st.SetLabel(label.c_str());
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
  times.report(st);
  set_label(st, notes, l2_resident);
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
  if (!call.has_result()) notes.push_back(no_result_note(c));
  report(st, n, sizeof(In), times, suite->flush_l2, notes, call.reads_input());
}

// The graph family: kCallsPerGraph calls captured into one graph on a stream of its own; each
// timed iteration is one replay between two events on that stream, reported per reduction.
//
// Where a contender's temp storage and output land in memory moves its time inside a graph by
// 0.1-0.2 us per reduction, 4-8% at 256K-1M items on an H200, in either direction
// (benchmark/results/h200-2026-11-22g-probe.txt, probe run 15 "address"): one allocation is one
// draw. So each contender gets kPlacements set-ups of its own (temp storage and output allocated
// anew, all alive at once, so at different addresses), each captured into its own graph; the
// timed iterations replay them in turn and the statistics pool all of them. CUB gets the same.
constexpr int kPlacements = 4;

template <class In, OpKind Op>
void run_graph(benchmark::State& st, const Contender& c, std::int64_t n) {
  const In* d_in = input<In>();
  std::vector<std::unique_ptr<ContenderCall<In, Op>>> calls;  // temp storage allocated before capture
  for (int p = 0; p < kPlacements; ++p)
    calls.push_back(std::make_unique<ContenderCall<In, Op>>(c, d_in, n));
  std::vector<std::string> notes{"per reduction, " + std::to_string(kCallsPerGraph) +
                                     " per graph, " + std::to_string(kPlacements) +
                                     " allocations of temp storage and output in turn",
                                 ""};
  // The set-up ran on the legacy default stream (e.g. +zeroed's cudaMemset of the temp storage),
  // which a non-blocking stream does not wait for: finish it before the graph can run.
  BENCH_CUDA_CHECK(cudaDeviceSynchronize());
  CudaStream stream;
  std::vector<std::unique_ptr<CapturedGraph>> graphs;
  for (auto& call : calls)
    graphs.push_back(std::make_unique<CapturedGraph>(
        stream.get(), kCallsPerGraph, [&](cudaStream_t s) {
          if (notes[1].empty()) notes[1] = describe_plan<In, Op>(st, c, d_in, n, s);  // as captured
          call->enqueue(s);
        }));

  // Validate each after one replay (the last of its calls wrote its output; floor has nothing to
  // validate), then warm up.
  for (std::size_t p = 0; p < graphs.size(); ++p) {
    if (calls[p]->has_result()) calls[p]->poison_output(stream.get());
    graphs[p]->launch();
    std::string why;
    if (calls[p]->has_result() && !matches_cub<In, Op>(calls[p]->result(stream.get()), n, why)) {
      st.SkipWithError(why.c_str());
      return;
    }
    for (int i = 0; i < 2; ++i) graphs[p]->launch();
  }
  BENCH_CUDA_CHECK(cudaStreamSynchronize(stream.get()));

  CudaEventTimer timer(stream.get());
  IterationTimes times(st);
  std::size_t next = 0;
  for ([[maybe_unused]] auto _ : st) {
    CapturedGraph& graph = *graphs[next];
    next = (next + 1) % graphs.size();
    timer.start();
    graph.launch();
    const double per_reduction = timer.stop_seconds() / kCallsPerGraph;
    st.SetIterationTime(per_reduction);
    times.add(per_reduction);
  }

  if (c.options.temp_storage_zeroed)
    notes.push_back("temp storage zeroed once, no per-call memset");
  if (!calls[0]->has_result()) notes.push_back(no_result_note(c));
  if (suite->flush_l2) notes.push_back("L2 not flushed in graph mode");
  report(st, n, sizeof(In), times, /*l2_flushed=*/false, notes, calls[0]->reads_input());
}

// The paired family: A (gpureduce) and B (CUB) on the same input, both validated, then each
// iteration times one call of A and one call of B, each between two events on the default stream
// as in the stream family, A first in even iterations and B first in odd ones (A B B A A B ...:
// ABBA), so neither always runs right after the other's call. A drift of the machine (clocks,
// power, other tenants) over the run slows both alike, and the ratio a_i / b_i of one iteration's
// two calls, taken microseconds apart, cancels it; its median and p10/p90 are the result.
// Google Benchmark's own time is A's (SetIterationTime(a_i)), so the min time counts A's time.
template <class In, OpKind Op>
void run_paired(benchmark::State& st, const PairedContenders& pc, std::int64_t n) {
  const In* d_in = input<In>();
  ContenderCall<In, Op> a(pc.a, d_in, n);
  ContenderCall<In, Op> b(cub_contender(), d_in, n);
  std::vector<std::string> notes{
      "paired: A=" + pc.a_text + ", B=cub::DeviceReduce, alternated ABBA",
      describe_plan<In, Op>(st, pc.a, d_in, n)};

  // Validate both once, untimed, against CUB's answer computed apart from B's instance; then warm
  // up both.
  for (ContenderCall<In, Op>* call : {&a, &b}) {
    call->poison_output(nullptr);
    call->enqueue(nullptr);
    std::string why;
    if (!matches_cub<In, Op>(call->result(nullptr), n, why)) {
      st.SkipWithError(((call == &a ? "A: " : "B: ") + why).c_str());
      return;
    }
  }
  a.enqueue(nullptr);
  b.enqueue(nullptr);
  BENCH_CUDA_CHECK(cudaDeviceSynchronize());

  CudaEventTimer timer(nullptr);
  auto time_call = [&](ContenderCall<In, Op>& call) {
    if (suite->flusher) suite->flusher->flush(nullptr);  // before the start event: not timed
    timer.start();
    call.enqueue(nullptr);
    return timer.stop_seconds();
  };
  IterationTimes a_times(st), b_times(st), ratios(st);
  bool a_first = true;
  for ([[maybe_unused]] auto _ : st) {
    double ta, tb;
    if (a_first) {
      ta = time_call(a);
      tb = time_call(b);
    } else {
      tb = time_call(b);
      ta = time_call(a);
    }
    a_first = !a_first;
    st.SetIterationTime(ta);
    a_times.add(ta);
    b_times.add(tb);
    if (tb > 0) ratios.add(ta / tb);
  }

  if (!a_times.empty()) {
    const std::vector<double> r = ratios.sorted();
    st.counters["a_median_us"] = 1e6 * IterationTimes::percentile(a_times.sorted(), 0.5);
    st.counters["b_median_us"] = 1e6 * IterationTimes::percentile(b_times.sorted(), 0.5);
    st.counters["ratio_median"] = IterationTimes::percentile(r, 0.5);
    st.counters["ratio_p10"] = IterationTimes::percentile(r, 0.1);
    st.counters["ratio_p90"] = IterationTimes::percentile(r, 0.9);
  }
  if (pc.a.options.temp_storage_zeroed)
    notes.push_back("temp storage zeroed once, no per-call memset");
  const bool l2_resident =
      !suite->flush_l2 && suite->device.l2_resident(std::size_t(n) * sizeof(In));
  set_label(st, notes, l2_resident);
}

// Runs one benchmark's body; a CUDA failure skips that benchmark, not the program.
template <class Body>
void run_guarded(benchmark::State& st, Body&& body) {
  try {
    body();
  } catch (const CudaFailure& e) {
    cudaGetLastError();  // a launch error is not sticky: let the next benchmark run
    st.SkipWithError(e.what());
  }
}

enum class Mode { stream, graph };

// Registers `<prefix><op>/<type>/n:<n>/<last>` (manual time, in µs) to run, under run_guarded,
// body(st, In{}, std::integral_constant<OpKind, op>{}) with the case's C++ input type and op.
template <class Body>
benchmark::internal::Benchmark* register_case(const std::string& prefix, const Case& k,
                                              std::int64_t n, const std::string& last, Body body) {
  const std::string name = prefix + to_string(k.op) + "/" + to_string(k.type) + "/n:" +
                           std::to_string(n) + "/" + last;
  benchmark::internal::Benchmark* b = nullptr;
  with_elem_type(k.type, [&](auto tag) {
    with_op(k.op, [&](auto op) {
      b = benchmark::RegisterBenchmark(name.c_str(), [body, tag, op](benchmark::State& st) {
        run_guarded(st, [&] { body(st, tag, op); });
      });
    });
  });
  return b->UseManualTime()->Unit(benchmark::kMicrosecond);
}

// Registers one benchmark per (case, contender, n); `prefix` is "" or "graph/".
template <Mode M>
std::vector<benchmark::internal::Benchmark*> register_family(const std::string& prefix,
                                                             const Case* cases, std::size_t count,
                                                             ContenderSet set) {
  std::vector<benchmark::internal::Benchmark*> registered;
  for (std::size_t i = 0; i < count; ++i) {
    const Case& k = cases[i];
    const std::vector<Contender> list =
        M == Mode::graph ? graph_contenders(k) : contenders_for(k, set);
    for (const Contender& c : list) {
      for (std::int64_t n : sizes()) {
        registered.push_back(
            register_case(prefix, k, n, c.name, [c, n](benchmark::State& st, auto tag, auto op) {
              using In = decltype(tag);
              constexpr OpKind Op = decltype(op)::value;
              if constexpr (M == Mode::graph) run_graph<In, Op>(st, c, n);
              else run_stream<In, Op>(st, c, n);
            }));
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

// paired/<op>/<type>/n:<n>/<pair>; MinTime counts A's time (see run_paired).
void register_paired(double min_time) {
  for (std::size_t i = 0; i < kPairedCaseCount; ++i) {
    for (const PairedContenders& pc : paired_contenders(kPairedCases[i])) {
      for (std::int64_t n : paired_sizes()) {
        register_case("paired/", kPairedCases[i], n, pc.name,
                      [pc, n](benchmark::State& st, auto tag, auto op) {
                        run_paired<decltype(tag), decltype(op)::value>(st, pc, n);
                      })
            ->MinTime(min_time);
      }
    }
  }
}

}  // namespace
}  // namespace gpureduce_bench

namespace {

// The flags gpureduce_bench reads itself; the rest go to Google Benchmark.
struct BenchFlags {
  gpureduce_bench::ContenderSet set = gpureduce_bench::ContenderSet::by_case;
  bool stream_mode = true, graph_mode = true, paired_mode = true;
  double graph_min_time = 0.002, paired_min_time = 0.05;
  bool flush_l2 = false;
};

// --modes=LIST into the three families; false (and a message) on an unknown name.
bool parse_modes(const std::string& list, BenchFlags& f) {
  f.stream_mode = f.graph_mode = f.paired_mode = false;
  bool ok = true;
  for (std::size_t pos = 0;;) {
    const std::size_t comma = list.find(',', pos);
    const std::string m = list.substr(pos, comma == std::string::npos ? comma : comma - pos);
    if (m == "all") f.stream_mode = f.graph_mode = f.paired_mode = true;
    else if (m == "stream") f.stream_mode = true;
    else if (m == "graph") f.graph_mode = true;
    else if (m == "paired") f.paired_mode = true;
    else ok = false;
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  if (!ok)
    std::fprintf(stderr, "gpureduce_bench: --modes must be stream, graph, paired or all, "
                         "or a comma-separated list of them\n");
  return ok;
}

// --graph_min_time=S or --paired_min_time=S; false (and a message) unless S is a number > 0.
bool parse_min_time(const std::string& a, BenchFlags& f) {
  const bool graph = a[2] == 'g';
  const std::size_t at = a.find('=') + 1;
  char* end = nullptr;
  const double t = std::strtod(a.c_str() + at, &end);
  if (end == a.c_str() + at || *end != '\0' || !(t > 0)) {
    std::fprintf(stderr, "gpureduce_bench: --%s_min_time must be a number of seconds > 0\n",
                 graph ? "graph" : "paired");
    return false;
  }
  (graph ? f.graph_min_time : f.paired_min_time) = t;
  return true;
}

// Our flags out of argv into `f`, the rest (after a default min_time, so that a user's
// --benchmark_min_time wins) into `args` for Google Benchmark. False on a bad flag.
bool parse_flags(int argc, char** argv, BenchFlags& f, std::vector<char*>& args) {
  using gpureduce_bench::ContenderSet;
  const char* env_flush = std::getenv("GPUREDUCE_BENCH_FLUSH_L2");
  f.flush_l2 = env_flush && std::strcmp(env_flush, "0") != 0 && *env_flush != '\0';
  static char default_min_time[] = "--benchmark_min_time=0.05";
  args = {argv[0], default_min_time};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--flush_l2") {
      f.flush_l2 = true;
    } else if (a.rfind("--contenders=", 0) == 0) {
      const std::string v = a.substr(13);
      if (v == "main") f.set = ContenderSet::main;
      else if (v == "full") f.set = ContenderSet::full;
      else if (v == "default") f.set = ContenderSet::by_case;
      else {
        std::fprintf(stderr, "gpureduce_bench: --contenders must be default, main or full\n");
        return false;
      }
    } else if (a.rfind("--modes=", 0) == 0) {
      if (!parse_modes(a.substr(8), f)) return false;
    } else if (a.rfind("--graph_min_time=", 0) == 0 || a.rfind("--paired_min_time=", 0) == 0) {
      if (!parse_min_time(a, f)) return false;
    } else {
      args.push_back(argv[i]);
    }
  }
  return true;
}

// Whether Google Benchmark is asked only to list the cases (read before Initialize, which removes
// the flags it consumes from argv).
bool listing_only(int argc, char** argv) {
  bool listing = false;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--benchmark_list_tests", 22) == 0)
      listing = std::strcmp(argv[i], "--benchmark_list_tests=false") != 0 &&
                std::strcmp(argv[i], "--benchmark_list_tests=0") != 0;
  return listing;
}

// The run's context in Google Benchmark's output: the device, the inputs and how each family times.
void add_context(const gpureduce_bench::Suite& s, const BenchFlags& f) {
  using gpureduce_bench::kCallsPerGraph;
  using gpureduce_bench::kPlacements;
  benchmark::AddCustomContext("gpu", s.device.name);
  benchmark::AddCustomContext("gpu_sm", std::to_string(s.device.sm_major) + std::to_string(s.device.sm_minor));
  benchmark::AddCustomContext("gpu_peak_bandwidth", s.device.peak_text());
  benchmark::AddCustomContext("gpu_l2_bytes", std::to_string(s.device.l2_bytes));
  benchmark::AddCustomContext("versions", s.device.versions_text());
  benchmark::AddCustomContext("input_seed", std::to_string(s.seed));
  benchmark::AddCustomContext("inputs", "random integers in [-16,16] without 0, every n a prefix of one 2^28 buffer");
  benchmark::AddCustomContext("l2_flush", f.flush_l2 ? "yes: L2 flushed before every timed iteration" : "no: inputs below the L2 size are read from cache (l2_resident=1)");
  benchmark::AddCustomContext("timing", "CUDA events around each call (manual time); temp storage allocated outside the timed loop; gpureduce default Options include the per-call counter memset, +zeroed is the zeroed-once fast path");
  benchmark::AddCustomContext("graph_timing", "graph/...: " + std::to_string(kCallsPerGraph) + " reductions of the same input captured into one CUDA graph on a non-blocking stream, instantiated once; " + std::to_string(kPlacements) + " such graphs per contender, each with its own allocations of temp storage and output (where they land moves graph times by 0.1-0.2 us), replayed in turn; each iteration is one cudaGraphLaunch between events, reported per reduction (elapsed / " + std::to_string(kCallsPerGraph) + "); min time " + std::to_string(f.graph_min_time) + " s of per-reduction time; L2 never flushed");
  benchmark::AddCustomContext("paired_timing", "paired/...: A (gpureduce: automatic, default Options, or automatic+zeroed) and B (cub::DeviceReduce) on the same input; each iteration times one call of A and one of B, each between CUDA events on the default stream, A first in even iterations and B first in odd ones (ABBA); a_median_us and b_median_us are their medians, ratio_median, ratio_p10 and ratio_p90 percentiles of the per-iteration ratios a_i / b_i; Google Benchmark's time is A's; min time " + std::to_string(f.paired_min_time) + " s of A's time");
  benchmark::AddCustomContext("statistics", "real_time is Google Benchmark's mean over iterations; median_us, p10_us, p90_us are percentiles of the iterations' times (per call; per reduction in graph mode)");
  benchmark::AddCustomContext("floor_note", "floor: not a reduction; one launch of an empty kernel (1 block of 32 threads) per call, timed like the others (per call in the stream family, per kernel of a 100-kernel graph in the graph family) and not validated: the launch cost no single-launch reduction can beat here");
  benchmark::AddCustomContext("thrust_note", "thrust::reduce(thrust::device, ...) as users call it: it allocates temp storage and synchronises on every call, and that is in its time");
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gpureduce_bench;
  BenchFlags flags;
  std::vector<char*> args;
  if (!parse_flags(argc, argv, flags, args)) return 1;
  const bool listing = listing_only(argc, argv);
  int bench_argc = int(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&bench_argc, args.data());
  if (benchmark::ReportUnrecognizedArguments(bench_argc, args.data())) return 1;

  // Registering needs no GPU, so --benchmark_list_tests works on a build machine too.
  if (flags.stream_mode) register_stream(flags.set);
  if (flags.graph_mode) register_graph(flags.graph_min_time);
  if (flags.paired_mode) register_paired(flags.paired_min_time);
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
    s.flush_l2 = flags.flush_l2;
    if (flags.flush_l2) s.flusher = std::make_unique<L2Flusher>(s.device.l2_bytes);
    s.seed = std::uint64_t(std::chrono::system_clock::now().time_since_epoch().count());
    add_context(s, flags);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    suite = nullptr;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpureduce_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
