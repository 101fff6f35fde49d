// Segmented reductions: what the kernels are given, and where everything lives in temp storage.
//
// General offsets (classify, then the reduce kernel):
//   [status: 16 B][control block: 48 B][ring epochs: R x 4 B][ring: R partials]
//   [split entries: min(n, kMaxSplitSegments) x 32 B][work list: n x 4 B]
//   and, where direct_kernel replaces classify (n <= kDirectMaxSegments), [stage: n outputs]
// A few segments (num_segments <= kFewMaxSegments): [status: 16 B][a partial for every unit].
// Fixed-size segments: the chunk partials of every segment when they are split, else nothing.
// Every size depends on num_segments (and segment_size, and the accumulator's size) only, never
// on the offsets' values (docs/segmented.md, 'Temp storage').
#pragma once

#include <cstddef>
#include <cstdint>

#include "../pipeline/problem.cuh"
#include "shape.cuh"

namespace gpureduce::detail::segmented {

// Counters that must be zero when the classify kernel starts: the reduce kernel's last block
// zeroes them again, so storage that starts zero stays zero (Options::temp_storage_zeroed, or the
// stream's or the graph's slot of the library: dispatch.cuh).
struct Control {
  unsigned long long split_word;  // (split entries << 40) | chunks handed out: one atomic for both
  unsigned long long next_unit;   // the reduce kernel's block-level work, claimed in order
  unsigned long long next_warp;   // the reduce kernel's warp-list entries, claimed in order
  unsigned int front_count;       // work-list entries from the front: a block per segment
  unsigned int warp_count;        // work-list entries from the back: a warp per segment
  unsigned int error;             // some segment's end offset is below its begin
  unsigned int done_blocks;       // the reduce kernel's exit ticket
};
inline constexpr int kSplitCountShift = 40;
inline constexpr unsigned long long kSplitChunksMask = (1ull << kSplitCountShift) - 1;

// A segment split across blocks: its chunks are units [base, base + chunks) of the reduce kernel's
// block-level work; `ticket` counts finished chunks (the last one folds).
struct SplitEntry {
  std::int64_t begin;
  std::int64_t length;
  unsigned long long base;
  unsigned int segment;
  unsigned int ticket;
};

inline constexpr std::size_t align_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

// Offsets into temp storage of a general-offsets call.
struct GeneralLayout {
  std::size_t status = 0, control = 16, epochs = 64;
  std::size_t ring = 0, split = 0, list = 0, stage = 0, total = 0;
  std::int64_t ring_slots = 0, split_capacity = 0;
};

// The ring holds at least one segment's chunks and at most kRingSlots, a power of two.
inline std::int64_t ring_slots_for(std::int64_t num_segments) {
  std::int64_t slots = kMaxChunks;
  while (slots < kRingSlots && slots < num_segments * kMaxChunks) slots *= 2;
  return slots;
}

// The split table's size (kMaxSplitSegments): tests lower it to send split-class segments to the
// one-block path, which otherwise takes 4 GiB of input to reach.
inline std::int64_t split_table_limit = kMaxSplitSegments;

// Split segments of at most whole_max_chunks(...) chunks run whole on one block (shape.cuh,
// kWholeMaxChunks), when 2 x num_segments reaches the reduce grid: fewer segments than half a
// wave of blocks would leave blocks idle. Tests set the limit to 0 to keep every split segment
// split.
inline std::int64_t whole_chunks_limit = kWholeMaxChunks;
inline std::int64_t whole_max_chunks(std::int64_t num_segments, std::int64_t grid) {
  return 2 * num_segments >= grid ? whole_chunks_limit : 0;
}

// A few segments (few.cuh) run without classify, counters or tickets. Up to 256: a thread a
// segment, so the offsets are one round trip for a block and the units' prefix one block scan;
// temp storage is a partial slot for every unit a segment could have (256 x 1024 at most: 1 MiB of
// floats, 4 MiB of 16-byte ArgMin pairs). 64 first: 256 also took 2^18- and 2^19-item segments
// from the general path (docs/tuning.md, 'Few segments'). Tests set the limit to 0 to send every
// call through classify and the reduce kernel.
inline constexpr int kFewMaxSegments = 256;
inline std::int64_t few_segments_limit = kFewMaxSegments;
inline bool runs_few(std::int64_t num_segments) { return num_segments <= few_segments_limit; }

// A few segments: [status: 16 B][pad][a partial for each of kMaxChunks units a segment].
struct FewLayout {
  std::size_t status = 0, partials = 256, total = 0;
};
inline FewLayout few_layout(std::int64_t num_segments, std::size_t accum_bytes) {
  FewLayout l;
  l.total = align_up(l.partials + std::size_t(num_segments * kMaxChunks) * accum_bytes, 256);
  return l;
}

// Calls of more than a few and at most this many segments run direct_kernel (direct.cuh) in
// classify's place: the group- and warp-class segments reduced where their offsets are read. H200,
// 2^26 floats, against classify (docs/tuning.md, 'Direct warps'): 2^10-2^12-float segments
// (65536-16384 of them) 1.22-1.25 -> 1.11-1.12x CUB at 2^12, 0.71-0.74 -> 0.50 at 2^10; the
// 64K-segment 256-4K mix 0.92-0.94 -> 0.82-0.83; 2^18 segments of 2^8 floats 153.5 -> 90-92 us.
// What it costs: direct_kernel's group- and warp-level work runs before the reduce kernel's
// block-level work instead of beside it, so a mix with much of both loses (a power law of 2^18
// segments 24.7 -> 27.0-29.1 us, 0.11 -> 0.12x CUB); above 2^18 nothing measured gains (2^19
// segments of 2^7 floats, group class, 135 -> 138-139 us; the power law's million 83 -> 101).
// Tests set the limit to 0 to send every call through classify.
inline constexpr std::int64_t kDirectMaxSegments = std::int64_t(1) << 18;
inline std::int64_t direct_segments_limit = kDirectMaxSegments;
inline bool runs_direct(std::int64_t num_segments) {
  return num_segments <= direct_segments_limit;
}

// stage_bytes: an output's size where direct_kernel runs (its results wait in the stage until the
// reduce kernel has seen every offset), else 0.
inline GeneralLayout general_layout(std::int64_t num_segments, std::size_t accum_bytes,
                                    std::size_t stage_bytes) {
  static_assert(sizeof(Control) <= 48 && sizeof(SplitEntry) == 32);
  GeneralLayout l;
  l.ring_slots = ring_slots_for(num_segments);
  l.split_capacity = num_segments < split_table_limit ? num_segments : split_table_limit;
  l.ring = align_up(l.epochs + std::size_t(l.ring_slots) * 4, 256);
  l.split = align_up(l.ring + std::size_t(l.ring_slots) * accum_bytes, 256);
  l.list = l.split + std::size_t(l.split_capacity) * sizeof(SplitEntry);
  l.stage = align_up(l.list + std::size_t(num_segments) * 4, 256);
  l.total = align_up(l.stage + std::size_t(num_segments) * stage_bytes, 256);
  return l;
}

// What every segmented kernel is given. Source reads the input (source.cuh), In is its items'
// type; Out is the output type; Accum what op(init, item) returns; fold_init: write
// op(init, total) (Sum, Reduce: CUB's rule) rather than the total (Min, Max, ArgMin, ArgMax: the
// inputs alone decide; init is only what an empty segment gets).
// DeviceReduce's Problem (pipeline/problem.cuh) over a source (source.cuh) in the reader's place.
template <class Source_, class Out_, class Accum_, class Op_, class Init_>
struct Problem : detail::Problem<Source_, Out_, Accum_, Op_, Init_> {
  using Source = Source_;
};

template <class P>
struct Args {
  typename P::Source source;
  typename P::Out* out;
  const std::int64_t* begin;  // general offsets; null for fixed-size segments
  const std::int64_t* end;
  std::int64_t num_segments;
  std::int64_t segment_size;  // fixed-size segments
  typename P::Op op;
  typename P::Init init;
  bool fold_init;
  // General offsets: the state (GeneralLayout; the control block may live in a library slot).
  Control* control;
  unsigned* status;
  unsigned* epochs;
  typename P::Accum* partials;  // the ring (general) or every chunk partial (fixed-size)
  unsigned ring_log2;
  SplitEntry* split;
  unsigned split_capacity;
  unsigned* list;
  bool write_status;  // the host reads the status word after the call (dispatch.cuh)
  // Options::temp_storage_zeroed: every byte the call wrote in temp storage is zeroed again (the
  // promise is shared with DeviceReduce, whose calls may follow on the same storage).
  bool leave_zero;
  // direct_kernel's results (empty, group- and warp-class segments), for the reduce kernel to
  // publish; null where classify runs.
  typename P::Out* stage = nullptr;

  __device__ __forceinline__ typename P::Out finish(const typename P::Accum& total) const {
    if (fold_init) return static_cast<typename P::Out>(op(init, total));
    return static_cast<typename P::Out>(total);
  }
  // What CUB writes for an empty segment: init.
  __device__ __forceinline__ typename P::Out empty() const {
    return static_cast<typename P::Out>(init);
  }
};

// Zero bytes over *p (Options::temp_storage_zeroed: storage left as it was found).
template <class T>
__device__ __forceinline__ void store_zero(T* p) {
  if constexpr (sizeof(T) % 4 == 0 && alignof(T) >= 4) {
    auto* words = reinterpret_cast<unsigned*>(p);
#pragma unroll
    for (int i = 0; i < int(sizeof(T) / 4); ++i) words[i] = 0u;
  } else {
    auto* bytes = reinterpret_cast<unsigned char*>(p);
#pragma unroll
    for (int i = 0; i < int(sizeof(T)); ++i) bytes[i] = 0;
  }
}

}  // namespace gpureduce::detail::segmented
