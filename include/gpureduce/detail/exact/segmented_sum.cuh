// Correctly rounded segmented sums (DeviceSegmentedReduce::Sum and FixedSizeSum with
// Accuracy::correctly_rounded): each segment's exact sum rounded once, by the exact engine's own
// block body (kernels.cuh) run on a segment's range instead of a grid's share. Compiled into the
// library only (src/exact_*.cu), as the rest of the exact engine.
//
// Four kernels (three for doubles), no host synchronisation:
// 1. Plan, a thread a segment: flags an end below its begin (then nothing is written); leaves the
//    float family's segments of at most kWarpWindowItems to the warp window; gives each segment
//    longer than kSegmentChunkBytes a split slot (its chunks become units [base, base + chunks) of
//    one counter: one 64-bit atomic gives the slot and the base, so bases grow with the slot; the
//    slot's exact state is zeroed here); lists the rest for the whole-segment kernel.
// 2. Warp window, a warp a segment: its sum in one double where its exponents span little enough
//    for every add to be exact, else onto the whole-segment list.
// 3. Split chunks, a persistent grid: blocks claim chunk units in order, add each chunk's exact
//    state into its slot with 64-bit atomics (integer adds: the chunks' order does not matter),
//    and the block drawing a slot's last ticket rounds it.
// 4. Whole segments, a persistent grid: blocks claim runs of the list and sum each segment alone
//    (the one-block window first where it fits 16 KiB, else the block's exact state, rounded).
// Every path is the exact sum rounded once, so the bits depend on the segment's items only.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "../segmented/dispatch.cuh"
#include "dispatch.cuh"
#include "exact_sum.hpp"
#include "kernels.cuh"

