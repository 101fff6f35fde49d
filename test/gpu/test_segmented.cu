// DeviceSegmentedReduce against cub::DeviceSegmentedReduce (CCCL 3.0.1) and exact host sums:
//   - integer sums (int32, int64, uint32, uint64; full-range values, so they wrap), Min and Max of
//     float, double, int32 and __half, ArgMin and ArgMax of float and int32 (on integers in [-3, 3]:
//     ties everywhere, the first index must win): bitwise CUB's, every standard shape (all empty,
//     all size 1, sizes 1-32, 256-4K, every class boundary of the type, power-law sizes, unsorted,
//     overlapping, every class mixed), default Options and zeroed storage;
//   - float, double and half -> float sums of small integers (every sum exact): bitwise CUB's;
//     of random k * 2^-24 values: within depth * u * sum |x| of the exact sum (128-bit integers);
//   - the large shapes: one huge segment among a million tiny ones, a few of 10M+, 2^24 segments,
//     one segment of 2^31 + 17 items, 2^31+ items in all through overlapping segments and as two
//     fixed-size segments (skipped where GPUREDUCE_TEST_MAX_N or the memory says so);
//   - fixed-size segments against CUB with counting-iterator offsets, and bitwise equal to the
//     offsets call on the same segments;
//   - determinism: a segment's bits do not depend on the grid, the order of the offsets, the
//     other segments, the temp storage's state, or whether its chunks ran on one block or many
//     (order-free operators' whole segments in one stream: as split, NaN included);
//   - a few segments (at most 256: no classify pass) give the bits of the general path, and so
//     does direct_kernel (up to 2^18 segments: no classify pass), and every standard shape runs
//     both;
//   - the zeroed-storage promise: a call leaves every byte zero, and DeviceReduce runs on it after;
//   - bad input: cudaErrorInvalidValue, a message, outputs untouched; end < begin likewise (with
//     the pointer check; without it nothing written and the next call fine); a CUDA graph.
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <limits>

#include "gpu/segmented_common.cuh"

namespace gpureduce::testing {
namespace {

Options zeroed_options() {
  Options o;
  o.temp_storage_zeroed = true;
  return o;
}

// For a scope, one of the library's test hooks (detail/segmented/state.cuh) set to `value`, then
// restored: few_segments_limit (0 sends every offsets call through the general path),
// direct_segments_limit (0: classify, never direct_kernel, in the general path), whole_chunks_limit,
// split_table_limit.
class ScopedHook {
 public:
  ScopedHook(std::int64_t& hook, std::int64_t value) : hook_(hook), saved_(hook) { hook_ = value; }
  ~ScopedHook() { hook_ = saved_; }
  ScopedHook(const ScopedHook&) = delete;
  ScopedHook& operator=(const ScopedHook&) = delete;

 private:
  std::int64_t& hook_;
  const std::int64_t saved_;
};

// Our call and CUB's on one shape, with fresh input, compared bitwise.
template <class C>
void expect_cub_bits(const SegmentList& s, Fill fill, const Options& options, std::uint64_t seed) {
  SCOPED_TRACE(trace(C::name(), s, seed));
  DeviceBuffer<typename C::In> input(std::size_t(std::max<std::int64_t>(s.span, 1)));
  DeviceSegments<std::int64_t> offsets(s);
  ASSERT_TRUE(input.ok() && offsets.ok());
  CUDA_OK(fill_random(input.get(), s.span, seed, fill));
  std::vector<typename C::Out> ours;
  std::vector<typename C::CubOut> cub;
  ASSERT_TRUE(run_ours<C>(input.get(), s.size(), offsets.begin(), offsets.end(), -1, options, ours));
  ASSERT_TRUE(run_cub<C>(input.get(), s.size(), offsets.begin(), offsets.end(), cub));
  EXPECT_TRUE(same_as_cub<C>(ours, cub, &s));
}

template <class C>
void expect_cub_bits_on_standard_shapes(Fill fill) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  for (const SegmentList& s : standard_shapes<typename C::In>(seed)) {
    expect_cub_bits<C>(s, fill, Options{}, fresh_seed());
    expect_cub_bits<C>(s, fill, zeroed_options(), fresh_seed());
    // Up to 2^18 segments the calls above ran direct_kernel; classify too.
    ScopedHook classify(detail::segmented::direct_segments_limit, 0);
    expect_cub_bits<C>(s, fill, Options{}, fresh_seed());
  }
}

TEST(SegmentedCub, IntegerSumsBitwise) {
  expect_cub_bits_on_standard_shapes<SegCase<std::int32_t, std::int32_t, SegOp::sum>>(Fill::random);
  expect_cub_bits_on_standard_shapes<SegCase<std::int64_t, std::int64_t, SegOp::sum>>(Fill::random);
  expect_cub_bits_on_standard_shapes<SegCase<std::uint32_t, std::uint32_t, SegOp::sum>>(Fill::random);
  expect_cub_bits_on_standard_shapes<SegCase<std::uint64_t, std::uint64_t, SegOp::sum>>(Fill::random);
}

TEST(SegmentedCub, MinMaxBitwise) {
  expect_cub_bits_on_standard_shapes<SegCase<float, float, SegOp::min>>(Fill::random);
  expect_cub_bits_on_standard_shapes<SegCase<float, float, SegOp::max>>(Fill::random);
  expect_cub_bits_on_standard_shapes<SegCase<double, double, SegOp::max>>(Fill::random);
  expect_cub_bits_on_standard_shapes<SegCase<std::int32_t, std::int32_t, SegOp::min>>(Fill::random);
  expect_cub_bits_on_standard_shapes<SegCase<std::int32_t, std::int32_t, SegOp::max>>(Fill::random);
  expect_cub_bits_on_standard_shapes<SegCase<__half, __half, SegOp::min>>(Fill::random);
}

TEST(SegmentedCub, ArgMinArgMaxBitwiseWithTies) {
  expect_cub_bits_on_standard_shapes<SegCase<float, float, SegOp::argmin>>(Fill::small_integers);
  expect_cub_bits_on_standard_shapes<SegCase<float, float, SegOp::argmax>>(Fill::small_integers);
  expect_cub_bits_on_standard_shapes<SegCase<std::int32_t, std::int32_t, SegOp::argmin>>(Fill::small_integers);
  expect_cub_bits_on_standard_shapes<SegCase<std::int32_t, std::int32_t, SegOp::argmax>>(Fill::random);
}

TEST(SegmentedCub, FloatSumsOfSmallIntegersBitwise) {
  expect_cub_bits_on_standard_shapes<SegCase<float, float, SegOp::sum>>(Fill::small_integers);
  expect_cub_bits_on_standard_shapes<SegCase<double, double, SegOp::sum>>(Fill::small_integers);
  expect_cub_bits_on_standard_shapes<SegCase<float, double, SegOp::sum>>(Fill::small_integers);
  expect_cub_bits_on_standard_shapes<SegCase<__half, float, SegOp::sum>>(Fill::small_integers);
  expect_cub_bits_on_standard_shapes<SegCase<__nv_bfloat16, float, SegOp::sum>>(Fill::small_integers);
}

// ---- Floating sums against the exact sum ------------------------------------------------------------

// Additions on the longest path of a segment's order (shape.cuh): a lane's or thread's items one
// after another, then the trees (5, 8 and 8 levels at most) and init; chunked segments add a
// thread's share of the partials. A bound, not the exact depth.
std::int64_t depth_bound(std::int64_t length) {
  return length / 32 + 64 + length / (256 * 16384);
}

template <class In, class Out>
void expect_within_exact_bound(const SegmentList& s, std::uint64_t seed) {
  using C = SegCase<In, Out, SegOp::sum>;
  SCOPED_TRACE(trace(C::name() + " against the exact sum", s, seed));
  DeviceBuffer<In> input(std::size_t(std::max<std::int64_t>(s.span, 1)));
  DeviceSegments<std::int64_t> offsets(s);
  ASSERT_TRUE(input.ok() && offsets.ok());
  CUDA_OK(fill_random(input.get(), s.span, seed, Fill::random));
  std::vector<Out> ours;
  ASSERT_TRUE(run_ours<C>(input.get(), s.size(), offsets.begin(), offsets.end(), -1, Options{}, ours));
  const long double u = std::is_same_v<Out, double> ? std::ldexp(1.0L, -53) : std::ldexp(1.0L, -24);
  const long double scale = FixedPoint<In>::kScale;
  int reported = 0;
  for (std::int64_t i = 0; i < s.size(); ++i) {
    __int128 exact = 0, magnitude = 0;
    for (std::int64_t j = s.begin[std::size_t(i)]; j < s.end[std::size_t(i)]; ++j) {
      const std::int64_t k = fixed_point_k(seed, j, FixedPoint<In>::kBits, Fill::random);
      exact += k;
      magnitude += k < 0 ? -k : k;
    }
    const std::int64_t length = s.end[std::size_t(i)] - s.begin[std::size_t(i)];
    const long double want = (long double)exact * scale;
    const long double bound = (long double)(depth_bound(length) + 2) * u * (long double)magnitude * scale;
    const long double error = std::fabs(as_long_double(ours[std::size_t(i)]) - want);
    if (!(error <= bound) && reported++ < 5)
      ADD_FAILURE() << "segment " << i << " [" << s.begin[std::size_t(i)] << ", "
                    << s.end[std::size_t(i)] << "): got " << show(ours[std::size_t(i)])
                    << ", exact " << (double)want << ", error " << (double)error << " > bound "
                    << (double)bound;
  }
}

TEST(SegmentedExact, FloatingSumsWithinBoundOfExactSum) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  for (const SegmentList& s : standard_shapes<float>(seed)) {
    expect_within_exact_bound<float, float>(s, fresh_seed());
    expect_within_exact_bound<float, double>(s, fresh_seed());
    expect_within_exact_bound<double, double>(s, fresh_seed());
    expect_within_exact_bound<__half, float>(s, fresh_seed());
  }
}

