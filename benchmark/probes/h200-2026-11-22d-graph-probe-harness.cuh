// The harness the graph probes 9-13 share (h200-2026-11-22d-graph-probe-{9..13}.cu): timing (median
// per reduction over 25 replays of a 100-reduction graph; paired ABBA per-call timing), the PDL
// prologue, the minimal probe kernels (read loop, block sum, flagged-slot epilogue) and a PDL launch
// helper. Extracted from the probes after they ran, unchanged; each probe includes it first.
// Build a probe from the repository root: nvcc -std=c++17 -O3 -arch=sm_90 -Iinclude
//   -Ibenchmark/probes -I<build dir> -o probe benchmark/probes/h200-2026-11-22d-graph-probe-N.cu
//   [<build dir>/libgpureduce.a for probes 9 and 13, which call the library's API]
// Probes that build KernelArgs themselves (9-12) need the headers they ran with (928ea2b or older):
// KernelArgs lost its four temp-storage pointers after them (pipeline/problem.cuh).
#pragma once
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
__device__ __forceinline__ float read_sum_thread(const float4* v, long long nv) {
  float s = 0; const long long stride = (long long)gridDim.x * 256; long long i = blockIdx.x * 256LL + threadIdx.x;
  for (; i + 3 * stride < nv; i += 4 * stride) { float4 a = __ldg(v + i), b = __ldg(v + i + stride), c = __ldg(v + i + 2 * stride), d = __ldg(v + i + 3 * stride); s += ((a.x + a.y) + (a.z + a.w)) + ((b.x + b.y) + (b.z + b.w)) + ((c.x + c.y) + (c.z + c.w)) + ((d.x + d.y) + (d.z + d.w)); }
  for (; i < nv; i += stride) { float4 a = __ldg(v + i); s += (a.x + a.y) + (a.z + a.w); }
  return s;
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
