// The level-1 calls' core checks, across every strategy x pipeline: ArgMin/ArgMax bitwise against
// cub::DeviceReduce::ArgMin/ArgMax, TransformReduce bitwise against CUB's (integers; floats with
// cub_block, which reproduces CUB's order), and the BLAS level-1 reductions against cuBLAS
// (indices exactly; sums within cuBLAS's own error bound of an exact double reference, see
// kBlasRelative). The deeper per-call suites are test_arg_extremum.cu, test_transform_reduce.cu and
// test_blas1.cu.
#include <cublas_v2.h>

#include <cmath>

#include "gpu/common.cuh"
#include "gpu/level1_calls.cuh"
#include "gpureduce/blas.hpp"

namespace gpureduce::testing {
namespace {

const std::vector<std::int64_t> kSizes = {1, 31, 32, 33, 255, 256, 257, 4097, 65537, (1 << 20) + 7};

// Runs `call(temp, bytes)` (a gpureduce call) twice, size query then reduction, on garbage temp
// storage; returns its error.
template <class Call>
cudaError_t run_with_temp(Call call) {
  std::size_t bytes = 0;
  cudaError_t e = call(nullptr, bytes);
  if (e != cudaSuccess) return e;
  DeviceBuffer<unsigned char> temp(bytes);
  if (!temp.ok()) return cudaErrorMemoryAllocation;
  if ((e = prepare_temp_storage(temp.get(), bytes, false)) != cudaSuccess) return e;
  e = call(temp.get(), bytes);
  const cudaError_t s = cudaDeviceSynchronize();
  return e != cudaSuccess ? e : s;
}

template <class T, bool kMin>
void expect_arg_extremum_matches_cub(Fill fill) {
  REQUIRE_GPU();
  const std::int64_t largest = kSizes.back() + 1;
  DeviceBuffer<T> in(largest);
  DeviceBuffer<IndexedValue<T>> ours(1);
  DeviceBuffer<T> cub_value(1);
  DeviceBuffer<::cuda::std::int64_t> cub_index(1);
  const std::uint64_t seed = fresh_seed();
  CUDA_OK(fill_random(in.get(), largest, seed, fill));
  for (std::int64_t n : kSizes)
    for (int offset : {0, 1}) {
      const T* d_in = in.get() + offset;
      std::size_t cub_bytes = 0;
      auto cub_call = [&](void* t) {
        return kMin ? cub::DeviceReduce::ArgMin(t, cub_bytes, d_in, cub_value.get(), cub_index.get(), n)
                    : cub::DeviceReduce::ArgMax(t, cub_bytes, d_in, cub_value.get(), cub_index.get(), n);
      };
      CUDA_OK(cub_call(nullptr));
      DeviceBuffer<unsigned char> cub_temp(cub_bytes);
      CUDA_OK(cub_call(cub_temp.get()));
      T want_value;
      ::cuda::std::int64_t want_index;
      CUDA_OK(cudaMemcpy(&want_value, cub_value.get(), sizeof(T), cudaMemcpyDeviceToHost));
      CUDA_OK(cudaMemcpy(&want_index, cub_index.get(), sizeof want_index, cudaMemcpyDeviceToHost));
      for (Strategy s : kAllStrategies)
        for (Pipeline p : kAllPipelines) {
          Options o;
          o.strategy = s;
          o.pipeline = p;
          CUDA_OK(cudaMemset(ours.get(), kPoisonByte, sizeof(IndexedValue<T>)));
          const cudaError_t e = run_with_temp([&](void* t, std::size_t& b) {
            return kMin ? DeviceReduce::ArgMin(t, b, d_in, ours.get(), n, nullptr, o)
                        : DeviceReduce::ArgMax(t, b, d_in, ours.get(), n, nullptr, o);
          });
          IndexedValue<T> got;
          CUDA_OK(cudaMemcpy(&got, ours.get(), sizeof got, cudaMemcpyDeviceToHost));
          if (p == Pipeline::atomic) {  // no atomic holds a pair: refused, nothing written
            EXPECT_EQ(e, cudaErrorInvalidValue) << describe(o, n, offset, seed);
            EXPECT_TRUE(all_bytes_equal(device_bytes(reinterpret_cast<unsigned char*>(ours.get()), 0,
                                                     sizeof got), kPoisonByte));
            continue;
          }
          ASSERT_EQ(e, cudaSuccess) << describe(o, n, offset, seed) << ": " << last_error_message();
          EXPECT_EQ(got.index, want_index) << describe(o, n, offset, seed);
          EXPECT_TRUE(same_bits(got.value, want_value))
              << describe(o, n, offset, seed) << " ours " << show(got.value) << " CUB " << show(want_value);
        }
    }
}

// small_integers: values in [-3, 3], so the extremum repeats and ties-to-the-first-index decides.
TEST(Level1Core, ArgMinFloatEveryPlanMatchesCub) { expect_arg_extremum_matches_cub<float, true>(Fill::small_integers); }
TEST(Level1Core, ArgMaxFloatEveryPlanMatchesCub) { expect_arg_extremum_matches_cub<float, false>(Fill::random); }
TEST(Level1Core, ArgMinInt64EveryPlanMatchesCub) { expect_arg_extremum_matches_cub<std::int64_t, true>(Fill::random); }
TEST(Level1Core, ArgMaxHalfEveryPlanMatchesCub) { expect_arg_extremum_matches_cub<__half, false>(Fill::small_integers); }
TEST(Level1Core, ArgMinDoubleEveryPlanMatchesCub) { expect_arg_extremum_matches_cub<double, true>(Fill::small_integers); }

TEST(Level1Core, ArgMinEmptyWritesWhatCubWrites) {
  REQUIRE_GPU();
  DeviceBuffer<float> in(1);
  DeviceBuffer<IndexedValue<float>> ours(1);
  CUDA_OK(cudaMemset(ours.get(), kPoisonByte, sizeof(IndexedValue<float>)));
  ASSERT_EQ(run_with_temp([&](void* t, std::size_t& b) {
              return DeviceReduce::ArgMin(t, b, in.get(), ours.get(), 0);
            }), cudaSuccess);
  IndexedValue<float> got;
  CUDA_OK(cudaMemcpy(&got, ours.get(), sizeof got, cudaMemcpyDeviceToHost));
  EXPECT_EQ(got.index, 1);
  EXPECT_EQ(got.value, std::numeric_limits<float>::max());
}

TEST(Level1Core, ArgMinNaNWinsAtItsFirstIndex) {
  REQUIRE_GPU();
  const std::int64_t n = 100003;
  DeviceBuffer<float> in(n);
  CUDA_OK(fill_random(in.get(), n, fresh_seed(), Fill::random));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CUDA_OK(cudaMemcpy(in.get() + 7777, &nan, sizeof nan, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(in.get() + 90000, &nan, sizeof nan, cudaMemcpyHostToDevice));
  DeviceBuffer<IndexedValue<float>> ours(1);
  for (Strategy s : {Strategy::automatic, Strategy::sequential, Strategy::cub_block}) {
    Options o;
    o.strategy = s;
    ASSERT_EQ(run_with_temp([&](void* t, std::size_t& b) {
                return DeviceReduce::ArgMin(t, b, in.get(), ours.get(), n, nullptr, o);
              }), cudaSuccess) << last_error_message();
    IndexedValue<float> got;
    CUDA_OK(cudaMemcpy(&got, ours.get(), sizeof got, cudaMemcpyDeviceToHost));
    EXPECT_EQ(got.index, 7777) << to_string(s);
    EXPECT_TRUE(std::isnan(got.value)) << to_string(s);
  }
}

struct SquareInt {
  __host__ __device__ std::int64_t operator()(std::int32_t x) const { return std::int64_t(x) * x; }
};

// Integer transform-reduce: bitwise CUB's for every plan (atomic included: plus on int64).
TEST(Level1Core, TransformReduceIntegersEveryPlanMatchCub) {
  REQUIRE_GPU();
  const std::int64_t largest = kSizes.back() + 1;
  DeviceBuffer<std::int32_t> in(largest);
  DeviceBuffer<std::int64_t> out(1);
  const std::uint64_t seed = fresh_seed();
  CUDA_OK(fill_random(in.get(), largest, seed, Fill::random));
  for (std::int64_t n : kSizes) {
    const std::int32_t* d_in = in.get() + 1;
    std::size_t cub_bytes = 0;
    CUDA_OK(cub::DeviceReduce::TransformReduce(nullptr, cub_bytes, d_in, out.get(), n,
                                               ::cuda::std::plus<>{}, SquareInt{}, std::int64_t(5)));
    DeviceBuffer<unsigned char> cub_temp(cub_bytes);
    CUDA_OK(cub::DeviceReduce::TransformReduce(cub_temp.get(), cub_bytes, d_in, out.get(), n,
                                               ::cuda::std::plus<>{}, SquareInt{}, std::int64_t(5)));
    std::int64_t want = 0;
    CUDA_OK(cudaMemcpy(&want, out.get(), sizeof want, cudaMemcpyDeviceToHost));
    for (Strategy s : kAllStrategies)
      for (Pipeline p : kAllPipelines) {
        Options o;
        o.strategy = s;
        o.pipeline = p;
        CUDA_OK(cudaMemset(out.get(), kPoisonByte, sizeof(std::int64_t)));
        ASSERT_EQ(run_with_temp([&](void* t, std::size_t& b) {
                    return TransformReduce(t, b, d_in, out.get(), n, ::cuda::std::plus<>{}, SquareInt{},
                                           std::int64_t(5), nullptr, o);
                  }), cudaSuccess) << describe(o, n, 1, seed) << ": " << last_error_message();
        std::int64_t got = 0;
        CUDA_OK(cudaMemcpy(&got, out.get(), sizeof got, cudaMemcpyDeviceToHost));
        EXPECT_EQ(got, want) << describe(o, n, 1, seed);
      }
  }
}

// Float transform-reduce with cub_block: CUB's order, so CUB's bits (raw pointer, every pipeline
// but atomic, whose float adds race).
TEST(Level1Core, TransformReduceFloatCubBlockMatchesCubBits) {
  REQUIRE_GPU();
  const std::int64_t largest = (std::int64_t(1) << 22) + 3;
  DeviceBuffer<float> in(largest);
  DeviceBuffer<float> out(1);
  const std::uint64_t seed = fresh_seed();
  CUDA_OK(fill_random(in.get(), largest, seed, Fill::random));
  for (std::int64_t n : {std::int64_t(1000), std::int64_t(65537), largest}) {
    std::size_t cub_bytes = 0;
    CUDA_OK(cub::DeviceReduce::TransformReduce(nullptr, cub_bytes, in.get(), out.get(), n,
                                               ::cuda::std::plus<>{}, SquareFloat{}, 0.0f));
    DeviceBuffer<unsigned char> cub_temp(cub_bytes);
    CUDA_OK(cub::DeviceReduce::TransformReduce(cub_temp.get(), cub_bytes, in.get(), out.get(), n,
                                               ::cuda::std::plus<>{}, SquareFloat{}, 0.0f));
    float want = 0;
    CUDA_OK(cudaMemcpy(&want, out.get(), sizeof want, cudaMemcpyDeviceToHost));
    for (Pipeline p : {Pipeline::two_kernel, Pipeline::last_block, Pipeline::grid_sync}) {
      Options o;
      o.strategy = Strategy::cub_block;
      o.pipeline = p;
      CUDA_OK(cudaMemset(out.get(), kPoisonByte, sizeof(float)));
      ASSERT_EQ(run_with_temp([&](void* t, std::size_t& b) {
                  return TransformReduce(t, b, in.get(), out.get(), n, ::cuda::std::plus<>{},
                                         SquareFloat{}, 0.0f, nullptr, o);
                }), cudaSuccess) << describe(o, n, 0, seed) << ": " << last_error_message();
      float got = 0;
      CUDA_OK(cudaMemcpy(&got, out.get(), sizeof got, cudaMemcpyDeviceToHost));
      EXPECT_TRUE(same_bits(got, want)) << describe(o, n, 0, seed) << " ours " << show(got) << " CUB " << show(want);
    }
  }
}

// ---- BLAS level-1 against cuBLAS --------------------------------------------------------------

// Values spread over magnitudes (so sums and norms are not trivially exact), never all zero.
__global__ void fill_spread(float* out, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::uint64_t h = mix64(seed ^ mix64(std::uint64_t(i)));
    const float mantissa = float(h & 0xffffff) / float(1 << 24) + 0.5f;
    const int exponent = int((h >> 24) % 9) - 4;
    out[i] = ((h >> 40) & 1 ? -1.0f : 1.0f) * ldexpf(mantissa, exponent);
  }
}

// A float sum accumulated in float in any order of depth d is within d * 2^-24 * sum|terms| of the
// exact value; every plan here folds at most n / 4096 items per thread before its trees (or n /
// 256 for one block), so d = n / 256 + 64 bounds ours, and cuBLAS's too (checked: a bound that
// cuBLAS broke would be wrong).
double float_sum_bound(std::int64_t n, double sum_abs) {
  return (double(n) / 256.0 + 64.0) * std::ldexp(1.0, -24) * sum_abs;
}

class Level1Blas : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!gpu_present()) return;
    ASSERT_EQ(cublasCreate(&handle_), CUBLAS_STATUS_SUCCESS);
    ASSERT_EQ(cublasSetPointerMode(handle_, CUBLAS_POINTER_MODE_DEVICE), CUBLAS_STATUS_SUCCESS);
  }
  void TearDown() override {
    if (handle_) cublasDestroy(handle_);
  }
  cublasHandle_t handle_ = nullptr;
};

