// The fast path of automatic's correctly rounded sums past one cluster (kClusterWindowMaxBytes):
// the window of the one-block and cluster paths (one_block_sum.cuh, cluster_window.cuh) over a
// grid. Each thread sums its share as one signed 128-bit integer in units of the last place of
// its least nonzero input so far (moving the sum down when a smaller one comes), each block moves
// its threads' sums to its own least unit and adds them: where the block's inputs lie within the
// window below the largest, that is exact whatever the order. Its block writes a record (the sum
// and its span) and takes a ticket, and the last block moves the records' sums to the grid's least
// unit, adds them and rounds once. A block whose inputs lie further apart (or hold an infinity or
// NaN) sums them as the general body does and adds its exact state into the grid's instead
// (epilogues.cuh's atomic pipeline), and a grid whose blocks' spans lie too far apart has its last
// block add the records into that state too: the same bits either way.
//
// Why: the general body's blocks each cleared, combined and sealed an exact state and added it
// with 64-bit atomics, and the last block gathered and rounded it limb by limb: f64 64K-256K took
// 4.8-4.9 µs inside CUDA graphs against CUB's 3.1-3.3 (docs/tuning.md, 'Grid window').
#pragma once

#include <cstdint>
#include <type_traits>

#include "epilogues.cuh"
#include "grid_window_thread.cuh"
#include "one_block_sum.cuh"
#include "window_records.cuh"

