// Tuning as data: per strategy, the default block size and how many waves of resident blocks the
// grid may hold. Plain constexpr values, printable, no algorithm logic.
#pragma once

#include "../gpureduce.hpp"

namespace gpureduce::detail {

struct StrategyPolicy {
  int default_block_threads;
  // Grid cap = resident blocks per SM (occupancy) x SMs x waves. The tile-tree rungs loop over
  // tiles; 4 waves keeps their partial count (and so the second pass) small while leaving the
  // scheduler slack. The fixed-grid rungs (seed 004 R7 onwards) fill the GPU exactly once.
  int waves;
};

// 256 threads: seed 004's block size, kept for every seed rung so the ladder compares the trees
// and not the block size. vectorized: 256 as well until issue 4's measurements say otherwise.
constexpr StrategyPolicy policy_for(Strategy strategy) {
  switch (strategy) {
    case Strategy::multi_element:
    case Strategy::warp_shuffle:
    case Strategy::vectorized: return {256, 1};
    case Strategy::cub_block: return {256, 5};  // CUB's own: policy threads, subscription factor 5
    default: return {256, 4};
  }
}

// What `automatic` resolves to until issue 4 tunes it per device and size.
constexpr Strategy kAutomaticStrategy = Strategy::vectorized;
constexpr Pipeline kAutomaticPipeline = Pipeline::last_block;
// Up to this many input bytes `automatic` uses one block: one launch, no counter, no memset. 16 KiB
// is CUB's own single-tile limit for 4-byte items on sm_90 (256 threads x 16 items), below which
// CUB also launches a single block; at 4096 floats the multi-block path measured 1.28-1.31x CUB's
// time on an H200 (benchmark/results, 2026-11-21), all of it launch and counter overhead.
constexpr unsigned long long kAutomaticSingleBlockBytes = 16 * 1024;

}  // namespace gpureduce::detail
