// What every rung declares besides its device function `reduce`: how many elements a thread loads
// per iteration (which fixes how many blocks can have work), the shared memory it needs, whether
// it needs a global-memory scratch buffer, and its occupancy floor. (Rungs whose block size is a
// template parameter are routed by dispatch's TemplateBlockSizes; cub_block by its policy.)
#pragma once

#include <cstddef>
#include <cstdint>

#include "../device_memory.cuh"

namespace gpureduce::detail {

template <class Rung>
struct RungDefaults {
  static constexpr int kLoadsPerThread = 1;       // elements per thread per tile or iteration
  static constexpr bool kUsesGlobalScratch = false;
  // Whether the rung reads block partials only through its reader's operator(), each exactly
  // once (so last_block may hand them over in flagged slots, whose reader clears each slot as it
  // reads it: pipeline/flagged_slots.cuh), not as a plain array.
  static constexpr bool kReadsPartialsByIndex = true;
  // Whether the rung folds a partials array as "thread t combines partials t, t + threads, ...
  // in order, then the block's shuffle tree combines the threads that took one" (ShuffleRung's
  // plain path), so that with no more partials than threads, one read per thread into that tree
  // gives the same bits (fold_partials.cuh's short path).
  static constexpr bool kFoldsPartialsOnePerThread = false;
  // __launch_bounds__ occupancy floor, per operator.
  template <class Op>
  static constexpr int min_blocks_per_sm() { return 1; }

  // Blocks that can own work: with more, some block would have no element.
  static std::int64_t max_useful_blocks(std::int64_t n, int block_threads, std::uintptr_t,
                                        std::size_t) {
    const std::int64_t per_block = std::int64_t(block_threads) * Rung::kLoadsPerThread;
    return n <= 0 ? 1 : (n + per_block - 1) / per_block;
  }
  // Dynamic shared memory: one accumulator slot per thread (the tree rungs).
  static std::size_t shared_bytes(int block_threads, std::size_t accum_size) {
    return std::size_t(block_threads) * accum_size;
  }
};

// Rungs whose block reduction happens through shuffles need one slot per warp, plus a flag.
template <class Rung>
struct ShuffleRungDefaults : RungDefaults<Rung> {
  static std::size_t shared_bytes(int, std::size_t accum_size) {
    return kWarpThreads * (accum_size + 8);
  }
};

}  // namespace gpureduce::detail
