// `automatic` (issue 4): the plan follows the documented rules of detail/policy.hpp on this device,
// and the answers stay CUB's around the rules' boundaries. Speed is the benchmarks' business.
#include <cmath>
#include <string>
#include <vector>

#include "gpu/common.cuh"

namespace gpureduce::testing {
namespace {

struct DeviceLimits {
  int multiprocessors = 0;
  bool cooperative = false;
  bool clusters = false;  // compute capability 9.0+
  std::int64_t l2_bytes = 0;
};
DeviceLimits device_limits() {
  DeviceLimits limits;
  int device = 0, cooperative = 0;
  EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
  EXPECT_EQ(cudaDeviceGetAttribute(&limits.multiprocessors, cudaDevAttrMultiProcessorCount, device), cudaSuccess);
  EXPECT_EQ(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device), cudaSuccess);
  limits.cooperative = cooperative != 0;
  int major = 0;
  EXPECT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), cudaSuccess);
  limits.clusters = major >= 9;
  int l2 = 0;
  EXPECT_EQ(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), cudaSuccess);
  limits.l2_bytes = l2;
  return limits;
}

// The rule, restated independently of the library: the smallest power of two g with
// g * g * 256 >= bytes (ceil(sqrt(bytes / 256)) rounded up to a power of two).
std::int64_t sqrt_rule(std::int64_t bytes) {
  std::int64_t g = 1;
  while (g * g * 256 < bytes) g *= 2;
  return g;
}

// One block's size, restated: 64 input bytes a thread, a power of two from 128 to 512.
int single_block_threads(std::int64_t bytes) {
  int threads = 128;
  while (threads < 512 && std::int64_t(threads) * 64 < bytes) threads *= 2;
  return threads;
}

constexpr std::int64_t kOneBlockBytes = 64 * 1024;
constexpr std::int64_t kClusterBytes = 256 * 1024;