// ---- Empty segments ---------------------------------------------------------------------------------

TEST(SegmentedShapes, EmptySegmentsWriteWhatCubWrites) {
  REQUIRE_GPU();
  std::mt19937_64 rng(fresh_seed());
  // Empty segments at random places, between non-empty ones too.
  std::vector<std::int64_t> lengths = uniform_lengths(rng, 3000, 0, 3);
  const SegmentList s = contiguous("empty among tiny", lengths);
  expect_cub_bits<SegCase<float, float, SegOp::sum>>(s, Fill::small_integers, Options{}, fresh_seed());
  expect_cub_bits<SegCase<float, float, SegOp::min>>(s, Fill::random, Options{}, fresh_seed());
  expect_cub_bits<SegCase<float, float, SegOp::max>>(s, Fill::random, Options{}, fresh_seed());
  expect_cub_bits<SegCase<float, float, SegOp::argmin>>(s, Fill::random, Options{}, fresh_seed());
  expect_cub_bits<SegCase<float, float, SegOp::argmax>>(s, Fill::random, Options{}, fresh_seed());
  expect_cub_bits<SegCase<std::int64_t, std::int64_t, SegOp::argmax>>(s, Fill::random, Options{}, fresh_seed());
  // And the values themselves, restated: CUB's documented answers.
  DeviceBuffer<float> input(16);
  DeviceSegments<std::int64_t> offsets(contiguous("one empty", {0}));
  std::vector<IndexedValue<float>> arg;
  ASSERT_TRUE((run_ours<SegCase<float, float, SegOp::argmin>>(input.get(), 1, offsets.begin(),
                                                                offsets.end(), -1, Options{}, arg)));
  EXPECT_EQ(arg[0].index, 1);
  EXPECT_EQ(arg[0].value, std::numeric_limits<float>::max());
  std::vector<float> low;
  ASSERT_TRUE((run_ours<SegCase<float, float, SegOp::max>>(input.get(), 1, offsets.begin(),
                                                             offsets.end(), -1, Options{}, low)));
  EXPECT_EQ(low[0], std::numeric_limits<float>::lowest());
}

// ---- Large shapes -----------------------------------------------------------------------------------

TEST(SegmentedShapes, OneHugeSegmentAmongAMillionTinyOnes) {
  REQUIRE_GPU();
  std::mt19937_64 rng(fresh_seed());
  std::vector<std::int64_t> lengths = uniform_lengths(rng, 1000000, 1, 32);
  lengths[std::size_t(rng() % lengths.size())] = 12000017;
  const SegmentList s = contiguous("one huge among 1M tiny", lengths);
  if (s.span > max_test_items()) GTEST_SKIP() << "GPUREDUCE_TEST_MAX_N is below " << s.span;
  expect_cub_bits<SegCase<std::int32_t, std::int32_t, SegOp::sum>>(s, Fill::random, Options{}, fresh_seed());
  expect_cub_bits<SegCase<float, float, SegOp::sum>>(s, Fill::small_integers, Options{}, fresh_seed());
  expect_cub_bits<SegCase<float, float, SegOp::argmax>>(s, Fill::random, zeroed_options(), fresh_seed());
}

TEST(SegmentedShapes, AFewSegmentsOfTenMillionAndMore) {
  REQUIRE_GPU();
  const SegmentList s = contiguous("a few of 10M+", {10000019, 16777216, 3, 25000001});
  if (s.span > max_test_items()) GTEST_SKIP() << "GPUREDUCE_TEST_MAX_N is below " << s.span;
  expect_cub_bits<SegCase<std::int64_t, std::int64_t, SegOp::sum>>(s, Fill::random, Options{}, fresh_seed());
  expect_cub_bits<SegCase<float, float, SegOp::sum>>(s, Fill::small_integers, zeroed_options(), fresh_seed());
  expect_cub_bits<SegCase<float, float, SegOp::min>>(s, Fill::random, Options{}, fresh_seed());
  expect_cub_bits<SegCase<double, double, SegOp::argmin>>(s, Fill::random, Options{}, fresh_seed());
}

TEST(SegmentedShapes, PowerLawMixOfAMillionSegments) {
  REQUIRE_GPU();
  std::mt19937_64 rng(fresh_seed());
  const SegmentList s = contiguous("zipf 1M", zipf_lengths(rng, 1000000, std::int64_t(1) << 24));
  if (s.span > max_test_items()) GTEST_SKIP() << "GPUREDUCE_TEST_MAX_N is below " << s.span;
  expect_cub_bits<SegCase<std::uint32_t, std::uint32_t, SegOp::sum>>(s, Fill::random, Options{}, fresh_seed());
  expect_cub_bits<SegCase<float, float, SegOp::max>>(s, Fill::random, Options{}, fresh_seed());
  expect_cub_bits<SegCase<std::int32_t, std::int32_t, SegOp::argmin>>(shuffled(s, rng), Fill::small_integers,
                                                                      Options{}, fresh_seed());
}

