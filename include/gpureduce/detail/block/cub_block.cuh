// Beyond the seeds: CUB's own AgentReduce (BlockReduce with warp reductions, vector loads where
// CUB uses them) with CUB's own policy and grid, inside our pipelines. It exists to reproduce
// cub::DeviceReduce's association order bit for bit (float sums included) while saving a launch.
//
// What makes the bits match (CCCL 3.0.1, sm_90): the first pass is CUB's DeviceReduceKernel body
// (ReducePolicy of policy_hub<Accum, unsigned long long, Op>, even-share grid of
// min(tiles, occupancy(CUB's kernel) x SMs x subscription_factor) strip-mined tiles); the second
// pass is DeviceReduceSingleTileKernel's body over the partials with int offsets (SingleTilePolicy),
// then init is folded in by the caller. Only the load modifier differs in the last-block pass (.cg
// instead of .nc, since other blocks of the same launch wrote the partials); it does not change
// the order. The block must have exactly the policy's thread count.
#pragma once

#include <cub/agent/agent_reduce.cuh>
#include <cub/device/dispatch/kernels/reduce.cuh>
#include <cub/device/dispatch/tuning/tuning_reduce.cuh>
#include <cub/grid/grid_even_share.cuh>
#include <cub/util_device.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "../ops.cuh"
#include "../readers.cuh"
#include "rung_base.cuh"

namespace gpureduce::detail {

// Every CUB 3.0.1 reduce policy up to sm_90 uses 256 threads (Policy500/Policy600 in
// tuning_reduce.cuh); the kernel is compiled with that bound, as CUB's own is.
inline constexpr int kCubBlockThreads = 256;

// cub::DeviceReduce's offset type for an int64 num_items (choose_offset_t<int64_t>).
using CubOffset = unsigned long long;

template <class Accum, class Op>
using CubPolicyHub = cub::detail::reduce::policy_hub<Accum, CubOffset, Op>;

// A policy identical to `Policy` except that it loads with ld.global.cg.
template <class Policy>
struct CoherentLoadPolicy : Policy {
  static constexpr cub::CacheLoadModifier LOAD_MODIFIER = cub::LOAD_CG;
};

// What CUB's agent reads for a reader of ours, and the transform it applies: the array and
// transform CUB's own Reduce, Sum, Min, Max and TransformReduce are given (so its order and its
// vector loads are CUB's), the caller's iterator, or, for readers CUB has no call for (ArgMin's
// indices, Dot's two arrays), element i through the reader.
template <class Reader, class Accum>
struct ReaderAt {
  Reader read;
  __device__ Accum operator()(std::int64_t i) const { return read(i); }
};
template <class Reader, class Accum>
struct CubView {
  using Input = thrust::transform_iterator<ReaderAt<Reader, Accum>,
                                           thrust::counting_iterator<std::int64_t>, Accum>;
  using Transform = ::cuda::std::__identity;  // what CUB's own Reduce hands its agent
  __device__ static Input input(const Reader& r) {
    return Input(thrust::counting_iterator<std::int64_t>(0), ReaderAt<Reader, Accum>{r});
  }
  __device__ static Transform transform(const Reader&) { return {}; }
};
template <class In, class Accum>
struct CubView<InputReader<In, Accum>, Accum> {
  using Input = const In*;
  using Transform = ::cuda::std::__identity;
  __device__ static Input input(const InputReader<In, Accum>& r) { return r.data; }
  __device__ static Transform transform(const InputReader<In, Accum>&) { return {}; }
};
template <class In, class Accum, class F>
struct CubView<TransformReader<In, Accum, F>, Accum> {
  using Input = const In*;
  using Transform = F;
  __device__ static Input input(const TransformReader<In, Accum, F>& r) { return r.data; }
  __device__ static Transform transform(const TransformReader<In, Accum, F>& r) {
    return r.transform;
  }
};
template <class It, class Accum, class F>
struct CubView<IteratorReader<It, Accum, F>, Accum> {
  using Input = It;
  using Transform = F;
  __device__ static Input input(const IteratorReader<It, Accum, F>& r) { return r.data; }
  __device__ static Transform transform(const IteratorReader<It, Accum, F>& r) {
    return r.transform;
  }
};

// The kernel whose occupancy CUB uses to size its grid; we size ours from the same number.
template <class Reader, class Accum, class Op>
constexpr auto cub_first_pass_kernel = cub::detail::reduce::DeviceReduceKernel<
    typename CubPolicyHub<Accum, Op>::MaxPolicy, typename CubView<Reader, Accum>::Input, CubOffset,
    Op, Accum, typename CubView<Reader, Accum>::Transform>;

// The sm_XY policy CUB would pick on the current device, read on the host.
struct CubPolicyInfo {
  int block_threads = 0;
  int tile_items = 0;
};
struct CapturePolicy {
  CubPolicyInfo* info;
  template <class ActivePolicy>
  cudaError_t Invoke() {
    info->block_threads = ActivePolicy::ReducePolicy::BLOCK_THREADS;
    info->tile_items =
        ActivePolicy::ReducePolicy::BLOCK_THREADS * ActivePolicy::ReducePolicy::ITEMS_PER_THREAD;
    return cudaSuccess;
  }
};
template <class Accum, class Op>
cudaError_t cub_policy_info(CubPolicyInfo& info) {
  int ptx_version = 0;
  cudaError_t error = cub::PtxVersion(ptx_version);
  if (error != cudaSuccess) return error;
  CapturePolicy capture{&info};
  return CubPolicyHub<Accum, Op>::MaxPolicy::Invoke(ptx_version, capture);
}

struct CubBlockRung : RungDefaults<CubBlockRung> {
  // CUB sizes the grid for its kernel's 8 blocks of 256 threads per SM (32 registers); left free,
  // ours took 40 registers (6 blocks): the same grid in more waves, slower. Sums ask for CUB's
  // occupancy; the NaN-aware Min/Max of 16-bit floats would spill there and get 4 blocks, 64
  // registers (docs/tuning.md, 'cub_block occupancy').
  template <class Op>
  static constexpr int min_blocks_per_sm() { return is_sum_op_v<Op> ? 8 : 4; }
  static std::size_t shared_bytes(int, std::size_t) { return 0; }  // CUB's TempStorage is static
  static constexpr bool kReadsPartialsByIndex = false;  // CUB's agent loads them as an array

