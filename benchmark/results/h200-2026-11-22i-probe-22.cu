// Probe run 22 (2026-11-22i): probe run 21's collector (C2) beat the ticket (G1) by 0.15-0.17 us,
// but C1, the same collector with an empty spin loop, lost by 0.15: the difference between C1 and C2
// is the shape of the loop (C1's SASS: load, YIELD, test, branch back; C2's: the first load peeled
// off, the loop with its YIELD taken only on a re-poll). So each combine here in three loop shapes:
// "loop" (while ((w = load()) has no flag) {}), "peeled" (w = load(); while (w has no flag) w =
// load();) and "peeled+red" (probe 21's C2, a counting atomic in the re-poll loop), for the ticket
// and the collector; and the library's own kernel (automatic, zeroed storage) at the same sizes.
// Build from the repository root:
//   nvcc -std=c++17 -O3 -arch=sm_90 -Iinclude -Ibenchmark/results -I<build dir> -o probe22
//     benchmark/results/h200-2026-11-22i-probe-22.cu <build dir>/libgpureduce.a
#define main probe17_main
#include "h200-2026-11-22i-probe-17.cu"
#undef main

__device__ unsigned g_repolls;
enum Shape { kLoop, kPeeled, kPeeledRed };

template <int kShape> __device__ __forceinline__ unsigned long long wait_flag(const unsigned long long* p) {
  unsigned long long w;
  if constexpr (kShape == kLoop) {
    while (((w = ld_relaxed(p)) >> 32) == 0) {}
  } else {
    w = ld_relaxed(p);
    while ((w >> 32) == 0) {
      if constexpr (kShape == kPeeledRed) atomicAdd(&g_repolls, 1u);
      w = ld_relaxed(p);
    }
  }
  return w;
}

// kCollector false: flagged slots + relaxed ticket (the library's way). true: the last block to
// start folds (probe 21).
template <bool kCollector, int kShape, int B> __global__ void __launch_bounds__(B) k_comb(const float* in, long long n, unsigned long long* slots, unsigned* counter, float* out) {
  pdl();
  unsigned order = 0;
  if (kCollector && threadIdx.x == 0) {
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> c(counter[2]);
    order = c.fetch_add(1, cuda::memory_order_relaxed);
  }
  const float s = read_sum_u<float, B, 4>(in, n);
  __shared__ bool folder;
  __shared__ float own;
  if (threadIdx.x == 0) {
    own = s;
    if constexpr (kCollector) {
      folder = order == gridDim.x - 1;
      if (!folder) st_relaxed(slots + blockIdx.x, (1ull << 32) | __float_as_uint(s));
    } else {
      st_relaxed(slots + blockIdx.x, (1ull << 32) | __float_as_uint(s));
      cuda::atomic_ref<unsigned, cuda::thread_scope_device> c(counter[0]);
      folder = c.fetch_add(1, cuda::memory_order_relaxed) == gridDim.x - 1;
    }
  }
  __syncthreads();
  if (!folder) return;
  float t = 0;
  for (int i = threadIdx.x; i < gridDim.x; i += B) {
    if (kCollector && i == int(blockIdx.x)) { t += own; continue; }
    t += __uint_as_float(unsigned(wait_flag<kShape>(slots + i)));
    slots[i] = 0;
  }
  t = block_sum_t<float, B>(t);
  if (threadIdx.x == 0) { *out = t; counter[kCollector ? 2 : 0] = 0; }
}

void combos(long long n, int grid) {
  Bufs b; const size_t bytes = n * sizeof(float);
  CK(cudaMalloc(&b.in, bytes)); CK(cudaMalloc(&b.out, 64)); CK(cudaMalloc(&b.slots, 1 << 16)); CK(cudaMemset(b.slots, 0, 1 << 16));
  CK(cudaMalloc(&b.counter, 256)); CK(cudaMemset(b.counter, 0, 256)); CK(cudaMalloc(&b.partials, 1 << 16));
  std::vector<float> h(n); std::mt19937_64 r(22); for (float& x : h) x = float(int(r() % 2001) - 1000) / 8;
  CK(cudaMemcpy(b.in, h.data(), bytes, cudaMemcpyHostToDevice));
  const float* in = static_cast<const float*>(b.in); float* out = static_cast<float*>(b.out);
  size_t cb = 0; void* ct; CK(cub::DeviceReduce::Sum(nullptr, cb, in, out, n, S)); CK(cudaMalloc(&ct, cb));
  Call cub = [=] { size_t t = cb; return cub::DeviceReduce::Sum(ct, t, in, out, n, S); };
  CK(cub()); CK(cudaStreamSynchronize(S)); float ref; CK(cudaMemcpy(&ref, out, sizeof(float), cudaMemcpyDeviceToHost));
  const double gc = std::min(graph_us(cub), graph_us(cub));
  void* lt; size_t lb = 64 << 20; CK(cudaMalloc(&lt, lb)); CK(cudaMemset(lt, 0, lb));
  gpureduce::Options z; z.temp_storage_zeroed = true;
  gpureduce::LaunchPlan plan; CK(gpureduce::DeviceReduce::PlanSum<float, float>(plan, in, n, z, S));
  printf("\n== graph f32 n=%lld, %dx256 (library zeroed plan %dx%d): CUB %.3f us per reduction\n", n, grid, plan.grid_blocks, plan.block_threads, gc);
  for (int rep = 0; rep < 2; ++rep) {
    check_row<float>("library zeroed", [=] { size_t t = lb; return gpureduce::DeviceReduce::Sum<float, float>(lt, t, in, out, n, S, z); }, b, ref, n, gc);
    check_row<float>("ticket, loop", [=] { return ex(k_comb<false, kLoop, 256>, grid, 256, in, n, b.slots, b.counter, out); }, b, ref, n, gc);
    check_row<float>("ticket, peeled", [=] { return ex(k_comb<false, kPeeled, 256>, grid, 256, in, n, b.slots, b.counter, out); }, b, ref, n, gc);
    check_row<float>("ticket, peeled+red", [=] { return ex(k_comb<false, kPeeledRed, 256>, grid, 256, in, n, b.slots, b.counter, out); }, b, ref, n, gc);
    check_row<float>("collector, loop", [=] { return ex(k_comb<true, kLoop, 256>, grid, 256, in, n, b.slots, b.counter, out); }, b, ref, n, gc);
    check_row<float>("collector, peeled", [=] { return ex(k_comb<true, kPeeled, 256>, grid, 256, in, n, b.slots, b.counter, out); }, b, ref, n, gc);
    unsigned zero = 0; CK(cudaMemcpyToSymbol(g_repolls, &zero, 4));
    check_row<float>("collector, peeled+red", [=] { return ex(k_comb<true, kPeeledRed, 256>, grid, 256, in, n, b.slots, b.counter, out); }, b, ref, n, gc);
    unsigned rp = 0; CK(cudaMemcpyFromSymbol(&rp, g_repolls, 4));
    printf("     (re-polls counted in the two peeled+red rows: %u)\n", rp);
  }
  cudaFree(b.in); cudaFree(b.out); cudaFree(b.slots); cudaFree(b.counter); cudaFree(b.partials); cudaFree(ct); cudaFree(lt);
}

int main() {
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking)); cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("%s\n", prop.name);
  combos(1 << 16, 32);
  combos(1 << 20, 128);
  combos(1 << 21, 256);
  printf("done\n");
}
