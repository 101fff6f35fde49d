// Host tests of `automatic`'s rules (detail/policy.hpp), restated here from the README and the
// policy comments, so that an edit to a constant or a rule shows up in CI without a GPU. The GPU
// tests (test_automatic.cu) check that the plans a device gets follow the same rules.
#include <gtest/gtest.h>

#include <cstdint>

#include "gpureduce/detail/policy.hpp"

namespace {

using namespace gpureduce::detail;

constexpr unsigned long long KiB = 1024, MiB = 1024 * KiB;

TEST(Policy, OneBlockThreadsAre64BytesEachFrom128To512) {
  EXPECT_EQ(automatic_single_block_threads(0), 128);
  for (unsigned long long bytes = 1; bytes <= kAutomaticSingleBlockBytes; bytes += 61) {
    const int threads = automatic_single_block_threads(bytes);
    SCOPED_TRACE(bytes);
    EXPECT_GE(threads, 128);
    EXPECT_LE(threads, 512);
    EXPECT_EQ(threads & (threads - 1), 0) << "a power of two (Options::block_threads must be)";
    // The fewest such threads with at most 64 bytes each, where 512 threads are enough.
    if (threads < 512) {
      EXPECT_GE(static_cast<unsigned long long>(threads) * 64, bytes);
    }
    if (threads > 128) {
      EXPECT_LT(static_cast<unsigned long long>(threads / 2) * 64, bytes);
    }
  }
  EXPECT_EQ(automatic_single_block_threads(8 * KiB), 128);  // 1024 floats: 128 threads
  EXPECT_EQ(automatic_single_block_threads(8 * KiB + 1), 256);
  EXPECT_EQ(automatic_single_block_threads(16 * KiB), 256);  // 4096 floats: 256
  EXPECT_EQ(automatic_single_block_threads(16 * KiB + 1), 512);
  EXPECT_EQ(automatic_single_block_threads(64 * KiB), 512);  // 16384 floats: 512
}

TEST(Policy, RangesAreOrdered) {
  EXPECT_EQ(kAutomaticSingleBlockBytes, 64 * KiB);
  EXPECT_EQ(kAutomaticClusterMaxBytes, 256 * KiB);
  EXPECT_LT(kAutomaticSingleBlockBytes, kAutomaticClusterMaxBytes);
}

TEST(Policy, StreamingFromHalfTheL2AndNeverInTheClusterRange) {
  const unsigned long long l2 = 60 * MiB;  // the H200's
  EXPECT_FALSE(automatic_is_streaming(l2 / 2 - 1, l2));
  EXPECT_TRUE(automatic_is_streaming(l2 / 2, l2));
  EXPECT_TRUE(automatic_is_streaming(1ull << 40, l2));
  EXPECT_FALSE(automatic_is_streaming(1ull << 40, 0)) << "an unknown L2 size never streams";
  // A device with a tiny L2 still uses one block and the cluster for small inputs.
  EXPECT_FALSE(automatic_is_streaming(kAutomaticClusterMaxBytes, 64 * KiB));
  EXPECT_TRUE(automatic_is_streaming(kAutomaticClusterMaxBytes + 1, 64 * KiB));
}

TEST(Policy, GridTargetIsTheCeilingOfSqrtBytesOver256RoundedUpToAPowerOfTwo) {
  for (std::uint64_t bytes : {std::uint64_t(1), std::uint64_t(255), std::uint64_t(256),
                              std::uint64_t(257), std::uint64_t(256 * KiB + 1), std::uint64_t(MiB),
                              std::uint64_t(16 * MiB), std::uint64_t(16 * MiB) + 1,
                              std::uint64_t(1) << 33, (std::uint64_t(1) << 36) + 12345}) {
    const std::int64_t g = automatic_grid_target(bytes);
    SCOPED_TRACE(bytes);
    EXPECT_EQ(g & (g - 1), 0) << g << " is not a power of two";
    EXPECT_GE(std::uint64_t(g) * std::uint64_t(g) * 256, bytes);  // at least the square root
    if (g > 1) {  // and the smallest power of two that is
      const std::uint64_t half = std::uint64_t(g / 2);
      EXPECT_LT(half * half * 256, bytes);
    }
  }
  EXPECT_EQ(automatic_grid_target(std::uint64_t(MiB)), 64);  // the sweep's best at 1 MiB
  EXPECT_EQ(automatic_grid_target(std::uint64_t(4 * MiB)), 128);
  EXPECT_EQ(automatic_grid_target(std::uint64_t(2 * MiB)), 128);  // probe run 27: not sqrt's 91
  EXPECT_EQ(automatic_grid_target(std::uint64_t(8 * MiB)), 256);  // not 182
}

}  // namespace
