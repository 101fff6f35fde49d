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

// 256 threads: seed 004's block size, kept for every seed rung so the ladder compares the trees
// and not the block size. vectorized: 256 too; the 2026-11-22 H200 sweeps varied the grid, not the
// block, and a 256-thread block with 4 vectors in flight already reaches CUB's bandwidth.
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
// memset. 64 KiB: at 16384 floats one 256-thread block (16 vectors per thread, 4 in flight) took
// 7.9 us per call and 2.15 us per reduction inside a graph on an H200, against 8.4-8.7 us and
// 2.8-3.1 us for the best multi-block grids (2-16 blocks); scratch sweep 2026-11-22, issue 4's note.
// The old limit, 16 KiB, was CUB's own single-tile limit for 4-byte items on sm_90.
constexpr unsigned long long kAutomaticSingleBlockBytes = 64 * 1024;
// That one block has the fewest threads that still read the whole input in one batch of
// VectorizedRung::kVectorsInFlight 16-byte loads (64 bytes a thread), at least 128 and at most 512:
// 128 threads up to 8 KiB, 256 up to 16 KiB, 512 above. A smaller block finishes its tree and
// barriers sooner; more loads per thread than one batch cost another memory round trip. H200
// sweep, 2026-11-22 (benchmark/results/h200-2026-11-22-automatic-tuning.txt, per reduction in a
// graph, f32): 1024 items 0.95 us with 128 threads, 1.00 with 256, 1.12 with 512; 4096 items 1.12
// with 256, 1.19 with 512, 1.24 with 128; 16384 items 1.73 with 512, 1.97 with 256, 2.02 with 1024.
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
// two, capped at one wave of resident blocks. Why a square root: a block's serial work grows as bytes / grid and the partials
// pass as grid, so t(grid) ~ a * bytes / grid + b * grid, least at grid = sqrt(a / b * bytes).
// The constant is the measured a / b: an H200 sweep (2026-11-22, float sum, one last-block kernel
// with 1-32 vectors per thread; issue 4's closing note has the table) was fastest at 64 blocks for
// 1 MiB, 128 for 4 MiB, 256 for 16 MiB and 400-512 for 64 MiB: about sqrt(bytes / 256). At 256 KiB
// grids of 16-64 were within 0.2 us. From 256 MiB up, grids of 400 to 2100 blocks were within 1%
// of each other (bandwidth-bound), so the one-wave cap costs nothing there, and whether the input
// fits in L2 did not move the best grid.
// Why the power of two: those best grids are the square root exactly, at byte counts that are
// powers of four. At the other powers of two (doubles and half floats at 2^k items, 4-byte types
// at odd k) the root falls between, e.g. 91 blocks at 2 MiB and 182 at 8 MiB, and the next power
// of two was faster on the zeroed last_block kernel inside graphs, measured on the same buffers over
// six allocations on two machines (H200, probe runs 27-28, benchmark/results/
// h200-2026-11-22l-probe.txt): 2^18 doubles 2.38-2.41 us at 128 blocks against 2.55 at 91; 2^20
// doubles 3.24-3.25 at 256 against 3.30-3.31 at 182; 2^21 floats 3.03 at 256 against 3.08 at
// 182; 2^16 doubles 2.23 at 64 against 2.25 at 46. Power-of-two inputs then split into whole
// batches of VectorizedRung::kVectorsInFlight vectors per thread, with no ragged last batch
// (vectorized.cuh says what that batch cost).
constexpr double kAutomaticGridBytesScale = 256.0;
inline std::int64_t automatic_grid_target(std::uint64_t input_bytes) {
  const auto root =
      std::int64_t(std::ceil(std::sqrt(double(input_bytes) / kAutomaticGridBytesScale)));
  std::int64_t grid = 1;
  while (grid < root) grid *= 2;
  return grid;
}

