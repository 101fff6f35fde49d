// The loop shared by the seed's shared-memory-tree rungs (global_memory .. complete_unroll).
//
// A tile is blockDim.x * LOADS consecutive elements. Each thread loads LOADS of them (combining
// them as it loads when LOADS == 2: the "first add" of seed 004 R4), the rung's tree reduces the
// tile in `buffer`, and thread 0 folds the tile's total into the block's running aggregate. A block
// takes tiles rank, rank + blocks, ... so that any n works with a capped grid.
//
// The trees never need an identity element: only the first `valid` slots of the buffer hold
// values (always a prefix), and a pair is combined only when both of its slots are valid. That is
// what lets every rung serve any associative operator, as CUB's Reduce does.
#pragma once

#include <cstdint>

namespace gpureduce::detail {

// Precondition: the block owns at least one tile (rank < ceil(n / tile)). Result valid on thread 0.
template <int LOADS, class Accum, class Reader, class Op, class Tree>
__device__ __forceinline__ Accum reduce_tiles(Reader read, std::int64_t n, std::int64_t rank,
                                              std::int64_t blocks, Op op, Accum* buffer,
                                              Tree tree) {
  static_assert(LOADS == 1 || LOADS == 2, "a tile loads one or two elements per thread");
  const int tid = int(threadIdx.x);
  const int threads = int(blockDim.x);
  const std::int64_t tile_items = std::int64_t(threads) * LOADS;
  const std::int64_t num_tiles = (n + tile_items - 1) / tile_items;
  Accum aggregate{};
  for (std::int64_t tile = rank; tile < num_tiles; tile += blocks) {
    const std::int64_t base = tile * tile_items;
    const std::int64_t remaining = n - base;
    const int valid_items = remaining < tile_items ? int(remaining) : int(tile_items);
    const int valid = valid_items < threads ? valid_items : threads;  // slots holding a value
    if (tid < valid) {
      Accum value = read(base + tid);
      if (LOADS == 2 && tid + threads < valid_items) value = op(value, read(base + tid + threads));
      buffer[tid] = value;
    }
    __syncthreads();
    tree(buffer, valid, op);  // leaves the tile's total in buffer[0]
    if (tid == 0) aggregate = (tile == rank) ? buffer[0] : op(aggregate, buffer[0]);
    __syncthreads();  // the next tile overwrites the buffer
  }
  return aggregate;
}

// Interleaved pairs (seed 004 R0-R2): slot tid % (2s) == 0 takes slot tid + s; divergent by design.
// Shared by global_memory (buffer in global memory) and neighbored (buffer in shared memory).
template <class Accum, class Op>
__device__ __forceinline__ void interleaved_steps(Accum* buffer, int valid, Op op) {
  const int tid = int(threadIdx.x);
  for (int stride = 1; stride < int(blockDim.x); stride *= 2) {
    if (tid % (2 * stride) == 0 && tid + stride < valid) buffer[tid] = op(buffer[tid], buffer[tid + stride]);
    __syncthreads();  // for a global buffer this also makes the block's writes visible to the block
  }
}

// Sequential addressing (seed 004 R3): the lower half adds the upper half, halving each step.
// Shared by sequential, first_add and the upper steps of unroll_last_warp.
template <class Accum, class Op>
__device__ __forceinline__ void sequential_steps(Accum* buffer, int valid, Op op, int stop_at) {
  const int tid = int(threadIdx.x);
  for (int stride = int(blockDim.x) / 2; stride > stop_at; stride >>= 1) {
    if (tid < stride && tid + stride < valid) buffer[tid] = op(buffer[tid], buffer[tid + stride]);
    __syncthreads();
  }
}

// The last warp's steps (seed 004 R5) without __syncthreads. The seed relied on `volatile` and
// lock-step warps; since Volta a warp's lanes may diverge, so each step is separated by
// __syncwarp(), which also orders the shared-memory accesses, and only lanes tid < stride write,
// so no lane writes a slot another lane reads in the same step.
template <class Accum, class Op>
__device__ __forceinline__ void last_warp_steps(Accum* buffer, int valid, Op op, int first_stride) {
  const int tid = int(threadIdx.x);
  if (tid < 32) {
#pragma unroll
    for (int stride = 32; stride > 0; stride >>= 1) {
      if (stride <= first_stride) {
        if (tid < stride && tid + stride < valid) buffer[tid] = op(buffer[tid], buffer[tid + stride]);
        __syncwarp();
      }
    }
  }
  __syncthreads();
}

}  // namespace gpureduce::detail
