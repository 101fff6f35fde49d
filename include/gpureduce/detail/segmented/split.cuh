// Segmented reductions: the chunks of a split segment, each a unit of the reduce kernel's
// block-level work, which blocks claim in runs of consecutive units (claim.hpp). A block reduces
// its run's chunks of a segment (block_per_segment.cuh), puts each partial in the ring slot of its
// unit and takes the segment's tickets for them with one atomic; the block that draws the last
// ticket (or whose run held every chunk) folds the segment's partials in chunk order (fold.cuh),
// writes the output and releases the slots. The bits do not depend on which block ran which
// chunk, nor in what order they finished.
//
// The ring (state.cuh) has R slots; unit u uses slot u mod R, generation u / R, and may write it
// once generation u / R - 1 has been folded (the slot's epoch says how many generations were). A
// segment's units span at most kMaxChunks <= R, so the unit u - R that a block waits for, and
// every unit of its segment, is older than u. Runs are claimed in increasing order and worked
// through in order, and a block takes a segment's tickets before it moves to the next segment of
// its run, so each such unit is done, or held by a running block whose own waits are for older
// units still: every wait ends.
#pragma once

#include <cstdint>

#include <cuda/atomic>

#include "../device_memory.cuh"
#include "../pipeline/ticket.cuh"
#include "block_per_segment.cuh"
#include "claim.hpp"
#include "fold.cuh"
#include "shape.cuh"
#include "state.cuh"

