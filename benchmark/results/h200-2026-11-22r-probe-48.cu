// Probe run 48 (2026-11-22r): the per-call floor at 16K-1M items, paired call by call with CUB on
// one machine (ABBA, median of per-pair ratios), against the 16K-1M <= 0.45x target. In benchmark
// run h200-2026-11-22r CUB took 10.6-12.6 us per call there (9.3-10.4 in run q) and the benchmark's
// floor column (an empty kernel plus the bytes at DRAM bandwidth) fell to 0.43-0.49x CUB at
// 16K-256K. Here the real thing, not a sum of parts: minimal one-launch reductions launched
// directly with cudaLaunchKernelEx on zeroed storage (the harness's read loop; ints through the
// counted word, floats through flagged slots), an empty kernel, and the library (default Options
// and zeroed), each paired with CUB. Build from the repository root (library at ad7de70):
//   nvcc -std=c++17 -O3 -arch=sm_90 -Iinclude -Ibenchmark/results -o probe48
//     benchmark/results/h200-2026-11-22r-probe-48.cu <build dir>/libgpureduce.a
#include "h200-2026-11-22d-graph-probe-harness.cuh"

__device__ __forceinline__ unsigned long long atom_add_relaxed(unsigned long long* p, unsigned long long v) {
  unsigned long long old; asm volatile("atom.relaxed.gpu.global.add.u64 %0, [%1], %2;" : "=l"(old) : "l"(p), "l"(v) : "memory"); return old; }
// The harness's read loop on int4 vectors, then the counted word (a real int sum).
__global__ void __launch_bounds__(256) k_int_counted(const int4* v, long long nv, unsigned long long* word, int* out) {
  pdl();
  int s = 0; const long long stride = (long long)gridDim.x * 256; long long i = blockIdx.x * 256LL + threadIdx.x;
  for (; i + 3 * stride < nv; i += 4 * stride) { int4 a = __ldg(v + i), b = __ldg(v + i + stride), c = __ldg(v + i + 2 * stride), d = __ldg(v + i + 3 * stride);
    s += ((a.x + a.y) + (a.z + a.w)) + ((b.x + b.y) + (b.z + b.w)) + ((c.x + c.y) + (c.z + c.w)) + ((d.x + d.y) + (d.z + d.w)); }
  for (; i < nv; i += stride) { int4 a = __ldg(v + i); s += (a.x + a.y) + (a.z + a.w); }
  for (int o = 16; o; o >>= 1) s += __shfl_down_sync(~0u, s, o);
  __shared__ int sh[8]; if (threadIdx.x % 32 == 0) sh[threadIdx.x / 32] = s; __syncthreads();
  if (threadIdx.x != 0) return;
  for (int w = 1; w < 8; ++w) s += sh[w];
  const unsigned long long add = (1ull << 44) + (unsigned long long)(long long)s;
  const unsigned long long after = atom_add_relaxed(word, add) + add;
  const unsigned long long count = (after + (1ull << 43)) >> 44;
  if (count != gridDim.x) return;
  *out = int(after - (count << 44)); *word = 0;
}
template <class T> void rows(const char* tname, long long n) {
  T *in, *out; CK(cudaMalloc(&in, n * sizeof(T))); CK(cudaMalloc(&out, 64));
  std::vector<T> h(n); std::mt19937_64 r(48 + n); for (T& x : h) { int v = int(r() % 32) - 16; x = T(v >= 0 ? v + 1 : v); }
  CK(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  unsigned char* st; CK(cudaMalloc(&st, 1 << 20)); CK(cudaMemset(st, 0, 1 << 20));
  void* ct; size_t ctb = 0; CK(cub::DeviceReduce::Sum(nullptr, ctb, in, out, n, S)); CK(cudaMalloc(&ct, ctb));
  gpureduce::Options zo; zo.temp_storage_zeroed = true;
  size_t ltb = 0; CK(gpureduce::DeviceReduce::Sum(nullptr, ltb, in, out, n, S, zo)); void* lt; CK(cudaMalloc(&lt, ltb)); CK(cudaMemset(lt, 0, ltb));
  size_t ldb = 0; CK(gpureduce::DeviceReduce::Sum(nullptr, ldb, in, out, n, S)); void* ld; CK(cudaMalloc(&ld, ldb));
  CK(cudaDeviceSynchronize());
  gpureduce::LaunchPlan plan; CK(gpureduce::DeviceReduce::PlanSum<T, T>(plan, in, n, zo, S));
  const int g = plan.grid_blocks;
  Call cub = [=] { size_t x = ctb; return cub::DeviceReduce::Sum(ct, x, in, out, n, S); };
  std::vector<std::pair<std::string, Call>> as;
  as.push_back({"empty kernel", [=] { return ex(k_empty<32>, 1, 32, (float*)out); }});
  if constexpr (std::is_same_v<T, float>)
    as.push_back({"minimal one-launch (flagged slots)", [=] { return ex(k_flag<256>, g, 256, reinterpret_cast<const float4*>(in), (long long)(n / 4), reinterpret_cast<unsigned long long*>(st + 256), reinterpret_cast<unsigned*>(st), out); }});
  if constexpr (std::is_same_v<T, int>)
    as.push_back({"minimal one-launch (counted word)", [=] { return ex(k_int_counted, g, 256, reinterpret_cast<const int4*>(in), (long long)(n / 4), reinterpret_cast<unsigned long long*>(st), out); }});
  as.push_back({"library automatic, default", [=] { size_t x = ldb; return gpureduce::DeviceReduce::Sum(ld, x, in, out, n, S); }});
  as.push_back({"library automatic, zeroed", [=] { size_t x = ltb; return gpureduce::DeviceReduce::Sum(lt, x, in, out, n, S, zo); }});
  CK(cub()); CK(cudaStreamSynchronize(S)); T ref; CK(cudaMemcpy(&ref, out, sizeof(T), cudaMemcpyDeviceToHost));
  printf("\n== per call %s n=%lld (%lld KiB), grid %d: median of per-pair ratios (ABBA)\n", tname, n, n * (long long)sizeof(T) / 1024, g);
  for (auto& [name, f] : as) {
    for (int w = 0; w < 50; ++w) { CK(f()); CK(cub()); }
    CK(cudaStreamSynchronize(S));
    if (name != "empty kernel") { CK(cudaMemsetAsync(out, 0x7f, 64, S)); CK(f()); CK(cudaStreamSynchronize(S)); T got; CK(cudaMemcpy(&got, out, sizeof(T), cudaMemcpyDeviceToHost)); if (!(got == ref)) printf("  WRONG %s\n", name.c_str()); }
    Pair p = paired(f, cub, 2000);
    printf("  %-36s A %6.2f us  CUB %6.2f us  ratio %.3f\n", name.c_str(), p.a, p.b, p.r);
  }
  cudaFree(in); cudaFree(out); cudaFree(st); cudaFree(ct); cudaFree(lt); cudaFree(ld);
}
int main() {
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking)); cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("%s\n", prop.name);
  for (long long n : {1LL << 14, 1LL << 16, 1LL << 18, 1LL << 20}) { rows<float>("f32", n); rows<int>("i32", n); }
  for (long long n : {1LL << 14, 1LL << 16}) rows<double>("f64", n);
  printf("done\n");
}