TEST(SegmentedShapes, SixteenMillionSegments) {
  REQUIRE_GPU();
  std::mt19937_64 rng(fresh_seed());
  const SegmentList s = contiguous("2^24 segments of 1-32", uniform_lengths(rng, 1 << 24, 1, 32));
  if (s.span > max_test_items()) GTEST_SKIP() << "GPUREDUCE_TEST_MAX_N is below " << s.span;
  if (!memory_for(std::size_t(s.span) * 8 + std::size_t(s.size()) * 48))
    GTEST_SKIP() << "not enough device memory";
  expect_cub_bits<SegCase<std::int32_t, std::int32_t, SegOp::sum>>(s, Fill::random, Options{}, fresh_seed());
  expect_cub_bits<SegCase<float, float, SegOp::argmax>>(shuffled(s, rng), Fill::random, Options{}, fresh_seed());
}

TEST(SegmentedLarge, OneSegmentBeyond2To31Items) {
  REQUIRE_GPU();
  const std::int64_t n = (std::int64_t(1) << 31) + 17;
  const SegmentList s = contiguous("2^31 + 17 items in one", {5, n, 0, 33});
  if (s.span > max_test_items()) GTEST_SKIP() << "GPUREDUCE_TEST_MAX_N is below " << s.span;
  if (!memory_for(std::size_t(s.span) * sizeof(float))) GTEST_SKIP() << "not enough device memory";
  // int32 sums wrap: CUB's bits (its offsets are 64-bit for Sum).
  expect_cub_bits<SegCase<std::int32_t, std::int32_t, SegOp::sum>>(s, Fill::random, Options{}, fresh_seed());
  // float ArgMin: CUB's ArgMin has 32-bit offsets, so a planted minimum is the reference.
  DeviceBuffer<float> input(std::size_t(s.span));
  DeviceSegments<std::int64_t> offsets(s);
  ASSERT_TRUE(input.ok() && offsets.ok());
  const std::uint64_t seed = fresh_seed();
  CUDA_OK(fill_random(input.get(), s.span, seed, Fill::random));  // values in (-1, 1)
  const float minimum = -2.0f;
  const std::int64_t first = n - 5;
  for (std::int64_t at : {first, n - 2}) CUDA_OK(cudaMemcpy(input.get() + 5 + at, &minimum, sizeof(float), cudaMemcpyHostToDevice));
  std::vector<IndexedValue<float>> got;
  for (const Options& o : {Options{}, zeroed_options()}) {
    ASSERT_TRUE((run_ours<SegCase<float, float, SegOp::argmin>>(input.get(), s.size(), offsets.begin(),
                                                                  offsets.end(), -1, o, got)))
        << "seed=" << seed;
    EXPECT_EQ(got[1].index, first) << "seed=" << seed;
    EXPECT_EQ(got[1].value, minimum) << "seed=" << seed;
  }
}

TEST(SegmentedLarge, MoreThan2To31ItemsThroughOverlappingSegments) {
  REQUIRE_GPU();
  const std::int64_t span = 700000000;
  std::mt19937_64 rng(fresh_seed());
  SegmentList s = overlapping(rng, 30, span, span / 2);
  s.begin.push_back(0), s.end.push_back(span);
  s.begin.push_back(1), s.end.push_back(span - 1);
  s.name = "overlapping, 2^31+ items in all";
  if (s.span > max_test_items()) GTEST_SKIP() << "GPUREDUCE_TEST_MAX_N is below " << s.span;
  if (!memory_for(std::size_t(span) * 4)) GTEST_SKIP() << "not enough device memory";
  ASSERT_GT(s.items(), std::int64_t(1) << 31);
  expect_cub_bits<SegCase<std::int32_t, std::int32_t, SegOp::sum>>(s, Fill::random, Options{}, fresh_seed());
}

// ---- Fixed-size segments ----------------------------------------------------------------------------

struct TimesSize {
  std::int64_t size;
  __host__ __device__ std::int64_t operator()(std::int64_t i) const { return i * size; }
};

template <class C>
void expect_fixed_size_matches(std::int64_t n, std::int64_t size, Fill fill, const Options& options) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(C::name() + " fixed size: " + std::to_string(n) + " x " + std::to_string(size) +
               " seed=" + std::to_string(seed));
  DeviceBuffer<typename C::In> input(std::size_t(std::max<std::int64_t>(n * size, 1)));
  ASSERT_TRUE(input.ok());
  CUDA_OK(fill_random(input.get(), n * size, seed, fill));
  std::vector<typename C::Out> fixed, general;
  ASSERT_TRUE(run_ours<C>(input.get(), n, nullptr, nullptr, size, options, fixed));
  // CUB with offsets from a counting iterator.
  const auto begin = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), TimesSize{size});
  const auto end = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(1), TimesSize{size});
  std::vector<typename C::CubOut> cub;
  ASSERT_TRUE(run_cub<C>(input.get(), n, begin, end, cub));
  EXPECT_TRUE(same_as_cub<C>(fixed, cub));
  // The offsets call on the same segments: the same bits (a segment's order is its length's).
  SegmentList s = contiguous("fixed", std::vector<std::int64_t>(std::size_t(n), size));
  DeviceSegments<std::int64_t> offsets(s);
  ASSERT_TRUE(run_ours<C>(input.get(), n, offsets.begin(), offsets.end(), -1, options, general));
  EXPECT_TRUE(same_bits_all(fixed, general));
}

std::vector<std::int64_t> fixed_sizes() {
  using S = detail::segmented::Shape<4>;
  return {0, 1, 2, 3, 4, 5, 8, 9, 16, 17, 31, 32, 33, 100, 128, 129, 1000, S::kWarpMaxItems,
          S::kWarpMaxItems + 1, S::kChunkItems, S::kChunkItems + 1, 3 * S::kChunkItems + 5};
}

TEST(SegmentedFixedSize, MatchesCubWithCountingIteratorOffsets) {
  REQUIRE_GPU();
  for (std::int64_t size : fixed_sizes()) {
    const std::int64_t n = size <= 128 ? 100003 : size <= 4096 ? 3001 : 37;
    expect_fixed_size_matches<SegCase<std::int32_t, std::int32_t, SegOp::sum>>(n, size, Fill::random, Options{});
    expect_fixed_size_matches<SegCase<float, float, SegOp::sum>>(n, size, Fill::small_integers, zeroed_options());
    expect_fixed_size_matches<SegCase<float, float, SegOp::min>>(n, size, Fill::random, Options{});
    expect_fixed_size_matches<SegCase<float, float, SegOp::argmax>>(n, size, Fill::small_integers, Options{});
    expect_fixed_size_matches<SegCase<__half, float, SegOp::sum>>(n, size, Fill::small_integers, Options{});
  }
}

// Fixed-size segments of 2-4 chunks, enough to fill the grid: Min's, Max's and integer sums' run a
// block a segment in one stream (fixed_whole_kernel), ArgMin's and ArgMax's too at 2 chunks, at 4
// in the chunk and fold kernels, as float sums' always; against CUB and the offsets call, and
// describe() says which.
TEST(SegmentedFixedSize, OrderFreeWholeSegments) {
  REQUIRE_GPU();
  using S = detail::segmented::Shape<4>;
  for (std::int64_t size : {S::kChunkItems + 1, 3 * S::kChunkItems + 5}) {
    const std::int64_t n = 600;
    expect_fixed_size_matches<SegCase<float, float, SegOp::argmin>>(n, size, Fill::small_integers, Options{});
    expect_fixed_size_matches<SegCase<float, float, SegOp::argmax>>(n, size, Fill::small_integers, zeroed_options());
    expect_fixed_size_matches<SegCase<float, float, SegOp::max>>(n, size, Fill::random, Options{});
    expect_fixed_size_matches<SegCase<std::int32_t, std::int32_t, SegOp::sum>>(n, size, Fill::random, Options{});
    const std::string text = DeviceSegmentedReduce::describe<float>(n, size);
    EXPECT_NE(text.find("as one stream: 1 launch"), std::string::npos) << text;  // Min and Max
    EXPECT_NE(text.find(". 2 launches"), std::string::npos) << text;             // Sum
    EXPECT_EQ(text.find("ArgMin and ArgMax, whose") != std::string::npos, size == S::kChunkItems + 1)
        << text;
  }
  // Too few segments to fill the grid: split, for every operator.
  const std::string few = DeviceSegmentedReduce::describe<float>(8, S::kChunkItems + 1);
  EXPECT_EQ(few.find("one stream"), std::string::npos) << few;
}

