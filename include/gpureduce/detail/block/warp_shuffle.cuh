// Seed 000 "warp shuffle", 004 R8: R7's fixed grid and many elements per thread, then the block
// reduces through __shfl_down_sync instead of a shared-memory tree. Fixes the shared-memory
// traffic and most barriers of the tree: one barrier per block instead of log2(BLOCK).
#pragma once

#include "rung_base.cuh"
#include "shuffle_reduce.cuh"
#include "thread_accumulate.cuh"

namespace gpureduce::detail {

struct WarpShuffleRung : ShuffleRungDefaults<WarpShuffleRung> {
  static constexpr int kLoadsPerThread = 2;

  template <int BLOCK, class Accum, class Reader, class Op>
  __device__ static Accum reduce(Reader read, std::int64_t n, std::int64_t rank,
                                 std::int64_t blocks, Op op, Accum* shared, Accum*) {
    const ThreadAggregate<Accum> mine = accumulate_grid_stride<kLoadsPerThread, Accum>(read, n, rank, blocks, op);
    return block_reduce_shuffle(mine.value, mine.valid_threads, op, shared);
  }
};

}  // namespace gpureduce::detail