namespace gpureduce::detail::exact {

// Segments of more bytes than this are cut into chunks of it, any block taking any chunk; fewer,
// and one block sums the segment. H200, correctly rounded float rows against CUB's plain segmented
// Sum (docs/tuning.md, 'Correctly rounded segmented sums'): 512 KiB left a power law's largest
// segments on a few blocks for 85-170 us; a chunk's fixed cost (clearing the state, the combine,
// 64-bit atomics) is small beside reading 64 KiB.
inline constexpr std::int64_t kSegmentChunkBytes = std::int64_t(64) << 10;
// Split segments at once (a slot each: an exact state, a ticket); the rest of them run on one
// block, which gives the same bits.
inline constexpr std::int64_t kSegmentSlots = 4096;
static_assert(kSegmentSlots == 4096, "exact_sum.hpp's segmented_slots_limit starts at it");
inline constexpr int kSegmentSlotShift = 40;  // (slots taken << 40) | chunks handed out
inline constexpr unsigned long long kSegmentUnitsMask = (1ull << kSegmentSlotShift) - 1;

// The most items a block sums into one state: a double block's limbs stay below 2^63 for
// kMostItemsPerBlock of them (dispatch.cuh). A segment longer than that on one block (one that
// found no split slot) is summed in pieces of it. A test hook lowers it.
inline std::int64_t segmented_piece_items = kMostItemsPerBlock;

template <class In>
__host__ __device__ constexpr std::int64_t segment_chunk_items() {
  return kSegmentChunkBytes / std::int64_t(sizeof(In));
}

// Counters the plan kernel needs zero (the call zeroes them first).
struct SegmentedCounters {
  unsigned status;                     // some segment's end is below its begin
  unsigned unused;
  unsigned long long slots_and_units;  // (slots taken << kSegmentSlotShift) | chunks handed out
  unsigned long long next_unit;        // split chunks claimed
  unsigned long long next_whole;       // whole-segment list entries claimed, in runs
  unsigned long long whole_count;      // whole-segment list entries
};
inline constexpr std::size_t kSegmentedCountersBytes = 64;

// A warp's window: segments of the float family up to 4096 items (16 KiB of floats: the plain
// segmented sum's warp class), 8 items a lane in flight at once. Doubles (whose window is a
// 128-bit integer) take the block path.
template <class In>
inline constexpr std::int64_t kWarpWindowItems = std::is_same_v<In, double> ? -1 : 4096;

struct SplitSlot {
  std::int64_t segment;
  std::int64_t base;    // its first unit
  std::int64_t chunks;
};

// Segment s's items: [begin[s], end[s]), or [s * size, (s + 1) * size) for fixed-size segments
// (begin null).
struct SegmentBounds {
  const std::int64_t* begin;
  const std::int64_t* end;
  std::int64_t size;
  __device__ __forceinline__ void of(std::int64_t s, std::int64_t& first, std::int64_t& last) const {
    if (begin == nullptr) {
      first = s * size;
      last = first + size;
    } else {
      first = __ldg(begin + s);
      last = __ldg(end + s);
    }
  }
};

// [counters: 64 B][whole list: n x 4 B][slots: C x 24 B][tickets: C x 4 B][states: C x stride],
// C = min(n, kSegmentSlots): sizes of num_segments only.
struct SegmentedExactLayout {
  std::size_t list = kSegmentedCountersBytes, slots = 0, tickets = 0, states = 0, total = 0;
  std::int64_t capacity = 0;
};
template <class Family>
SegmentedExactLayout segmented_exact_layout(std::int64_t num_segments) {
  SegmentedExactLayout l;
  l.capacity = num_segments < kSegmentSlots ? num_segments : kSegmentSlots;
  l.slots = segmented::align_up(l.list + std::size_t(num_segments) * sizeof(unsigned), 256);
  l.tickets = segmented::align_up(l.slots + std::size_t(l.capacity) * sizeof(SplitSlot), 256);
  l.states = segmented::align_up(l.tickets + std::size_t(l.capacity) * sizeof(unsigned), 256);
  l.total = l.states + std::size_t(l.capacity) * kGridStateStride<Family>;
  return l;
}

template <class In, class Out>
struct SegmentedExactArgs {
  const In* d_in;
  Out* d_out;
  std::int64_t num_segments;
  SegmentBounds bounds;
  SegmentedCounters* counters;
  unsigned* whole;  // segments for the whole-segment kernel
  SplitSlot* slots;
  unsigned* tickets;
  long long* states;  // slot k's at k * kStateStride words
  std::int64_t capacity;
  std::int64_t piece_items;  // segmented_piece_items
  static constexpr std::size_t kStateStride = kGridStateStride<family_of<In>> / 8;
};

// s onto the whole-segment list (warp-aggregated: one atomic a warp).
__device__ __forceinline__ void list_whole(unsigned* list, SegmentedCounters* counters, bool mine,
                                           std::int64_t s) {
  const unsigned lanes = __ballot_sync(__activemask(), mine);
  if (!mine) return;
  const int leader = __ffs(int(lanes)) - 1, lane = int(threadIdx.x & 31);
  unsigned long long base = 0;
  if (lane == leader) base = atomicAdd(&counters->whole_count, (unsigned long long)__popc(lanes));
  base = __shfl_sync(lanes, base, leader);
  list[base + __popc(lanes & ((1u << lane) - 1))] = unsigned(s);
}

template <class In, class Out>
__global__ void __launch_bounds__(256) exact_segments_plan_kernel(SegmentedExactArgs<In, Out> a) {
  using Family = family_of<In>;
  wait_for_previous_kernel_then_release_next();
  const std::int64_t s = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= a.num_segments) return;
  std::int64_t first, last;
  a.bounds.of(s, first, last);
  bool whole = false;
  if (last < first) {
    atomicOr(&a.counters->status, 1u);
  } else if (last - first > segment_chunk_items<In>()) {
    constexpr std::int64_t C = segment_chunk_items<In>();
    const auto chunks = (unsigned long long)((last - first + C - 1) / C);
    const unsigned long long taken = atomicAdd(&a.counters->slots_and_units,
                                               (1ull << kSegmentSlotShift) | chunks);
    const auto k = std::int64_t(taken >> kSegmentSlotShift);
    if (k < a.capacity) {
      a.slots[k] = SplitSlot{s, std::int64_t(taken & kSegmentUnitsMask), std::int64_t(chunks)};
      a.tickets[k] = 0;
      for (int w = 0; w < ExactState<Family>::kWords; ++w) a.states[k * a.kStateStride + w] = 0;
    } else {
      whole = true;  // past the slots: one block takes it, with the same bits
    }
  } else {
    whole = last - first > kWarpWindowItems<In>;
  }
  list_whole(a.whole, a.counters, whole, s);
}

