// What the kernels of correctly rounded sums are given, and where their state lives in temp
// storage: [ticket][the grid's state (atomic pipeline)][partial states][global-memory scratch].
// The ticket sits where ControlBlock's does and the grid's state in the flagged-slot region, both
// left zero by every kernel, so one zeroed buffer (or a stream's or graph's slot) serves these
// sums and the others alike.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../pipeline/temp_layout.cuh"
#include "exact_state.hpp"
#include "thread_inputs.cuh"

namespace gpureduce::detail::exact {

// The atomic pipeline's grid state is kGridStates copies, block b adding into copy b % kGridStates,
// each on cache lines of its own: a block's adds then meet those of 1/8 of the grid at each
// address, not all of it (the L2 serialises atomics on one address; docs/tuning.md has the
// measurement). The last block takes all copies out.
inline constexpr int kGridStates = 8;
template <class Family>
inline constexpr std::size_t kGridStateStride = (sizeof(ExactState<Family>) + 127) / 128 * 128;
inline constexpr std::size_t kGridStateOffset = kFlaggedSlotsOffset;
// The grid window's records (grid_window.cuh): kWindowRecordSlots of kWindowRecordWords flagged
// 64-bit words, after the grid states, zero before every call like them.
inline constexpr int kWindowRecordSlots = 128;
inline constexpr int kWindowRecordWords = 5;
inline constexpr std::size_t kWindowRecordsOffset =
    align_up(kGridStateOffset + kGridStates * kGridStateStride<DoubleFamily>);
inline constexpr std::size_t kPartialStatesOffset =
    align_up(kWindowRecordsOffset + kWindowRecordSlots * kWindowRecordWords * 8);

// Bytes that must be zero when the kernel starts: the ticket, for `atomic` the grid's state, and
// for the grid window its records.
template <class Family>
__host__ __device__ constexpr std::size_t zeroed_state_bytes(bool grid_state, bool window_records) {
  return window_records ? kPartialStatesOffset
         : grid_state   ? kGridStateOffset + kGridStates * kGridStateStride<Family>
                        : sizeof(ControlBlock);
}

template <class Family>
__host__ __device__ constexpr std::size_t scratch_offset(std::int64_t grid) {
  return kPartialStatesOffset + align_up(std::size_t(grid) * sizeof(ExactState<Family>));
}

template <class Family>
__host__ __device__ constexpr std::size_t temp_storage_bytes(std::int64_t grid, int block_threads, bool scratch) {
  return scratch_offset<Family>(grid) +
         (scratch ? align_up(std::size_t(grid) * std::size_t(block_threads) * 8) : 0);
}

template <class In, class Out>
struct ExactArgs {
  const In* d_in;
  Out* d_out;
  std::int64_t num_items;
  unsigned char* temp;  // the zeroed state (ticket, grid state) lives here; partials and scratch
  unsigned char* work;  // ... here: the caller's temp storage (the same pointer unless the state
                        // is a stream's or graph's slot)
  std::uint8_t pipeline;
  long long* state_out;  // non-null: the grid's exact state goes here, unrounded (gpureduce::nccl)

  __host__ __device__ unsigned* ticket() const { return reinterpret_cast<unsigned*>(temp); }
  template <class Family>
  __host__ __device__ long long* grid_state(int copy) const {
    return reinterpret_cast<long long*>(temp + kGridStateOffset + copy * kGridStateStride<Family>);
  }
  __host__ __device__ std::uint64_t* window_records() const {
    return reinterpret_cast<std::uint64_t*>(temp + kWindowRecordsOffset);
  }
  __host__ __device__ long long* partial_states() const {
    return reinterpret_cast<long long*>(work + kPartialStatesOffset);
  }
  template <class Family>
  __host__ __device__ long long* scratch(std::int64_t grid) const {
    return reinterpret_cast<long long*>(work + scratch_offset<Family>(grid));
  }
};

// The inputs one block sums: the share of block `rank` of `blocks` of in[0, n) (the vectorized
// rung's order; the seed rungs' grid-stride), so a kernel can sum a grid's share or a range alone.
// A share names the type its thread sums (Item) and feeds it (sum_into); blas1_shares.cuh has
// shares whose items are terms computed from the inputs (|x|, x^2, x y).
// kPadRagged: sum_inputs's.
template <class In, bool kPadRagged = false>
struct InputShare {
  using Item = In;
  const In* in;
  std::int64_t n;
  std::int64_t rank;
  std::int64_t blocks;
  template <bool kVector, class Thread>
  __device__ __forceinline__ void sum_into(Thread& thread) const {
    sum_inputs<kVector, kPadRagged>(in, n, rank, blocks, thread);
  }
};
template <bool kPadRagged = false, class In, class Out>
__device__ __forceinline__ InputShare<In, kPadRagged> grid_share(const ExactArgs<In, Out>& args) {
  return {args.d_in, args.num_items, std::int64_t(blockIdx.x), std::int64_t(gridDim.x)};
}

}  // namespace gpureduce::detail::exact
