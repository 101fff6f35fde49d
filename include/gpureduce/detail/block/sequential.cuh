// Seed 000 optimized1, 001 sequential addressing, 003 reduceInterleaved, 004 R3: the lower half
// of the active slots adds the upper half (tid < s takes tid + s). Fixes the bank conflicts of
// `strided_index`: consecutive threads touch consecutive words. Costs: half the threads idle on
// the first step already.
#pragma once

#include "rung_base.cuh"
#include "tile_loop.cuh"

namespace gpureduce::detail {

struct SequentialRung : RungDefaults<SequentialRung> {
  template <int BLOCK, class Accum, class Reader, class Op>
  __device__ static Accum reduce(Reader read, std::int64_t n, std::int64_t rank,
                                 std::int64_t blocks, Op op, Accum* shared, Accum*) {
    auto tree = [](Accum* buffer, int valid, Op op_) { sequential_steps(buffer, valid, op_, 0); };
    return reduce_tiles<1>(read, n, rank, blocks, op, shared, tree);
  }
};

}  // namespace gpureduce::detail