// A warp's window: segment in[0, n), n <= kWarpWindowItems, float family. Each lane adds its items
// (16-byte vectors lane, lane + 32, ..., 4 in flight, and the scalar head and tail) into one
// double and notes their exponent fields. Where the warp's nonzero magnitudes span at most
// window_fields(n) fields and none is infinite or NaN, every partial sum, in any order, is an
// integer number of the lowest field's units below 2^53: every add was exact, and the one
// rounding into Out is the answer (one_block_sum.cuh's argument, for a warp). False: the span was
// too wide, or an infinity or NaN; nothing written.
struct LaneWindow {
  double sum = -0.0;  // -0: IEEE addition's identity, so a sum of only -0 stays -0
  unsigned largest = 0, least = 0xffu;  // exponent fields: the largest, the least of a nonzero
  __device__ __forceinline__ void add(float v) {
    const unsigned magnitude = __float_as_uint(v) & 0x7fffffffu, field = magnitude >> 23;
    largest = field > largest ? field : largest;
    const unsigned counted = field == 0 ? 1u : field;  // subnormals: field 1's unit
    if (magnitude != 0 && counted < least) least = counted;
    sum += double(v);
  }
};

// The warp's span and sum of the lanes' windows: written (lane 0) where the span fits.
template <class In, class Out>
__device__ __forceinline__ bool warp_window_finish(const LaneWindow& w, int n, Out* out) {
  const unsigned largest = __reduce_max_sync(0xffffffffu, w.largest);
  const unsigned least = __reduce_min_sync(0xffffffffu, w.least);
  if (largest == 0xffu) return false;  // an infinity or NaN: the block's state knows IEEE's answer
  if (least != 0xffu && int(largest - least) > window_fields<In>(n)) return false;
  double sum = w.sum;
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  if ((threadIdx.x & 31) == 0) *out = Out(sum);  // float: rounded once; double: the exact sum
  return true;
}

template <class In, class Out>
__device__ __forceinline__ bool warp_window_sum(const In* in, int n, Out* out) {
  // Past 256 items, 4 vectors a lane in flight (64 items of floats): with 8, the kernel took 48
  // registers (5 blocks an SM), and its tiny segments ran 20% slower than with 31.
  constexpr int kPerVector = 16 / int(sizeof(In)), kInFlight = 8, kVectorsInFlight = 4;
  const int lane = int(threadIdx.x & 31);
  LaneWindow w;
  // Up to 256 items: a lane's 8 at most, in one batch of scalar loads, no head or tail to find
  // (H200: a million segments of 1-32 items 303 us against 442 through the vectors).
  if (n <= 32 * kInFlight) {
    float v[kInFlight];
#pragma unroll
    for (int j = 0; j < kInFlight; ++j) v[j] = lane + 32 * j < n ? float(in[lane + 32 * j]) : -0.0f;
#pragma unroll
    for (int j = 0; j < kInFlight; ++j) w.add(v[j]);
    return warp_window_finish<In>(w, n, out);
  }
  // The scalar head (up to the first 16-byte boundary) and tail, a lane an item, then the
  // vectors lane, lane + 32, ..., kInFlight of them loaded before the first is added.
  const int misalign = int(reinterpret_cast<std::uintptr_t>(in) % 16);
  int head = misalign == 0 ? 0 : (16 - misalign) / int(sizeof(In));
  head = head < n ? head : n;
  const int vectors = (n - head) / kPerVector, tail_begin = head + vectors * kPerVector;
  if (lane < head) w.add(float(in[lane]));
  if (lane < n - tail_begin) w.add(float(in[tail_begin + lane]));
  const uint4* body = reinterpret_cast<const uint4*>(in + head);
  for (int v = lane; v < vectors; v += 32 * kVectorsInFlight) {
    uint4 raw[kVectorsInFlight];
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k)
      if (v + 32 * k < vectors) raw[k] = __ldg(body + v + 32 * k);
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) {
      if (v + 32 * k >= vectors) break;
      In items[kPerVector];
      memcpy(items, &raw[k], sizeof(items));
#pragma unroll
      for (int j = 0; j < kPerVector; ++j) w.add(float(items[j]));
    }
  }
  return warp_window_finish<In>(w, n, out);
}