// 2^31 + 18 items as two fixed-size segments (64-bit offsets inside the kernels).
TEST(SegmentedFixedSize, TwoSegmentsBeyond2To31ItemsInAll) {
  REQUIRE_GPU();
  const std::int64_t size = (std::int64_t(1) << 30) + 9;
  if (2 * size > max_test_items()) GTEST_SKIP() << "GPUREDUCE_TEST_MAX_N is below " << 2 * size;
  if (!memory_for(std::size_t(2 * size) * sizeof(std::int32_t))) GTEST_SKIP() << "not enough device memory";
  expect_fixed_size_matches<SegCase<std::int32_t, std::int32_t, SegOp::sum>>(2, size, Fill::random, Options{});
}

// Random floats: no CUB comparison, but the offsets call must give the same bits.
TEST(SegmentedFixedSize, SameBitsAsTheOffsetsCallOnRandomFloats) {
  REQUIRE_GPU();
  for (std::int64_t size : fixed_sizes()) {
    const std::int64_t n = size <= 128 ? 20011 : size <= 4096 ? 1001 : 17;
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE("size " + std::to_string(size) + " seed=" + std::to_string(seed));
    using C = SegCase<float, float, SegOp::sum>;
    DeviceBuffer<float> input(std::size_t(std::max<std::int64_t>(n * size, 1)));
    CUDA_OK(fill_random(input.get(), n * size, seed, Fill::random));
    SegmentList s = contiguous("fixed", std::vector<std::int64_t>(std::size_t(n), size));
    DeviceSegments<std::int64_t> offsets(s);
    std::vector<float> fixed, general;
    ASSERT_TRUE(run_ours<C>(input.get(), n, nullptr, nullptr, size, Options{}, fixed));
    ASSERT_TRUE(run_ours<C>(input.get(), n, offsets.begin(), offsets.end(), -1, Options{}, general));
    EXPECT_TRUE(same_bits_all(fixed, general));
  }
}

// ---- Determinism ------------------------------------------------------------------------------------

// Float sums of random values through `options`, in the order of `s`, then mapped back to `order`.
std::vector<float> sums_in_order(const SegmentList& s, const float* d_in, const Options& options) {
  DeviceSegments<std::int64_t> offsets(s);
  std::vector<float> out;
  EXPECT_TRUE((run_ours<SegCase<float, float, SegOp::sum>>(d_in, s.size(), offsets.begin(),
                                                            offsets.end(), -1, options, out)));
  return out;
}

TEST(SegmentedDeterminism, BitsDependOnTheSegmentAlone) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  // Every class, split segments included (some longer than kMaxChunks chunks of the minimum).
  std::vector<std::int64_t> lengths = uniform_lengths(rng, 3000, 0, 300);
  for (std::int64_t l : {4097, 16385, 65536 + 3, 100000, 131072 + 1, 1000003, 20000000})
    lengths.push_back(l);
  std::shuffle(lengths.begin(), lengths.end(), rng);
  const SegmentList s = contiguous("every class", lengths);
  if (s.span > max_test_items()) GTEST_SKIP() << "GPUREDUCE_TEST_MAX_N is below " << s.span;
  SCOPED_TRACE(trace("determinism", s, seed));
  DeviceBuffer<float> input(std::size_t(s.span));
  CUDA_OK(fill_random(input.get(), s.span, seed, Fill::random));
  const std::vector<float> reference = sums_in_order(s, input.get(), Options{});
  // 3007 segments: the split ones of up to 4 chunks ran whole on a block (state.cuh); split too.
  std::vector<float> all_split;
  {
    ScopedHook keep_split(detail::segmented::whole_chunks_limit, 0);
    all_split = sums_in_order(s, input.get(), Options{});
  }
  EXPECT_TRUE(same_bits_all(reference, all_split)) << "few-chunk segments split";
  for (int grid : {1, 3, 7}) {  // chunks of one segment on one block, or a few
    Options o;
    o.grid_blocks = grid;
    EXPECT_TRUE(same_bits_all(reference, sums_in_order(s, input.get(), o))) << "grid " << grid;
  }
  EXPECT_TRUE(same_bits_all(reference, sums_in_order(s, input.get(), zeroed_options())));
  for (int round = 0; round < 3; ++round)
    EXPECT_TRUE(same_bits_all(reference, sums_in_order(s, input.get(), Options{}))) << "rerun";
  // Each segment alone, and the segments in another order, among other neighbours.
  std::vector<std::size_t> order(std::size_t(s.size()));
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::shuffle(order.begin(), order.end(), rng);
  SegmentList permuted{"permuted", {}, {}, s.span};
  for (std::size_t i : order) permuted.begin.push_back(s.begin[i]), permuted.end.push_back(s.end[i]);
  permuted.begin.push_back(0), permuted.end.push_back(s.span);  // a neighbour that is split
  const std::vector<float> shuffled_sums = sums_in_order(permuted, input.get(), Options{});
  for (std::size_t k = 0; k < order.size(); ++k)
    ASSERT_TRUE(same_bits(shuffled_sums[k], reference[order[k]])) << "segment " << order[k];
  // With a split table of two entries, most split segments run on one block alone: same bits.
  std::vector<float> one_block;
  {
    ScopedHook two_entries(detail::segmented::split_table_limit, 2);
    one_block = sums_in_order(s, input.get(), Options{});
  }
  EXPECT_TRUE(same_bits_all(reference, one_block)) << "split segments on one block";
}

// Min, Max, ArgMin, ArgMax and integer sums read a segment a block takes whole (2-4 chunks) as
// one stream (block_per_segment.cuh): the same answers as the same segments split across blocks,
// on ties (small integers) and with NaNs planted in a third of the segments (where CUB's answers
// differ from ours by design, so against our own split path; CUB's on NaN-free data run in
// SegmentedCub).
template <class C>
void expect_whole_as_split(const SegmentList& s, const typename C::In* input) {
  std::vector<typename C::Out> whole, split;
  DeviceSegments<std::int64_t> offsets(s);
  ASSERT_TRUE(offsets.ok());
  ASSERT_TRUE(run_ours<C>(input, s.size(), offsets.begin(), offsets.end(), -1, Options{}, whole));
  {
    ScopedHook keep_split(detail::segmented::whole_chunks_limit, 0);
    ASSERT_TRUE(run_ours<C>(input, s.size(), offsets.begin(), offsets.end(), -1, Options{}, split));
  }
  EXPECT_TRUE(same_bits_all(whole, split)) << C::name();
}

