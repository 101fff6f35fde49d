// Seeded fuzzing against CUB: 10,000 random cases (n up to 2^26, log-uniform so small sizes get
// their share; start offset 0-15 elements; strategy, pipeline, block size, grid cap, fast path,
// type and operation), zero mismatches allowed. Floating sums use small integers, so every order
// is exact and the comparison is bitwise. On failure the seed and case are printed; replay with
// GPUREDUCE_FUZZ_SEED=<seed> (GPUREDUCE_FUZZ_CASES changes the count).
#include <cmath>
#include <functional>
#include <iterator>
#include <random>

#include "gpu/common.cuh"

namespace gpureduce::testing {
namespace {

constexpr std::int64_t kMaxItems = std::int64_t(1) << 26;
constexpr int kMaxOffset = 15;

struct FuzzCase {
  std::int64_t n;
  int offset;
  Options options;
  std::uint64_t data_seed;
};

// One (type, operation): keeps a buffer big enough for any case, runs CUB and gpureduce.
template <class C>
struct FuzzTarget {
  using In = typename C::In;
  using Out = typename C::Out;
  DeviceBuffer<In> buffer;
  DeviceBuffer<Out> reference{1};

  ::testing::AssertionResult run(const FuzzCase& c) {
    if (buffer.size() == 0) buffer.resize(std::size_t(kMaxItems + kMaxOffset + 1));
    if (!buffer.ok()) return ::testing::AssertionFailure() << "allocation failed";
    const Fill fill = (C::op == Op::sum && is_floating_v<Out>) ? Fill::small_integers : Fill::random;
    cudaError_t e = fill_random(buffer.get(), c.n + c.offset, c.data_seed, fill);
    if (e != cudaSuccess) return ::testing::AssertionFailure() << "fill: " << cudaGetErrorString(e);
    const In* d_in = buffer.get() + c.offset;
    if ((e = C::cub(d_in, reference.get(), c.n)) != cudaSuccess)
      return ::testing::AssertionFailure() << "CUB: " << cudaGetErrorString(e);
    const Out expected = copy_to_host(reference.get());
    Out result{};
    ::testing::AssertionResult ran = run_gpureduce<C>(d_in, c.n, c.options, result);
    if (!ran) return ran;
    if (!same_bits(result, expected))
      return ::testing::AssertionFailure() << "gpureduce " << show(result) << " vs CUB " << show(expected);
    return ::testing::AssertionSuccess();
  }
};

FuzzCase draw_case(std::mt19937_64& rng) {
  FuzzCase c;
  std::uniform_real_distribution<double> log_size(0.0, std::log(double(kMaxItems)));
  std::uniform_int_distribution<int> percent(0, 99);
  const int edge = percent(rng);
  if (edge < 5) c.n = std::uniform_int_distribution<std::int64_t>(0, 3)(rng);
  else c.n = std::min<std::int64_t>(kMaxItems, std::int64_t(std::exp(log_size(rng))));
  c.offset = std::uniform_int_distribution<int>(0, kMaxOffset)(rng);
  const int strategies = int(std::size(kAllStrategies));
  const int s = std::uniform_int_distribution<int>(0, strategies)(rng);  // == strategies: automatic
  c.options.strategy = s == strategies ? Strategy::automatic : kAllStrategies[s];
  const int pipelines = int(std::size(kAllPipelines));
  const int p = std::uniform_int_distribution<int>(0, pipelines)(rng);  // == pipelines: automatic
  c.options.pipeline = p == pipelines ? Pipeline::automatic : kAllPipelines[p];
  const int threads = std::uniform_int_distribution<int>(0, 6)(rng);  // 0: default, else 2^(4+k)
  if (c.options.strategy != Strategy::cub_block && threads > 0) c.options.block_threads = 16 << threads;
  if (percent(rng) < 30) c.options.grid_blocks = std::uniform_int_distribution<int>(1, 5000)(rng);
  c.options.temp_storage_zeroed = percent(rng) < 30;
  c.data_seed = rng();
  return c;
}

TEST(Fuzz, TenThousandCasesAgainstCub) {
  REQUIRE_GPU();
  const char* seed_text = std::getenv("GPUREDUCE_FUZZ_SEED");
  const std::uint64_t seed = seed_text ? std::strtoull(seed_text, nullptr, 10) : fresh_seed();
  const char* cases_text = std::getenv("GPUREDUCE_FUZZ_CASES");
  const int cases = cases_text ? std::atoi(cases_text) : 10000;
  std::printf("fuzz seed %llu, %d cases (replay: GPUREDUCE_FUZZ_SEED=%llu)\n",
              (unsigned long long)seed, cases, (unsigned long long)seed);

  FuzzTarget<Case<std::int32_t, std::int32_t, Op::sum>> sum_i32;
  FuzzTarget<Case<std::uint64_t, std::uint64_t, Op::sum>> sum_u64;
  FuzzTarget<Case<float, float, Op::sum>> sum_f32;
  FuzzTarget<Case<double, double, Op::sum>> sum_f64;
  FuzzTarget<Case<__half, float, Op::sum>> sum_f16;
  FuzzTarget<Case<std::int64_t, std::int64_t, Op::min>> min_i64;
  FuzzTarget<Case<float, float, Op::min>> min_f32;
  FuzzTarget<Case<__nv_bfloat16, __nv_bfloat16, Op::max>> max_bf16;
  FuzzTarget<Case<double, double, Op::max>> max_f64;
  FuzzTarget<Case<std::uint32_t, std::uint32_t, Op::max>> max_u32;
  const std::vector<std::pair<const char*, std::function<::testing::AssertionResult(const FuzzCase&)>>> targets = {
      {"Sum<int32>", [&](const FuzzCase& c) { return sum_i32.run(c); }},
      {"Sum<uint64>", [&](const FuzzCase& c) { return sum_u64.run(c); }},
      {"Sum<float>", [&](const FuzzCase& c) { return sum_f32.run(c); }},
      {"Sum<double>", [&](const FuzzCase& c) { return sum_f64.run(c); }},
      {"Sum<half,float>", [&](const FuzzCase& c) { return sum_f16.run(c); }},
      {"Min<int64>", [&](const FuzzCase& c) { return min_i64.run(c); }},
      {"Min<float>", [&](const FuzzCase& c) { return min_f32.run(c); }},
      {"Max<bfloat16>", [&](const FuzzCase& c) { return max_bf16.run(c); }},
      {"Max<double>", [&](const FuzzCase& c) { return max_f64.run(c); }},
      {"Max<uint32>", [&](const FuzzCase& c) { return max_u32.run(c); }},
  };

  std::mt19937_64 rng(seed);
  int mismatches = 0;
  for (int i = 0; i < cases; ++i) {
    const std::size_t target = std::uniform_int_distribution<std::size_t>(0, targets.size() - 1)(rng);
    const FuzzCase c = draw_case(rng);
    const ::testing::AssertionResult ok = targets[target].second(c);
    if (!ok) {
      ++mismatches;
      ADD_FAILURE() << "fuzz seed " << seed << " case " << i << ": " << targets[target].first << " "
                    << describe(c.options, c.n, c.offset, c.data_seed) << ": " << ok.message();
      if (mismatches >= 20) break;
    }
  }
  EXPECT_EQ(mismatches, 0) << "fuzz seed " << seed;
}

}  // namespace
}  // namespace gpureduce::testing