template <class C>
void check_plans() {
  using In = typename C::In;
  const DeviceLimits limits = device_limits();
  const In* aligned = reinterpret_cast<const In*>(std::uintptr_t(1) << 20);  // only its alignment is read
  const std::int64_t item = std::int64_t(sizeof(In));
  const std::int64_t one_block_items = kOneBlockBytes / item;
  const std::int64_t cluster_items = kClusterBytes / item;
  const std::int64_t streaming_items = (limits.l2_bytes / 2 + item - 1) / item;
  for (std::int64_t n : {std::int64_t(0), std::int64_t(1), 8192 / item, 8192 / item + 1,
                         16384 / item + 1, one_block_items - 1, one_block_items,
                         one_block_items + 1, cluster_items, cluster_items + 1,
                         std::int64_t(1) << 20, streaming_items - 1, streaming_items,
                         std::int64_t(1) << 24, (std::int64_t(1) << 30) + 3}) {
    for (bool zeroed : {false, true}) {
      Options options;
      options.temp_storage_zeroed = zeroed;
      LaunchPlan plan;
      ASSERT_EQ(C::plan(plan, aligned, n, options), cudaSuccess) << last_error_message();
      SCOPED_TRACE(C::name() + " n=" + std::to_string(n) + (zeroed ? " zeroed: " : ": ") + gpureduce::describe(plan));
      EXPECT_EQ(plan.strategy, Strategy::vectorized);
      EXPECT_STRNE(plan.rationale, "");
      const std::int64_t bytes = n * item;
      const bool streaming = bytes > kClusterBytes && bytes >= limits.l2_bytes / 2;
      // Zeroed storage: last_block (flagged partials) at every size; else, above one block and
      // below streaming, the same plan on the stream's state (this process holds far fewer than
      // kStreamOwnedSlotsPerContext streams) where it fits the 16 KiB slot: a 256-byte control block
      // and a flagged slot of sizeof(Out) * 2 bytes per block of the rule's grid (a counted word
      // for int32); else grid_sync where the device launches cooperatively.
      const bool fits_slot = 256 + sqrt_rule(bytes) * std::int64_t(sizeof(typename C::Out)) * 2 <= 16384;
      const bool stream_owned = !zeroed && n > one_block_items && !streaming && fits_slot;
      const Pipeline expected_pipeline =
          zeroed || stream_owned || !limits.cooperative ? Pipeline::last_block : Pipeline::grid_sync;
      EXPECT_EQ(plan.pipeline, expected_pipeline);
      EXPECT_EQ(std::string(plan.rationale) == detail::rationale::kStreamOwned, stream_owned);
      if (n <= one_block_items) {
        EXPECT_EQ(plan.grid_blocks, 1);
        EXPECT_EQ(plan.block_threads, single_block_threads(bytes));
        EXPECT_EQ(plan.launches, 1);
        continue;
      }
      EXPECT_EQ(plan.block_threads, streaming ? 512 : 256);
      const std::int64_t vectors = bytes / 16;
      const std::int64_t useful = (vectors + plan.block_threads - 1) / plan.block_threads;
      // Streaming: one wave, no sqrt target (one wave is at least one block per multiprocessor).
      const std::int64_t rule = streaming ? useful : sqrt_rule(bytes);
      const std::int64_t expected = std::min(rule, useful);
      // One wave is at least one block per multiprocessor; where the rule is below that, it rules.
      if (expected <= limits.multiprocessors) EXPECT_EQ(plan.grid_blocks, expected);
      else EXPECT_LE(plan.grid_blocks, expected);
      EXPECT_GE(plan.grid_blocks, std::min<std::int64_t>(expected, limits.multiprocessors));
      // Streaming on zeroed storage: two blocks per multiprocessor, not the one wave.
      if (streaming && zeroed)
        EXPECT_EQ(plan.grid_blocks, std::min<std::int64_t>(2 * std::int64_t(limits.multiprocessors), useful));
      // Only the fallback (streaming, no cooperative launch, storage not zeroed) launches twice:
      // zeroing, then the reduction.
      EXPECT_EQ(plan.launches, (!zeroed && !stream_owned && !limits.cooperative) ? 2 : 1);
    }
  }
}

TEST(Automatic, PlansFollowTheRulesFloat) { REQUIRE_GPU(); check_plans<Case<float, float, Op::sum>>(); }
TEST(Automatic, PlansFollowTheRulesDouble) { REQUIRE_GPU(); check_plans<Case<double, double, Op::sum>>(); }
TEST(Automatic, PlansFollowTheRulesInt32) { REQUIRE_GPU(); check_plans<Case<std::int32_t, std::int32_t, Op::sum>>(); }
TEST(Automatic, PlansFollowTheRulesHalf) { REQUIRE_GPU(); check_plans<Case<__half, float, Op::sum>>(); }

// Around every boundary the rules draw (block size steps, one block / cluster / many, grid = rule /
// one wave, streaming), aligned and at d_in + 1 and + 3, zeroed or not: bitwise CUB on small
// integers (every partial sum exact).
template <class C>
void check_answers() {
  using In = typename C::In;
  using Out = typename C::Out;
  const std::int64_t item = std::int64_t(sizeof(In));
  const std::int64_t one_block_items = kOneBlockBytes / item;
  const std::int64_t cluster_items = kClusterBytes / item;
  const std::int64_t streaming_items = (device_limits().l2_bytes / 2 + item - 1) / item;
  for (std::int64_t n : capped({8192 / item + 1, 16384 / item - 1, one_block_items - 1,
                                one_block_items, one_block_items + 1, one_block_items + 7,
                                3 * one_block_items + 5, cluster_items, cluster_items + 1,
                                (1 << 22) + 9, streaming_items - 1, streaming_items + 1,
                                (1 << 26) + 1})) {
    for (int offset : {0, 1, 3}) {
      const std::uint64_t seed = fresh_seed();
      DeviceBuffer<In> buffer{std::size_t(n + offset)};
      ASSERT_TRUE(buffer.ok());
      CUDA_OK(fill_random(buffer.get(), n + offset, seed, Fill::small_integers));
      const In* d_in = buffer.get() + offset;
      DeviceBuffer<Out> d_ref(1);
      CUDA_OK(C::cub(d_in, d_ref.get(), n));
      const Out cub_result = copy_to_host(d_ref.get());
      for (bool zeroed : {false, true}) {
        Options options;
        options.temp_storage_zeroed = zeroed;
        SCOPED_TRACE(C::name() + " " + describe(options, n, offset, seed));
        Out result{};
        ASSERT_TRUE(run_gpureduce<C>(d_in, n, options, result));
        EXPECT_TRUE(same_bits(result, cub_result)) << "gpureduce " << show(result) << " vs CUB " << show(cub_result);
      }
    }
  }
}

