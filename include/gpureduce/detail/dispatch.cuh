// The dispatch layer: validates the call, resolves `automatic`, sizes the grid from occupancy and
// n, lays out temp storage, and launches. No algorithm logic lives here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "../gpureduce.hpp"
#include "automatic_plan.hpp"
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
#include "readers.cuh"
#include "runtime.hpp"

namespace gpureduce::detail {

// The kernels' parameter stays at 40 / 48 bytes (docs/tuning.md, 'Kernel arguments').
static_assert(sizeof(KernelArgs<Problem<InputReader<float, float>, float, float,
                                         sum_op_t<float, float>, float>>) == 40,
              "KernelArgs grew (problem.cuh: why it is kept small)");
static_assert(sizeof(KernelArgs<Problem<InputReader<double, double>, double, double,
                                        sum_op_t<double, double>, double>>) == 48,
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
  typename P::Reader input;
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

// run_rung in steps: the block (rung_shape), the grid (plan_grid), where last_block's state lives
// (last_block_state), then the plan, the size or the launches (fill_launch_plan, launch_rung).

// The block, and how many of its kind fit an SM.
struct RungShape {
  int block_threads = 0;
  int items_per_thread = 0;
  std::size_t shared_bytes = 0;
  std::int64_t useful_blocks = 1;               // blocks with work for this d_in
  std::int64_t useful_blocks_any_alignment = 1;  // for an aligned d_in, the most: sizes the storage
  int occupancy = 0;                             // resident blocks per SM
};

// cub_block: CUB's policy fixes the block and the tile, and CUB sizes its grid from the occupancy
// of its own kernel; so do we, to get its grid exactly.
template <int BLOCK, class P>
cudaError_t cub_block_shape(const Request<P>& r, RungShape& s) {
  using Accum = typename P::Accum;
  using Op = typename P::Op;
  CubPolicyInfo info;
  const cudaError_t error = check(cub_policy_info<Accum, Op>(info), "reading CUB's reduce policy");
  if (error != cudaSuccess) return error;
  if (r.options.block_threads != 0 && r.options.block_threads != info.block_threads)
    return fail(cudaErrorInvalidValue,
                "gpureduce: cub_block runs CUB's policy and needs its block size "
                "(Options::block_threads = 0 or the policy's value, 256 on sm_90)");
  if (info.block_threads != BLOCK)
    return fail(cudaErrorInvalidValue,
                "gpureduce: cub_block is built for CUB's 256-thread policies; this device's "
                "CUB policy uses another block size");
  const std::int64_t n = r.num_items;
  s.block_threads = info.block_threads;
  s.items_per_thread = info.tile_items / info.block_threads;
  s.useful_blocks = s.useful_blocks_any_alignment =
      n <= 0 ? 1 : (n + info.tile_items - 1) / info.tile_items;
  return resident_blocks_per_sm(
      r.context,
      reinterpret_cast<const void*>(cub_first_pass_kernel<typename P::Reader, Accum, Op>),
      s.block_threads, 0, s.occupancy);
}

// Every other rung: the caller's (or the policy's) block, sized by the rung.
template <class Rung, int BLOCK, class P>
cudaError_t rung_block_shape(const Request<P>& r, RungShape& s) {
  using In = typename P::In;
  const std::int64_t n = r.num_items;
  s.block_threads = r.options.block_threads;
  s.items_per_thread = Rung::kLoadsPerThread;
  s.shared_bytes = Rung::shared_bytes(s.block_threads, sizeof(typename P::Accum));
  // An input read element by element (an iterator) is never loaded as vectors: item size 0
  // tells the vectorized rung so.
  const std::size_t item_size = P::Reader::kContiguousInput ? sizeof(In) : 0;
  s.useful_blocks = Rung::max_useful_blocks(n, s.block_threads, r.input.address(), item_size);
  // Temp storage is sized before the caller may know d_in: size for the aligned case, which
  // has the most vectors and so the most blocks.
  s.useful_blocks_any_alignment = Rung::max_useful_blocks(n, s.block_threads, 0, item_size);
  if constexpr (std::is_same_v<Rung, VectorizedRung>)
    if (sizeof(In) <= 16 && 16 % sizeof(In) == 0)
      s.items_per_thread = VectorizedRung::kVectorsInFlight * int(16 / sizeof(In));
  return resident_blocks_per_sm(r.context,
                                reinterpret_cast<const void*>(reduce_input_kernel<Rung, BLOCK, P>),
                                s.block_threads, s.shared_bytes, s.occupancy);
}

template <class Rung, int BLOCK, class P>
cudaError_t rung_shape(const Request<P>& r, RungShape& s) {
  cudaError_t error = cudaSuccess;
  if constexpr (std::is_same_v<Rung, CubBlockRung>) {
    error = cub_block_shape<BLOCK>(r, s);
    if (error != cudaSuccess) return error;
    if (r.options.pipeline == Pipeline::grid_sync) {
      // Co-residency is about the kernel we launch, not CUB's (whose occupancy sized the grid).
      int ours = 0;
      error = resident_blocks_per_sm(
          r.context, reinterpret_cast<const void*>(reduce_input_kernel<Rung, BLOCK, P>),
          s.block_threads, s.shared_bytes, ours);
      if (error != cudaSuccess) return error;
      s.occupancy = ours < s.occupancy ? ours : s.occupancy;
    }
  } else {
    error = rung_block_shape<Rung, BLOCK>(r, s);
    if (error != cudaSuccess) return error;
  }
  if (s.occupancy < 1)
    return fail(cudaErrorInvalidValue,
                "gpureduce: this strategy's kernel cannot run with the requested block size on "
                "this device (occupancy 0)");
  return cudaSuccess;
}

// The kernel of the first (or only) launch. automatic's one-block, cluster, last_block and
// captured two_kernel plans run the kernel built for their shape where one is built for this
// block size: same rung, arguments and bits, fewer instructions (kernels.cuh). The grid is still
// sized from the general kernel's occupancy.
template <class Rung, int BLOCK, class P>
auto first_launch_kernel(const Request<P>& r, int block_threads) -> void (*)(KernelArgs<P>) {
  void (*kernel)(KernelArgs<P>) = reduce_input_kernel<Rung, BLOCK, P>;
  if constexpr (std::is_same_v<Rung, VectorizedRung>)
    if (auto shaped = shape_kernel_for<Rung, P>(r.shape, block_threads)) kernel = shaped;
  return kernel;
}

// The most blocks the grid may have: waves of resident blocks (one for grid_sync, whose blocks
// must all be resident at once), then whatever lowers it: automatic's zeroed streaming rule (half
// the room of `kernel`, the one launched: policy.hpp), one cluster of `kernel`, the caller's
// grid_blocks, automatic's grid rule.
template <class P>
cudaError_t grid_cap(const Request<P>& r, const RungShape& s, const void* kernel,
                     std::int64_t& cap) {
  const Pipeline pipeline = r.options.pipeline;
  const int sms = r.facts.multiprocessors;
  const int waves = pipeline == Pipeline::grid_sync ? 1 : policy_for(r.options.strategy).waves;
  cap = std::int64_t(s.occupancy) * sms * waves;
  if (r.half_room_grid) {
    int room = 0;
    const cudaError_t error =
        resident_blocks_per_sm(r.context, kernel, s.block_threads, s.shared_bytes, room);
    if (error != cudaSuccess) return error;
    const std::int64_t half_room =
        std::int64_t(automatic_streaming_zeroed_blocks_per_sm(room)) * sms;
    if (half_room < cap) cap = half_room;
  }
  if (pipeline == Pipeline::cluster) {
    int cluster_cap = 0;
    const cudaError_t error =
        max_cluster_blocks(r.context, kernel, s.block_threads, s.shared_bytes, cluster_cap);
    if (error != cudaSuccess) return error;
    if (cluster_cap < cap) cap = cluster_cap < 1 ? 1 : cluster_cap;
  }
  if (r.options.grid_blocks > 0 && r.options.grid_blocks < cap) cap = r.options.grid_blocks;
  if (r.automatic_grid && r.num_items > 0) {
    const std::int64_t target =
        automatic_grid_target(std::uint64_t(r.num_items) * sizeof(typename P::In));
    if (target < cap) cap = target;
  }
  return cudaSuccess;
}

// The blocks with work, at most `cap`, at least one (an empty input launches one block).
inline std::int64_t clamp_grid(std::int64_t n, std::int64_t useful, std::int64_t cap) {
  if (n == 0) return 1;
  const std::int64_t grid = useful < cap ? useful : cap;
  return grid < 1 ? 1 : grid;
}

struct GridPlan {
  std::int64_t grid = 1;  // launched
  std::size_t temp_bytes = 0;  // sized for the grid of an aligned d_in
};

template <class Rung, class P>
cudaError_t plan_grid(const Request<P>& r, const RungShape& s, const void* kernel, GridPlan& g) {
  std::int64_t cap = 0;
  const cudaError_t error = grid_cap(r, s, kernel, cap);
  if (error != cudaSuccess) return error;
  g.grid = clamp_grid(r.num_items, s.useful_blocks, cap);
  const std::int64_t sizing_grid = clamp_grid(r.num_items, s.useful_blocks_any_alignment, cap);
  // Kernels find the scratch from gridDim (temp_layout.cuh): a rung with scratch must launch the
  // grid that sized the storage (true of every such rung: their grid ignores d_in's alignment).
  if (Rung::kUsesGlobalScratch && g.grid != sizing_grid)
    return fail(cudaErrorInvalidValue,
                "gpureduce: internal error: a scratch rung's grid depends on d_in");
  g.temp_bytes = temp_storage_total(sizing_grid, s.block_threads, sizeof(typename P::Accum),
                                    Rung::kUsesGlobalScratch);
  return cudaSuccess;
}

// The state a last_block or atomic kernel needs zero when it starts, and where it lives: in the
// caller's storage (zeroed by the caller once, or by this call), or in a slot of the library's
// that the captured graph or the stream owns and every reduction leaves zero (docs/design.md).
struct LastBlockState {
  bool counted = false;        // 4-byte integer sums meet in one counted word (counted_sum.cuh)
  bool flagged = false;        // partials travel in flagged slots (flagged_slots.cuh)
  std::size_t bytes = 0;       // the control block, and this grid's slots when flagged
  bool graph_owned = false;    // graph_owned_state.hpp
  bool stream_owned = false;   // stream_owned_state.hpp
  bool zero_per_call = false;  // the caller's storage, zeroed first (zero_state_for_call)
};

template <class Rung, class P>
LastBlockState last_block_state(const Request<P>& r, std::int64_t grid) {
  using Accum = typename P::Accum;
  static_assert(sizeof(ControlBlock) % sizeof(std::uint64_t) == 0);
  const Pipeline pipeline = r.options.pipeline;
  const std::int64_t n = r.num_items;
  LastBlockState st;
  // The counted word publishes no partial; the flagged slots serve the other accumulators they fit.
  st.counted = pipeline == Pipeline::last_block && uses_counted_sum<typename P::Op, Accum>(grid);
  st.flagged = pipeline == Pipeline::last_block && grid > 1 && !st.counted &&
               kFlaggable<Accum> && grid <= kFlaggedCapacity<Accum> && Rung::kReadsPartialsByIndex;
  st.bytes = st.flagged ? flagged_state_bytes<Accum>(grid) : sizeof(ControlBlock);
  // A library slot holds the counted word, or the ticket and flagged slots: all of the state.
  const bool fits_a_slot = (st.counted || st.flagged) && st.bytes <= kLargeSlotBytes;
  const bool captured_last_block = r.rationale == rationale::kCapturedCountedSum ||
                                   r.rationale == rationale::kCapturedFlaggedSum;
  st.graph_owned = captured_last_block && fits_a_slot && n > 0;
  // reduce() chose the stream's slot where the state fits it (stream_owned_state_fits); should it
  // not, the caller's storage is zeroed per call: the same kernel and grid, so the same bits.
  st.stream_owned = r.rationale == rationale::kStreamOwned && fits_a_slot;
  const bool uses_counter =
      (pipeline == Pipeline::last_block || pipeline == Pipeline::atomic) && grid > 1;
  st.zero_per_call = uses_counter && !r.options.temp_storage_zeroed && n > 0 && !st.graph_owned &&
                     !st.stream_owned;
  return st;
}

inline bool needs_second_kernel(Pipeline pipeline, std::int64_t n, std::int64_t grid) {
  return pipeline == Pipeline::two_kernel && n > 0 && grid > 1;
}

template <class P>
void fill_launch_plan(const Request<P>& r, const RungShape& s, const GridPlan& g,
                      const LastBlockState& st) {
  LaunchPlan& plan = *r.plan;
  plan.strategy = r.options.strategy;
  plan.pipeline = r.options.pipeline;
  plan.block_threads = s.block_threads;
  plan.grid_blocks = int(g.grid);
  plan.items_per_thread = s.items_per_thread;
  plan.launches = 1 + int(st.zero_per_call) +
                  int(needs_second_kernel(r.options.pipeline, r.num_items, g.grid));
  plan.temp_storage_bytes = g.temp_bytes;
  plan.rationale = r.rationale;
}

// Where the kernels find their state: the caller's temp storage, or the graph's or stream's slot.
template <class P>
cudaError_t state_base(const Request<P>& r, const LastBlockState& st, unsigned char*& base) {
  base = static_cast<unsigned char*>(r.d_temp_storage);
  if (st.graph_owned) {
    const cudaError_t error = acquire_graph_owned_slot(r.stream, r.context, st.bytes, &base);
    if (error != cudaSuccess) return error;
  }
  if (st.stream_owned && r.stream_state == nullptr)
    return fail(cudaErrorInvalidValue, "gpureduce: internal error: no stream state to launch on");
  if (st.stream_owned) base = r.stream_state;
  return cudaSuccess;
}

// two_kernel's second kernel: one block folds the partials, or, in automatic's captured plan with
// no more partials than one block's threads, one warp (kernels.cuh, partials_in_warp_kernel_for).
template <class Rung, int BLOCK, class P>
cudaError_t launch_second_pass(const Request<P>& r, const KernelArgs<P>& args,
                               const RungShape& s, std::int64_t grid, bool pdl) {
  if constexpr (std::is_same_v<Rung, VectorizedRung>) {
    if (r.shape == ShapeKernel::two_kernel && grid <= s.block_threads) {
      if (auto in_warp = partials_in_warp_kernel_for<Rung, P>(s.block_threads))
        return launch_checked(in_warp,
                              LaunchShape{1u, unsigned(kWarpThreads), 0, r.stream, false, pdl},
                              "gpureduce: launching the partials kernel",
                              "gpureduce: after launching the partials kernel", args, int(grid));
    }
  }
  return launch_checked(reduce_partials_kernel<Rung, BLOCK, P>,
                        LaunchShape{1u, unsigned(s.block_threads), s.shared_bytes, r.stream, false,
                                    pdl},
                        "gpureduce: launching the partials kernel",
                        "gpureduce: after launching the partials kernel", args, int(grid));
}

// The launches: the per-call zeroing where there is one, the reduction kernel, two_kernel's second.
template <class Rung, int BLOCK, class P>
cudaError_t launch_rung(const Request<P>& r, const RungShape& s, const GridPlan& g,
                        const LastBlockState& st, void (*kernel)(KernelArgs<P>)) {
  const Pipeline pipeline = r.options.pipeline;
  unsigned char* base = nullptr;
  cudaError_t error = state_base(r, st, base);
  if (error != cudaSuccess) return error;
  const KernelArgs<P> args{r.input,     r.d_out, r.num_items,           base,
                           r.init,      r.op,    r.fold_init,           std::uint8_t(pipeline),
                           st.flagged};
  bool pdl = false;
  error = pdl_allowed(r.context.device, r.facts,
                      reinterpret_cast<const void*>(reduce_input_kernel<Rung, BLOCK, P>), pdl);
  if (error != cudaSuccess) return error;
  if (st.zero_per_call) {
    error = zero_state_for_call(base, st.bytes, r.stream, pdl);
    if (error != cudaSuccess) return error;
  }
  // One block waits for nobody: launched plainly, its epilogue skips the barrier.
  const bool cooperative = pipeline == Pipeline::grid_sync && g.grid > 1;
  const unsigned cluster_blocks =
      pipeline == Pipeline::cluster && g.grid > 1 ? unsigned(g.grid) : 0u;
  error = launch_checked(kernel,
                         LaunchShape{unsigned(g.grid), unsigned(s.block_threads), s.shared_bytes,
                                     r.stream, cooperative, pdl, cluster_blocks},
                         cooperative ? "gpureduce: launching the reduction kernel cooperatively"
                                     : "gpureduce: launching the reduction kernel",
                         "gpureduce: after launching the reduction kernel", args);
  if (error != cudaSuccess || !needs_second_kernel(pipeline, r.num_items, g.grid)) return error;
  return launch_second_pass<Rung, BLOCK>(r, args, s, g.grid, pdl);
}

// One reduction with this rung: its plan, then LaunchPlan, the temp-storage size or the launches.
template <class Rung, int BLOCK, class P>
cudaError_t run_rung(const Request<P>& r) {
  RungShape shape;
  cudaError_t error = rung_shape<Rung, BLOCK>(r, shape);
  if (error != cudaSuccess) return error;
  const auto kernel = first_launch_kernel<Rung, BLOCK>(r, shape.block_threads);
  GridPlan grid;
  error = plan_grid<Rung>(r, shape, reinterpret_cast<const void*>(kernel), grid);
  if (error != cudaSuccess) return error;
  const LastBlockState state = last_block_state<Rung>(r, grid.grid);
  if (r.plan) {
    fill_launch_plan(r, shape, grid, state);
    return cudaSuccess;
  }
  if (r.d_temp_storage == nullptr) {
    *r.temp_storage_bytes = grid.temp_bytes;
    return cudaSuccess;
  }
  if (*r.temp_storage_bytes < grid.temp_bytes) return fail(cudaErrorInvalidValue, kTempTooSmall);
  return launch_rung<Rung, BLOCK>(r, shape, grid, state, kernel);
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

// The count and the Options, checked before anything else (host tests: test_api.cpp).
inline cudaError_t validate_options(std::int64_t num_items, const Options& options) {
  if (num_items < 0) return fail(cudaErrorInvalidValue, "gpureduce: num_items is negative");
  if (!is_valid(options.strategy)) return fail(cudaErrorInvalidValue, "gpureduce: invalid Options::strategy");
  if (!is_valid(options.pipeline)) return fail(cudaErrorInvalidValue, "gpureduce: invalid Options::pipeline");
  if (int(options.pointer_check) < 0 || int(options.pointer_check) > int(PointerCheck::off))
    return fail(cudaErrorInvalidValue, "gpureduce: invalid Options::pointer_check");
  if (int(options.accuracy) < 0 || int(options.accuracy) > int(Accuracy::correctly_rounded))
    return fail(cudaErrorInvalidValue, "gpureduce: invalid Options::accuracy");
  const int bt = options.block_threads;
  if (bt != 0 && (bt < 32 || bt > 1024 || (bt & (bt - 1)) != 0))
    return fail(cudaErrorInvalidValue,
                "gpureduce: Options::block_threads must be 0 or a power of two in [32, 1024]");
  if (options.grid_blocks < 0)
    return fail(cudaErrorInvalidValue, "gpureduce: Options::grid_blocks must be >= 0");
  return cudaSuccess;
}

// Correctly rounded: floating sums of a raw array take the exact engine (exact/); integer sums,
// Min and Max are exact already and run as they are; anything else refuses it.
template <class Reader, class Out, class Op>
inline constexpr bool kExactEnginePair =
    is_sum_op_v<Op> && exact::kCorrectlyRoundedPair<typename Reader::value_type, Out> &&
    std::is_same_v<Reader, InputReader<typename Reader::value_type, typename Reader::accum_type>>;
template <class Op, class Accum>
inline constexpr bool kExactAlready =
    (is_sum_op_v<Op> && std::is_integral_v<Accum>) || std::is_same_v<Op, MinOp> ||
    std::is_same_v<Op, MaxOp> || std::is_same_v<Op, ArgMinOp> || std::is_same_v<Op, ArgMaxOp>;
template <class Reader, class Out, class Op>
cudaError_t validate_accuracy(const Options& options) {
  if constexpr (!kExactEnginePair<Reader, Out, Op> && !kExactAlready<Op, typename Reader::accum_type>)
    if (options.accuracy == Accuracy::correctly_rounded)
      return fail(cudaErrorInvalidValue,
                  "gpureduce: Accuracy::correctly_rounded is for Sum of float -> float or double, "
                  "double, __half or __nv_bfloat16 -> float (integer sums, Min and Max are exact "
                  "anyway)");
  return cudaSuccess;
}

// The buffers of a call that runs or sizes (not a plan): the size reference; when it runs, the
// output and every input it reads, and (where the pointer check is on) that the device can
// reach them and the temp storage.
template <class Reader, class Out>
cudaError_t validate_buffers(const void* d_temp_storage, const std::size_t* temp_storage_bytes,
                             const Reader& input, const Out* d_out, std::int64_t num_items,
                             const Options& options) {
  if (temp_storage_bytes == nullptr)
    return fail(cudaErrorInvalidValue, "gpureduce: temp_storage_bytes reference is null");
  if (d_temp_storage == nullptr) return cudaSuccess;
  if (d_out == nullptr) return fail(cudaErrorInvalidValue, "gpureduce: d_out is null");
  const ReaderPointers inputs = input.pointers();
  for (int k = 0; k < inputs.count && num_items > 0; ++k)
    if (inputs.pointer[k] == nullptr)
      return fail(cudaErrorInvalidValue, "gpureduce: an input pointer (d_in, x or y) is null "
                                         "and num_items > 0");
  if (!pointer_check_enabled(int(options.pointer_check))) return cudaSuccess;
  cudaError_t error = check_device_accessible(d_out, "d_out");
  for (int k = 0; k < inputs.count && num_items > 0 && error == cudaSuccess; ++k)
    error = check_device_accessible(inputs.pointer[k], inputs.name[k]);
  if (error == cudaSuccess) error = check_device_accessible(d_temp_storage, "d_temp_storage");
  return error;
}

// The accumulator type, as CUB's accumulator_t: what op(init, input) returns.
template <class Op, class Init, class In>
using accum_t = std::decay_t<std::invoke_result_t<Op, Init, In>>;

// automatic's one-block plan, launched: what run_rung does for it (the same kernel, arguments,
// shared memory, temp-storage check and PDL choice; a grid of one needs no occupancy, grid cap,
// counter or second kernel), without run_rung's general machinery. At these sizes the device is
// idle until the launch arrives, so host time before it is on the critical path: this path took
// a 4096-int call from 1.01x to 1.00x CUB's time (docs/tuning.md, 'One-block launch path').
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
    return max_grid <= kFlaggedCapacity<Accum> &&
           flagged_state_bytes<Accum>(max_grid) <= kLargeSlotBytes;
  } else {
    return false;
  }
}

// The context keys every cache and slot of the library's (context.hpp): asked for once, where a
// plan needs one (automatic's one-block launch needs none).
inline cudaError_t ensure_context(int device, ContextKey& context) {
  return context.device >= 0 ? cudaSuccess : current_context(device, context);
}

// Asks the runtime what automatic's pipeline depends on, where automatic_plan.hpp says it does:
// whether the stream is being captured, and, uncaptured, whether its slot serves (the state fits
// it at the grid this call launches). The slot is taken on the stream's first call that runs;
// planning only asks whether it would be, and sizing needs no answer (the same temp storage).
template <class Op, class Accum>
cudaError_t ask_about_stream(const Options& options, const AutomaticShape& shape,
                             unsigned long long input_bytes, cudaStream_t stream, bool planning,
                             bool sizing, int device, ContextKey& context, StreamFacts& facts,
                             unsigned char*& stream_state) {
  if (!pipeline_asks_capture(options, shape)) return cudaSuccess;
  cudaError_t error = stream_is_capturing(stream, facts.capturing);
  if (error != cudaSuccess || facts.capturing || !pipeline_may_use_stream_slot(options, shape) ||
      !stream_owned_state_fits<Op, Accum>(stream_slot_grid(options, shape, input_bytes)))
    return error;
  error = ensure_context(device, context);
  if (error != cudaSuccess) return error;
  if (planning) return stream_owned_slot_available(stream, context, facts.stream_slot);
  if (sizing) {
    facts.stream_slot = true;
    return cudaSuccess;
  }
  error = stream_owned_slot(stream, context, &stream_state);
  facts.stream_slot = stream_state != nullptr;
  return error;
}

// Pipelines some operators or devices cannot run: refused with the reason.
template <class Op, class Accum>
cudaError_t check_pipeline_supported(Pipeline pipeline, const DeviceFacts& facts) {
  if (pipeline == Pipeline::atomic && !AtomicCombiner<Op, Accum>::supported)
    return fail(cudaErrorInvalidValue,
                "gpureduce: the atomic pipeline supports Sum, Min and Max of built-in types only");
  if (pipeline == Pipeline::cluster && !facts.thread_block_clusters)
    return fail(cudaErrorInvalidValue,
                "gpureduce: the cluster pipeline needs thread-block clusters (compute capability "
                "9.0 or newer); use last_block");
  if (pipeline == Pipeline::grid_sync && !facts.cooperative_launch)
    return fail(cudaErrorInvalidValue,
                "gpureduce: the grid_sync pipeline needs cooperative launch, which this device "
                "does not support (cudaDevAttrCooperativeLaunch is 0); use last_block");
  return cudaSuccess;
}

// Only automatic's own plans get the shaped kernels (kernels.cuh); a caller's explicit Options run
// reduce_input_kernel (which is how the tests compare the two).
inline ShapeKernel shaped_kernel_of(const char* rationale) {
  namespace r = rationale;
  if (rationale == r::kSingleBlock) return ShapeKernel::one_block;
  if (rationale == r::kCluster) return ShapeKernel::cluster;
  if (rationale == r::kZeroed || rationale == r::kStreamingZeroed || rationale == r::kStreamOwned ||
      rationale == r::kCapturedCountedSum || rationale == r::kCapturedFlaggedSum)
    return ShapeKernel::last_block;
  if (rationale == r::kCaptured || rationale == r::kStreamingCaptured) return ShapeKernel::two_kernel;
  return ShapeKernel::none;
}

// Validates, resolves `automatic`, and runs (or only sizes, or only plans) one reduction of what
// `input` reads (readers.cuh).
template <class Reader, class Out, class Op, class Init>
cudaError_t reduce_input(void* d_temp_storage, std::size_t* temp_storage_bytes, const Reader& input,
                         Out* d_out, std::int64_t num_items, Op op, Init init, bool fold_init,
                         cudaStream_t stream, const Options& options, LaunchPlan* plan) {
  using In = typename Reader::value_type;
  using Accum = typename Reader::accum_type;
  using P = Problem<Reader, Out, Accum, Op, Init>;
  cudaError_t error = validate_options(num_items, options);
  if (error == cudaSuccess) error = validate_accuracy<Reader, Out, Op>(options);
  if (error == cudaSuccess && plan == nullptr)
    error = validate_buffers(d_temp_storage, temp_storage_bytes, input, d_out, num_items, options);
  int device = 0;
  DeviceFacts facts;
  if (error == cudaSuccess) error = check(cudaGetDevice(&device), "cudaGetDevice");
  if (error == cudaSuccess) error = device_facts(device, facts);
  if (error != cudaSuccess) return error;
  ContextKey context;

  if constexpr (kExactEnginePair<Reader, Out, Op>) {
    if (options.accuracy == Accuracy::correctly_rounded) {
      error = ensure_context(device, context);
      if (error != cudaSuccess) return error;
      return exact::reduce_exact<In, Out>(exact::ExactCall{d_temp_storage, temp_storage_bytes, input.data,
                                                           d_out, num_items, stream, options, plan,
                                                           context, facts});
    }
  }

  const unsigned long long input_bytes = static_cast<unsigned long long>(num_items) * sizeof(In);
  const AutomaticShape shape = automatic_shape(options, input_bytes, facts.l2_bytes);
  Options resolved = shape.resolved;
  const char* rationale = shape.rationale;
  unsigned char* stream_state = nullptr;
  if (options.pipeline == Pipeline::automatic) {
    StreamFacts stream_facts;
    error = ask_about_stream<Op, Accum>(options, shape, input_bytes, stream, plan != nullptr,
                                        d_temp_storage == nullptr, device, context, stream_facts,
                                        stream_state);
    if (error != cudaSuccess) return error;
    const PipelineChoice choice =
        automatic_pipeline(options, shape, input_bytes, facts, stream_facts,
                           CapturedSums{kCountedSumFits<Op, Accum>, kCapturedFlaggedSumFits<Op, Accum>});
    resolved.pipeline = choice.pipeline;
    if (options.strategy == Strategy::automatic && rationale == rationale::kCallerChose)
      rationale = choice.why;
  }
  if (resolved.block_threads == 0 && resolved.strategy != Strategy::cub_block)
    resolved.block_threads = policy_for(resolved.strategy).default_block_threads;
  error = check_pipeline_supported<Op, Accum>(resolved.pipeline, facts);
  if (error != cudaSuccess) return error;

  const ShapeKernel shaped = shaped_kernel_of(rationale);
  if (shaped == ShapeKernel::one_block && plan == nullptr && d_temp_storage != nullptr) {
    static_assert(kAutomaticStrategy == Strategy::vectorized);
    if (auto kernel = shape_kernel_for<VectorizedRung, P>(shaped, resolved.block_threads)) {
      const KernelArgs<P> args{input, d_out, num_items, static_cast<unsigned char*>(d_temp_storage),
                               init, op, fold_init, std::uint8_t(resolved.pipeline), false};
      return launch_single_block(kernel, args, *temp_storage_bytes, resolved.block_threads,
                                 device, facts, stream);
    }
  }
  error = ensure_context(device, context);
  if (error != cudaSuccess) return error;
  const Request<P> request{d_temp_storage, temp_storage_bytes, input, d_out,
                           num_items,      op,                 init,  fold_init,
                           stream,         resolved,           plan,  context,
                           facts,          shape.automatic_grid, shape.half_room_grid,
                           shaped,         rationale,          stream_state};
  return run_strategy(request);
}

// reduce_input over a raw array (Sum, Min, Max, Reduce).
template <class In, class Out, class Op, class Init>
cudaError_t reduce(void* d_temp_storage, std::size_t* temp_storage_bytes, const In* d_in, Out* d_out,
                   std::int64_t num_items, Op op, Init init, bool fold_init, cudaStream_t stream,
                   const Options& options, LaunchPlan* plan) {
  return reduce_input(d_temp_storage, temp_storage_bytes, InputReader<In, accum_t<Op, Init, In>>(d_in),
                      d_out, num_items, op, init, fold_init, stream, options, plan);
}

}  // namespace gpureduce::detail
