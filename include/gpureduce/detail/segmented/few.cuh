// Segmented reductions of a few segments (general offsets, num_segments <= kFewMaxSegments): two
// kernels with no classify pass, no counters and no tickets, as the fixed-size path's. Every block
// reads all the offsets (one round trip) and numbers the segments' units: a split segment's chunks,
// one unit for any other non-empty segment. Block b takes units b, b + G, ... statically (the
// fixed-size chunk kernel's loop); a split segment's chunk partials go to temp storage by unit, and
// few_fold_kernel folds them in chunk order. Each class runs the same functions as in the general
// path (group_reduce, warp_reduce, reduce_chunk, fold_chunk_partials), so the same bits.
//
// Why: a few huge segments ran 1.15-1.19x one device-wide sum through classify and the persistent
// reduce kernel (a launch, then a claim, a split-table search and a ticket with its fence per run),
// where the fixed-size chunk and fold kernels ran the same chunks at 0.98-1.0x (H200, 2026-11-27
// record; docs/tuning.md, 'Few segments').
#pragma once

#include <cstdint>

#include "../launch.cuh"
#include "block_per_segment.cuh"
#include "classify.cuh"
#include "fold.cuh"
#include "shape.cuh"
#include "source.cuh"
#include "state.cuh"
#include "warp_per_segment.cuh"

