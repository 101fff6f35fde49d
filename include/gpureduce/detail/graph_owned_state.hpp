// State a captured reduction keeps in memory its CUDA graph owns, instead of the caller's temp
// storage (compiled once into the library: src/graph_owned_state.cpp).
//
// Why: last_block needs its state zero when the kernel starts: the counted word of integer sums,
// the ticket and flagged slots of float sums. Default Options make no promise about the caller's
// storage, so inside a capture that meant a second kernel per reduction (a zeroing kernel, or
// two_kernel's fold). But each reduction leaves that state zero (the last block re-arms the ticket
// and the word after every other block is done with them, and clears each flagged slot as it reads
// it). So a captured call takes state of its own, zero when handed out, and the graph holds it (a
// cudaUserObject) until the graph and every executable made from it are gone; then the state, zero
// again, goes back to its context's pool (slot_pool.hpp). docs/design.md, 'Where last_block's
// state lives'; docs/tuning.md, 'Captured integer sums' and 'Captured float sums'.
//
// The contract is the temp storage's: launches of one executable graph run one after another
// (CUDA orders them), but two executable graphs instantiated from the same capture share its word,
// as they share its temp storage, and must not run at the same time.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

#include "context.hpp"

namespace gpureduce::detail {

// While `stream` is being captured in `context` (the current one): `bytes` (at most a large slot,
// slot_pool.hpp) of zeroed state in a slot of its own from the context's pool, retained by the
// capture's graph (a cudaUserObject) and returned to the pool when the graph and its executables
// are destroyed.
cudaError_t acquire_graph_owned_slot(cudaStream_t stream, const ContextKey& context,
                                     std::size_t bytes, unsigned char** slot);

// Slots lent to graphs and not yet given back, all contexts (for tests: a graph's slot returns
// when the graph and its executables are destroyed, asynchronously, on CUDA's internal thread).
std::size_t graph_owned_slots_in_use();

}  // namespace gpureduce::detail
