// The per-thread loop of the rungs that keep a fixed grid (seed 004 R7 onwards): each thread folds
// LOADS elements a block apart per iteration and strides by the whole grid, so a block's tree runs
// once per launch instead of once per tile.
#pragma once

#include <cstdint>

#include "../ops.cuh"

namespace gpureduce::detail {

template <class Accum>
struct ThreadAggregate {
  Accum value;
  int valid_threads;  // threads of this block holding a value: always a prefix 0..valid_threads-1
};

// Each thread's items come in ascending index order (combine_in_order). Precondition: the block owns at least one element (rank * blockDim * LOADS < n).
template <int LOADS, class Accum, class Reader, class Op>
__device__ __forceinline__ ThreadAggregate<Accum> accumulate_grid_stride(
    Reader read, std::int64_t n, std::int64_t rank, std::int64_t blocks, Op op) {
  const std::int64_t threads = blockDim.x;
  const std::int64_t block_span = threads * LOADS;
  const std::int64_t grid_span = block_span * blocks;
  std::int64_t i = rank * block_span + threadIdx.x;
  Accum value{};
  if (i < n) {
    value = read(i);
#pragma unroll
    for (int k = 1; k < LOADS; ++k)
      if (i + k * threads < n) value = combine_in_order(op, value, read(i + k * threads));
    for (i += grid_span; i < n; i += grid_span) {
#pragma unroll
      for (int k = 0; k < LOADS; ++k)
        if (i + k * threads < n) value = combine_in_order(op, value, read(i + k * threads));
    }
  }
  const std::int64_t first_free = n - rank * block_span;
  const int valid = first_free < threads ? int(first_free) : int(threads);
  return {value, valid};
}

}  // namespace gpureduce::detail
