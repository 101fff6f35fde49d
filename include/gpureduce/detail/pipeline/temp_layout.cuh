// Where things live in temp storage: [control block][flagged slots][partials][scratch], each
// 256-byte aligned (as CUB lays it out). The first three start at fixed offsets, so a kernel
// finds them from the base pointer alone (KernelArgs carries nothing else: problem.cuh says why).
// The flagged-slot region has the same size and place in every layout, whatever the type, grid or
// pipeline: only last_block writes it, and leaves it zero (flagged_slots.cuh), so storage zeroed
// once stays valid across calls of any kind.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpureduce::detail {

// Lives at the start of temp storage. All-zero bytes is the "armed" state: the default path's
// zeroing (a memset, or arm.cuh's kernel inside a capture) writes it, and every launch that uses
// it leaves it so.
struct ControlBlock {
  unsigned int ticket;                     // blocks finished so far (last_block, atomic)
  unsigned int padding;
  unsigned long long atomic_accumulator;   // atomic pipeline: encoded running result
  unsigned long long counted_sum;          // last_block, 4-byte integer sums (counted_sum.cuh)
};

// The most partials the slot region holds, and the bytes of one slot: room for an 8-byte
// accumulator, as two 32-bit halves each with its flag (wider ones take several slots' room:
// kFlaggedCapacity in flagged_slots.cuh). Grids above the capacity and cub_block (which reads
// partials as a plain array) use the classic path. Chosen, not measured: above automatic's grids
// on an H100 or H200 (docs/tuning.md, 'Flagged slots').
inline constexpr int kFlaggedSlotCapacity = 2048;
inline constexpr std::size_t kFlaggedSlotBytes = 16;
inline constexpr std::size_t kFlaggedRegionBytes = kFlaggedSlotCapacity * kFlaggedSlotBytes;

inline constexpr std::size_t kTempAlignment = 256;
__host__ __device__ constexpr std::size_t align_up(std::size_t bytes) {
  return (bytes + kTempAlignment - 1) / kTempAlignment * kTempAlignment;
}
inline constexpr std::size_t kFlaggedSlotsOffset = align_up(sizeof(ControlBlock));
inline constexpr std::size_t kPartialsOffset = kFlaggedSlotsOffset + align_up(kFlaggedRegionBytes);
// The global_memory rung's scratch follows one partial per block of the grid that sized the
// storage; dispatch launches that grid for every rung with scratch (their grid does not depend on
// d_in's alignment), so a kernel derives it from gridDim.
__host__ __device__ constexpr std::size_t scratch_offset(std::int64_t grid,
                                                         std::size_t accum_size) {
  return kPartialsOffset + align_up(std::size_t(grid) * accum_size);
}

inline std::size_t temp_storage_total(std::int64_t grid, int block_threads, std::size_t accum_size,
                                      bool needs_scratch) {
  return scratch_offset(grid, accum_size) +
         (needs_scratch ? align_up(std::size_t(grid) * block_threads * accum_size) : 0);
}

}  // namespace gpureduce::detail
