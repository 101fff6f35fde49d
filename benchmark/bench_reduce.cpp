// gpureduce_bench: Google Benchmark head-to-head of gpureduce against cub::DeviceReduce and
// thrust::reduce. Names: <op>/<type>/n:<n>/<contender>, contender = <strategy>/<pipeline>,
// automatic/automatic+zeroed, cub or thrust. Time is GPU time from CUDA events (UseManualTime).
//
// Own flags (removed before Google Benchmark sees argv):
//   --contenders=default|main|full   default: every strategy x pipeline for sum/f32, the main
//                                    contenders (automatic, automatic+zeroed, cub_block/last_block,
//                                    cub, thrust) elsewhere; main: main everywhere; full: all.
//   --flush_l2                       flush L2 before every timed iteration (also
//                                    GPUREDUCE_BENCH_FLUSH_L2=1); outside the timed region.
// --benchmark_min_time defaults to 0.05 s here (the full default run takes ~4 minutes on an H100).
#include <benchmark/benchmark.h>
#include <gpureduce/gpureduce.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cases.hpp"
#include "cuda_check.hpp"
#include "cuda_timer.hpp"
#include "device_buffer.hpp"
#include "device_info.hpp"
#include "gpureduce_call.hpp"
#include "inputs.hpp"
#include "l2_flush.hpp"
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
const Case kCases[] = {{OpKind::sum, ElemType::f32},
                       {OpKind::sum, ElemType::i32},
                       {OpKind::sum, ElemType::f64},
                       {OpKind::sum, ElemType::f16},
                       {OpKind::min, ElemType::f32}};

struct Contender {
  enum Kind { gpureduce, cub, thrust } kind = gpureduce;
  gpureduce::Options options;  // for kind == gpureduce
  std::string name;
};

Contender gpureduce_contender(gpureduce::Strategy s, gpureduce::Pipeline p, bool zeroed = false) {
  Contender c;
  c.options.strategy = s;
  c.options.pipeline = p;
  c.options.temp_storage_zeroed = zeroed;
  c.name = std::string(gpureduce::to_string(s)) + "/" + gpureduce::to_string(p) +
           (zeroed ? "+zeroed" : "");
  return c;
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
  Contender cub;
  cub.kind = Contender::cub;
  cub.name = "cub";
  list.push_back(cub);
  Contender thrust;
  thrust.kind = Contender::thrust;
  thrust.name = "thrust";
  list.push_back(thrust);
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

template <class In, OpKind Op>
void run_one(benchmark::State& st, const Contender& c, std::int64_t n) {
  using Out = out_t<In, Op>;
  const In* d_in = input<In>();
  DeviceBuffer<Out> d_out(1);
  std::unique_ptr<CubReducer<In, Op>> cub;
  DeviceBuffer<unsigned char> temp;
  std::size_t temp_bytes = 0;
  Out host_result{};
  std::function<void()> enqueue;
  std::function<Out()> result = [&] {
    Out v{};
    BENCH_CUDA_CHECK(cudaMemcpy(&v, d_out.get(), sizeof(Out), cudaMemcpyDeviceToHost));
    return v;
  };

  // Set-up a careful user does once, outside the timed loop: temp storage sized and allocated.
  switch (c.kind) {
    case Contender::gpureduce:
      BENCH_GPUREDUCE_CHECK((gpureduce_reduce<In, Op>(nullptr, temp_bytes, d_in, d_out.get(), n,
                                                      nullptr, c.options)));
      temp = DeviceBuffer<unsigned char>(temp_bytes);
      if (c.options.temp_storage_zeroed)
        BENCH_CUDA_CHECK(cudaMemset(temp.get(), 0, temp.bytes()));  // once; calls keep it zero
      enqueue = [&] {
        BENCH_GPUREDUCE_CHECK((gpureduce_reduce<In, Op>(temp.get(), temp_bytes, d_in, d_out.get(),
                                                        n, nullptr, c.options)));
      };
      break;
    case Contender::cub:
      cub = std::make_unique<CubReducer<In, Op>>(d_in, d_out.get(), n);
      enqueue = [&] { cub->enqueue(nullptr); };
      break;
    case Contender::thrust:  // as users call it: allocation and synchronisation are in the time
      enqueue = [&] { host_result = thrust_reduce<In, Op>(d_in, n); };
      result = [&] { return host_result; };
      break;
  }

  // Validate once, untimed; these runs also warm up (module load, clocks).
  enqueue();
  std::string why;
  if (!matches_cub<In, Op>(result(), n, why)) {
    st.SkipWithError(why.c_str());
    return;
  }
  enqueue();
  BENCH_CUDA_CHECK(cudaDeviceSynchronize());

  CudaEventTimer timer(nullptr);
  double total_seconds = 0.0;
  for ([[maybe_unused]] auto _ : st) {
    if (suite->flusher) suite->flusher->flush(nullptr);  // before the start event: not timed
    timer.start();
    enqueue();
    const double s = timer.stop_seconds();
    st.SetIterationTime(s);
    total_seconds += s;
  }

  const double bytes = double(n) * sizeof(In);
  const bool l2_resident = !suite->flush_l2 && suite->device.l2_resident(std::size_t(bytes));
  st.SetBytesProcessed(std::int64_t(st.iterations()) * std::int64_t(bytes));
  const double pct = suite->device.percent_of_peak(bytes * double(st.iterations()), total_seconds);
  if (pct >= 0) st.counters["pct_peak_bw"] = pct;
  st.counters["l2_resident"] = l2_resident ? 1 : 0;
  std::string label = suite->device.name;
  if (l2_resident) label += "; L2-resident: cache bandwidth";
  if (c.kind == Contender::thrust) label += "; thrust allocates and synchronises per call";
  if (c.options.temp_storage_zeroed) label += "; temp storage zeroed once, no per-call memset";
  st.SetLabel(label.c_str());
}

template <class In, OpKind Op>
void run_guarded(benchmark::State& st, const Contender& c, std::int64_t n) {
  try {
    run_one<In, Op>(st, c, n);
  } catch (const CudaFailure& e) {
    cudaGetLastError();  // a launch error is not sticky: let the next benchmark run
    st.SkipWithError(e.what());
  }
}

void register_all(ContenderSet set) {
  for (const Case& k : kCases) {
    const std::string type_name = to_string(k.type);
    for (const Contender& c : contenders_for(k, set)) {
      for (std::int64_t n : sizes()) {
        const std::string name = std::string(to_string(k.op)) + "/" + type_name +
                                 "/n:" + std::to_string(n) + "/" + c.name;
        with_elem_type(k.type, [&](auto tag) {
          using In = decltype(tag);
          with_op(k.op, [&](auto op) {
            constexpr OpKind Op = decltype(op)::value;
            benchmark::RegisterBenchmark(name.c_str(), [c, n](benchmark::State& st) {
              run_guarded<In, Op>(st, c, n);
            })->UseManualTime()->Unit(benchmark::kMicrosecond);
          });
        });
      }
    }
  }
}

}  // namespace
}  // namespace gpureduce_bench

int main(int argc, char** argv) {
  using namespace gpureduce_bench;
  ContenderSet set = ContenderSet::by_case;
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
  register_all(set);
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
