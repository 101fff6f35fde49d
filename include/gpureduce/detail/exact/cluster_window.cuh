// The fast path of automatic's correctly rounded sums above the one-block limit, up to
// kClusterWindowMaxBytes: one cluster of 2 to 16 blocks, each holding 8 KiB of the input in
// registers. The one-block window (one_block_sum.cuh) spread over the cluster: the blocks' spans of
// exponent fields meet through distributed shared memory, and where every nonzero input lies
// within the window below the largest, every input is an integer number of the lowest field's
// units and the exact sum fits a signed 64-bit integer (float family) or 128-bit one (doubles)
// whatever the order of the adds. Each block sums its inputs so, block 0 adds the blocks' sums and
// rounds once. Otherwise (wider spans, infinities, NaN) every block returns false together and runs
// the general body with the cluster pipeline in the same kernel (kernels.cuh): the same bits.
//
// Why: above 16 KiB automatic ran a grid whose blocks each cleared, combined and sealed an exact
// state and met in 64-bit atomics, a chain of 3-5 µs that CUB's two kernels did not pay: f64 4K
// to 16K items took 1.5x CUB's time inside CUDA graphs (docs/tuning.md, 'Cluster window').
#pragma once

#include <cooperative_groups.h>

#include <cstdint>
#include <type_traits>

#include "one_block_sum.cuh"

