// Scratch probe (2026-11-22c): (1) where a graph reduction's time goes at 64K-4M items (empty PDL
// kernel, read-only kernel, read + ticket, library pipelines incl. two_kernel); (2) host-side
// latency and per-call GPU time of the library vs a direct launch of the same shaped kernel.
#include <cub/cub.cuh>
#include <cuda/atomic>
#include <gpureduce/device_reduce.cuh>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>
#define CK(...) do { cudaError_t e_ = (__VA_ARGS__); if (e_ != cudaSuccess) { printf("ERR %s at %d: %s\n", #__VA_ARGS__, __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)
using Call = std::function<cudaError_t()>;
cudaStream_t S; cudaEvent_t e0, e1;
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
double graph_us(const Call& f, int reps = 25) {
  cudaGraph_t g; cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(S, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < 100; ++i) f();
  CK(cudaStreamEndCapture(S, &g)); CK(cudaGraphInstantiate(&ge, g, 0));
  for (int i = 0; i < 3; ++i) CK(cudaGraphLaunch(ge, S));
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) { CK(cudaEventRecord(e0, S)); CK(cudaGraphLaunch(ge, S)); CK(cudaEventRecord(e1, S)); CK(cudaEventSynchronize(e1)); float ms; cudaEventElapsedTime(&ms, e0, e1); t.push_back(ms * 1e3 / 100); }
  cudaGraphExecDestroy(ge); cudaGraphDestroy(g); return med(t);
}
struct Pair { double a, b, r, ha, hb; };
Pair paired(const Call& A, const Call& B, int iters) {
  std::vector<double> ta, tb, tr, ha, hb;
  auto one = [&](const Call& f, std::vector<double>& host) {
    CK(cudaEventRecord(e0, S)); auto t0 = std::chrono::steady_clock::now(); CK(f()); auto t1 = std::chrono::steady_clock::now();
    CK(cudaEventRecord(e1, S)); CK(cudaEventSynchronize(e1)); float ms; cudaEventElapsedTime(&ms, e0, e1);
    host.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count()); return ms * 1e3; };
  for (int i = 0; i < iters; ++i) { double a, b; if (i & 1) { b = one(B, hb); a = one(A, ha); } else { a = one(A, ha); b = one(B, hb); } ta.push_back(a); tb.push_back(b); tr.push_back(a / b); }
  return {med(ta), med(tb), med(tr), med(ha), med(hb)};
}
__device__ __forceinline__ void pdl() { asm volatile("griddepcontrol.wait;" ::: "memory"); asm volatile("griddepcontrol.launch_dependents;" ::: "memory"); }
template <int B> __device__ __forceinline__ float block_sum(float s) {
  __shared__ float sh[32];
  for (int o = 16; o; o >>= 1) s += __shfl_down_sync(~0u, s, o);
  if (threadIdx.x % 32 == 0) sh[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x < 32) { s = threadIdx.x < B / 32 ? sh[threadIdx.x] : 0.f; for (int o = 16; o; o >>= 1) s += __shfl_down_sync(~0u, s, o); }
  return s;
}
template <int B> __global__ void __launch_bounds__(B) k_empty(float* out) { pdl(); if (threadIdx.x == 0 && blockIdx.x == 0 && out == nullptr) *out = 0; }
template <int B> __device__ __forceinline__ float read_sum(const float4* v, long long nv) {
  float s = 0; const long long stride = (long long)gridDim.x * B; long long i = blockIdx.x * (long long)B + threadIdx.x;
  for (; i + 3 * stride < nv; i += 4 * stride) { float4 a = __ldg(v + i), b = __ldg(v + i + stride), c = __ldg(v + i + 2 * stride), d = __ldg(v + i + 3 * stride); s += ((a.x + a.y) + (a.z + a.w)) + ((b.x + b.y) + (b.z + b.w)) + ((c.x + c.y) + (c.z + c.w)) + ((d.x + d.y) + (d.z + d.w)); }
  for (; i < nv; i += stride) { float4 a = __ldg(v + i); s += (a.x + a.y) + (a.z + a.w); }
  return block_sum<B>(s);
}
template <int B> __global__ void __launch_bounds__(B) k_read(const float4* v, long long nv, float* partials) {
  pdl(); float s = read_sum<B>(v, nv); if (threadIdx.x == 0) partials[blockIdx.x] = s; }