// Above the one-block limit, the pipeline. Given Options::temp_storage_zeroed: last_block, whose
// partials travel in flagged slots (pipeline/flagged_slots.cuh): no fence and no memset on the
// way, the fastest way for blocks to meet that we have measured, in a kernel of its own
// (kernels.cuh). H100, 2026-11-22 (benchmark/results/h100-2026-11-22-graph-probe.txt, run 4; the
// cluster and grid_sync from run 2 and the sweep), per reduction in a graph: 2^16 floats 2.14 us
// over 32 x 256 against 2.58-2.60 for the 16 x 256 cluster and 2.47-2.49 for grid_sync; 2^20
// floats 2.82 us over 128 x 256 against 3.05 with the acq_rel ticket and 3.03-3.18 for grid_sync.
// The H200 differs at 256 KiB (benchmark/results/h200-2026-11-22c-automatic-sweep.txt): there the
// 16 x 256 cluster took 2.00 us against 2.10 for this plan, and this plan won from 1 MiB (2.30
// against 2.59 for grid_sync). One rule for both, so the larger gain wins: last_block.
// Without that promise the counter and slots would need zeroing per call (a memset: 2 us inside a
// graph, the same probe; there a PDL kernel now, pipeline/arm.cuh, ~0.5 us), so automatic runs the
// same plan on state the library keeps zero: the stream's own (kAutomaticPipelineStreamOwned below)
// or the captured graph's. Where neither serves: grid_sync where the device can launch
// cooperatively (no counter, so nothing to zero: 1.0-1.5 us less per call than last_block +
// memset on the H200), else last_block with the memset.
constexpr Pipeline kAutomaticPipelineZeroed = Pipeline::last_block;
// Per call (the stream not being captured), default Options, above the one-block limit and below
// the streaming range: the zeroed plan (the same kernel, grid and bits) on state its stream keeps
// in the library (stream_owned_state.hpp): one launch, no memset, no cooperative launch. Until stop
// u it was one cluster up to 256 KiB, then grid_sync; benchmark run h200-2026-11-22t measured both
// beside the zeroed plan, per call in us (CUB's in brackets), those plans / zeroed:
//   f32  2^16 6.88 / 6.53 (9.66)   2^18 7.42 / 6.59 (9.60)   2^20 8.00 / 7.23 (9.44)   2^22 9.41 / 8.64 (11.04)
//   i32  2^16 8.03 / 6.11 (9.47)   2^18 8.77 / 6.18 (9.54)   2^20 9.09 / 6.72 (9.39)   2^22 10.66 / 8.64 (10.78)
//   f64  2^14 6.85 / 6.72 (9.25)   2^16 7.58 / 6.85 (9.41)   2^18 7.94 / 6.98 (9.34)   2^20 8.86 / 7.94 (9.98)
// (run s agrees: i32 2^16 7.52 / 6.69, f32 2^18 9.02 / 8.22, f64 2^20 9.44 / 8.42). The slot costs
// a lookup on the host (cudaStreamGetId and a map under a mutex, 73-100 ns, probe run 50,
// benchmark/results/h200-2026-11-22u-probe.txt), none on the device. With it, run
// h200-2026-11-22v, paired call by call with CUB: f32 0.663 / 0.677 / 0.724 at 2^16 / 2^18 / 2^20,
// i32 0.620 / 0.623 / 0.661, f64 0.679 / 0.698 / 0.764. The streaming
// range keeps grid_sync: the last_block kernel fits 4 blocks of 512 on an SM where the general
// kernel fits 3, so its one wave, and its bits, would differ from the captured plan's; and there
// a launch is 1% of the call.
constexpr Pipeline kAutomaticPipelineStreamOwned = Pipeline::last_block;
// Explicit strategies with Pipeline::automatic (automatic's own strategy takes the plan above),
// above the one-block limit and up to this many bytes: one cluster of
// up to 16 blocks (sm_90+). H200, 2026-11-22, per call / per reduction in a graph: at 256 KiB
// 7.3 us / 1.94 us against 8.1 / 2.49 (grid_sync); at 1 MiB 7.8 / 2.84 against 7.4 / 2.69. The
// later sweep (automatic-tuning.txt) put the crossover below 512 KiB: at 65536 doubles the
// cluster took 2.77 us in a graph against 2.60-2.66 for grid_sync at 46-128 blocks, while at
// 65536 floats (256 KiB) it stayed ahead (2.09 us), so the cluster range ends at 256 KiB.
constexpr unsigned long long kAutomaticClusterMaxBytes = 256 * 1024;
constexpr Pipeline kAutomaticPipelineSmall = Pipeline::cluster;

