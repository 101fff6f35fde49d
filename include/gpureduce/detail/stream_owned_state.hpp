// State an uncaptured reduction keeps in memory the library holds for its stream, instead of the
// caller's temp storage (compiled once into the library: src/stream_owned_state.cpp).
//
// Why: last_block needs its state zero when the kernel starts, default Options promise nothing
// about the caller's storage, and zeroing it per call costs a second operation (or, instead,
// grid_sync's cooperative launch). But every reduction leaves that state zero, and reductions on
// one stream run one after another, each kernel waiting for its predecessor before it touches the
// state (launch.cuh), so one slot per stream serves every reduction enqueued on it, of any type and
// grid; streams never share one. docs/design.md, 'Where last_block's state lives', says more, and
// docs/tuning.md, 'Stream-owned state', what it saves.
//
// A slot is drawn from the context's pool of zeroed slots (slot_pool.hpp) the first time a stream
// needs one, keyed by (context, cudaStreamGetId), and kept until gpureduce::release_cached_state
// or the context's end: CUDA says nothing when a stream is destroyed, so a slot cannot be known
// free again. At most kStreamOwnedSlotsPerContext streams per context get one (16 KiB each, 4 MiB
// in all: a bound on memory, not a measurement); a reduction on any further stream takes the plan
// it took before slots existed (grid_sync, or last_block with a memset), with the same grid and
// bits.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

#include "context.hpp"

namespace gpureduce::detail {

inline constexpr std::size_t kStreamOwnedSlotsPerContext = 256;

// The slot of `stream` in `context` (the current one): a large pool slot, zero between reductions,
// taken on the stream's first call. *slot is null when the context's streams hold
// kStreamOwnedSlotsPerContext slots already and this stream holds none, or when no slot could be
// allocated (the call then takes the plan that needs none).
cudaError_t stream_owned_slot(cudaStream_t stream, const ContextKey& context, unsigned char** slot);
// Whether stream_owned_slot would give `stream` a slot, without taking one (for LaunchPlan).
cudaError_t stream_owned_slot_available(cudaStream_t stream, const ContextKey& context,
                                        bool& available);
// Forgets the slots of `context`'s streams, giving them back to its pool (release_cached_state).
void release_stream_owned_slots(const ContextKey& context);

// For tests: slots held by streams (all contexts), and the per-context limit (returns the old one;
// lowering it below what streams already hold takes nothing back, it only stops new streams).
std::size_t stream_owned_slots_in_use();
std::size_t set_stream_owned_slot_limit(std::size_t limit);

}  // namespace gpureduce::detail