// The warp-window kernel: a warp a segment of at most kWarpWindowItems (empty ones get +0); one
// whose span is too wide goes onto the whole-segment list. Eight blocks an SM (32 registers).
template <class In, class Out>
__global__ void __launch_bounds__(256, 8) exact_small_segments_kernel(SegmentedExactArgs<In, Out> a) {
  wait_for_previous_kernel_then_release_next();
  const std::int64_t s = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  if (s >= a.num_segments || __ldcg(&a.counters->status) != 0) return;
  std::int64_t first, last;
  a.bounds.of(s, first, last);
  if (last - first > kWarpWindowItems<In>) return;
  const bool lane0 = (threadIdx.x & 31) == 0;
  if (last == first) {
    if (lane0) a.d_out[s] = Out(0);  // +0, the empty sum
    return;
  }
  if (!warp_window_sum(a.d_in + first, int(last - first), a.d_out + s) && lane0) {
    const auto at = atomicAdd(&a.counters->whole_count, 1ull);
    a.whole[at] = unsigned(s);
  }
}

// The exact engine's block body (BLOCK threads) on in[0, n), this block alone; warp 0 holds the
// state after it.
template <class In, class Out, int BLOCK>
__device__ __forceinline__ BlockExact<family_of<In>>& range_state(const In* in, std::int64_t n) {
  const ExactArgs<In, Out> args{in, nullptr, n, nullptr, nullptr, std::uint8_t(Pipeline::atomic),
                                nullptr};
  return exact_block_state<VectorizedRung, BLOCK, In, Out, true>(args,
                                                                 InputShare<In>{in, n, 0, 1});
}

// The slot holding unit u: the last of slots [0, slots) whose base is at most u (bases grow with
// the slot; slot 0's is 0). A binary search through the read-only cache: a block's claims jump by
// about a grid's worth of units, and a cursor stepping slot by slot from its last one took a
// dependent load a slot (2^16-float segments, 4 chunks each: 257 us against CUB's 67).
template <class In, class Out>
__device__ __forceinline__ std::int64_t slot_of_unit(const SegmentedExactArgs<In, Out>& a,
                                                     std::int64_t u, std::int64_t slots) {
  std::int64_t low = 0, high = slots - 1;
  while (low < high) {
    const std::int64_t middle = (low + high + 1) / 2;
    if (__ldg(&a.slots[middle].base) <= u) low = middle;
    else high = middle - 1;
  }
  return low;
}

// Unit u of the split chunks: its slot, the chunk's exact state into the slot's, and the last
// chunk's block rounds the slot into the segment's output.
template <class In, class Out>
__device__ __forceinline__ void sum_split_chunk(const SegmentedExactArgs<In, Out>& a, std::int64_t u,
                                                std::int64_t slots) {
  using Family = family_of<In>;
  constexpr std::int64_t C = segment_chunk_items<In>();
  const std::int64_t k = slot_of_unit(a, u, slots);
  const SplitSlot slot = a.slots[k];
  std::int64_t first, last;
  a.bounds.of(slot.segment, first, last);
  const std::int64_t c = u - slot.base, from = first + c * C;
  const std::int64_t items = last - from < C ? last - from : C;
  BlockExact<Family>& shared = range_state<In, Out, kAutomaticBlockThreads>(a.d_in + from, items);
  long long* state = a.states + k * a.kStateStride;
  __shared__ bool rounds;
  if (threadIdx.x < 32) {
    add_block_state_into(state, shared, c == 0 ? last - first : 0);  // the items counted once
    __syncwarp();  // every lane's adds before thread 0's acq_rel ticket
    if (threadIdx.x == 0) rounds = take_ticket(a.tickets + k) == unsigned(slot.chunks - 1);
  }
  __syncthreads();
  if (rounds) {
    take_state_out(state, shared.total);
    __syncthreads();
    if (threadIdx.x < 32) write_rounded_by_warp(a.d_out + slot.segment, shared.total);
    if (threadIdx.x == 0) a.tickets[k] = 0;
  }
  __syncthreads();  // before the next unit clears the block's state
}