TEST(Automatic, MatchesCubAroundTheBoundariesFloat) { REQUIRE_GPU(); check_answers<Case<float, float, Op::sum>>(); }
TEST(Automatic, MatchesCubAroundTheBoundariesDouble) { REQUIRE_GPU(); check_answers<Case<double, double, Op::sum>>(); }
TEST(Automatic, MatchesCubAroundTheBoundariesInt32) { REQUIRE_GPU(); check_answers<Case<std::int32_t, std::int32_t, Op::sum>>(); }
TEST(Automatic, MatchesCubAroundTheBoundariesHalf) { REQUIRE_GPU(); check_answers<Case<__half, float, Op::sum>>(); }

// automatic's one-block and last_block plans (zeroed storage, or the stream's state) launch
// kernels built for their shape, which claim the bits of the general kernel launched with the same Options
// (vectorized, the plan's pipeline, block and grid). Random floats, whose sums round, so the order
// shows in the bits: another order (a 1024-thread block, or half the grid) must differ somewhere,
// or this test could not tell.
template <class C>
void check_shape_kernels() {
  using In = typename C::In;
  using Out = typename C::Out;
  const std::int64_t item = std::int64_t(sizeof(In));
  const std::int64_t streaming_bytes = device_limits().l2_bytes / 2;
  int differs_from_other_order = 0, cases = 0;
  for (std::int64_t n : {std::int64_t(33), std::int64_t(1000), 4096 / item + 3, 8192 / item,
                         16384 / item - 1, 32768 / item + 5, kOneBlockBytes / item,
                         kOneBlockBytes / item + 1, 3 * kOneBlockBytes / item + 7, kClusterBytes / item,
                         std::int64_t(1) << 20, (std::int64_t(1) << 22) + 5}) {
    for (bool zeroed : {false, true}) {
      for (int offset : {0, 1}) {
        const std::uint64_t seed = fresh_seed();
        DeviceBuffer<In> buffer{std::size_t(n + offset)};
        ASSERT_TRUE(buffer.ok());
        CUDA_OK(fill_random(buffer.get(), n + offset, seed, Fill::random));
        const In* d_in = buffer.get() + offset;
        Options automatic;
        automatic.temp_storage_zeroed = zeroed;
        LaunchPlan plan;
        ASSERT_EQ(C::plan(plan, d_in, n, automatic), cudaSuccess) << last_error_message();
        const bool one_block = n * item <= kOneBlockBytes;
        const bool shaped = one_block || zeroed || n * item < streaming_bytes;
        if (!shaped) continue;
        if (!one_block) ASSERT_EQ(plan.pipeline, Pipeline::last_block) << plan.rationale;
        Options general{Strategy::vectorized, plan.pipeline, plan.block_threads, plan.grid_blocks};
        general.temp_storage_zeroed = zeroed;
        Options other_order = general;
        if (one_block) other_order.block_threads = 1024;
        else other_order.grid_blocks = plan.grid_blocks / 2;
        SCOPED_TRACE(C::name() + " " + describe(general, n, offset, seed) + (zeroed ? " zeroed" : ""));
        Out from_automatic{}, reference{}, other{};
        ASSERT_TRUE(run_gpureduce<C>(d_in, n, automatic, from_automatic));
        ASSERT_TRUE(run_gpureduce<C>(d_in, n, general, reference));
        ASSERT_TRUE(run_gpureduce<C>(d_in, n, other_order, other));
        EXPECT_TRUE(same_bits(from_automatic, reference))
            << "shape kernel " << show(from_automatic) << " vs general kernel " << show(reference);
        differs_from_other_order += !same_bits(reference, other);
        ++cases;
      }
    }
  }
  EXPECT_GT(differs_from_other_order, 0) << "no case of " << cases << " depends on the order: the inputs cannot tell orders apart";
}

