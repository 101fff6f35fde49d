// Probe run 20 (2026-11-22i): the flagged combine's unexplained ~0.35 us (probe run 19), split
// further. At 2^16 / 2^20 / 2^21 floats inside graphs: G1 the library's way (slot store, relaxed
// ticket, barrier, block fold over the slots); G2 slot store + ticket, the last block writes its
// own partial (no slot read: not a sum); G3 the ticket issued before the slot store; G4 as G1 with
// one load per slot and no spin loop (the flags checked after: a count of unflagged slots is
// kept); G5 as G1 without clearing the slots (the flag alternates between two values by replay
// parity instead: each graph holds 100 reductions, an even number, so the parity is per reduction);
// G6-G8 as G1 with the slots 32, 64 or 128 bytes apart (G9: 8, as G1, the same kernel); G10 as G9
// without clearing the slots (run 20b; valid only here, where every replay stores the same values).
// Build from the repository root:
//   nvcc -std=c++17 -O3 -arch=sm_90 -Iinclude -Ibenchmark/results -I<build dir> -o probe20
//     benchmark/results/h200-2026-11-22i-probe-20.cu <build dir>/libgpureduce.a
#define main probe17_main
#include "h200-2026-11-22i-probe-17.cu"
#undef main

__device__ unsigned g_unflagged;

// G6-G8: G1 with each slot alone in STRIDE 8-byte words (32, 64 or 128 bytes apart), so the blocks'
// slot stores do not share a sector or line.
template <int STRIDE, int B, bool kClear = true> __global__ void __launch_bounds__(B) k_pad(const float* in, long long n, unsigned long long* slots, unsigned* counter, float* out) {
  pdl();
  const float s = read_sum_u<float, B, 4>(in, n);
  __shared__ bool last;
  if (threadIdx.x == 0) {
    st_relaxed(slots + blockIdx.x * STRIDE, (1ull << 32) | __float_as_uint(s));
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> c(*counter);
    last = c.fetch_add(1, cuda::memory_order_relaxed) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  float t = 0;
  for (int i = threadIdx.x; i < gridDim.x; i += B) {
    unsigned long long w;
    while (((w = ld_relaxed(slots + i * STRIDE)) >> 32) == 0) {}
    t += __uint_as_float(unsigned(w));
    if constexpr (kClear) slots[i * STRIDE] = 0;
  }
  t = block_sum_t<float, B>(t);
  if (threadIdx.x == 0) { *out = t; *counter = 0; }
}

template <int V, int B> __global__ void __launch_bounds__(B) k_g(const float* in, long long n, unsigned long long* slots, unsigned* counter, float* out) {
  pdl();
  const float s = read_sum_u<float, B, 4>(in, n);
  __shared__ bool last;
  __shared__ unsigned long long flag;
  if (threadIdx.x == 0) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> c(*counter);
    unsigned long long f = 1ull << 32;
    if constexpr (V == 5) f = (counter[1] & 1) ? (2ull << 32) : (1ull << 32);  // per-reduction parity
    flag = f;
    bool is_last;
    if constexpr (V == 3) {
      is_last = c.fetch_add(1, cuda::memory_order_relaxed) == gridDim.x - 1;
      st_relaxed(slots + blockIdx.x, f | __float_as_uint(s));
    } else {
      st_relaxed(slots + blockIdx.x, f | __float_as_uint(s));
      is_last = c.fetch_add(1, cuda::memory_order_relaxed) == gridDim.x - 1;
    }
    if constexpr (V == 2) { if (is_last) { *out = s; *counter = 0; } return; }
    last = is_last;
  }
  if constexpr (V == 2) return;
  __syncthreads();
  if (!last) return;
  float t = 0;
  for (int i = threadIdx.x; i < gridDim.x; i += B) {
    unsigned long long w;
    if constexpr (V == 4) {
      w = ld_relaxed(slots + i);
      if ((w >> 32) == 0) atomicAdd(&g_unflagged, 1u);
      slots[i] = 0;
    } else if constexpr (V == 5) {
      while ((w = ld_relaxed(slots + i)) >> 32 != flag >> 32) {}
    } else {
      while (((w = ld_relaxed(slots + i)) >> 32) == 0) {}
      slots[i] = 0;
    }
    t += __uint_as_float(unsigned(w));
  }
  t = block_sum_t<float, B>(t);
  if (threadIdx.x == 0) { *out = t; counter[0] = 0; if constexpr (V == 5) counter[1] += 1; }
}