TEST_F(Level1Blas, FloatDotNorm2SumAbsArgMaxAbsAgainstCublas) {
  REQUIRE_GPU();
  const std::int64_t largest = kSizes.back() + 2;
  DeviceBuffer<float> x(largest), y(largest), out(1), ref(1);
  DeviceBuffer<IndexedValue<float>> arg(1);
  const std::uint64_t seed = fresh_seed();
  fill_spread<<<1024, 256>>>(x.get(), largest, seed);
  fill_spread<<<1024, 256>>>(y.get(), largest, seed + 1);
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<float> hx(largest), hy(largest);
  CUDA_OK(cudaMemcpy(hx.data(), x.get(), largest * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(hy.data(), y.get(), largest * sizeof(float), cudaMemcpyDeviceToHost));
  auto read = [&](const DeviceBuffer<float>& b) {
    float v = 0;
    EXPECT_EQ(cudaMemcpy(&v, b.get(), sizeof v, cudaMemcpyDeviceToHost), cudaSuccess);
    return v;
  };
  for (std::int64_t n : kSizes)
    for (int x_offset : {0, 1}) {  // x + 1 against y: Dot's two arrays mutually misaligned
      const float* dx = x.get() + x_offset;
      const float* hxo = hx.data() + x_offset;
      double dot = 0, dot_abs = 0, squares = 0, sum_abs = 0;
      for (std::int64_t i = 0; i < n; ++i) {  // products and squares of floats are exact in double
        dot += double(hxo[i]) * hy[i];
        dot_abs += std::fabs(double(hxo[i]) * hy[i]);
        squares += double(hxo[i]) * hxo[i];
        sum_abs += std::fabs(hxo[i]);
      }
      for (Strategy s : {Strategy::automatic, Strategy::vectorized, Strategy::sequential, Strategy::cub_block})
        for (Pipeline p : {Pipeline::automatic, Pipeline::two_kernel, Pipeline::last_block, Pipeline::grid_sync, Pipeline::cluster}) {
          Options o;
          o.strategy = s;
          o.pipeline = p;
          const std::string where = describe(o, n, x_offset, seed);
          CUDA_OK(cudaMemset(out.get(), kPoisonByte, sizeof(float)));
          ASSERT_EQ(run_with_temp([&](void* t, std::size_t& b) { return Blas1::Dot(t, b, dx, y.get(), out.get(), n, nullptr, o); }), cudaSuccess) << where << last_error_message();
          ASSERT_EQ(cublasSdot_64(handle_, n, dx, 1, y.get(), 1, ref.get()), CUBLAS_STATUS_SUCCESS);
          CUDA_OK(cudaDeviceSynchronize());
          EXPECT_NEAR(read(out), dot, float_sum_bound(n, dot_abs)) << "Dot " << where << " cuBLAS " << read(ref);
          EXPECT_NEAR(read(ref), dot, float_sum_bound(n, dot_abs)) << "cuBLAS Dot " << where;

          ASSERT_EQ(run_with_temp([&](void* t, std::size_t& b) { return Blas1::Norm2(t, b, dx, out.get(), n, nullptr, o); }), cudaSuccess) << where << last_error_message();
          ASSERT_EQ(cublasSnrm2_64(handle_, n, dx, 1, ref.get()), CUBLAS_STATUS_SUCCESS);
          CUDA_OK(cudaDeviceSynchronize());
          // Squares summed in double: within a float ulp or so of the exact norm.
          EXPECT_NEAR(read(out), std::sqrt(squares), 2.5e-7 * std::sqrt(squares)) << "Norm2 " << where;
          EXPECT_NEAR(read(ref), std::sqrt(squares), float_sum_bound(n, squares) / std::sqrt(squares) + 1e-6 * std::sqrt(squares)) << "cuBLAS Norm2 " << where;

          ASSERT_EQ(run_with_temp([&](void* t, std::size_t& b) { return Blas1::SumAbs(t, b, dx, out.get(), n, nullptr, o); }), cudaSuccess) << where << last_error_message();
          ASSERT_EQ(cublasSasum_64(handle_, n, dx, 1, ref.get()), CUBLAS_STATUS_SUCCESS);
          CUDA_OK(cudaDeviceSynchronize());
          EXPECT_NEAR(read(out), sum_abs, float_sum_bound(n, sum_abs)) << "SumAbs " << where;

          ASSERT_EQ(run_with_temp([&](void* t, std::size_t& b) { return Blas1::ArgMaxAbs(t, b, dx, arg.get(), n, nullptr, o); }), cudaSuccess) << where << last_error_message();
          std::int64_t ref_index64 = 0;
          DeviceBuffer<std::int64_t> d_ref_index64(1);
          ASSERT_EQ(cublasIsamax_64(handle_, n, dx, 1, d_ref_index64.get()), CUBLAS_STATUS_SUCCESS);
          CUDA_OK(cudaDeviceSynchronize());
          CUDA_OK(cudaMemcpy(&ref_index64, d_ref_index64.get(), sizeof ref_index64, cudaMemcpyDeviceToHost));
          IndexedValue<float> got;
          CUDA_OK(cudaMemcpy(&got, arg.get(), sizeof got, cudaMemcpyDeviceToHost));
          EXPECT_EQ(got.index, ref_index64 - 1) << "ArgMaxAbs (cuBLAS is 1-based) " << where;
          EXPECT_EQ(got.value, std::fabs(hxo[got.index < 0 ? 0 : got.index])) << "ArgMaxAbs value " << where;
        }
    }
}

// Norm2 does not overflow or underflow where the squares would in float (or in double).
TEST_F(Level1Blas, Norm2SafeFromOverflowAndUnderflow) {
  REQUIRE_GPU();
  const std::int64_t n = 300007;
  for (double scale : {1e30, 1e-30}) {
    std::vector<float> h(n);
    for (std::int64_t i = 0; i < n; ++i) h[i] = float(scale * (1.0 + double(i % 97) / 97.0));
    double exact = 0;
    for (float v : h) exact += (double(v) / scale) * (double(v) / scale);
    exact = std::sqrt(exact) * scale;
    DeviceBuffer<float> x(n), out(1);
    CUDA_OK(cudaMemcpy(x.get(), h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    ASSERT_EQ(run_with_temp([&](void* t, std::size_t& b) { return Blas1::Norm2(t, b, x.get(), out.get(), n); }), cudaSuccess);
    float got = 0;
    CUDA_OK(cudaMemcpy(&got, out.get(), sizeof got, cudaMemcpyDeviceToHost));
    EXPECT_NEAR(got, exact, 3e-7 * exact) << "scale " << scale;
  }
  for (double scale : {1e200, 1e-200}) {
    std::vector<double> h(n);
    for (std::int64_t i = 0; i < n; ++i) h[i] = scale * (1.0 + double(i % 89) / 89.0);
    double exact = 0;
    for (double v : h) exact += (v / scale) * (v / scale);
    exact = std::sqrt(exact) * scale;
    DeviceBuffer<double> x(n), out(1);
    CUDA_OK(cudaMemcpy(x.get(), h.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    ASSERT_EQ(run_with_temp([&](void* t, std::size_t& b) { return Blas1::Norm2(t, b, x.get(), out.get(), n); }), cudaSuccess);
    double got = 0;
    CUDA_OK(cudaMemcpy(&got, out.get(), sizeof got, cudaMemcpyDeviceToHost));
    EXPECT_NEAR(got, exact, 1e-12 * exact) << "scale " << scale;
  }
}

TEST_F(Level1Blas, BadInputRejectedNothingWritten) {
  REQUIRE_GPU();
  DeviceBuffer<float> x(16), out(1);
  CUDA_OK(cudaMemset(out.get(), kPoisonByte, sizeof(float)));
  std::size_t bytes = 0;
  ASSERT_EQ((Blas1::Dot<float, float>)(nullptr, bytes, x.get(), x.get(), out.get(), 16), cudaSuccess);
  DeviceBuffer<unsigned char> temp(bytes + 1);
  EXPECT_EQ((Blas1::Dot<float, float>)(temp.get(), bytes, x.get(), nullptr, out.get(), 16), cudaErrorInvalidValue);
  EXPECT_EQ((Blas1::Norm2<float, float>)(temp.get(), bytes, x.get(), out.get(), -1), cudaErrorInvalidValue);
  Options cr;
  cr.accuracy = Accuracy::correctly_rounded;
  EXPECT_EQ((Blas1::Norm2<float, float>)(temp.get(), bytes, x.get(), out.get(), 16, nullptr, cr), cudaErrorInvalidValue);
  EXPECT_STRNE(last_error_message(), "");
  CUDA_OK(cudaDeviceSynchronize());
  EXPECT_TRUE(all_bytes_equal(device_bytes(reinterpret_cast<unsigned char*>(out.get()), 0, sizeof(float)), kPoisonByte));
}

}  // namespace
}  // namespace gpureduce::testing
