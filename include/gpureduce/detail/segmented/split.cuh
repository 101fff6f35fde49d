// Segmented reductions: the chunks of a split segment, each a unit of the reduce kernel's
// block-level work. A block reduces its chunk (block_per_segment.cuh), puts the partial in the
// ring slot of its unit and takes the segment's ticket; the block that draws the last ticket folds
// the segment's partials in chunk order (fold.cuh), writes the output and releases the slots. The
// bits do not depend on which block ran which chunk, nor in what order they finished.
//
// The ring (state.cuh) has R slots; unit u uses slot u mod R, generation u / R, and may write it
// once generation u / R - 1 has been folded (the slot's epoch says how many generations were).
// Units are claimed in increasing order, so the unit a block waits for is older than its own, and
// held by a running block (whose own wait, if any, is for an older one still): every wait ends.
#pragma once

#include <cstdint>

#include <cuda/atomic>

#include "../device_memory.cuh"
#include "../pipeline/ticket.cuh"
#include "block_per_segment.cuh"
#include "fold.cuh"
#include "shape.cuh"
#include "state.cuh"

namespace gpureduce::detail::segmented {

// The entry whose units hold `unit`: the last with base <= unit (classify hands out entries and
// bases with one atomic, so bases grow with the index). Warp 0's lanes probe 32 entries a step.
__device__ __forceinline__ unsigned find_split_entry(const SplitEntry* split, unsigned count,
                                                     unsigned long long unit) {
  const unsigned lane = threadIdx.x % kWarpThreads;
  unsigned lo = 0, n = count;
  while (n > 1) {
    const unsigned step = (n + kWarpThreads - 1) / kWarpThreads;
    const unsigned probe = lane * step;
    const bool at_or_below = probe < n && split[lo + probe].base <= unit;  // true on lane 0
    const unsigned j = 31u - unsigned(__clz(int(__ballot_sync(kFullWarpMask, at_or_below))));
    lo += j * step;
    n = n - j * step < step ? n - j * step : step;
  }
  return lo;
}

__device__ __forceinline__ void wait_for_slot(unsigned* epoch, unsigned generation) {
  ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> ref(*epoch);
  while (ref.load(::cuda::memory_order_acquire) < generation) __nanosleep(256);
}

__device__ __forceinline__ void release_slot(unsigned* epoch, unsigned next_generation) {
  ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> ref(*epoch);
  ref.store(next_generation, ::cuda::memory_order_release);
}

// What the block's threads share about the unit in hand.
struct SplitUnitShared {
  unsigned entry;
  bool last;
};

// Unit `unit` (< the chunks handed out) of the block-level work. Ends with the block in step.
template <class P>
__device__ void reduce_split_chunk(const Args<P>& a, unsigned long long unit, unsigned split_count,
                                   typename P::Accum* warp_totals, SplitUnitShared& shared) {
  using Accum = typename P::Accum;
  using S = Shape<sizeof(typename P::In)>;
  if (threadIdx.x < kWarpThreads) {
    const unsigned e = find_split_entry(a.split, split_count, unit);
    if (threadIdx.x == 0) shared.entry = e;
  }
  __syncthreads();
  // Field by field: other blocks are counting on the entry's ticket meanwhile.
  const SplitEntry& entry_ref = a.split[shared.entry];
  const std::int64_t begin = entry_ref.begin, length = entry_ref.length;
  const unsigned long long base = entry_ref.base;
  const unsigned segment = entry_ref.segment;
  const Chunking chunking = S::chunking(length);
  const Accum partial =
      reduce_chunk(a, begin, length, chunking, std::int64_t(unit - base), warp_totals);
  const unsigned long long slot_mask = (1ull << a.ring_log2) - 1;
  if (threadIdx.x == 0) {
    wait_for_slot(a.epochs + (unit & slot_mask), unsigned(unit >> a.ring_log2));
    a.partials[unit & slot_mask] = partial;
    shared.last = take_ticket(&a.split[shared.entry].ticket) == unsigned(chunking.count - 1);
  }
  __syncthreads();
  if (shared.last) {
    const auto load = [&](std::int64_t c) {
      return load_cg(a.partials + ((base + c) & slot_mask));
    };
    const Accum total = fold_chunk_partials<Accum>(chunking.count, load, a.op, warp_totals);
    if (threadIdx.x == 0) a.out[segment] = a.finish(total);
    for (std::int64_t c = threadIdx.x; c < chunking.count; c += kBlockThreads) {
      const unsigned long long u = base + c;
      if (a.leave_zero) store_zero(a.partials + (u & slot_mask));  // read by this thread above
      release_slot(a.epochs + (u & slot_mask), unsigned(u >> a.ring_log2) + 1u);
    }
  }
  __syncthreads();  // shared and warp_totals are reused by the next unit
}

// Entry `i` of the block list (the front of the work list): a whole segment on this block.
template <class P>
__device__ void reduce_front_entry(const Args<P>& a, unsigned i, typename P::Accum* warp_totals,
                                   typename P::Accum* handover) {
  const unsigned segment = a.list[i];
  const std::int64_t begin = a.begin[segment];
  reduce_segment_in_block(a, segment, begin, a.end[segment] - begin, warp_totals, handover);
  __syncthreads();
  if (a.leave_zero && threadIdx.x == 0) a.list[i] = 0;
}

}  // namespace gpureduce::detail::segmented
