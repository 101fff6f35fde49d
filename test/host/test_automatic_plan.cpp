// Host tests of what `automatic` decides (detail/automatic_plan.hpp): the block, grid rule and
// pipeline for each kind of call, restated from policy.hpp's rules and docs/design.md ('What
// automatic picks'), so that a changed decision shows up in CI without a GPU. The GPU tests
// (test_automatic.cu, test_graphs_streams.cu) check that real calls get these plans.
#include <gtest/gtest.h>

#include "gpureduce/detail/automatic_plan.hpp"

namespace {

using namespace gpureduce;
using namespace gpureduce::detail;

constexpr unsigned long long KiB = 1024, MiB = 1024 * KiB;
constexpr unsigned long long kL2 = 50 * MiB;  // the H100's

DeviceFacts hopper() {
  DeviceFacts facts;
  facts.multiprocessors = 132;
  facts.l2_bytes = kL2;
  facts.cooperative_launch = true;
  facts.programmatic_launch = true;
  facts.thread_block_clusters = true;
  return facts;
}

// The pipeline of a call with these Options and bytes, given what the stream said.
PipelineChoice pipeline_of(const Options& options, unsigned long long bytes, StreamFacts stream,
                           CapturedSums sums = {}, DeviceFacts facts = hopper()) {
  return automatic_pipeline(options, automatic_shape(options, bytes, facts.l2_bytes), bytes, facts,
                            stream, sums);
}

TEST(AutomaticPlan, OneBlockUpTo64KiBWithTheRuleThreads) {
  const Options options;
  for (unsigned long long bytes : {0ull, 4ull, 8 * KiB, 8 * KiB + 4, 64 * KiB}) {
    SCOPED_TRACE(bytes);
    const AutomaticShape shape = automatic_shape(options, bytes, kL2);
    EXPECT_EQ(shape.resolved.strategy, kAutomaticStrategy);
    EXPECT_EQ(shape.resolved.grid_blocks, 1);
    EXPECT_EQ(shape.resolved.block_threads, automatic_single_block_threads(bytes));
    EXPECT_STREQ(shape.rationale, rationale::kSingleBlock);
    EXPECT_FALSE(shape.automatic_grid || shape.streaming || shape.half_room_grid);
    EXPECT_FALSE(pipeline_asks_capture(options, shape)) << "one block never asks (probe 14)";
  }
  Options threads;
  threads.block_threads = 1024;
  EXPECT_EQ(automatic_shape(threads, 4 * KiB, kL2).resolved.block_threads, 1024)
      << "the caller's block size stands";
}

TEST(AutomaticPlan, TheGridRuleBetweenOneBlockAndStreaming) {
  const Options options;
  for (unsigned long long bytes : {64 * KiB + 4, MiB, kL2 / 2 - 4}) {
    SCOPED_TRACE(bytes);
    const AutomaticShape shape = automatic_shape(options, bytes, kL2);
    EXPECT_TRUE(shape.automatic_grid);
    EXPECT_FALSE(shape.streaming);
    EXPECT_EQ(shape.resolved.grid_blocks, 0);
    EXPECT_EQ(shape.resolved.block_threads, 0) << "the strategy's default, resolved later";
    EXPECT_STREQ(shape.rationale, rationale::kCallerChose) << "the pipeline's reason comes later";
    EXPECT_TRUE(pipeline_may_use_stream_slot(options, shape));
    EXPECT_EQ(stream_slot_grid(options, shape, bytes), automatic_grid_target(bytes));
  }
}

TEST(AutomaticPlan, StreamingFromHalfTheL2) {
  Options options;
  const AutomaticShape shape = automatic_shape(options, kL2 / 2, kL2);
  EXPECT_TRUE(shape.streaming);
  EXPECT_FALSE(shape.automatic_grid);
  EXPECT_FALSE(shape.half_room_grid);
  EXPECT_EQ(shape.resolved.block_threads, kAutomaticStreamingBlockThreads);
  EXPECT_TRUE(pipeline_asks_capture(options, shape));
  EXPECT_FALSE(pipeline_may_use_stream_slot(options, shape)) << "streaming keeps grid_sync";
  options.temp_storage_zeroed = true;
  EXPECT_TRUE(automatic_shape(options, kL2 / 2, kL2).half_room_grid);
  options.pipeline = Pipeline::grid_sync;
  EXPECT_FALSE(automatic_shape(options, kL2 / 2, kL2).half_room_grid) << "only automatic's pipeline";
}

TEST(AutomaticPlan, TheCallersGridOrStrategyStands) {
  Options grid;
  grid.grid_blocks = 7;
  const AutomaticShape shape = automatic_shape(grid, 2 * KiB, kL2);
  EXPECT_EQ(shape.resolved.strategy, kAutomaticStrategy);
  EXPECT_EQ(shape.resolved.grid_blocks, 7);
  EXPECT_FALSE(shape.automatic_grid || shape.streaming);
  EXPECT_STREQ(shape.rationale, rationale::kCallerChose);
  EXPECT_EQ(stream_slot_grid(grid, shape, 2 * KiB), 7);

  Options explicit_strategy;
  explicit_strategy.strategy = Strategy::sequential;
  const AutomaticShape kept = automatic_shape(explicit_strategy, 2 * KiB, kL2);
  EXPECT_EQ(kept.resolved.strategy, Strategy::sequential);
  EXPECT_EQ(kept.resolved.grid_blocks, 0);
  EXPECT_FALSE(pipeline_asks_capture(explicit_strategy, kept));
}

TEST(AutomaticPlan, ZeroedStorageIsLastBlockEverywhere) {
  Options options;
  options.temp_storage_zeroed = true;
  for (StreamFacts stream : {StreamFacts{}, StreamFacts{true, false}}) {
    const PipelineChoice small = pipeline_of(options, MiB, stream, {true, true});
    EXPECT_EQ(small.pipeline, Pipeline::last_block);
    EXPECT_STREQ(small.why, rationale::kZeroed);
    EXPECT_STREQ(pipeline_of(options, kL2, stream).why, rationale::kStreamingZeroed);
  }
  EXPECT_FALSE(pipeline_asks_capture(options, automatic_shape(options, MiB, kL2)));
}

TEST(AutomaticPlan, ClusterOnlyForAnExplicitStrategyInItsRange) {
  Options options;
  options.strategy = Strategy::warp_shuffle;
  EXPECT_EQ(pipeline_of(options, 128 * KiB, {}).pipeline, Pipeline::cluster);
  EXPECT_EQ(pipeline_of(options, 256 * KiB, {}).pipeline, Pipeline::cluster);
  EXPECT_EQ(pipeline_of(options, 256 * KiB + 4, {}).pipeline, Pipeline::grid_sync);
  DeviceFacts no_clusters = hopper();
  no_clusters.thread_block_clusters = false;
  EXPECT_EQ(pipeline_of(options, 128 * KiB, {}, {}, no_clusters).pipeline, Pipeline::grid_sync);
  EXPECT_EQ(pipeline_of(Options{}, 128 * KiB, {true, false}).pipeline, Pipeline::two_kernel)
      << "automatic's own strategy takes its own plans there";
}

TEST(AutomaticPlan, InsideACaptureByAccumulator) {
  const Options options;
  const StreamFacts captured{true, false};
  const PipelineChoice ints = pipeline_of(options, MiB, captured, {true, false});
  EXPECT_EQ(ints.pipeline, Pipeline::last_block);
  EXPECT_STREQ(ints.why, rationale::kCapturedCountedSum);
  const PipelineChoice floats = pipeline_of(options, MiB, captured, {false, true});
  EXPECT_EQ(floats.pipeline, Pipeline::last_block);
  EXPECT_STREQ(floats.why, rationale::kCapturedFlaggedSum);
  const PipelineChoice doubles = pipeline_of(options, MiB, captured);
  EXPECT_EQ(doubles.pipeline, Pipeline::two_kernel);
  EXPECT_STREQ(doubles.why, rationale::kCaptured);
  const PipelineChoice streaming = pipeline_of(options, kL2, captured, {true, true});
  EXPECT_EQ(streaming.pipeline, Pipeline::two_kernel) << "streaming: no graph slots";
  EXPECT_STREQ(streaming.why, rationale::kStreamingCaptured);
}

TEST(AutomaticPlan, UncapturedTheStreamSlotThenGridSyncThenTheMemset) {
  const Options options;
  const PipelineChoice slot = pipeline_of(options, MiB, {false, true});
  EXPECT_EQ(slot.pipeline, Pipeline::last_block);
  EXPECT_STREQ(slot.why, rationale::kStreamOwned);
  const PipelineChoice grid_sync = pipeline_of(options, MiB, {});
  EXPECT_EQ(grid_sync.pipeline, Pipeline::grid_sync);
  EXPECT_STREQ(grid_sync.why, rationale::kGridSync);
  EXPECT_STREQ(pipeline_of(options, kL2, {}).why, rationale::kStreamingGridSync);
  DeviceFacts no_cooperative = hopper();
  no_cooperative.cooperative_launch = false;
  const PipelineChoice fallback = pipeline_of(options, MiB, {}, {}, no_cooperative);
  EXPECT_EQ(fallback.pipeline, Pipeline::last_block);
  EXPECT_STREQ(fallback.why, rationale::kFallback);
  EXPECT_STREQ(pipeline_of(options, kL2, {}, {}, no_cooperative).why, rationale::kStreamingFallback);
}

}  // namespace