TEST(SegmentedDeterminism, OrderFreeWholeSegmentsAsSplit) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  constexpr std::int64_t kChunk = detail::segmented::Shape<4>::kChunkItems;
  const SegmentList s = contiguous("2-4 chunks", uniform_lengths(rng, 600, kChunk + 1, 4 * kChunk));
  SCOPED_TRACE(trace("order-free whole segments", s, seed));
  DeviceBuffer<float> floats(std::size_t(s.span));
  DeviceBuffer<std::int32_t> ints(std::size_t(s.span));
  CUDA_OK(fill_random(floats.get(), s.span, seed, Fill::small_integers));
  CUDA_OK(fill_random(ints.get(), s.span, seed + 1, Fill::random));
  expect_whole_as_split<SegCase<std::int32_t, std::int32_t, SegOp::sum>>(s, ints.get());
  for (std::size_t k = 0; k < s.begin.size(); k += 3) {  // a NaN or two inside every third segment
    const std::int64_t length = s.end[k] - s.begin[k];
    for (int j = 0; j < 1 + int(k % 2); ++j) {
      const float nan = std::numeric_limits<float>::quiet_NaN();
      const std::int64_t at = s.begin[k] + std::int64_t(rng() % std::uint64_t(length));
      CUDA_OK(cudaMemcpy(floats.get() + at, &nan, sizeof nan, cudaMemcpyHostToDevice));
    }
  }
  expect_whole_as_split<SegCase<float, float, SegOp::argmin>>(s, floats.get());
  expect_whole_as_split<SegCase<float, float, SegOp::argmax>>(s, floats.get());
  expect_whole_as_split<SegCase<float, float, SegOp::min>>(s, floats.get());
  expect_whole_as_split<SegCase<float, float, SegOp::max>>(s, floats.get());
}

// Runs of split chunks (claim.hpp): on grids of a few blocks a run spans several split segments,
// some whole (their block takes no ticket) and some in part (tickets taken together), and crosses
// into the block and warp lists. Small enough for compute-sanitizer. Each split segment alone
// through FixedSizeSum (the chunk and fold kernels, no runs) gives the same bits.
TEST(SegmentedDeterminism, SplitSegmentsInRunsOnSmallGrids) {
  REQUIRE_GPU();
  using S = detail::segmented::Shape<sizeof(float)>;
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  std::vector<std::int64_t> lengths = uniform_lengths(rng, 300, 1, 4096);  // group and warp class
  for (std::int64_t chunks : {2, 2, 3, 5, 13, 40}) lengths.push_back(chunks * S::kChunkItems - 7);
  for (int i = 0; i < 20; ++i) lengths.push_back(S::kWarpMaxItems + 1 + std::int64_t(rng() % 9000));
  std::shuffle(lengths.begin(), lengths.end(), rng);
  const SegmentList s = contiguous("split segments in runs", lengths);
  SCOPED_TRACE(trace("split runs", s, seed));
  DeviceBuffer<float> input(std::size_t(s.span));
  CUDA_OK(fill_random(input.get(), s.span, seed, Fill::random));
  const std::vector<float> reference = sums_in_order(s, input.get(), Options{});
  for (int grid : {1, 2, 3, 5}) {
    Options o;
    o.grid_blocks = grid;
    EXPECT_TRUE(same_bits_all(reference, sums_in_order(s, input.get(), o))) << "grid " << grid;
    o.temp_storage_zeroed = true;
    EXPECT_TRUE(same_bits_all(reference, sums_in_order(s, input.get(), o))) << "zeroed, grid " << grid;
  }
  using C = SegCase<float, float, SegOp::sum>;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    if (S::classify(lengths[i]) != detail::segmented::SegmentClass::split) continue;
    std::vector<float> alone;
    ASSERT_TRUE(run_ours<C>(input.get() + s.begin[i], 1, nullptr, nullptr, lengths[i], Options{}, alone));
    EXPECT_TRUE(same_bits(alone[0], reference[i])) << "segment " << i << " of " << lengths[i];
  }
}

// `count` float segments: one of every class boundary and split ones, the rest of 0 to max_length
// items, shuffled; then one over them all (split) and a warp's inside it (overlapping).
SegmentList every_class_overlapped(std::mt19937_64& rng, std::int64_t count,
                                   std::int64_t max_length, const char* name) {
  using S = detail::segmented::Shape<sizeof(float)>;
  std::vector<std::int64_t> lengths{0, 1, 5, 100, 128, 129, S::kWarpMaxItems, S::kWarpMaxItems + 1,
                                    S::kChunkItems, S::kChunkItems + 1, 2 * S::kChunkItems + 3,
                                    5 * S::kChunkItems - 7, 1000003};
  for (std::int64_t l : uniform_lengths(rng, count - 2 - std::int64_t(lengths.size()), 0, max_length))
    lengths.push_back(l);
  std::shuffle(lengths.begin(), lengths.end(), rng);
  SegmentList s = contiguous(name, lengths);
  s.begin.push_back(0), s.end.push_back(s.span);
  s.begin.push_back(s.span / 3), s.end.push_back(s.span / 3 + 4000);
  return s;
}

// Case C's outputs, with `hook` as it is and at 0, bitwise equal.
template <class C>
void expect_both_paths(const float* input, const SegmentList& s,
                       const DeviceSegments<std::int64_t>& offsets, std::int64_t& hook) {
  std::vector<typename C::Out> a, b;
  EXPECT_TRUE(run_ours<C>(input, s.size(), offsets.begin(), offsets.end(), -1, Options{}, a));
  ScopedHook off(hook, 0);
  EXPECT_TRUE(run_ours<C>(input, s.size(), offsets.begin(), offsets.end(), -1, Options{}, b));
  EXPECT_TRUE(same_bits_all(a, b)) << C::name();
}

// A path that runs up to `limit` segments (`hook`, a test hook of state.cuh), on limit + 1
// segments of every_class_overlapped (random floats), the last `limit` of them running the path.
// Float sums bitwise those of the path the hook at 0 gives and of the call one past the limit, on
// grids of 1, 3 and 7 blocks; each of Cases likewise; on zeroed storage the same bits, and every
// byte zero again.
template <class... Cases>
void expect_same_bits_at_limit(std::int64_t& hook, std::int64_t limit, std::int64_t max_length,
                               const char* name) {
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  const SegmentList s = every_class_overlapped(rng, limit + 1, max_length, name);
  SCOPED_TRACE(trace(name, s, seed));
  DeviceBuffer<float> input_buffer(std::size_t(s.span));
  const float* input = input_buffer.get();
  CUDA_OK(fill_random(input_buffer.get(), s.span, seed, Fill::random));
  SegmentList at_limit = s;
  at_limit.begin.erase(at_limit.begin.begin()), at_limit.end.erase(at_limit.end.begin());
  ScopedHook on(hook, limit);
  const std::vector<float> path = sums_in_order(at_limit, input, Options{});
  std::vector<float> other;
  {
    ScopedHook off(hook, 0);
    other = sums_in_order(at_limit, input, Options{});
  }
  const std::vector<float> past_limit = sums_in_order(s, input, Options{});
  EXPECT_TRUE(same_bits_all(path, other));
  EXPECT_TRUE(same_bits_all(path, std::vector<float>(past_limit.begin() + 1, past_limit.end())));
  for (int grid : {1, 3, 7}) {
    Options o;
    o.grid_blocks = grid;
    EXPECT_TRUE(same_bits_all(path, sums_in_order(at_limit, input, o))) << "grid " << grid;
  }
  DeviceSegments<std::int64_t> offsets(at_limit);
  (expect_both_paths<Cases>(input, at_limit, offsets, hook), ...);
  using R = DeviceSegmentedReduce;
  std::size_t bytes = 0;
  DeviceBuffer<float> out(std::size_t(at_limit.size()));
  CUDA_OK(R::Sum(nullptr, bytes, input, out.get(), at_limit.size(), offsets.begin(), offsets.end(), nullptr, zeroed_options()));
  DeviceBuffer<unsigned char> temp(bytes);
  CUDA_OK(cudaMemset(temp.get(), 0, bytes));
  CUDA_OK(R::Sum(temp.get(), bytes, input, out.get(), at_limit.size(), offsets.begin(), offsets.end(), nullptr, zeroed_options()));
  std::vector<float> zeroed(std::size_t(at_limit.size()));
  CUDA_OK(cudaMemcpy(zeroed.data(), out.get(), zeroed.size() * sizeof(float), cudaMemcpyDeviceToHost));
  EXPECT_TRUE(same_bits_all(path, zeroed)) << "zeroed storage";
  EXPECT_TRUE(all_bytes_equal(device_bytes(temp.get(), 0, bytes), 0)) << "storage left zero";
}

