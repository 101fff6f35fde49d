// Names of strategies and pipelines: distinct, stable, and each concrete rung names its seed step.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "gpureduce/gpureduce.hpp"

namespace {

using gpureduce::Pipeline;
using gpureduce::Strategy;

TEST(Names, StrategiesAreDistinctAndKnown) {
  std::set<std::string> names;
  for (Strategy s : gpureduce::kAllStrategies) {
    const std::string name = gpureduce::to_string(s);
    EXPECT_NE(name, "invalid");
    EXPECT_TRUE(names.insert(name).second) << "duplicate name " << name;
    EXPECT_STRNE(gpureduce::seed_step(s), "invalid");
    EXPECT_STRNE(gpureduce::what_it_fixes(s), "invalid");
  }
  EXPECT_EQ(names.size(), 11u);
  EXPECT_STREQ(gpureduce::to_string(Strategy::automatic), "automatic");
  EXPECT_STREQ(gpureduce::to_string(Strategy::unroll_last_warp), "unroll_last_warp");
  EXPECT_STREQ(gpureduce::to_string(static_cast<Strategy>(99)), "invalid");
}

TEST(Names, Pipelines) {
  EXPECT_STREQ(gpureduce::to_string(Pipeline::two_kernel), "two_kernel");
  EXPECT_STREQ(gpureduce::to_string(Pipeline::last_block), "last_block");
  EXPECT_STREQ(gpureduce::to_string(Pipeline::atomic), "atomic");
  EXPECT_STREQ(gpureduce::to_string(Pipeline::grid_sync), "grid_sync");
  EXPECT_STREQ(gpureduce::to_string(Pipeline::cluster), "cluster");
  EXPECT_STREQ(gpureduce::to_string(Pipeline::automatic), "automatic");
  EXPECT_STREQ(gpureduce::to_string(static_cast<Pipeline>(-3)), "invalid");
}

TEST(Names, DescribeSaysEveryFieldOfThePlan) {
  gpureduce::LaunchPlan plan;
  plan.strategy = Strategy::vectorized;
  plan.pipeline = Pipeline::grid_sync;
  plan.block_threads = 256;
  plan.grid_blocks = 123;
  plan.items_per_thread = 16;
  plan.launches = 1;
  plan.temp_storage_bytes = 768;
  plan.rationale = "because";
  EXPECT_EQ(gpureduce::describe(plan),
            "vectorized/grid_sync: grid 123 x 256 threads, 16 items/thread per load batch, 1 launch, "
            "temp storage 768 B; because");
  plan.launches = 2;
  plan.rationale = "";
  EXPECT_EQ(gpureduce::describe(plan),
            "vectorized/grid_sync: grid 123 x 256 threads, 16 items/thread per load batch, 2 launches, "
            "temp storage 768 B");
}

TEST(Names, LadderOrderStartsAtTheSeedBaseline) {
  EXPECT_EQ(gpureduce::kAllStrategies[0], Strategy::global_memory);
  EXPECT_EQ(gpureduce::kAllStrategies[10], Strategy::cub_block);
}

}  // namespace