// Float only: the fixed-point inputs of double and half sum exactly at these sizes, so no order
// would show in their bits.
TEST(Automatic, ShapeKernelsHaveTheGeneralKernelsBitsFloat) { REQUIRE_GPU(); check_shape_kernels<Case<float, float, Op::sum>>(); }

// block_reduce_shuffle_full (every thread holds a value) must give thread 0 the bits of
// block_reduce_shuffle with all threads valid: the vectorized rung takes it whenever a block is
// full, so every automatic plan's bits rest on it. Random floats, whose sums round, at every block
// size; a block's values summed in another order (lane order, sequentially) must differ somewhere,
// or equal bits would prove nothing.
__global__ void both_block_trees(const float* in, float* out) {
  extern __shared__ float warp_totals[];
  const float mine = in[blockIdx.x * blockDim.x + threadIdx.x];
  const detail::SumOp op{};
  const float prefix = detail::block_reduce_shuffle(mine, int(blockDim.x), op, warp_totals);
  __syncthreads();  // warp 0 may still read warp_totals (shuffle_reduce.cuh)
  const float full = detail::block_reduce_shuffle_full(mine, op, warp_totals);
  if (threadIdx.x == 0) {
    float sequential = 0.0f;
    for (unsigned i = 0; i < blockDim.x; ++i) sequential += in[blockIdx.x * blockDim.x + i];
    out[3 * blockIdx.x] = prefix;
    out[3 * blockIdx.x + 1] = full;
    out[3 * blockIdx.x + 2] = sequential;
  }
}

