// `automatic` (issue 4): the plan follows the documented rules of detail/policy.hpp on this device,
// and the answers stay CUB's around the rules' boundaries. Speed is the benchmarks' business.
#include <cmath>

#include "gpu/common.cuh"

namespace gpureduce::testing {
namespace {

struct DeviceLimits {
  int multiprocessors = 0;
  bool cooperative = false;
  bool clusters = false;  // compute capability 9.0+
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
  return limits;
}

// The rule, restated independently of the library: ceil(sqrt(bytes / 256)).
std::int64_t sqrt_rule(std::int64_t bytes) {
  std::int64_t g = std::int64_t(std::sqrt(double(bytes) / 256.0));
  while (g * g * 256 < bytes) ++g;
  return g;
}

template <class C>
void check_plans() {
  using In = typename C::In;
  const DeviceLimits limits = device_limits();
  const In* aligned = reinterpret_cast<const In*>(std::uintptr_t(1) << 20);  // only its alignment is read
  const std::int64_t one_block_items = 64 * 1024 / std::int64_t(sizeof(In));
  const std::int64_t cluster_items = 512 * 1024 / std::int64_t(sizeof(In));
  for (std::int64_t n : {std::int64_t(0), std::int64_t(1), one_block_items - 1, one_block_items,
                         one_block_items + 1, cluster_items, cluster_items + 1,
                         std::int64_t(1) << 20, std::int64_t(1) << 24,
                         (std::int64_t(1) << 30) + 3}) {
    for (bool zeroed : {false, true}) {
      Options options;
      options.temp_storage_zeroed = zeroed;
      LaunchPlan plan;
      ASSERT_EQ(C::plan(plan, aligned, n, options), cudaSuccess) << last_error_message();
      SCOPED_TRACE(C::name() + " n=" + std::to_string(n) + (zeroed ? " zeroed: " : ": ") + gpureduce::describe(plan));
      EXPECT_EQ(plan.strategy, Strategy::vectorized);
      EXPECT_STRNE(plan.rationale, "");
      const bool cluster_range = n > one_block_items && n <= cluster_items && limits.clusters;
      const Pipeline expected_pipeline =
          cluster_range ? Pipeline::cluster
                        : (zeroed ? Pipeline::last_block
                                  : (limits.cooperative ? Pipeline::grid_sync : Pipeline::last_block));
      EXPECT_EQ(plan.pipeline, expected_pipeline);
      if (n <= one_block_items) {
        EXPECT_EQ(plan.grid_blocks, 1);
        EXPECT_EQ(plan.block_threads, 512);
        EXPECT_EQ(plan.launches, 1);
        continue;
      }
      EXPECT_EQ(plan.block_threads, 256);
      if (cluster_range) {  // one cluster: 8 blocks are always schedulable on sm_90, 16 at most
        EXPECT_LE(plan.grid_blocks, 16);
        EXPECT_GE(plan.grid_blocks, 8);
        EXPECT_EQ(plan.launches, 1);
        continue;
      }
      const std::int64_t rule = sqrt_rule(n * std::int64_t(sizeof(In)));
      const std::int64_t vectors = n * std::int64_t(sizeof(In)) / 16;
      const std::int64_t useful = (vectors + plan.block_threads - 1) / plan.block_threads;
      const std::int64_t expected = std::min(rule, useful);
      // One wave is at least one block per multiprocessor; where the rule is below that, it rules.
      if (expected <= limits.multiprocessors) EXPECT_EQ(plan.grid_blocks, expected);
      else EXPECT_LE(plan.grid_blocks, expected);
      EXPECT_GE(plan.grid_blocks, std::min<std::int64_t>(expected, limits.multiprocessors));
      // Only the memset-backed fallback (no cooperative launch, storage not zeroed) launches twice.
      EXPECT_EQ(plan.launches, (!zeroed && !limits.cooperative) ? 2 : 1);
    }
  }
}

TEST(Automatic, PlansFollowTheRulesFloat) { REQUIRE_GPU(); check_plans<Case<float, float, Op::sum>>(); }
TEST(Automatic, PlansFollowTheRulesDouble) { REQUIRE_GPU(); check_plans<Case<double, double, Op::sum>>(); }
TEST(Automatic, PlansFollowTheRulesInt32) { REQUIRE_GPU(); check_plans<Case<std::int32_t, std::int32_t, Op::sum>>(); }
TEST(Automatic, PlansFollowTheRulesHalf) { REQUIRE_GPU(); check_plans<Case<__half, float, Op::sum>>(); }

// Around every boundary the rules draw (one block / many, grid = rule / one wave), aligned and at
// d_in + 1, zeroed or not: bitwise CUB on small integers (every partial sum exact).
template <class C>
void check_answers() {
  using In = typename C::In;
  using Out = typename C::Out;
  const std::int64_t one_block_items = 64 * 1024 / std::int64_t(sizeof(In));
  const std::int64_t cluster_items = 512 * 1024 / std::int64_t(sizeof(In));
  for (std::int64_t n : capped({one_block_items - 1, one_block_items, one_block_items + 1,
                                one_block_items + 7, 3 * one_block_items + 5, cluster_items,
                                cluster_items + 1, (1 << 22) + 9, (1 << 26) + 1})) {
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
