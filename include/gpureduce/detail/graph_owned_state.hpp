// State a captured reduction keeps in memory its CUDA graph owns, instead of the caller's temp
// storage (compiled once into the library: src/graph_owned_state.cpp).
//
// Why: last_block needs its state zero when the kernel starts: the counted word of integer sums,
// the ticket and flagged slots of float sums. Default Options make no promise about the caller's
// storage, so inside a capture a zeroing kernel ran before every reduction (pipeline/arm.cuh) or,
// for floats, two_kernel ran instead: a second kernel in the graph either way (the zeroing kernel
// cost ~0.5 us per reduction). But that state needs zeroing only once: each reduction leaves it
// zero (the last block re-arms the ticket and the word after every other block is done with them,
// and clears each flagged slot as it reads it). So a captured call takes state of its own, zero
// when handed out, and the graph holds it (a cudaUserObject) until the graph and every executable
// made from it are gone; then the state, zero again, goes back to a per-device pool for the next
// capture.
//
// The contract is the temp storage's: launches of one executable graph run one after another
// (CUDA orders them), but two executable graphs instantiated from the same capture share its word,
// as they share its temp storage, and must not run at the same time.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace gpureduce::detail {

// Slot sizes: a 128-byte line of its own for a counted word (so no two reductions' atomics meet on
// a line), 8 KiB for a ticket and the flagged slots of a grid of up to about a thousand blocks of
// 4-byte partials (temp_layout.cuh; automatic's captured float plans have at most 512).
inline constexpr std::size_t kGraphOwnedSmallSlotBytes = 128;
inline constexpr std::size_t kGraphOwnedLargeSlotBytes = std::size_t(8) << 10;

// A zeroed slot of `slot_bytes` (one of the two sizes above) on `device`, taken from the pool for
// good (a chunk is allocated and zeroed when the pool is empty, the capture mode relaxed as below).
// For stream_owned_state.cpp, whose slots are held for the life of the process.
cudaError_t take_zeroed_slot(int device, std::size_t slot_bytes, unsigned char** slot);

// While `stream` is being captured on the current device `device`: `bytes` (at most the large
// slot) of zeroed state in a slot of its own, retained by the capture's graph. Allocates a chunk
// of slots when the pool is empty (with the thread's capture mode relaxed around the allocation
// and its zeroing, which use their own stream).
cudaError_t acquire_graph_owned_slot(cudaStream_t stream, int device, std::size_t bytes,
                                     unsigned char** slot);

// Slots handed out and not yet given back (for tests: a graph's slot returns when the graph and its
// executables are destroyed, asynchronously, on CUDA's internal thread).
std::size_t graph_owned_slots_in_use();

}  // namespace gpureduce::detail
