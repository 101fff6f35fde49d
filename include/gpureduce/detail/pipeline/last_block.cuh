// The last_block pipeline (CUDA samples' threadFenceReduction, without its global counter): each
// block publishes its partial and takes a ticket from the counter in temp storage; the block that
// draws the last ticket reduces all partials, in index order with the same rung, and re-arms the
// counter for the next call. One launch instead of two.
//
// Three ways to combine, the same bits every way:
// - for sums of 4-byte integers, one atomic word that counts the blocks and sums their partials
//   (counted_sum.cuh): the last block's atomic returns the total, nothing is folded.
// - flagged slots (flagged_slots.cuh), where dispatch provides them: the partial travels with a
//   flag, and the block that started last (the collector, below) waits for each flag and folds
//   in the classic path's order. No fence on the way, and no ticket after the data.
// - classic: the partial in a plain array and an acq_rel ticket (ticket.cuh, in place of the
//   sample's fences), for accumulators other than 4 or 8 bytes, grids above the slot capacity and
//   rungs that read partials as an array (cub_block).
#pragma once

#include <cuda/atomic>

#include "counted_sum.cuh"
#include "flagged_slots.cuh"
#include "fold_partials.cuh"
#include "problem.cuh"
#include "ticket.cuh"

namespace gpureduce::detail {

// True in exactly one block: the last to finish. All threads of every block must call it.
template <class P>
__device__ __forceinline__ bool publish_partial_and_take_ticket(const KernelArgs<P>& args,
                                                                const typename P::Accum& partial) {
  __shared__ bool is_last_block;
  if (threadIdx.x == 0) {
    args.partials()[blockIdx.x] = partial;
    is_last_block = take_ticket(&args.control()->ticket) == gridDim.x - 1;  // release + acquire
  }
  __syncthreads();  // thread 0's acquire now covers the whole block
  return is_last_block;
}

// With flagged slots the folding block is the collector: the block that started last, known from
// a start order every block draws from the counter as it starts (take_start_order, before its
// data). Drawn then, the atomic's round trip overlaps the data phase instead of following it, as
// the ticket's did; and the collector never publishes its own partial. Inside a CUDA graph on an
// H200 (probe run 22, benchmark/results/h200-2026-11-22i-probe.txt), minimal kernels with the same
// read loop, per reduction: 1.84 / 2.20 / 2.70 us at 2^16 / 2^20 / 2^21 floats against 1.97 /
// 2.40 / 2.89 with the ticket. The wait for a flag must test the first load before any loop: in
// the loop form (load, test, branch back) ptxas put a YIELD on the path of every slot, and the
// collector then lost 0.13-0.34 us to the ticket instead (probe runs 21-22); the ticket did not
// care. flagged_slots.cuh says why the collector's waits cannot deadlock.
template <class P>
__device__ __forceinline__ unsigned take_start_order(const KernelArgs<P>& args) {
  if (threadIdx.x != 0) return 0;
  ::cuda::atomic_ref<unsigned int, ::cuda::thread_scope_device> order(args.control()->ticket);
  return order.fetch_add(1u, ::cuda::memory_order_relaxed);  // nothing is handed over through it
}

// True in the collector, whose threads all get its partial in `own`; every other block publishes
// its partial in its slot. Thread 0 holds `start_order` and `partial`.
template <class P>
__device__ __forceinline__ bool publish_flagged_unless_collector(const KernelArgs<P>& args,
                                                                 const typename P::Accum& partial,
                                                                 unsigned start_order,
                                                                 typename P::Accum& own) {
  using Accum = typename P::Accum;
  __shared__ bool is_collector;
  __shared__ alignas(8) unsigned char own_bytes[sizeof(Accum)];  // raw: Accum may have constructors
  if (threadIdx.x == 0) {
    is_collector = start_order == gridDim.x - 1;
    if (is_collector) memcpy(own_bytes, &partial, sizeof(Accum));
    else publish_flagged(args.flagged_slots(), blockIdx.x, partial);
  }
  __syncthreads();
  if (is_collector) memcpy(&own, own_bytes, sizeof(Accum));
  return is_collector;
}

// Thread 0 of the last block: the answer, and the counter re-armed (the kernel boundary orders
// this before the next call).
template <class P>
__device__ __forceinline__ void write_result_and_rearm(const KernelArgs<P>& args,
                                                       const typename P::Accum& total) {
  if (threadIdx.x != 0) return;
  write_result(args, total);
  args.control()->ticket = 0;
}

// `start_order`: take_start_order's answer where args.flagged (thread 0), else unused.
template <class Rung, int BLOCK, class P>
__device__ __forceinline__ void last_block_epilogue(const KernelArgs<P>& args,
                                                    const typename P::Accum& partial,
                                                    typename P::Accum* shared,
                                                    unsigned start_order) {
  using Accum = typename P::Accum;
  if constexpr (kCountedSumFits<typename P::Op, Accum>) {
    if (uses_counted_sum<typename P::Op, Accum>(gridDim.x)) {
      Accum total;
      if (threadIdx.x == 0 && add_counted(&args.control()->counted_sum, partial, total))
        write_result(args, total);  // the word is re-armed; the ticket was never drawn
      return;
    }
  }
  if constexpr (kFlaggable<Accum> && Rung::kReadsPartialsByIndex) {
    if (args.flagged) {
      Accum own;
      if (!publish_flagged_unless_collector(args, partial, start_order, own)) return;
      // The reader clears each slot as it reads it: the slots are re-armed with the fold; the
      // counter is every block's start order, all drawn by now.
      const Accum total = fold_partials_from<Rung, BLOCK>(
          FlaggedPartialsReader<Accum>{args.flagged_slots(), std::int64_t(blockIdx.x), own}, args,
          gridDim.x, shared);
      write_result_and_rearm(args, total);
      return;
    }
  }
  if (!publish_partial_and_take_ticket(args, partial)) return;
  // Ordered after the ticket by its acquire and the barrier above; the reads bypass L1
  // (PartialsReader), which is not coherent across SMs.
  write_result_and_rearm(args, fold_partials<Rung, BLOCK>(args, gridDim.x, shared));
}

}  // namespace gpureduce::detail