namespace gpureduce::detail::exact {

// sm_90's largest cluster (non-portable: runtime.cpp's max_cluster_blocks allows it).
inline constexpr int kClusterWindowMaxBlocks = 16;
// Input bytes a block holds: `vectors` 16-byte vectors a thread.
template <int BLOCK>
constexpr std::uint64_t cluster_block_bytes(int vectors) {
  return std::uint64_t(vectors) * 16 * BLOCK;
}
// Two vectors a thread, at most 16 blocks: 128 KiB at 256 threads. Past that the grid window
// (grid_window.cuh) is faster since its records carry flags: 160-256 KiB 0.15-0.35 µs in graphs,
// where 16 blocks of four vectors a thread ran to 256 KiB before (docs/tuning.md, 'Grid window').
inline constexpr int kClusterWindowVectors = 2;
template <int BLOCK>
inline constexpr std::uint64_t kClusterWindowMaxBytes =
    kClusterWindowMaxBlocks * cluster_block_bytes<BLOCK>(kClusterWindowVectors);

// The integer a block sums its inputs into, in units of the lowest field's last place.
template <class In>
using ClusterSum = std::conditional_t<std::is_same_v<In, double>, __int128, long long>;

// What the blocks of a cluster tell each other (plain words: a __shared__ object's constructor
// never runs): every block's span and -0 verdict reach every block, its sum block 0.
template <class In>
struct ClusterShared {
  unsigned highest[kClusterWindowMaxBlocks];
  unsigned lowest[kClusterWindowMaxBlocks];  // ~0u: the block's inputs were all zero
  bool all_negative_zero[kClusterWindowMaxBlocks];
  ClusterSum<In> sum[kClusterWindowMaxBlocks];  // block 0's: in units of each block's lowest
};

// The cluster's span and -0 verdict, from what every block wrote here.
template <class In>
__device__ __forceinline__ FieldSpan cluster_span(const ClusterShared<In>& shared, int blocks,
                                                  bool& all_negative_zero) {
  FieldSpan span;
  all_negative_zero = true;
  for (int b = 0; b < blocks; ++b) {
    span.highest = max(span.highest, shared.highest[b]);
    span.lowest = min(span.lowest, shared.lowest[b]);
    all_negative_zero = all_negative_zero && shared.all_negative_zero[b];
  }
  return span;
}

// The fast path: true when it wrote the answer; false, for every block of the cluster alike, when
// the inputs lie too far apart (or hold an infinity or NaN) and the general body must run. Each
// thread holds kClusterWindowVectors vectors; the grid is one cluster of `blocks`, enough blocks
// for every vector. Each block sums its inputs in units of its own lowest field, so one
// cluster barrier suffices: block 0 moves each block's sum to the cluster's lowest field, which
// keeps it exact where the cluster's span fits the window (a block's span is within it).
template <int BLOCK, class In, class Out>
__device__ __forceinline__ bool cluster_in_window(const ExactArgs<In, Out>& args) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // no clusters below sm_90; dispatch never selects this kernel there
  return false;
#else
  namespace cg = cooperative_groups;
  __shared__ WarpSpans<BLOCK> warp_spans;
  __shared__ bool warp_negative_zero[BLOCK / 32];
  __shared__ ClusterSum<In> warp_sums[BLOCK / 32];
  __shared__ ClusterShared<In> shared;
  cg::cluster_group cluster = cg::this_cluster();
  const int blocks = int(cluster.num_blocks()), rank = int(cluster.block_rank());
  const int n = int(args.num_items), warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  // A block may write into another's shared memory only once that block has started: this
  // block's arrival, waited on just before the writes, by when every block has long arrived.
  __cluster_barrier_arrive_relaxed();
  wait_for_previous_kernel_then_release_next();
  const OwnInputs<In, BLOCK, kClusterWindowVectors> inputs(args.d_in, n, rank * BLOCK,
                                                          blocks * BLOCK);
  bool negative_zero = true;
  FieldSpan span = thread_span<In>(inputs, negative_zero);
  span.reduce_warp();
  negative_zero = __all_sync(0xffffffffu, negative_zero);
  if (lane == 0) warp_spans.put(warp, span), warp_negative_zero[warp] = negative_zero;
  __syncthreads();
  const FieldSpan mine = warp_spans.block();
  ClusterSum<In> sum = 0;
  if constexpr (std::is_same_v<In, double>)
    inputs.each([&](const double& x) { sum += scaled_integer(x, mine.lowest); });
  else
    inputs.each([&](const In& x) { sum += scaled_float(widen(x), mine.lowest); });
  sum = warp_sum(sum);
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  __cluster_barrier_wait();  // every block of the cluster has started
  if (warp == 0 && lane < blocks) {  // lane j tells block j this block's span
    bool all_negative_zero = true;
    for (int w = 0; w < BLOCK / 32; ++w) all_negative_zero &= warp_negative_zero[w];
    ClusterShared<In>* peer = cluster.map_shared_rank(&shared, unsigned(lane));
    peer->highest[rank] = mine.highest;
    peer->lowest[rank] = mine.lowest;
    peer->all_negative_zero[rank] = all_negative_zero;
    if (lane == 0) {
      ClusterSum<In> total = 0;
      for (int w = 0; w < BLOCK / 32; ++w) total += warp_sums[w];
      peer->sum[rank] = total;
    }
  }
  cluster.sync();  // every block's words are in place; none is read remotely after this
  bool all_negative_zero = true;
  const FieldSpan all = cluster_span(shared, blocks, all_negative_zero);
  constexpr unsigned kSpecialField = std::is_same_v<In, double> ? 0x7ffu : 0xffu;
  if (!all.fits(kSpecialField, integer_window_fields<In>(n))) return false;
  if (rank == 0 && warp == 0) {
    const bool held = lane < blocks && shared.lowest[lane] != ~0u;  // a block of zeros adds 0
    const ClusterSum<In> part = held ? shared.sum[lane] << (shared.lowest[lane] - all.lowest)
                                     : ClusterSum<In>(0);
    const ClusterSum<In> total = warp_sum(part);
    if (lane == 0) {
      if constexpr (std::is_same_v<In, double>)
        *args.d_out = total != 0 ? round_integer<double>(total, int(all.lowest) - 1075)
                                 : (all_negative_zero ? -0.0 : 0.0);
      else
        *args.d_out = total != 0 ? round_integer<Out>(total, int(all.lowest) - 150)
                                 : Out(all_negative_zero ? -0.0f : 0.0f);
    }
  }
  return true;
#endif
}

}  // namespace gpureduce::detail::exact
