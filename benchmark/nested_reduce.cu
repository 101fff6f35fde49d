// Seed 003's nested reduce (the book's gpuRecursiveReduce): the GPU launches the next step of the
// reduction itself. The book's version calls cudaDeviceSynchronize() in the kernel, which CUDA 12
// removed (CDP2), and its sync-free variant races with the other parent blocks. Here each level is
// a grid of seed-003 blocks (two loads per thread, interleaved tree in shared memory) writing block
// partials, and block 0 queues the next level with cudaStreamTailLaunch, which starts only after the
// whole parent grid has finished and its writes are visible. Correct for any n.
#include "nested_reduce.hpp"

#include <cuda_fp16.h>

#include "cuda_check.hpp"

namespace gpureduce_bench {

namespace {

constexpr int kBlockThreads = 256;
constexpr std::int64_t kTile = 2 * kBlockThreads;  // seed 003's reduceUnrolling2
constexpr std::size_t kAlign = 256;

constexpr std::size_t align_up(std::size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }
__host__ __device__ constexpr std::int64_t blocks_for(std::int64_t n) { return n <= kTile ? 1 : (n + kTile - 1) / kTile; }

struct ScratchLayout {
  std::size_t ping, pong, total;
};
template <class Out>
ScratchLayout layout(std::int64_t n) {
  const std::int64_t level1 = blocks_for(n);  // partials after the first level
  const std::int64_t level2 = blocks_for(level1);
  ScratchLayout l{};
  l.ping = kAlign;  // [0, kAlign): the status word
  l.pong = l.ping + align_up(std::size_t(level1) * sizeof(Out));
  l.total = l.pong + align_up(std::size_t(level2) * sizeof(Out));
  return l;
}

// One level: block b reduces elements [b*kTile, (b+1)*kTile) to partials[b]; with one block left
// it writes the answer instead. Levels ping-pong between two buffers; the next level is always at
// most 1/512 of this one, so it fits where the level after the first reads from.
template <class In, class Out>
__global__ void nested_level_kernel(const In* in, std::int64_t n, Out* partials, Out* other,
                                    Out* d_out, int* status) {
  __shared__ Out smem[kBlockThreads];
  const unsigned tid = threadIdx.x;
  const std::int64_t i = std::int64_t(blockIdx.x) * kTile + tid;
  Out v = Out(0);
  if (i < n) v = static_cast<Out>(in[i]);
  if (i + kBlockThreads < n) v += static_cast<Out>(in[i + kBlockThreads]);
  smem[tid] = v;
  __syncthreads();
  for (unsigned s = kBlockThreads / 2; s > 0; s >>= 1) {
    if (tid < s) smem[tid] += smem[tid + s];
    __syncthreads();
  }
  if (tid != 0) return;
  if (gridDim.x == 1) {
    *d_out = smem[0];
    return;
  }
  partials[blockIdx.x] = smem[0];
  if (blockIdx.x == 0) {
    // Nested launch: runs after every block of this grid has written its partial.
    const std::int64_t m = gridDim.x;
    nested_level_kernel<Out, Out><<<unsigned(blocks_for(m)), kBlockThreads, 0, cudaStreamTailLaunch>>>(
        partials, m, other, partials, d_out, status);
    const cudaError_t error = cudaGetLastError();
    if (error != cudaSuccess) atomicCAS(status, 0, int(error));
  }
}

}  // namespace

template <class Out>
std::size_t nested_reduce_scratch_bytes(std::int64_t n) {
  return layout<Out>(n).total;
}

template <class In, class Out>
void nested_reduce_sum(const In* d_in, Out* d_out, std::int64_t n, void* d_scratch,
                       cudaStream_t stream) {
  const ScratchLayout l = layout<Out>(n);
  auto* base = static_cast<unsigned char*>(d_scratch);
  auto* status = reinterpret_cast<int*>(base);
  BENCH_CUDA_CHECK(cudaMemsetAsync(status, 0, sizeof(int), stream));
  const std::int64_t blocks = blocks_for(n);
  if (blocks > 0x7fffffff) throw CudaFailure("nested reduce: n too large for a 1-D grid");
  nested_level_kernel<In, Out><<<unsigned(blocks), kBlockThreads, 0, stream>>>(
      d_in, n, reinterpret_cast<Out*>(base + l.ping), reinterpret_cast<Out*>(base + l.pong), d_out,
      status);
  BENCH_CHECK_LAUNCH("nested_level_kernel");
}

cudaError_t nested_reduce_status(const void* d_scratch) {
  int status = 0;
  BENCH_CUDA_CHECK(cudaMemcpy(&status, d_scratch, sizeof(int), cudaMemcpyDeviceToHost));
  return cudaError_t(status);
}

#define GPUREDUCE_BENCH_NESTED(In, Out)                                               \
  template void nested_reduce_sum<In, Out>(const In*, Out*, std::int64_t, void*, cudaStream_t);
GPUREDUCE_BENCH_NESTED(float, float)
GPUREDUCE_BENCH_NESTED(double, double)
GPUREDUCE_BENCH_NESTED(std::int32_t, std::int32_t)
GPUREDUCE_BENCH_NESTED(__half, float)
#undef GPUREDUCE_BENCH_NESTED
template std::size_t nested_reduce_scratch_bytes<float>(std::int64_t);
template std::size_t nested_reduce_scratch_bytes<double>(std::int64_t);
template std::size_t nested_reduce_scratch_bytes<std::int32_t>(std::int64_t);

}  // namespace gpureduce_bench
