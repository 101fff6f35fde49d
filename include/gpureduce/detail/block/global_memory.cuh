// Seed 004 R0 (in-place reduction in global memory): pairs are added in a global buffer.
// Fixes nothing: it is the floor of the ladder, every step a round trip to L2. It works on a
// per-block scratch copy in temp storage, so the caller's input is never written.
#pragma once

#include "rung_base.cuh"
#include "tile_loop.cuh"

namespace gpureduce::detail {

struct GlobalMemoryRung : RungDefaults<GlobalMemoryRung> {
  static constexpr bool kUsesGlobalScratch = true;
  static std::size_t shared_bytes(int, std::size_t) { return 0; }

  template <int BLOCK, class Accum, class Reader, class Op>
  __device__ static Accum reduce(Reader read, std::int64_t n, std::int64_t rank,
                                 std::int64_t blocks, Op op, Accum* /*shared*/,
                                 Accum* block_scratch) {
    auto tree = [](Accum* buffer, int valid, Op op_) { interleaved_steps(buffer, valid, op_); };
    return reduce_tiles<1>(read, n, rank, blocks, op, block_scratch, tree);
  }
};

}  // namespace gpureduce::detail
