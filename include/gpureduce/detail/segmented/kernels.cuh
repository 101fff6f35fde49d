// Segmented reductions: the kernels. General offsets run classify_kernel (classify.cuh; up to
// kDirectMaxSegments segments direct_kernel, direct.cuh), then
// reduce_kernel: a persistent grid (one wave of resident blocks) that first does the warp-level
// work (the group-class segments in batches of 32 consecutive ones, split statically, then the
// warp list, claimed), then claims block-level units in order from one counter (the split
// segments' chunks, then the block list) until none is left; the last block to leave zeroes the
// control block. Fixed-size segments need no classify pass and no counter: the host knows the
// class.
#pragma once

#include <cstdint>

#include "../launch.cuh"
#include "../pipeline/ticket.cuh"
#include "block_per_segment.cuh"
#include "claim.hpp"
#include "direct.cuh"
#include "fold.cuh"
#include "shape.cuh"
#include "source.cuh"
#include "split.cuh"
#include "state.cuh"
#include "warp_per_segment.cuh"

namespace gpureduce::detail::segmented {

// Shared memory of a block: the warps' totals of the block tree, a chunk partial being handed to
// its folding thread, each warp's staging bytes, the run claimed and the one in hand.
template <class Accum>
struct BlockShared {
  alignas(Accum) unsigned char totals[kWarpsPerBlock * sizeof(Accum)];
  alignas(Accum) unsigned char handover[sizeof(Accum)];
  unsigned char stage[kWarpsPerBlock][kWarpThreads];
  unsigned claimed;  // the next run: its first unit and length
  unsigned ask;
  RunShared run;
  bool last_block;
  __device__ Accum* warp_totals() { return reinterpret_cast<Accum*>(totals); }
  __device__ Accum* handover_slot() { return reinterpret_cast<Accum*>(handover); }
};

// The warp-level work: the batches split statically (warp w takes w, w + W, w + 2W, ... of W
// warps; each batch is at most 32 x 128 items), then the warp list in runs (claim.hpp: entries of
// up to 16 KiB each, so claims even out what a static split would leave to chance). The next claim
// is in flight while the warp reduces its run.
// After direct_kernel there are no batches (it reduced the group class) and no warp list.
template <class P>
__device__ void reduce_warp_work(const Args<P>& a, unsigned warp_count, unsigned char* stage) {
  const std::int64_t batches = a.stage == nullptr ? ceil_div(a.num_segments, kWarpThreads) : 0;
  for (std::int64_t b = global_warp(); b < batches; b += grid_warps()) reduce_batch(a, b, stage);
  // 32-bit: the list holds fewer than 2^31 entries, and claims overshoot by at most 32 a warp.
  // Each claim is sized by the counter as the warp's last run reached its last segment (claim.hpp).
  unsigned long long* counter = &a.control->next_warp;
  const bool leader = threadIdx.x % kWarpThreads == 0;
  const unsigned workers = unsigned(grid_warps());
  unsigned held = unsigned(guided_run(warp_count, 0, workers));
  // Each warp's first run is static (warp w: entries [w x held, w x held + held)), the counter's
  // claims come after all of them. Claimed, every warp's first run queued on the one counter (4224
  // atomics on an H100) before its first load: 2^12-float segments 1.27-1.32 -> 1.19-1.25x CUB on
  // an H200 (docs/tuning.md, 'Static first runs'). An empty list takes no claims at all.
  const unsigned statics = workers * held;
  unsigned claim = 0, first = unsigned(global_warp()) * held;
  CounterPeek peek{nullptr, 0u, 0u, statics};
  while (first < warp_count) {
    const unsigned ask = unsigned(guided_run(warp_count, peek.handed_out(first, held), workers));
    if (leader) claim = statics + unsigned(atomicAdd(counter, ask));
    const unsigned run = held < warp_count - first ? held : warp_count - first;
    peek.counter = leader && ask > 1 ? counter : nullptr;
    peek.last = run - 1;
    reduce_warp_run(a, first, int(run), a.num_segments, peek);
    peek.seen = __shfl_sync(kFullWarpMask, peek.seen, 0);
    first = __shfl_sync(kFullWarpMask, claim, 0);
    held = ask;
  }
}

// The block-level units, claimed in runs (claim.hpp), the next claim in flight while the block
// works, sized (as the warps' are) by the counter as the last run's last piece began: [0, chunks)
// the split segments' chunks, then the block list's entries. 32-bit: at most 2^26 chunks
// (kMaxSplitSegments x kMaxChunks) and 2^31 entries, and claims overshoot by at most 32 a block.
// The run in hand is in shared memory, out of the registers the reduction needs; thread 0 alone
// claims.
template <class P>
__device__ void reduce_block_work(const Args<P>& a, unsigned chunks, unsigned split_count,
                                  unsigned front_count, BlockShared<typename P::Accum>& sh) {
  const unsigned units = chunks + front_count;
  // Fewer chunks than ring slots: every chunk finds its slot in the first generation, so no block
  // waits for a slot and the folds need not release theirs (a release store is a fence).
  const bool ring_wraps = chunks > (1u << a.ring_log2);
  CounterPeek peek{nullptr, 0u, 0u, 0u};
  if (threadIdx.x == 0) {
    sh.ask = unsigned(guided_run(units, 0, gridDim.x));
    sh.claimed = units > 0 ? unsigned(atomicAdd(&a.control->next_unit, sh.ask)) : 0u;  // as the warps'
  }
  __syncthreads();
  while (sh.claimed < units) {
    const unsigned first = sh.claimed, held = sh.ask;
    const unsigned end = held < units - first ? first + held : units;
    __syncthreads();  // every thread has read the claim before thread 0 replaces it
    unsigned next = 0;  // thread 0's claim in flight: stored after the run, so never waited on
    if (threadIdx.x == 0) {
      sh.ask = unsigned(guided_run(units, peek.handed_out(first, held), gridDim.x));
      next = unsigned(atomicAdd(&a.control->next_unit, sh.ask));
      peek.counter = sh.ask > 1 ? &a.control->next_unit : nullptr;
    }
    peek.last = end - 1;
    if (first < chunks)
      reduce_split_run(a, first, end < chunks ? end : chunks, split_count, ring_wraps,
                       sh.warp_totals(), sh.run, peek);
    if (end > chunks) {
      const unsigned front_first = (first > chunks ? first : chunks) - chunks;
      reduce_front_run(a, front_first, end - chunks, chunks + front_first, sh.warp_totals(),
                       sh.handover_slot(), sh.run, peek);
    }
    if (threadIdx.x == 0) sh.claimed = next;
    __syncthreads();
  }
}

// The last block to leave: the control block zero for the next call; under the zeroed-storage
// promise also what no consumer cleared as it went (the ring's epochs, the split table, and after
// bad offsets the unread lists).
template <class P>
__device__ void leave_state_zero(const Args<P>& a, unsigned split_count, unsigned front_count,
                                 unsigned warp_count, bool bad_offsets) {
  if (a.leave_zero) {
    for (unsigned i = threadIdx.x; i < (1u << a.ring_log2); i += kBlockThreads) a.epochs[i] = 0;
    for (unsigned i = threadIdx.x; i < split_count; i += kBlockThreads) store_zero(a.split + i);
    for (unsigned i = threadIdx.x; bad_offsets && i < front_count; i += kBlockThreads)
      a.list[i] = 0;
    for (unsigned i = threadIdx.x; bad_offsets && i < warp_count; i += kBlockThreads)
      a.list[a.num_segments - 1 - i] = 0;
  }
  if (threadIdx.x == 0) *a.control = Control{};
}

// At least 4 resident blocks (32 warps) an SM, at most 64 registers a thread: the warp-level
// work's memory parallelism is its resident warps (2 KiB in flight each), and without the bound
// ptxas took ~100 registers for the union of all the paths (2 blocks an SM). ArgMin and ArgMax
// (an index beside each value, and the batch fold's kept vectors) take 2 blocks and 128
// registers: at 4 the float kernel spilled 792 bytes and ran 1.23-1.84x CUB, at 2 none and
// 1.01-1.36x, while Sum and Min lost up to 20% there (H100, docs/tuning.md 'Segmented registers').
template <class P>
inline constexpr int kReduceBlocksPerSm = kIndexedSource<typename P::Source> ? 2 : 4;

template <class P>
__global__ void __launch_bounds__(kBlockThreads, kReduceBlocksPerSm<P>) reduce_kernel(Args<P> a) {
  __shared__ BlockShared<typename P::Accum> sh;
  wait_for_previous_kernel_then_release_next();  // classify's lists, the previous call's outputs
  const unsigned error = a.control->error;
  const unsigned long long split_word = a.control->split_word;
  const unsigned split_count = unsigned(split_word >> kSplitCountShift);
  const unsigned front_count = a.control->front_count, warp_count = a.control->warp_count;
  if (a.write_status && blockIdx.x == 0 && threadIdx.x == 0) *a.status = error;
  if (a.stage != nullptr) publish_stage(a, error == 0);
  if (error == 0) {  // an end below its begin: nothing is written (docs/segmented.md)
    reduce_warp_work(a, warp_count, sh.stage[threadIdx.x / kWarpThreads]);
    __syncthreads();
    reduce_block_work(a, unsigned(split_word & kSplitChunksMask), split_count, front_count, sh);
  }
  __syncthreads();
  if (threadIdx.x == 0) sh.last_block = take_ticket(&a.control->done_blocks) == gridDim.x - 1;
  __syncthreads();
  if (sh.last_block) leave_state_zero(a, split_count, front_count, warp_count, error != 0);
}

// ---- Fixed-size segments -----------------------------------------------------------------------

// Groups of G lanes, 32 / G consecutive segments a warp at a time.
template <int G, class P>
__device__ void fixed_groups(const Args<P>& a) {
  constexpr int kPerWarp = kWarpThreads / G;
  const int lane = int(threadIdx.x) % kWarpThreads;
  for (std::int64_t first = global_warp() * kPerWarp; first < a.num_segments;
       first += grid_warps() * kPerWarp) {
    const std::int64_t segment = first + lane / G;
    const bool active = segment < a.num_segments;
    const auto total = group_reduce<typename P::Accum>(
        a.source.reader(active ? segment * a.segment_size : 0), a.segment_size, G, lane % G,
        active, a.op);
    if (active && lane % G == 0) a.out[segment] = a.finish(total);
  }
}

template <class P>
__device__ void fixed_warps(const Args<P>& a) {
  for (std::int64_t segment = global_warp(); segment < a.num_segments; segment += grid_warps()) {
    const auto total = warp_reduce<typename P::Accum>(
        a.source.reader(segment * a.segment_size), a.segment_size, a.op);
    if (threadIdx.x % kWarpThreads == 0) a.out[segment] = a.finish(total);
  }
}

// Warp-class fixed-size segments above 4 KiB (those run 4 blocks an SM). A kernel of its own: as
// fixed_small_kernel's warp case, the same warp_reduce ran 2.9 µs slower on 2^14 segments of 2^12
// floats (H200); for smaller ones, whose grid is every resident block, it ran 2^8-float segments
// 4.5% slower (52 registers against 44: 4 blocks an SM against 5; docs/tuning.md, 'Fixed-size
// warp kernel').
template <class P>
__global__ void __launch_bounds__(kBlockThreads) fixed_warp_kernel(Args<P> a) {
  wait_for_previous_kernel_then_release_next();
  fixed_warps(a);
}

// Empty, group- and warp-class fixed-size segments; `lanes`: the group size, 0 for a warp.
template <class P>
__global__ void __launch_bounds__(kBlockThreads) fixed_small_kernel(Args<P> a, int lanes) {
  wait_for_previous_kernel_then_release_next();
  if (a.segment_size == 0) {
    const std::int64_t threads = std::int64_t(gridDim.x) * kBlockThreads;
    for (std::int64_t s = std::int64_t(blockIdx.x) * kBlockThreads + threadIdx.x;
         s < a.num_segments; s += threads)
      a.out[s] = a.empty();
    return;
  }
  switch (lanes) {
    case 1: fixed_groups<1>(a); break;
    case 2: fixed_groups<2>(a); break;
    case 4: fixed_groups<4>(a); break;
    case 8: fixed_groups<8>(a); break;
    case 16: fixed_groups<16>(a); break;
    case 32: fixed_groups<32>(a); break;
    default: fixed_warps(a); break;
  }
}

// Block- and split-class fixed-size segments: unit u is chunk u % chunks of segment u / chunks.
// One chunk a segment: the output; more: the partial, folded by fixed_fold_kernel.
template <class P>
__global__ void __launch_bounds__(kBlockThreads) fixed_chunk_kernel(Args<P> a) {
  __shared__ BlockShared<typename P::Accum> sh;
  wait_for_previous_kernel_then_release_next();
  using S = Shape<sizeof(typename P::In)>;
  const Chunking chunking = S::chunking(a.segment_size);
  const std::int64_t units = a.num_segments * chunking.count;
  for (std::int64_t u = blockIdx.x; u < units; u += gridDim.x) {
    const std::int64_t segment = u / chunking.count;
    const auto partial = reduce_chunk(a, segment * a.segment_size, a.segment_size, chunking,
                                      u % chunking.count, sh.warp_totals());
    if (threadIdx.x == 0) {
      if (chunking.count == 1) a.out[segment] = a.finish(partial);
      else a.partials[u] = partial;
    }
    __syncthreads();
  }
}

// Split-class fixed-size segments of Min, Max, integer sums, and ArgMin and ArgMax up to 2 chunks
// (dispatch.cuh, kFixedWhole) when there are enough of them to fill the grid: a block a segment,
// read as one stream (reduce_segment_in_block), one launch where the chunk and fold kernels took
// two and a tree a chunk (docs/tuning.md, 'Order-free whole segments').
template <class P>
__global__ void __launch_bounds__(kBlockThreads) fixed_whole_kernel(Args<P> a) {
  __shared__ BlockShared<typename P::Accum> sh;
  wait_for_previous_kernel_then_release_next();
  for (std::int64_t segment = blockIdx.x; segment < a.num_segments; segment += gridDim.x)
    reduce_segment_in_block(a, segment, segment * a.segment_size, a.segment_size,
                            sh.warp_totals(), sh.handover_slot());
}

template <class P>
__global__ void __launch_bounds__(kBlockThreads) fixed_fold_kernel(Args<P> a) {
  __shared__ BlockShared<typename P::Accum> sh;
  wait_for_previous_kernel_then_release_next();  // the chunk kernel's partials
  using S = Shape<sizeof(typename P::In)>;
  const std::int64_t count = S::chunking(a.segment_size).count;
  for (std::int64_t segment = blockIdx.x; segment < a.num_segments; segment += gridDim.x) {
    const auto* partials = a.partials + segment * count;
    const auto load = [partials](std::int64_t c) { return partials[c]; };
    const auto total = fold_chunk_partials<typename P::Accum>(count, load, a.op, sh.warp_totals());
    if (threadIdx.x == 0) a.out[segment] = a.finish(total);
    for (std::int64_t c = threadIdx.x; a.leave_zero && c < count; c += kBlockThreads)
      store_zero(a.partials + segment * count + c);  // this thread's own reads above
    __syncthreads();
  }
}

}  // namespace gpureduce::detail::segmented