// A few segments (at most kFewMaxSegments) run the unit and fold kernels (few.cuh), not classify
// and the reduce kernel: the same bits for every class, on any grid, unsorted and overlapping, at
// the limit and one past it; zeroed storage is left zero.
TEST(SegmentedFew, SameBitsAsClassifyAndTheReduceKernel) {
  REQUIRE_GPU();
  ScopedHook classify(detail::segmented::direct_segments_limit, 0);  // the general path: classify
  expect_same_bits_at_limit<SegCase<float, float, SegOp::argmin>, SegCase<float, float, SegOp::min>>(
      detail::segmented::few_segments_limit, detail::segmented::kFewMaxSegments, 300000,
      "a few of every class");
}

// More than a few segments and at most kDirectMaxSegments run direct_kernel (direct.cuh) instead
// of classify: the same bits for every class (the block-level ones filed for
// the reduce kernel), unsorted and overlapping, on any grid, at the limit and one past it (the
// limit lowered to keep the input small, and at the library's own limit with segments of up to
// 256 items: 32 a warp, a grid of several waves); zeroed storage is left zero.
TEST(SegmentedDirect, SameBitsAsClassifyAndTheReduceKernel) {
  REQUIRE_GPU();
  // ArgMin and ArgMax take classify: Max, Min and float->double sums instead.
  expect_same_bits_at_limit<SegCase<float, float, SegOp::max>, SegCase<float, float, SegOp::min>,
                            SegCase<float, double, SegOp::sum>>(
      detail::segmented::direct_segments_limit, 3000, 6000, "direct, every class");
  expect_same_bits_at_limit<SegCase<float, double, SegOp::sum>>(
      detail::segmented::direct_segments_limit, detail::segmented::kDirectMaxSegments, 256,
      "direct at the library's limit");
}

// ---- Zeroed storage ---------------------------------------------------------------------------------

