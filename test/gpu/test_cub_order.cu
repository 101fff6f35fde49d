// Strategy::cub_block reproduces cub::DeviceReduce::Sum's association order: on fresh random
// floating data (where orders give different bits), at every engine size plus 2^26 + 5 and
// 3 x 2^27, aligned and at d_in + 1, in the two_kernel and the single-launch last_block pipelines,
// its bits equal those of the CUB this was built with and of thrust::reduce(thrust::device, raw
// pointer). A CCCL upgrade that changes CUB's order fails here instead of drifting silently.
#include "gpu/common.cuh"

namespace gpureduce::testing {
namespace {

template <class C>
void expect_cub_bits() {
  using In = typename C::In;
  using Out = typename C::Out;
  std::vector<std::int64_t> sizes = engine_sizes();
  for (std::int64_t big : capped({(std::int64_t(1) << 26) + 5, std::int64_t(3) << 27})) sizes.push_back(big);
  for (std::int64_t n : sizes) {
    for (int offset : {0, 1}) {
      const std::uint64_t seed = fresh_seed();
      DeviceBuffer<In> buffer{std::size_t(n + offset + 1)};
      ASSERT_TRUE(buffer.ok());
      CUDA_OK(fill_random(buffer.get(), n + offset + 1, seed, Fill::random));
      const In* d_in = buffer.get() + offset;
      DeviceBuffer<Out> d_ref(1);
      CUDA_OK(C::cub(d_in, d_ref.get(), n));
      const Out cub_result = copy_to_host(d_ref.get());
      const Out thrust_result = C::thrust_reduce(d_in, n);
      for (Pipeline pipeline : {Pipeline::two_kernel, Pipeline::last_block}) {
        for (bool zeroed : {false, true}) {
          Options options{Strategy::cub_block, pipeline};
          options.temp_storage_zeroed = zeroed;
          SCOPED_TRACE(C::name() + " " + describe(options, n, offset, seed));
          Out result{};
          ASSERT_TRUE(run_gpureduce<C>(d_in, n, options, result));
          EXPECT_TRUE(same_bits(result, cub_result)) << "cub_block " << show(result) << " vs CUB " << show(cub_result);
          EXPECT_TRUE(same_bits(result, thrust_result))
              << "cub_block " << show(result) << " vs thrust::reduce " << show(thrust_result);
        }
      }
    }
  }
}

TEST(CubOrder, FloatSum) {
  REQUIRE_GPU();
  expect_cub_bits<Case<float, float, Op::sum>>();
}
TEST(CubOrder, DoubleSum) {
  REQUIRE_GPU();
  expect_cub_bits<Case<double, double, Op::sum>>();
}
TEST(CubOrder, HalfToFloatSum) {
  REQUIRE_GPU();
  expect_cub_bits<Case<__half, float, Op::sum>>();
}

}  // namespace
}  // namespace gpureduce::testing
