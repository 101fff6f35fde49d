// Seed 002's two atomic sums, as ladder rows of their own: the starting point the block-tree rungs
// are measured against. Sums only (seed 002 sums halves). Each call zeroes the output first
// (cudaMemsetAsync) and that memset is part of what the ladder times: a user must issue it too.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace gpureduce_bench {

// (a) One thread per element; every thread atomicAdd's its element into *d_out.
template <class In, class Out>
void atomic_every_thread_sum(const In* d_in, Out* d_out, std::int64_t n, cudaStream_t stream);

// (b) Seed 002's reduce_warp_global_kernel: lane 0 of each warp adds up, one after another, the 32
// elements of its warp's threads (grid-stride), then issues one atomicAdd: 32x fewer atomics.
template <class In, class Out>
void atomic_warp_lane_sum(const In* d_in, Out* d_out, std::int64_t n, cudaStream_t stream);

}  // namespace gpureduce_bench
