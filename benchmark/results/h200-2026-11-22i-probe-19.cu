// Probe run 19 (2026-11-22i): where the flagged combine's time goes, against the counted word.
// At 2^20 floats over 128 x 256 inside graphs (probe run 17) the read loop alone took 1.58 us, with
// flagged slots 2.39 and (ints) with the counted word 1.81. Variants of the flagged kernel, each
// dropping one step: F1 as the library does it; F2 the last block's fold by warp 0 alone (loads
// and shuffles, no shared memory or barrier); F3 the ticket only (no slot store or read: the last
// block writes its own partial, result not checked); F4 slot store + ticket, the last block reads
// its slots but thread 0 alone folds them in a loop; F5 no __syncthreads after the ticket (thread 0
// of the last block reads all slots itself and folds them). Float sums of small integers / 8: every
// order gives the same exact sum here, so all but F3 are checked.
// Build from the repository root:
//   nvcc -std=c++17 -O3 -arch=sm_90 -Iinclude -Ibenchmark/results -I<build dir> -o probe19
//     benchmark/results/h200-2026-11-22i-probe-19.cu <build dir>/libgpureduce.a
#define main probe17_main
#include "h200-2026-11-22i-probe-17.cu"
#undef main

template <int V, int B> __global__ void __launch_bounds__(B) k_var(const float* in, long long n, unsigned long long* slots, unsigned* counter, float* out) {
  pdl();
  const float s = read_sum_u<float, B, 4>(in, n);
  __shared__ bool last;
  if constexpr (V == 1) { flagged_combine<float, B>(s, slots, counter, out); return; }
  if (threadIdx.x == 0) {
    if (V != 3) st_relaxed(slots + blockIdx.x, (1ull << 32) | __float_as_uint(s));
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> c(*counter);
    const bool is_last = c.fetch_add(1, cuda::memory_order_relaxed) == gridDim.x - 1;
    if constexpr (V == 3) { if (is_last) { *out = s; *counter = 0; } return; }
    if constexpr (V == 5) {
      if (!is_last) return;
      float t = 0;
      for (unsigned i = 0; i < gridDim.x; ++i) { unsigned long long w; while (((w = ld_relaxed(slots + i)) >> 32) == 0) {} t += __uint_as_float(unsigned(w)); slots[i] = 0; }
      *out = t; *counter = 0; return;
    }
    last = is_last;
  }
  if constexpr (V == 3 || V == 5) return;
  __syncthreads();
  if (!last) return;
  if constexpr (V == 2) {
    if (threadIdx.x >= 32) return;
    float t = 0;
    for (unsigned i = threadIdx.x; i < gridDim.x; i += 32) { unsigned long long w; while (((w = ld_relaxed(slots + i)) >> 32) == 0) {} t += __uint_as_float(unsigned(w)); slots[i] = 0; }
    for (int o = 16; o; o >>= 1) t += __shfl_down_sync(~0u, t, o);
    if (threadIdx.x == 0) { *out = t; *counter = 0; }
  } else if constexpr (V == 4) {
    if (threadIdx.x != 0) return;
    float t = 0;
    for (unsigned i = 0; i < gridDim.x; ++i) { unsigned long long w; while (((w = ld_relaxed(slots + i)) >> 32) == 0) {} t += __uint_as_float(unsigned(w)); slots[i] = 0; }
    *out = t; *counter = 0;
  }
}

void variants(long long n, int grid) {
  Bufs b; const size_t bytes = n * sizeof(float);
  CK(cudaMalloc(&b.in, bytes)); CK(cudaMalloc(&b.out, 64)); CK(cudaMalloc(&b.slots, 1 << 16)); CK(cudaMemset(b.slots, 0, 1 << 16));
  CK(cudaMalloc(&b.counter, 256)); CK(cudaMemset(b.counter, 0, 256)); CK(cudaMalloc(&b.partials, 1 << 16));
  std::vector<float> h(n); std::mt19937_64 r(19); for (float& x : h) x = float(int(r() % 2001) - 1000) / 8;
  CK(cudaMemcpy(b.in, h.data(), bytes, cudaMemcpyHostToDevice));
  const float* in = static_cast<const float*>(b.in); float* out = static_cast<float*>(b.out);
  size_t cb = 0; void* ct; CK(cub::DeviceReduce::Sum(nullptr, cb, in, out, n, S)); CK(cudaMalloc(&ct, cb));
  Call cub = [=] { size_t t = cb; return cub::DeviceReduce::Sum(ct, t, in, out, n, S); };
  CK(cub()); CK(cudaStreamSynchronize(S)); float ref; CK(cudaMemcpy(&ref, out, sizeof(float), cudaMemcpyDeviceToHost));
  const double gc = std::min(graph_us(cub), graph_us(cub));
  printf("\n== graph f32 n=%lld, %dx256: CUB %.3f us per reduction\n", n, grid, gc);
  for (int rep = 0; rep < 2; ++rep) {
    check_row<float>("F1 flagged (library's way)", [=] { return ex(k_var<1, 256>, grid, 256, in, n, b.slots, b.counter, out); }, b, ref, n, gc);
    check_row<float>("F2 fold by warp 0", [=] { return ex(k_var<2, 256>, grid, 256, in, n, b.slots, b.counter, out); }, b, ref, n, gc);
    check_row<float>("F3 ticket only (not a sum)", [=] { return ex(k_var<3, 256>, grid, 256, in, n, b.slots, b.counter, out); }, b, ref, n, gc);
    check_row<float>("F4 fold by thread 0", [=] { return ex(k_var<4, 256>, grid, 256, in, n, b.slots, b.counter, out); }, b, ref, n, gc);
    check_row<float>("F5 thread 0, no barrier", [=] { return ex(k_var<5, 256>, grid, 256, in, n, b.slots, b.counter, out); }, b, ref, n, gc);
    const double t = graph_us([=] { return ex(k_read_u<float, 256, 4>, grid, 256, in, n, static_cast<float*>(b.partials)); });
    printf("  read only                          %8.3f us\n", t);
  }
  cudaFree(b.in); cudaFree(b.out); cudaFree(b.slots); cudaFree(b.counter); cudaFree(b.partials); cudaFree(ct);
}

int main() {
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking)); cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("%s\n", prop.name);
  variants(1 << 16, 32);
  variants(1 << 20, 128);
  variants(1 << 21, 256);
  printf("done\n");
}
