// Segmented reductions: describe(), the mapping a call would use, in words. It applies the same
// rule as the kernels (shape.cuh) to the offsets, copied to the host, and asks the device for the
// grids the call would launch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../../gpureduce.hpp"
#include "dispatch.cuh"
#include "shape.cuh"
#include "state.cuh"

namespace gpureduce::detail::segmented {

// The problem of a call description C (segmented.cuh: SumCall, ExtremumCall, ...).
template <class C>
using problem_of_t = Problem<typename C::Source, decltype(C::init()),
                             typename C::Source::Reader::accum_type, typename C::Op,
                             decltype(C::init())>;

inline std::string range_text(std::int64_t lo, std::int64_t hi) {
  return std::to_string(lo) + "-" + std::to_string(hi) + " items";
}

// The rule's thresholds for these items.
template <class S>
std::string rule_text() {
  return "groups of 1-32 lanes for " + range_text(1, kGroupMaxItems) + " (4 a lane), a warp for " +
         range_text(kGroupMaxItems + 1, S::kWarpMaxItems) + ", a block for " +
         range_text(S::kWarpMaxItems + 1, S::kChunkItems) + ", split across blocks above (chunks " +
         "of at most " + std::to_string(S::kChunkItems) + " items, at most " +
         std::to_string(kMaxChunks) + " a segment, folded in chunk order)";
}

// The grid `kernel` would get; 0 where it cannot be told (last_error_message() says why).
inline unsigned grid_of(const void* kernel, const Options& options, std::int64_t useful,
                        int per_sm = 0) {
  Device d;
  unsigned grid = 0;
  cudaError_t error = find_device(nullptr, kernel, d);
  if (error == cudaSuccess) error = grid_for(d, kernel, options, useful, grid, per_sm);
  return error == cudaSuccess ? grid : 0u;
}

// A grid from grid_of, in words.
inline std::string grid_text(unsigned grid) {
  if (grid == 0) return std::string("grid unknown (") + last_error_message() + ")";
  return std::to_string(grid) + " blocks x " + std::to_string(kBlockThreads) + " threads";
}

inline std::string state_text(const Options& options) {
  return options.temp_storage_zeroed
             ? "counters in the caller's zeroed storage (left zero)"
             : "counters in the stream's slot of the library (a graph's slot when captured, a "
               "memset where no slot is free)";
}

// How many segments of the offsets fall in each class.
struct ClassCounts {
  std::int64_t empty = 0, group[6] = {}, warp = 0, block = 0, split = 0, chunks = 0, whole = 0;
  std::int64_t bad = 0;
  std::int64_t items = 0;
};

// whole_max: split segments of at most this many chunks run whole on a block (state.cuh).
template <class S>
ClassCounts count_classes(const std::vector<std::int64_t>& begin,
                          const std::vector<std::int64_t>& end, std::int64_t whole_max) {
  ClassCounts c;
  for (std::size_t i = 0; i < begin.size(); ++i) {
    const std::int64_t length = end[i] - begin[i];
    if (length < 0) { ++c.bad; continue; }
    c.items += length;
    switch (S::classify(length)) {
      case SegmentClass::empty: ++c.empty; break;
      case SegmentClass::group: {
        int log2 = 0;
        while ((1 << log2) < S::group_lanes(length)) ++log2;
        ++c.group[log2];
        break;
      }
      case SegmentClass::warp: ++c.warp; break;
      case SegmentClass::block: ++c.block; break;
      case SegmentClass::split: {
        const std::int64_t chunks = S::chunking(length).count;
        ++c.split;
        c.chunks += chunks;
        if (chunks <= whole_max) ++c.whole;  // classify_kernel's rule
        break;
      }
    }
  }
  return c;
}

inline std::string counts_text(const ClassCounts& c) {
  std::string groups;
  for (int k = 0; k < 6; ++k)
    if (c.group[k] > 0)
      groups += (groups.empty() ? "" : ", ") + std::to_string(c.group[k]) + " by " +
                std::to_string(1 << k) + " lane" + (k ? "s" : "");
  std::string text = std::to_string(c.items) + " items: " + std::to_string(c.empty) + " empty; " +
                     (groups.empty() ? std::string("none by groups") : groups) + "; " +
                     std::to_string(c.warp) + " a warp each; " + std::to_string(c.block) +
                     " a block each; " + std::to_string(c.split) + " split into " +
                     std::to_string(c.chunks) + " chunks";
  if (c.whole > 0)
    text += " (" + std::to_string(c.whole) + " of them, of at most " +
            std::to_string(kWholeMaxChunks) +
            " chunks, a block alone each: half a wave of segments or more, same bits)";
  if (c.split > kMaxSplitSegments)
    text += " (past " + std::to_string(kMaxSplitSegments) +
            " at once, the rest a block alone, same bits)";
  if (c.bad > 0)
    text += "; " + std::to_string(c.bad) + " with end < begin: the call writes nothing";
  return text;
}

// direct_kernel's launch, in words.
template <class P>
std::string direct_text(std::int64_t num_segments, const Options& options) {
  Device d;
  if (find_device(nullptr, reinterpret_cast<const void*>(direct_kernel<P>), d) != cudaSuccess)
    return std::string("a direct kernel (grid unknown: ") + last_error_message() + ")";
  const DirectPlan p = direct_plan(num_segments, d.facts.multiprocessors, options);
  return "a direct kernel (" + grid_text(p.grid) + ", " + std::to_string(p.per_warp) +
         " segments a warp: the empty, group- and warp-class segments reduced where they are "
         "read, into a stage, the rest filed; at most " + std::to_string(kDirectMaxSegments) +
         " segments, not for ArgMin and ArgMax)";
}

template <class C>
std::string describe_offsets(std::int64_t num_segments, const std::int64_t* d_begin,
                             const std::int64_t* d_end, const Options& options) {
  using P = problem_of_t<C>;
  using S = Shape<sizeof(typename P::In)>;
  if (num_segments < 0 || num_segments > kMaxSegments) return "invalid num_segments";
  if (check_options(options, true) != cudaSuccess) return last_error_message();
  const bool few = runs_few(num_segments);
  const unsigned grid =
      few ? grid_of(reinterpret_cast<const void*>(few_units_kernel<P>), options,
                    num_segments * kMaxChunks, kFixedBlocksPerSm)
          : grid_of(reinterpret_cast<const void*>(reduce_kernel<P>), options, kEveryBlockBusy);
  std::string text = "segmented, general offsets, " + std::to_string(sizeof(typename P::In)) +
                     "-byte items, " + std::to_string(num_segments) + " segments";
  if (num_segments > 0 && d_begin != nullptr && d_end != nullptr) {
    std::vector<std::int64_t> begin(std::size_t(num_segments), 0);
    std::vector<std::int64_t> end(std::size_t(num_segments), 0);
    const std::size_t bytes = std::size_t(num_segments) * sizeof(std::int64_t);
    if (cudaMemcpy(begin.data(), d_begin, bytes, cudaMemcpyDeviceToHost) != cudaSuccess ||
        cudaMemcpy(end.data(), d_end, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
      (void)cudaGetLastError();
      text += " (offsets unreadable)";
    } else {
      const std::int64_t whole_max = grid > 0 && !few ? whole_max_chunks(num_segments, grid) : 0;
      text += " of " + counts_text(count_classes<S>(begin, end, whole_max));
    }
  }
  if (few)
    return text + ". Rule: " + rule_text<S>() + ". A few segments (at most " +
           std::to_string(kFewMaxSegments) + "): a unit kernel (" + grid_text(grid) +
           ": every block reads the offsets, then takes units statically, a split segment's "
           "chunks and one for any other segment), then a fold kernel (" +
           grid_text(grid_of(reinterpret_cast<const void*>(few_fold_kernel<P>), options,
                             num_segments)) +
           ": a block a split segment), no state. Temp storage: " +
           std::to_string(few_layout(num_segments, sizeof(typename P::Accum)).total) + " bytes.";
  const bool direct = takes_direct<P>(num_segments);
  const std::size_t stage = direct ? sizeof(typename P::Out) : 0;
  std::string first = "classify (" + std::to_string(ceil_div(num_segments, kBlockThreads)) +
                      " blocks, one thread a segment)";
  if constexpr (!kIndexedSource<typename P::Source>) {
    if (direct) first = direct_text<P>(num_segments, options);
  }
  const std::string second =
      direct ? ": the stage published once every offset is good, then block units claimed in "
               "order)"
             : ": the warp-level work, then block units claimed in order)";
  return text + ". Rule: " + rule_text<S>() + ". Launches: " + first +
         ", then one persistent reduce kernel (" + grid_text(grid) + second + "; " +
         state_text(options) + ". Temp storage: " +
         std::to_string(general_layout(num_segments, sizeof(typename P::Accum), stage).total) +
         " bytes.";
}

template <class C>
std::string describe_fixed_size(std::int64_t num_segments, std::int64_t segment_size,
                                const Options& options) {
  using P = problem_of_t<C>;
  if (num_segments < 0 || num_segments > kMaxSegments || segment_size < 0)
    return "invalid num_segments or segment_size";
  if (check_options(options, true) != cudaSuccess) return last_error_message();
  const FixedPlan f = fixed_plan<P>(num_segments, segment_size);
  std::string text = "segmented, fixed size, " + std::to_string(num_segments) + " segments of " +
                     std::to_string(segment_size) + " " +
                     std::to_string(sizeof(typename P::In)) + "-byte items: ";
  const std::int64_t per_warp = f.lanes > 0 ? kWarpThreads / f.lanes : 1;
  switch (f.segment_class) {
    case SegmentClass::empty: text += "init written, nothing read"; break;
    case SegmentClass::group:
      text += "a group of " + std::to_string(f.lanes) + " lanes a segment (" +
              std::to_string(per_warp) + " a warp, up to 4 items a lane)";
      break;
    case SegmentClass::warp:
      text += "a warp a segment (16-byte vectors, 4 in flight a lane)";
      break;
    case SegmentClass::block: text += "a block a segment (the vectorized rung's order)"; break;
    case SegmentClass::split:
      text += std::to_string(f.chunking.count) + " chunks of " + std::to_string(f.chunking.span) +
              " items a segment, each a block, then a block a segment folds them in chunk order";
      break;
  }
  const unsigned grid =
      grid_of(fixed_first_kernel<P>(f), options, f.useful_blocks, f.blocks_per_sm);
  if constexpr (kFixedWhole<P>) {
    const unsigned wave =
        grid_of(fixed_first_kernel<P>(f), options, kEveryBlockBusy, f.blocks_per_sm);
    const bool with_arg = f.chunking.count <= kIndexedFixedWholeMaxChunks;
    if (wave > 0 && fixed_runs_whole<P>(f, num_segments, wave))
      text += std::string(" (Sum's way; ") +
              (with_arg ? "Min, Max, ArgMin and ArgMax" : "Min and Max") +
              ", whose answer is the same in any order, have segments enough to fill the grid "
              "and read each whole instead, a block a segment, as one stream: 1 launch, " +
              grid_text(grid_of(reinterpret_cast<const void*>(fixed_whole_kernel<P>), options,
                                num_segments, kFixedBlocksPerSm)) +
              ")";
  }
  const int launches = f.segment_class == SegmentClass::split ? 2 : 1;
  return text + ". " + std::to_string(launches) + (launches == 1 ? " launch (" : " launches (") +
         grid_text(grid) + "), no state. Temp storage: " +
         std::to_string(f.temp_bytes) + " bytes.";
}

}  // namespace gpureduce::detail::segmented
