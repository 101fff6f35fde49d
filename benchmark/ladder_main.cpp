// gpureduce_ladder: seed 001's table on today's GPU. Every rung in ladder order on one random input,
// automatic, (floating sums) automatic correctly rounded, then cub::DeviceReduce, thrust::reduce and the seed baselines (002's atomics, 003's nested
// reduce), each with its median time, bandwidth, error against the exact answer and whether its
// bits equal CUB's. Plain C++: gpureduce through its host-only header, CUB / Thrust / the seed
// kernels through the small libraries next to this file.
#include <gpureduce/gpureduce.hpp>

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cases.hpp"
#include "cuda_check.hpp"
#include "cuda_timer.hpp"
#include "device_buffer.hpp"
#include "device_info.hpp"
#include "exact_reference.hpp"
#include "gpureduce_call.hpp"
#include "inputs.hpp"
#include "l2_flush.hpp"
#include "ladder_options.hpp"
#include "ladder_report.hpp"
#include "nested_reduce.hpp"
#include "reference_reducers.hpp"
#include "seed_atomic_baselines.hpp"

namespace gpureduce_bench {
namespace {

template <class T>
std::string value_text(T v) {
  char text[64];
  if constexpr (std::is_same_v<T, float>) std::snprintf(text, sizeof text, "%.9g", double(v));
  else if constexpr (std::is_same_v<T, double>) std::snprintf(text, sizeof text, "%.17g", v);
  else if constexpr (std::is_same_v<T, __half>) std::snprintf(text, sizeof text, "%.5g", double(__half2float(v)));
  else std::snprintf(text, sizeof text, "%lld", (long long)v);
  return text;
}

std::string plan_text(const gpureduce::LaunchPlan& p) {
  char text[256];
  std::snprintf(text, sizeof text,
                "strategy=%s pipeline=%s grid=%d block=%d items/thread=%d launches=%d temp=%zu B",
                gpureduce::to_string(p.strategy), gpureduce::to_string(p.pipeline), p.grid_blocks,
                p.block_threads, p.items_per_thread, p.launches, p.temp_storage_bytes);
  return text;
}

template <class In, OpKind Op>
class Ladder {
 public:
  using Out = out_t<In, Op>;

  Ladder(const LadderOptions& o, const DeviceInfo& device)
      : o_(o), device_(device), d_in_(std::size_t(o.n)), d_out_(1) {
    if (o.flush_l2) flusher_.emplace(device.l2_bytes);
    fill_random(d_in_.get(), o.n, o.seed, ValueMode::fine_grained);
    BENCH_CUDA_CHECK(cudaDeviceSynchronize());
    // The reference is computed from the values on the GPU, not from a second generator.
    std::vector<In> host(std::size_t(o.n));
    BENCH_CUDA_CHECK(cudaMemcpy(host.data(), d_in_.get(), d_in_.bytes(), cudaMemcpyDeviceToHost));
    reference_ = exact_reference<In, Op>(host, fine_scale_exponent<In>());
  }

