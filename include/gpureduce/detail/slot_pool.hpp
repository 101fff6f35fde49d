// The library's device memory: a pool of zeroed slots per CUDA context (compiled once into the
// library: src/slot_pool.cpp), from which streams (stream_owned_state.hpp) and captured graphs
// (graph_owned_state.hpp) take the state their last_block reductions need zero at the start.
//
// Memory comes in 64 KiB chunks (cudaMalloc, then zeroed on a stream of the library's own, which it
// waits for), allocated when a context's pool has no free slot of the size asked for. Slots go back
// zero (every reduction leaves its state zero), so a returned slot is handed out again as it is.
// A context's chunks are freed by release_context_slots (gpureduce::release_cached_state) or with
// the context itself (cudaDeviceReset, cuCtxDestroy); after that its pool is never touched again.
#pragma once

#include <cstddef>
#include <vector>

#include <cuda_runtime_api.h>

#include "context.hpp"

namespace gpureduce::detail {

// Slot sizes (chosen, not measured): a 128-byte line of its own for a counted word (so no two
// reductions' atomics meet on a line), 16 KiB for a ticket and the flagged slots of automatic's
// largest grid below the streaming range (512 blocks) of 8-byte partials, or of 256 blocks of
// ArgMin/ArgMax's 16-byte ones (temp_layout.cuh; 8 KiB until ArgMin sent those to grid_sync).
inline constexpr std::size_t kSmallSlotBytes = 128;
inline constexpr std::size_t kLargeSlotBytes = std::size_t(16) << 10;
inline constexpr std::size_t kSlotChunkBytes = std::size_t(64) << 10;

// A zeroed slot of `slot_bytes` (one of the two sizes) in `context` (the current one), allocating
// a chunk when the pool has none free (with the thread's capture mode relaxed around the
// allocation and its zeroing, which are not part of any capture).
cudaError_t take_zeroed_slot(const ContextKey& context, std::size_t slot_bytes,
                             unsigned char** slot);
// Gives a slot back, zero. Makes no CUDA call: graphs give theirs back from CUDA's internal thread.
void return_slot(unsigned long long context_id, unsigned char* slot);

// Frees every chunk of `context` (the current one) with no slot out; chunks with slots still lent
// (to graphs not yet destroyed) stay in the pool. The caller has waited for the device first.
cudaError_t release_context_slots(const ContextKey& context);

// For tests: the chunks the library holds, per context.
struct HeldChunk {
  unsigned long long context_id;
  int device;
  const void* base;
  std::size_t slot_bytes;
  int slots_out;  // lent to streams or graphs
};
std::vector<HeldChunk> held_chunks();

}  // namespace gpureduce::detail
