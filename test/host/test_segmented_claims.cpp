// The segmented reduce kernel's claim rule (detail/segmented/claim.hpp): runs never empty and
// never past the kernel's 32-entry run buffers, far fewer claims than entries for long lists, and
// single entries at the end. The kernel's claims are simulated: workers take turns in a random
// order, each asking for the run the rule gives it from the counter as it stands, as the kernel's
// warps do (they read the counter as their last run's last segment begins).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "gpureduce/detail/segmented/claim.hpp"

namespace {

using gpureduce::detail::segmented::guided_run;
using gpureduce::detail::segmented::kClaimShare;
using gpureduce::detail::segmented::kMaxRun;

struct Claims {
  std::uint64_t count = 0;     // claims made
  std::uint64_t last_run = 0;  // the run that took the list's last entry
  std::uint64_t covered = 0;   // entries handed out, below the total
  std::uint64_t largest = 0;
};

// With `static_first`, as the kernel's warps (kernels.cuh, reduce_warp_work): worker w's first run
// is entries [w x s, w x s + s), s = guided_run(total, 0, workers), without a claim, and the
// counter's claims start at workers x s. `hits` counts how often each entry was handed out;
// `covered` counts the static runs' entries too.
Claims simulate(std::uint64_t total, std::uint64_t workers, std::uint64_t seed,
                bool static_first = false) {
  std::mt19937_64 rng(seed);
  std::vector<bool> done(workers, false);
  std::vector<unsigned> hits(total, 0);
  const std::uint64_t share = guided_run(total, 0, workers);
  const std::uint64_t statics = static_first ? workers * share : 0;
  std::uint64_t counter = 0, finished = 0;
  Claims c;
  for (std::uint64_t w = 0; static_first && w < workers; ++w)
    for (std::uint64_t i = w * share; i < std::min((w + 1) * share, total); ++i) {
      ++hits[i];
      ++c.covered;
    }
  while (finished < workers) {
    const std::uint64_t w = rng() % workers;
    if (done[w]) continue;
    const std::uint64_t run = guided_run(total, statics + counter, workers);
    EXPECT_GE(run, 1u);
    EXPECT_LE(run, kMaxRun);
    const std::uint64_t first = statics + counter;
    counter += run;
    ++c.count;
    c.largest = std::max(c.largest, run);
    if (first >= total) {
      done[w] = true;
      ++finished;
      continue;
    }
    const std::uint64_t end = std::min(first + run, total);
    for (std::uint64_t i = first; i < end; ++i) ++hits[i];
    c.covered += end - first;
    if (end == total) c.last_run = run;
    // Once less than a run of two for each worker's share is left, runs are single entries.
    if (total - first < 2 * kClaimShare * workers) {
      EXPECT_EQ(run, 1u) << first;
    }
  }
  const auto once = std::count(hits.begin(), hits.end(), 1u);
  EXPECT_EQ(std::uint64_t(once), total) << "entries not handed out exactly once";
  return c;
}

TEST(SegmentedClaims, RunsAreNeverEmptyNorLongerThanTheBuffers) {
  for (std::uint64_t total : {0ull, 1ull, 31ull, 33ull, 4096ull, 1ull << 20, 1ull << 31})
    for (std::uint64_t workers : {0ull, 1ull, 7ull, 528ull, 4224ull}) {
      for (std::uint64_t seen : {std::uint64_t(0), total / 2, total, total + 5}) {
        const auto run = guided_run(total, seen, workers);
        EXPECT_GE(run, 1u) << total << " " << workers << " " << seen;
        EXPECT_LE(run, kMaxRun) << total << " " << workers << " " << seen;
      }
    }
}

TEST(SegmentedClaims, EveryEntryIsHandedOutOnce) {
  // The counter hands out disjoint ranges; the runs together cover the list exactly.
  for (std::uint64_t total : {1ull, 100ull, 65536ull, 262144ull})
    EXPECT_EQ(simulate(total, 528, total).covered, total) << total;
}

TEST(SegmentedClaims, LongListsTakeFarFewerClaimsThanEntries) {
  // 2^18 warp-class segments on an H100's 4224 warps: one claim an entry was the bottleneck.
  const Claims warps = simulate(262144, 4224, 1);
  EXPECT_LE(warps.count * 3, 262144u) << warps.count;  // 76637 at a share of 4
  EXPECT_EQ(warps.largest, 15u);  // 262144 / (4 x 4224), below the 32-entry cap
  EXPECT_EQ(warps.last_run, 1u);  // the list's end goes out a single entry at a time
  // A list long enough for the cap: runs of 32 while it lasts.
  EXPECT_EQ(simulate(1u << 24, 4224, 2).largest, kMaxRun);
}

TEST(SegmentedClaims, StaticFirstRunsAndClaimsHandOutEveryEntryOnce) {
  // The warps' first runs without a claim: 2^12-float segments (16384 on 4224 warps: runs of one),
  // the 256-4K mix (65536: first runs of three), fewer entries than warps, and 2^18 entries.
  for (std::uint64_t total : {0ull, 1ull, 100ull, 16384ull, 65536ull, 262144ull})
    EXPECT_EQ(simulate(total, 4224, total + 7, true).covered, total) << total;
  // Every worker still makes its last, empty claim; the first runs took 4224 claims off the
  // counter.
  EXPECT_EQ(simulate(16384, 4224, 5, true).count + 4224, simulate(16384, 4224, 5).count);
}

TEST(SegmentedClaims, ShortListsGoOutOneEntryAtATime) {
  // Fewer entries than 2 x kClaimShare x workers: every run is one entry, as before runs existed.
  const Claims c = simulate(2000, 528, 3);
  EXPECT_EQ(c.largest, 1u);
  EXPECT_EQ(c.covered, 2000u);
}

}  // namespace
