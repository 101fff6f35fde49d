// Seed 001 "completely unrolled", 003 template on block size, 004 R6: the block size is a template
// parameter, so every step of the tree (and the loop around it) is resolved at compile time.
// Fixes the loop and index arithmetic left in `unroll_last_warp`; costs one kernel per block size.
#pragma once

#include "rung_base.cuh"
#include "tile_loop.cuh"

namespace gpureduce::detail {

// The tree of a BLOCK-slot buffer with every stride known at compile time.
template <int BLOCK, class Accum, class Op>
__device__ __forceinline__ void unrolled_tree(Accum* buffer, int valid, Op op) {
  const int tid = int(threadIdx.x);
#pragma unroll
  for (int stride = BLOCK / 2; stride > 32; stride >>= 1) {
    if (tid < stride && tid + stride < valid) buffer[tid] = op(buffer[tid], buffer[tid + stride]);
    __syncthreads();
  }
  last_warp_steps(buffer, valid, op, BLOCK / 2);
}

struct CompleteUnrollRung : RungDefaults<CompleteUnrollRung> {
  static constexpr int kLoadsPerThread = 2;

  template <int BLOCK, class Accum, class Reader, class Op>
  __device__ static Accum reduce(Reader read, std::int64_t n, std::int64_t rank,
                                 std::int64_t blocks, Op op, Accum* shared, Accum*) {
    static_assert(BLOCK >= 32 && BLOCK <= 1024 && (BLOCK & (BLOCK - 1)) == 0, "BLOCK: 2^k in [32, 1024]");
    auto tree = [](Accum* buffer, int valid, Op op_) { unrolled_tree<BLOCK>(buffer, valid, op_); };
    return reduce_tiles<2>(read, n, rank, blocks, op, shared, tree);
  }
};

}  // namespace gpureduce::detail