  template <int BLOCK, class Accum, class Reader, class Op>
  __device__ static Accum reduce(Reader read, std::int64_t n, std::int64_t rank,
                                 std::int64_t blocks, Op op, Accum*, Accum*) {
    using ActivePolicy = typename CubPolicyHub<Accum, Op>::MaxPolicy::ActivePolicy;
    if constexpr (!is_partials_reader_v<Reader>) {
      // DeviceReduceKernel's body; ConsumeTiles maps tiles by blockIdx.x, which is `rank` here.
      using View = CubView<Reader, Accum>;
      using Agent =
          cub::detail::reduce::AgentReduce<typename ActivePolicy::ReducePolicy, typename View::Input,
                                           Accum*, CubOffset, Op, Accum, typename View::Transform>;
      __shared__ typename Agent::TempStorage temp_storage;
      // The host launched min(tiles, max_blocks) blocks; DispatchInit with max_blocks = grid
      // reproduces the host's even share exactly.
      cub::GridEvenShare<CubOffset> even_share;
      even_share.DispatchInit(CubOffset(n), int(blocks), Agent::TILE_ITEMS);
      (void)rank;
      return Agent(temp_storage, View::input(read), op, View::transform(read))
          .ConsumeTiles(even_share);
    } else {
      // DeviceReduceSingleTileKernel's body over the partials (int offsets, as CUB uses).
      using Agent =
          cub::detail::reduce::AgentReduce<CoherentLoadPolicy<typename ActivePolicy::SingleTilePolicy>,
                                           const Accum*, Accum*, int, Op, Accum>;
      __shared__ typename Agent::TempStorage temp_storage;
      (void)rank;
      (void)blocks;
      return Agent(temp_storage, read.data, op).ConsumeRange(0, int(n));
    }
  }
};

}  // namespace gpureduce::detail
