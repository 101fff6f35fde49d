// Seed 000 optimized3, 001 "unroll the last warp", 004 R5: once 32 or fewer slots are active, one
// warp finishes with __syncwarp instead of __syncthreads. Fixes the block-wide barriers (and the
// loop overhead) of the last five steps. Builds on `first_add` (two loads per thread).
#pragma once

#include "rung_base.cuh"
#include "tile_loop.cuh"

namespace gpureduce::detail {

struct UnrollLastWarpRung : RungDefaults<UnrollLastWarpRung> {
  static constexpr int kLoadsPerThread = 2;

  template <int BLOCK, class Accum, class Reader, class Op>
  __device__ static Accum reduce(Reader read, std::int64_t n, std::int64_t rank,
                                 std::int64_t blocks, Op op, Accum* shared, Accum*) {
    auto tree = [](Accum* buffer, int valid, Op op_) {
      sequential_steps(buffer, valid, op_, 32);
      last_warp_steps(buffer, valid, op_, int(blockDim.x) / 2);
    };
    return reduce_tiles<2>(read, n, rank, blocks, op, shared, tree);
  }
};

}  // namespace gpureduce::detail