void variants(long long n, int grid) {
  Bufs b; const size_t bytes = n * sizeof(float);
  CK(cudaMalloc(&b.in, bytes)); CK(cudaMalloc(&b.out, 64)); CK(cudaMalloc(&b.slots, 1 << 16)); CK(cudaMemset(b.slots, 0, 1 << 16));
  unsigned long long* wide; CK(cudaMalloc(&wide, 1 << 20)); CK(cudaMemset(wide, 0, 1 << 20));
  CK(cudaMalloc(&b.counter, 256)); CK(cudaMemset(b.counter, 0, 256)); CK(cudaMalloc(&b.partials, 1 << 16));
  std::vector<float> h(n); std::mt19937_64 r(20); for (float& x : h) x = float(int(r() % 2001) - 1000) / 8;
  CK(cudaMemcpy(b.in, h.data(), bytes, cudaMemcpyHostToDevice));
  const float* in = static_cast<const float*>(b.in); float* out = static_cast<float*>(b.out);
  size_t cb = 0; void* ct; CK(cub::DeviceReduce::Sum(nullptr, cb, in, out, n, S)); CK(cudaMalloc(&ct, cb));
  Call cub = [=] { size_t t = cb; return cub::DeviceReduce::Sum(ct, t, in, out, n, S); };
  CK(cub()); CK(cudaStreamSynchronize(S)); float ref; CK(cudaMemcpy(&ref, out, sizeof(float), cudaMemcpyDeviceToHost));
  const double gc = std::min(graph_us(cub), graph_us(cub));
  printf("\n== graph f32 n=%lld, %dx256: CUB %.3f us per reduction\n", n, grid, gc);
  for (int rep = 0; rep < 2; ++rep) {
    check_row<float>("G1 flagged (library's way)", [=] { return ex(k_g<1, 256>, grid, 256, in, n, b.slots, b.counter, out); }, b, ref, n, gc);
    check_row<float>("G2 store + ticket, no read", [=] { return ex(k_g<2, 256>, grid, 256, in, n, b.slots, b.counter, out); }, b, ref, n, gc);
    CK(cudaMemset(b.slots, 0, 1 << 16));
    check_row<float>("G3 ticket before store", [=] { return ex(k_g<3, 256>, grid, 256, in, n, b.slots, b.counter, out); }, b, ref, n, gc);
    unsigned zero = 0; CK(cudaMemcpyToSymbol(g_unflagged, &zero, 4));
    check_row<float>("G4 one load, no spin", [=] { return ex(k_g<4, 256>, grid, 256, in, n, b.slots, b.counter, out); }, b, ref, n, gc);
    unsigned unflagged = 0; CK(cudaMemcpyFromSymbol(&unflagged, g_unflagged, 4));
    printf("     (G4: %u slots read before their flag, over all its reductions)\n", unflagged);
    CK(cudaMemset(b.slots, 0, 1 << 16)); CK(cudaMemset(b.counter, 0, 256));
    check_row<float>("G5 no clearing (flag parity)", [=] { return ex(k_g<5, 256>, grid, 256, in, n, b.slots, b.counter, out); }, b, ref, n, gc);
    CK(cudaMemset(b.slots, 0, 1 << 16)); CK(cudaMemset(b.counter, 0, 256));
    check_row<float>("G6 slots 32 B apart", [=] { return ex(k_pad<4, 256>, grid, 256, in, n, wide, b.counter, out); }, b, ref, n, gc);
    check_row<float>("G7 slots 64 B apart", [=] { return ex(k_pad<8, 256>, grid, 256, in, n, wide, b.counter, out); }, b, ref, n, gc);
    check_row<float>("G8 slots 128 B apart", [=] { return ex(k_pad<16, 256>, grid, 256, in, n, wide, b.counter, out); }, b, ref, n, gc);
    check_row<float>("G9 slots 8 B apart (as G1)", [=] { return ex(k_pad<1, 256>, grid, 256, in, n, wide, b.counter, out); }, b, ref, n, gc);
    check_row<float>("G10 as G9, slots never cleared", [=] { return ex(k_pad<1, 256, false>, grid, 256, in, n, wide, b.counter, out); }, b, ref, n, gc);
    CK(cudaMemset(wide, 0, 1 << 20));
    const double t = graph_us([=] { return ex(k_read_u<float, 256, 4>, grid, 256, in, n, static_cast<float*>(b.partials)); });
    printf("  read only                          %8.3f us\n", t);
  }
  cudaFree(b.in); cudaFree(b.out); cudaFree(b.slots); cudaFree(b.counter); cudaFree(b.partials); cudaFree(ct); cudaFree(wide);
}

int main() {
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking)); cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("%s\n", prop.name);
  variants(1 << 16, 32);
  variants(1 << 20, 128);
  variants(1 << 21, 256);
  printf("done\n");
}
