// State an uncaptured reduction keeps in memory the library holds for its stream, instead of the
// caller's temp storage (compiled once into the library: src/stream_owned_state.cpp).
//
// Why: last_block needs its state zero when the kernel starts (the counted word of 4-byte integer
// sums; the ticket and flagged slots of the others), and default Options promise nothing about the
// caller's storage. So per call `automatic` zeroed it with a memset (a second operation on the
// stream) or, where the device launches cooperatively, ran grid_sync instead (nothing to zero, but
// a cooperative launch and a grid barrier). Yet that state needs zeroing only once: every
// reduction leaves it zero (graph_owned_state.hpp says how). Reductions enqueued on one stream run
// one after another, and each kernel waits for its predecessor to complete before it touches the
// state (launch.cuh: griddepcontrol.wait comes first, and a launch without PDL waits anyway), so
// one slot per stream serves every reduction enqueued on it, of any type and grid. Streams never
// share a slot, so reductions on different streams may overlap. (This is the ordering zeroed temp
// storage reused across calls on one stream already relies on: a kernel the caller launches in
// between with PDL and without griddepcontrol.wait could let our next kernel start before our last
// one ends, as it could there.)
//
// A slot is drawn from the context's pool of zeroed slots (slot_pool.hpp) the first time a stream
// needs one, keyed by (context, cudaStreamGetId), and kept until gpureduce::release_cached_state
// or the context's end: CUDA says nothing when a stream is destroyed, so a slot cannot be known
// free again. At most kStreamOwnedSlotsPerContext streams per context get one (8 KiB each, 2 MiB
// in all); a reduction on any further stream takes the plan it took before slots existed
// (grid_sync, or last_block with a memset), with the same grid and bits.
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
