// Semantics every strategy x pipeline must keep: empty inputs write what CUB writes; Min/Max over
// infinities and NaN depend on the inputs alone (where CUB differs, see README); signed zeros;
// run-to-run determinism; the generic Reduce with a user operator.
#include <cmath>
#include <limits>

#include "gpu/common.cuh"

namespace gpureduce::testing {
namespace {

template <class T>
__global__ void set_one(T* out, std::int64_t i, T value) {
  out[i] = value;
}

template <class F>
void for_each_configuration(F&& f) {
  for (Strategy strategy : kAllStrategies)
    for (Pipeline pipeline : kAllPipelines) f(Options{strategy, pipeline});
  f(Options{});  // automatic
}

template <class C>
void expect_empty_matches_cub() {
  using Out = typename C::Out;
  DeviceBuffer<typename C::In> in(1);
  DeviceBuffer<Out> d_ref(1);
  CUDA_OK(cudaMemset(d_ref.get(), kPoisonByte, sizeof(Out)));
  CUDA_OK(C::cub(in.get(), d_ref.get(), 0));
  const Out expected = copy_to_host(d_ref.get());
  for_each_configuration([&](const Options& options) {
    SCOPED_TRACE(C::name() + " " + describe(options, 0, 0, 0));
    Out result{};
    ASSERT_TRUE(run_gpureduce<C>(in.get(), 0, options, result));
    EXPECT_TRUE(same_bits(result, expected)) << show(result) << " vs CUB " << show(expected);
  });
}

TEST(Semantics, EmptyInputWritesWhatCubWrites) {
  REQUIRE_GPU();
  expect_empty_matches_cub<Case<float, float, Op::sum>>();
  expect_empty_matches_cub<Case<__half, float, Op::sum>>();
  expect_empty_matches_cub<Case<std::int64_t, std::int64_t, Op::sum>>();
  expect_empty_matches_cub<Case<float, float, Op::min>>();
  expect_empty_matches_cub<Case<double, double, Op::max>>();
  expect_empty_matches_cub<Case<std::int32_t, std::int32_t, Op::min>>();
  expect_empty_matches_cub<Case<std::uint64_t, std::uint64_t, Op::max>>();
  expect_empty_matches_cub<Case<__half, __half, Op::min>>();
  expect_empty_matches_cub<Case<__nv_bfloat16, __nv_bfloat16, Op::max>>();
}

// Min over all +inf is +inf (CUB folds its init, FLT_MAX, in: NVIDIA/cccl#1388); Max over all
// -inf is -inf.
template <class T>
void expect_infinities_survive() {
  for (std::int64_t n : {std::int64_t(1), std::int64_t(257), std::int64_t(100003)}) {
    DeviceBuffer<T> in{std::size_t(n)};
    const T pos_inf = T(std::numeric_limits<float>::infinity());
    const T neg_inf = T(-std::numeric_limits<float>::infinity());
    for_each_configuration([&](const Options& options) {
      SCOPED_TRACE(std::string(Case<T, T, Op::min>::name()) + " " + describe(options, n, 0, 0));
      fill_constant<<<256, 256>>>(in.get(), n, pos_inf);
      CUDA_OK(cudaGetLastError());
      T result{};
      ASSERT_TRUE((run_gpureduce<Case<T, T, Op::min>>(in.get(), n, options, result)));
      EXPECT_TRUE(std::isinf(float(result)) && float(result) > 0) << show(result);
      fill_constant<<<256, 256>>>(in.get(), n, neg_inf);
      CUDA_OK(cudaGetLastError());
      ASSERT_TRUE((run_gpureduce<Case<T, T, Op::max>>(in.get(), n, options, result)));
      EXPECT_TRUE(std::isinf(float(result)) && float(result) < 0) << show(result);
    });
  }
}
TEST(Semantics, MinOfInfinitiesIsInfinity) {
  REQUIRE_GPU();
  expect_infinities_survive<float>();
  expect_infinities_survive<double>();
  expect_infinities_survive<__half>();
  expect_infinities_survive<__nv_bfloat16>();
}

// Any NaN in gives NaN out, wherever it is.
template <class T>
void expect_nan_propagates() {
  const std::int64_t n = 70001;
  DeviceBuffer<T> in{std::size_t(n)};
  const T nan = T(std::numeric_limits<float>::quiet_NaN());
  for (std::int64_t where : {std::int64_t(0), std::int64_t(4242), n - 1}) {
    for_each_configuration([&](const Options& options) {
      SCOPED_TRACE(std::string(Case<T, T, Op::min>::name()) + " nan at " + std::to_string(where) +
                   " " + describe(options, n, 0, 0));
      CUDA_OK(fill_random(in.get(), n, fresh_seed(), Fill::random));
      set_one<<<1, 1>>>(in.get(), where, nan);
      CUDA_OK(cudaGetLastError());
      T result{};
      // float, __half and __nv_bfloat16: the canonical NaN, whatever NaN came in (PTX
      // min.NaN/max.NaN, and the atomic pipeline's quiet_nan); the input's is 0x7fc00000 (float),
      // 0x7e00 (half) or 0x7fc0 (bfloat16).
      const auto expect_float_canonical = [](const T& r) {
        if constexpr (std::is_same_v<T, float>) {
          std::uint32_t bits;
          std::memcpy(&bits, &r, sizeof bits);
          EXPECT_EQ(bits, 0x7fffffffu) << show(r);
        } else if constexpr (sizeof(T) == 2) {
          std::uint16_t bits;
          std::memcpy(&bits, &r, sizeof bits);
          EXPECT_EQ(bits, 0x7fffu) << show(r);
        }
      };
      ASSERT_TRUE((run_gpureduce<Case<T, T, Op::min>>(in.get(), n, options, result)));
      EXPECT_TRUE(std::isnan(float(result))) << "Min: " << show(result);
      expect_float_canonical(result);
      ASSERT_TRUE((run_gpureduce<Case<T, T, Op::max>>(in.get(), n, options, result)));
      EXPECT_TRUE(std::isnan(float(result))) << "Max: " << show(result);
      expect_float_canonical(result);
    });
  }
}
TEST(Semantics, NanPropagates) {
  REQUIRE_GPU();
  expect_nan_propagates<float>();
  expect_nan_propagates<double>();
  expect_nan_propagates<__half>();
  expect_nan_propagates<__nv_bfloat16>();
}

// -0 is below +0, whatever the order: Min of {+0, -0, ...} is -0 and Max is +0.
template <class T>
void expect_signed_zeros_ordered() {
  const std::int64_t n = 100003;
  DeviceBuffer<T> in{std::size_t(n)};
  const T zero = T(0.0f), negative_zero = T(-0.0f);
  for_each_configuration([&](const Options& options) {
    SCOPED_TRACE(std::string(Case<T, T, Op::min>::name()) + " " + describe(options, n, 0, 0));
    fill_constant<<<256, 256>>>(in.get(), n, zero);
    set_one<<<1, 1>>>(in.get(), n / 2, negative_zero);
    CUDA_OK(cudaGetLastError());
    T result = T(1.0f);
    ASSERT_TRUE((run_gpureduce<Case<T, T, Op::min>>(in.get(), n, options, result)));
    EXPECT_TRUE(float(result) == 0 && std::signbit(float(result))) << show(result);
    fill_constant<<<256, 256>>>(in.get(), n, negative_zero);
    set_one<<<1, 1>>>(in.get(), n / 3, zero);
    CUDA_OK(cudaGetLastError());
    ASSERT_TRUE((run_gpureduce<Case<T, T, Op::max>>(in.get(), n, options, result)));
    EXPECT_TRUE(float(result) == 0 && !std::signbit(float(result))) << show(result);
  });
}
TEST(Semantics, SignedZerosAreOrdered) {
  REQUIRE_GPU();
  expect_signed_zeros_ordered<float>();
  expect_signed_zeros_ordered<__half>();
  expect_signed_zeros_ordered<__nv_bfloat16>();
}

// Same configuration, same input: the same bits on every run (atomic float sums excepted).
TEST(Semantics, FloatSumsAreDeterministic) {
  REQUIRE_GPU();
  const std::int64_t n = (1 << 22) + 3;
  DeviceBuffer<float> in{std::size_t(n)};
  const std::uint64_t seed = fresh_seed();
  CUDA_OK(fill_random(in.get(), n, seed, Fill::random));
  for_each_configuration([&](const Options& options) {
    if (options.pipeline == Pipeline::atomic) return;
    SCOPED_TRACE(describe(options, n, 0, seed));
    float first{}, again{};
    ASSERT_TRUE((run_gpureduce<Case<float, float, Op::sum>>(in.get(), n, options, first)));
    for (int run = 0; run < 5; ++run) {
      ASSERT_TRUE((run_gpureduce<Case<float, float, Op::sum>>(in.get(), n, options, again)));
      EXPECT_TRUE(same_bits(first, again)) << show(first) << " then " << show(again);
    }
  });
}

// The template header: any type and operator. A bitwise-xor reduce of uint32 against CUB, and a
// uint8 -> uint64 Sum (an instantiation the library does not ship).
struct BitXor {
  __host__ __device__ std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const { return a ^ b; }
};

TEST(TemplateHeader, CustomOperatorMatchesCub) {
  REQUIRE_GPU();
  for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(4097), std::int64_t((1 << 20) + 7)}) {
    const std::uint64_t seed = fresh_seed();
    DeviceBuffer<std::uint32_t> in{std::size_t(n + 1)};
    CUDA_OK(fill_random(in.get(), n + 1, seed, Fill::random));
    const std::uint32_t init = 0x5a5a1234u;
    DeviceBuffer<std::uint32_t> d_ref(1), d_out(1);
    std::size_t bytes = 0;
    CUDA_OK(cub::DeviceReduce::Reduce(nullptr, bytes, in.get() + 1, d_ref.get(), n, BitXor{}, init));
    DeviceBuffer<unsigned char> cub_temp(bytes);
    CUDA_OK(cub::DeviceReduce::Reduce(cub_temp.get(), bytes, in.get() + 1, d_ref.get(), n, BitXor{}, init));
    const std::uint32_t expected = copy_to_host(d_ref.get());
    for (Strategy strategy : kAllStrategies) {
      for (Pipeline pipeline : {Pipeline::two_kernel, Pipeline::last_block, Pipeline::grid_sync}) {
        const Options options{strategy, pipeline};
        SCOPED_TRACE(describe(options, n, 1, seed));
        std::size_t our_bytes = 0;
        ASSERT_EQ(Reduce(nullptr, our_bytes, in.get() + 1, d_out.get(), n, BitXor{}, init, nullptr, options), cudaSuccess);
        DeviceBuffer<unsigned char> temp(our_bytes);
        CUDA_OK(cudaMemset(d_out.get(), kPoisonByte, sizeof(std::uint32_t)));
        ASSERT_EQ(Reduce(temp.get(), our_bytes, in.get() + 1, d_out.get(), n, BitXor{}, init, nullptr, options), cudaSuccess)
            << last_error_message();
        CUDA_OK(cudaDeviceSynchronize());
        EXPECT_EQ(copy_to_host(d_out.get()), expected);
      }
    }
  }
}

TEST(TemplateHeader, AtomicPipelineRefusesCustomOperators) {
  REQUIRE_GPU();
  DeviceBuffer<std::uint32_t> in(16), out(1);
  std::size_t bytes = 0;
  const Options options{Strategy::vectorized, Pipeline::atomic};
  EXPECT_EQ(Reduce(nullptr, bytes, in.get(), out.get(), 16, BitXor{}, 0u, nullptr, options),
            cudaErrorInvalidValue);
  EXPECT_NE(std::string(last_error_message()).find("atomic"), std::string::npos) << last_error_message();
}

}  // namespace
}  // namespace gpureduce::testing
