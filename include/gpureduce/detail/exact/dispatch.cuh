// Dispatch of correctly rounded sums: the plan (rung, block, grid, pipeline, where the zeroed state
// lives), the temp-storage size, the launches. Compiled into the library only (src/exact_*.cu).
#pragma once

#include "../dispatch.cuh"
#include "exact_sum.hpp"
#include "kernels.cuh"

namespace gpureduce::detail::exact {

// automatic's choices. The block: 256 threads (bins of 32 KiB a block for the float family, so
// six or seven blocks an SM). The grid: the default engine's rule (policy.hpp), at most one wave.
// The pipeline: atomic, whose last block takes the grid's state out of 64-bit atomics: no
// partials to fold, one launch, on state a stream or graph slot keeps zero (as the default
// engine's last_block). docs/tuning.md has the measurements behind them.
inline constexpr Pipeline kAutomaticPipeline = Pipeline::atomic;
// Double family: a block sums at most 2^30 inputs, so that the remainders its threads move into
// its state (at most one piece below 2^32 per limb per input) cannot overflow a 64-bit limb.
inline constexpr std::int64_t kMostItemsPerBlock = std::int64_t(1) << 30;
// ... and at most 2^28 exact products of doubles (two terms each, or two pieces of 53 bits).
template <class In>
inline constexpr std::int64_t kMostItemsPerBlockOf = std::is_same_v<In, double> ? kMostItemsPerBlock
                                                     : std::is_same_v<In, DoubleProducts>
                                                         ? kMostItemsPerBlock / 4
                                                         : 0;  // float family: no limit

namespace rationale {
inline constexpr const char* kOneBlock =
    "correctly rounded: one block (the exact state of one block is the answer; one launch)";
inline constexpr const char* kOneBlockWindow =
    "correctly rounded, automatic: one block of 256 threads up to 16 KiB (one launch); where the "
    "inputs' exponents span little, their sum is exact in one double, or a little further apart "
    "in a 64-bit integer (128-bit for doubles), and rounded once, else the block's exact state is";
inline constexpr const char* kClusterWindow =
    "correctly rounded, automatic: above the one-block limit up to 128 KiB, one cluster of 2 to "
    "16 blocks of 256 threads, each holding 8 KiB of the input; where the inputs' exponents span "
    "little, their sum is exact in a 64-bit integer (128-bit for doubles) and block 0 rounds it "
    "once, else the blocks' exact states meet in block 0's shared memory";
// How the grid window's blocks meet, in both of its plans' rationales.
#define GPUREDUCE_GRID_WINDOW_MEETING                                                            \
  "each block sums its inputs as one 128-bit integer where their exponents span little, and "    \
  "the last block adds the blocks' sums and rounds once (else blocks add exact states with "    \
  "64-bit atomics; state the stream or graph keeps zero, or the caller's zeroed storage: one "  \
  "launch)"
inline constexpr const char* kGridWindow =
    "correctly rounded, automatic: vectorized loads, 256 threads, one block up to 16 KiB, one "
    "cluster up to 128 KiB, then up to 2 MiB (4 MiB of halves; on a caller's grid 40 MiB of "
    "doubles, 16 MiB of floats, 8 MiB of bfloat16) grid = ceil(sqrt(bytes / 256 B)) rounded up "
    "to a power of two, capped at one wave and 128 blocks (fewer where a thread would hold 2 or 3 "
    "vectors); " GPUREDUCE_GRID_WINDOW_MEETING;
inline constexpr const char* kDeepWindow =
    "correctly rounded, automatic: past 2 MiB up to 40 MiB of doubles (16 MiB of floats, 8 MiB "
    "of bfloat16), a block of 256 threads on each SM (at most 128), each thread keeping 8 "
    "vectors of doubles (4 of floats and bfloat16) in flight and as many more issued before a "
    "batch is added; " GPUREDUCE_GRID_WINDOW_MEETING;
#undef GPUREDUCE_GRID_WINDOW_MEETING
inline constexpr const char* kAtomic =
    "correctly rounded, automatic: vectorized loads, 256 threads, one block up to 16 KiB, one "
    "cluster up to 128 KiB, a grid window up to 40 MiB of doubles (16 MiB of floats, 8 MiB of "
    "bfloat16, 4 MiB of halves), else grid = ceil(sqrt(bytes / 256 B)) rounded up to a power of "
    "two, capped at one wave; atomic: blocks add their exact states into one with 64-bit "
    "atomics, the last rounds it (state the stream or graph keeps zero, or the caller's zeroed "
    "storage: one launch)";
inline constexpr const char* kCallerChose =
    "correctly rounded, as the caller's Options chose (the bits do not depend on it)";
}  // namespace rationale

struct Choice {
  Strategy strategy;
  int block_threads;
  bool automatic_strategy;
  bool automatic_pipeline;
};

// Where the state that must start zero comes from: the caller's promise, a slot of the library's
// (automatic pipeline: the graph's while capturing, else the stream's), or a zeroing per call.
struct StatePlace {
  unsigned char* base = nullptr;  // null: the caller's temp storage
  bool zero_per_call = false;
};
inline cudaError_t place_state(const ExactCall& c, const Choice& choice, std::size_t bytes,
                               StatePlace& place) {
  if (c.options.temp_storage_zeroed) return cudaSuccess;
  if (choice.automatic_pipeline) {
    bool capturing = false;
    cudaError_t error = stream_is_capturing(c.stream, capturing);
    if (error != cudaSuccess) return error;
    if (capturing) return acquire_graph_owned_slot(c.stream, c.context, bytes, &place.base);
    error = stream_owned_slot(c.stream, c.context, &place.base);
    if (error != cudaSuccess) return error;
    if (place.base != nullptr) return cudaSuccess;
  }
  place.zero_per_call = true;
  return cudaSuccess;
}

// The grid: every block's worth of work (vectors for vectorized loads, else items), capped by
// occupancy, waves, the caller's grid_blocks and automatic's rule; double sums get at least one
// block per kMostItemsPerBlock items. 0 when that cannot fit the cap. In is the summed type,
// Loaded the type read (they differ for BLAS terms: blas1_sum.cuh).
template <class Rung, class In, class Loaded = In>
std::int64_t exact_grid(std::int64_t n, std::uintptr_t address, int block, std::int64_t cap,
                        std::int64_t target) {
  if (n == 0) return 1;
  std::int64_t units = n;
  if constexpr (kVectorLoads<Rung>) {
    const VectorizedRung::Layout l = VectorizedRung::layout(address, sizeof(Loaded), n);
    units = l.vectors > 0 ? l.vectors : 1;
  }
  std::int64_t grid = (units + block - 1) / block;
  grid = grid < cap ? grid : cap;
  grid = grid < target ? grid : target;
  grid = grid > 1 ? grid : 1;
  if constexpr (kMostItemsPerBlockOf<In> > 0) {
    constexpr std::int64_t most = kMostItemsPerBlockOf<In>;
    const std::int64_t least = (n + most - 1) / most;
    if (grid < least) grid = least <= cap ? least : 0;
  }
  return grid;
}

// A correctly rounded call's pipeline, its kernel's shared memory, and its grid: the caller's
// pipeline or automatic's, checked against the device; the grid capped by occupancy, waves, the
// cluster, the caller's grid_blocks and automatic's rule. `sizing_grid` is the grid for any
// alignment of the input, by which temp storage is sized. In and Loaded as exact_grid's.
struct ExactShape {
  Pipeline pipeline = Pipeline::atomic;
  std::size_t shared_bytes = 0;
  std::int64_t grid = 0;
  std::int64_t sizing_grid = 0;
  bool window_ticket = false;  // the grid window's kernel: its blocks meet at a ticket on any grid
};
template <class Rung, class In, class Loaded = In>
cudaError_t exact_shape(const ExactCall& c, const Choice& choice, const void* kernel,
                        ExactShape& shape) {
  const Options& o = c.options;
  const int block = choice.block_threads;
  shape.shared_bytes = exact_shared_bytes<Rung, In>(block);
  cudaError_t error = allow_dynamic_shared_bytes(c.context, kernel, shape.shared_bytes);
  int occupancy = 0;
  if (error == cudaSuccess)
    error = resident_blocks_per_sm(c.context, kernel, block, shape.shared_bytes, occupancy);
  if (error != cudaSuccess) return error;
  if (occupancy < 1)
    return fail(cudaErrorInvalidValue,
                "gpureduce: this strategy's correctly rounded kernel cannot run with the requested "
                "block size on this device (float and bfloat16 bins need 128 bytes of shared "
                "memory a thread)");
  const Pipeline pipeline = choice.automatic_pipeline ? kAutomaticPipeline : o.pipeline;
  if (pipeline == Pipeline::cluster && !c.facts.thread_block_clusters)
    return fail(cudaErrorInvalidValue, "gpureduce: the cluster pipeline needs compute capability 9.0");
  if (pipeline == Pipeline::grid_sync && !c.facts.cooperative_launch)
    return fail(cudaErrorInvalidValue, "gpureduce: the grid_sync pipeline needs cooperative launch");
  const int waves = pipeline == Pipeline::grid_sync || choice.automatic_strategy
                        ? 1
                        : policy_for(choice.strategy).waves;
  std::int64_t cap = std::int64_t(occupancy) * c.facts.multiprocessors * waves;
  if (pipeline == Pipeline::cluster) {
    int cluster_cap = 0;
    error = max_cluster_blocks(c.context, kernel, block, shape.shared_bytes, cluster_cap);
    if (error != cudaSuccess) return error;
    cap = cluster_cap < cap ? (cluster_cap < 1 ? 1 : cluster_cap) : cap;
  }
  if (o.grid_blocks > 0 && o.grid_blocks < cap) cap = o.grid_blocks;
  // automatic: one block up to kOneBlockBytes (no state to meet in), else the default rule.
  const std::uint64_t bytes = std::uint64_t(c.num_items) * sizeof(Loaded);
  const std::int64_t target = !choice.automatic_strategy || o.grid_blocks != 0 ? cap
                              : bytes <= kOneBlockBytes                ? 1
                                                                           : automatic_grid_target(bytes);
  const auto address = reinterpret_cast<std::uintptr_t>(c.d_in);
  shape.pipeline = pipeline;
  shape.grid = exact_grid<Rung, In, Loaded>(c.num_items, address, block, cap, target);
  shape.sizing_grid = exact_grid<Rung, In, Loaded>(c.num_items, 0, block, cap, target);
  if (shape.grid == 0 || shape.sizing_grid == 0)
    return fail(cudaErrorInvalidValue,
                "gpureduce: a correctly rounded double sum needs a block per 2^30 items (2^28 "
                "products of doubles), more than this grid allows (raise Options::grid_blocks)");
  return cudaSuccess;
}

// What a correctly rounded call launches, given its shape.
struct ExactLaunches {
  bool zeroed_state;       // atomic or last_block over several blocks (or the grid window's
                           // ticket): state that starts zero
  bool may_zero_per_call;  // ... and no promise that temp storage is zeroed
  bool second_kernel;      // two_kernel over several blocks
};
inline ExactLaunches exact_launches(const Options& o, const ExactShape& s) {
  const bool zeroed_state =
      ((s.pipeline == Pipeline::atomic || s.pipeline == Pipeline::last_block) && s.grid > 1) ||
      s.window_ticket;
  return {zeroed_state, zeroed_state && !o.temp_storage_zeroed,
          s.pipeline == Pipeline::two_kernel && s.grid > 1};
}

// The plan a call would launch (PlanSum), launching nothing.
inline cudaError_t fill_exact_plan(const ExactCall& c, const Choice& choice, const ExactShape& s,
                                   const ExactLaunches& l, std::size_t temp_bytes,
                                   int items_per_thread, const char* window) {
  bool slot = false;
  if (l.may_zero_per_call && choice.automatic_pipeline) {
    bool capturing = false;
    cudaError_t error = stream_is_capturing(c.stream, capturing);
    if (error == cudaSuccess && !capturing)
      error = stream_owned_slot_available(c.stream, c.context, slot);
    slot = slot || capturing;
    if (error != cudaSuccess) return error;
  }
  *c.plan = LaunchPlan{};
  c.plan->strategy = choice.strategy;
  c.plan->pipeline = s.pipeline;
  c.plan->block_threads = choice.block_threads;
  c.plan->grid_blocks = int(s.grid);
  c.plan->items_per_thread = items_per_thread;
  c.plan->launches = 1 + int(l.may_zero_per_call && !slot) + int(l.second_kernel);
  c.plan->temp_storage_bytes = temp_bytes;
  c.plan->rationale = window != nullptr ? window
                      : s.grid == 1    ? rationale::kOneBlock
                      : choice.automatic_strategy && choice.automatic_pipeline ? rationale::kAtomic
                                                                               : rationale::kCallerChose;
  return cudaSuccess;
}

// The launch: the state that must start zero placed (and zeroed, where nothing keeps it zero),
// the kernel (given `extra` after its ExactArgs), and two_kernel's second kernel.
template <class In, class Out, class... Extra>
cudaError_t launch_exact(const ExactCall& c, const Choice& choice,
                         void (*kernel)(ExactArgs<In, Out>, Extra...), const ExactShape& s,
                         const ExactLaunches& l, const Extra&... extra) {
  using Family = family_of<In>;
  auto* work = static_cast<unsigned char*>(c.d_temp_storage);
  StatePlace place;
  cudaError_t error = cudaSuccess;
  const std::size_t state_bytes =
      zeroed_state_bytes<Family>(s.pipeline == Pipeline::atomic, s.window_ticket);
  if (l.zeroed_state) error = place_state(c, choice, state_bytes, place);
  if (error != cudaSuccess) return error;
  unsigned char* const state = place.base != nullptr ? place.base : work;
  bool pdl = false;
  error = pdl_allowed(c.context.device, c.facts, reinterpret_cast<const void*>(kernel), pdl);
  if (error == cudaSuccess && place.zero_per_call)
    error = zero_state_for_call(state, state_bytes, c.stream, pdl);
  if (error != cudaSuccess) return error;
  const ExactArgs<In, Out> args{static_cast<const In*>(c.d_in), static_cast<Out*>(c.d_out),
                                c.num_items, state, work, std::uint8_t(s.pipeline), c.d_state_out};
  const bool cooperative = s.pipeline == Pipeline::grid_sync && s.grid > 1;
  const unsigned cluster_blocks = s.pipeline == Pipeline::cluster && s.grid > 1 ? unsigned(s.grid) : 0u;
  error = launch_checked(kernel,
                         LaunchShape{unsigned(s.grid), unsigned(choice.block_threads), s.shared_bytes,
                                     c.stream, cooperative, pdl, cluster_blocks},
                         "gpureduce: launching the correctly rounded sum",
                         "gpureduce: after launching the correctly rounded sum", args, extra...);
  if (error != cudaSuccess || !l.second_kernel) return error;
  return launch_checked(exact_fold_kernel<In, Out>,
                        LaunchShape{1u, 256u, 0, c.stream, false, pdl},
                        "gpureduce: launching the correctly rounded sum's second kernel",
                        "gpureduce: after launching the correctly rounded sum's second kernel",
                        args, int(s.grid));
}

// automatic's double kernel takes the window (double_thread.hpp) from this many items: below it
// a thread of its grid has no full batch of 8, and the window's kernel ran 0.1-0.25 µs slower a
// call from 4K to 256K items (H100, graphs), where at 1M it ran 0.1 faster and at 4M 0.6
// (docs/tuning.md, 'The double window').
inline constexpr std::int64_t kDoubleWindowMinItems = std::int64_t(1) << 20;
template <class In, class Out>
auto automatic_exact_kernel(std::int64_t num_items) {
  if constexpr (std::is_same_v<In, double>)
    if (num_items >= kDoubleWindowMinItems) return exact_automatic_kernel<In, Out, true>;
  return exact_automatic_kernel<In, Out, false>;
}

// automatic's cluster window (cluster_window.cuh): the blocks of the one cluster its input needs
// (0: not this plan: another strategy, pipeline or grid, an exported state, a size outside its
// range, or a device whose clusters cannot hold them).
template <class In, class Out>
cudaError_t cluster_window_blocks(const ExactCall& c, bool shaped,
                                  void (*kernel)(ExactArgs<In, Out>), std::int64_t& blocks) {
  blocks = 0;
  const std::uint64_t bytes = std::uint64_t(c.num_items) * sizeof(In);
  if (!shaped || c.exports_state || c.options.grid_blocks != 0 ||
      bytes <= kOneBlockBytes || bytes > kClusterWindowMaxBytes<kAutomaticBlockThreads> ||
      !c.facts.thread_block_clusters)
    return cudaSuccess;
  constexpr int kBlock = kAutomaticBlockThreads;
  const std::uint64_t per_block = cluster_block_bytes<kBlock>(kClusterWindowVectors);
  const std::size_t shared = exact_shared_bytes<VectorizedRung, In>(kBlock);
  const auto* launched = reinterpret_cast<const void*>(kernel);
  int most = 0;
  cudaError_t error = allow_dynamic_shared_bytes(c.context, launched, shared);
  if (error == cudaSuccess) error = max_cluster_blocks(c.context, launched, kBlock, shared, most);
  const std::int64_t needed = std::int64_t((bytes + per_block - 1) / per_block);
  if (error == cudaSuccess && needed <= most) blocks = needed;
  return error;
}

static_assert(kPartialStatesOffset <= kLargeSlotBytes,
              "the zeroed state, the grid window's records included, fits a stream's slot");

// The grid window's grid: a thread's last vectors short of a full batch are read one at a time
// (sum_inputs), one L2 round trip each, so where the square-root rule leaves a thread 2 or 3
// vectors, fewer blocks give it one batch (H200, graphs: 64K doubles 3.75 -> 3.55 µs, 128K
// floats 3.70 -> 3.46; docs/tuning.md, 'Grid window').
inline std::int64_t grid_window_blocks(std::uint64_t bytes, std::int64_t grid) {
  const auto vectors = std::int64_t((bytes + 15) / 16);
  const std::int64_t threads = grid * kAutomaticBlockThreads;
  const std::int64_t per_thread = (vectors + threads - 1) / threads;
  if (per_thread < 2 || per_thread >= VectorizedRung::kVectorsInFlight) return grid;
  const std::int64_t batch =
      std::int64_t(VectorizedRung::kVectorsInFlight) * kAutomaticBlockThreads;
  return (vectors + batch - 1) / batch;
}

// The grid window's kernel: the deep window's for the types it is built for (kDeepWindowTypes).
template <class In, class Out>
auto grid_window_kernel(bool deep) {
  if constexpr (kDeepWindowTypes<In>)
    if (deep) return exact_deep_window_kernel<In, Out>;
  return exact_grid_window_kernel<In, Out>;
}

template <class Rung, int BLOCK, class In, class Out>
cudaError_t run_exact(const ExactCall& c, const Choice& choice) {
  if (std::is_same_v<Rung, CubBlockRung> && choice.block_threads != kCubBlockThreads)
    return fail(cudaErrorInvalidValue, "gpureduce: cub_block needs 256 threads (CUB's policy)");
  // automatic's own plan (its rung, block and pipeline) has a kernel built for it.
  const bool shaped = std::is_same_v<Rung, VectorizedRung> && choice.automatic_strategy &&
                      choice.automatic_pipeline && choice.block_threads == kAutomaticBlockThreads;
  // ... and its one-block plan, when nothing is exported, a kernel with the window's fast path;
  // above that, up to kClusterWindowMaxBytes, one cluster with the window across it.
  const std::uint64_t bytes = std::uint64_t(c.num_items) * sizeof(In);
  const bool one_block = shaped && !c.exports_state && c.options.grid_blocks <= 1 &&
                         bytes <= kOneBlockBytes;
  const auto cluster_kernel = exact_cluster_kernel<In, Out>;
  std::int64_t cluster_blocks = 0;
  cudaError_t error = cluster_window_blocks<In, Out>(c, shaped, cluster_kernel, cluster_blocks);
  if (error != cudaSuccess) return error;
  // ... and past those, up to kGridWindowMaxBytes, when nothing is exported, the window over the
  // grid. (A caller's one block keeps the general kernel, whose one block needs no state to meet
  // in.)
  const bool grid_window = shaped && !one_block && cluster_blocks == 0 &&
                           !c.exports_state && c.options.grid_blocks != 1 &&
                           bytes <= kGridWindowMaxBytes<In>;
  // ... past kDeepWindowAboveBytes, on automatic's own grid, a block an SM, loads deep in flight.
  const bool deep_window = grid_window && c.options.grid_blocks == 0 && kDeepWindowTypes<In> &&
                           bytes > kDeepWindowAboveBytes;
  const auto kernel = one_block            ? exact_one_block_kernel<In, Out>
                      : cluster_blocks > 0 ? cluster_kernel
                      : grid_window        ? grid_window_kernel<In, Out>(deep_window)
                      : shaped             ? automatic_exact_kernel<In, Out>(c.num_items)
                                           : exact_sum_kernel<Rung, BLOCK, In, Out>;
  ExactShape s;
  error = exact_shape<Rung, In>(c, choice, reinterpret_cast<const void*>(kernel), s);
  if (error != cudaSuccess) return error;
  if (cluster_blocks > 0) {
    s.pipeline = Pipeline::cluster;
    s.grid = s.sizing_grid = cluster_blocks;
  }
  if (grid_window) {  // the last block holds every block's record in registers
    const auto clamp = [](std::int64_t g) {
      return g < kGridWindowMaxBlocks ? g : std::int64_t(kGridWindowMaxBlocks);
    };
    // automatic's own grid: fewer blocks where a thread's vectors fall short of a batch
    s.grid = clamp(deep_window                 ? c.facts.multiprocessors
                   : c.options.grid_blocks == 0 ? grid_window_blocks(bytes, s.grid)
                                                : s.grid);
    s.sizing_grid = deep_window ? s.grid : clamp(s.sizing_grid);
    s.window_ticket = true;
  }
  const ExactLaunches l = exact_launches(c.options, s);
  const std::size_t temp_bytes = temp_storage_bytes<family_of<In>>(
      s.sizing_grid, choice.block_threads, Rung::kUsesGlobalScratch);
  if (c.plan)
    return fill_exact_plan(c, choice, s, l, temp_bytes, kVectorLoads<Rung> ? int(16 / sizeof(In)) : 1,
                           one_block            ? rationale::kOneBlockWindow
                           : cluster_blocks > 0 ? rationale::kClusterWindow
                           : deep_window        ? rationale::kDeepWindow
                           : grid_window        ? rationale::kGridWindow
                                                : nullptr);
  if (c.d_temp_storage == nullptr) {
    *c.temp_storage_bytes = temp_bytes;
    return cudaSuccess;
  }
  if (*c.temp_storage_bytes < temp_bytes) return fail(cudaErrorInvalidValue, kTempTooSmall);
  return launch_exact<In, Out>(c, choice, kernel, s, l);
}

template <class Rung, class In, class Out, int... Sizes>
cudaError_t run_exact_template_rung(const ExactCall& c, const Choice& choice,
                                    std::integer_sequence<int, Sizes...>) {
  cudaError_t result = cudaErrorInvalidValue;
  const bool matched = ((choice.block_threads == Sizes
                             ? (result = run_exact<Rung, Sizes, In, Out>(c, choice), true)
                             : false) ||
                        ...);
  if (!matched) return fail(cudaErrorInvalidValue, "gpureduce: no kernel built for this block size");
  return result;
}

template <class In, class Out>
cudaError_t reduce_exact(const ExactCall& c) {
  const Options& o = c.options;
  Choice choice{o.strategy, o.block_threads, o.strategy == Strategy::automatic,
                o.pipeline == Pipeline::automatic};
  if (choice.automatic_strategy) choice.strategy = Strategy::vectorized;
  if (choice.block_threads == 0)
    choice.block_threads = choice.automatic_strategy ? kAutomaticBlockThreads
                           : choice.strategy == Strategy::cub_block
                               ? kCubBlockThreads
                               : policy_for(choice.strategy).default_block_threads;
  switch (choice.strategy) {
    case Strategy::global_memory: return run_exact<GlobalMemoryRung, 0, In, Out>(c, choice);
    case Strategy::neighbored: return run_exact<NeighboredRung, 0, In, Out>(c, choice);
    case Strategy::strided_index: return run_exact<StridedIndexRung, 0, In, Out>(c, choice);
    case Strategy::sequential: return run_exact<SequentialRung, 0, In, Out>(c, choice);
    case Strategy::first_add: return run_exact<FirstAddRung, 0, In, Out>(c, choice);
    case Strategy::unroll_last_warp: return run_exact<UnrollLastWarpRung, 0, In, Out>(c, choice);
    case Strategy::complete_unroll:
      return run_exact_template_rung<CompleteUnrollRung, In, Out>(c, choice, TemplateBlockSizes{});
    case Strategy::multi_element:
      return run_exact_template_rung<MultiElementRung, In, Out>(c, choice, TemplateBlockSizes{});
    case Strategy::warp_shuffle: return run_exact<WarpShuffleRung, 0, In, Out>(c, choice);
    case Strategy::vectorized: return run_exact<VectorizedRung, 0, In, Out>(c, choice);
    case Strategy::cub_block: return run_exact<CubBlockRung, kCubBlockThreads, In, Out>(c, choice);
    default: return fail(cudaErrorInvalidValue, "gpureduce: unknown strategy");
  }
}

// One warp rounds an exact state read from global memory.
template <class In, class Out>
__global__ void __launch_bounds__(32) round_state_kernel(const long long* words, Out* d_out) {
  using Family = family_of<In>;
  wait_for_previous_kernel_then_release_next();
  __shared__ ExactState<Family> state;
  for (int w = int(threadIdx.x); w < ExactState<Family>::kWords; w += 32)
    words_of(state)[w] = words[w];
  __syncwarp();
  write_rounded_by_warp(d_out, state);
}

template <class In, class Out>
int exact_state_words() {
  return ExactState<family_of<In>>::kWords;
}

template <class In, class Out>
cudaError_t round_exact_state(const long long* d_state, Out* d_out, cudaStream_t stream) {
  round_state_kernel<In, Out><<<1, 32, 0, stream>>>(d_state, d_out);
  return check(cudaGetLastError(), "gpureduce: launching the rounding of an exact state");
}

template <class In, class Out>
cudaError_t exact_state_sum(void* d_temp_storage, std::size_t* temp_storage_bytes, const In* d_in,
                            long long* d_state, std::int64_t num_items, cudaStream_t stream,
                            const Options& options) {
  if (num_items < 0) return fail(cudaErrorInvalidValue, "gpureduce: num_items is negative");
  if (temp_storage_bytes == nullptr)
    return fail(cudaErrorInvalidValue, "gpureduce: temp_storage_bytes reference is null");
  if (d_temp_storage != nullptr && (d_state == nullptr || (d_in == nullptr && num_items > 0)))
    return fail(cudaErrorInvalidValue, "gpureduce: d_in or the exact state's buffer is null");
  int device = 0;
  DeviceFacts facts;
  ContextKey context;
  cudaError_t error = check(cudaGetDevice(&device), "cudaGetDevice");
  if (error == cudaSuccess) error = device_facts(device, facts);
  if (error == cudaSuccess) error = current_context(device, context);
  if (error != cudaSuccess) return error;
  Options exact = options;
  exact.accuracy = Accuracy::correctly_rounded;
  return reduce_exact<In, Out>(ExactCall{d_temp_storage, temp_storage_bytes, d_in, nullptr,
                                         num_items, stream, exact, nullptr, context, facts,
                                         d_state, true});
}

}  // namespace gpureduce::detail::exact
