// The two kernels every (rung, pipeline) pair is built from. The pipeline is a kernel argument, not
// a template parameter: its epilogue is a few instructions, and one kernel per rung and type keeps
// the build three times smaller.
#pragma once

#include "device_memory.cuh"
#include "launch.cuh"
#include "pipeline/fold_partials.cuh"
#include "pipeline/atomic.cuh"
#include "pipeline/cluster.cuh"
#include "pipeline/grid_sync.cuh"
#include "pipeline/last_block.cuh"
#include "pipeline/problem.cuh"
#include "pipeline/two_kernel.cuh"
#include "readers.cuh"

namespace gpureduce::detail {

// Rungs whose block size is a run-time value compile for up to 1024 threads.
template <int BLOCK>
inline constexpr int kMaxThreadsFor = BLOCK > 0 ? BLOCK : 1024;

// The rung's occupancy floor for this operator (cub_block: CUB's occupancy for sums).
template <class Rung, class P>
inline constexpr int kMinBlocksFor = Rung::template min_blocks_per_sm<typename P::Op>();

template <class P>
__device__ __forceinline__ typename P::Accum* dynamic_shared() {
  extern __shared__ __align__(16) unsigned char dynamic_shared_bytes[];
  return reinterpret_cast<typename P::Accum*>(dynamic_shared_bytes);
}

// The two early exits every first-pass kernel shares. An empty input (dispatch then launches one
// block) writes the empty result: true if it did.
template <class P>
__device__ __forceinline__ bool finished_empty_input(const KernelArgs<P>& args) {
  if (args.num_items != 0) return false;
  if (threadIdx.x == 0) write_empty_result(args);
  return true;
}

// One block: its partial is the answer whatever the pipeline (as CUB's single-tile kernel): no
// partials, counter, barrier or cluster to meet. Dispatch relies on it: it launches one block
// plainly (no cooperative or cluster attribute), zeroes no counter and skips the second kernel.
// True if it wrote the result.
template <class P>
__device__ __forceinline__ bool finished_one_block(const KernelArgs<P>& args,
                                                   const typename P::Accum& partial) {
  if (gridDim.x != 1) return false;
  if (threadIdx.x == 0) write_result(args, partial);
  return true;
}

// First pass: every block reduces its share of the input, then the pipeline's epilogue runs.
template <class Rung, int BLOCK, class P>
__global__ void __launch_bounds__(kMaxThreadsFor<BLOCK>, kMinBlocksFor<Rung, P>)
    reduce_input_kernel(KernelArgs<P> args) {
  using Accum = typename P::Accum;
  wait_for_previous_kernel_then_release_next();
  if (finished_empty_input(args)) return;
  Accum* shared = dynamic_shared<P>();
  Accum* block_scratch = Rung::kUsesGlobalScratch
                             ? args.scratch(gridDim.x) + std::int64_t(blockIdx.x) * blockDim.x
                             : nullptr;
  const Accum partial = Rung::template reduce<BLOCK, Accum>(
      args.input, args.num_items, std::int64_t(blockIdx.x),
      std::int64_t(gridDim.x), args.op, shared, block_scratch);
  if (finished_one_block(args, partial)) return;
  // The epilogues below run only with two or more blocks.
  switch (args.pipeline_kind()) {
    case Pipeline::last_block: last_block_epilogue<Rung, BLOCK>(args, partial, shared); break;
    case Pipeline::atomic: atomic_epilogue(args, partial); break;
    case Pipeline::grid_sync: grid_sync_epilogue<Rung, BLOCK>(args, partial, shared); break;
    case Pipeline::cluster: cluster_epilogue(args, partial); break;
    default: two_kernel_epilogue(args, partial); break;
  }
}

// Kernels built for the shape of `automatic`'s plans: one block (inputs up to 64 KiB), one cluster
// (up to 256 KiB), last_block (on state that is zero), and inside a capture two_kernel's first
// pass (below). Each reduces in the same order as reduce_input_kernel launched with the same
// Options, so it gives the same bits (test_automatic.cu and test_graphs_streams.cu check it), with
// the block size known at compile time and only its own epilogue: fewer instructions, and at these
// sizes the instructions after one memory round trip are the time (docs/tuning.md, 'One-block
// kernel', 'Shaped kernels').
enum class ShapeKernel { none, one_block, cluster, last_block, two_kernel };

template <class Rung, int BLOCK, class P>
__global__ void __launch_bounds__(BLOCK, 1) reduce_one_block_kernel(KernelArgs<P> args) {
  using Accum = typename P::Accum;
  wait_for_previous_kernel_then_release_next();
  if (finished_empty_input(args)) return;
  // num_items fits an int: the one-block plan covers at most 64 KiB of input.
  const Accum total = Rung::template reduce_one_block<BLOCK, Accum>(
      args.input, int(args.num_items), args.op,
      dynamic_shared<P>());
  if (threadIdx.x == 0) write_result(args, total);
}

// automatic's many-block plans, each with only its own epilogue: one cluster, last_block with
// flagged slots (or the counted word), and inside a stream capture two_kernel's first pass (whose
// second kernel is reduce_partials_kernel or reduce_partials_in_warp_kernel). The three kernels
// below share this body.
template <class Rung, int BLOCK, class P, ShapeKernel kShape>
__device__ __forceinline__ void reduce_shaped_grid(const KernelArgs<P>& args) {
  using Accum = typename P::Accum;
  wait_for_previous_kernel_then_release_next();
  Accum* shared = dynamic_shared<P>();
  // An empty input reaches here only as one block (dispatch launches one for it), and the rung
  // loads nothing then, so both rare cases are one test after the data rather than a test on
  // num_items ahead of the first load (docs/tuning.md, 'Tests after the data').
  const Accum partial = Rung::template reduce<BLOCK, Accum>(
      args.input, args.num_items, std::int64_t(blockIdx.x),
      std::int64_t(gridDim.x), args.op, shared, static_cast<Accum*>(nullptr));
  if (gridDim.x == 1) {
    if (threadIdx.x == 0) {
      if (args.num_items == 0) write_empty_result(args);
      else write_result(args, partial);
    }
    return;
  }
  if constexpr (kShape == ShapeKernel::cluster) cluster_epilogue(args, partial);
  else if constexpr (kShape == ShapeKernel::two_kernel) two_kernel_epilogue(args, partial);
  else last_block_epilogue<Rung, BLOCK>(args, partial, shared);
}

template <class Rung, int BLOCK, class P>
__global__ void __launch_bounds__(BLOCK, 1) reduce_cluster_kernel(KernelArgs<P> args) {
  reduce_shaped_grid<Rung, BLOCK, P, ShapeKernel::cluster>(args);
}

// No minimum-blocks bound, on purpose: with one (even 1) ptxas gives it 40 registers instead of
// 32 for float and double sums, so 3 blocks of 512 threads fit an SM instead of 4, and the zeroed
// streaming grid, half of that room, would be one block per SM instead of two (docs/tuning.md,
// 'Zeroed streaming grid').
template <class Rung, int BLOCK, class P>
__global__ void __launch_bounds__(BLOCK) reduce_last_block_kernel(KernelArgs<P> args) {
  reduce_shaped_grid<Rung, BLOCK, P, ShapeKernel::last_block>(args);
}

template <class Rung, int BLOCK, class P>
__global__ void __launch_bounds__(BLOCK) reduce_first_pass_kernel(KernelArgs<P> args) {
  reduce_shaped_grid<Rung, BLOCK, P, ShapeKernel::two_kernel>(args);
}

template <class Rung, int BLOCK, class P>
constexpr auto shape_kernel(ShapeKernel shape) -> void (*)(KernelArgs<P>) {
  switch (shape) {
    case ShapeKernel::one_block: return reduce_one_block_kernel<Rung, BLOCK, P>;
    case ShapeKernel::cluster: return reduce_cluster_kernel<Rung, BLOCK, P>;
    case ShapeKernel::two_kernel: return reduce_first_pass_kernel<Rung, BLOCK, P>;
    default: return reduce_last_block_kernel<Rung, BLOCK, P>;
  }
}

// The kernel built for this shape and block size, or null where none is built (block sizes other
// than 128, 256 and 512, inputs the rung cannot read as vectors, or ShapeKernel::none).
template <class Rung, class P>
auto shape_kernel_for(ShapeKernel shape, int block_threads) -> void (*)(KernelArgs<P>) {
  if constexpr (!Rung::template kVectorizable<typename P::Reader>) {
    return nullptr;
  } else {
    if (shape == ShapeKernel::none) return nullptr;
    switch (block_threads) {
      case 128: return shape_kernel<Rung, 128, P>(shape);
      case 256: return shape_kernel<Rung, 256, P>(shape);
      case 512: return shape_kernel<Rung, 512, P>(shape);
      default: return nullptr;
    }
  }
}

// Second pass of two_kernel: one block reduces the first pass's partials.
template <class Rung, int BLOCK, class P>
__global__ void __launch_bounds__(kMaxThreadsFor<BLOCK>, kMinBlocksFor<Rung, P>)
    reduce_partials_kernel(KernelArgs<P> args, int num_partials) {
  using Accum = typename P::Accum;
  wait_for_previous_kernel_then_release_next();  // the first pass's partials, complete and visible
  const Accum total = fold_partials<Rung, BLOCK>(args, num_partials, dynamic_shared<P>());
  if (threadIdx.x == 0) write_result(args, total);
}

// Second pass of automatic's captured two_kernel plan when its first pass had at most BLOCK
// blocks: one warp folds the partials as BLOCK threads would (fold_partials_in_warp, the same
// bits as reduce_partials_kernel), with no barrier. Launched with 32 threads.
template <class Rung, int BLOCK, class P>
__global__ void __launch_bounds__(kWarpThreads, 1)
    reduce_partials_in_warp_kernel(KernelArgs<P> args, int num_partials) {
  using Accum = typename P::Accum;
  wait_for_previous_kernel_then_release_next();  // the first pass's partials, complete and visible
  const Accum total = fold_partials_in_warp<BLOCK>(PartialsReader<Accum>{args.partials()},
                                                   num_partials, args.op);
  if (threadIdx.x == 0) write_result(args, total);
}

// reduce_partials_in_warp_kernel for a first pass of `block_threads` threads, where one is built:
// the block sizes shape_kernel_for builds, rungs that fold partials one per thread, and 4-byte
// accumulators. Faster than a block for 4-byte partials, slower for 8-byte ones, whose shuffles
// move two words each (docs/tuning.md, 'Folding partials').
template <class Rung, class P>
auto partials_in_warp_kernel_for(int block_threads) -> void (*)(KernelArgs<P>, int) {
  if constexpr (!Rung::kFoldsPartialsOnePerThread || sizeof(typename P::Accum) != 4) {
    return nullptr;
  } else {
    switch (block_threads) {
      case 128: return reduce_partials_in_warp_kernel<Rung, 128, P>;
      case 256: return reduce_partials_in_warp_kernel<Rung, 256, P>;
      case 512: return reduce_partials_in_warp_kernel<Rung, 512, P>;
      default: return nullptr;
    }
  }
}

}  // namespace gpureduce::detail
