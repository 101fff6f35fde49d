// Segmented reductions, host side: validation, temp-storage sizes, where the control block lives,
// the grids and the launches. No algorithm here (shape.cuh has the mapping rule).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include "../../gpureduce.hpp"
#include "../context.hpp"
#include "../dispatch.cuh"
#include "../graph_owned_state.hpp"
#include "../launch.cuh"
#include "../runtime.hpp"
#include "../stream_owned_state.hpp"
#include "classify.cuh"
#include "direct.cuh"
#include "few.cuh"
#include "kernels.cuh"
#include "shape.cuh"
#include "state.cuh"

namespace gpureduce::detail::segmented {

// One call of either entry point: general offsets (begin, end) or fixed-size segments.
template <class P>
struct Call {
  void* temp;
  std::size_t* temp_bytes;
  typename P::Source source;
  typename P::Out* out;
  std::int64_t num_segments;
  const std::int64_t* begin;
  const std::int64_t* end;
  bool fixed;
  std::int64_t segment_size;  // fixed only
  typename P::Op op;
  typename P::Init init;
  bool fold_init;
  bool exact;  // integer sums, Min, Max, ArgMin, ArgMax: correctly_rounded changes nothing
  cudaStream_t stream;
  Options options;
  // Sum or FixedSizeSum (not Reduce): Accuracy::correctly_rounded may take the exact engine.
  bool sum_entry = false;
};

template <class P>
using item_shape = Shape<sizeof(typename P::In)>;

// A floating Sum of a raw array whose (input, output) pair the exact engine rounds correctly
// (exact/segmented_sum.cuh, compiled into the library).
template <class P>
inline constexpr bool kCorrectlyRoundable =
    is_sum_op_v<typename P::Op> && exact::kCorrectlyRoundedPair<typename P::In, typename P::Out> &&
    std::is_same_v<typename P::Source, ArraySource<typename P::In, typename P::Accum>>;
template <class P>
bool takes_exact_engine(const Call<P>& c) {
  return kCorrectlyRoundable<P> && c.sum_entry && c.options.accuracy == Accuracy::correctly_rounded;
}
template <class P>
cudaError_t run_exact(const Call<P>& c) {
  if constexpr (kCorrectlyRoundable<P>) {
    return exact::segmented_exact_sum<typename P::In, typename P::Out>(exact::SegmentedExactCall{
        c.temp, c.source.data, c.out, c.num_segments, c.fixed ? nullptr : c.begin,
        c.fixed ? nullptr : c.end, c.segment_size, c.stream, c.options});
  } else {
    return fail(cudaErrorInvalidValue, "gpureduce: not correctly roundable");  // never taken
  }
}

// The Options a segmented call accepts: its own mapping runs the vectorized rung's block order,
// so strategy and pipeline only name what it does; grid_blocks caps every grid (tests use it).
// exact: the result is exact whatever the order (integer sums, Min, Max, ArgMin, ArgMax), or the
// call is a floating Sum the exact engine rounds correctly; either way correctly_rounded is taken.
inline cudaError_t check_options(const Options& o, bool exact) {
  if (o.strategy != Strategy::automatic && o.strategy != Strategy::vectorized)
    return fail(cudaErrorInvalidValue, "gpureduce: segmented reductions run their own mapping "
                                       "(docs/segmented.md): Options::strategy must be automatic "
                                       "or vectorized");
  if (o.pipeline != Pipeline::automatic && o.pipeline != Pipeline::last_block)
    return fail(cudaErrorInvalidValue, "gpureduce: segmented reductions fold split segments in "
                                       "their last block: Options::pipeline must be automatic or "
                                       "last_block");
  if (o.block_threads != 0 && o.block_threads != kBlockThreads)
    return fail(cudaErrorInvalidValue,
                "gpureduce: segmented reductions use 256-thread blocks: Options::block_threads "
                "must be 0 or 256");
  if (o.grid_blocks < 0)
    return fail(cudaErrorInvalidValue, "gpureduce: Options::grid_blocks must be >= 0");
  if (int(o.pointer_check) < 0 || int(o.pointer_check) > int(PointerCheck::off))
    return fail(cudaErrorInvalidValue, "gpureduce: invalid Options::pointer_check");
  if (o.accuracy != Accuracy::plan_order && o.accuracy != Accuracy::correctly_rounded)
    return fail(cudaErrorInvalidValue, "gpureduce: invalid Options::accuracy");
  if (o.accuracy == Accuracy::correctly_rounded && !exact)
    return fail(cudaErrorInvalidValue,
                "gpureduce: segmented Reduce with a floating accumulator cannot be correctly "
                "rounded (Accuracy::correctly_rounded takes Sum of float, float -> double, "
                "double, half and bfloat16 -> float, and the exact integer sums, Min, Max, ArgMin "
                "and ArgMax)");
  return cudaSuccess;
}

template <class P>
cudaError_t check_counts(const Call<P>& c) {
  if (c.num_segments < 0) return fail(cudaErrorInvalidValue, "gpureduce: num_segments is negative");
  if (c.num_segments > kMaxSegments)
    return fail(cudaErrorInvalidValue, "gpureduce: segmented reductions take at most 2^31 - 1 "
                                       "segments a call");
  if (!c.fixed) return cudaSuccess;
  if (c.segment_size < 0) return fail(cudaErrorInvalidValue, "gpureduce: segment_size is negative");
  if (c.segment_size > 0 && c.num_segments > INT64_MAX / c.segment_size)
    return fail(cudaErrorInvalidValue,
                "gpureduce: num_segments x segment_size does not fit 64 bits");
  return cudaSuccess;
}

// A call that launches (num_segments > 0): its pointers are there, and with the pointer check on,
// device-accessible.
template <class P>
cudaError_t check_pointers(const Call<P>& c) {
  const void* input = c.source.pointer();
  constexpr bool is_iterator = !P::Source::kPointer;
  if (c.out == nullptr) return fail(cudaErrorInvalidValue, "gpureduce: d_out is null");
  if (!is_iterator && input == nullptr)
    return fail(cudaErrorInvalidValue, "gpureduce: d_in is null");
  if (!c.fixed && (c.begin == nullptr || c.end == nullptr))
    return fail(cudaErrorInvalidValue, "gpureduce: d_begin_offsets or d_end_offsets is null");
  if (!pointer_check_enabled(int(c.options.pointer_check))) return cudaSuccess;
  cudaError_t error = check_device_accessible(c.out, "d_out");
  if (error == cudaSuccess && !is_iterator) error = check_device_accessible(input, "d_in");
  if (error == cudaSuccess && !c.fixed) error = check_device_accessible(c.begin, "d_begin_offsets");
  if (error == cudaSuccess && !c.fixed) error = check_device_accessible(c.end, "d_end_offsets");
  if (error == cudaSuccess) error = check_device_accessible(c.temp, "d_temp_storage");
  return error;
}

// The fixed-size kernels' blocks an SM: 4 (not all 6 resident) for chunks, and for warps of more
// than 4 KiB a segment; every resident block for smaller segments, whose warps' loads in flight
// hide the latency. H100, 2^26 floats, quick rows: 2^12-float segments 1.09-1.12 -> 1.06-1.07x
// CUB, 2^16-2^24 1-2% faster; 2^8 0-2% slower capped, 2^10 level (docs/tuning.md 'Fixed-size grid').
inline constexpr int kFixedBlocksPerSm = 4;
inline constexpr std::int64_t kFixedCappedWarpBytes = std::int64_t(4) << 10;

// Fixed-size segments: the host knows the class, so it picks the kernels.
struct FixedPlan {
  SegmentClass segment_class = SegmentClass::empty;
  int lanes = 0;  // group class: lanes a segment; warp class: 0
  Chunking chunking{1, 0};
  std::size_t temp_bytes = 16;  // never 0: a size query must not ask for a null allocation
  // Warp class above kFixedCappedWarpBytes: fixed_warp_kernel, not fixed_small_kernel.
  bool large_warps = false;
  int blocks_per_sm = 0;  // the first kernel's cap; 0: every resident block
  std::int64_t useful_blocks = 1;  // the first kernel's blocks that have work
};

template <class P>
FixedPlan fixed_plan(std::int64_t num_segments, std::int64_t segment_size) {
  using S = item_shape<P>;
  FixedPlan f;
  f.segment_class = S::classify(segment_size);
  if (f.segment_class == SegmentClass::group) f.lanes = S::group_lanes(segment_size);
  const bool chunks =
      f.segment_class == SegmentClass::block || f.segment_class == SegmentClass::split;
  if (chunks) f.chunking = S::chunking(segment_size);
  if (f.segment_class == SegmentClass::split)
    f.temp_bytes = align_up(std::size_t(num_segments) * std::size_t(f.chunking.count) *
                                sizeof(typename P::Accum), 256);
  f.large_warps = f.segment_class == SegmentClass::warp &&
                  segment_size > kFixedCappedWarpBytes / std::int64_t(sizeof(typename P::In));
  f.blocks_per_sm = chunks || f.large_warps ? kFixedBlocksPerSm : 0;
  const std::int64_t per_warp = f.lanes > 0 ? kWarpThreads / f.lanes : 1;
  f.useful_blocks = chunks ? num_segments * f.chunking.count
                           : ceil_div(ceil_div(num_segments, per_warp), kWarpsPerBlock);
  return f;
}

// The first kernel a fixed-size call launches (its occupancy sizes the grid).
template <class P>
const void* fixed_first_kernel(const FixedPlan& f) {
  if (f.segment_class == SegmentClass::block || f.segment_class == SegmentClass::split)
    return reinterpret_cast<const void*>(fixed_chunk_kernel<P>);
  if (f.large_warps) return reinterpret_cast<const void*>(fixed_warp_kernel<P>);
  return reinterpret_cast<const void*>(fixed_small_kernel<P>);
}

// Split fixed-size segments run whole, a block a segment (fixed_whole_kernel), for Min, Max,
// ArgMin, ArgMax and integer sums (kOrderFree), at most kFixedWholeMaxChunks chunks a segment,
// when the segments are half a wave of the chunk kernel's blocks (`wave`: its grid with work for
// every block; the general path's rule, state.cuh). ArgMin and ArgMax at most 2: at 4 chunks a
// segment their whole kernel ran slower than the chunk and fold kernels, at 2 faster (H200,
// docs/tuning.md, 'Order-free whole segments').
template <class P>
inline constexpr bool kFixedWhole = kOrderFree<typename P::Op, typename P::Accum>;
inline constexpr std::int64_t kIndexedFixedWholeMaxChunks = 2;  // ArgMin's and ArgMax's
template <class P>
inline constexpr std::int64_t kFixedWholeMaxChunks =
    kIndexedSource<typename P::Source> ? kIndexedFixedWholeMaxChunks : kWholeMaxChunks;
template <class P>
bool fixed_runs_whole(const FixedPlan& f, std::int64_t num_segments, std::int64_t wave) {
  if constexpr (kFixedWhole<P>)
    return f.segment_class == SegmentClass::split && f.chunking.count <= kFixedWholeMaxChunks<P> &&
           whole_max_chunks(num_segments, wave) >= f.chunking.count;
  return false;
}

// Whether a general call runs direct_kernel: up to kDirectMaxSegments segments, and not for
// ArgMin and ArgMax, whose direct kernel takes 80 registers (3 blocks an SM) and ran 2-8% slower
// than classify (H200, docs/tuning.md, 'Direct warps').
template <class P>
bool takes_direct(std::int64_t num_segments) {
  return !kIndexedSource<typename P::Source> && runs_direct(num_segments);
}

template <class P>
GeneralLayout general_layout_of(const Call<P>& c) {
  const std::size_t stage = takes_direct<P>(c.num_segments) ? sizeof(typename P::Out) : 0;
  return general_layout(c.num_segments, sizeof(typename P::Accum), stage);
}

template <class P>
std::size_t temp_bytes_for(const Call<P>& c) {
  if constexpr (kCorrectlyRoundable<P>)
    if (takes_exact_engine(c))
      return exact::segmented_exact_temp_bytes<typename P::In, typename P::Out>(c.num_segments);
  if (c.fixed) return fixed_plan<P>(c.num_segments, c.segment_size).temp_bytes;
  if (runs_few(c.num_segments)) return few_layout(c.num_segments, sizeof(typename P::Accum)).total;
  return general_layout_of(c).total;
}

// Where the call runs: device, its facts and context, whether PDL is allowed, whether the stream
// is being captured.
struct Device {
  int ordinal = 0;
  DeviceFacts facts;
  ContextKey context;
  bool pdl = false;
  bool capturing = false;
};

inline cudaError_t find_device(cudaStream_t stream, const void* kernel, Device& d) {
  cudaError_t error = check(cudaGetDevice(&d.ordinal), "cudaGetDevice");
  if (error == cudaSuccess) error = device_facts(d.ordinal, d.facts);
  if (error == cudaSuccess) error = current_context(d.ordinal, d.context);
  if (error == cudaSuccess) error = pdl_allowed(d.ordinal, d.facts, kernel, d.pdl);
  if (error == cudaSuccess) error = stream_is_capturing(stream, d.capturing);
  return error;
}

// grid_for's `useful` for a grid of every block the kernel may hold (a wave).
inline constexpr std::int64_t kEveryBlockBusy = std::numeric_limits<std::int64_t>::max();

// One wave of `kernel`'s resident blocks (at most `per_sm` an SM, if given; blocks of `threads`
// with `shared` bytes of dynamic shared memory), at most `useful` and Options::grid_blocks, at
// least 1.
inline cudaError_t grid_for(const Device& d, const void* kernel, const Options& options,
                            std::int64_t useful, unsigned& grid, int per_sm = 0,
                            int threads = kBlockThreads, std::size_t shared = 0) {
  int resident = 0;
  const cudaError_t error = resident_blocks_per_sm(d.context, kernel, threads, shared, resident);
  if (error != cudaSuccess) return error;
  if (resident < 1)
    return fail(cudaErrorInvalidValue, "gpureduce: a segmented kernel cannot run on this device "
                                       "(occupancy 0)");
  if (per_sm > 0 && per_sm < resident) resident = per_sm;
  std::int64_t g = std::int64_t(resident) * d.facts.multiprocessors;
  if (options.grid_blocks > 0 && options.grid_blocks < g) g = options.grid_blocks;
  if (useful < g) g = useful;
  grid = unsigned(g < 1 ? 1 : g);
  return cudaSuccess;
}

template <class... Params, class... Args_>
cudaError_t launch(void (*kernel)(Params...), unsigned grid, const Device& d, cudaStream_t stream,
                   const char* what, Args_&&... args) {
  return launch_checked(kernel, LaunchShape{grid, unsigned(kBlockThreads), 0, stream, false, d.pdl},
                        what, "gpureduce: after launching a segmented kernel",
                        static_cast<Args_&&>(args)...);
}

// The control block, zero when classify starts (state.cuh): the caller's zeroed storage; else,
// captured, a slot the graph owns; else the stream's slot; else the caller's storage zeroed now.
// Each is left zero by the reduce kernel (docs/design.md, 'Where last_block's state lives').
template <class P>
cudaError_t control_block(const Call<P>& c, const Device& d, unsigned char* in_temp,
                          Control*& control) {
  unsigned char* base = in_temp;
  cudaError_t error = cudaSuccess;
  if (!c.options.temp_storage_zeroed) {
    unsigned char* slot = nullptr;
    if (d.capturing) error = acquire_graph_owned_slot(c.stream, d.context, sizeof(Control), &slot);
    else error = stream_owned_slot(c.stream, d.context, &slot);
    if (error != cudaSuccess) return error;
    if (slot != nullptr) base = slot;
    else error = zero_state_for_call(in_temp, 48, c.stream, d.pdl);
  }
  control = reinterpret_cast<Control*>(base);
  return error;
}

// End < begin is seen on the device only. With the pointer check on and the stream not captured,
// the call waits for the reduce kernel's status word and returns the error (nothing was written
// either way: docs/segmented.md, 'Bad input').
inline bool reads_status(const Options& options, const Device& d) {
  return pointer_check_enabled(int(options.pointer_check)) && !d.capturing;
}
inline cudaError_t report_bad_offsets(const Options& options, const Device& d, unsigned* status,
                                      cudaStream_t stream) {
  if (!reads_status(options, d)) return cudaSuccess;
  unsigned host_status = 0;
  cudaError_t error = check(cudaMemcpyAsync(&host_status, status, sizeof(host_status),
                                            cudaMemcpyDeviceToHost, stream),
                            "gpureduce: reading the segmented call's status");
  if (error == cudaSuccess)
    error = check(cudaStreamSynchronize(stream), "gpureduce: waiting for the segmented call");
  if (error != cudaSuccess || host_status == 0) return error;
  if (options.temp_storage_zeroed)  // the word the kernel wrote, zero again
    error = check(cudaMemsetAsync(status, 0, sizeof(unsigned), stream),
                  "gpureduce: zeroing the segmented call's status");
  return error != cudaSuccess ? error
                              : fail(cudaErrorInvalidValue,
                                     "gpureduce: a segment's end offset is below its begin offset: "
                                     "nothing was written");
}

template <class P>
Args<P> kernel_args(const Call<P>& c) {
  return Args<P>{c.source, c.out,     c.begin,      c.end,   c.num_segments, c.segment_size,
                 c.op,     c.init,    c.fold_init,  nullptr, nullptr,        nullptr,
                 nullptr,  0u,        nullptr,      0u,      nullptr,        false,
                 c.options.temp_storage_zeroed};
}

// direct_kernel's rounds: per_warp segments a warp (direct.cuh), a round a block, at most
// Options::grid_blocks blocks.
struct DirectPlan {
  int per_warp = 1;
  unsigned grid = 1;
};
inline DirectPlan direct_plan(std::int64_t num_segments, int multiprocessors,
                              const Options& options) {
  DirectPlan p;
  p.per_warp = direct_per_warp(num_segments, multiprocessors);
  std::int64_t g = ceil_div(num_segments, std::int64_t(kWarpsPerBlock) * p.per_warp);
  if (options.grid_blocks > 0 && options.grid_blocks < g) g = options.grid_blocks;
  p.grid = unsigned(g);
  return p;
}

template <class P>
cudaError_t run_general(const Call<P>& c) {
  constexpr auto kReduce = reduce_kernel<P>;
  constexpr auto kClassify = classify_kernel<sizeof(typename P::In)>;
  Device d;
  cudaError_t error = find_device(c.stream, reinterpret_cast<const void*>(kReduce), d);
  unsigned grid = 1;
  if (error == cudaSuccess)
    error = grid_for(d, reinterpret_cast<const void*>(kReduce), c.options, kEveryBlockBusy, grid);
  const GeneralLayout l = general_layout_of(c);
  auto* temp = static_cast<unsigned char*>(c.temp);
  Args<P> a = kernel_args(c);
  if (error == cudaSuccess) error = control_block(c, d, temp + l.control, a.control);
  if (error != cudaSuccess) return error;
  a.status = reinterpret_cast<unsigned*>(temp + l.status);
  a.epochs = reinterpret_cast<unsigned*>(temp + l.epochs);
  a.partials = reinterpret_cast<typename P::Accum*>(temp + l.ring);
  while ((std::int64_t(1) << a.ring_log2) < l.ring_slots) ++a.ring_log2;
  a.split = reinterpret_cast<SplitEntry*>(temp + l.split);
  a.split_capacity = unsigned(l.split_capacity);
  a.list = reinterpret_cast<unsigned*>(temp + l.list);
  a.write_status = reads_status(c.options, d);
  const ClassifyArgs ca{c.begin,  c.end,   c.num_segments,       a.control,
                        a.epochs, unsigned(l.ring_slots), a.split, a.split_capacity,
                        a.list,   whole_max_chunks(c.num_segments, grid)};
  if (takes_direct<P>(c.num_segments)) {
    if constexpr (!kIndexedSource<typename P::Source>) {
      a.stage = reinterpret_cast<typename P::Out*>(temp + l.stage);
      const DirectPlan p = direct_plan(c.num_segments, d.facts.multiprocessors, c.options);
      error = launch(direct_kernel<P>, p.grid, d, c.stream,
                     "gpureduce: launching the segmented direct kernel", a, ca, p.per_warp);
    }
  } else {
    error = launch(kClassify, unsigned(ceil_div(c.num_segments, kBlockThreads)), d, c.stream,
                   "gpureduce: launching the segment classify kernel", ca);
  }
  if (error != cudaSuccess) return error;
  error = launch(kReduce, grid, d, c.stream, "gpureduce: launching the segmented reduce kernel", a);
  if (error != cudaSuccess) {
    // Classify (or direct_kernel) has counted into the control block: zero it, or the stream's
    // next call reads them.
    (void)cudaMemsetAsync(a.control, 0, sizeof(Control), c.stream);
    (void)cudaGetLastError();  // the launch's error is the one to report
    return error;
  }
  return report_bad_offsets(c.options, d, a.status, c.stream);
}

// A few segments: the unit kernel at most 4 blocks an SM (as the fixed-size chunk kernel, whose
// loop it runs), then the fold kernel, a block a segment (few.cuh). No state.
template <class P>
cudaError_t run_few(const Call<P>& c) {
  constexpr auto kUnits = few_units_kernel<P>;
  constexpr auto kFold = few_fold_kernel<P>;
  Device d;
  cudaError_t error = find_device(c.stream, reinterpret_cast<const void*>(kUnits), d);
  unsigned grid = 1, fold_grid = 1;
  if (error == cudaSuccess)
    error = grid_for(d, reinterpret_cast<const void*>(kUnits), c.options,
                     c.num_segments * kMaxChunks, grid, kFixedBlocksPerSm);
  if (error == cudaSuccess)
    error = grid_for(d, reinterpret_cast<const void*>(kFold), c.options, c.num_segments, fold_grid);
  if (error != cudaSuccess) return error;
  const FewLayout l = few_layout(c.num_segments, sizeof(typename P::Accum));
  auto* temp = static_cast<unsigned char*>(c.temp);
  Args<P> a = kernel_args(c);
  a.status = reinterpret_cast<unsigned*>(temp + l.status);
  a.partials = reinterpret_cast<typename P::Accum*>(temp + l.partials);
  a.write_status = reads_status(c.options, d);
  error = launch(kUnits, grid, d, c.stream, "gpureduce: launching the few-segment unit kernel", a);
  if (error == cudaSuccess)
    error = launch(kFold, fold_grid, d, c.stream, "gpureduce: launching the few-segment fold kernel",
                   a);
  if (error != cudaSuccess) return error;
  return report_bad_offsets(c.options, d, a.status, c.stream);
}

template <class P>
cudaError_t run_fixed(const Call<P>& c) {
  constexpr auto kSmall = fixed_small_kernel<P>;
  constexpr auto kWarp = fixed_warp_kernel<P>;
  constexpr auto kChunk = fixed_chunk_kernel<P>;
  constexpr auto kFold = fixed_fold_kernel<P>;
  const FixedPlan f = fixed_plan<P>(c.num_segments, c.segment_size);
  Device d;
  cudaError_t error = find_device(c.stream, reinterpret_cast<const void*>(kChunk), d);
  if (error != cudaSuccess) return error;
  Args<P> a = kernel_args(c);
  a.partials = static_cast<typename P::Accum*>(c.temp);
  unsigned grid = 1;
  error = grid_for(d, fixed_first_kernel<P>(f), c.options, f.useful_blocks, grid, f.blocks_per_sm);
  if (error != cudaSuccess) return error;
  if (f.large_warps)
    return launch(kWarp, grid, d, c.stream, "gpureduce: launching the fixed-size warp kernel", a);
  if (f.segment_class != SegmentClass::block && f.segment_class != SegmentClass::split)
    return launch(kSmall, grid, d, c.stream, "gpureduce: launching the fixed-size segment kernel",
                  a, f.lanes);
  if constexpr (kFixedWhole<P>) {
    unsigned wave = 1;
    error = grid_for(d, reinterpret_cast<const void*>(kChunk), c.options, kEveryBlockBusy, wave,
                     f.blocks_per_sm);
    if (error != cudaSuccess) return error;
    if (fixed_runs_whole<P>(f, c.num_segments, wave)) {
      error = grid_for(d, reinterpret_cast<const void*>(fixed_whole_kernel<P>), c.options,
                       c.num_segments, grid, kFixedBlocksPerSm);
      if (error != cudaSuccess) return error;
      return launch(fixed_whole_kernel<P>, grid, d, c.stream,
                    "gpureduce: launching the fixed-size whole-segment kernel", a);
    }
  }
  error = launch(kChunk, grid, d, c.stream, "gpureduce: launching the fixed-size chunk kernel", a);
  if (error != cudaSuccess || f.chunking.count == 1) return error;
  error = grid_for(d, reinterpret_cast<const void*>(kFold), c.options, c.num_segments, grid);
  if (error == cudaSuccess)
    error = launch(kFold, grid, d, c.stream, "gpureduce: launching the fixed-size fold kernel", a);
  return error;
}

// Validates, answers a size query, or runs. Nothing is written unless every check passed.
template <class P>
cudaError_t reduce_segments(const Call<P>& c) {
  cudaError_t error = check_options(c.options, c.exact || (kCorrectlyRoundable<P> && c.sum_entry));
  if (error == cudaSuccess) error = check_counts(c);
  if (error != cudaSuccess) return error;
  if (c.temp_bytes == nullptr)
    return fail(cudaErrorInvalidValue, "gpureduce: temp_storage_bytes reference is null");
  const std::size_t need = temp_bytes_for(c);
  if (c.temp == nullptr) {
    *c.temp_bytes = need;
    return cudaSuccess;
  }
  if (c.num_segments == 0) return cudaSuccess;
  error = check_pointers(c);
  if (error != cudaSuccess) return error;
  if (*c.temp_bytes < need) return fail(cudaErrorInvalidValue, kTempTooSmall);
  if (takes_exact_engine(c)) return run_exact(c);
  if (c.fixed) return run_fixed(c);
  return runs_few(c.num_segments) ? run_few(c) : run_general(c);
}

}  // namespace gpureduce::detail::segmented
