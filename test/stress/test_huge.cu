// Beyond 32-bit offsets, at full scale: a float sum over 2^32 + 7 items (16 GiB) and a
// uint8 -> uint64 sum (an instantiation made here, through the template header) over 5 x 10^9
// items, for automatic and for automatic's rung in the two_kernel and last_block pipelines, each
// against an exact host sum; and a correctly rounded float sum over 2^32 + 7 random fixed-point
// items, against the exact host sum rounded once by MPFR.
#include <mpfr.h>

#include <thread>

#include "gpu/common.cuh"

namespace gpureduce::testing {
namespace {

// Floats: (+1 or -1 by index parity) x (1..4). Every partial sum our kernels form is an integer
// whose magnitude is far below 2^24 (neighbouring elements cancel; a block's sum is a random walk
// of ~10^6 steps), so every order gives the exact integer sum and the test can demand equality.
__host__ __device__ inline int huge_float_value(std::uint64_t seed, std::int64_t i) {
  const int magnitude = 1 + int(mix64(seed ^ std::uint64_t(i)) & 3);
  return (i & 1) ? -magnitude : magnitude;
}
__global__ void fill_huge_floats(float* out, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = float(huge_float_value(seed, i));
}
__global__ void fill_huge_bytes(std::uint8_t* out, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = std::uint8_t(mix64(seed + std::uint64_t(i)) >> 56);
}

template <class F>
std::int64_t parallel_host_sum(std::int64_t n, F value) {
  const int threads = int(std::max(2u, std::thread::hardware_concurrency()));
  std::vector<std::int64_t> partial(std::size_t(threads), 0);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      std::int64_t s = 0;
      for (std::int64_t i = t; i < n; i += threads) s += value(i);
      partial[std::size_t(t)] = s;
    });
  for (auto& w : workers) w.join();
  std::int64_t total = 0;
  for (auto p : partial) total += p;
  return total;
}

std::vector<Options> huge_configurations() {
  return {Options{}, Options{Strategy::automatic, Pipeline::two_kernel},
          Options{Strategy::automatic, Pipeline::last_block}};
}

TEST(Huge, FloatSumOver2To32Items) {
  REQUIRE_GPU();
  const std::int64_t n = (std::int64_t(1) << 32) + 7;
  const std::uint64_t seed = fresh_seed();
  DeviceBuffer<float> in{std::size_t(n)};
  ASSERT_TRUE(in.ok()) << "cannot allocate 16 GiB";
  fill_huge_floats<<<8192, 256>>>(in.get(), n, seed);
  CUDA_OK(cudaGetLastError());
  const std::int64_t exact = parallel_host_sum(n, [&](std::int64_t i) { return std::int64_t(huge_float_value(seed, i)); });
  for (const Options& options : huge_configurations()) {
    SCOPED_TRACE(describe(options, n, 0, seed));
    float result = 0;
    ASSERT_TRUE((run_gpureduce<Case<float, float, Op::sum>>(in.get(), n, options, result)));
    EXPECT_EQ(double(result), double(exact));
  }
}

// Floats k * 2^-24 with random |k| < 2^24: their exact sum, an integer below 2^56 times 2^-24,
// needs rounding (the plan-order sum errs), and MPFR rounds it once.
TEST(Huge, CorrectlyRoundedFloatSumOver2To32Items) {
  REQUIRE_GPU();
  const std::int64_t n = (std::int64_t(1) << 32) + 7;
  const std::uint64_t seed = fresh_seed();
  DeviceBuffer<float> in{std::size_t(n)};
  ASSERT_TRUE(in.ok()) << "cannot allocate 16 GiB";
  CUDA_OK(fill_random(in.get(), n, seed, Fill::random));
  const std::int64_t k_sum = parallel_host_sum(n, [&](std::int64_t i) {
    return fixed_point_k(seed, i, FixedPoint<float>::kBits, Fill::random);
  });
  mpfr_t exact;
  mpfr_init2(exact, 128);
  mpfr_set_si(exact, long(k_sum), MPFR_RNDN);  // long is 64 bits here
  mpfr_mul_2si(exact, exact, -24, MPFR_RNDN);  // exact
  const float want = mpfr_get_flt(exact, MPFR_RNDN);
  mpfr_clear(exact);
  for (Options options : huge_configurations()) {
    options.accuracy = Accuracy::correctly_rounded;
    SCOPED_TRACE(describe(options, n, 0, seed));
    float result = 0;
    ASSERT_TRUE((run_gpureduce<Case<float, float, Op::sum>>(in.get(), n, options, result)));
    EXPECT_TRUE(same_bits(result, want)) << show(result) << " vs " << show(want);
  }
}

TEST(Huge, Uint8ToUint64SumOver5e9Items) {
  REQUIRE_GPU();
  const std::int64_t n = 5'000'000'000;
  const std::uint64_t seed = fresh_seed();
  DeviceBuffer<std::uint8_t> in{std::size_t(n)};
  ASSERT_TRUE(in.ok());
  fill_huge_bytes<<<8192, 256>>>(in.get(), n, seed);
  CUDA_OK(cudaGetLastError());
  const std::int64_t exact = parallel_host_sum(n, [&](std::int64_t i) { return std::int64_t(mix64(seed + std::uint64_t(i)) >> 56); });
  DeviceBuffer<std::uint64_t> out(1);
  for (const Options& options : huge_configurations()) {
    SCOPED_TRACE(describe(options, n, 0, seed));
    std::size_t bytes = 0;
    ASSERT_EQ(DeviceReduce::Sum(nullptr, bytes, in.get(), out.get(), n, nullptr, options), cudaSuccess);
    DeviceBuffer<unsigned char> temp(bytes);
    CUDA_OK(cudaMemset(out.get(), kPoisonByte, sizeof(std::uint64_t)));
    ASSERT_EQ(DeviceReduce::Sum(temp.get(), bytes, in.get(), out.get(), n, nullptr, options), cudaSuccess)
        << last_error_message();
    CUDA_OK(cudaDeviceSynchronize());
    EXPECT_EQ(copy_to_host(out.get()), std::uint64_t(exact));
  }
}

}  // namespace
}  // namespace gpureduce::testing