namespace gpureduce::detail::exact {

// The last block holds every record in registers, one a thread: at most a block's threads, and
// the record slots of the zeroed state (window_records.cuh).
inline constexpr int kGridWindowMaxBlocks = kWindowRecordSlots;
static_assert(kGridWindowMaxBlocks <= 256, "the last block's 256 threads hold a record each");
// Blocks an SM: doubles 3 (80 registers; at 4, 64 registers, the kernel spilled and ran 0.1-1.3
// µs slower from 64K to 4M), the float family 4; docs/tuning.md, 'Grid window'.
template <class In>
inline constexpr int kGridWindowBlocksPerSm = std::is_same_v<In, double> ? 3 : 4;
// Where automatic takes it: past one cluster, at most 40 MiB of doubles, 16 MiB of floats, 8 MiB
// of bfloat16 and 4 MiB of halves; past that, the general body. Up to 2 MiB the grid of the square-
// root rule (at most kGridWindowMaxBlocks, 3-4 blocks an SM); past 2 MiB, all but halves take
// the deep window: a block on each SM (at most kGridWindowMaxBlocks), each thread keeping
// kDeepWindowVectors vectors in flight and as many more issued before a batch is added
// (thread_inputs.cuh, sum_inputs_pipelined). H200, graphs, µs a call against the square-root
// grid: f64 3 MiB 4.40 -> 3.80, 8 MiB 5.3 -> 4.7, 32 MiB 10.0-10.3 -> 8.6-8.8, 40 MiB 11.7-12.0 ->
// 11.4-11.6 (the general body's); f32 3 MiB 4.33 -> 3.84, 16 MiB 6.6-7.2 -> 6.15-6.30. It lost at
// 2 MiB (f64 3.51 -> 3.67), and for floats from 24-32 MiB (32 MiB 9.0 -> 10.4),
// where one block an SM no longer keeps enough of DRAM's traffic in flight. 4 vectors deep for
// floats, 8 for doubles: the best of 4, 8 and 16 (docs/tuning.md, 'Deep window'). bfloat16, H200,
// graphs, µs a call against the square-root grid (4 MiB) and the general body (8 and 16 MiB):
// 4 MiB 4.59-4.61 -> 4.21-4.22 for integer, uniform and normal data; 8 MiB normal 7.81 -> 6.21,
// wide20 18.6 -> 13.9, but integers 5.35 -> 5.58 and uniform 5.44 -> 5.71; 16 MiB integers
// 6.98 -> 8.27 (normal 11.0 -> 8.6), so up to 8 MiB (docs/tuning.md, 'bfloat16's deep window').
// Halves were not measured, and keep the square-root grid to 4 MiB.
template <class In>
inline constexpr bool kDeepWindowTypes = std::is_same_v<In, double> || std::is_same_v<In, float> ||
                                         std::is_same_v<In, __nv_bfloat16>;
template <class In>
inline constexpr std::uint64_t kGridWindowMaxBytes =
    std::uint64_t(std::is_same_v<In, double>          ? 40
                  : std::is_same_v<In, float>         ? 16
                  : std::is_same_v<In, __nv_bfloat16> ? 8
                                                      : 4)
    << 20;
inline constexpr std::uint64_t kDeepWindowAboveBytes = std::uint64_t(2) << 20;
template <class In>
inline constexpr int kDeepWindowVectors = std::is_same_v<In, double> ? 8 : 4;
// The float family's deep window kernel compiled for 2 resident blocks an SM though its grid is
// one an SM (73 registers either way): H200, graphs, three rounds alternated on each of two
// machines, f32 1M 3.46-3.49 -> 3.37-3.39 µs (CUB 3.41-3.55), 4M 5.77-5.82 -> 5.71-5.74 (CUB
// 5.38-5.57); not explained (the schedule ptxas chose under the other bound). Doubles keep 1 (154
// registers; at 2, 128): f64 1M 4.13-4.15 -> 4.01-4.03 but 4M 8.05-8.08 -> 8.25-8.28 on one of the
// machines (level on the other). 512 and 1024 threads a block lost (docs/tuning.md, 'The deep
// window's block').
template <class In>
inline constexpr int kDeepWindowMinBlocksPerSm = std::is_same_v<In, double> ? 1 : 2;

// The block's span of `span` and the OR over its threads of two flags (one barrier).
template <int BLOCK>
__device__ __forceinline__ FieldSpan block_span_and_flags(FieldSpan span, bool flag0, bool flag1,
                                                          unsigned& flags) {
  __shared__ WarpSpans<BLOCK> warp_spans;
  __shared__ unsigned warp_flags[BLOCK / 32];
  span.reduce_warp();
  const unsigned mine = (__any_sync(0xffffffffu, flag0) ? 1u : 0u) |
                        (__any_sync(0xffffffffu, flag1) ? 2u : 0u);
  const int warp = int(threadIdx.x) / 32;
  if (threadIdx.x % 32 == 0) warp_spans.put(warp, span), warp_flags[warp] = mine;
  __syncthreads();
  flags = 0;
#pragma unroll
  for (int w = 0; w < BLOCK / 32; ++w) flags |= warp_flags[w];
  return warp_spans.block();
}

// The block's total of its threads' integers, in thread 0 (one barrier).
template <int BLOCK>
__device__ __forceinline__ __int128 block_total(__int128 mine) {
  __shared__ __int128 warp_sums[BLOCK / 32];
  mine = warp_sum(mine);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = mine;
  __syncthreads();
  __int128 total = 0;
  if (threadIdx.x == 0)
#pragma unroll
    for (int w = 0; w < BLOCK / 32; ++w) total += warp_sums[w];
  return total;
}

// The block's sum from its threads' (one barrier for the spans, one for the sums), written by
// thread 0 as the block's record; false for every thread alike where the block's span passes the
// window or some thread refuses it.
template <int BLOCK, class In, class Out, class Thread>
__device__ __forceinline__ bool block_window_record(const ExactArgs<In, Out>& args, Thread& thread,
                                                    std::uint64_t* records) {
  thread.finish();
  unsigned flags = 0;  // bit 0: some thread refuses; bit 1: some input is not -0
  const FieldSpan block =
      block_span_and_flags<BLOCK>(thread.span, thread.refuse, !thread.all_negative_zero, flags);
  if ((flags & 1u) != 0 || !block.fits(~0u, int128_window_fields<In>(args.num_items))) return false;
  __int128 mine = 0;
  if (thread.span.lowest != ~0u) mine = thread.sum << (thread.span.lowest - block.lowest);
  const __int128 total = block_total<BLOCK>(mine);
  if (threadIdx.x == 0)
    publish_record(records, blockIdx.x,
                   WindowRecord{total, block.lowest, block.highest, 1u, flags >> 1});
  return true;
}

// x units 2^(lowest - 1075) into `state` (shared), from any thread: its magnitude's 32-bit digits
// on the limb grid, each signed (the limbs take either sign; the rounding normalises them).
template <class Family>
__device__ __forceinline__ void atomic_add_units(ExactState<Family>& state, __int128 x,
                                                 unsigned lowest) {
  const int p = int(lowest) - 1075 - Family::kLsbExponent;  // >= 0: no input's place is lower
  const bool negative = x < 0;
  const auto magnitude = static_cast<unsigned __int128>(negative ? -x : x);
  const int shift = p & 31, index = p >> 5;
  const unsigned __int128 low = magnitude << shift;
  const unsigned long long top =
      shift != 0 ? static_cast<unsigned long long>(magnitude >> (128 - shift)) : 0ull;
#pragma unroll
  for (int k = 0; k < 5; ++k) {
    const long long digit = k < 4 ? static_cast<long long>(static_cast<unsigned>(low >> (32 * k)))
                                  : static_cast<long long>(top);
    if (digit != 0 && index + k < Family::kLimbs)  // a true sum's digits all lie in the state
      atomicAdd(reinterpret_cast<unsigned long long*>(&state.limb[index + k]),
                static_cast<unsigned long long>(negative ? -digit : digit));
  }
}

// The last block's records, one a thread (thread r's is block r's): the grid's span, whether any
// block took the general body, and whether any input was not -0.
struct HeldRecords {
  __int128 sum = 0;
  unsigned lowest = ~0u;
  FieldSpan span;
  bool general = false, not_negative_zero = false;