// Streaming inputs, at least half the L2: memory-bound, so the grid fills the GPU, one wave of
// 512-thread blocks (half as many blocks as 256-thread ones for the same threads in flight: fewer
// partials, a cheaper grid barrier). Same sweep, per reduction in a graph (the input partly
// L2-resident between replays) / paired per-call ratio to CUB: 2^24 floats (64 MiB) 17.6-17.9 us
// for 396 x 512 against 18.0-23.3 for the sqrt rule's 512 x 256 and 17.6 for CUB; 2^22 doubles
// (32 MiB) 6.6-7.0 us for 264 x 512 against 7.5-10.4 for the rule's 363 x 256 and 6.8 for CUB;
// 2^26 floats 60.9-61.1 us against 61.3-62.2 for 792 x 256 and 61.5 for CUB. At 16 MiB and below
// the sqrt rule was as good or better (2^22 floats: 4.43-4.62 us for 128-256 x 256 against
// 4.68-5.23 for 396 x 512). Half the L2 (30 MiB on the H200) lies between the two measurements.
constexpr int kAutomaticStreamingL2Divisor = 2;
constexpr int kAutomaticStreamingBlockThreads = 512;
// On zeroed storage (the last_block kernel of its own, kernels.cuh) the streaming grid is half the
// room the launched kernel has on an SM (two 512-thread blocks where it fits four), not one wave.
// Inside a CUDA graph, a grid that fills part of the room its kernel leaves on each SM ran 13-19%
// slower than CUB, whether that kernel was ours or the general one: then only part of the next
// reduction's grid can start early (PDL). Full waves and two blocks per SM did not. H100, graph
// probe run 6 (benchmark/results/h100-2026-11-22-graph-probe.txt), per reduction: 2^26 floats
// 87.8 us at 264 x 512 (2 of 4 resident blocks per SM), 88.7 at 528 x 512 (4 of 4), 100.0 at
// 396 x 512 (3 of 4), CUB 88.5;
// 2^24 floats 23.7 / 24.6 / 27.4, CUB 24.2; 10^7 floats (40 MB) 7.5 / 12.3 / 15.7, CUB 11.4;
// 2^22 doubles 6.8 us at 264 x 512, CUB 7.6. The H200 agrees (graph probe run 11,
// benchmark/results/h200-2026-11-22d-graph-probe.txt), 1, 2, 3 and 4 blocks of 512 per SM: 10^7
// floats 7.43 / 7.27 / 13.14 / 7.47 us, CUB 8.08; 2^25 floats 33.5 / 32.3 / 39.9 / 32.5, CUB 33.1;
// 2^24 doubles 33.6 / 32.5 / 40.1 / 32.7, CUB 33.6. So dispatch asks the launched kernel's room:
// f64 Max, while its kernel took 36 registers (3 blocks of 512; ops.cuh has since cut it to 32),
// ran 1.33-1.35x CUB's time on 64-256 MiB at 264 x 512, 2 of 3, and 1.15-1.19x at 132 x 512, half
// of them (probe run 16, benchmark/results/h200-2026-11-22g-probe.txt); where four fit, one per SM
// ran 2-4% behind two. test_automatic.cu checks the plan for every shipped type and operation, and
// that every shipped sum fits four (32 registers). The general
// kernel (3 blocks of 512 per SM) with its full wave of 396 stays the grid_sync plan.
constexpr int automatic_streaming_zeroed_blocks_per_sm(int resident_blocks_per_sm) {
  return resident_blocks_per_sm >= 2 ? resident_blocks_per_sm / 2 : 1;
}
inline bool automatic_is_streaming(unsigned long long input_bytes, unsigned long long l2_bytes) {
  return input_bytes > kAutomaticClusterMaxBytes && l2_bytes > 0 &&
         input_bytes >= l2_bytes / kAutomaticStreamingL2Divisor;
}
constexpr Pipeline kAutomaticPipelineCooperative = Pipeline::grid_sync;
// ...except while the stream is being captured into a CUDA graph: then two_kernel, same rung,
// grid and block (so the same bits: both fold the partials in index order). Inside a graph the
// cooperative launch costs more than the second launch it saves, and two_kernel needs no counter,
// so no memset either. H200, graph probe run 13 (benchmark/results/
// h200-2026-11-22d-graph-probe.txt), per reduction in a 100-reduction graph, two_kernel / grid_sync
// / CUB: 2^18 floats 2.05 / 2.54 / 2.51 us; 2^20 ints 2.69 / 3.05 / 2.80; 2^18 doubles 2.65 /
// 3.04 / 2.93; 2^22 doubles 6.55 / 6.90 / 6.81; 2^24 floats 17.7 / 18.1 / 17.8. Per call, outside
// graphs, grid_sync stays: there the second launch is what costs (CUB pays it).
constexpr Pipeline kAutomaticPipelineCaptured = Pipeline::two_kernel;
// ...but sums of 4-byte integers, below the streaming range, run last_block there: their blocks
// meet through the counted word (pipeline/counted_sum.cuh, one atomic and no fold), which lives in
// a slot the captured graph owns, zero when handed out and left zero by every reduction
// (graph_owned_state.hpp): one launch. (Until stop r the word was in the caller's storage, zeroed
// first by a one-block PDL kernel, pipeline/arm.cuh: two launches, which was still less than
// two_kernel's fold.) H200, probe run 18 (benchmark/results/h200-2026-11-22i-probe.txt),
// per reduction in a 100-reduction graph: 2^20 ints over 128 x 256, zeroing + counted 2.34 us
// against 2.57 for the same read loop followed by a fold kernel and 2.62 for the library's
// two_kernel (CUB 3.02); 2^16 ints over 32 x 256, 1.92 against 1.94 (CUB 2.38). Streaming grids
// stay two_kernel: not measured, and one wave of the general kernel would fill 3 of the 4 places
// the last_block kernel has on an SM (see above).
constexpr Pipeline kAutomaticPipelineCapturedCountedSum = Pipeline::last_block;
// ...and float sums (4-byte float accumulators: f32, and f16 / bf16 into f32), below the streaming
// range, run last_block with flagged slots there, their ticket and slots likewise in state the
// graph owns: one launch, the same grid, so the same bits as grid_sync and two_kernel (all fold
// the partials in index order). With a zeroing kernel first it was slower than two_kernel (2.94
// against 2.55 us at 2^20, probe run 18); without one it is the zeroed plan, which in benchmark run
// h200-2026-11-22r took, per reduction in graphs against two_kernel's: 2^18 floats 2.03 / 2.07 us,
// 2^20 2.48 / 2.54, 2^22 3.91 / 4.04. Doubles stay two_kernel: their zeroed plan was slower at
// 2^16 and 2^18 (2.15 / 2.12, 2.38 / 2.33) and their slots are twice the size.
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
