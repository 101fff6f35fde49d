// last_block's combine for sums of 4-byte integers: one 64-bit atomic per block carries both the
// arrival count and the running sum, so the block that arrives last learns the answer from its
// own atomic's return value. No partial is stored, no slot is read back, no barrier is needed.
//
// Why: the flagged slots (flagged_slots.cuh) still cost the last block two memory round trips
// after its data (its ticket, then the slots) and a block-wide fold; this word took about 0.6 us
// off a reduction in graphs (docs/tuning.md, 'Counted sums').
//
// Why it is exact, whatever order the blocks arrive in: the word holds
//   count * 2^44 + S,
// where S is the sum of the partials sign-extended to 64 bits, an integer with
// -2^43 <= S < 2^43 while the grid is at most 2^12 blocks (each partial lies in [-2^31, 2^31)).
// So S + 2^43 lies in [0, 2^44): count = (word + 2^43) >> 44 and S = word - count * 2^44, with
// no rounding, and the low 32 bits of S are the two's-complement sum of the partials in any
// order, the same bits as every other pipeline's fold (integer addition wraps associatively).
// Unsigned partials go in by their bits: the low 32 bits come out the same.
//
// The word lives in the control block (temp_layout.cuh), zero before every call like the ticket,
// and the last block stores zero into it again: every other block has already added to it.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <cuda/atomic>

#include "../ops.cuh"

namespace gpureduce::detail {

inline constexpr int kCountShift = 44;
inline constexpr std::int64_t kCountedSumMaxGrid = std::int64_t(1) << (kCountShift - 1 - 31);

template <class Op, class Accum>
inline constexpr bool kCountedSumFits =
    is_sum_op_v<Op> && std::is_integral_v<Accum> && sizeof(Accum) == 4;

// Whether a last_block launch of `grid` blocks combines through the counted word (dispatch and
// the kernel ask the same question; dispatch, to leave the slots out of the per-call zeroing).
template <class Op, class Accum>
__host__ __device__ constexpr bool uses_counted_sum(std::int64_t grid) {
  return kCountedSumFits<Op, Accum> && grid > 1 && grid <= kCountedSumMaxGrid;
}

// Thread 0 of each block. True in the block that arrived last, which then holds the total.
template <class Accum>
__device__ __forceinline__ bool add_counted(unsigned long long* word, const Accum& partial,
                                            Accum& total) {
  std::int32_t bits;
  memcpy(&bits, &partial, sizeof bits);
  const std::uint64_t add = (std::uint64_t(1) << kCountShift) + std::uint64_t(std::int64_t(bits));
  ::cuda::atomic_ref<unsigned long long, ::cuda::thread_scope_device> counted(*word);
  // Relaxed: nothing but the word itself is handed over.
  const std::uint64_t after = counted.fetch_add(add, ::cuda::memory_order_relaxed) + add;
  const std::uint64_t count = (after + (std::uint64_t(1) << (kCountShift - 1))) >> kCountShift;
  if (count != gridDim.x) return false;
  const auto low_bits = std::uint32_t(after - (count << kCountShift));
  memcpy(&total, &low_bits, sizeof total);
  *word = 0;  // re-armed; the kernel boundary orders it before the next call
  return true;
}

}  // namespace gpureduce::detail