// Whole segments run on blocks of 128 threads: a segment's barriers, combine and rounding are
// latency, which more blocks an SM hide (at 256 threads, three an SM: 80 registers; left free
// the kernel took 119-128, two blocks; at 64 it spilled 136-272 bytes; ptxas, sm_90).
inline constexpr int kWholeBlockThreads = 128;

// The one-block window (one_block_sum.cuh) out of line: inlined beside the general body, the
// kernel spilled at any register budget.
template <class In, class Out>
__device__ __noinline__ bool segment_in_window(const ExactArgs<In, Out> args) {
  return one_block_in_window<kWholeBlockThreads>(args);
}

// A segment longer than a block sums into one state, on this block: pieces of piece_items, each
// piece's state sealed and added into warp 0's registers (a lane a limb of each 32, as
// add_block_state_into adds a chunk into its slot), then rounded.
template <class In, class Out>
__device__ __noinline__ void sum_in_pieces(const SegmentedExactArgs<In, Out>& a, std::int64_t s,
                                           std::int64_t first, std::int64_t n) {
  using Family = family_of<In>;
  constexpr int kPasses = (Family::kLimbs + 31) / 32;
  const int lane = int(threadIdx.x & 31);
  long long limbs[kPasses] = {}, count = 0;
  BlockExact<Family>* memory = nullptr;
  for (std::int64_t from = 0; from < n; from += a.piece_items) {
    const std::int64_t items = n - from < a.piece_items ? n - from : a.piece_items;
    memory = &range_state<In, Out, kWholeBlockThreads>(a.d_in + first + from, items);
    if (threadIdx.x < 32) {
      __syncwarp();  // the state's last words may be another lane's
      long long carry_into_pass = 0;
#pragma unroll
      for (int p = 0; p < kPasses; ++p) limbs[p] += sealed_limb(memory->state, 32 * p, carry_into_pass);
      if (lane < kCounts) count += block_count(*memory, from == 0 ? n : 0, lane);
    }
    __syncthreads();  // before the next piece clears the state
  }
  if (threadIdx.x >= 32) return;
#pragma unroll
  for (int p = 0; p < kPasses; ++p)
    if (32 * p + lane < Family::kLimbs) memory->total.limb[32 * p + lane] = limbs[p];
  if (lane < kCounts) memory->total.count[lane] = count;
  __syncwarp();
  write_rounded_by_warp(a.d_out + s, memory->total);
}

// A segment of at most piece_items on the block's exact state, rounded.
template <class In, class Out>
__device__ __forceinline__ void round_in_state(const ExactArgs<In, Out>& args) {
  auto& shared = range_state<In, Out, kWholeBlockThreads>(args.d_in, args.num_items);
  if (threadIdx.x < 32) {
    if (threadIdx.x == 0) count_what_was_seen(shared, args.num_items);
    __syncwarp();
    write_rounded_by_warp(args.d_out, shared.state);
  }
  __syncthreads();
}

// The same out of line, for float and bfloat16, whose whole-segments kernel spilled most with it
// inline: 180 and 296 bytes of spill stores and 224 and 292 of loads inline, 180/76 and 216/76 out
// of line (ptxas, sm_90, 2026-12-02); float's 2^13-item segments ran 3.5% slower than before stop
// 70 inline and 2.5% faster out of line (docs/tuning.md, 'Wide data, once more'). Half and double
// spilled 16-28 bytes inline and 64-112 out of line: they keep it inline.
template <class In>
inline constexpr bool kStateOutOfLine =
    std::is_same_v<In, float> || std::is_same_v<In, __nv_bfloat16>;

template <class In, class Out>
__device__ __noinline__ void round_in_state_out_of_line(const ExactArgs<In, Out> args) {
  round_in_state(args);
}

