// Seed 003 "unrolling 2/4/8 blocks", 004 R7: a fixed grid sized to fill the GPU once, each thread
// summing many elements (two per iteration, a block apart) before the unrolled tree of R6.
// Fixes the per-tile tree and the many tiny blocks of R1-R6: the tree now runs once per block.
#pragma once

#include "complete_unroll.cuh"
#include "rung_base.cuh"
#include "thread_accumulate.cuh"

namespace gpureduce::detail {

struct MultiElementRung : RungDefaults<MultiElementRung> {
  static constexpr int kLoadsPerThread = 2;

  template <int BLOCK, class Accum, class Reader, class Op>
  __device__ static Accum reduce(Reader read, std::int64_t n, std::int64_t rank,
                                 std::int64_t blocks, Op op, Accum* shared, Accum*) {
    const ThreadAggregate<Accum> mine = accumulate_grid_stride<kLoadsPerThread, Accum>(read, n, rank, blocks, op);
    if (int(threadIdx.x) < mine.valid_threads) shared[threadIdx.x] = mine.value;
    __syncthreads();
    unrolled_tree<BLOCK>(shared, mine.valid_threads, op);
    return shared[0];
  }
};

}  // namespace gpureduce::detail
