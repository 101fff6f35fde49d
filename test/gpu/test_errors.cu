// Bad input on a real device: cudaErrorInvalidValue, a message saying why, nothing launched and
// nothing written (the poisoned output survives), and no error left behind for the next call.
#include <functional>

#include "gpu/common.cuh"

namespace gpureduce::testing {
namespace {

class BadInput : public ::testing::Test {
 protected:
  static constexpr std::int64_t kItems = 5000;
  void SetUp() override {
    REQUIRE_GPU();
    in_.resize(kItems);
    out_.resize(1);
    ASSERT_TRUE(in_.ok() && out_.ok());
    CUDA_OK(fill_random(in_.get(), kItems, fresh_seed(), Fill::random));
    CUDA_OK(DeviceReduce::Sum(nullptr, bytes_, in_.get(), out_.get(), kItems));
    temp_.resize(bytes_);
    CUDA_OK(cudaMemset(out_.get(), kPoisonByte, sizeof(float)));
    CUDA_OK(cudaDeviceSynchronize());
  }
  // `call` must fail with cudaErrorInvalidValue and a message containing `why`, writing nothing.
  void expect_rejected(const std::function<cudaError_t()>& call, const std::string& why) {
    EXPECT_EQ(call(), cudaErrorInvalidValue);
    EXPECT_NE(std::string(last_error_message()).find(why), std::string::npos)
        << "message was: " << last_error_message();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "an error was left behind";
    EXPECT_TRUE(same_bits(copy_to_host(out_.get()), poison_value<float>())) << "output was written";
  }
  DeviceBuffer<float> in_, out_;
  DeviceBuffer<unsigned char> temp_;
  std::size_t bytes_ = 0;
};

TEST_F(BadInput, NegativeCount) {
  expect_rejected([&] { return DeviceReduce::Sum(temp_.get(), bytes_, in_.get(), out_.get(), -1); }, "negative");
}
TEST_F(BadInput, NullInput) {
  expect_rejected([&] { return DeviceReduce::Sum(temp_.get(), bytes_, static_cast<const float*>(nullptr), out_.get(), kItems); }, "d_in");
}
TEST_F(BadInput, NullOutput) {
  expect_rejected([&] { return DeviceReduce::Sum(temp_.get(), bytes_, in_.get(), static_cast<float*>(nullptr), kItems); }, "d_out");
}
TEST_F(BadInput, TempStorageTooSmall) {
  for (Strategy strategy : kAllStrategies) {
    for (Pipeline pipeline : kAllPipelines) {
      const Options options{strategy, pipeline};
      std::size_t needed = 0;
      ASSERT_EQ(DeviceReduce::Sum(nullptr, needed, in_.get(), out_.get(), kItems, nullptr, options), cudaSuccess);
      DeviceBuffer<unsigned char> temp(needed);
      std::size_t too_small = needed - 1;
      SCOPED_TRACE(describe(options, kItems, 0, 0));
      expect_rejected([&] { return DeviceReduce::Sum(temp.get(), too_small, in_.get(), out_.get(), kItems, nullptr, options); }, "temp_storage_bytes");
    }
  }
}
// automatic's one-block plans take a launch path of their own (dispatch.cuh,
// launch_single_block): it must check the temp storage as the general path does. Block sizes 128
// and 256 get the shaped one-block kernel; 64 has none and runs the general path.
TEST_F(BadInput, TempStorageTooSmallAutomaticOneBlock) {
  Options zeroed;
  zeroed.temp_storage_zeroed = true;
  Options block_64;
  block_64.block_threads = 64;
  Options block_128;
  block_128.block_threads = 128;
  for (const Options& options : {Options{}, zeroed, block_64, block_128}) {
    for (std::int64_t items : {std::int64_t(1), std::int64_t(4096), kItems}) {
      std::size_t needed = 0;
      ASSERT_EQ(DeviceReduce::Sum(nullptr, needed, in_.get(), out_.get(), items, nullptr, options), cudaSuccess);
      ASSERT_GT(needed, 0u);
      DeviceBuffer<unsigned char> temp(needed);
      std::size_t too_small = needed - 1;
      SCOPED_TRACE(describe(options, items, 0, 0));
      expect_rejected([&] { return DeviceReduce::Sum(temp.get(), too_small, in_.get(), out_.get(), items, nullptr, options); }, "temp_storage_bytes");
    }
  }
}
TEST_F(BadInput, BlockThreadsNotAPowerOfTwo) {
  for (int threads : {1, 31, 48, 2048, -32}) {
    Options options{Strategy::sequential, Pipeline::two_kernel, threads};
    expect_rejected([&] { return DeviceReduce::Sum(temp_.get(), bytes_, in_.get(), out_.get(), kItems, nullptr, options); }, "block_threads");
  }
}
TEST_F(BadInput, BlockThreadsInvalidForCubBlock) {
  Options options{Strategy::cub_block, Pipeline::last_block, 128};
  expect_rejected([&] { return DeviceReduce::Sum(temp_.get(), bytes_, in_.get(), out_.get(), kItems, nullptr, options); }, "cub_block");
}
TEST_F(BadInput, NegativeGrid) {
  Options options{Strategy::vectorized, Pipeline::last_block, 0, -4};
  expect_rejected([&] { return DeviceReduce::Sum(temp_.get(), bytes_, in_.get(), out_.get(), kItems, nullptr, options); }, "grid_blocks");
}
TEST_F(BadInput, InvalidEnums) {
  Options bad_strategy{static_cast<Strategy>(77)};
  expect_rejected([&] { return DeviceReduce::Sum(temp_.get(), bytes_, in_.get(), out_.get(), kItems, nullptr, bad_strategy); }, "strategy");
  Options bad_pipeline{Strategy::automatic, static_cast<Pipeline>(-1)};
  expect_rejected([&] { return DeviceReduce::Sum(temp_.get(), bytes_, in_.get(), out_.get(), kItems, nullptr, bad_pipeline); }, "pipeline");
}
// After all that, the context still works.
TEST_F(BadInput, ContextStillUsable) {
  expect_rejected([&] { return DeviceReduce::Sum(temp_.get(), bytes_, in_.get(), out_.get(), -7); }, "negative");
  float result{};
  ASSERT_TRUE((run_gpureduce<Case<float, float, Op::sum>>(in_.get(), kItems, Options{}, result)));
  EXPECT_FALSE(same_bits(result, poison_value<float>()));
}

}  // namespace
}  // namespace gpureduce::testing
