// Block reduction through warp shuffles (seed 000 / 004 R8): each warp folds its lanes with
// __shfl_down_sync, lane 0 of each warp parks the warp's total in shared memory, and warp 0 folds
// those. Only a prefix of the threads holds values; a lane combines its neighbour's value only if
// that neighbour holds one, so no identity element is needed. ArgMin/ArgMax pairs take the warp
// tree by key instead (arg_extremum_warp.cuh): the same answer, whatever the tree.
#pragma once

#include "../device_memory.cuh"
#include "arg_extremum_warp.cuh"

namespace gpureduce::detail {

template <class Accum, class Op>
__device__ __forceinline__ Accum warp_reduce_prefix(Accum value, int valid_lanes, Op op) {
  const int lane = int(threadIdx.x) & (kWarpThreads - 1);
  if constexpr (kWarpArgByKey<Op, Accum>) {
    return warp_arg_extremum<Op::kIsMin>(value, lane < valid_lanes);
  } else {
#pragma unroll
    for (int offset = kWarpThreads / 2; offset > 0; offset >>= 1) {
      Accum other = shuffle_down(value, offset);
      if (lane + offset < valid_lanes) value = op(value, other);
    }
    return value;
  }
}

// Lanes 0..31 all hold values: the same shuffles and adds as warp_reduce_prefix with 32 valid
// lanes, without its lane tests. A lane whose neighbour is past the warp's end adds garbage, but
// lane 0 never reads such a lane: at offset o it reads lane o, whose earlier adds all came from
// lanes below 32. So lane 0 gets the same bits.
template <class Accum, class Op>
__device__ __forceinline__ Accum warp_reduce_full(Accum value, Op op) {
  if constexpr (kWarpArgByKey<Op, Accum>) {
    return warp_arg_extremum<Op::kIsMin>(value, true);
  } else {
#pragma unroll
    for (int offset = kWarpThreads / 2; offset > 0; offset >>= 1)
      value = op(value, shuffle_down(value, offset));
    return value;
  }
}

// The block trees' second stage: after lane 0 of each warp holding values has parked its warp's
// total in `warp_totals`, warp 0 folds them (the first ceil(valid / 32)). Result on thread 0.
template <class Accum, class Op>
__device__ __forceinline__ Accum fold_warp_totals(Accum value, int valid, int warp, int lane,
                                                  Op op, Accum* warp_totals) {
  __syncthreads();
  const int valid_warps = (valid + kWarpThreads - 1) / kWarpThreads;
  if (warp == 0) {
    if (lane < valid_warps) value = warp_totals[lane];
    value = warp_reduce_prefix(value, valid_warps, op);
  }
  return value;
}

// `valid` threads (a prefix of the block, at least one) hold values. Result on thread 0.
// `warp_totals` is shared memory with room for one Accum per warp; warp 0 may still be reading it
// on return, so a caller that reuses it must pass a __syncthreads first. Every caller that reduces
// twice in one block already does: last_block's ticket barrier, grid_sync's grid barrier. A
// trailing barrier here would hold every warp until warp 0 has finished, for nothing.
template <class Accum, class Op>
__device__ __forceinline__ Accum block_reduce_shuffle(Accum value, int valid, Op op,
                                                      Accum* warp_totals) {
  const int tid = int(threadIdx.x);
  const int warp = tid / kWarpThreads;
  const int lane = tid % kWarpThreads;
  int warp_valid = valid - warp * kWarpThreads;
  warp_valid = warp_valid < 0 ? 0 : (warp_valid > kWarpThreads ? kWarpThreads : warp_valid);
  value = warp_reduce_prefix(value, warp_valid, op);
  if (lane == 0 && warp_valid > 0) warp_totals[warp] = value;
  return fold_warp_totals(value, valid, warp, lane, op, warp_totals);
}

// block_reduce_shuffle for a block whose every thread holds a value (blockDim.x a multiple of 32,
// as every block size here is): the same adds in the same order for thread 0 (warp_reduce_full
// says why), without the first stage's lane tests. Why it exists: those tests are on every block's
// path after its last load (docs/tuning.md, 'Full blocks').
template <class Accum, class Op>
__device__ __forceinline__ Accum block_reduce_shuffle_full(Accum value, Op op, Accum* warp_totals) {
  const int tid = int(threadIdx.x);
  const int warp = tid / kWarpThreads;
  const int lane = tid % kWarpThreads;
  value = warp_reduce_full(value, op);
  if (lane == 0) warp_totals[warp] = value;
  return fold_warp_totals(value, int(blockDim.x), warp, lane, op, warp_totals);
}

}  // namespace gpureduce::detail
