// Seed 000 optimized2, 001 "first add during load", 004 R4: each thread loads two elements a
// block apart and adds them before the tree. Fixes the idle half of `sequential`'s first step:
// a tile is twice as large for the same tree.
#pragma once

#include "rung_base.cuh"
#include "tile_loop.cuh"

namespace gpureduce::detail {

struct FirstAddRung : RungDefaults<FirstAddRung> {
  static constexpr int kLoadsPerThread = 2;

  template <int BLOCK, class Accum, class Reader, class Op>
  __device__ static Accum reduce(Reader read, std::int64_t n, std::int64_t rank,
                                 std::int64_t blocks, Op op, Accum* shared, Accum*) {
    auto tree = [](Accum* buffer, int valid, Op op_) { sequential_steps(buffer, valid, op_, 0); };
    return reduce_tiles<2>(read, n, rank, blocks, op, shared, tree);
  }
};

}  // namespace gpureduce::detail
