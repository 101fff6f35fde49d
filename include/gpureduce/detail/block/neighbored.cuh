// Seed 001 baseline, 003 reduceNeighbored, 004 R1-R2: the tile goes to shared memory and slot
// tid % (2s) == 0 adds slot tid + s. Fixes R0's global round trips; costs divergent warps and a
// slow modulo on every step.
#pragma once

#include "rung_base.cuh"
#include "tile_loop.cuh"

namespace gpureduce::detail {

struct NeighboredRung : RungDefaults<NeighboredRung> {
  template <int BLOCK, class Accum, class Reader, class Op>
  __device__ static Accum reduce(Reader read, std::int64_t n, std::int64_t rank,
                                 std::int64_t blocks, Op op, Accum* shared, Accum*) {
    auto tree = [](Accum* buffer, int valid, Op op_) { interleaved_steps(buffer, valid, op_); };
    return reduce_tiles<1>(read, n, rank, blocks, op, shared, tree);
  }
};

}  // namespace gpureduce::detail
