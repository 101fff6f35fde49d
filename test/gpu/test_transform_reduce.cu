// gpureduce::TransformReduce, and gpureduce::Reduce over iterators, against
// cub::DeviceReduce::TransformReduce / Reduce given the same input, operator, transform and init:
//   - integers (exact in any order): bitwise CUB's, and an exact host fold of the same generator,
//     for every strategy x pipeline on the engine's sizes, aligned and at d_in + 1: sums of squares
//     of int32 and int64 (uint64 accumulators, so the wraparound is defined), min and max through
//     cuda::minimum<> / cuda::maximum<>, a caller's bit-xor. The atomic pipeline takes plus<> and
//     refuses every other operator (cudaErrorInvalidValue, a message, nothing written);
//   - float sums of squares: Strategy::cub_block in two_kernel and last_block bitwise CUB's (it
//     reproduces CUB's order), every plan within a stated bound of the exact sum;
//   - iterators, read element by element: counting (n(n-1)/2), constant (init + n*c), a transform
//     iterator over a pointer, a zip of two arrays (an int64 dot product), each against CUB and the
//     exact value; thrust::device_ptr (unwrapped to its pointer): the raw pointer's bits under
//     every plan;
//   - empty input writes init; negative n, null d_out, null d_in, too little temp storage and
//     correctly rounded accuracy are refused with cudaErrorInvalidValue and d_out left as it was.
// Device lambdas are not enabled: transforms and operators are structs.
#include <algorithm>
#include <cmath>
#include <limits>

#include <thrust/device_ptr.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/tuple.h>

#include "gpu/common.cuh"
#include "gpu/level1_calls.cuh"