namespace gpureduce::detail::segmented {

static_assert(kFewMaxSegments <= kBlockThreads, "a thread a segment");

// The offsets of the call and each segment's first unit, in shared memory.
struct FewShared {
  std::int64_t begin[kFewMaxSegments];
  std::int64_t length[kFewMaxSegments];
  unsigned first_unit[kFewMaxSegments + 1];  // [num_segments]: every unit
  unsigned warp_units[kWarpsPerBlock];
  bool bad;  // some end below its begin: write nothing
};

// Units of a segment of `length` items: its chunks if split, none if empty, else one.
template <class S>
__device__ __forceinline__ unsigned few_units(std::int64_t length) {
  if (length <= 0) return 0u;
  return unsigned(S::chunking(length).count);  // 1 below the split class
}

// Thread t reads segment t's offsets (one round trip for the block); a scan in each warp, then the
// warps' totals, number the units.
template <class S>
__device__ void load_few_segments(const std::int64_t* begin, const std::int64_t* end, int n,
                                  FewShared& sh) {
  const int t = int(threadIdx.x), warp = t / kWarpThreads;
  std::int64_t first = 0, length = 0;
  if (t < n) {
    first = begin[t];
    length = end[t] - first;
  }
  unsigned long long warp_total = 0;
  const unsigned before = unsigned(warp_exclusive_sum(few_units<S>(length), warp_total));
  if (t % kWarpThreads == 0) sh.warp_units[warp] = unsigned(warp_total);
  const bool bad = __syncthreads_or(length < 0) != 0;
  unsigned base = 0, total = 0;
#pragma unroll
  for (int w = 0; w < kWarpsPerBlock; ++w) {
    base += w < warp ? sh.warp_units[w] : 0u;
    total += sh.warp_units[w];
  }
  if (t < n) {
    sh.begin[t] = first;
    sh.length[t] = length;
    sh.first_unit[t] = base + before;
  }
  if (t == 0) {
    sh.first_unit[n] = total;
    sh.bad = bad;
  }
  __syncthreads();
}

// The segment holding unit u: the last s with first_unit[s] <= u (empty ones hold none).
__device__ __forceinline__ int few_segment_of(const FewShared& sh, int n, unsigned u) {
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (sh.first_unit[mid] <= u) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// One unit of segment s: a group's or a warp's segment on warp 0, a block's chunk on the block.
template <class P>
__device__ void reduce_few_unit(const Args<P>& a, const FewShared& sh, int s, unsigned u,
                                typename P::Accum* warp_totals) {
  using Accum = typename P::Accum;
  using S = Shape<sizeof(typename P::In)>;
  const std::int64_t begin = sh.begin[s], length = sh.length[s];
  const SegmentClass segment_class = S::classify(length);
  const int lane = int(threadIdx.x) % kWarpThreads;
  if (segment_class == SegmentClass::group || segment_class == SegmentClass::warp) {
    if (threadIdx.x >= kWarpThreads) return;
    Accum total;
    if (segment_class == SegmentClass::group) {
      const int lanes = S::group_lanes(length);
      total = group_reduce<Accum>(a.source.reader(begin), length, lanes, lane % lanes,
                                  lane < lanes, a.op);
    } else {
      total = warp_reduce<Accum>(a.source.reader(begin), length, a.op);
    }
    if (lane == 0) a.out[s] = a.finish(total);
    return;
  }
  const Chunking chunking = S::chunking(length);
  const std::int64_t c = std::int64_t(u - sh.first_unit[s]);
  const Accum partial = reduce_chunk(a, begin, length, chunking, c, warp_totals);
  if (threadIdx.x != 0) return;
  if (chunking.count == 1) a.out[s] = a.finish(partial);
  else a.partials[u] = partial;
}

// 4 blocks an SM, the fixed-size chunk kernel's grid (64 registers: float->double took 80
// unbounded, 3 blocks an SM; none spills at 64); ArgMin and ArgMax 2 (at 4 they spilled 344 bytes),
// as the general path's reduce kernel.
template <class P>
inline constexpr int kFewBlocksPerSm = kIndexedSource<typename P::Source> ? 2 : 4;

// Empty segments get init (block 0), then every unit, block b taking b, b + G, ...
template <class P>
__global__ void __launch_bounds__(kBlockThreads, kFewBlocksPerSm<P>) few_units_kernel(Args<P> a) {
  __shared__ FewShared sh;
  __shared__ alignas(typename P::Accum) unsigned char totals[kWarpsPerBlock *
                                                             sizeof(typename P::Accum)];
  wait_for_previous_kernel_then_release_next();  // the previous call's outputs
  using S = Shape<sizeof(typename P::In)>;
  const int n = int(a.num_segments);
  load_few_segments<S>(a.begin, a.end, n, sh);
  if (a.write_status && blockIdx.x == 0 && threadIdx.x == 0) *a.status = sh.bad ? 1u : 0u;
  if (sh.bad) return;  // an end below its begin: nothing is written (docs/segmented.md)
  if (blockIdx.x == 0 && int(threadIdx.x) < n && sh.length[threadIdx.x] == 0)
    a.out[threadIdx.x] = a.empty();
  for (unsigned u = blockIdx.x; u < sh.first_unit[n]; u += gridDim.x) {
    reduce_few_unit(a, sh, few_segment_of(sh, n, u), u, reinterpret_cast<typename P::Accum*>(totals));
    __syncthreads();  // the warps' totals are reused
  }
}

// A block a segment: a split one's partials folded in chunk order (fold.cuh), as every path does.
template <class P>
__global__ void __launch_bounds__(kBlockThreads) few_fold_kernel(Args<P> a) {
  __shared__ FewShared sh;
  __shared__ alignas(typename P::Accum) unsigned char totals[kWarpsPerBlock *
                                                             sizeof(typename P::Accum)];
  using S = Shape<sizeof(typename P::In)>;
  const int n = int(a.num_segments);
  // The offsets before the wait, off the path after the unit kernel: that kernel does not write
  // them, and it let this one launch only after its own wait, so what wrote them has completed.
  load_few_segments<S>(a.begin, a.end, n, sh);
  wait_for_previous_kernel_then_release_next();  // the unit kernel's partials
  if (sh.bad) return;
  for (int s = int(blockIdx.x); s < n; s += int(gridDim.x)) {
    const std::int64_t count = S::chunking(sh.length[s]).count;
    if (S::classify(sh.length[s]) != SegmentClass::split) continue;
    auto* partials = a.partials + sh.first_unit[s];
    const auto load = [partials](std::int64_t c) { return partials[c]; };
    const auto total = fold_chunk_partials<typename P::Accum>(
        count, load, a.op, reinterpret_cast<typename P::Accum*>(totals));
    if (threadIdx.x == 0) a.out[s] = a.finish(total);
    for (std::int64_t c = threadIdx.x; a.leave_zero && c < count; c += kBlockThreads)
      store_zero(partials + c);  // this thread's own reads above
    __syncthreads();
  }
}

}  // namespace gpureduce::detail::segmented