TEST(Automatic, FullBlockTreeHasThePrefixTreesBits) {
  REQUIRE_GPU();
  constexpr int kBlocks = 64;
  int order_shows = 0;
  for (int threads : {32, 64, 128, 256, 512, 1024}) {
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE("block " + std::to_string(threads) + " seed " + std::to_string(seed));
    DeviceBuffer<float> in{std::size_t(kBlocks) * threads}, out{3 * kBlocks};
    ASSERT_TRUE(in.ok() && out.ok());
    CUDA_OK(fill_random(in.get(), std::int64_t(kBlocks) * threads, seed, Fill::random));
    CUDA_OK(cudaMemset(out.get(), kPoisonByte, 3 * kBlocks * sizeof(float)));
    both_block_trees<<<kBlocks, threads, (threads / 32) * sizeof(float)>>>(in.get(), out.get());
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
    std::vector<float> host(3 * kBlocks);
    CUDA_OK(cudaMemcpy(host.data(), out.get(), host.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int b = 0; b < kBlocks; ++b) {
      EXPECT_TRUE(same_bits(host[3 * b + 1], host[3 * b])) << "block " << b << ": full tree "
          << show(host[3 * b + 1]) << " vs prefix tree " << show(host[3 * b]);
      order_shows += !same_bits(host[3 * b + 2], host[3 * b]);
    }
  }
  EXPECT_GT(order_shows, 0) << "no block's sum depends on the order: the inputs cannot tell trees apart";
}

// fold_partials_in_warp (two_kernel's one-warp second kernel) must give lane 0 the bits of the
// block fold it restates: BLOCK threads, thread t holding partial t for t < count, then
// block_reduce_shuffle over those count threads. Every count from 1 to BLOCK, for each block size
// the kernel is built for; random floats, and a sequential order that must differ somewhere.
template <int BLOCK>
__global__ void block_fold_of_partials(const float* in, float* out) {
  extern __shared__ float warp_totals[];
  const int count = int(blockIdx.x) + 1;
  const float* partials = in + std::int64_t(blockIdx.x) * BLOCK;
  float mine = 0.0f;
  if (int(threadIdx.x) < count) mine = partials[threadIdx.x];
  const float total = detail::block_reduce_shuffle(mine, count, detail::SumOp{}, warp_totals);
  if (threadIdx.x == 0) {
    float sequential = 0.0f;
    for (int i = 0; i < count; ++i) sequential += partials[i];
    out[3 * blockIdx.x] = total;
    out[3 * blockIdx.x + 2] = sequential;
  }
}
template <int BLOCK>
__global__ void warp_fold_of_partials(const float* in, float* out) {
  const int count = int(blockIdx.x) + 1;
  const detail::PartialsReader<float> read{in + std::int64_t(blockIdx.x) * BLOCK};
  const float total = detail::fold_partials_in_warp<BLOCK>(read, count, detail::SumOp{});
  if (threadIdx.x == 0) out[3 * blockIdx.x + 1] = total;
}
template <int BLOCK>
void check_warp_fold(int& order_shows) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("block " + std::to_string(BLOCK) + " seed " + std::to_string(seed));
  DeviceBuffer<float> in{std::size_t(BLOCK) * BLOCK}, out{3 * std::size_t(BLOCK)};
  ASSERT_TRUE(in.ok() && out.ok());
  CUDA_OK(fill_random(in.get(), std::int64_t(BLOCK) * BLOCK, seed, Fill::random));
  CUDA_OK(cudaMemset(out.get(), kPoisonByte, 3 * BLOCK * sizeof(float)));
  block_fold_of_partials<BLOCK><<<BLOCK, BLOCK, (BLOCK / 32) * sizeof(float)>>>(in.get(), out.get());
  CUDA_OK(cudaGetLastError());
  warp_fold_of_partials<BLOCK><<<BLOCK, 32>>>(in.get(), out.get());
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<float> host(3 * BLOCK);
  CUDA_OK(cudaMemcpy(host.data(), out.get(), host.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (int c = 0; c < BLOCK; ++c) {
    EXPECT_TRUE(same_bits(host[3 * c + 1], host[3 * c])) << c + 1 << " partials: one warp "
        << show(host[3 * c + 1]) << " vs the block " << show(host[3 * c]);
    order_shows += !same_bits(host[3 * c + 2], host[3 * c]);
  }
}
TEST(Automatic, WarpFoldHasTheBlockFoldsBits) {
  REQUIRE_GPU();
  int order_shows = 0;
  check_warp_fold<128>(order_shows);
  check_warp_fold<256>(order_shows);
  check_warp_fold<512>(order_shows);
  EXPECT_GT(order_shows, 0) << "no count's sum depends on the order: the inputs cannot tell folds apart";
}

// The zeroed streaming plan is half the room its kernel (reduce_last_block_kernel) has on a
// multiprocessor: inside graphs, grids that filled 3 of 4 places took 1.2-1.9x the time of 2 of 4,
// and 2 of 3 (f64 Min/Max) 1.33x CUB's (policy.hpp). The room comes from the kernel's register
// count, which any change to the rung, the operator or the epilogue can move, as changes did
// during issue 4. So, for every shipped type and operation: the plan is half the room the launched
// kernel has, and for every shipped sum that room is still four (32 registers), which gives the
// measured best, two per multiprocessor. A test, not a hope.
template <class C>
void check_zeroed_streaming_room() {
  using In = typename C::In;
  using Out = typename C::Out;
  // The operator and init type as DeviceReduce::Sum, Min and Max build their problem.
  using Operator = std::conditional_t<
      C::op == Op::sum, detail::sum_op_t<In, Out>,
      std::conditional_t<C::op == Op::min, detail::MinOp, detail::MaxOp>>;
  using Accum = detail::accum_t<Operator, Out, In>;
  using P = detail::Problem<detail::InputReader<In, Accum>, Out, Accum, Operator, Out>;
  constexpr int kThreads = detail::kAutomaticStreamingBlockThreads;
  const auto kernel = detail::shape_kernel_for<detail::VectorizedRung, P>(
      detail::ShapeKernel::last_block, kThreads);
  ASSERT_NE(kernel, nullptr);
  int room = 0, sms = 0, l2_bytes = 0;
  CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &room, reinterpret_cast<const void*>(kernel), kThreads,
      detail::VectorizedRung::shared_bytes(kThreads, sizeof(typename P::Accum))));
  CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CUDA_OK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, 0));
  // An input past the streaming threshold (half the L2); a plan reads no memory.
  const std::int64_t n = std::int64_t(l2_bytes) / std::int64_t(sizeof(In)) + 1;
  Options zeroed;
  zeroed.temp_storage_zeroed = true;
  LaunchPlan plan;
  ASSERT_TRUE(C::plan(plan, nullptr, n, zeroed) == cudaSuccess) << last_error_message();
  EXPECT_EQ(plan.block_threads, kThreads) << C::name();
  EXPECT_EQ(plan.grid_blocks, (room >= 2 ? room / 2 : 1) * sms)
      << C::name() << ": the shaped last_block kernel fits " << room
      << " blocks per multiprocessor; the zeroed streaming plan must take half of them";
  EXPECT_LE(2 * (plan.grid_blocks / sms), room) << C::name() << ": a part-filled wave";
  if (C::op == Op::sum)
    EXPECT_EQ(room, 4) << C::name() << ": the shaped last_block kernel fits " << room
                       << " blocks of 512 per multiprocessor, not 4 (more than 32 registers?)";
}