// A segment on this block alone: the one-block window where its inputs fit 16 KiB and lie close,
// else the block's exact state (in pieces past piece_items), rounded.
template <class In, class Out>
__device__ void sum_whole_segment(const SegmentedExactArgs<In, Out>& a, std::int64_t s) {
  std::int64_t first, last;
  a.bounds.of(s, first, last);
  const std::int64_t n = last - first;
  if (n == 0) {
    if (threadIdx.x == 0) a.d_out[s] = Out(0);  // +0, the empty sum
    return;
  }
  const ExactArgs<In, Out> args{a.d_in + first, a.d_out + s, n, nullptr, nullptr,
                                std::uint8_t(Pipeline::atomic), nullptr};
  if (std::uint64_t(n) * sizeof(In) <= kOneBlockBytes && segment_in_window(args)) {
    __syncthreads();  // its shared spans, before the next segment's
    return;
  }
  if (n > a.piece_items) {
    sum_in_pieces(a, s, first, n);
    __syncthreads();
    return;
  }
  if constexpr (kStateOutOfLine<In>) round_in_state_out_of_line(args);
  else round_in_state(args);
}

// The split chunks: at least four blocks an SM (64 registers), as automatic's exact kernel.
template <class In, class Out>
__global__ void __launch_bounds__(kAutomaticBlockThreads, 4)
    exact_split_chunks_kernel(SegmentedExactArgs<In, Out> a) {
  wait_for_previous_kernel_then_release_next();
  if (__ldcg(&a.counters->status) != 0) return;  // an end below its begin: nothing written
  const unsigned long long taken = __ldcg(&a.counters->slots_and_units);
  std::int64_t slots = std::int64_t(taken >> kSegmentSlotShift), units = 0;
  if (slots <= a.capacity) {
    units = std::int64_t(taken & kSegmentUnitsMask);
  } else {  // the slots' units come first: bases grow with the slot
    slots = a.capacity;
    units = slots == 0 ? 0 : a.slots[slots - 1].base + a.slots[slots - 1].chunks;
  }
  __shared__ long long claimed;
  for (;;) {
    if (threadIdx.x == 0) claimed = (long long)atomicAdd(&a.counters->next_unit, 1ull);
    __syncthreads();
    const std::int64_t u = claimed;
    __syncthreads();
    if (u >= units) return;
    sum_split_chunk(a, u, slots);
  }
}

// The whole segments: blocks of kWholeBlockThreads, at least six an SM (80 registers).
inline constexpr int kWholeKernelBlocksPerSm = 6;
template <class In, class Out>
__global__ void __launch_bounds__(kWholeBlockThreads, kWholeKernelBlocksPerSm)
    exact_whole_segments_kernel(SegmentedExactArgs<In, Out> a) {
  wait_for_previous_kernel_then_release_next();
  if (__ldcg(&a.counters->status) != 0) return;  // an end below its begin: nothing written
  const auto count = std::int64_t(__ldcg(&a.counters->whole_count));
  // Runs of about an eighth of a block's share of the list, 1 to 32 entries: sized by the list,
  // not by num_segments (a power law's few hundred whole segments went 32 a claim to a few
  // blocks: 1M segments 413 -> 608 us).
  std::int64_t run = count / (8 * std::int64_t(gridDim.x));
  run = run < 1 ? 1 : run > 32 ? 32 : run;
  __shared__ long long claimed;
  for (;;) {
    if (threadIdx.x == 0)
      claimed = (long long)atomicAdd(&a.counters->next_whole, (unsigned long long)run);
    __syncthreads();
    const std::int64_t from = claimed;
    __syncthreads();
    if (from >= count) return;
    const std::int64_t to = from + run < count ? from + run : count;
    for (std::int64_t i = from; i < to; ++i) sum_whole_segment(a, std::int64_t(a.whole[i]));
  }
}

template <class In, class Out>
std::size_t segmented_exact_temp_bytes(std::int64_t num_segments) {
  return segmented_exact_layout<family_of<In>>(num_segments).total;
}