namespace gpureduce::detail::segmented {

// What the block's threads share about the run in hand: the split entries it spans, or the block
// list's segments, one per unit (at most kMaxRun of either).
struct RunShared {
  std::int64_t begin[kMaxRun];
  std::int64_t length[kMaxRun];
  unsigned base[kMaxRun];  // split entries: the first unit (below 2^26)
  unsigned segment[kMaxRun];
  bool last;
};

// The split entries of a run that starts at unit `first` and holds `units` units, into `run`;
// returns the first one's index: the last entry with base <= first (classify hands out entries and
// bases with one atomic, so bases grow with the index and each entry's units follow the last's).
// The whole block probes 256 entries a round (one barrier each): the bases alone while more than
// 256 are left, then a round in which thread t reads entry lo + t whole, so the entries the run
// spans arrive with the round trip that finds them: one round trip up to 256 split segments, two
// up to 65536 (field by field: other blocks are counting on the tickets).
__device__ __forceinline__ unsigned load_split_run(const SplitEntry* split, unsigned count,
                                                   unsigned first, unsigned units,
                                                   RunShared& run) {
  unsigned lo = 0, n = count;
  while (n > unsigned(kBlockThreads)) {
    const unsigned step = (n + kBlockThreads - 1) / kBlockThreads;
    const unsigned probe = threadIdx.x * step;
    const bool at_or_below = probe < n && split[lo + probe].base <= first;  // true on thread 0
    const unsigned j = unsigned(__syncthreads_count(at_or_below)) - 1u;    // probes: a prefix
    lo += j * step;
    n = n - j * step < step ? n - j * step : step;
  }
  const unsigned t = threadIdx.x;
  const bool held = lo + t < count;
  const SplitEntry* mine = split + (held ? lo + t : lo);
  const std::int64_t begin = mine->begin, length = mine->length;
  const unsigned long long base = mine->base;
  const unsigned segment = mine->segment;
  const unsigned j = unsigned(__syncthreads_count(t < n && base <= first)) - 1u;
  const unsigned entry0 = lo + j;
  const unsigned spanned = units < count - entry0 ? units : count - entry0;
  if (t >= j && t < j + spanned) {
    run.begin[t - j] = begin;
    run.length[t - j] = length;
    run.base[t - j] = unsigned(base);
    run.segment[t - j] = segment;
  }
  if (t < spanned && j + t >= unsigned(kBlockThreads)) {  // past this round's 256 entries
    const SplitEntry& e = split[entry0 + t];
    run.begin[t] = e.begin;
    run.length[t] = e.length;
    run.base[t] = unsigned(e.base);
    run.segment[t] = e.segment;
  }
  __syncthreads();
  return entry0;
}

__device__ __forceinline__ void wait_for_slot(unsigned* epoch, unsigned generation) {
  if (generation == 0) return;  // the first generation finds its slot free (classify armed it)
  ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> ref(*epoch);
  while (ref.load(::cuda::memory_order_acquire) < generation) __nanosleep(256);
}

__device__ __forceinline__ void release_slot(unsigned* epoch, unsigned next_generation) {
  ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> ref(*epoch);
  ref.store(next_generation, ::cuda::memory_order_release);
}

// The block lets go of ring slots [first, end) once their partials are folded: the slots' next
// generation may write.
template <class P>
__device__ void release_units(const Args<P>& a, unsigned first, unsigned end) {
  const unsigned slot_mask = (1u << a.ring_log2) - 1u;
  for (unsigned u = first + threadIdx.x; u < end; u += kBlockThreads)
    release_slot(a.epochs + (u & slot_mask), (u >> a.ring_log2) + 1u);
}

// Units [first, end) of the split entry held in run slot k: each chunk's partial into its ring
// slot, then the tickets for all of them at once; the block that draws the segment's last ticket
// folds its partials in chunk order, writes the output and frees the slots (where the ring wraps:
// else no chunk waits for one). A run that holds the whole segment takes no ticket: it is the last.
template <class P>
__device__ void reduce_split_units(const Args<P>& a, unsigned entry, int k, unsigned first,
                                   unsigned end, bool ring_wraps, typename P::Accum* warp_totals,
                                   RunShared& run, CounterPeek& peek) {
  using Accum = typename P::Accum;
  using S = Shape<sizeof(typename P::In)>;
  const std::int64_t begin = run.begin[k], length = run.length[k];
  const unsigned base = run.base[k];
  const Chunking chunking = S::chunking(length);
  const unsigned slot_mask = (1u << a.ring_log2) - 1u;
  for (unsigned u = first; u < end; ++u) {
    peek.at(u);
    const Accum partial =
        reduce_chunk(a, begin, length, chunking, std::int64_t(u - base), warp_totals);
    if (threadIdx.x == 0) {
      wait_for_slot(a.epochs + (u & slot_mask), u >> a.ring_log2);
      a.partials[u & slot_mask] = partial;
    }
    __syncthreads();  // warp_totals is reused by the next chunk
  }
  if (threadIdx.x == 0) {
    const unsigned taken = end - first, count = unsigned(chunking.count);
    run.last = taken == count || take_tickets(&a.split[entry].ticket, taken) + taken == count;
  }
  __syncthreads();
  if (run.last) {
    const auto load = [&](std::int64_t c) {
      return load_cg(a.partials + ((base + c) & slot_mask));
    };
    const Accum total = fold_chunk_partials<Accum>(chunking.count, load, a.op, warp_totals);
    if (threadIdx.x == 0) a.out[run.segment[k]] = a.finish(total);
    for (std::int64_t c = threadIdx.x; a.leave_zero && c < chunking.count; c += kBlockThreads)
      store_zero(a.partials + ((base + c) & slot_mask));  // read by this thread above
    if (ring_wraps) release_units(a, base, base + unsigned(chunking.count));
  }
  __syncthreads();  // run and warp_totals are reused
}

// Units [first, end) (below the chunks handed out) of the block-level work: chunks of one or more
// split entries, consecutive.
template <class P>
__device__ void reduce_split_run(const Args<P>& a, unsigned first, unsigned end,
                                 unsigned split_count, bool ring_wraps,
                                 typename P::Accum* warp_totals, RunShared& run,
                                 CounterPeek& peek) {
  using S = Shape<sizeof(typename P::In)>;
  const unsigned entry0 = load_split_run(a.split, split_count, first, end - first, run);
  for (int k = 0; first < end; ++k) {
    const unsigned units = unsigned(S::chunking(run.length[k]).count);
    const unsigned stop = end < run.base[k] + units ? end : run.base[k] + units;
    reduce_split_units(a, entry0 + unsigned(k), k, first, stop, ring_wraps, warp_totals, run,
                       peek);
    first = stop;
  }
}

// Entries [first, end) of the block list (the front of the work list; units unit0 on of the
// block-level work), at most kMaxRun: thread k reads entry first + k's segment and offsets, all in
// one round trip, then the block reduces the segments one after another, each whole.
template <class P>
__device__ void reduce_front_run(const Args<P>& a, unsigned first, unsigned end, unsigned unit0,
                                 typename P::Accum* warp_totals, typename P::Accum* handover,
                                 RunShared& run, CounterPeek& peek) {
  if (threadIdx.x < end - first) {
    const unsigned segment = a.list[first + threadIdx.x];
    if (a.leave_zero) a.list[first + threadIdx.x] = 0;  // this thread's own read above
    const std::int64_t begin = a.begin[segment];
    run.segment[threadIdx.x] = segment;
    run.begin[threadIdx.x] = begin;
    run.length[threadIdx.x] = a.end[segment] - begin;
  }
  __syncthreads();
  for (unsigned k = 0; k < end - first; ++k) {
    peek.at(unit0 + k);
    reduce_segment_in_block(a, run.segment[k], run.begin[k], run.length[k], warp_totals, handover);
    __syncthreads();  // warp_totals and handover are reused
  }
}

}  // namespace gpureduce::detail::segmented