TEST(Automatic, ZeroedStreamingGridIsHalfTheShapedKernelsRoomFloat) { REQUIRE_GPU(); check_zeroed_streaming_room<Case<float, float, Op::sum>>(); }
TEST(Automatic, ZeroedStreamingGridIsHalfTheShapedKernelsRoomDouble) { REQUIRE_GPU(); check_zeroed_streaming_room<Case<double, double, Op::sum>>(); }
TEST(Automatic, ZeroedStreamingGridIsHalfTheShapedKernelsRoomInt32) { REQUIRE_GPU(); check_zeroed_streaming_room<Case<std::int32_t, std::int32_t, Op::sum>>(); }
TEST(Automatic, ZeroedStreamingGridIsHalfTheShapedKernelsRoomInt64) { REQUIRE_GPU(); check_zeroed_streaming_room<Case<std::int64_t, std::int64_t, Op::sum>>(); }
TEST(Automatic, ZeroedStreamingGridIsHalfTheShapedKernelsRoomUint32) { REQUIRE_GPU(); check_zeroed_streaming_room<Case<std::uint32_t, std::uint32_t, Op::sum>>(); }
TEST(Automatic, ZeroedStreamingGridIsHalfTheShapedKernelsRoomUint64) { REQUIRE_GPU(); check_zeroed_streaming_room<Case<std::uint64_t, std::uint64_t, Op::sum>>(); }
TEST(Automatic, ZeroedStreamingGridIsHalfTheShapedKernelsRoomHalf) { REQUIRE_GPU(); check_zeroed_streaming_room<Case<__half, float, Op::sum>>(); }
TEST(Automatic, ZeroedStreamingGridIsHalfTheShapedKernelsRoomBfloat16) { REQUIRE_GPU(); check_zeroed_streaming_room<Case<__nv_bfloat16, float, Op::sum>>(); }
template <class T>
void check_zeroed_streaming_room_min_max() {
  check_zeroed_streaming_room<Case<T, T, Op::min>>();
  check_zeroed_streaming_room<Case<T, T, Op::max>>();
}
TEST(Automatic, ZeroedStreamingGridIsHalfTheShapedKernelsRoomMinMax) {
  REQUIRE_GPU();
  check_zeroed_streaming_room_min_max<float>();
  check_zeroed_streaming_room_min_max<double>();
  check_zeroed_streaming_room_min_max<std::int32_t>();
  check_zeroed_streaming_room_min_max<std::uint32_t>();
  check_zeroed_streaming_room_min_max<std::int64_t>();
  check_zeroed_streaming_room_min_max<std::uint64_t>();
  check_zeroed_streaming_room_min_max<__half>();
  check_zeroed_streaming_room_min_max<__nv_bfloat16>();
}