template <class In, class Out>
SegmentedExactArgs<In, Out> segmented_exact_args(const SegmentedExactCall& c,
                                                 const SegmentedExactLayout& l) {
  auto* temp = static_cast<unsigned char*>(c.temp);
  return {static_cast<const In*>(c.d_in),
          static_cast<Out*>(c.d_out),
          c.num_segments,
          SegmentBounds{c.begin, c.end, c.segment_size},
          reinterpret_cast<SegmentedCounters*>(temp),
          reinterpret_cast<unsigned*>(temp + l.list),
          reinterpret_cast<SplitSlot*>(temp + l.slots),
          reinterpret_cast<unsigned*>(temp + l.tickets),
          reinterpret_cast<long long*>(temp + l.states),
          std::min(l.capacity, segmented_slots_limit),
          segmented_piece_items};
}

// A call validated by the segmented dispatch (options, counts, pointers, temp storage).
template <class In, class Out>
cudaError_t segmented_exact_sum(const SegmentedExactCall& c) {
  namespace seg = segmented;
  constexpr auto kPlan = exact_segments_plan_kernel<In, Out>;
  constexpr auto kSplit = exact_split_chunks_kernel<In, Out>;
  constexpr auto kWhole = exact_whole_segments_kernel<In, Out>;
  const SegmentedExactLayout l = segmented_exact_layout<family_of<In>>(c.num_segments);
  const std::size_t split_shared = exact_shared_bytes<VectorizedRung, In>(kAutomaticBlockThreads);
  const std::size_t whole_shared = exact_shared_bytes<VectorizedRung, In>(kWholeBlockThreads);
  seg::Device d;
  unsigned split_grid = 1, whole_grid = 1;
  cudaError_t error = seg::find_device(c.stream, reinterpret_cast<const void*>(kWhole), d);
  if (error == cudaSuccess)
    error = seg::grid_for(d, reinterpret_cast<const void*>(kSplit), c.options, INT64_MAX,
                          split_grid, 0, kAutomaticBlockThreads, split_shared);
  if (error == cudaSuccess)
    error = seg::grid_for(d, reinterpret_cast<const void*>(kWhole), c.options, INT64_MAX,
                          whole_grid, 0, kWholeBlockThreads, whole_shared);
  if (error != cudaSuccess) return error;
  const auto a = segmented_exact_args<In, Out>(c, l);
  const auto shape = [&](std::int64_t grid, std::size_t bytes, int threads = 256) {
    return LaunchShape{unsigned(grid), unsigned(threads), bytes, c.stream, false, d.pdl};
  };
  if (!c.options.temp_storage_zeroed)
    error = zero_state_for_call(static_cast<unsigned char*>(c.temp), kSegmentedCountersBytes,
                                c.stream, d.pdl);
  if (error == cudaSuccess)
    error = launch_checked(kPlan, shape(seg::ceil_div(c.num_segments, 256), 0),
                           "gpureduce: launching the correctly rounded segment plan kernel",
                           "gpureduce: after the correctly rounded segment plan kernel", a);
  if constexpr (kWarpWindowItems<In> > 0)
    if (error == cudaSuccess)
      error = launch_checked(exact_small_segments_kernel<In, Out>,
                             shape(seg::ceil_div(c.num_segments, 8), 0),
                             "gpureduce: launching the correctly rounded warp-window kernel",
                             "gpureduce: after the correctly rounded warp-window kernel", a);
  if (error == cudaSuccess)
    error = launch_checked(kSplit, shape(split_grid, split_shared),
                           "gpureduce: launching the correctly rounded split-chunk kernel",
                           "gpureduce: after the correctly rounded split-chunk kernel", a);
  if (error == cudaSuccess)
    error = launch_checked(kWhole, shape(whole_grid, whole_shared, kWholeBlockThreads),
                           "gpureduce: launching the correctly rounded whole-segment kernel",
                           "gpureduce: after the correctly rounded whole-segment kernel", a);
  if (error != cudaSuccess) return error;
  // The status first (with the pointer check: the call waits for it), then the zeroed-storage
  // promise: every byte this call wrote, zero again.
  const cudaError_t offsets = seg::report_bad_offsets(c.options, d, &a.counters->status, c.stream);
  if (c.options.temp_storage_zeroed)
    error = check(cudaMemsetAsync(c.temp, 0, l.total, c.stream),
                  "gpureduce: zeroing the correctly rounded segmented call's storage again");
  return offsets != cudaSuccess ? offsets : error;
}

}  // namespace gpureduce::detail::exact
