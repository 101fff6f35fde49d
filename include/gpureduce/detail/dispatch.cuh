// The dispatch layer: validates the call, resolves `automatic`, sizes the grid from occupancy and
// n, lays out temp storage, and launches. No algorithm logic lives here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "../gpureduce.hpp"
#include "block/complete_unroll.cuh"
#include "block/cub_block.cuh"
#include "block/first_add.cuh"
#include "block/global_memory.cuh"
#include "block/multi_element.cuh"
#include "block/neighbored.cuh"
#include "block/sequential.cuh"
#include "block/strided_index.cuh"
#include "block/unroll_last_warp.cuh"
#include "block/vectorized.cuh"
#include "block/warp_shuffle.cuh"
#include "context.hpp"
#include "exact/exact_sum.hpp"
#include "graph_owned_state.hpp"
#include "slot_pool.hpp"
#include "stream_owned_state.hpp"
#include "kernels.cuh"
#include "ops.cuh"
#include "pipeline/arm.cuh"
#include "pipeline/atomic_combine.cuh"
#include "policy.hpp"
#include "runtime.hpp"

namespace gpureduce::detail {

// The kernels' parameter stays at 40 / 48 bytes (problem.cuh says what that was measured to buy).
static_assert(sizeof(KernelArgs<Problem<float, float, float, sum_op_t<float, float>, float>>) == 40,
              "KernelArgs grew (problem.cuh: why it is kept small)");
static_assert(
    sizeof(KernelArgs<Problem<double, double, double, sum_op_t<double, double>, double>>) == 48,
    "KernelArgs grew (problem.cuh: why it is kept small)");

// Block sizes the compile-time-block rungs (complete_unroll, multi_element) are built for.
using TemplateBlockSizes = std::integer_sequence<int, 32, 64, 128, 256, 512, 1024>;

// Sums whose partials are 4-byte floats (f32, and f16 / bf16 into f32): inside a capture,
// automatic runs them as last_block on graph-owned flagged slots (policy.hpp).
template <class Op, class Accum>
inline constexpr bool kCapturedFlaggedSumFits =
    is_sum_op_v<Op> && std::is_floating_point_v<Accum> && sizeof(Accum) == 4;

template <class P>
struct Request {
  void* d_temp_storage;
  std::size_t* temp_storage_bytes;
  const typename P::In* d_in;
  typename P::Out* d_out;
  std::int64_t num_items;
  typename P::Op op;
  typename P::Init init;
  bool fold_init;
  cudaStream_t stream;
  Options options;   // strategy and pipeline already resolved
  LaunchPlan* plan;  // non-null: fill it and launch nothing
  ContextKey context;
  DeviceFacts facts;
  bool automatic_grid;    // size the grid by automatic_grid_target (policy.hpp)
  bool half_room_grid;    // at most automatic_streaming_zeroed_blocks_per_sm per SM (policy.hpp)
  ShapeKernel shape;      // automatic's plans that have a kernel of their own (kernels.cuh)
  const char* rationale;  // why this plan, for LaunchPlan::rationale
  // automatic's uncaptured last_block plan: the state lives in the stream's slot
  // (stream_owned_state.hpp), null when only planning.
  unsigned char* stream_state;
};

inline constexpr const char* kTempTooSmall =
    "gpureduce: temp_storage_bytes is smaller than this call needs (query it with "
    "d_temp_storage == nullptr and the same num_items and options)";

// Whether launches of `kernel` (and of the partials and arm kernels, which come from the same
// compilation) may allow PDL: it needs an sm_90+ device and kernel code that waits (launch.cuh):
// code compiled for an older virtual architecture, JIT-compiled here, has no
// griddepcontrol.wait, so it is launched without the attribute.
inline cudaError_t pdl_allowed(int device, const DeviceFacts& facts, const void* kernel,
                               bool& pdl) {
  pdl = false;
  if (!facts.programmatic_launch) return cudaSuccess;
  int ptx_version = 0;
  const cudaError_t error = kernel_ptx_version(device, kernel, ptx_version);
  if (error != cudaSuccess) return error;
  pdl = ptx_version >= 90;
  return cudaSuccess;
}

// One launch, checked twice: the launch's own answer (`launching`), then cudaGetLastError
// (`after`), each error recorded with its message.
template <class... Params, class... Args>
cudaError_t launch_checked(void (*kernel)(Params...), const LaunchShape& shape,
                           const char* launching, const char* after, Args&&... args) {
  const cudaError_t error =
      check(launch_kernel(kernel, shape, static_cast<Args&&>(args)...), launching);
  if (error != cudaSuccess) return error;
  return check(cudaGetLastError(), after);
}

// Zeroes the `bytes` (a multiple of 8) of state at `base` that this call's kernel needs zero: a
// memset per call, or a PDL kernel inside a stream capture (pipeline/arm.cuh says why each).
inline cudaError_t zero_state_for_call(unsigned char* base, std::size_t bytes, cudaStream_t stream,
                                       bool pdl) {
  bool capturing = false;
  const cudaError_t error = stream_is_capturing(stream, capturing);
  if (error != cudaSuccess) return error;
  if (!capturing)
    return check(cudaMemsetAsync(base, 0, bytes, stream), "gpureduce: zeroing the ticket counter");
  return launch_checked(arm_temp_storage_kernel<kArmThreads>,
                        LaunchShape{1u, unsigned(kArmThreads), 0, stream, false, pdl},
                        "gpureduce: launching the kernel that zeroes the ticket counter",
                        "gpureduce: after launching the counter-zeroing kernel",
                        reinterpret_cast<std::uint64_t*>(base), unsigned(bytes / sizeof(std::uint64_t)));
}

// The bytes last_block's flagged path needs zero at the start: the control block and the region up
// to the last of `grid` flagged slots (temp_layout.cuh).
template <class Accum>
constexpr std::size_t flagged_state_bytes(std::int64_t grid) {
  return kFlaggedSlotsOffset + std::size_t(grid) * kWordsPerSlot<Accum> * sizeof(std::uint64_t);
}

template <class Rung, int BLOCK, class P>
cudaError_t run_rung(const Request<P>& r) {
  using In = typename P::In;
  using Accum = typename P::Accum;
  using Op = typename P::Op;
  constexpr bool kIsCub = std::is_same_v<Rung, CubBlockRung>;
  const std::int64_t n = r.num_items;
  const Pipeline pipeline = r.options.pipeline;

  const ContextKey& context = r.context;
  const int sms = r.facts.multiprocessors;
  int occupancy = 0;
  cudaError_t error = cudaSuccess;

  int block_threads = r.options.block_threads;
  std::size_t shared_bytes = 0;
  std::int64_t useful_blocks = 1, useful_blocks_any_alignment = 1;
  int items_per_thread = Rung::kLoadsPerThread;
  const auto first_pass = reduce_input_kernel<Rung, BLOCK, P>;
  if constexpr (kIsCub) {
    CubPolicyInfo info;
    error = check(cub_policy_info<Accum, Op>(info), "reading CUB's reduce policy");
    if (error != cudaSuccess) return error;
    if (block_threads != 0 && block_threads != info.block_threads)
      return fail(cudaErrorInvalidValue,
                  "gpureduce: cub_block runs CUB's policy and needs its block size "
                  "(Options::block_threads = 0 or the policy's value, 256 on sm_90)");
    if (info.block_threads != BLOCK)
      return fail(cudaErrorInvalidValue,
                  "gpureduce: cub_block is built for CUB's 256-thread policies; this device's "
                  "CUB policy uses another block size");
    block_threads = info.block_threads;
    items_per_thread = info.tile_items / info.block_threads;
    useful_blocks = useful_blocks_any_alignment =
        n <= 0 ? 1 : (n + info.tile_items - 1) / info.tile_items;
    // CUB sizes its grid from the occupancy of its own kernel; so do we, to get its grid exactly.
    error = resident_blocks_per_sm(context, reinterpret_cast<const void*>(cub_first_pass_kernel<In, Accum, Op>),
                                   block_threads, 0, occupancy);
  } else {
    shared_bytes = Rung::shared_bytes(block_threads, sizeof(Accum));
    useful_blocks = Rung::max_useful_blocks(n, block_threads,
                                            reinterpret_cast<std::uintptr_t>(r.d_in), sizeof(In));
    // Temp storage is sized before the caller may know d_in: size for the aligned case, which
    // has the most vectors and so the most blocks.
    useful_blocks_any_alignment = Rung::max_useful_blocks(n, block_threads, 0, sizeof(In));
    if constexpr (std::is_same_v<Rung, VectorizedRung>)
      if (sizeof(In) <= 16 && 16 % sizeof(In) == 0)
        items_per_thread = VectorizedRung::kVectorsInFlight * int(16 / sizeof(In));
    error = resident_blocks_per_sm(context, reinterpret_cast<const void*>(first_pass), block_threads,
                                   shared_bytes, occupancy);
  }
  if (error != cudaSuccess) return error;
  if (pipeline == Pipeline::grid_sync && kIsCub) {
    // Co-residency is about the kernel we launch, not CUB's (whose occupancy sized the grid).
    int ours = 0;
    error = resident_blocks_per_sm(context, reinterpret_cast<const void*>(first_pass), block_threads,
                                   shared_bytes, ours);
    if (error != cudaSuccess) return error;
    occupancy = ours < occupancy ? ours : occupancy;
  }
  if (occupancy < 1)
    return fail(cudaErrorInvalidValue,
                "gpureduce: this strategy's kernel cannot run with the requested block size on "
                "this device (occupancy 0)");

  // grid_sync needs every block resident at once: at most one wave, whatever the strategy's policy.
  const int waves = pipeline == Pipeline::grid_sync ? 1 : policy_for(r.options.strategy).waves;
  std::int64_t cap = std::int64_t(occupancy) * sms * waves;
  // automatic's one-block, cluster, zeroed last_block and captured two_kernel plans launch the
  // kernel built for their shape (the first pass, for two_kernel), where there is one for this
  // block size: same rung, same arguments, same bits, fewer instructions. The grid was sized
  // above from the general kernel's occupancy, as before.
  auto kernel = first_pass;
  if constexpr (std::is_same_v<Rung, VectorizedRung>)
    if (auto shaped = shape_kernel_for<Rung, P>(r.shape, block_threads)) kernel = shaped;
  if (r.half_room_grid) {  // the zeroed streaming plan: half the room of the kernel we launch
    int room = 0;
    error = resident_blocks_per_sm(context, reinterpret_cast<const void*>(kernel), block_threads,
                                   shared_bytes, room);
    if (error != cudaSuccess) return error;
    const std::int64_t half_room =
        std::int64_t(automatic_streaming_zeroed_blocks_per_sm(room)) * sms;
    if (half_room < cap) cap = half_room;
  }
  if (pipeline == Pipeline::cluster) {  // the grid is one cluster (of the kernel we launch)
    int cluster_cap = 0;
    error = max_cluster_blocks(context, reinterpret_cast<const void*>(kernel), block_threads,
                               shared_bytes, cluster_cap);
    if (error != cudaSuccess) return error;
    if (cluster_cap < cap) cap = cluster_cap < 1 ? 1 : cluster_cap;
  }
  if (r.options.grid_blocks > 0 && r.options.grid_blocks < cap) cap = r.options.grid_blocks;
  if (r.automatic_grid && n > 0) {
    const std::int64_t target = automatic_grid_target(std::uint64_t(n) * sizeof(In));
    if (target < cap) cap = target;
  }
  const auto clamp_grid = [&](std::int64_t useful) {
    if (n == 0) return std::int64_t(1);
    const std::int64_t g = useful < cap ? useful : cap;
    return g < 1 ? std::int64_t(1) : g;
  };
  const std::int64_t grid = clamp_grid(useful_blocks);
  const std::int64_t sizing_grid = clamp_grid(useful_blocks_any_alignment);
  // Kernels find the scratch from gridDim (temp_layout.cuh): a rung with scratch must launch the
  // grid that sized the storage (true of every such rung: their grid ignores d_in's alignment).
  if (Rung::kUsesGlobalScratch && grid != sizing_grid)
    return fail(cudaErrorInvalidValue,
                "gpureduce: internal error: a scratch rung's grid depends on d_in");
  const std::size_t temp_bytes =
      temp_storage_total(sizing_grid, block_threads, sizeof(Accum), Rung::kUsesGlobalScratch);
  const bool uses_counter =
      (pipeline == Pipeline::last_block || pipeline == Pipeline::atomic) && grid > 1;
  // last_block combines 4-byte integer sums through the counted word (counted_sum.cuh), which
  // publishes no partial; the flagged slots serve the other accumulators they fit.
  const bool counted = pipeline == Pipeline::last_block && uses_counted_sum<Op, Accum>(grid);
  const bool flagged = pipeline == Pipeline::last_block && grid > 1 && !counted &&
                       grid <= kFlaggedSlotCapacity && kFlaggable<Accum> &&
                       Rung::kReadsPartialsByIndex;
  // One block waits for nobody: launched plainly, its epilogue skips the barrier.
  const bool cooperative = pipeline == Pipeline::grid_sync && grid > 1;
  const unsigned cluster_blocks = pipeline == Pipeline::cluster && grid > 1 ? unsigned(grid) : 0u;
  // The state that must be zero when the kernel starts: the control block, and the slots this
  // grid uses when they carry the partials.
  const std::size_t state_bytes =
      flagged ? flagged_state_bytes<Accum>(grid) : sizeof(ControlBlock);
  static_assert(sizeof(ControlBlock) % sizeof(std::uint64_t) == 0);
  // Whether all of that state fits one slot of the library's (graph- or stream-owned): the counted
  // word, or the ticket and flagged slots, and nothing in the caller's storage besides.
  const bool state_fits_a_slot = (counted || flagged) && state_bytes <= kLargeSlotBytes;
  // automatic's captured counted and flagged sums keep it in a slot the graph owns, zero when
  // handed out and left zero by every reduction (graph_owned_state.hpp): nothing to zero per call.
  const bool captured_last_block = r.rationale == rationale::kCapturedCountedSum ||
                                   r.rationale == rationale::kCapturedFlaggedSum;
  const bool graph_owned = captured_last_block && state_fits_a_slot && n > 0;
  // automatic's uncaptured plan keeps it in its stream's slot, likewise. reduce() chose that plan
  // where the state fits the slot (stream_owned_state_fits); should it not, the caller's storage is
  // zeroed per call instead: the same kernel and grid, so the same bits.
  const bool stream_owned = r.rationale == rationale::kStreamOwned && state_fits_a_slot;
  const bool zero_counter = uses_counter && !r.options.temp_storage_zeroed && n > 0 &&
                            !graph_owned && !stream_owned;
  const bool second_kernel = pipeline == Pipeline::two_kernel && n > 0 && grid > 1;

  if (r.plan) {
    r.plan->strategy = r.options.strategy;
    r.plan->pipeline = pipeline;
    r.plan->block_threads = block_threads;
    r.plan->grid_blocks = int(grid);
    r.plan->items_per_thread = items_per_thread;
    r.plan->launches = 1 + int(zero_counter) + int(second_kernel);
    r.plan->temp_storage_bytes = temp_bytes;
    r.plan->rationale = r.rationale;
    return cudaSuccess;
  }
  if (r.d_temp_storage == nullptr) {
    *r.temp_storage_bytes = temp_bytes;
    return cudaSuccess;
  }
  if (*r.temp_storage_bytes < temp_bytes) return fail(cudaErrorInvalidValue, kTempTooSmall);

  auto* base = static_cast<unsigned char*>(r.d_temp_storage);
  if (graph_owned) {
    error = acquire_graph_owned_slot(r.stream, r.context, state_bytes, &base);
    if (error != cudaSuccess) return error;
  }
  if (stream_owned && r.stream_state == nullptr)
    return fail(cudaErrorInvalidValue, "gpureduce: internal error: no stream state to launch on");
  if (stream_owned) base = r.stream_state;
  const KernelArgs<P> args{r.d_in,    r.d_out,   n, base, r.init, r.op,
                           r.fold_init, std::uint8_t(pipeline), flagged};
  bool pdl = false;
  error = pdl_allowed(r.context.device, r.facts, reinterpret_cast<const void*>(first_pass), pdl);
  if (error != cudaSuccess) return error;
  if (zero_counter) {
    error = zero_state_for_call(base, state_bytes, r.stream, pdl);
    if (error != cudaSuccess) return error;
  }
  error = launch_checked(kernel,
                         LaunchShape{unsigned(grid), unsigned(block_threads), shared_bytes,
                                     r.stream, cooperative, pdl, cluster_blocks},
                         cooperative ? "gpureduce: launching the reduction kernel cooperatively"
                                     : "gpureduce: launching the reduction kernel",
                         "gpureduce: after launching the reduction kernel", args);
  if (error != cudaSuccess || !second_kernel) return error;
  if constexpr (std::is_same_v<Rung, VectorizedRung>) {
    // automatic's captured two_kernel plan: one warp folds, when the grid fits one block's worth.
    if (r.shape == ShapeKernel::two_kernel && grid <= block_threads) {
      if (auto in_warp = partials_in_warp_kernel_for<Rung, P>(block_threads))
        return launch_checked(in_warp,
                              LaunchShape{1u, unsigned(kWarpThreads), 0, r.stream, false, pdl},
                              "gpureduce: launching the partials kernel",
                              "gpureduce: after launching the partials kernel", args, int(grid));
    }
  }
  return launch_checked(reduce_partials_kernel<Rung, BLOCK, P>,
                        LaunchShape{1u, unsigned(block_threads), shared_bytes, r.stream, false,
                                    pdl},
                        "gpureduce: launching the partials kernel",
                        "gpureduce: after launching the partials kernel", args, int(grid));
}

template <class Rung, class P, int... Sizes>
cudaError_t run_block_template_rung(const Request<P>& r, std::integer_sequence<int, Sizes...>) {
  cudaError_t result = cudaErrorInvalidValue;
  const bool matched =
      ((r.options.block_threads == Sizes ? (result = run_rung<Rung, Sizes>(r), true) : false) || ...);
  if (!matched)
    return fail(cudaErrorInvalidValue, "gpureduce: no kernel built for this block size");
  return result;
}

template <class P>
cudaError_t run_strategy(const Request<P>& r) {
  switch (r.options.strategy) {
    case Strategy::global_memory: return run_rung<GlobalMemoryRung, 0>(r);
    case Strategy::neighbored: return run_rung<NeighboredRung, 0>(r);
    case Strategy::strided_index: return run_rung<StridedIndexRung, 0>(r);
    case Strategy::sequential: return run_rung<SequentialRung, 0>(r);
    case Strategy::first_add: return run_rung<FirstAddRung, 0>(r);
    case Strategy::unroll_last_warp: return run_rung<UnrollLastWarpRung, 0>(r);
    case Strategy::complete_unroll:
      return run_block_template_rung<CompleteUnrollRung>(r, TemplateBlockSizes{});
    case Strategy::multi_element:
      return run_block_template_rung<MultiElementRung>(r, TemplateBlockSizes{});
    case Strategy::warp_shuffle: return run_rung<WarpShuffleRung, 0>(r);
    case Strategy::vectorized: return run_rung<VectorizedRung, 0>(r);
    case Strategy::cub_block: return run_rung<CubBlockRung, kCubBlockThreads>(r);
    default: return fail(cudaErrorInvalidValue, "gpureduce: unknown strategy");
  }
}

inline bool is_valid(Strategy s) {
  return int(s) >= int(Strategy::neighbored) && int(s) <= int(Strategy::automatic);
}
inline bool is_valid(Pipeline p) {
  return int(p) >= int(Pipeline::two_kernel) && int(p) <= int(Pipeline::automatic);
}

// The accumulator type, as CUB's accumulator_t: what op(init, input) returns.
template <class Op, class Init, class In>
using accum_t = std::decay_t<std::invoke_result_t<Op, Init, In>>;

// automatic's one-block plan, launched: what run_rung does for it (the same kernel, arguments,
// shared memory, temp-storage check and PDL choice; a grid of one needs no occupancy, grid cap,
// counter or second kernel), without run_rung's general machinery. Why a path of its own: per
// call at these sizes the host time before the launch is on the GPU's critical path, since the
// device is idle until the launch arrives. On an H200 (probe runs 23-24,
// benchmark/results/h200-2026-11-22l-probe.txt), 4096 ints paired with CUB call by call: the
// one-block kernel launched directly took 0.97-0.99x CUB's time, with cudaGetDevice and
// cudaGetLastError around the launch 0.98-0.99x, through DeviceReduce::Sum 1.004-1.020x; through
// this path 0.995-1.004x (run 24b, the two builds alternated). What is left over the direct launch
// is validation and plan resolution in reduce().
template <class P>
cudaError_t launch_single_block(void (*kernel)(KernelArgs<P>), const KernelArgs<P>& args,
                                std::size_t temp_storage_bytes, int block_threads, int device,
                                const DeviceFacts& facts, cudaStream_t stream) {
  using Accum = typename P::Accum;
  using Rung = VectorizedRung;  // kAutomaticStrategy's rung: shape_kernel_for built `kernel`
  static_assert(!Rung::kUsesGlobalScratch);
  if (temp_storage_bytes < temp_storage_total(1, block_threads, sizeof(Accum), false))
    return fail(cudaErrorInvalidValue, kTempTooSmall);
  bool pdl = false;
  const cudaError_t error =
      pdl_allowed(device, facts, reinterpret_cast<const void*>(kernel), pdl);
  if (error != cudaSuccess) return error;
  return launch_checked(kernel,
                        LaunchShape{1u, unsigned(block_threads),
                                    Rung::shared_bytes(block_threads, sizeof(Accum)), stream,
                                    false, pdl},
                        "gpureduce: launching the reduction kernel",
                        "gpureduce: after launching the reduction kernel", args);
}

// Whether automatic's last_block state for a grid of at most `max_grid` blocks fits a stream's
// slot (stream_owned_state.hpp): the counted word of 4-byte integer sums, or the ticket and a
// flagged slot per block.
template <class Op, class Accum>
bool stream_owned_state_fits(std::int64_t max_grid) {
  if constexpr (kCountedSumFits<Op, Accum>) {
    return max_grid <= kCountedSumMaxGrid;
  } else if constexpr (kFlaggable<Accum>) {
    return max_grid <= kFlaggedSlotCapacity &&
           flagged_state_bytes<Accum>(max_grid) <= kLargeSlotBytes;
  } else {
    return false;
  }
}

// Validates, resolves `automatic`, and runs (or only sizes, or only plans) one reduction.
template <class In, class Out, class Op, class Init>
cudaError_t reduce(void* d_temp_storage, std::size_t* temp_storage_bytes, const In* d_in, Out* d_out,
                   std::int64_t num_items, Op op, Init init, bool fold_init, cudaStream_t stream,
                   const Options& options, LaunchPlan* plan) {
  using Accum = accum_t<Op, Init, In>;
  using P = Problem<In, Out, Accum, Op, Init>;
  if (num_items < 0) return fail(cudaErrorInvalidValue, "gpureduce: num_items is negative");
  if (!is_valid(options.strategy)) return fail(cudaErrorInvalidValue, "gpureduce: invalid Options::strategy");
  if (!is_valid(options.pipeline)) return fail(cudaErrorInvalidValue, "gpureduce: invalid Options::pipeline");
  if (int(options.pointer_check) < 0 || int(options.pointer_check) > int(PointerCheck::off))
    return fail(cudaErrorInvalidValue, "gpureduce: invalid Options::pointer_check");
  if (int(options.accuracy) < 0 || int(options.accuracy) > int(Accuracy::correctly_rounded))
    return fail(cudaErrorInvalidValue, "gpureduce: invalid Options::accuracy");
  // Correctly rounded: floating sums take the exact engine (exact/); integer sums, Min and Max are
  // exact already and run as they are.
  constexpr bool kExactPair = is_sum_op_v<Op> && exact::kCorrectlyRoundedPair<In, Out>;
  constexpr bool kExactAlready =
      (is_sum_op_v<Op> && std::is_integral_v<Accum>) || std::is_same_v<Op, MinOp> ||
      std::is_same_v<Op, MaxOp>;
  if constexpr (!kExactPair && !kExactAlready)
    if (options.accuracy == Accuracy::correctly_rounded)
      return fail(cudaErrorInvalidValue,
                  "gpureduce: Accuracy::correctly_rounded is for Sum of float -> float or double, "
                  "double, __half or __nv_bfloat16 -> float (integer sums, Min and Max are exact "
                  "anyway)");
  const int bt = options.block_threads;
  if (bt != 0 && (bt < 32 || bt > 1024 || (bt & (bt - 1)) != 0))
    return fail(cudaErrorInvalidValue,
                "gpureduce: Options::block_threads must be 0 or a power of two in [32, 1024]");
  if (options.grid_blocks < 0)
    return fail(cudaErrorInvalidValue, "gpureduce: Options::grid_blocks must be >= 0");
  if (!plan) {
    if (temp_storage_bytes == nullptr)
      return fail(cudaErrorInvalidValue, "gpureduce: temp_storage_bytes reference is null");
    if (d_temp_storage != nullptr) {
      if (d_out == nullptr) return fail(cudaErrorInvalidValue, "gpureduce: d_out is null");
      if (d_in == nullptr && num_items > 0)
        return fail(cudaErrorInvalidValue, "gpureduce: d_in is null and num_items > 0");
      if (pointer_check_enabled(int(options.pointer_check))) {
        cudaError_t error = check_device_accessible(d_out, "d_out");
        if (error == cudaSuccess && num_items > 0) error = check_device_accessible(d_in, "d_in");
        if (error == cudaSuccess) error = check_device_accessible(d_temp_storage, "d_temp_storage");
        if (error != cudaSuccess) return error;
      }
    }
  }

  int device = 0;
  DeviceFacts facts;
  cudaError_t error = check(cudaGetDevice(&device), "cudaGetDevice");
  if (error == cudaSuccess) error = device_facts(device, facts);
  if (error != cudaSuccess) return error;
  // The context keys every cache and slot of the library's (context.hpp); asked for once, where a
  // plan needs one (the one-block launch below needs none).
  ContextKey context;
  const auto find_context = [&] {
    return context.device >= 0 ? cudaSuccess : current_context(device, context);
  };

  if constexpr (kExactPair) {
    if (options.accuracy == Accuracy::correctly_rounded) {
      error = find_context();
      if (error != cudaSuccess) return error;
      return exact::reduce_exact<In, Out>(exact::ExactCall{d_temp_storage, temp_storage_bytes, d_in,
                                                           d_out, num_items, stream, options, plan,
                                                           context, facts});
    }
  }

  // Resolve `automatic` (policy.hpp has the rules and the measurements behind them).
  Options resolved = options;
  const char* rationale = rationale::kCallerChose;
  const unsigned long long input_bytes = static_cast<unsigned long long>(num_items) * sizeof(In);
  bool automatic_grid = false;
  bool streaming = false;
  bool half_room_grid = false;
  const bool automatic_strategy = options.strategy == Strategy::automatic;
  if (automatic_strategy) {
    resolved.strategy = kAutomaticStrategy;
    automatic_grid = options.grid_blocks == 0;
    if (automatic_grid && input_bytes <= kAutomaticSingleBlockBytes) {
      resolved.grid_blocks = 1;
      if (options.block_threads == 0)
        resolved.block_threads = automatic_single_block_threads(input_bytes);
      automatic_grid = false;
      rationale = rationale::kSingleBlock;
    } else if (automatic_grid && automatic_is_streaming(input_bytes, facts.l2_bytes)) {
      // One wave: the grid cap run_rung derives from occupancy, with no sqrt target.
      if (options.block_threads == 0) resolved.block_threads = kAutomaticStreamingBlockThreads;
      // Zeroed storage: half the launched kernel's room per SM (policy.hpp; run_rung knows it).
      half_room_grid = options.temp_storage_zeroed && options.pipeline == Pipeline::automatic;
      automatic_grid = false;
      streaming = true;
    }
  }
  unsigned char* stream_state = nullptr;
  if (options.pipeline == Pipeline::automatic) {
    const bool cluster_range = facts.thread_block_clusters &&
                               input_bytes > kAutomaticSingleBlockBytes &&
                               input_bytes <= kAutomaticClusterMaxBytes;
    const char* why = streaming ? rationale::kStreamingFallback : rationale::kFallback;
    resolved.pipeline = kAutomaticPipelineFallback;
    if (options.temp_storage_zeroed) {
      resolved.pipeline = kAutomaticPipelineZeroed;
      why = streaming ? rationale::kStreamingZeroed : rationale::kZeroed;
    } else if (cluster_range && !automatic_strategy) {
      resolved.pipeline = kAutomaticPipelineSmall;
      why = rationale::kCluster;
    } else {
      // Inside a stream capture the cooperative launch costs more than a second launch
      // (policy.hpp). Only for automatic's own strategy, whose grid is one wave either way: the
      // plan keeps its grid, and so its bits and its temp storage size, captured or not. Asked
      // here, where the answer can change the launch, and not for one block (launched plainly
      // either way): the query is 0.055 us of host time before the launch, ~1% of a 4K-item call
      // (H200, probe run 14, benchmark/results/h200-2026-11-22g-probe.txt).
      bool capturing = false;
      if (automatic_strategy && rationale != rationale::kSingleBlock) {
        error = stream_is_capturing(stream, capturing);
        if (error != cudaSuccess) return error;
      }
      // Uncaptured, below streaming: the stream's slot, where the state fits it at the grid this
      // call launches (at most the rule's target, or the caller's grid_blocks: the one-wave cap and
      // the blocks the input fills only lower it). Taken on the stream's first call; planning only
      // asks whether it would be, sizing needs no answer (the same temp storage either way).
      bool stream_slot = false;
      if (!capturing && automatic_strategy && rationale != rationale::kSingleBlock && !streaming &&
          stream_owned_state_fits<Op, Accum>(
              automatic_grid ? automatic_grid_target(input_bytes) : options.grid_blocks)) {
        error = find_context();
        if (error != cudaSuccess) return error;
        if (plan != nullptr) {
          error = stream_owned_slot_available(stream, context, stream_slot);
        } else if (d_temp_storage != nullptr) {
          error = stream_owned_slot(stream, context, &stream_state);
          stream_slot = stream_state != nullptr;
        } else {
          stream_slot = true;
        }
        if (error != cudaSuccess) return error;
      }
      if (capturing && kCountedSumFits<Op, Accum> && !streaming) {
        resolved.pipeline = kAutomaticPipelineCapturedCountedSum;
        why = rationale::kCapturedCountedSum;
      } else if (capturing && kCapturedFlaggedSumFits<Op, Accum> && !streaming) {
        resolved.pipeline = kAutomaticPipelineCapturedFlaggedSum;
        why = rationale::kCapturedFlaggedSum;
      } else if (capturing) {
        resolved.pipeline = kAutomaticPipelineCaptured;
        why = streaming ? rationale::kStreamingCaptured : rationale::kCaptured;
      } else if (stream_slot) {
        resolved.pipeline = kAutomaticPipelineStreamOwned;
        why = rationale::kStreamOwned;
      } else if (facts.cooperative_launch) {
        resolved.pipeline = kAutomaticPipelineCooperative;
        why = streaming ? rationale::kStreamingGridSync : rationale::kGridSync;
      }
    }
    if (automatic_strategy && rationale == rationale::kCallerChose) rationale = why;
  }
  if (resolved.block_threads == 0 && resolved.strategy != Strategy::cub_block)
    resolved.block_threads = policy_for(resolved.strategy).default_block_threads;
  if (resolved.pipeline == Pipeline::atomic && !AtomicCombiner<Op, Accum>::supported)
    return fail(cudaErrorInvalidValue,
                "gpureduce: the atomic pipeline supports Sum, Min and Max of built-in types only");
  if (resolved.pipeline == Pipeline::cluster && !facts.thread_block_clusters)
    return fail(cudaErrorInvalidValue,
                "gpureduce: the cluster pipeline needs thread-block clusters (compute capability "
                "9.0 or newer); use last_block");
  if (resolved.pipeline == Pipeline::grid_sync && !facts.cooperative_launch)
    return fail(cudaErrorInvalidValue,
                "gpureduce: the grid_sync pipeline needs cooperative launch, which this device "
                "does not support (cudaDevAttrCooperativeLaunch is 0); use last_block");

  // Only automatic's own plans get the shaped kernels; a caller's explicit Options run
  // reduce_input_kernel (which is how the tests compare the two).
  ShapeKernel shape = ShapeKernel::none;
  if (rationale == rationale::kSingleBlock) shape = ShapeKernel::one_block;
  else if (rationale == rationale::kCluster) shape = ShapeKernel::cluster;
  else if (rationale == rationale::kZeroed || rationale == rationale::kStreamingZeroed ||
           rationale == rationale::kStreamOwned ||
           rationale == rationale::kCapturedCountedSum ||
           rationale == rationale::kCapturedFlaggedSum)
    shape = ShapeKernel::last_block;
  else if (rationale == rationale::kCaptured || rationale == rationale::kStreamingCaptured)
    shape = ShapeKernel::two_kernel;
  if (shape == ShapeKernel::one_block && plan == nullptr && d_temp_storage != nullptr) {
    static_assert(kAutomaticStrategy == Strategy::vectorized);
    if (auto kernel = shape_kernel_for<VectorizedRung, P>(shape, resolved.block_threads)) {
      const KernelArgs<P> args{d_in, d_out, num_items, static_cast<unsigned char*>(d_temp_storage),
                               init, op, fold_init, std::uint8_t(resolved.pipeline), false};
      return launch_single_block(kernel, args, *temp_storage_bytes, resolved.block_threads,
                                 device, facts, stream);
    }
  }
  error = find_context();
  if (error != cudaSuccess) return error;
  const Request<P> request{d_temp_storage, temp_storage_bytes, d_in,  d_out,
                           num_items,      op,                 init,  fold_init,
                           stream,         resolved,           plan,  context,
                           facts,          automatic_grid,     half_room_grid,
                           shape,          rationale,          stream_state};
  return run_strategy(request);
}

}  // namespace gpureduce::detail