  // Returns the process exit code: 0, or 1 when a row failed or is outside its error bound.
  int run() {
    // CUB first: every row is compared with its bits.
    CubReducer<In, Op> cub(d_in_.get(), d_out_.get(), o_.n);
    LadderRow cub_row = measure(cub_name(), [&] { cub.enqueue(nullptr); });
    cub_result_ = last_result_;
    cub_row.seed = "reference";
    cub_row.fixes = "temp storage allocated once, outside the timed region";
    cub_row.equals_cub = "-";

    std::vector<LadderRow> rows;
    for (gpureduce::Strategy s : gpureduce::kAllStrategies) rows.push_back(gpureduce_row(s));
    rows.push_back(gpureduce_row(gpureduce::Strategy::automatic));
    if constexpr (Op == OpKind::sum && !std::is_integral_v<In>)
      rows.push_back(gpureduce_row(gpureduce::Strategy::automatic,
                                   gpureduce::Accuracy::correctly_rounded));
    rows.push_back(cub_row);
    rows.push_back(guarded("thrust::reduce", [&] { return thrust_row(); }));
    if constexpr (Op == OpKind::sum) {
      rows.push_back(guarded("atomic_every_thread", [&] { return atomic_every_thread_row(); }));
      rows.push_back(guarded("atomic_warp_lane", [&] { return atomic_warp_lane_row(); }));
      rows.push_back(guarded("nested_dynamic_parallelism", [&] { return nested_row(); }));
    } else {
      rows.push_back(omitted("atomic_every_thread", "002", "seed 002's baselines are sums"));
      rows.push_back(omitted("atomic_warp_lane", "002", "seed 002's baselines are sums"));
      rows.push_back(omitted("nested_dynamic_parallelism", "003", "seed 003's nested reduce is a sum"));
    }

    LadderHeader h;
    h.device = device_.name + " (sm_" + std::to_string(device_.sm_major) +
               std::to_string(device_.sm_minor) + ", " + std::to_string(device_.multiprocessors) +
               " SMs, L2 " + std::to_string(device_.l2_bytes >> 20) + " MiB)";
    h.versions = device_.versions_text();
    h.peak = device_.peak_text();
    h.peak_bytes_per_second = device_.peak_bytes_per_second;
    h.type_text = std::is_same_v<In, __half> && Op == OpKind::sum ? "f16 (summed in f32)"
                                                                   : to_string(elem_type_of<In>());
    h.op = to_string(Op);
    h.pipeline = gpureduce::to_string(o_.pipeline);
    h.n = o_.n;
    h.seed = o_.seed;
    h.bytes = double(o_.n) * sizeof(In);
    h.l2_bytes = device_.l2_bytes;
    h.l2_resident = !o_.flush_l2 && device_.l2_resident(std::size_t(o_.n) * sizeof(In));
    h.timing = "median of " + std::to_string(o_.repeats) + " runs after " +
               std::to_string(o_.warmups) + " warm-ups, CUDA events around each call" +
               (o_.flush_l2 ? ", L2 flushed before each run" : "") +
               "; gpureduce with default Options (last_block/atomic: memset of the counter + "
               "kernel)";
    print_ladder(h, rows, o_);

    int bad = 0;
    for (const LadderRow& r : rows) bad += (r.measured && !r.within_bound) || r.note.rfind("FAILED", 0) == 0;
    if (bad > 0)
      std::fprintf(stderr, "gpureduce_ladder: %d row(s) failed or are outside their error bound\n", bad);
    return bad > 0 ? 1 : 0;
  }

 private:
  static std::string cub_name() {
    return std::string("cub::DeviceReduce::") + (Op == OpKind::sum ? "Sum" : Op == OpKind::min ? "Min" : "Max");
  }

  // Times `enqueue` (which leaves its answer in d_out_), reads the answer and scores it.
  template <class Enqueue>
  LadderRow measure(std::string name, Enqueue&& enqueue) {
    LadderRow row;
    row.name = std::move(name);
    row.seconds = time_median_seconds(timer_, o_.warmups, o_.repeats, enqueue, [&] {
      if (flusher_) flusher_->flush(nullptr);
    });
    BENCH_CUDA_CHECK(cudaMemcpy(&last_result_, d_out_.get(), sizeof(Out), cudaMemcpyDeviceToHost));
    score(row, last_result_);
    return row;
  }

  void score(LadderRow& row, Out result) {
    const ErrorReport e = compare(reference_, result);
    row.measured = true;
    row.result = value_text(result);
    row.abs_error = double(e.abs_error);
    row.rel_error = double(e.rel_error);
    row.within_bound = e.within_bound;
    row.equals_cub = bitwise_equal(result, cub_result_) ? "yes" : "no";
  }

  // One failing row must not hide the others: it is reported in place and makes the exit code 1.
  template <class MakeRow>
  static LadderRow guarded(const char* name, MakeRow&& make_row) {
    try {
      return make_row();
    } catch (const CudaFailure& e) {
      cudaGetLastError();  // a launch error is not sticky: clear it for the next rows
      LadderRow row;
      row.name = name;
      row.note = std::string("FAILED: ") + e.what();
      return row;
    }
  }

  static LadderRow omitted(const char* name, const char* seed, const char* why) {
    LadderRow row;
    row.name = name;
    row.seed = seed;
    row.note = std::string("omitted: ") + why;
    return row;
  }

