// The engine's matrix: every strategy x pipeline x shipped (type, operation) on the engine's sizes,
// aligned and at d_in + 1, on fresh random data, with poisoned outputs.
//   - integers and Min/Max: bitwise equal to cub::DeviceReduce and thrust::reduce;
//   - floating sums on small integers (every partial sum exact): bitwise equal to both;
//   - floating sums on random values: within a proven bound of the exact sum (below).
#include <cmath>

#include "gpu/common.cuh"

namespace gpureduce::testing {
namespace {

// Error bound for a floating sum computed in any order by our kernels: |computed - exact| <=
// depth * u * sum|x|, where depth bounds the additions on any path from an element to the result
// (each addition's rounding error is at most u times the magnitude of its result, which is at most
// sum|x|). Our paths: a thread folds at most ceil(n / (grid * block)) elements per
// vector/load group (x 16 items per vector), the block tree adds log2(block) levels, the partials
// pass adds ceil(grid / block) + log2(block) more, and the atomic and cluster pipelines fold up to
// `grid` partials in sequence.
double sum_error_bound(std::int64_t n, const LaunchPlan& plan, double unit_roundoff, double abs_sum) {
  const double per_thread = std::ceil(double(n) / (double(plan.grid_blocks) * plan.block_threads));
  const double levels = std::log2(double(plan.block_threads)) + 1;
  const double partials = (plan.pipeline == Pipeline::atomic || plan.pipeline == Pipeline::cluster)
                              ? double(plan.grid_blocks)
                              : std::ceil(double(plan.grid_blocks) / plan.block_threads) + levels;
  const double depth = 16 * (per_thread + 1) + 2 * levels + partials + 8;
  return depth * unit_roundoff * abs_sum;
}

template <class T>
double unit_roundoff() {
  if constexpr (std::is_same_v<T, double>) return std::ldexp(1.0, -53);
  else return std::ldexp(1.0, -24);  // float accumulators (also for half/bf16 inputs)
}

template <class C>
class Matrix {
 public:
  using In = typename C::In;
  using Out = typename C::Out;