// grid_sync must never ask for more blocks than can be resident at once (the cooperative launch
// would fail): every strategy, the smallest and largest block sizes, an absurd grid_blocks bound.
TEST(GridSync, GridNeverExceedsOneWave) {
  REQUIRE_GPU();
  using C = Case<float, float, Op::sum>;
  if (!device_limits().cooperative) GTEST_SKIP() << "device cannot launch cooperatively";
  const std::int64_t n = capped({(1 << 22) + 3}).empty() ? 100003 : (1 << 22) + 3;
  const std::uint64_t seed = fresh_seed();
  DeviceBuffer<float> buffer{std::size_t(n)};
  CUDA_OK(fill_random(buffer.get(), n, seed, Fill::small_integers));
  DeviceBuffer<float> d_ref(1);
  CUDA_OK(C::cub(buffer.get(), d_ref.get(), n));
  const float cub_result = copy_to_host(d_ref.get());
  for (Strategy strategy : kAllStrategies) {
    for (int threads : {0, 32, 1024}) {
      if (strategy == Strategy::cub_block && threads != 0) continue;
      const Options options{strategy, Pipeline::grid_sync, threads, 1 << 30};
      SCOPED_TRACE(describe(options, n, 0, seed));
      float result{};
      ASSERT_TRUE(run_gpureduce<C>(buffer.get(), n, options, result));
      EXPECT_TRUE(same_bits(result, cub_result)) << show(result) << " vs CUB " << show(cub_result);
    }
  }
}

// The cluster pipeline: every strategy, the smallest and largest block sizes, an absurd grid bound;
// the grid must stay one schedulable cluster (else the launch fails) and the answer CUB's.
TEST(Cluster, AnyStrategyAnyBlockSizeIsOneSchedulableCluster) {
  REQUIRE_GPU();
  using C = Case<float, float, Op::sum>;
  if (!device_limits().clusters) GTEST_SKIP() << "device has no thread-block clusters";
  for (std::int64_t n : capped({std::int64_t(100003), (std::int64_t(1) << 22) + 3})) {
    const std::uint64_t seed = fresh_seed();
    DeviceBuffer<float> buffer{std::size_t(n + 1)};
    CUDA_OK(fill_random(buffer.get(), n + 1, seed, Fill::small_integers));
    DeviceBuffer<float> d_ref(1);
    CUDA_OK(C::cub(buffer.get() + 1, d_ref.get(), n));
    const float cub_result = copy_to_host(d_ref.get());
    for (Strategy strategy : kAllStrategies) {
      for (int threads : {0, 32, 1024}) {
        if (strategy == Strategy::cub_block && threads != 0) continue;
        const Options options{strategy, Pipeline::cluster, threads, 1 << 30};
        SCOPED_TRACE(describe(options, n, 1, seed));
        LaunchPlan plan;
        ASSERT_EQ(C::plan(plan, buffer.get() + 1, n, options), cudaSuccess) << last_error_message();
        EXPECT_LE(plan.grid_blocks, 16);
        float result{};
        ASSERT_TRUE(run_gpureduce<C>(buffer.get() + 1, n, options, result));
        EXPECT_TRUE(same_bits(result, cub_result)) << show(result) << " vs CUB " << show(cub_result);
      }
    }
  }
}

}  // namespace
}  // namespace gpureduce::testing
