// What `automatic` decides, as pure functions of what is known about a call: the rules of
// policy.hpp applied to the caller's Options, the input's size, the device's facts and what the
// runtime said about the stream. No runtime calls here (dispatch.cuh asks them), so host tests can
// check every rule (test/host/test_automatic_plan.cpp).
#pragma once

#include "policy.hpp"
#include "runtime.hpp"

namespace gpureduce::detail {

// The part of the plan that needs no runtime question: strategy, block size and grid rule.
struct AutomaticShape {
  Options resolved;  // strategy, block_threads and grid_blocks resolved; the pipeline as given
  const char* rationale = rationale::kCallerChose;
  bool automatic_grid = false;  // the grid follows automatic_grid_target (policy.hpp)
  bool streaming = false;       // at least half the L2: one wave of 512-thread blocks
  bool half_room_grid = false;  // zeroed streaming: automatic_streaming_zeroed_blocks_per_sm
};

inline AutomaticShape automatic_shape(const Options& options, unsigned long long input_bytes,
                                      unsigned long long l2_bytes) {
  AutomaticShape shape{options};
  if (options.strategy != Strategy::automatic) return shape;
  shape.resolved.strategy = kAutomaticStrategy;
  if (options.grid_blocks != 0) return shape;  // the caller's grid: no rule to apply
  if (input_bytes <= kAutomaticSingleBlockBytes) {
    shape.resolved.grid_blocks = 1;
    if (options.block_threads == 0)
      shape.resolved.block_threads = automatic_single_block_threads(input_bytes);
    shape.rationale = rationale::kSingleBlock;
  } else if (automatic_is_streaming(input_bytes, l2_bytes)) {
    // One wave: the grid cap run_rung derives from occupancy, with no sqrt target.
    if (options.block_threads == 0) shape.resolved.block_threads = kAutomaticStreamingBlockThreads;
    // Zeroed storage: half the launched kernel's room per SM (policy.hpp; run_rung knows it).
    shape.half_room_grid = options.temp_storage_zeroed && options.pipeline == Pipeline::automatic;
    shape.streaming = true;
  } else {
    shape.automatic_grid = true;
  }
  return shape;
}

// Whether automatic's pipeline depends on the stream being captured: only for automatic's own
// strategy above one block, whose grid is one wave either way, so the plan keeps its grid (and so
// its bits and temp storage size) captured or not (docs/tuning.md, 'Capture query').
inline bool pipeline_asks_capture(const Options& options, const AutomaticShape& shape) {
  return options.pipeline == Pipeline::automatic && !options.temp_storage_zeroed &&
         options.strategy == Strategy::automatic && shape.rationale != rationale::kSingleBlock;
}
// Whether an uncaptured call may run on its stream's slot (stream_owned_state.hpp), given that
// the state fits the slot at the grid it launches: below streaming, where the capture is asked.
inline bool pipeline_may_use_stream_slot(const Options& options, const AutomaticShape& shape) {
  return pipeline_asks_capture(options, shape) && !shape.streaming;
}
// The grid the stream slot's state must fit: at most the rule's target or the caller's
// grid_blocks (the one-wave cap and the blocks the input fills only lower it).
inline std::int64_t stream_slot_grid(const Options& options, const AutomaticShape& shape,
                                     unsigned long long input_bytes) {
  return shape.automatic_grid ? automatic_grid_target(input_bytes) : options.grid_blocks;
}

// What the runtime said about the call's stream (false where it was not asked).
struct StreamFacts {
  bool capturing = false;    // being captured into a CUDA graph
  bool stream_slot = false;  // its slot serves this call (or would, when planning or sizing)
};
// What the accumulator allows inside a capture (dispatch.cuh: kCountedSumFits,
// kCapturedFlaggedSumFits).
struct CapturedSums {
  bool counted = false;  // 4-byte integer sums: the counted word
  bool flagged = false;  // 4-byte float sums: flagged slots
};

struct PipelineChoice {
  Pipeline pipeline;
  const char* why;
};
// The pipeline for Options::pipeline == automatic (policy.hpp has each rule's measurements).
inline PipelineChoice automatic_pipeline(const Options& options, const AutomaticShape& shape,
                                         unsigned long long input_bytes, const DeviceFacts& facts,
                                         const StreamFacts& stream, CapturedSums sums) {
  namespace r = rationale;
  const bool streaming = shape.streaming;
  if (options.temp_storage_zeroed)
    return {kAutomaticPipelineZeroed, streaming ? r::kStreamingZeroed : r::kZeroed};
  const bool cluster_range = facts.thread_block_clusters &&
                             input_bytes > kAutomaticSingleBlockBytes &&
                             input_bytes <= kAutomaticClusterMaxBytes;
  if (cluster_range && options.strategy != Strategy::automatic)
    return {kAutomaticPipelineSmall, r::kCluster};
  if (stream.capturing && !streaming && sums.counted)
    return {kAutomaticPipelineCapturedCountedSum, r::kCapturedCountedSum};
  if (stream.capturing && !streaming && sums.flagged)
    return {kAutomaticPipelineCapturedFlaggedSum, r::kCapturedFlaggedSum};
  if (stream.capturing)
    return {kAutomaticPipelineCaptured, streaming ? r::kStreamingCaptured : r::kCaptured};
  if (stream.stream_slot) return {kAutomaticPipelineStreamOwned, r::kStreamOwned};
  if (facts.cooperative_launch)
    return {kAutomaticPipelineCooperative, streaming ? r::kStreamingGridSync : r::kGridSync};
  return {kAutomaticPipelineFallback, streaming ? r::kStreamingFallback : r::kFallback};
}

}  // namespace gpureduce::detail