  // One pipeline: every size, both alignments, fresh data, every strategy.
  void run_pipeline(Pipeline pipeline) {
    REQUIRE_GPU();
    constexpr bool kFloatSum = C::op == Op::sum && is_floating_v<Out>;
    const std::vector<Fill> fills = kFloatSum ? std::vector<Fill>{Fill::small_integers, Fill::random}
                                              : std::vector<Fill>{Fill::random};
    for (std::int64_t n : engine_sizes()) {
      for (int offset : {0, 1}) {
        for (Fill fill : fills) {
          const std::uint64_t seed = fresh_seed();
          DeviceBuffer<In> buffer{std::size_t(n + offset + 1)};
          ASSERT_TRUE(buffer.ok());
          CUDA_OK(fill_random(buffer.get(), n + offset + 1, seed, fill));
          const In* d_in = buffer.get() + offset;
          DeviceBuffer<Out> d_ref(1);
          CUDA_OK(C::cub(d_in, d_ref.get(), n));
          const Out cub_result = copy_to_host(d_ref.get());
          const Out thrust_result = C::thrust_reduce(d_in, n);
          const bool exact_expected = !kFloatSum || fill == Fill::small_integers;
          if (exact_expected)
            ASSERT_TRUE(same_bits(cub_result, thrust_result)) << "CUB and Thrust disagree: n=" << n;

          // Exact reference for random floating sums, from the generator's integers.
          long double exact = 0, abs_sum = 0;
          if constexpr (kFloatSum) {
            if (fill == Fill::random) {
              __int128 k_sum = 0, k_abs = 0;
              for (std::int64_t i = 0; i < n; ++i) {
                const std::int64_t k = fixed_point_k(seed, i + offset, FixedPoint<In>::kBits, fill);
                k_sum += k;
                k_abs += k < 0 ? -k : k;
              }
              exact = (long double)k_sum * FixedPoint<In>::kScale;
              abs_sum = (long double)k_abs * FixedPoint<In>::kScale;
            }
          }

          std::vector<Strategy> strategies(std::begin(kAllStrategies), std::end(kAllStrategies));
          strategies.push_back(Strategy::automatic);  // its own grid rule, with this pipeline
          for (Strategy strategy : strategies) {
            const Options options{strategy, pipeline};
            SCOPED_TRACE(C::name() + " " + describe(options, n, offset, seed));
            Out result{};
            ASSERT_TRUE(run_gpureduce<C>(d_in, n, options, result));
            if (exact_expected) {
              EXPECT_TRUE(same_bits(result, cub_result))
                  << "gpureduce " << show(result) << " vs CUB " << show(cub_result);
            } else {
              LaunchPlan plan;
              ASSERT_EQ(C::plan(plan, d_in, n, options), cudaSuccess) << last_error_message();
              const double bound = sum_error_bound(n, plan, unit_roundoff<Out>(), double(abs_sum));
              const double error = std::fabs(double(as_long_double(result) - exact));
              EXPECT_LE(error, bound) << "result " << show(result) << " exact " << double(exact);
            }
          }
        }
      }
    }
  }
};

// One test per (case, pipeline), named Matrix_<Op>_<In>[_<Out>].<Pipeline>, so CTest can run
// them in parallel and a failure names its case.
#define GPUREDUCE_MATRIX_TESTS(NAME, ...)                                                   \
  TEST(Matrix_##NAME, TwoKernel) { Matrix<__VA_ARGS__>().run_pipeline(Pipeline::two_kernel); } \
  TEST(Matrix_##NAME, LastBlock) { Matrix<__VA_ARGS__>().run_pipeline(Pipeline::last_block); } \
  TEST(Matrix_##NAME, Atomic) { Matrix<__VA_ARGS__>().run_pipeline(Pipeline::atomic); }      \
  TEST(Matrix_##NAME, GridSync) { Matrix<__VA_ARGS__>().run_pipeline(Pipeline::grid_sync); } \
  TEST(Matrix_##NAME, Cluster) { Matrix<__VA_ARGS__>().run_pipeline(Pipeline::cluster); }

GPUREDUCE_MATRIX_TESTS(Sum_int32, Case<std::int32_t, std::int32_t, Op::sum>)
GPUREDUCE_MATRIX_TESTS(Sum_uint32, Case<std::uint32_t, std::uint32_t, Op::sum>)
GPUREDUCE_MATRIX_TESTS(Sum_int64, Case<std::int64_t, std::int64_t, Op::sum>)
GPUREDUCE_MATRIX_TESTS(Sum_uint64, Case<std::uint64_t, std::uint64_t, Op::sum>)
GPUREDUCE_MATRIX_TESTS(Sum_float, Case<float, float, Op::sum>)
GPUREDUCE_MATRIX_TESTS(Sum_double, Case<double, double, Op::sum>)
GPUREDUCE_MATRIX_TESTS(Sum_half_float, Case<__half, float, Op::sum>)
GPUREDUCE_MATRIX_TESTS(Sum_bfloat16_float, Case<__nv_bfloat16, float, Op::sum>)
GPUREDUCE_MATRIX_TESTS(Min_int32, Case<std::int32_t, std::int32_t, Op::min>)
GPUREDUCE_MATRIX_TESTS(Min_uint32, Case<std::uint32_t, std::uint32_t, Op::min>)
GPUREDUCE_MATRIX_TESTS(Min_int64, Case<std::int64_t, std::int64_t, Op::min>)
GPUREDUCE_MATRIX_TESTS(Min_uint64, Case<std::uint64_t, std::uint64_t, Op::min>)
GPUREDUCE_MATRIX_TESTS(Min_float, Case<float, float, Op::min>)
GPUREDUCE_MATRIX_TESTS(Min_double, Case<double, double, Op::min>)
GPUREDUCE_MATRIX_TESTS(Min_half, Case<__half, __half, Op::min>)
GPUREDUCE_MATRIX_TESTS(Min_bfloat16, Case<__nv_bfloat16, __nv_bfloat16, Op::min>)
GPUREDUCE_MATRIX_TESTS(Max_int32, Case<std::int32_t, std::int32_t, Op::max>)
GPUREDUCE_MATRIX_TESTS(Max_uint32, Case<std::uint32_t, std::uint32_t, Op::max>)
GPUREDUCE_MATRIX_TESTS(Max_int64, Case<std::int64_t, std::int64_t, Op::max>)
GPUREDUCE_MATRIX_TESTS(Max_uint64, Case<std::uint64_t, std::uint64_t, Op::max>)
GPUREDUCE_MATRIX_TESTS(Max_float, Case<float, float, Op::max>)
GPUREDUCE_MATRIX_TESTS(Max_double, Case<double, double, Op::max>)
GPUREDUCE_MATRIX_TESTS(Max_half, Case<__half, __half, Op::max>)
GPUREDUCE_MATRIX_TESTS(Max_bfloat16, Case<__nv_bfloat16, __nv_bfloat16, Op::max>)

// Block sizes and capped grids: every strategy x pipeline with each legal block size (cub_block:
// its policy's) and with grids forced down to 1 and 3 blocks, so blocks loop over many tiles.
template <class C>
void sweep_block_and_grid(Fill fill) {
  using In = typename C::In;
  using Out = typename C::Out;
  for (std::int64_t n : capped({1, 33, 1000, 65537, (1 << 20) + 7})) {
    for (int offset : {0, 1}) {
      const std::uint64_t seed = fresh_seed();
      DeviceBuffer<In> buffer{std::size_t(n + offset)};
      ASSERT_TRUE(buffer.ok());
      CUDA_OK(fill_random(buffer.get(), n + offset, seed, fill));
      const In* d_in = buffer.get() + offset;
      DeviceBuffer<Out> d_ref(1);
      CUDA_OK(C::cub(d_in, d_ref.get(), n));
      const Out cub_result = copy_to_host(d_ref.get());
      for (Strategy strategy : kAllStrategies) {
        for (Pipeline pipeline : kAllPipelines) {
          std::vector<Options> variants;
          for (int threads : {32, 64, 128, 512, 1024})
            if (strategy != Strategy::cub_block) variants.push_back({strategy, pipeline, threads, 0});
          for (int grid : {1, 3}) variants.push_back({strategy, pipeline, 0, grid});
          Options zeroed{strategy, pipeline};
          zeroed.temp_storage_zeroed = true;
          variants.push_back(zeroed);
          for (const Options& options : variants) {
            SCOPED_TRACE(C::name() + " " + describe(options, n, offset, seed));
            Out result{};
            ASSERT_TRUE(run_gpureduce<C>(d_in, n, options, result));
            EXPECT_TRUE(same_bits(result, cub_result))
                << "gpureduce " << show(result) << " vs CUB " << show(cub_result);
          }
        }
      }
    }
  }
}

TEST(BlockAndGrid, FloatSumSmallIntegers) {
  REQUIRE_GPU();
  sweep_block_and_grid<Case<float, float, Op::sum>>(Fill::small_integers);
}
TEST(BlockAndGrid, Int64SumRandom) {
  REQUIRE_GPU();
  sweep_block_and_grid<Case<std::int64_t, std::int64_t, Op::sum>>(Fill::random);
}
TEST(BlockAndGrid, HalfMaxRandom) {
  REQUIRE_GPU();
  sweep_block_and_grid<Case<__half, __half, Op::max>>(Fill::random);
}

}  // namespace
}  // namespace gpureduce::testing
