// Segmented reductions, general offsets, first kernel: one thread per segment reads its offsets,
// flags an end below its begin, and files the segment by its class (shape.cuh):
//   - empty and group-class segments: nothing (the reduce kernel takes them in index order);
//   - warp class: the back of the work list (a warp each);
//   - block class: the front of the work list (a block each);
//   - split class: an entry of the split table with a range of chunk units, while the table has
//     room; past it, the front of the work list (one block, the same chunks and bits). A split
//     segment of few chunks goes there too when the call has half a wave of segments or more
//     (`whole_max_chunks`, state.cuh).
// It also arms the ring's epochs and each split entry's ticket for the reduce kernel. Appends are
// one atomic per warp and class; the lists' order is whatever the atomics made it, and no result
// depends on it (every segment's order is its own: shape.cuh).
#pragma once

#include <cstdint>

#include "../device_memory.cuh"
#include "../launch.cuh"
#include "shape.cuh"
#include "state.cuh"

namespace gpureduce::detail::segmented {

struct ClassifyArgs {
  const std::int64_t* begin;
  const std::int64_t* end;
  std::int64_t num_segments;
  Control* control;
  unsigned* epochs;
  unsigned ring_slots;
  SplitEntry* split;
  unsigned split_capacity;
  unsigned* list;  // num_segments entries: front and back lists never meet
  std::int64_t whole_max_chunks;  // split segments of at most this many chunks: a block, whole
};

// The lanes in `mask` take consecutive places from `*counter` (one atomic for the warp); returns
// this lane's place (meaningful in `mask` only).
__device__ __forceinline__ unsigned warp_append(unsigned* counter, unsigned mask) {
  const int lane = int(threadIdx.x) % kWarpThreads;
  const int leader = __ffs(int(mask)) - 1;
  unsigned first = 0;
  if (lane == leader) first = atomicAdd(counter, unsigned(__popc(mask)));
  first = __shfl_sync(mask, first, leader);
  return first + unsigned(__popc(mask & ((1u << lane) - 1u)));
}

// Exclusive prefix sum over the warp's lanes (lanes outside a class pass 0), and the total.
__device__ __forceinline__ unsigned long long warp_exclusive_sum(unsigned long long value,
                                                                 unsigned long long& total) {
  const int lane = int(threadIdx.x) % kWarpThreads;
  unsigned long long inclusive = value;
#pragma unroll
  for (int offset = 1; offset < kWarpThreads; offset *= 2) {
    const unsigned long long other = __shfl_up_sync(kFullWarpMask, inclusive, offset);
    if (lane >= offset) inclusive += other;
  }
  total = __shfl_sync(kFullWarpMask, inclusive, kWarpThreads - 1);
  return inclusive - value;
}

// Reserves `count` split entries and `chunks` chunk units for the warp, if the table has room for
// all of them; returns the word before the reservation, or ~0 when there was no room.
__device__ __forceinline__ unsigned long long reserve_split(Control* control, unsigned capacity,
                                                            unsigned count,
                                                            unsigned long long chunks) {
  unsigned long long seen = *reinterpret_cast<volatile unsigned long long*>(&control->split_word);
  for (;;) {
    if ((seen >> kSplitCountShift) + count > capacity) return ~0ull;
    const unsigned long long want =
        seen + (static_cast<unsigned long long>(count) << kSplitCountShift) + chunks;
    const unsigned long long prior = atomicCAS(&control->split_word, seen, want);
    if (prior == seen) return seen;
    seen = prior;
  }
}

// Split-class lanes (`mask`) get an entry and their chunk units, or, when the table is full,
// return false (the segment goes to the block list instead).
template <std::size_t kItemBytes>
__device__ __forceinline__ bool file_split(const ClassifyArgs& a, unsigned mask, bool mine,
                                           std::int64_t segment, std::int64_t begin,
                                           std::int64_t length) {
  const unsigned long long chunks =
      mine ? static_cast<unsigned long long>(Shape<kItemBytes>::chunking(length).count) : 0;
  unsigned long long total = 0;
  const unsigned long long before = warp_exclusive_sum(chunks, total);
  const int lane = int(threadIdx.x) % kWarpThreads;
  const int leader = __ffs(int(mask)) - 1;
  unsigned long long word = 0;
  if (lane == leader)
    word = reserve_split(a.control, a.split_capacity, unsigned(__popc(mask)), total);
  word = __shfl_sync(kFullWarpMask, word, leader);
  if (word == ~0ull) return false;
  if (mine) {
    const unsigned rank = unsigned(__popc(mask & ((1u << lane) - 1u)));
    const unsigned index = unsigned(word >> kSplitCountShift) + rank;
    a.split[index] = SplitEntry{begin, length, (word & kSplitChunksMask) + before,
                                unsigned(segment), 0u};
  }
  return true;
}

// Settles the block-level segments among the warp's lanes (class `c`, each lane its own segment):
// a split one gets a split entry (returns split), or is to go to the front of the list whole (few
// chunks with half a wave of segments, or the table full: returns block); a block-class one
// returns block. Every lane of the warp calls it. classify_kernel and direct_kernel (direct.cuh)
// share it, and append the block ones each its own way.
template <std::size_t kItemBytes>
__device__ __forceinline__ SegmentClass settle_block_level(const ClassifyArgs& a, SegmentClass c,
                                                           std::int64_t segment,
                                                           std::int64_t begin,
                                                           std::int64_t length) {
  if (c == SegmentClass::split && Shape<kItemBytes>::chunking(length).count <= a.whole_max_chunks)
    c = SegmentClass::block;
  const unsigned split = __ballot_sync(kFullWarpMask, c == SegmentClass::split);
  const bool mine = c == SegmentClass::split;
  if (split != 0 && !file_split<kItemBytes>(a, split, mine, segment, begin, length) && mine)
    c = SegmentClass::block;
  return c;
}

// Zeroes the ring's epochs for the reduce kernel, the grid's threads strided.
__device__ __forceinline__ void arm_ring(const ClassifyArgs& a) {
  const std::int64_t threads = std::int64_t(gridDim.x) * kBlockThreads;
  for (std::int64_t i = std::int64_t(blockIdx.x) * kBlockThreads + threadIdx.x; i < a.ring_slots;
       i += threads)
    a.epochs[i] = 0;
}

template <std::size_t kItemBytes>
__global__ void __launch_bounds__(kBlockThreads) classify_kernel(ClassifyArgs a) {
  wait_for_previous_kernel_then_release_next();  // the previous call may still own the state
  arm_ring(a);
  const std::int64_t segment = std::int64_t(blockIdx.x) * kBlockThreads + threadIdx.x;
  std::int64_t begin = 0, length = 0;
  if (segment < a.num_segments) {
    begin = a.begin[segment];
    length = a.end[segment] - begin;
  }
  if (__any_sync(kFullWarpMask, length < 0) && threadIdx.x % kWarpThreads == 0)
    atomicOr(&a.control->error, 1u);
  SegmentClass c = length < 0 ? SegmentClass::empty : Shape<kItemBytes>::classify(length);
  c = settle_block_level<kItemBytes>(a, c, segment, begin, length);
  const unsigned warp = __ballot_sync(kFullWarpMask, c == SegmentClass::warp);
  if (c == SegmentClass::warp)
    a.list[a.num_segments - 1 - warp_append(&a.control->warp_count, warp)] = unsigned(segment);
  const unsigned block = __ballot_sync(kFullWarpMask, c == SegmentClass::block);
  if (c == SegmentClass::block)
    a.list[warp_append(&a.control->front_count, block)] = unsigned(segment);
}

}  // namespace gpureduce::detail::segmented
