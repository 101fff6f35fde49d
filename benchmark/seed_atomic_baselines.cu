// Seed 002 (summing halves with atomics): per-thread atomicAdd, then one lane per warp. Kept as
// written in the seed apart from 64-bit indices and a loop that is correct for any n (the seed's
// (n - idx) underflows for threads past the end).
#include "seed_atomic_baselines.hpp"

#include <cuda_fp16.h>

#include "cuda_check.hpp"

namespace gpureduce_bench {

namespace {

constexpr int kBlockThreads = 256;  // the seed's block size

template <class In, class Out>
__global__ void atomic_every_thread_kernel(const In* in, Out* out, std::int64_t n) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, static_cast<Out>(in[i]));
}

template <class In, class Out>
__global__ void atomic_warp_lane_kernel(const In* in, Out* out, std::int64_t n) {
  const std::int64_t idx = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (threadIdx.x % 32 != 0) return;  // lane 0 works for its whole warp
  const std::int64_t step = std::int64_t(gridDim.x) * blockDim.x;
  Out warp_sum = Out(0);
  for (std::int64_t base = idx; base < n; base += step)
    for (int lane = 0; lane < 32; ++lane)
      if (base + lane < n) warp_sum += static_cast<Out>(in[base + lane]);
  atomicAdd(out, warp_sum);
}

// One thread per element, as in the seed (so (b)'s grid-stride loop runs once per lane 0).
unsigned grid_for(std::int64_t n) {
  const std::int64_t blocks = (n + kBlockThreads - 1) / kBlockThreads;
  if (blocks > 0x7fffffff) throw CudaFailure("seed 002 baselines: n too large for a 1-D grid");
  return unsigned(blocks > 0 ? blocks : 1);
}

}  // namespace

template <class In, class Out>
void atomic_every_thread_sum(const In* d_in, Out* d_out, std::int64_t n, cudaStream_t stream) {
  BENCH_CUDA_CHECK(cudaMemsetAsync(d_out, 0, sizeof(Out), stream));
  atomic_every_thread_kernel<<<grid_for(n), kBlockThreads, 0, stream>>>(d_in, d_out, n);
  BENCH_CHECK_LAUNCH("atomic_every_thread_kernel");
}

template <class In, class Out>
void atomic_warp_lane_sum(const In* d_in, Out* d_out, std::int64_t n, cudaStream_t stream) {
  BENCH_CUDA_CHECK(cudaMemsetAsync(d_out, 0, sizeof(Out), stream));
  atomic_warp_lane_kernel<<<grid_for(n), kBlockThreads, 0, stream>>>(d_in, d_out, n);
  BENCH_CHECK_LAUNCH("atomic_warp_lane_kernel");
}

#define GPUREDUCE_BENCH_ATOMIC(In, Out)                                                           \
  template void atomic_every_thread_sum<In, Out>(const In*, Out*, std::int64_t, cudaStream_t); \
  template void atomic_warp_lane_sum<In, Out>(const In*, Out*, std::int64_t, cudaStream_t);
GPUREDUCE_BENCH_ATOMIC(float, float)
GPUREDUCE_BENCH_ATOMIC(double, double)
GPUREDUCE_BENCH_ATOMIC(std::int32_t, std::int32_t)
GPUREDUCE_BENCH_ATOMIC(__half, float)
#undef GPUREDUCE_BENCH_ATOMIC

}  // namespace gpureduce_bench