namespace gpureduce::testing {
namespace {

// ---- Transforms and operators ----------------------------------------------------------------------

// x * x mod 2^64, in unsigned arithmetic so that the wraparound is defined (for int32 the square
// itself is exact; the sum wraps).
struct SquareWrap {
  template <class X>
  __host__ __device__ std::uint64_t operator()(X x) const {
    return std::uint64_t(x) * std::uint64_t(x);
  }
};
struct XorMask {
  __host__ __device__ std::int32_t operator()(std::int32_t x) const { return x ^ 0x5a5a5a5a; }
};
// A caller's operator: no atomic for it, so the atomic pipeline refuses it.
struct BitXor {
  __host__ __device__ std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const { return a ^ b; }
};
// Element i of a zip of two arrays: their product in int64 (exact for the inputs used).
struct Multiply {
  template <class Pair>
  __host__ __device__ std::int64_t operator()(const Pair& p) const {
    return std::int64_t(thrust::get<0>(p)) * std::int64_t(thrust::get<1>(p));
  }
};

// The atomic pipeline's combiner takes cuda::minimum<> and cuda::maximum<> as the library's own
// Min/Max (detail/pipeline/atomic_combine.cuh: order-preserving keys, exact for integers), so
// these integer tests run it and expect CUB's bits; BitXor stays refused.
constexpr bool kAtomicTakesCudaMinMax = true;

// ---- Running calls -----------------------------------------------------------------------------------

// Marks a call without a transform: Reduce instead of TransformReduce (ours and CUB's).
struct NoTransform {};

template <class InputIt, class Out, class ReduceOp, class TransformOp, class Init>
cudaError_t ours_call(void* temp, std::size_t& bytes, InputIt d_in, Out* d_out, std::int64_t n,
                      ReduceOp op, TransformOp transform, Init init, const Options& options) {
  if constexpr (std::is_same_v<TransformOp, NoTransform>)
    return gpureduce::Reduce(temp, bytes, d_in, d_out, n, op, init, nullptr, options);
  else
    return gpureduce::TransformReduce(temp, bytes, d_in, d_out, n, op, transform, init, nullptr, options);
}

template <class InputIt, class Out, class ReduceOp, class TransformOp, class Init>
cudaError_t cub_call(void* temp, std::size_t& bytes, InputIt d_in, Out* d_out, std::int64_t n,
                     ReduceOp op, TransformOp transform, Init init) {
  if constexpr (std::is_same_v<TransformOp, NoTransform>)
    return ::cub::DeviceReduce::Reduce(temp, bytes, d_in, d_out, n, op, init);
  else
    return ::cub::DeviceReduce::TransformReduce(temp, bytes, d_in, d_out, n, op, transform, init);
}

// Every plan gives `want` bitwise (an exact result: integers), or refuses where the atomic
// pipeline cannot take the operator. `ours(temp, bytes, options)` is the call.
template <class Out, class Ours>
void expect_every_plan_gives(Ours&& ours, Out* d_out, const Out& want, bool atomic_takes_op,
                             const std::string& label, std::int64_t n, int offset, std::uint64_t seed,
                             Scratch& temp) {
  for (const Options& options : every_plan()) {
    SCOPED_TRACE(label + " " + describe(options, n, offset, seed));
    const auto call = [&](void* t, std::size_t& b) { return ours(t, b, options); };
    if (options.pipeline == Pipeline::atomic && !atomic_takes_op) {
      EXPECT_TRUE(atomic_refuses(ours, options, d_out, temp));
      continue;
    }
    Out got{};
    ASSERT_TRUE(run_call(call, d_out, got, options.temp_storage_zeroed, temp));
    EXPECT_TRUE(same_bits(got, want)) << "got " << show(got) << ", want " << show(want);
  }
}

// CUB's call over `d_in` gives `exact` (a check on the host's reference), and so does every plan of
// ours; Reduce on both sides where `transform` is NoTransform.
template <class InputIt, class Out, class ReduceOp, class TransformOp>
void expect_cub_and_every_plan_give(InputIt d_in, Out* d_out, std::int64_t n, ReduceOp op, TransformOp transform,
                                    Out init, Out exact, bool atomic_takes_op, const std::string& label,
                                    int offset, std::uint64_t seed, Scratch& temp, Scratch& cub_temp) {
  Out cub_result{};
  ASSERT_TRUE(run_call([&](void* t, std::size_t& b) { return cub_call(t, b, d_in, d_out, n, op, transform, init); },
                       d_out, cub_result, false, cub_temp))
      << label << " " << describe(Options{}, n, offset, seed);
  ASSERT_EQ(cub_result, exact) << label << " " << describe(Options{}, n, offset, seed)
                               << ": CUB disagrees with the exact value";
  expect_every_plan_gives(
      [&](void* t, std::size_t& b, const Options& o) {
        return ours_call(t, b, d_in, d_out, n, op, transform, init, o);
      },
      d_out, exact, atomic_takes_op, label, n, offset, seed, temp);
}

// ---- Integer transform-reduce and reduce over pointers ----------------------------------------------

// `host_fold(acc, x)` folds element x into the host's exact reference, from init.
template <class In, class Out, class ReduceOp, class TransformOp, class HostFold>
void expect_integers_match_cub(const char* name, Fill fill, ReduceOp op, TransformOp transform,
                               HostFold host_fold, bool atomic_takes_op) {
  Scratch temp, cub_temp;
  DeviceBuffer<Out> d_out(1);
  for (std::int64_t n : engine_sizes()) {
    for (int offset : {0, 1}) {
      const std::uint64_t seed = fresh_seed();
      const std::string what = std::string(name) + " " + describe(Options{}, n, offset, seed);
      DeviceBuffer<In> buffer{std::size_t(n + offset + 1)};
      ASSERT_TRUE(buffer.ok()) << what;
      CUDA_OK(fill_random(buffer.get(), n + offset + 1, seed, fill));
      const In* d_in = buffer.get() + offset;
      const Out init = Out(mix64(seed ^ 0x1234));  // any value: folded in like an element

      Out exact = init;
      for (std::int64_t i = 0; i < n; ++i) exact = host_fold(exact, make_value<In>(seed, i + offset, fill));
      expect_cub_and_every_plan_give(d_in, d_out.get(), n, op, transform, init, exact, atomic_takes_op, name,
                                     offset, seed, temp, cub_temp);
    }
  }
}

TEST(TransformReduceIntegers, Int32SumOfSquaresWraps) {
  REQUIRE_GPU();
  expect_integers_match_cub<std::int32_t, std::uint64_t>(
      "TransformReduce int32 -> x*x -> plus<uint64>", Fill::random, ::cuda::std::plus<>{}, SquareWrap{},
      [](std::uint64_t acc, std::int32_t x) { return acc + SquareWrap{}(x); }, true);
}
TEST(TransformReduceIntegers, Int64SumOfSquaresWraps) {
  REQUIRE_GPU();
  expect_integers_match_cub<std::int64_t, std::uint64_t>(
      "TransformReduce int64 -> x*x mod 2^64 -> plus<uint64>", Fill::random, ::cuda::std::plus<>{},
      SquareWrap{}, [](std::uint64_t acc, std::int64_t x) { return acc + SquareWrap{}(x); }, true);
}
TEST(TransformReduceIntegers, Int32MinimumOfTransformed) {
  REQUIRE_GPU();
  expect_integers_match_cub<std::int32_t, std::int32_t>(
      "TransformReduce int32 -> x^mask -> cuda::minimum", Fill::random, ::cuda::minimum<>{}, XorMask{},
      [](std::int32_t acc, std::int32_t x) { return std::min(acc, XorMask{}(x)); }, kAtomicTakesCudaMinMax);
}
TEST(TransformReduceIntegers, Int64MaximumThroughReduce) {
  REQUIRE_GPU();
  expect_integers_match_cub<std::int64_t, std::int64_t>(
      "Reduce int64 cuda::maximum", Fill::random, ::cuda::maximum<>{}, NoTransform{},
      [](std::int64_t acc, std::int64_t x) { return std::max(acc, x); }, kAtomicTakesCudaMinMax);
}
TEST(TransformReduceIntegers, Uint32CallersBitXorAtomicRefuses) {
  REQUIRE_GPU();
  expect_integers_match_cub<std::uint32_t, std::uint32_t>(
      "Reduce uint32 BitXor", Fill::random, BitXor{}, NoTransform{},
      [](std::uint32_t acc, std::uint32_t x) { return acc ^ x; }, false);
}

// ---- Float sums of squares -------------------------------------------------------------------------

// A float sum along any tree whose paths have at most `depth` additions, of terms each rounded once
// before (the square), is within (depth + 1) * u * sum|terms| of the exact sum (u = 2^-24; each
// rounding multiplies a term by at most 1 + u, and depth * u << 1 here). The depth is
// test_matrix.cu's for a Sum with this plan: a thread's chain (at most 16 items for each of
// ceil(n / (grid * block)) loads, plus one load), the block's tree twice over, the partials
// (in sequence for atomic and cluster, else a second pass of ceil(grid / block) and a tree) and 8
// for heads, tails and init. The plan is DeviceReduce::PlanSum<float, float>'s for the same n and
// options (same item size and accumulator as TransformReduce's); its grid is halved for the chain
// and doubled for the partials, so that a transformed kernel of other occupancy is covered too.
double float_sum_bound(const LaunchPlan& plan, std::int64_t n, long double abs_sum, int rounded_terms) {
  const double grid_low = std::max(1.0, std::floor(plan.grid_blocks / 2.0));
  const double grid_high = 2.0 * plan.grid_blocks;
  const double per_thread = std::ceil(double(n) / (grid_low * plan.block_threads));
  const double levels = std::log2(double(plan.block_threads)) + 1;
  const double partials = (plan.pipeline == Pipeline::atomic || plan.pipeline == Pipeline::cluster)
                              ? grid_high
                              : std::ceil(grid_high / plan.block_threads) + levels;
  const double depth = 16 * (per_thread + 1) + 2 * levels + partials + 8 + rounded_terms;
  return depth * std::ldexp(1.0, -24) * double(abs_sum);
}

// The plan a float Sum would launch for these arguments: the shape float_sum_bound reads.
cudaError_t plan_float_sum(LaunchPlan& plan, const float* d_in, std::int64_t n, const Options& options) {
  return DeviceReduce::PlanSum<float, float>(plan, d_in, n, options);
}

// The exact sums of Fill::random floats (k * 2^-24) and of their squares (k^2 * 2^-48, exact in
// double), from the generator's integers.
struct ExactSums {
  long double sum = 0, abs_sum = 0, sum_of_squares = 0;
};
ExactSums exact_float_sums(std::uint64_t seed, std::int64_t n, int offset) {
  __int128 k_sum = 0, k_abs = 0, k_squares = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t k = fixed_point_k(seed, i + offset, FixedPoint<float>::kBits, Fill::random);
    k_sum += k;
    k_abs += k < 0 ? -k : k;
    k_squares += __int128(k) * k;
  }
  ExactSums s;
  s.sum = (long double)k_sum * std::ldexp(1.0L, -24);
  s.abs_sum = (long double)k_abs * std::ldexp(1.0L, -24);
  s.sum_of_squares = (long double)k_squares * std::ldexp(1.0L, -48);
  return s;
}

::testing::AssertionResult within_bound(float got, long double exact, double bound) {
  const double error = std::fabs(double((long double)got - exact));
  if (error <= bound) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << show(got) << ", exact " << double(exact) << ", error "
                                       << error << " > bound " << bound;
}

TEST(TransformReduceFloat, SquaresCubBlockHasCubsBitsEveryPlanWithinBound) {
  REQUIRE_GPU();
  Scratch temp, cub_temp;
  DeviceBuffer<float> d_out(1);
  const float init = 0.25f;  // exact, and folded like a term
  for (std::int64_t n : engine_sizes()) {
    for (int offset : {0, 1}) {
      const std::uint64_t seed = fresh_seed();
      DeviceBuffer<float> buffer{std::size_t(n + offset + 1)};
      ASSERT_TRUE(buffer.ok());
      CUDA_OK(fill_random(buffer.get(), n + offset + 1, seed, Fill::random));
      const float* d_in = buffer.get() + offset;
      const ExactSums sums = exact_float_sums(seed, n, offset);
      const long double exact = init + sums.sum_of_squares, abs_sum = exact;  // every term >= 0
      const auto ours = [&](const Options& o) {
        return [&, o](void* t, std::size_t& b) {
          return gpureduce::TransformReduce(t, b, d_in, d_out.get(), n, ::cuda::std::plus<>{}, SquareFloat{}, init, nullptr, o);
        };
      };
      float cub_result = 0;
      ASSERT_TRUE(run_call([&](void* t, std::size_t& b) {
                             return ::cub::DeviceReduce::TransformReduce(t, b, d_in, d_out.get(), n, ::cuda::std::plus<>{},
                                                                         SquareFloat{}, init);
                           },
                           d_out.get(), cub_result, false, cub_temp));

      // cub_block runs CUB's order: CUB's bits (and so CUB is within cub_block's bound, which
      // checks the reference).
      for (Pipeline pipeline : {Pipeline::two_kernel, Pipeline::last_block}) {
        for (bool zeroed : {false, true}) {
          Options options{Strategy::cub_block, pipeline};
          options.temp_storage_zeroed = zeroed;
          SCOPED_TRACE(describe(options, n, offset, seed));
          float got = 0;
          ASSERT_TRUE(run_call(ours(options), d_out.get(), got, zeroed, temp));
          EXPECT_TRUE(same_bits(got, cub_result)) << "cub_block " << show(got) << " vs CUB " << show(cub_result);
          LaunchPlan plan;
          ASSERT_EQ(plan_float_sum(plan, d_in, n, options), cudaSuccess) << last_error_message();
          EXPECT_TRUE(within_bound(cub_result, exact, float_sum_bound(plan, n, abs_sum, 1))) << "CUB";
        }
      }
      for (const Options& options : every_plan()) {
        SCOPED_TRACE(describe(options, n, offset, seed));
        float got = 0;
        ASSERT_TRUE(run_call(ours(options), d_out.get(), got, options.temp_storage_zeroed, temp));
        LaunchPlan plan;
        ASSERT_EQ(plan_float_sum(plan, d_in, n, options), cudaSuccess) << last_error_message();
        EXPECT_TRUE(within_bound(got, exact, float_sum_bound(plan, n, abs_sum, 1)));
      }
    }
  }
}

// ---- Iterators ----------------------------------------------------------------------------------------

// Sum of start, start + 1, ..., start + n - 1: start * n + n(n-1)/2, exact in int64.
TEST(IteratorReduce, CountingIteratorSumsToTriangularNumbers) {
  REQUIRE_GPU();
  Scratch temp, cub_temp;
  DeviceBuffer<std::int64_t> d_out(1);
  for (std::int64_t n : engine_sizes()) {
    for (std::int64_t start : {std::int64_t(0), std::int64_t(1)}) {
      const thrust::counting_iterator<std::int64_t> first(start);
      const std::int64_t exact = start * n + n * (n - 1) / 2;
      expect_cub_and_every_plan_give(first, d_out.get(), n, ::cuda::std::plus<>{}, NoTransform{}, std::int64_t(0),
                                     exact, true, "counting from " + std::to_string(start), int(start), 0, temp,
                                     cub_temp);
    }
  }
}

// n copies of c, plus init: init + n * c (int64 accumulator: plus<>(int64, int)).
TEST(IteratorReduce, ConstantIteratorSumsToNTimesC) {
  REQUIRE_GPU();
  Scratch temp, cub_temp;
  DeviceBuffer<std::int64_t> d_out(1);
  for (std::int64_t n : engine_sizes()) {
    const std::uint64_t seed = fresh_seed();
    const int c = 1 + int(mix64(seed) % 1000);
    const std::int64_t init = std::int64_t(mix64(seed + 1) % 1000000) - 500000;
    const thrust::constant_iterator<int> constant(c);
    const std::int64_t exact = init + n * c;
    expect_cub_and_every_plan_give(constant, d_out.get(), n, ::cuda::std::plus<>{}, NoTransform{}, init, exact, true,
                                   "constant " + std::to_string(c) + " init " + std::to_string(init), 0, seed, temp,
                                   cub_temp);
  }
}

// A transform iterator over a device pointer (int32 squares, summed mod 2^64): the iterator path of
// what Int32SumOfSquaresWraps does through TransformReduce's pointer path; the same exact value.
TEST(IteratorReduce, TransformIteratorOverPointer) {
  REQUIRE_GPU();
  Scratch temp, cub_temp;
  DeviceBuffer<std::uint64_t> d_out(1);
  for (std::int64_t n : engine_sizes()) {
    for (int offset : {0, 1}) {
      const std::uint64_t seed = fresh_seed();
      DeviceBuffer<std::int32_t> buffer{std::size_t(n + offset + 1)};
      ASSERT_TRUE(buffer.ok());
      CUDA_OK(fill_random(buffer.get(), n + offset + 1, seed, Fill::random));
      const std::int32_t* d_in = buffer.get() + offset;
      const auto squares = thrust::make_transform_iterator(d_in, SquareWrap{});
      const std::uint64_t init = mix64(seed ^ 0x1234);
      std::uint64_t exact = init;
      for (std::int64_t i = 0; i < n; ++i) exact += SquareWrap{}(make_value<std::int32_t>(seed, i + offset, Fill::random));
      expect_cub_and_every_plan_give(squares, d_out.get(), n, ::cuda::std::plus<>{}, NoTransform{}, init, exact, true,
                                     "transform_iterator(x*x)", offset, seed, temp, cub_temp);
    }
  }
}

// Integers in [-2^18, 2^18): products below 2^36 in magnitude, so a dot product of up to 2^24 + 13
// of them is exact in int64.
__host__ __device__ std::int32_t medium_int(std::uint64_t seed, std::int64_t i) {
  return std::int32_t(mix64(seed ^ mix64(std::uint64_t(i))) >> 45) - (1 << 18);
}
__global__ void fill_medium(std::int32_t* out, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = medium_int(seed, i);
}

// A zip of two arrays through Multiply: a dot product, against CUB and the exact host value. The
// first array starts at + offset, so the two are misaligned relative to each other.
TEST(IteratorReduce, ZipIteratorDotProduct) {
  REQUIRE_GPU();
  Scratch temp, cub_temp;
  DeviceBuffer<std::int64_t> d_out(1);
  for (std::int64_t n : engine_sizes()) {
    for (int offset : {0, 1}) {
      const std::uint64_t seed = fresh_seed();
      DeviceBuffer<std::int32_t> a{std::size_t(n + offset + 1)}, b{std::size_t(n + 1)};
      ASSERT_TRUE(a.ok() && b.ok());
      fill_medium<<<1024, 256>>>(a.get(), n + offset + 1, seed);
      fill_medium<<<1024, 256>>>(b.get(), n + 1, seed + 1);
      CUDA_OK(cudaGetLastError());
      const auto pairs = thrust::make_zip_iterator(static_cast<const std::int32_t*>(a.get() + offset),
                                                   static_cast<const std::int32_t*>(b.get()));
      const std::int64_t init = std::int64_t(mix64(seed ^ 0x1234) % 1000000);
      std::int64_t exact = init;
      for (std::int64_t i = 0; i < n; ++i)
        exact += std::int64_t(medium_int(seed, i + offset)) * medium_int(seed + 1, i);
      expect_cub_and_every_plan_give(pairs, d_out.get(), n, ::cuda::std::plus<>{}, Multiply{}, init, exact, true,
                                     "zip(a, b) -> a*b", offset, seed, temp, cub_temp);
    }
  }
}

// thrust::device_ptr is unwrapped to its pointer, so it is read (with vector loads) and reduced in
// exactly the raw pointer's order: the same bits under every plan, for Reduce (device_ptr<float>)
// and TransformReduce (device_ptr<const float>). The atomic pipeline's float sums depend on the
// order the blocks finish in, so there both are checked against the bound instead.
TEST(IteratorReduce, DevicePtrGivesTheRawPointersBits) {
  REQUIRE_GPU();
  Scratch temp;
  DeviceBuffer<float> d_out(1);
  const float init = 0.25f;
  for (std::int64_t n : engine_sizes()) {
    for (int offset : {0, 1}) {
      const std::uint64_t seed = fresh_seed();
      DeviceBuffer<float> buffer{std::size_t(n + offset + 1)};
      ASSERT_TRUE(buffer.ok());
      CUDA_OK(fill_random(buffer.get(), n + offset + 1, seed, Fill::random));
      float* raw = buffer.get() + offset;
      const thrust::device_ptr<float> ptr(raw);
      const thrust::device_ptr<const float> const_ptr = thrust::device_pointer_cast(static_cast<const float*>(raw));
      const ExactSums sums = exact_float_sums(seed, n, offset);
      for (const Options& options : every_plan()) {
        SCOPED_TRACE(describe(options, n, offset, seed));
        const ::cuda::std::plus<> plus;
        float from_raw = 0, from_ptr = 0, squares_raw = 0, squares_ptr = 0;
        ASSERT_TRUE(run_call([&](void* t, std::size_t& b) {
                               return gpureduce::Reduce(t, b, raw, d_out.get(), n, plus, init, nullptr, options);
                             },
                             d_out.get(), from_raw, options.temp_storage_zeroed, temp));
        ASSERT_TRUE(run_call([&](void* t, std::size_t& b) {
                               return gpureduce::Reduce(t, b, ptr, d_out.get(), n, plus, init, nullptr, options);
                             },
                             d_out.get(), from_ptr, options.temp_storage_zeroed, temp));
        ASSERT_TRUE(run_call([&](void* t, std::size_t& b) {
                               return gpureduce::TransformReduce(t, b, static_cast<const float*>(raw), d_out.get(), n,
                                                                 plus, SquareFloat{}, init, nullptr, options);
                             },
                             d_out.get(), squares_raw, options.temp_storage_zeroed, temp));
        ASSERT_TRUE(run_call([&](void* t, std::size_t& b) {
                               return gpureduce::TransformReduce(t, b, const_ptr, d_out.get(), n, plus, SquareFloat{},
                                                                 init, nullptr, options);
                             },
                             d_out.get(), squares_ptr, options.temp_storage_zeroed, temp));
        LaunchPlan plan;
        ASSERT_EQ(plan_float_sum(plan, raw, n, options), cudaSuccess) << last_error_message();
        if (plan.pipeline == Pipeline::atomic) {
          const double sum_bound = float_sum_bound(plan, n, init + sums.abs_sum, 0);
          const double squares_bound = float_sum_bound(plan, n, init + sums.sum_of_squares, 1);
          EXPECT_TRUE(within_bound(from_raw, init + sums.sum, sum_bound)) << "Reduce, raw pointer";
          EXPECT_TRUE(within_bound(from_ptr, init + sums.sum, sum_bound)) << "Reduce, device_ptr";
          EXPECT_TRUE(within_bound(squares_raw, init + sums.sum_of_squares, squares_bound)) << "TransformReduce, raw";
          EXPECT_TRUE(within_bound(squares_ptr, init + sums.sum_of_squares, squares_bound)) << "TransformReduce, device_ptr";
        } else {
          EXPECT_TRUE(same_bits(from_ptr, from_raw)) << "Reduce: device_ptr " << show(from_ptr) << ", raw " << show(from_raw);
          EXPECT_TRUE(same_bits(squares_ptr, squares_raw))
              << "TransformReduce: device_ptr " << show(squares_ptr) << ", raw " << show(squares_raw);
          EXPECT_TRUE(within_bound(from_raw, init + sums.sum, float_sum_bound(plan, n, init + sums.abs_sum, 0)))
              << "Reduce, raw pointer";
        }
      }
    }
  }
}

// ---- Empty input, bad arguments -------------------------------------------------------------------

// n = 0 writes init, bit for bit, under every plan (atomic too, where it takes the operator): for
// a pointer with a transform (integer and float, whose init is -0.0f: its sign must survive), an
// iterator, and cuda::minimum (atomic refuses). CUB writes the same.
TEST(TransformReduceSemantics, EmptyInputWritesInit) {
  REQUIRE_GPU();
  Scratch temp, cub_temp;
  DeviceBuffer<std::int32_t> ints(1);
  DeviceBuffer<float> floats(1);
  CUDA_OK(fill_random(ints.get(), 1, fresh_seed(), Fill::random));
  CUDA_OK(fill_random(floats.get(), 1, fresh_seed(), Fill::random));
  const std::int32_t* d_ints = ints.get();
  const float* d_floats = floats.get();
  DeviceBuffer<std::uint64_t> out_u64(1);
  DeviceBuffer<float> out_f(1);
  DeviceBuffer<std::int64_t> out_i64(1);
  DeviceBuffer<std::int32_t> out_i32(1);
  const std::uint64_t seed = fresh_seed();
  const auto expect_cub_writes = [&](auto call, auto* d_out, auto init) {
    decltype(init) got{};
    ASSERT_TRUE(run_call(call, d_out, got, false, cub_temp));
    EXPECT_TRUE(same_bits(got, init)) << "CUB wrote " << show(got) << " for init " << show(init);
  };

  const std::uint64_t u64_init = mix64(seed);
  expect_cub_writes([&](void* t, std::size_t& b) {
    return ::cub::DeviceReduce::TransformReduce(t, b, d_ints, out_u64.get(), 0, ::cuda::std::plus<>{}, SquareWrap{}, u64_init);
  }, out_u64.get(), u64_init);
  expect_every_plan_gives(
      [&](void* t, std::size_t& b, const Options& o) {
        return gpureduce::TransformReduce(t, b, d_ints, out_u64.get(), 0, ::cuda::std::plus<>{}, SquareWrap{}, u64_init,
                                          nullptr, o);
      },
      out_u64.get(), u64_init, true, "TransformReduce int32 x*x", 0, 0, seed, temp);

  const float f_init = -0.0f;
  expect_cub_writes([&](void* t, std::size_t& b) {
    return ::cub::DeviceReduce::TransformReduce(t, b, d_floats, out_f.get(), 0, ::cuda::std::plus<>{}, SquareFloat{}, f_init);
  }, out_f.get(), f_init);
  expect_every_plan_gives(
      [&](void* t, std::size_t& b, const Options& o) {
        return gpureduce::TransformReduce(t, b, d_floats, out_f.get(), 0, ::cuda::std::plus<>{}, SquareFloat{}, f_init,
                                          nullptr, o);
      },
      out_f.get(), f_init, true, "TransformReduce float x*x", 0, 0, seed, temp);

  const std::int64_t i64_init = std::int64_t(mix64(seed + 1));
  const thrust::counting_iterator<std::int64_t> first(5);
  expect_every_plan_gives(
      [&](void* t, std::size_t& b, const Options& o) {
        return gpureduce::Reduce(t, b, first, out_i64.get(), 0, ::cuda::std::plus<>{}, i64_init, nullptr, o);
      },
      out_i64.get(), i64_init, true, "Reduce counting_iterator", 0, 0, seed, temp);

  const std::int32_t i32_init = std::int32_t(mix64(seed + 2));
  expect_every_plan_gives(
      [&](void* t, std::size_t& b, const Options& o) {
        return gpureduce::TransformReduce(t, b, d_ints, out_i32.get(), 0, ::cuda::minimum<>{}, XorMask{}, i32_init,
                                          nullptr, o);
      },
      out_i32.get(), i32_init, kAtomicTakesCudaMinMax, "TransformReduce int32 x^mask cuda::minimum", 0, 0, seed,
      temp);
}

// Negative n (a pointer and an iterator), null d_out with temp storage, null d_in with n > 0 and
// one byte too little temp storage: cudaErrorInvalidValue, a message, no launch, d_out untouched.
// A valid call right after each still works (no sticky error).
TEST(TransformReduceErrors, BadArgumentsAreRefusedAndWriteNothing) {
  REQUIRE_GPU();
  Scratch temp;
  const std::int64_t n = 100003;
  DeviceBuffer<std::int32_t> in{std::size_t(n)};
  DeviceBuffer<std::uint64_t> out(1);
  DeviceBuffer<std::int64_t> out_i64(1);
  const std::uint64_t seed = fresh_seed();
  CUDA_OK(fill_random(in.get(), n, seed, Fill::random));
  const std::int32_t* d_in = in.get();
  const thrust::counting_iterator<std::int64_t> first(0);
  const std::uint64_t init = mix64(seed);
  std::uint64_t exact = init;
  for (std::int64_t i = 0; i < n; ++i) exact += SquareWrap{}(make_value<std::int32_t>(seed, i, Fill::random));
  const std::vector<Options> plans{Options{}, Options{Strategy::vectorized, Pipeline::two_kernel},
                                   Options{Strategy::cub_block, Pipeline::last_block},
                                   Options{Strategy::sequential, Pipeline::atomic},
                                   Options{Strategy::warp_shuffle, Pipeline::cluster}};
  for (const Options& options : plans) {
    SCOPED_TRACE(describe(options, n, 0, seed));
    const auto pointer_call = [&](const std::int32_t* x, std::uint64_t* y, std::int64_t count) {
      return [=](void* t, std::size_t& b) {
        return gpureduce::TransformReduce(t, b, x, y, count, ::cuda::std::plus<>{}, SquareWrap{}, init, nullptr, options);
      };
    };
    const auto iterator_call = [&](std::int64_t count) {
      return [=, &out_i64](void* t, std::size_t& b) {
        return gpureduce::Reduce(t, b, first, out_i64.get(), count, ::cuda::std::plus<>{}, std::int64_t(0), nullptr, options);
      };
    };
    std::size_t bytes = 0;
    ASSERT_EQ(pointer_call(d_in, out.get(), n)(nullptr, bytes), cudaSuccess) << last_error_message();
    std::size_t iterator_bytes = 0;
    ASSERT_EQ(iterator_call(n)(nullptr, iterator_bytes), cudaSuccess) << last_error_message();

    EXPECT_TRUE(refused(pointer_call(d_in, out.get(), -1), out.get(), bytes, temp)) << "negative n, pointer";
    EXPECT_TRUE(refused(iterator_call(-1), out_i64.get(), iterator_bytes, temp)) << "negative n, iterator";
    EXPECT_TRUE(refused_with_temp(pointer_call(d_in, static_cast<std::uint64_t*>(nullptr), n),
                                  static_cast<std::uint64_t*>(nullptr), bytes, temp, "d_out"))
        << "null d_out";
    EXPECT_TRUE(refused_with_temp(pointer_call(nullptr, out.get(), n), out.get(), bytes, temp)) << "null d_in";
    EXPECT_TRUE(refused_with_temp(pointer_call(d_in, out.get(), n), out.get(), bytes - 1, temp, "temp_storage_bytes"))
        << "one byte too little temp storage";
    EXPECT_TRUE(refused_with_temp(iterator_call(n), out_i64.get(), iterator_bytes - 1, temp, "temp_storage_bytes"))
        << "one byte too little temp storage, iterator";

    // Still usable afterwards: the same calls with good arguments give the exact values.
    std::uint64_t got = 0;
    ASSERT_TRUE(run_call(pointer_call(d_in, out.get(), n), out.get(), got, false, temp));
    EXPECT_EQ(got, exact);
    std::int64_t triangular = 0;
    ASSERT_TRUE(run_call(iterator_call(n), out_i64.get(), triangular, false, temp));
    EXPECT_EQ(triangular, n * (n - 1) / 2);
  }
}

// Accuracy::correctly_rounded is for DeviceReduce::Sum: Reduce and TransformReduce refuse it, for
// floats and integers, pointers, device_ptr and iterators alike (size query and call).
TEST(TransformReduceErrors, CorrectlyRoundedIsRefused) {
  REQUIRE_GPU();
  Scratch temp;
  const std::int64_t n = 65537;
  DeviceBuffer<float> in{std::size_t(n)};
  DeviceBuffer<float> out(1);
  DeviceBuffer<std::int64_t> out_i64(1);
  CUDA_OK(fill_random(in.get(), n, fresh_seed(), Fill::random));
  const float* d_in = in.get();
  const thrust::device_ptr<const float> ptr = thrust::device_pointer_cast(d_in);
  const thrust::counting_iterator<std::int64_t> first(0);
  for (Options options : {Options{}, Options{Strategy::vectorized, Pipeline::two_kernel},
                          Options{Strategy::cub_block, Pipeline::last_block}}) {
    SCOPED_TRACE(describe(options, n, 0, 0));
    Options rounded = options;
    rounded.accuracy = Accuracy::correctly_rounded;
    const auto squares = [&](const Options& o) {
      return [&, o](void* t, std::size_t& b) {
        return gpureduce::TransformReduce(t, b, d_in, out.get(), n, ::cuda::std::plus<>{}, SquareFloat{}, 0.0f, nullptr, o);
      };
    };
    const auto sum = [&](const Options& o) {
      return [&, o](void* t, std::size_t& b) {
        return gpureduce::Reduce(t, b, d_in, out.get(), n, ::cuda::std::plus<>{}, 0.0f, nullptr, o);
      };
    };
    const auto sum_ptr = [&](const Options& o) {
      return [&, o](void* t, std::size_t& b) {
        return gpureduce::Reduce(t, b, ptr, out.get(), n, ::cuda::std::plus<>{}, 0.0f, nullptr, o);
      };
    };
    const auto count = [&](const Options& o) {
      return [&, o](void* t, std::size_t& b) {
        return gpureduce::Reduce(t, b, first, out_i64.get(), n, ::cuda::std::plus<>{}, std::int64_t(0), nullptr, o);
      };
    };
    std::size_t float_bytes = 0, count_bytes = 0;
    ASSERT_EQ(squares(options)(nullptr, float_bytes), cudaSuccess) << last_error_message();
    ASSERT_EQ(count(options)(nullptr, count_bytes), cudaSuccess) << last_error_message();
    EXPECT_TRUE(refused(squares(rounded), out.get(), float_bytes, temp)) << "TransformReduce float";
    EXPECT_TRUE(refused(sum(rounded), out.get(), float_bytes, temp)) << "Reduce float pointer";
    EXPECT_TRUE(refused(sum_ptr(rounded), out.get(), float_bytes, temp)) << "Reduce float device_ptr";
    EXPECT_TRUE(refused(count(rounded), out_i64.get(), count_bytes, temp)) << "Reduce counting_iterator";
  }
}

}  // namespace
}  // namespace gpureduce::testing