template <int B> __global__ void __launch_bounds__(B) k_ticket(const float4* v, long long nv, float* partials, unsigned* counter, float* out) {
  pdl(); float s = read_sum<B>(v, nv);
  __shared__ bool last;
  if (threadIdx.x == 0) { partials[blockIdx.x] = s; cuda::atomic_ref<unsigned, cuda::thread_scope_device> c(*counter);
    last = c.fetch_add(1, cuda::memory_order_acq_rel) == gridDim.x - 1; }
  __syncthreads();
  if (!last) return;
  float t = 0; for (int i = threadIdx.x; i < gridDim.x; i += B) t += __ldcg(partials + i);
  t = block_sum<B>(t);
  if (threadIdx.x == 0) { *out = t; *counter = 0; }
}

__device__ __forceinline__ void st_relaxed(unsigned long long* p, unsigned long long v) { asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" :: "l"(p), "l"(v) : "memory"); }
__device__ __forceinline__ unsigned long long ld_relaxed(const unsigned long long* p) { unsigned long long v; asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory"); return v; }
// Flagged slots: partial and flag in one 64-bit word, no release fence; relaxed ticket; the last block
// spins on any slot whose store has not landed yet, then re-arms slots and counter (zeroed-once state).
template <int B> __global__ void __launch_bounds__(B) k_flag(const float4* v, long long nv, unsigned long long* slots, unsigned* counter, float* out) {
  pdl(); float s = read_sum<B>(v, nv);
  __shared__ bool last;
  if (threadIdx.x == 0) { st_relaxed(slots + blockIdx.x, (1ull << 32) | __float_as_uint(s)); cuda::atomic_ref<unsigned, cuda::thread_scope_device> c(*counter);
    last = c.fetch_add(1, cuda::memory_order_relaxed) == gridDim.x - 1; }
  __syncthreads();
  if (!last) return;
  float t = 0;
  for (int i = threadIdx.x; i < gridDim.x; i += B) { unsigned long long w; while (((w = ld_relaxed(slots + i)) >> 32) == 0) {} t += __uint_as_float(unsigned(w)); slots[i] = 0; }
  t = block_sum<B>(t);
  if (threadIdx.x == 0) { *out = t; *counter = 0; }
}
// No ticket: block 0 polls every slot (needs all blocks co-resident: probe only, grid <= one wave).
template <int B> __global__ void __launch_bounds__(B) k_poll0(const float4* v, long long nv, unsigned long long* slots, float* out) {
  pdl(); float s = read_sum<B>(v, nv);
  if (threadIdx.x == 0 && blockIdx.x != 0) st_relaxed(slots + blockIdx.x, (1ull << 32) | __float_as_uint(s));
  if (blockIdx.x != 0) return;
  __shared__ float s0; if (threadIdx.x == 0) s0 = s; __syncthreads();
  float t = 0;
  for (int i = threadIdx.x; i < gridDim.x; i += B) { if (i == 0) { t += s0; continue; } unsigned long long w; while (((w = ld_relaxed(slots + i)) >> 32) == 0) {} t += __uint_as_float(unsigned(w)); slots[i] = 0; }
  t = block_sum<B>(t);
  if (threadIdx.x == 0) *out = t;
}
template <class K, class... A> cudaError_t ex(K k, int g, int b, A... a) {
  cudaLaunchConfig_t c{}; c.gridDim = g; c.blockDim = b; c.stream = S;
  cudaLaunchAttribute at; at.id = cudaLaunchAttributeProgrammaticStreamSerialization; at.val.programmaticStreamSerializationAllowed = 1; c.attrs = &at; c.numAttrs = 1;
  return cudaLaunchKernelEx(&c, k, a...);
}
using gpureduce::Options; using gpureduce::Pipeline; using gpureduce::Strategy;
template <class T> struct Bench {
  const char* name; T* in; T* out; void* ct; size_t ctb = 0; void* temp; float* partials; unsigned* counter;
  static constexpr size_t kTemp = 64 << 20;
  Bench(const char* nm, long long maxn) : name(nm) {
    CK(cudaMalloc(&in, maxn * sizeof(T) + 64)); CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&temp, kTemp)); CK(cudaMemset(temp, 0, kTemp));
    CK(cudaMalloc(&partials, 1 << 16)); CK(cudaMemset(partials, 0, 1 << 16)); CK(cudaMalloc(&counter, 64)); CK(cudaMemset(counter, 0, 64));
    std::vector<T> h(maxn); std::mt19937_64 r(7); for (T& x : h) { int v = int(r() % 32) - 16; x = T(v >= 0 ? v + 1 : v); }
    CK(cudaMemcpy(in, h.data(), maxn * sizeof(T), cudaMemcpyHostToDevice));
    CK(cub::DeviceReduce::Sum(nullptr, ctb, in, out, maxn, S)); CK(cudaMalloc(&ct, ctb));
  }
  T result() { T r; CK(cudaStreamSynchronize(S)); CK(cudaMemcpy(&r, out, sizeof(T), cudaMemcpyDeviceToHost)); return r; }
  Call lib(long long n, Options o) { return [=] { size_t b = kTemp; return gpureduce::DeviceReduce::Sum<T, T>(temp, b, in, out, n, S, o); }; }
  static Options fixed(Pipeline p, int g, int b) { Options o; o.strategy = Strategy::vectorized; o.pipeline = p; o.grid_blocks = g; o.block_threads = b; o.temp_storage_zeroed = p == Pipeline::last_block; return o; }
  void graph_sizes(std::vector<long long> ns) {
    for (long long n : ns) {
      Call cub = [=] { size_t b = ctb; return cub::DeviceReduce::Sum(ct, b, in, out, n, S); };
      CK(cub()); T ref = result(); double gc = graph_us(cub);
      printf("\n== graph %s n=%lld (%lld KiB): CUB %.3f us\n", name, n, n * (long long)sizeof(T) / 1024, gc);
      auto row = [&](const char* what, const Call& f, bool check) {
        CK(cudaMemset(out, 0x7f, 64)); CK(f()); T r = result(); double g = graph_us(f);
        printf("  %-34s %7.3f us  %.2fx CUB %s\n", what, g, g / gc, !check ? "" : (r == ref ? "ok" : "WRONG"));
      };
      char nm[96];
      row("automatic", lib(n, Options{}), true);
      Options z; z.temp_storage_zeroed = true; row("automatic+zeroed", lib(n, z), true);
      const int rule = int(std::ceil(std::sqrt(n * sizeof(T) / 256.0)));
      { Options m = fixed(Pipeline::last_block, rule, 256); m.temp_storage_zeroed = false; row("last_block+memset rule x256", lib(n, m), true); }
      for (int bt : {256})
        for (int g : {rule / 2, rule, rule * 2}) {
          int blocks = std::max(1, g * 256 / bt);
          for (Pipeline p : {Pipeline::two_kernel, Pipeline::last_block, Pipeline::grid_sync}) {
            gpureduce::LaunchPlan plan; CK(gpureduce::DeviceReduce::PlanSum<T, T>(plan, in, n, fixed(p, blocks, bt)));
            snprintf(nm, sizeof nm, "%s %dx%d", gpureduce::to_string(p), plan.grid_blocks, bt);
            row(nm, lib(n, fixed(p, blocks, bt)), true);
          }
        }
      if constexpr (std::is_same_v<T, float>) {
        const long long nv = n / 4; const float4* v = reinterpret_cast<const float4*>(in);
        for (int g : {rule / 4, rule / 2, rule, rule * 2, 132}) {
          if (g < 1) continue;
          snprintf(nm, sizeof nm, "probe empty %dx256", g); row(nm, [=] { return ex(k_empty<256>, g, 256, (float*)out); }, false);
          snprintf(nm, sizeof nm, "probe read %dx256", g); row(nm, [=] { return ex(k_read<256>, g, 256, v, nv, partials); }, false);
          snprintf(nm, sizeof nm, "probe read+ticket %dx256", g); row(nm, [=] { return ex(k_ticket<256>, g, 256, v, nv, partials, counter, (float*)out); }, n % 4 == 0);
          unsigned long long* slots = reinterpret_cast<unsigned long long*>(partials) + 4096;
          snprintf(nm, sizeof nm, "probe read+flag %dx256", g); row(nm, [=] { return ex(k_flag<256>, g, 256, v, nv, slots, counter + 8, (float*)out); }, n % 4 == 0);
          if (g <= 132) { snprintf(nm, sizeof nm, "probe read+poll0 %dx256", g); row(nm, [=] { return ex(k_poll0<256>, g, 256, v, nv, slots, (float*)out); }, n % 4 == 0); }
        }
      }
    }
  }
  // Per call: library vs a direct launch of the library's own shaped one-block kernel (no dispatch).
  void per_call(long long n, int bt) {
    namespace d = gpureduce::detail;
    using P = d::Problem<T, T, T, d::sum_op_t<T, T>, T>;
    Call cub = [=] { size_t b = ctb; return cub::DeviceReduce::Sum(ct, b, in, out, n, S); };
    CK(cub()); T ref = result();
    d::KernelArgs<P> args{in, out, n, {}, T{}, true, Pipeline::grid_sync, (T*)partials, nullptr, (d::ControlBlock*)counter};
    const size_t smem = d::VectorizedRung::shared_bytes(bt, sizeof(T));
    auto k = d::shape_kernel_for<d::VectorizedRung, P>(d::ShapeKernel::one_block, bt);
    Call direct = [=] { return d::launch_kernel(k, d::LaunchShape{1u, unsigned(bt), smem, S, false, true, 0u}, args); };
    Call direct_nopdl = [=] { return d::launch_kernel(k, d::LaunchShape{1u, unsigned(bt), smem, S, false, false, 0u}, args); };
    Call library = lib(n, Options{});
    Options off; off.pointer_check = gpureduce::PointerCheck::off; Call library_off = lib(n, off);
    Call empty = [=] { return ex(k_empty<256>, 1, 256, (float*)out); };
    printf("\n== per call %s n=%lld, one block of %d\n", name, n, bt);
    auto row = [&](const char* what, const Call& f, bool check) {
      CK(cudaMemset(out, 0x7f, 64)); CK(f()); T r = result(); Pair p = paired(f, cub, 4000); double g = graph_us(f);
      printf("  %-24s stream %6.2f vs CUB %6.2f  paired %.3f  host %5.2f vs CUB %5.2f us  graph %.3f %s\n", what, p.a, p.b, p.r, p.ha, p.hb, g, !check ? "" : (r == ref ? "ok" : "WRONG"));
    };
    row("library automatic", library, true);
    row("library ptrcheck off", library_off, true);
    row("direct shaped kernel", direct, true);
    row("direct, no PDL", direct_nopdl, true);
    row("empty kernel", empty, false);
    row("cub", cub, true);
    row("library again", library, true);
  }
};
int main() {
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking)); cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("%s\n", prop.name);
  { Bench<float> b("f32", 1 << 22); b.graph_sizes({1 << 16, 1 << 18, 1 << 20, 1 << 22}); }
  
  
  { auto t0 = std::chrono::steady_clock::now(); int dev = 0; for (int i = 0; i < 100000; ++i) CK(cudaGetDevice(&dev));
    auto t1 = std::chrono::steady_clock::now(); for (int i = 0; i < 100000; ++i) CK(cudaGetLastError());
    auto t2 = std::chrono::steady_clock::now(); gpureduce::LaunchPlan plan; float* p = nullptr; CK(cudaMalloc(&p, 1 << 20));
    for (int i = 0; i < 100000; ++i) CK(gpureduce::DeviceReduce::PlanSum<float, float>(plan, p, 4096, Options{}));
    auto t3 = std::chrono::steady_clock::now();
    printf("\nhost: cudaGetDevice %.3f us, cudaGetLastError %.3f us, PlanSum(4096) %.3f us per call\n",
      std::chrono::duration<double, std::micro>(t1 - t0).count() / 1e5, std::chrono::duration<double, std::micro>(t2 - t1).count() / 1e5,
      std::chrono::duration<double, std::micro>(t3 - t2).count() / 1e5); }
  printf("done\n");
}
