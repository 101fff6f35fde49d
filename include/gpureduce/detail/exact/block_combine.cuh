// A block's threads, each with its exact part of the sum, combined into the block's exact state
// (correctly rounded sums). The rung decides how: every column of integers the threads hold (the
// float family's nonzero bins, the double family's touched limbs) is summed by the rung's own
// block reduction (its shared-memory tree, shuffles, CUB's BlockReduce, or the global-memory
// tree), over 64-bit integers. Integer addition is exact and order-free: every rung gives the same
// bits, which is the point of the mode; the rung changes only the speed.
#pragma once

#include <cub/block/block_reduce.cuh>

#include "../block/cub_block.cuh"
#include "block_state.cuh"
#include "double_combine.cuh"
#include "thread_sum.cuh"

namespace gpureduce::detail::exact {

// One int64 per thread, read from a column in shared memory (not contiguous input to the rungs:
// they take their plain one-element path).
struct ColumnReader {
  using value_type = long long;
  static constexpr bool kContiguousInput = false;
  const long long* data;
  __device__ __forceinline__ long long operator()(std::int64_t i) const { return data[i]; }
};
struct IntegerPlus {
  __device__ __forceinline__ long long operator()(long long a, long long b) const { return a + b; }
};

// The sum of column[0 .. blockDim.x), on thread 0, by the rung's block reduction. Everyone calls;
// the column is written and synchronised before, and may be overwritten after.
template <class Rung, int BLOCK>
__device__ __forceinline__ long long block_sum(const long long* column, long long* tree,
                                               long long* scratch) {
  long long total;
  if constexpr (std::is_same_v<Rung, CubBlockRung>) {
    using Reduce = cub::BlockReduce<long long, kCubBlockThreads>;
    __shared__ typename Reduce::TempStorage temp_storage;
    total = Reduce(temp_storage).Sum(column[threadIdx.x]);
  } else {
    total = Rung::template reduce<BLOCK, long long>(ColumnReader{column}, std::int64_t(blockDim.x),
                                                    0, 1, IntegerPlus{}, tree, scratch);
  }
  __syncthreads();  // the rung's buffers and the column are free again
  return total;
}

// Float family: for each limb some thread's share touches (the block's mask), the column of every
// thread's share of it, summed by the rung. A thread's limbs hold at most 17 pieces below 2^32:
// the block's sums stay far below 2^63.
template <class Rung, int BLOCK>
__device__ __forceinline__ void combine_thread_limbs(BlockExact<FloatFamily>& shared,
                                                     const ThreadLimbs& limbs, long long* column,
                                                     long long* tree, long long* scratch) {
#pragma unroll 1
  for (unsigned left = shared.mask[0]; left != 0; left &= left - 1) {
    const int limb = __ffs(int(left)) - 1;
    column[threadIdx.x] = limbs.at(limb);
    __syncthreads();
    const long long total = block_sum<Rung, BLOCK>(column, tree, scratch);
    if (threadIdx.x == 0) shared.state.limb[limb] += total;
  }
}

// Double family: for each limb some thread's expansion touches, the column of every thread's
// pieces on it, summed. Each piece is below 2^32, six a thread: the sum stays below 2^45.
template <class Rung, int BLOCK>
__device__ __forceinline__ void combine_limbs(BlockExact<DoubleFamily>& shared,
                                              const Pieces (&pieces)[2], long long* column,
                                              long long* tree, long long* scratch) {
#pragma unroll 1
  for (int w = 0; w < kMaskWords<DoubleFamily>; ++w) {
#pragma unroll 1
    for (unsigned left = shared.mask[w]; left != 0; left &= left - 1) {
      const int limb = w * 32 + __ffs(int(left)) - 1;
      long long mine = 0;
#pragma unroll
      for (int p = 0; p < 2; ++p)
#pragma unroll
        for (int k = 0; k < 3; ++k)
          if (pieces[p].index + k == limb) mine += pieces[p].value[k];
      column[threadIdx.x] = mine;
      __syncthreads();
      const long long total = block_sum<Rung, BLOCK>(column, tree, scratch);
      if (threadIdx.x == 0) shared.state.limb[limb] += total;
    }
  }
}

// For every set bit i of the warp-uniform `bits`, the warp's sum of value_of(i) (a 64-bit integer
// per thread) into row[i], by lane 0. Four sums at once, their butterflies interleaved: each is
// five dependent shuffles, and four side by side cost little more than one.
template <class ValueOf>
__device__ __forceinline__ void warp_sums_into_row(unsigned bits, long long* row, ValueOf value_of) {
#pragma unroll 1
  for (unsigned left = bits; left != 0;) {
    int index[4];
    long long sum[4];
    int count = 0;
#pragma unroll
    for (int k = 0; k < 4; ++k)
      if (left != 0) {
        index[k] = __ffs(int(left)) - 1;
        left &= left - 1;
        sum[k] = value_of(index[k]);
        count = k + 1;
      }
#pragma unroll
    for (int lanes = 16; lanes > 0; lanes >>= 1)
#pragma unroll
      for (int k = 0; k < 4; ++k)
        if (k < count) sum[k] += __shfl_xor_sync(0xffffffffu, sum[k], lanes);
    if ((threadIdx.x & 31) == 0)
#pragma unroll
      for (int k = 0; k < 4; ++k)
        if (k < count) row[index[k]] = sum[k];
  }
}

// The vectorized rung's combine (it reduces with warp shuffles, so this does too). Each warp sums
// the limbs its threads' shares touch, four at a time, into its row of slots; then warp 0's lane j
// totals limb j over the warps (total_rows, after a barrier).
__device__ __forceinline__ void combine_thread_limbs_by_warps(const ThreadLimbs& limbs,
                                                              long long* slots) {
  const int tid = int(threadIdx.x);
  warp_sums_into_row(__reduce_or_sync(0xffffffffu, limbs.nonzero()), slots + (tid >> 5) * kWarpSlots,
                     [&](int i) { return limbs.at(i); });
}

// The common end of the vectorized rung's float family: every lane's sum is one integer at one
// position (the warp's lowest window, or a half sum), so the warp adds the integers (below 2^57
// each, 2^62 for 32) in five shuffles and lane 0 writes the total's three pieces into the warp's
// row, instead of ten limbs a thread, four at a time. Warp 0 totals the rows as above.
__device__ __forceinline__ void warp_window_into_row(std::int64_t n, int position, long long* slots) {
  long long sum = n;
#pragma unroll
  for (int lanes = 16; lanes > 0; lanes >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, lanes);
  if ((threadIdx.x & 31) != 0) return;
  const Pieces pieces = pieces_of(sum, position);
  long long* row = slots + (threadIdx.x >> 5) * kWarpSlots;
#pragma unroll
  for (int k = 0; k < 3; ++k) row[pieces.index + k] = pieces.value[k];
}
// Warp 0's lane j adds limb j of every warp's row into the block's state (after a barrier).
__device__ __forceinline__ void total_rows(BlockExact<FloatFamily>& shared, const long long* slots) {
  const int tid = int(threadIdx.x), lane = tid & 31;
  if (tid >= 32 || lane >= FloatFamily::kLimbs) return;
  long long total = 0;
#pragma unroll 8
  for (int w = 0; w < int(blockDim.x) / 32; ++w) total += slots[w * kWarpSlots + lane];  // loads together
  shared.state.limb[lane] += total;
}

// The limbs a thread's pieces touch, into the block's mask (for the rungs' combine_limbs).
__device__ __forceinline__ void mark_limbs(const Pieces (&pieces)[2], unsigned* mask) {
  unsigned words[kMaskWords<DoubleFamily>] = {};
#pragma unroll
  for (int p = 0; p < 2; ++p)
#pragma unroll
    for (int k = 0; k < 3; ++k) {
      const int limb = pieces[p].index + k;
#pragma unroll
      for (int w = 0; w < kMaskWords<DoubleFamily>; ++w)
        if (pieces[p].value[k] != 0 && (limb >> 5) == w) words[w] |= 1u << (limb & 31);
    }
#pragma unroll
  for (int w = 0; w < kMaskWords<DoubleFamily>; ++w) block_or(words[w], mask[w]);
}

// Count k of the block: its share of the items, or whether some thread saw what count k counts.
template <class Family>
__device__ __forceinline__ long long block_count(const BlockExact<Family>& shared,
                                                 std::int64_t items, int k) {
  return k == kItems ? items : (shared.seen >> k) & 1u;
}
// Every count of the block into its state.
template <class Family>
__device__ __forceinline__ void count_what_was_seen(BlockExact<Family>& shared, std::int64_t items) {
  for (int k = 0; k < kCounts; ++k) shared.state.count[k] = block_count(shared, items, k);
}

// Limb base + lane of the state, sealed: its excess over 32 bits moved up one limb (the top limb
// keeps its own), for warp 0's lanes in passes of 32 limbs from the bottom; `carry_into_pass`
// takes the last lane's excess on to the next pass. Limbs end below 2^33 in magnitude, so the
// states of up to 2^30 blocks add up without overflow.
template <class Family>
__device__ __forceinline__ long long sealed_limb(const ExactState<Family>& state, int base,
                                                 long long& carry_into_pass) {
  constexpr int L = Family::kLimbs;
  const int lane = int(threadIdx.x & 31), i = base + lane;
  const long long v = i < L ? state.limb[i] : 0;
  const bool keeps_all = i >= L - 1;
  const long long carry = keeps_all ? 0 : v >> 32;
  long long from_below = __shfl_up_sync(0xffffffffu, carry, 1);
  if (lane == 0) from_below = carry_into_pass;
  carry_into_pass = __shfl_sync(0xffffffffu, carry, 31);
  return (keeps_all ? v : (v & 0xffffffff)) + from_below;
}

// The counts, and the limbs sealed in place (warp 0; one block alone rounds its state as it is:
// the rounding takes limbs up to 2^63).
template <class Family>
__device__ __forceinline__ void seal_block_state(BlockExact<Family>& shared, std::int64_t items) {
  constexpr int L = Family::kLimbs;
  if (threadIdx.x < 32) {
    __syncwarp();  // the state's last words may be thread 0's (the seed rungs' combine)
    long long carry_into_pass = 0;
    for (int base = 0; base < L; base += 32) {
      const long long sealed = sealed_limb(shared.state, base, carry_into_pass);
      if (base + int(threadIdx.x) < L) shared.state.limb[base + threadIdx.x] = sealed;
    }
    if (threadIdx.x == 0) count_what_was_seen(shared, items);
  }
  __syncthreads();
}

}  // namespace gpureduce::detail::exact