  __device__ __forceinline__ explicit HeldRecords(const std::uint64_t* records) {
    if (threadIdx.x >= gridDim.x) return;
    const WindowRecord record = load_record(records, int(threadIdx.x));
    sum = record.sum;
    lowest = record.lowest;
    general = record.window == 0;
    not_negative_zero = record.not_negative_zero != 0;
    span.highest = record.lowest != ~0u ? record.highest : 0u;
    span.lowest = record.lowest;
  }
};

// Where the grid's span passes the window, or some block took the general body: every record's
// sum into the grid's exact state (taken out of its atomics), which is then rounded as the atomic
// pipeline's is. The records are read again here rather than passed in: a reference to the held
// ones would put them in local memory on every last block's path. The fence: a general block
// added into the grid's state, fenced, then published its record, whose flags this block saw.
template <class Family, class In, class Out>
__device__ __noinline__ void finish_records_in_state(const ExactArgs<In, Out>& args,
                                                     std::uint64_t* records,
                                                     unsigned any_not_negative_zero,
                                                     ExactState<Family>& total) {
  __threadfence();
  take_grid_state(args, total);
  __syncthreads();
  if (threadIdx.x < gridDim.x) {
    const WindowRecord record = load_record(records, int(threadIdx.x));
    clear_record(records, int(threadIdx.x));
    if (record.lowest != ~0u) atomic_add_units(total, record.sum, record.lowest);
  }
  if (threadIdx.x == 0) {
    atomicAdd(reinterpret_cast<unsigned long long*>(&total.count[kItems]),
              static_cast<unsigned long long>(args.num_items));
    atomicAdd(reinterpret_cast<unsigned long long*>(&total.count[kNotNegativeZero]),
              static_cast<unsigned long long>(any_not_negative_zero));
  }
  __syncthreads();
  finish_state(args, total);
}

// The last block: the records' sums moved to the grid's least unit, added and rounded once, where
// the grid's span fits the window and every block's record holds its sum; else
// finish_records_in_state. Also re-arms the ticket.
template <int BLOCK, class Family, class In, class Out>
__device__ __forceinline__ void finish_grid_window(const ExactArgs<In, Out>& args,
                                                   std::uint64_t* records,
                                                   ExactState<Family>& total) {
  const HeldRecords held(records);
  unsigned any = 0;  // bit 0: a block took the general body; bit 1: some input is not -0
  const FieldSpan grid =
      block_span_and_flags<BLOCK>(held.span, held.general, held.not_negative_zero, any);
  if (threadIdx.x == 0) *args.ticket() = 0;
  if ((any & 1u) != 0 || !grid.fits(~0u, int128_window_fields<In>(args.num_items)))
    return finish_records_in_state(args, records, any >> 1, total);
  if (threadIdx.x < gridDim.x) clear_record(records, int(threadIdx.x));
  const __int128 sum =
      block_total<BLOCK>(held.lowest != ~0u ? held.sum << (held.lowest - grid.lowest) : 0);
  if (threadIdx.x != 0) return;
  const bool negative_zero = (any & 2u) == 0;  // n > 0 here: a grid of blocks
  *args.d_out = sum != 0 ? round_integer<Out>(sum, int(grid.lowest) - 1075)
                         : Out(negative_zero ? -0.0 : 0.0);
}

}  // namespace gpureduce::detail::exact
