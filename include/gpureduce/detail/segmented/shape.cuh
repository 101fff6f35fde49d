// Segmented reductions: which threads reduce a segment, as a function of its length alone.
//
// A segment's length L (in items) picks its class, and the class fixes the order of operations,
// so a segment's bits depend on its items, L and its start's alignment only: never on the other
// segments, num_segments, the grid, or which block or warp ran it (docs/segmented.md,
// 'Determinism'). Host and device use these same functions: describe() reports what the kernels do.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpureduce::detail::segmented {

// The block of every block-level piece: the vectorized rung's default (policy.hpp), whose loop
// reaches CUB's bandwidth with 4 vectors in flight per thread.
inline constexpr int kBlockThreads = 256;
inline constexpr int kWarpsPerBlock = kBlockThreads / 32;
// Scalar loads a lane of a group issues at once: a group of G lanes takes up to 4G items in one
// memory round trip. Reasoned, not measured: 4 loads in flight per lane is what the vectorized rung
// issues, and fewer lanes per segment means more segments per warp instruction.
inline constexpr int kGroupItemsPerLane = 4;
inline constexpr std::int64_t kGroupMaxItems = 32 * kGroupItemsPerLane;
// A warp takes a segment whole up to 16 KiB: 8 rounds of its 2 KiB of vectors in flight (32 lanes
// x 4 x 16 B). Where a block per segment (CUB) pays a block launch, an offsets round trip and a
// block tree for a few KiB, 64 warps an SM keep 128 KiB in flight without any of that; above 16
// KiB CUB's block already streams one full tile (256 x 16 floats). Reasoned from CUB's policy and
// Little's law; the issue's benchmark is where to confirm it (docs/segmented.md, 'Thresholds').
inline constexpr std::int64_t kWarpMaxBytes = std::int64_t(16) << 10;
// Above it a block takes the segment, in chunks of at most 128 KiB. A split segment costs its blocks
// a search of the split table per run, a ticket (a fence and an atomic) and a fold: on an H100 the
// 2^26-float sweep's time grew by about 7 us of block time per split segment, so fewer, larger
// chunks; 128 KiB still cuts a few huge segments into enough pieces for every SM (4 x 16M floats:
// 512 chunks). H100 against 64
// KiB (quick segmented rows, 2026-11-26): 2^15-float segments 133 -> 99 us (CUB 91), the power
// law 91 -> 85, 4 x 16M 104 -> 103 (docs/tuning.md, 'Chunk size'). At most 1024 chunks (then larger
// ones): the fold reads 4 partials a thread, and no more than one wave of blocks (1056 on an H100)
// has use for a segment's chunks at once.
inline constexpr std::int64_t kChunkBytes = std::int64_t(128) << 10;
inline constexpr std::int64_t kMaxChunks = 1024;
// A split segment of at most this many chunks is taken whole by one block (the block list: its
// chunks one after another, folded in the same order, so the same bits) when the call has at least
// half a wave of segments (state.cuh, whole_max_chunks): then blocks taking whole segments fill the
// GPU, with no ticket, ring slot or cross-block fold. Quick rows, 2026-11-27: 2^16-float segments
// 1.26 -> 1.07x CUB (H100 and H200), 2^17 1.22 -> 1.05-1.08 (H200); whole up to 8 chunks lost (2^18
// 0.97 -> 1.07x, the power law 84 -> 98 us, H200) (docs/tuning.md, 'Whole segments').
inline constexpr std::int64_t kWholeMaxChunks = 4;
// Chunk boundaries fall on multiples of 16 items, so a vector never straddles two chunks (16 is
// the most items a 16-byte vector holds).
inline constexpr std::int64_t kChunkAlignItems = 16;
// Segments of general offsets that may be split across blocks at once: their entries (32 bytes
// each) are the only temp storage that would otherwise grow with the data. Past it a segment is
// reduced by one block alone, in the same chunks and order (same bits); 65536 such segments are at
// least 4 GiB, which saturates the GPU a block per segment anyway.
inline constexpr std::int64_t kMaxSplitSegments = 65536;
// Ring of chunk partials shared by the split segments of a call (a power of two): a chunk waits
// for its slot only once 8192 later chunks were claimed before its predecessor's segment folded,
// about 8 waves of blocks on an H100.
inline constexpr std::int64_t kRingSlots = 8192;
// Segment indices travel as 32-bit unsigned values in the work lists.
inline constexpr std::int64_t kMaxSegments = 0x7fffffff;

enum class SegmentClass {
  empty,  // init written, nothing read
  group,  // G = group_lanes(L) lanes of a warp, up to 4 items a lane, then the group's tree
  warp,   // one warp: 16-byte vectors, 4 in flight per lane, then the warp's tree
  block,  // one block: chunks of chunking(L), each the vectorized rung's order, folded in order
  split   // as block, with more than one chunk: the chunks may run on different blocks
};

__host__ __device__ constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// How a block-class segment is cut: `count` chunks of `span` items (the last one shorter).
struct Chunking {
  std::int64_t count;
  std::int64_t span;
};

// The rule for items of kItemBytes bytes (the input's value type).
template <std::size_t kItemBytes>
struct Shape {
  static constexpr std::int64_t kItem = std::int64_t(kItemBytes);
  static constexpr std::int64_t kWarpMaxItems =
      kWarpMaxBytes / kItem > kGroupMaxItems ? kWarpMaxBytes / kItem : kGroupMaxItems;
  static constexpr std::int64_t kChunkItems =
      kChunkBytes / kItem > kWarpMaxItems ? kChunkBytes / kItem : kWarpMaxItems;

  __host__ __device__ static SegmentClass classify(std::int64_t length) {
    if (length <= 0) return SegmentClass::empty;
    if (length <= kGroupMaxItems) return SegmentClass::group;
    if (length <= kWarpMaxItems) return SegmentClass::warp;
    return length <= kChunkItems ? SegmentClass::block : SegmentClass::split;
  }
  // Lanes of the group class: the fewest (a power of two) that hold L items at 4 a lane, so every
  // lane has at least one item (G <= L).
  __host__ __device__ static int group_lanes(std::int64_t length) {
    const std::int64_t per_lane = ceil_div(length, kGroupItemsPerLane);
    int lanes = 1;
    while (lanes < per_lane) lanes *= 2;
    return lanes;
  }
  __host__ __device__ static Chunking chunking(std::int64_t length) {
    if (length <= kChunkItems) return {1, length};
    std::int64_t count = ceil_div(length, kChunkItems);
    count = count < kMaxChunks ? count : kMaxChunks;
    const std::int64_t span =
        ceil_div(ceil_div(length, count), kChunkAlignItems) * kChunkAlignItems;
    return {ceil_div(length, span), span};
  }
};

}  // namespace gpureduce::detail::segmented
