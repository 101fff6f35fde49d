// Probe run 21 (2026-11-22i): a collector instead of a ticket. Every block takes a "start order"
// from a counter as it starts (an atomic whose answer is needed only at the end, so it overlaps the
// data phase); the block that started last is the collector. Every block that started before it is
// resident or finished, so it may wait for their slots without risk of deadlock, and it needs no
// ticket at the end: it folds the flagged slots (its own partial from a register) in index order,
// the flagged path's order, as soon as they are there. Against G1 (the library's flagged slots and
// relaxed ticket: probe 17's k_flag_u) and the ticket-only lower bound (G2, not a sum), at 2^16 / 2^20 / 2^21 floats.
// Build from the repository root:
//   nvcc -std=c++17 -O3 -arch=sm_90 -Iinclude -Ibenchmark/results -I<build dir> -o probe21
//     benchmark/results/h200-2026-11-22i-probe-21.cu <build dir>/libgpureduce.a
#define main probe17_main
#include "h200-2026-11-22i-probe-17.cu"
#undef main

// The ticket alone (probe 19's F3, probe 20's G2): the last block writes its own partial.
template <int B> __global__ void __launch_bounds__(B) k_ticket_only(const float* in, long long n, unsigned* counter, float* out) {
  pdl();
  const float s = read_sum_u<float, B, 4>(in, n);
  if (threadIdx.x == 0) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> c(*counter);
    if (c.fetch_add(1, cuda::memory_order_relaxed) == gridDim.x - 1) { *out = s; *counter = 0; }
  }
}

__device__ unsigned g_polls;

template <int B, bool kCountPolls> __global__ void __launch_bounds__(B) k_collect(const float* in, long long n, unsigned long long* slots, unsigned* counter, float* out) {
  pdl();
  unsigned order = 0;
  if (threadIdx.x == 0) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> c(counter[2]);
    order = c.fetch_add(1, cuda::memory_order_relaxed);
  }
  const float s = read_sum_u<float, B, 4>(in, n);
  __shared__ bool collector;
  __shared__ float own;
  if (threadIdx.x == 0) {
    collector = order == gridDim.x - 1;
    own = s;
    if (!collector) st_relaxed(slots + blockIdx.x, (1ull << 32) | __float_as_uint(s));
  }
  __syncthreads();
  if (!collector) return;
  float t = 0;
  for (int i = threadIdx.x; i < gridDim.x; i += B) {
    if (i == int(blockIdx.x)) { t += own; continue; }
    unsigned long long w;
    while (((w = ld_relaxed(slots + i)) >> 32) == 0) { if constexpr (kCountPolls) atomicAdd(&g_polls, 1u); }
    t += __uint_as_float(unsigned(w));
    slots[i] = 0;
  }
  t = block_sum_t<float, B>(t);
  if (threadIdx.x == 0) { *out = t; counter[2] = 0; }
}

void collect(long long n, int grid) {
  Bufs b; const size_t bytes = n * sizeof(float);
  CK(cudaMalloc(&b.in, bytes)); CK(cudaMalloc(&b.out, 64)); CK(cudaMalloc(&b.slots, 1 << 16)); CK(cudaMemset(b.slots, 0, 1 << 16));
  CK(cudaMalloc(&b.counter, 256)); CK(cudaMemset(b.counter, 0, 256)); CK(cudaMalloc(&b.partials, 1 << 16));
  std::vector<float> h(n); std::mt19937_64 r(21); for (float& x : h) x = float(int(r() % 2001) - 1000) / 8;
  CK(cudaMemcpy(b.in, h.data(), bytes, cudaMemcpyHostToDevice));
  const float* in = static_cast<const float*>(b.in); float* out = static_cast<float*>(b.out);
  size_t cb = 0; void* ct; CK(cub::DeviceReduce::Sum(nullptr, cb, in, out, n, S)); CK(cudaMalloc(&ct, cb));
  Call cub = [=] { size_t t = cb; return cub::DeviceReduce::Sum(ct, t, in, out, n, S); };
  CK(cub()); CK(cudaStreamSynchronize(S)); float ref; CK(cudaMemcpy(&ref, out, sizeof(float), cudaMemcpyDeviceToHost));
  const double gc = std::min(graph_us(cub), graph_us(cub));
  printf("\n== graph f32 n=%lld, %dx256: CUB %.3f us per reduction\n", n, grid, gc);
  for (int rep = 0; rep < 2; ++rep) {
    check_row<float>("G1 flagged + ticket (library's way)", [=] { return ex(k_flag_u<float, 256, 4>, grid, 256, in, n, b.slots, b.counter, out); }, b, ref, n, gc);
    check_row<float>("G2 ticket only (not a sum)", [=] { return ex(k_ticket_only<256>, grid, 256, in, n, b.counter, out); }, b, ref, n, gc);
    CK(cudaMemset(b.slots, 0, 1 << 16)); CK(cudaMemset(b.counter, 0, 256));
    check_row<float>("C1 collector (last to start)", [=] { return ex(k_collect<256, false>, grid, 256, in, n, b.slots, b.counter, out); }, b, ref, n, gc);
    unsigned zero = 0; CK(cudaMemcpyToSymbol(g_polls, &zero, 4));
    check_row<float>("C2 collector, counting re-polls", [=] { return ex(k_collect<256, true>, grid, 256, in, n, b.slots, b.counter, out); }, b, ref, n, gc);
    unsigned polls = 0; CK(cudaMemcpyFromSymbol(&polls, g_polls, 4));
    printf("     (C2: %u re-polls over all its reductions, %.2f per reduction)\n", polls, polls / (2.0 * 25 * 100 + 3 * 100 * 2 + 1));
    const double t = graph_us([=] { return ex(k_read_u<float, 256, 4>, grid, 256, in, n, static_cast<float*>(b.partials)); });
    printf("  read only                          %8.3f us\n", t);
  }
  cudaFree(b.in); cudaFree(b.out); cudaFree(b.slots); cudaFree(b.counter); cudaFree(b.partials); cudaFree(ct);
}

int main() {
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking)); cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("%s\n", prop.name);
  collect(1 << 16, 32);
  collect(1 << 16, 64);
  collect(1 << 20, 128);
  collect(1 << 21, 256);
  collect(1 << 21, 128);
  printf("done\n");
}