  LadderRow gpureduce_row(gpureduce::Strategy strategy,
                          gpureduce::Accuracy accuracy = gpureduce::Accuracy::plan_order) {
    gpureduce::Options options;
    options.strategy = strategy;
    options.pipeline = o_.pipeline;
    options.accuracy = accuracy;
    const bool exact = accuracy == gpureduce::Accuracy::correctly_rounded;
    const std::string name =
        std::string(gpureduce::to_string(strategy)) + (exact ? "+correctly_rounded" : "");
    LadderRow row = guarded(name.c_str(), [&] {
      std::size_t bytes = 0;
      BENCH_GPUREDUCE_CHECK((gpureduce_reduce<In, Op>(nullptr, bytes, d_in_.get(), d_out_.get(),
                                                      o_.n, nullptr, options)));
      DeviceBuffer<unsigned char> temp(bytes);  // allocated once, outside the timed region
      LadderRow r = measure(name, [&] {
        BENCH_GPUREDUCE_CHECK((gpureduce_reduce<In, Op>(temp.get(), bytes, d_in_.get(),
                                                        d_out_.get(), o_.n, nullptr, options)));
      });
      if (o_.verbose) {
        gpureduce::LaunchPlan plan;
        BENCH_GPUREDUCE_CHECK((gpureduce_plan<In, Op>(plan, d_in_.get(), o_.n, options)));
        r.plan = plan_text(plan);
      }
      return r;
    });
    row.pipeline = gpureduce::to_string(o_.pipeline);
    row.seed = exact ? "beyond the seeds" : gpureduce::seed_step(strategy);
    row.fixes = exact ? "Options::accuracy: the exact sum rounded once, the same bits for every "
                        "plan (docs/correctly_rounded.md)"
                      : gpureduce::what_it_fixes(strategy);
    return row;
  }

  LadderRow thrust_row() {
    Out result{};
    LadderRow row;
    row.name = "thrust::reduce";
    row.seconds = time_median_seconds(timer_, o_.warmups, o_.repeats,
                                      [&] { result = thrust_reduce<In, Op>(d_in_.get(), o_.n); },
                                      [&] { if (flusher_) flusher_->flush(nullptr); });
    score(row, result);
    row.seed = "reference";
    row.fixes = "thrust::reduce(thrust::device, ...) as users call it";
    row.note = "allocates temp storage and synchronises on every call; both are in its time";
    return row;
  }

  LadderRow atomic_every_thread_row() {
    LadderRow row = measure("atomic_every_thread", [&] {
      atomic_every_thread_sum(d_in_.get(), d_out_.get(), o_.n, nullptr);
    });
    row.seed = "002";
    row.fixes = "every thread atomicAdd's its element into the output";
    row.note = "time includes the cudaMemsetAsync zeroing the output";
    return row;
  }

  LadderRow atomic_warp_lane_row() {
    LadderRow row = measure("atomic_warp_lane", [&] {
      atomic_warp_lane_sum(d_in_.get(), d_out_.get(), o_.n, nullptr);
    });
    row.seed = "002";
    row.fixes = "lane 0 of each warp adds its warp's 32 elements in turn; one atomicAdd per warp";
    row.note = "time includes the cudaMemsetAsync zeroing the output";
    return row;
  }

  LadderRow nested_row() {
    DeviceBuffer<unsigned char> scratch(nested_reduce_scratch_bytes<Out>(o_.n));
    LadderRow row = measure("nested_dynamic_parallelism", [&] {
      nested_reduce_sum(d_in_.get(), d_out_.get(), o_.n, scratch.get(), nullptr);
    });
    row.seed = "003";
    row.fixes = "the GPU launches each next level itself (tail launch); block partials between";
    const cudaError_t status = nested_reduce_status(scratch.get());
    if (status != cudaSuccess) {
      row.measured = false;
      row.note = std::string("FAILED: a device-side launch returned ") + cudaGetErrorName(status);
    } else {
      row.note = "time includes a 4-byte cudaMemsetAsync of its status word";
    }
    return row;
  }

  const LadderOptions& o_;
  const DeviceInfo& device_;
  DeviceBuffer<In> d_in_;
  DeviceBuffer<Out> d_out_;
  CudaEventTimer timer_;
  std::optional<L2Flusher> flusher_;
  ExactReference reference_;
  Out last_result_{};
  Out cub_result_{};
};

}  // namespace
}  // namespace gpureduce_bench

int main(int argc, char** argv) {
  using namespace gpureduce_bench;
  LadderOptions options;
  int exit_code = 0;
  if (!parse_ladder_options(argc, argv, options, exit_code)) return exit_code;

  std::string why;
  if (cuda_device_count(why) == 0) {
    std::fprintf(stderr, "gpureduce_ladder: no CUDA GPU found (%s); the ladder needs one.\n",
                 why.c_str());
    return 2;
  }
  if (!options.seed_given)  // fresh data every run; the seed is printed to reproduce it
    options.seed = std::uint64_t(std::chrono::system_clock::now().time_since_epoch().count());
  try {
    const DeviceInfo device = query_device();
    return with_elem_type(options.type, [&](auto in_tag) {
      using In = decltype(in_tag);
      return with_op(options.op, [&](auto op) {
        Ladder<In, decltype(op)::value> ladder(options, device);
        return ladder.run();
      });
    });
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpureduce_ladder: %s\n", e.what());
    return 1;
  }
}
