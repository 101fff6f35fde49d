// Host tests of the public API, compiled by g++ through the host-only header: argument
// validation and its messages (all checked before any CUDA call, so they hold without a GPU), and
// the size query, which must either succeed (GPU present) or fail cleanly with a message.
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "gpureduce/gpureduce.hpp"

namespace {

using gpureduce::DeviceReduce;
using gpureduce::Options;
using gpureduce::Pipeline;
using gpureduce::Strategy;

// Fake device pointers: validation must reject the call before anything dereferences them.
float* const kFakeOut = reinterpret_cast<float*>(0x1000);
const float* const kFakeIn = reinterpret_cast<const float*>(0x2000);
void* const kFakeTemp = reinterpret_cast<void*>(0x3000);

void expect_invalid(cudaError_t error, const std::string& why) {
  EXPECT_EQ(error, cudaErrorInvalidValue);
  EXPECT_NE(std::string(gpureduce::last_error_message()).find(why), std::string::npos)
      << "message: " << gpureduce::last_error_message();
}

TEST(Validation, NegativeCount) {
  std::size_t bytes = 1 << 20;
  expect_invalid(DeviceReduce::Sum(kFakeTemp, bytes, kFakeIn, kFakeOut, -1), "negative");
  expect_invalid(DeviceReduce::Sum(nullptr, bytes, kFakeIn, kFakeOut, -1), "negative");
  expect_invalid(DeviceReduce::Min(kFakeTemp, bytes, kFakeIn, kFakeOut, -100), "negative");
}

TEST(Validation, NullPointersOnRealCalls) {
  std::size_t bytes = 1 << 20;
  expect_invalid(DeviceReduce::Sum(kFakeTemp, bytes, static_cast<const float*>(nullptr), kFakeOut, 10), "d_in");
  expect_invalid(DeviceReduce::Max(kFakeTemp, bytes, kFakeIn, static_cast<float*>(nullptr), 10), "d_out");
  std::int32_t* out = reinterpret_cast<std::int32_t*>(0x1000);
  expect_invalid(DeviceReduce::Sum(kFakeTemp, bytes, static_cast<const std::int32_t*>(nullptr), out, 1), "d_in");
}

TEST(Validation, BlockThreads) {
  std::size_t bytes = 1 << 20;
  for (int threads : {1, 16, 31, 33, 48, 96, 2048, -64}) {
    Options options;
    options.block_threads = threads;
    expect_invalid(DeviceReduce::Sum(kFakeTemp, bytes, kFakeIn, kFakeOut, 1000, nullptr, options), "block_threads");
  }
}

TEST(Validation, GridBlocksAndEnums) {
  std::size_t bytes = 1 << 20;
  Options negative_grid;
  negative_grid.grid_blocks = -1;
  expect_invalid(DeviceReduce::Sum(kFakeTemp, bytes, kFakeIn, kFakeOut, 1000, nullptr, negative_grid), "grid_blocks");
  Options bad_strategy;
  bad_strategy.strategy = static_cast<Strategy>(42);
  expect_invalid(DeviceReduce::Sum(kFakeTemp, bytes, kFakeIn, kFakeOut, 1000, nullptr, bad_strategy), "strategy");
  Options bad_pipeline;
  bad_pipeline.pipeline = static_cast<Pipeline>(9);
  expect_invalid(DeviceReduce::Sum(kFakeTemp, bytes, kFakeIn, kFakeOut, 1000, nullptr, bad_pipeline), "pipeline");
}

TEST(Validation, MessagesArePerThread) {
  std::size_t bytes = 0;
  expect_invalid(DeviceReduce::Sum(nullptr, bytes, kFakeIn, kFakeOut, -1), "negative");
  std::string seen_in_other_thread = "unset";
  std::thread([&] { seen_in_other_thread = gpureduce::last_error_message(); }).join();
  EXPECT_EQ(seen_in_other_thread, "");
}

// With a GPU the size query answers; without one it fails with a CUDA error and a message.
TEST(SizeQuery, AnswersOrFailsCleanly) {
  std::size_t bytes = 0;
  int devices = 0;
  const bool has_gpu = cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
  for (Strategy strategy : gpureduce::kAllStrategies) {
    for (Pipeline pipeline : gpureduce::kAllPipelines) {
      Options options;
      options.strategy = strategy;
      options.pipeline = pipeline;
      const cudaError_t error = DeviceReduce::Sum(nullptr, bytes, kFakeIn, kFakeOut, 1 << 20, nullptr, options);
      if (has_gpu) {
        EXPECT_EQ(error, cudaSuccess) << gpureduce::last_error_message();
        EXPECT_GE(bytes, 256u);
      } else {
        EXPECT_NE(error, cudaSuccess);
        EXPECT_STRNE(gpureduce::last_error_message(), "");
      }
    }
  }
}

}  // namespace