TEST(SegmentedZeroed, LeavesTheStorageZeroForDeviceReduce) {
  REQUIRE_GPU();
  std::mt19937_64 rng(fresh_seed());
  std::vector<std::int64_t> lengths = uniform_lengths(rng, 20000, 0, 5000);
  for (std::int64_t l : {70000, 300001}) lengths.push_back(l);
  const SegmentList s = shuffled(contiguous("every class", lengths), rng);
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(trace("zeroed storage", s, seed));
  DeviceBuffer<float> input(std::size_t(s.span));
  DeviceSegments<std::int64_t> offsets(s);
  DeviceBuffer<float> out(std::size_t(s.size()));
  CUDA_OK(fill_random(input.get(), s.span, seed, Fill::small_integers));
  const Options o = zeroed_options();
  std::size_t bytes = 0, fixed_bytes = 0, reduce_bytes = 0;
  using R = DeviceSegmentedReduce;
  CUDA_OK(R::Sum(nullptr, bytes, input.get(), out.get(), s.size(), offsets.begin(), offsets.end(), nullptr, o));
  CUDA_OK(R::FixedSizeSum(nullptr, fixed_bytes, input.get(), out.get(), 3, s.span / 3, nullptr, o));
  CUDA_OK(DeviceReduce::Sum(nullptr, reduce_bytes, input.get(), out.get(), s.span, nullptr, o));
  bytes = std::max({bytes, fixed_bytes, reduce_bytes});
  DeviceBuffer<unsigned char> temp(bytes);
  CUDA_OK(cudaMemset(temp.get(), 0, bytes));
  for (int round = 0; round < 2; ++round) {
    CUDA_OK(R::Sum(temp.get(), bytes, input.get(), out.get(), s.size(), offsets.begin(), offsets.end(), nullptr, o));
    CUDA_OK(cudaDeviceSynchronize());
    EXPECT_TRUE(all_bytes_equal(device_bytes(temp.get(), 0, bytes), 0)) << "after the offsets call";
    CUDA_OK(R::FixedSizeSum(temp.get(), bytes, input.get(), out.get(), 3, s.span / 3, nullptr, o));
    CUDA_OK(cudaDeviceSynchronize());
    EXPECT_TRUE(all_bytes_equal(device_bytes(temp.get(), 0, bytes), 0)) << "after the fixed-size call";
  }
  using One = Case<float, float, Op::sum>;
  float got = 0, want = 0;
  CUDA_OK(DeviceReduce::Sum(temp.get(), bytes, input.get(), out.get(), s.span, nullptr, o));
  CUDA_OK(cudaMemcpy(&got, out.get(), sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_OK(One::cub(input.get(), out.get(), s.span));
  CUDA_OK(cudaMemcpy(&want, out.get(), sizeof(float), cudaMemcpyDeviceToHost));
  EXPECT_TRUE(same_bits(got, want)) << "DeviceReduce after segmented calls on the same storage";
}

// ---- Bad input --------------------------------------------------------------------------------------

struct BadInputFixture {
  DeviceBuffer<float> input{4096};
  DeviceBuffer<float> out{16};
  DeviceBuffer<std::int64_t> begin{16}, end{16};
  DeviceBuffer<unsigned char> temp{std::size_t(1) << 22};
  std::size_t bytes = std::size_t(1) << 22;

  void set_offsets(const std::vector<std::int64_t>& b, const std::vector<std::int64_t>& e) {
    cudaMemcpy(begin.get(), b.data(), b.size() * 8, cudaMemcpyHostToDevice);
    cudaMemcpy(end.get(), e.data(), e.size() * 8, cudaMemcpyHostToDevice);
  }
  // The call is refused with cudaErrorInvalidValue and a message, and out keeps its poison.
  template <class Call>
  ::testing::AssertionResult refused(Call call, const char* what) {
    cudaMemset(out.get(), kPoisonByte, 16 * sizeof(float));
    const cudaError_t e = call();
    cudaError_t sync = cudaDeviceSynchronize();
    if (e != cudaErrorInvalidValue)
      return ::testing::AssertionFailure() << what << ": returned " << cudaGetErrorString(e);
    if (std::string(last_error_message()).empty())
      return ::testing::AssertionFailure() << what << ": no message";
    if (sync != cudaSuccess || cudaGetLastError() != cudaSuccess)
      return ::testing::AssertionFailure() << what << ": left an error behind";
    if (!all_bytes_equal(device_bytes(reinterpret_cast<unsigned char*>(out.get()), 0, 16 * sizeof(float)), kPoisonByte))
      return ::testing::AssertionFailure() << what << ": wrote an output";
    return ::testing::AssertionSuccess();
  }
};

TEST(SegmentedBadInput, RefusedWithNothingWritten) {
  REQUIRE_GPU();
  BadInputFixture f;
  f.set_offsets({0, 10, 20}, {10, 20, 4096});
  using R = DeviceSegmentedReduce;
  float* in = f.input.get();
  float* out = f.out.get();
  const std::int64_t* b = f.begin.get();
  const std::int64_t* e = f.end.get();
  void* t = f.temp.get();
  std::size_t& n = f.bytes;
  EXPECT_TRUE(f.refused([&] { return R::Sum(t, n, (const float*)nullptr, out, 3, b, e); }, "null d_in"));
  EXPECT_TRUE(f.refused([&] { return R::Sum(t, n, in, (float*)nullptr, 3, b, e); }, "null d_out"));
  EXPECT_TRUE(f.refused([&] { return R::Sum(t, n, in, out, 3, nullptr, e); }, "null begin"));
  EXPECT_TRUE(f.refused([&] { return R::Min(t, n, in, out, 3, b, nullptr); }, "null end"));
  EXPECT_TRUE(f.refused([&] { return R::Sum(t, n, in, out, -1, b, e); }, "negative num_segments"));
  EXPECT_TRUE(f.refused([&] { return R::Sum(t, n, in, out, std::int64_t(1) << 31, b, e); }, "2^31 segments"));
  EXPECT_TRUE(f.refused([&] { return R::FixedSizeSum(t, n, in, out, 3, -1); }, "negative segment_size"));
  EXPECT_TRUE(f.refused([&] { return R::FixedSizeMax(t, n, (const float*)nullptr, out, 3, 5); }, "fixed null d_in"));
  std::size_t small = 8;
  EXPECT_TRUE(f.refused([&] { return R::Sum(t, small, in, out, 3, b, e); }, "temp too small"));
  for (Options o : {Options{Strategy::neighbored}, Options{Strategy::automatic, Pipeline::two_kernel},
                    Options{Strategy::automatic, Pipeline::automatic, 128},
                    Options{Strategy::automatic, Pipeline::automatic, 0, -1}}) {
    EXPECT_TRUE(f.refused([&] { return R::Sum(t, n, in, out, 3, b, e, nullptr, o); }, "options"));
  }
  Options bogus;
  bogus.accuracy = static_cast<Accuracy>(7);
  EXPECT_TRUE(f.refused([&] { return R::Sum(t, n, in, out, 3, b, e, nullptr, bogus); }, "accuracy enum"));
  Options exact;
  exact.accuracy = Accuracy::correctly_rounded;
  // Reduce with a floating accumulator cannot be correctly rounded (Sum can: test_segmented_exact.cu).
  EXPECT_TRUE(f.refused([&] {
    return R::Reduce(t, n, in, out, 3, b, e, ::cuda::std::plus<float>{}, 0.0f, nullptr, exact);
  }, "correctly rounded float Reduce"));
  // Exact anyway: accepted.
  DeviceBuffer<std::int32_t> ints(64), int_out(4);
  CUDA_OK(fill_random(ints.get(), 64, fresh_seed(), Fill::random));
  f.set_offsets({0, 10, 20}, {10, 20, 64});
  EXPECT_EQ(R::Sum(t, n, ints.get(), int_out.get(), 3, b, e, nullptr, exact), cudaSuccess) << last_error_message();
  EXPECT_EQ(R::Min(t, n, in, out, 3, b, e, nullptr, exact), cudaSuccess) << last_error_message();
  CUDA_OK(cudaDeviceSynchronize());
  // Nothing to do: success, nothing written.
  EXPECT_EQ(R::Sum(t, n, in, out, 0, nullptr, nullptr), cudaSuccess);
}

TEST(SegmentedBadInput, EndBelowBeginWritesNothing) {
  REQUIRE_GPU();
  BadInputFixture f;
  using R = DeviceSegmentedReduce;
  Options checked;
  checked.pointer_check = PointerCheck::on;
  Options unchecked;
  unchecked.pointer_check = PointerCheck::off;
  for (int combination = 0; combination < 6; ++combination) {
    // path 0: the few-segment kernels; 1: direct and reduce kernels; 2: classify and reduce.
    const bool zeroed = combination % 2 == 1;
    const int path = combination / 2;
    const char* path_names[] = {", few-segment kernels", ", direct and reduce kernels",
                                ", classify and reduce kernels"};
    SCOPED_TRACE(std::string(zeroed ? "zeroed storage" : "garbage storage") + path_names[path]);
    ScopedHook few(detail::segmented::few_segments_limit,
                   path == 0 ? detail::segmented::kFewMaxSegments : 0);
    ScopedHook direct(detail::segmented::direct_segments_limit,
                      path == 1 ? detail::segmented::kDirectMaxSegments : 0);
    checked.temp_storage_zeroed = unchecked.temp_storage_zeroed = zeroed;
    CUDA_OK(prepare_temp_storage(f.temp.get(), f.bytes, zeroed));
    // Segment 2 has end < begin; the others are of every class but split.
    f.set_offsets({0, 10, 30, 100, 300}, {10, 4000, 20, 100, 420});
    EXPECT_TRUE(f.refused([&] {
      return R::Sum(f.temp.get(), f.bytes, f.input.get(), f.out.get(), 5, f.begin.get(), f.end.get(), nullptr, checked);
    }, "end < begin, pointer check on"));
    // Unchecked: the call cannot know, but writes nothing either.
    CUDA_OK(cudaMemset(f.out.get(), kPoisonByte, 16 * sizeof(float)));
    CUDA_OK(R::Sum(f.temp.get(), f.bytes, f.input.get(), f.out.get(), 5, f.begin.get(), f.end.get(), nullptr, unchecked));
    CUDA_OK(cudaDeviceSynchronize());
    EXPECT_TRUE(all_bytes_equal(device_bytes(reinterpret_cast<unsigned char*>(f.out.get()), 0, 16 * sizeof(float)), kPoisonByte));
    if (zeroed) EXPECT_TRUE(all_bytes_equal(device_bytes(f.temp.get(), 0, f.bytes), 0)) << "storage left zero";
    // And the next good call on the same stream and storage is right.
    f.set_offsets({0, 10, 30, 100, 300}, {10, 4000, 40, 100, 420});
    CUDA_OK(fill_random(f.input.get(), 4096, fresh_seed(), Fill::small_integers));
    std::vector<float> ours(5), cub;
    CUDA_OK(R::Sum(f.temp.get(), f.bytes, f.input.get(), f.out.get(), 5, f.begin.get(), f.end.get(), nullptr, checked));
    CUDA_OK(cudaMemcpy(ours.data(), f.out.get(), 5 * sizeof(float), cudaMemcpyDeviceToHost));
    ASSERT_TRUE((run_cub<SegCase<float, float, SegOp::sum>>(f.input.get(), 5, f.begin.get(), f.end.get(), cub)));
    EXPECT_TRUE((same_as_cub<SegCase<float, float, SegOp::sum>>(ours, cub)));
  }
}

// ---- Reduce, iterators, graphs, describe -------------------------------------------------------------

struct Xor {
  __host__ __device__ std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const { return a ^ b; }
};

TEST(SegmentedReduce, UserOperatorAndIteratorInputAgainstCub) {
  REQUIRE_GPU();
  std::mt19937_64 rng(fresh_seed());
  const SegmentList s = shuffled(contiguous("mixed", uniform_lengths(rng, 5000, 0, 40000)), rng);
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(trace("Reduce", s, seed));
  DeviceBuffer<std::uint32_t> input(std::size_t(s.span)), ours(std::size_t(s.size())), theirs(std::size_t(s.size()));
  DeviceSegments<std::int64_t> offsets(s);
  CUDA_OK(fill_random(input.get(), s.span, seed, Fill::random));
  const std::uint32_t init = 0x5a5a5a5au;
  std::size_t bytes = 0, cub_bytes = 0;
  auto check = [&](auto d_in) {
    CUDA_OK(DeviceSegmentedReduce::Reduce(nullptr, bytes, d_in, ours.get(), s.size(), offsets.begin(), offsets.end(), Xor{}, init));
    DeviceBuffer<unsigned char> temp(bytes);
    CUDA_OK(DeviceSegmentedReduce::Reduce(temp.get(), bytes, d_in, ours.get(), s.size(), offsets.begin(), offsets.end(), Xor{}, init));
    CUDA_OK(cub::DeviceSegmentedReduce::Reduce(nullptr, cub_bytes, d_in, theirs.get(), s.size(), offsets.begin(), offsets.end(), Xor{}, init));
    DeviceBuffer<unsigned char> cub_temp(std::max<std::size_t>(cub_bytes, 1));
    CUDA_OK(cub::DeviceSegmentedReduce::Reduce(cub_temp.get(), cub_bytes, d_in, theirs.get(), s.size(), offsets.begin(), offsets.end(), Xor{}, init));
    CUDA_OK(cudaDeviceSynchronize());
    std::vector<std::uint32_t> a(std::size_t(s.size())), b(std::size_t(s.size()));
    CUDA_OK(cudaMemcpy(a.data(), ours.get(), a.size() * 4, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(b.data(), theirs.get(), b.size() * 4, cudaMemcpyDeviceToHost));
    EXPECT_TRUE(same_bits_all(a, b));
  };
  check(static_cast<const std::uint32_t*>(input.get()));
  check(thrust::counting_iterator<std::uint32_t>(7));
}

TEST(SegmentedGraphs, CapturedCallReplaysWithNewInput) {
  REQUIRE_GPU();
  std::mt19937_64 rng(fresh_seed());
  std::vector<std::int64_t> lengths = uniform_lengths(rng, 20000, 0, 3000);
  lengths.push_back(200001);
  const SegmentList s = contiguous("graph", lengths);
  DeviceBuffer<std::int32_t> input(std::size_t(s.span)), out(std::size_t(s.size()));
  DeviceSegments<std::int64_t> offsets(s);
  std::size_t bytes = 0;
  CUDA_OK(DeviceSegmentedReduce::Sum(nullptr, bytes, input.get(), out.get(), s.size(), offsets.begin(), offsets.end()));
  DeviceBuffer<unsigned char> temp(bytes);
  CUDA_OK(prepare_temp_storage(temp.get(), bytes, false));
  CUDA_OK(cudaDeviceSynchronize());  // the offsets and the poison went on the legacy stream
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  const cudaError_t captured = DeviceSegmentedReduce::Sum(temp.get(), bytes, input.get(), out.get(), s.size(),
                                                          offsets.begin(), offsets.end(), stream);
  CUDA_OK(cudaStreamEndCapture(stream, &graph));
  CUDA_OK(captured);
  CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  using C = SegCase<std::int32_t, std::int32_t, SegOp::sum>;
  for (int round = 0; round < 3; ++round) {
    const std::uint64_t seed = fresh_seed();
    CUDA_OK(fill_random(input.get(), s.span, seed, Fill::random, stream));
    CUDA_OK(cudaMemsetAsync(out.get(), kPoisonByte, out.size() * 4, stream));
    CUDA_OK(cudaGraphLaunch(exec, stream));
    CUDA_OK(cudaStreamSynchronize(stream));
    std::vector<std::int32_t> ours(std::size_t(s.size()));
    std::vector<std::int32_t> cub;
    CUDA_OK(cudaMemcpy(ours.data(), out.get(), ours.size() * 4, cudaMemcpyDeviceToHost));
    ASSERT_TRUE(run_cub<C>(input.get(), s.size(), offsets.begin(), offsets.end(), cub));
    EXPECT_TRUE(same_as_cub<C>(ours, cub, &s)) << "round " << round << " seed=" << seed;
  }
  CUDA_OK(cudaGraphExecDestroy(exec));
  CUDA_OK(cudaGraphDestroy(graph));
  CUDA_OK(cudaStreamDestroy(stream));
}

TEST(SegmentedDescribe, NamesTheClassesAndCounts) {
  REQUIRE_GPU();
  const SegmentList s = contiguous("describe", {0, 3, 100, 1000, 10000, 100000});
  DeviceSegments<std::int64_t> offsets(s);
  const std::string few = DeviceSegmentedReduce::describe<float>(s.size(), offsets.begin(), offsets.end());
  for (const std::string& part : {std::string("6 segments"), std::string("1 a block each"),
                                 "A few segments (at most " + std::to_string(detail::segmented::kFewMaxSegments) + ")", std::string("fold kernel"),
                                 std::string("no state")})
    EXPECT_NE(few.find(part), std::string::npos) << part << " not in: " << few;
  ScopedHook general(detail::segmented::few_segments_limit, 0);
  const std::string direct = DeviceSegmentedReduce::describe<float>(s.size(), offsets.begin(), offsets.end());
  for (const std::string& part : {std::string("a direct kernel (1 blocks x 256 threads, 1 segments a warp"),
                                 std::string("stage published"), std::string("1 a warp each")})
    EXPECT_NE(direct.find(part), std::string::npos) << part << " not in: " << direct;
  ScopedHook classify(detail::segmented::direct_segments_limit, 0);
  const std::string text = DeviceSegmentedReduce::describe<float>(s.size(), offsets.begin(), offsets.end());
  EXPECT_NE(text.find("classify (1 blocks"), std::string::npos) << text;
  // The 100000-float segment's chunks: shape.cuh's rule (4 since chunks are 128 KiB, 7 at 64 KiB).
  const std::string split =
      "1 split into " + std::to_string(detail::segmented::Shape<4>::chunking(100000).count) + " chunks";
  for (const std::string& part : {std::string("6 segments"), std::string("1 empty"),
                                 std::string("1 by 1 lane"), std::string("1 by 32 lanes"),
                                 std::string("1 a warp each"), std::string("1 a block each"), split,
                                 std::string("blocks x 256 threads")})
    EXPECT_NE(text.find(part), std::string::npos) << part << " not in: " << text;
  // Six segments are half a wave of a 12-block grid: the 4-chunk segment runs whole on a block.
  EXPECT_EQ(text.find("a block alone each"), std::string::npos) << text;
  Options twelve_blocks;
  twelve_blocks.grid_blocks = 12;
  const std::string whole = DeviceSegmentedReduce::describe<float>(
      s.size(), offsets.begin(), offsets.end(), twelve_blocks);
  EXPECT_NE(whole.find(split + " (1 of them, of at most 4 chunks, a block alone each"),
            std::string::npos)
      << whole;
  // Fixed size, warps of 16 KiB and chunks: 4 blocks an SM (dispatch.cuh, fixed_plan).
  int device = 0, sms = 0;
  CUDA_OK(cudaGetDevice(&device));
  CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const std::string four_an_sm = std::to_string(4 * sms) + " blocks x 256 threads";
  for (std::int64_t size : {std::int64_t(1) << 12, std::int64_t(1) << 16}) {
    const std::string capped = DeviceSegmentedReduce::describe<float>(1 << 16, size);
    EXPECT_NE(capped.find(four_an_sm), std::string::npos) << capped;
  }
  const std::string fixed = DeviceSegmentedReduce::describe<float>(1000, 17);
  EXPECT_NE(fixed.find("a group of 8 lanes"), std::string::npos) << fixed;
  EXPECT_NE(DeviceSegmentedReduce::describe<double>(3, 1 << 24).find("chunks of"), std::string::npos);
}

}  // namespace
}  // namespace gpureduce::testing
