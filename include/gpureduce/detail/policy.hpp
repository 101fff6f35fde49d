// Tuning as data: per strategy, the default block size and how many waves of resident blocks the
// grid may hold, and the rules `automatic` resolves by. Plain constexpr values, no algorithm logic.
#pragma once

#include <cmath>
#include <cstdint>

#include "../gpureduce.hpp"

namespace gpureduce::detail {

struct StrategyPolicy {
  int default_block_threads;
  // Grid cap = resident blocks per SM (occupancy) x SMs x waves. The tile-tree rungs loop over
  // tiles; 4 waves keeps their partial count (and so the second pass) small while leaving the
  // scheduler slack. The fixed-grid rungs (seed 004 R7 onwards) fill the GPU exactly once.
  int waves;
};

// 256 threads everywhere: the ladder compares trees, not block sizes, and 256 with 4 vectors in
// flight already reaches CUB's bandwidth (docs/tuning.md, 'Block size and waves').
constexpr StrategyPolicy policy_for(Strategy strategy) {
  switch (strategy) {
    case Strategy::multi_element:
    case Strategy::warp_shuffle:
    case Strategy::vectorized: return {256, 1};
    case Strategy::cub_block: return {256, 5};  // CUB's own: policy threads, subscription factor 5
    default: return {256, 4};
  }
}

// ---- What `automatic` resolves to -------------------------------------------------------------
constexpr Strategy kAutomaticStrategy = Strategy::vectorized;

// Up to this many input bytes `automatic` uses one block: one launch, no partials, no counter, no
// memset. One block beat the best multi-block grids up to 16384 floats on an H200 (docs/tuning.md,
// 'One-block limit').
constexpr unsigned long long kAutomaticSingleBlockBytes = 64 * 1024;
// That one block has the fewest threads that still read the whole input in one batch of
// VectorizedRung::kVectorsInFlight 16-byte loads (64 bytes a thread), at least 128 and at most 512:
// a smaller block finishes its tree sooner, a second batch costs another memory round trip
// (docs/tuning.md, 'One-block threads').
constexpr int kAutomaticSingleBlockBytesPerThread = 64;
constexpr int kAutomaticSingleBlockMinThreads = 128;
constexpr int kAutomaticSingleBlockMaxThreads = 512;
constexpr int automatic_single_block_threads(unsigned long long input_bytes) {
  int threads = kAutomaticSingleBlockMinThreads;
  while (threads < kAutomaticSingleBlockMaxThreads &&
         static_cast<unsigned long long>(threads) * kAutomaticSingleBlockBytesPerThread < input_bytes)
    threads *= 2;
  return threads;
}

// Above it, the grid: ceil(sqrt(input bytes / kAutomaticGridBytesScale)) rounded up to a power of
// two, capped at one wave of resident blocks. A block's serial work grows as bytes / grid and the
// partials' pass as grid, so the best grid grows as the square root of the bytes; 256 is the
// measured ratio of the two costs, and the power of two was faster where the root falls between
// (docs/tuning.md, 'Automatic grid').
constexpr double kAutomaticGridBytesScale = 256.0;
inline std::int64_t automatic_grid_target(std::uint64_t input_bytes) {
  const auto root =
      std::int64_t(std::ceil(std::sqrt(double(input_bytes) / kAutomaticGridBytesScale)));
  std::int64_t grid = 1;
  while (grid < root) grid *= 2;
  return grid;
}

// Above the one-block limit, the pipeline. Given Options::temp_storage_zeroed: last_block, whose
// partials travel in flagged slots (pipeline/flagged_slots.cuh) in a kernel of its own
// (kernels.cuh): the fastest way for blocks to meet that we measured (docs/tuning.md, 'Zeroed
// storage: last_block'). Without that promise automatic runs the same plan on state the library
// keeps zero, the stream's or the captured graph's (below).
constexpr Pipeline kAutomaticPipelineZeroed = Pipeline::last_block;
// Per call (the stream not being captured), default Options, above the one-block limit and below
// the streaming range: the zeroed plan (the same kernel, grid and bits) on state its stream keeps
// in the library (stream_owned_state.hpp): one launch, no memset, no cooperative launch. Faster per
// call than the cluster and grid_sync plans it replaced at every size measured; the streaming range
// keeps grid_sync (docs/tuning.md, 'Stream-owned state').
constexpr Pipeline kAutomaticPipelineStreamOwned = Pipeline::last_block;
// Explicit strategies with Pipeline::automatic (automatic's own strategy takes the plan above),
// above the one-block limit and up to this many bytes: one cluster of up to 16 blocks (sm_90+),
// ahead of grid_sync up to 256 KiB and behind it at 512 KiB (docs/tuning.md, 'Cluster range').
constexpr unsigned long long kAutomaticClusterMaxBytes = 256 * 1024;
constexpr Pipeline kAutomaticPipelineSmall = Pipeline::cluster;

// Streaming inputs, at least half the L2: memory-bound, so the grid fills the GPU, one wave of
// 512-thread blocks (fewer partials and a cheaper grid barrier than 256-thread ones). It beat the
// sqrt rule from 32 MiB up and lost at 16 MiB; half the H200's L2 lies between (docs/tuning.md,
// 'Streaming range').
constexpr int kAutomaticStreamingL2Divisor = 2;
constexpr int kAutomaticStreamingBlockThreads = 512;
// On zeroed storage (the last_block kernel of its own, kernels.cuh) the streaming grid is half the
// room the launched kernel has on an SM (two 512-thread blocks where it fits four), not one wave:
// inside graphs a grid filling part of that room ran 13-19% slower than CUB, since only part of
// the next reduction's grid could start early (PDL); full waves and two blocks per SM did not
// (docs/tuning.md, 'Zeroed streaming grid'). The grid_sync plan keeps the general kernel's wave.
constexpr int automatic_streaming_zeroed_blocks_per_sm(int resident_blocks_per_sm) {
  return resident_blocks_per_sm >= 2 ? resident_blocks_per_sm / 2 : 1;
}
inline bool automatic_is_streaming(unsigned long long input_bytes, unsigned long long l2_bytes) {
  return input_bytes > kAutomaticClusterMaxBytes && l2_bytes > 0 &&
         input_bytes >= l2_bytes / kAutomaticStreamingL2Divisor;
}
// Where no state of the library's serves: grid_sync (no counter, so nothing to zero), else
// last_block with the per-call zeroing (docs/tuning.md, 'Fallback').
constexpr Pipeline kAutomaticPipelineCooperative = Pipeline::grid_sync;
// ...except while the stream is being captured into a CUDA graph: then two_kernel, same rung,
// grid and block (so the same bits: both fold the partials in index order). Inside a graph the
// cooperative launch costs more than the second launch it saves (docs/tuning.md, 'Captured plans:
// two_kernel'); per call the second launch is what costs.
constexpr Pipeline kAutomaticPipelineCaptured = Pipeline::two_kernel;
// ...but sums of 4-byte integers, below the streaming range, run last_block there: their blocks
// meet through the counted word (pipeline/counted_sum.cuh, one atomic and no fold), which lives in
// a slot the captured graph owns (graph_owned_state.hpp): one launch, faster than two_kernel even
// with a zeroing kernel first (docs/tuning.md, 'Captured integer sums').
constexpr Pipeline kAutomaticPipelineCapturedCountedSum = Pipeline::last_block;
// ...and float sums (4-byte float accumulators: f32, and f16 / bf16 into f32), below the streaming
// range, run last_block with flagged slots there, their ticket and slots likewise in state the
// graph owns: one launch, the same grid and bits as two_kernel, and a little faster; doubles were
// not, and stay two_kernel (docs/tuning.md, 'Captured float sums').
constexpr Pipeline kAutomaticPipelineCapturedFlaggedSum = Pipeline::last_block;
constexpr Pipeline kAutomaticPipelineFallback = Pipeline::last_block;

namespace rationale {
inline constexpr const char* kCallerChose = "as the caller's Options chose";
inline constexpr const char* kSingleBlock =
    "automatic: one block of 128-512 threads, 64 input bytes a thread (input <= 64 KiB: no "
    "partials, no counter, one launch of a kernel built for one block)";
inline constexpr const char* kStreamOwned =
    "automatic: grid = ceil(sqrt(bytes / 256 B)) rounded up to a power of two, capped at one "
    "wave; last_block with flagged partials (a counted sum for 4-byte integers) on state the "
    "stream keeps in the library, zero before every reduction (one launch: no memset, no "
    "cooperative launch; the zeroed plan's kernel, grid and bits)";
inline constexpr const char* kCluster =
    "automatic: one cluster of up to 16 blocks (64 KiB < input <= 256 KiB; blocks meet at the "
    "cluster barrier and fold through distributed shared memory: no counter, no memset)";
inline constexpr const char* kGridSync =
    "automatic: grid = ceil(sqrt(bytes / 256 B)) rounded up to a power of two, capped at one "
    "wave; grid_sync because the device launches cooperatively (no counter, no memset; no state "
    "of the stream's served: its device's slots are all held, or the partials outgrow one)";
inline constexpr const char* kZeroed =
    "automatic: grid = ceil(sqrt(bytes / 256 B)) rounded up to a power of two, capped at one "
    "wave; last_block with flagged partials (a counted sum for 4-byte integers) because temp "
    "storage is promised zeroed (no zeroing, no fence)";
inline constexpr const char* kFallback =
    "automatic: grid = ceil(sqrt(bytes / 256 B)) rounded up to a power of two, capped at one "
    "wave; last_block with a counter memset (a zeroing kernel inside a capture) because the "
    "device cannot launch cooperatively";
inline constexpr const char* kCaptured =
    "automatic: grid = ceil(sqrt(bytes / 256 B)) rounded up to a power of two, capped at one "
    "wave; two_kernel because the stream is being captured into a CUDA graph (a cooperative "
    "launch costs more there than a second PDL launch; no counter, no memset)";
inline constexpr const char* kCapturedCountedSum =
    "automatic: grid = ceil(sqrt(bytes / 256 B)) rounded up to a power of two, capped at one "
    "wave; last_block with the counted sum because the stream is being captured into a CUDA "
    "graph and the values are 4-byte integers (blocks meet in one atomic word that the graph "
    "owns, zero before every reduction: one launch, no fold, no cooperative launch)";
inline constexpr const char* kCapturedFlaggedSum =
    "automatic: grid = ceil(sqrt(bytes / 256 B)) rounded up to a power of two, capped at one "
    "wave; last_block with flagged partials because the stream is being captured into a CUDA "
    "graph and the sum accumulates in float (ticket and slots in state the graph owns, zero "
    "before every reduction: one launch, same grid and bits as grid_sync)";
inline constexpr const char* kStreamingCaptured =
    "automatic: input >= half the L2 (memory-bound): one wave of 512-thread blocks; two_kernel "
    "because the stream is being captured into a CUDA graph (a cooperative launch costs more "
    "there than a second PDL launch; no counter, no memset)";
inline constexpr const char* kStreamingGridSync =
    "automatic: input >= half the L2 (memory-bound): one wave of 512-thread blocks; grid_sync "
    "because the device launches cooperatively (no counter, no memset)";
inline constexpr const char* kStreamingZeroed =
    "automatic: input >= half the L2 (memory-bound): half the 512-thread blocks its kernel fits "
    "on an SM (two of four); last_block with flagged partials (a counted sum for 4-byte "
    "integers) because temp storage is promised zeroed (no zeroing, no fence)";
inline constexpr const char* kStreamingFallback =
    "automatic: input >= half the L2 (memory-bound): one wave of 512-thread blocks; last_block "
    "with a counter memset (a zeroing kernel inside a capture) because the device cannot launch "
    "cooperatively";
}  // namespace rationale

}  // namespace gpureduce::detail
