// The last_block pipeline (CUDA samples' threadFenceReduction, without its global counter): each
// block publishes its partial and takes a ticket from the counter in temp storage; the block that
// draws the last ticket reduces all partials, in index order with the same rung, and re-arms the
// counter for the next call. One launch instead of two.
//
// Three ways to combine, the same bits every way:
// - for sums of 4-byte integers, one atomic word that counts the blocks and sums their partials
//   (counted_sum.cuh): the last block's atomic returns the total, nothing is folded.
// - flagged slots (flagged_slots.cuh), where dispatch provides them: the partial travels with a
//   flag, the ticket is relaxed, the last block waits for each flag, and folds in the classic
//   path's order. No fence on the way.
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

// The same with a flagged slot: nothing to order, so the ticket is relaxed.
template <class P>
__device__ __forceinline__ bool publish_flagged_and_take_ticket(const KernelArgs<P>& args,
                                                                const typename P::Accum& partial) {
  __shared__ bool is_last_block;
  if (threadIdx.x == 0) {
    publish_flagged(args.flagged_slots(), blockIdx.x, partial);
    ::cuda::atomic_ref<unsigned int, ::cuda::thread_scope_device> ticket(args.control()->ticket);
    is_last_block = ticket.fetch_add(1u, ::cuda::memory_order_relaxed) == gridDim.x - 1;
  }
  __syncthreads();
  return is_last_block;
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

template <class Rung, int BLOCK, class P>
__device__ __forceinline__ void last_block_epilogue(const KernelArgs<P>& args,
                                                    const typename P::Accum& partial,
                                                    typename P::Accum* shared) {
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
      if (!publish_flagged_and_take_ticket(args, partial)) return;
      // The reader clears each slot as it reads it: the slots are re-armed with the fold.
      const Accum total = fold_partials_from<Rung, BLOCK>(
          FlaggedPartialsReader<Accum>{args.flagged_slots()}, args, gridDim.x, shared);
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
