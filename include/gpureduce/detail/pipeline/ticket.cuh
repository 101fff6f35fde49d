// The ticket counter of last_block and atomic: which block finished last.
#pragma once

#include <cuda/atomic>

namespace gpureduce::detail {

// `count` tickets at once, for a block that finished `count` pieces (a segment's chunks), with
// take_ticket's semantics (below); the last ticket drawn is the returned value + count - 1.
__device__ __forceinline__ unsigned int take_tickets(unsigned int* counter, unsigned int count) {
  ::cuda::atomic_ref<unsigned int, ::cuda::thread_scope_device> ticket(*counter);
  return ticket.fetch_add(count, ::cuda::memory_order_acq_rel);
}

// One fetch-add with acquire-release semantics at device scope. Release: the calling thread's
// earlier writes (its block's partial) are visible to any thread that later acquires the counter.
// Acquire: the thread drawing the last ticket sees every earlier holder's writes; its block's other
// threads see them too once a __syncthreads() follows (the barrier extends the causality order).
// This replaces the classic __threadfence(); atomicAdd(); __threadfence() (CUDA samples'
// threadFenceReduction): a full sequentially consistent fence costs more than the acq_rel atomic
// (docs/tuning.md, 'Ticket').
__device__ __forceinline__ unsigned int take_ticket(unsigned int* counter) {
  return take_tickets(counter, 1u);
}

}  // namespace gpureduce::detail
