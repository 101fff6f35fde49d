// State a captured reduction keeps in memory its CUDA graph owns, instead of the caller's temp
// storage (compiled once into the library: src/graph_owned_state.cpp).
//
// Why: last_block's counted sum needs its word zero when the kernel starts. Default Options make
// no promise about the caller's storage, so inside a capture a zeroing kernel ran before every
// reduction (pipeline/arm.cuh): a second kernel in the graph, ~0.5 us per reduction. But the word
// needs zeroing only once: each reduction leaves it zero (its last block stores zero after every
// other block has added). So a captured call takes a word of its own, zero when handed out, and
// the graph holds it (a cudaUserObject) until the graph and every executable made from it are
// gone; then the word, zero again, goes back to a per-device pool for the next capture.
//
// The contract is the temp storage's: launches of one executable graph run one after another
// (CUDA orders them), but two executable graphs instantiated from the same capture share its word,
// as they share its temp storage, and must not run at the same time.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace gpureduce::detail {

// Bytes of one graph-owned slot: a 128-byte line of its own, so no two reductions' atomics meet on
// a line.
inline constexpr std::size_t kGraphOwnedSlotBytes = 128;

// While `stream` is being captured on the current device `device`: a zeroed slot, retained by the
// capture's graph. Allocates a chunk of slots when the pool is empty (with the thread's capture
// mode relaxed around the allocation and its zeroing, which use their own stream).
cudaError_t acquire_graph_owned_slot(cudaStream_t stream, int device, unsigned char** slot);

// Slots handed out and not yet given back (for tests: a graph's slot returns when the graph and its
// executables are destroyed, asynchronously, on CUDA's internal thread).
std::size_t graph_owned_slots_in_use();

}  // namespace gpureduce::detail
