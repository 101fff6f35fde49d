// Seed 001 "interleaved addressing #2", 003 reduceNeighboredLess: thread tid works on slot
// 2*s*tid, so the active threads are packed into the first warps. Fixes the divergence of
// `neighbored`; costs shared-memory bank conflicts (strides of 2s words).
#pragma once

#include "rung_base.cuh"
#include "tile_loop.cuh"

namespace gpureduce::detail {

struct StridedIndexRung : RungDefaults<StridedIndexRung> {
  template <int BLOCK, class Accum, class Reader, class Op>
  __device__ static Accum reduce(Reader read, std::int64_t n, std::int64_t rank,
                                 std::int64_t blocks, Op op, Accum* shared, Accum*) {
    auto tree = [](Accum* buffer, int valid, Op op_) {
      const int tid = int(threadIdx.x);
      for (int stride = 1; stride < int(blockDim.x); stride *= 2) {
        const int index = 2 * stride * tid;
        if (index + stride < valid) buffer[index] = op_(buffer[index], buffer[index + stride]);
        __syncthreads();
      }
    };
    return reduce_tiles<1>(read, n, rank, blocks, op, shared, tree);
  }
};

}  // namespace gpureduce::detail
