// How the blocks' exact states become the answer (correctly rounded sums), one epilogue per
// pipeline. States combine by adding their words, so every pipeline gives the same bits:
// - atomic: each block adds its nonzero words into the grid's state with 64-bit atomics (warp 0, a
//   lane a word) and takes a ticket; the last block takes the words out (atomicExch with zero,
//   which also re-arms them), rounds and writes. No partials, no fold: what `automatic` uses.
// - last_block: partial states in temp storage and a ticket; the last block folds them.
// - two_kernel: partial states; a second kernel of one block folds them.
// - grid_sync: partial states, the grid barrier, block 0 folds.
// - cluster: the states stay in shared memory; block 0 folds them through distributed shared memory.
#pragma once

#include <cooperative_groups.h>

#include "../pipeline/ticket.cuh"
#include "block_combine.cuh"
#include "block_state.cuh"
#include "exact_args.cuh"
#include "round.hpp"
#include "warp_round.cuh"

namespace gpureduce::detail::exact {

// Rounds limbs [lowest, highest] of a state whose range is wider than the warp's span, by one
// lane: out of line, its unrolled loops over every limb stay off the common path.
template <class Family, class Out>
__device__ __noinline__ typename OutFormat<Out>::Bits round_wide_range(ExactState<Family>& state,
                                                                       int lowest, int highest) {
  return round_limbs<Out, Family::kLimbs>(state.limb, lowest, highest, Family::kLsbExponent);
}

// The state (shared memory) rounded once into *d_out, by a whole warp: the lanes find the
// nonzero limbs with ballots and round that range a limb a lane (warp_round.cuh); a range too wide
// for the warp (doubles of magnitudes far apart) is lane 0's, out of line.
template <class Family, class Out>
__device__ __forceinline__ void write_rounded_by_warp(Out* d_out, ExactState<Family>& state) {
  constexpr int L = Family::kLimbs;
  const int lane = int(threadIdx.x & 31);
  int lowest = L, highest = -1;
#pragma unroll
  for (int base = 0; base < L; base += 32) {
    const unsigned nonzero =
        __ballot_sync(0xffffffffu, base + lane < L && state.limb[base + lane] != 0);
    if (nonzero != 0) {
      if (lowest == L) lowest = base + __ffs(int(nonzero)) - 1;
      highest = base + 31 - __clz(int(nonzero));
    }
  }
  auto bits = special_result<Out>(state);
  if (bits == 0 && highest >= 0) {
    if (highest - lowest < kWarpRoundSpan) {
      bits = round_by_warp<Out>(state.limb, lowest, highest, Family::kLsbExponent);
    } else if constexpr (Family::kLimbs > kWarpRoundSpan) {
      if (lane == 0) bits = round_wide_range<Family, Out>(state, lowest, highest);
    }
  }
  if (lane != 0) return;
  if (bits == 0) bits = zero_result<Out>(state);  // an exact zero
  *d_out = from_bits<Out>(bits);
}

// The grid's state, done: rounded into *d_out by warp 0, or (gpureduce::nccl, which adds the
// states of all ranks first) its words copied out unrounded to args.state_out.
template <class Family, class In, class Out>
__device__ __forceinline__ void finish_state(const ExactArgs<In, Out>& args,
                                             ExactState<Family>& state) {
  if (threadIdx.x >= 32) return;
  if (args.state_out == nullptr) return write_rounded_by_warp(args.d_out, state);
  for (int w = int(threadIdx.x); w < ExactState<Family>::kWords; w += 32)
    args.state_out[w] = words_of(state)[w];
}

// Adds `count` states of `partials` (global, written by other blocks of this launch or by an
// earlier kernel) into `total` (shared, zero): a thread a word, rows of threads taking every
// rows-th state, then one shared atomic per thread.
template <class Family>
__device__ __forceinline__ void fold_states(const long long* partials, int count,
                                            ExactState<Family>& total) {
  constexpr int W = ExactState<Family>::kWords;
  const int rows = int(blockDim.x) >= W ? int(blockDim.x) / W : 1;
  for (int item = int(threadIdx.x); item < rows * W; item += int(blockDim.x)) {
    const int w = item % W;
    long long sum = 0;
    for (int g = item / W; g < count; g += rows) sum += __ldcg(partials + std::int64_t(g) * W + w);
    if (sum != 0) atomicAdd(reinterpret_cast<unsigned long long*>(words_of(total) + w),
                            static_cast<unsigned long long>(sum));
  }
  __syncthreads();
}

template <class Family>
__device__ __forceinline__ void write_partial(long long* partials, const ExactState<Family>& state) {
  constexpr int W = ExactState<Family>::kWords;
  const long long* words = reinterpret_cast<const long long*>(&state);
  for (int w = int(threadIdx.x); w < W; w += int(blockDim.x))
    partials[std::int64_t(blockIdx.x) * W + w] = words[w];
}

// True in the last block to arrive. Every thread fences its own writes (the partial's words, or
// its atomics) before the barrier; thread 0's acq_rel ticket then publishes them all.
__device__ __forceinline__ bool arrive_last(unsigned* ticket) {
  __shared__ bool last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last = take_ticket(ticket) == gridDim.x - 1;
  __syncthreads();
  return last;
}

// The block's state, sealed (seal_block_state's carries, in warp 0's registers) and its nonzero
// words added into its copy of the grid's state by warp 0, a lane a word (fire-and-forget
// reductions). Sealing in registers saves seal_block_state's shared-memory round trip and
// barrier. Warp 0 only; the caller's warp barrier then orders every lane's adds before thread 0's
// acq_rel ticket, which publishes them all (release is cumulative: cooperative groups' grid sync
// likewise has one thread fence after the block's barrier); no fence per lane, which would cost a
// sequentially consistent fence ('Ticket' in docs/tuning.md).
template <class Family>
__device__ __forceinline__ void add_block_state_into(long long* target, BlockExact<Family>& shared,
                                                     std::int64_t items) {
  constexpr int L = Family::kLimbs;
  __syncwarp();  // the state's last words may be thread 0's (the seed rungs' combine)
  const int lane = int(threadIdx.x);
  auto* grid = reinterpret_cast<unsigned long long*>(target);
  long long carry_into_pass = 0;
#pragma unroll
  for (int base = 0; base < L; base += 32) {
    const long long sealed = sealed_limb(shared.state, base, carry_into_pass);
    if (base + lane < L && sealed != 0)
      atomicAdd(grid + base + lane, static_cast<unsigned long long>(sealed));
  }
  if (lane < kCounts) {
    const long long count = block_count(shared, items, lane);
    if (count != 0) atomicAdd(grid + L + lane, static_cast<unsigned long long>(count));
  }
}
template <class Family, class In, class Out>
__device__ __forceinline__ void add_block_into_grid(const ExactArgs<In, Out>& args,
                                                    BlockExact<Family>& shared, std::int64_t items) {
  add_block_state_into(args.template grid_state<Family>(int(blockIdx.x % kGridStates)), shared,
                       items);
}

// A state of global memory, other blocks' adds into it complete and visible, taken out into
// `total` (shared) with atomicExch(0), which leaves it zero. The caller synchronises before
// reading `total`.
template <class Family>
__device__ __forceinline__ void take_state_out(long long* source, ExactState<Family>& total) {
  for (int w = int(threadIdx.x); w < ExactState<Family>::kWords; w += int(blockDim.x))
    words_of(total)[w] = static_cast<long long>(
        atomicExch(reinterpret_cast<unsigned long long*>(source + w), 0ull));
}

// The last block takes every word of every copy of the grid's state out into `total` (shared)
// with atomicExch(0), which also leaves the grid's state zero for the next call. The caller
// synchronises before reading it.
template <class Family, class In, class Out>
__device__ __forceinline__ void take_grid_state(const ExactArgs<In, Out>& args,
                                                ExactState<Family>& total) {
  constexpr int W = ExactState<Family>::kWords;
  for (int w = int(threadIdx.x); w < W; w += int(blockDim.x)) {
    long long sum = 0;
#pragma unroll
    for (int copy = 0; copy < kGridStates; ++copy)
      sum += static_cast<long long>(atomicExch(
          reinterpret_cast<unsigned long long*>(args.template grid_state<Family>(copy) + w), 0ull));
    words_of(total)[w] = sum;
  }
}

// The atomic pipeline: every block adds its state into the grid's (add_block_into_grid) and takes
// a ticket; the last takes the grid's state out, rounds and writes.
template <class Family, class In, class Out>
__device__ __forceinline__ void atomic_epilogue(const ExactArgs<In, Out>& args,
                                                BlockExact<Family>& shared, std::int64_t items) {
  __shared__ bool last;
  if (threadIdx.x < 32) {
    add_block_into_grid(args, shared, items);
    __syncwarp();
    if (threadIdx.x == 0) last = take_ticket(args.ticket()) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  take_grid_state(args, shared.total);
  __syncthreads();
  finish_state(args, shared.total);
  if (threadIdx.x == 0) *args.ticket() = 0;
}

template <class Family, class In, class Out>
__device__ __forceinline__ void last_block_epilogue(const ExactArgs<In, Out>& args,
                                                    BlockExact<Family>& shared) {
  write_partial(args.partial_states(), shared.state);
  if (!arrive_last(args.ticket())) return;
  fold_states(args.partial_states(), int(gridDim.x), shared.total);
  finish_state(args, shared.total);
  if (threadIdx.x == 0) *args.ticket() = 0;
}

template <class Family, class In, class Out>
__device__ __forceinline__ void grid_sync_epilogue(const ExactArgs<In, Out>& args,
                                                   BlockExact<Family>& shared) {
  write_partial(args.partial_states(), shared.state);
  cooperative_groups::this_grid().sync();
  if (blockIdx.x != 0) return;
  fold_states(args.partial_states(), int(gridDim.x), shared.total);
  finish_state(args, shared.total);
}

template <class Family, class In, class Out>
__device__ __forceinline__ void cluster_epilogue(const ExactArgs<In, Out>& args,
                                                 BlockExact<Family>& shared) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // no clusters below sm_90; dispatch never selects this pipeline there
#else
  constexpr int W = ExactState<Family>::kWords;
  cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  cluster.sync();  // every block's state is written and visible
  if (blockIdx.x == 0) {  // the grid is one cluster: block index = rank
    long long* mine = words_of(shared.state);
    long long* total = words_of(shared.total);
    for (int w = int(threadIdx.x); w < W; w += int(blockDim.x)) {
      long long sum = 0;
      for (unsigned r = 0; r < gridDim.x; ++r) sum += *cluster.map_shared_rank(mine + w, r);
      total[w] = sum;
    }
    __syncthreads();
    finish_state(args, shared.total);
  }
  cluster.sync();  // no block may exit, freeing its shared memory, before block 0 has read it
#endif
}

}  // namespace gpureduce::detail::exact
