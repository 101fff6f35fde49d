// Graph probe run 9 (and 9b, the same source against another tree): data-phase loop variants
// (V0 the minimal loop .. V15), each with the minimal flagged epilogue, and epilogue variants E1/E2
// (ticket taken at kernel start / after the data loop). Output: h200-2026-11-22d-graph-probe.txt.
#include "h200-2026-11-22d-graph-probe-harness.cuh"

using gpureduce::Options; using gpureduce::Pipeline; using gpureduce::Strategy;
namespace d = gpureduce::detail;
template <class T> using PT = d::Problem<T, T, T, ::cuda::std::plus<T>, T>;  // plus<T>, not the library's plus<>: our own kernel instances
// Library data phase + the probe's inline flagged epilogue (float).
template <int B> __global__ void __launch_bounds__(B) k_libdata_probeepi(d::KernelArgs<PT<float>> a, unsigned long long* slots, unsigned* counter) {
  d::wait_for_previous_kernel_then_release_next();
  float s = d::VectorizedRung::reduce<0, float>(d::InputReader<float, float>{a.d_in}, a.num_items, blockIdx.x, gridDim.x, a.op, d::dynamic_shared<PT<float>>(), (float*)nullptr);
  __shared__ bool last;
  if (threadIdx.x == 0) { st_relaxed(slots + blockIdx.x, (1ull << 32) | __float_as_uint(s)); cuda::atomic_ref<unsigned, cuda::thread_scope_device> c(*counter);
    last = c.fetch_add(1, cuda::memory_order_relaxed) == gridDim.x - 1; }
  __syncthreads();
  if (!last) return;
  float t = 0;
  for (int i = threadIdx.x; i < gridDim.x; i += B) { unsigned long long w; while (((w = ld_relaxed(slots + i)) >> 32) == 0) {} t += __uint_as_float(unsigned(w)); slots[i] = 0; }
  t = block_sum<B>(t);
  if (threadIdx.x == 0) { *a.d_out = t; *counter = 0; }
}
// Probe data phase + the library's last_block epilogue (flagged or classic by a.flagged_slots).
template <int B> __global__ void __launch_bounds__(B) k_probedata_libepi(d::KernelArgs<PT<float>> a) {
  d::wait_for_previous_kernel_then_release_next();
  const float4* v = reinterpret_cast<const float4*>(a.d_in);
  float s = read_sum<B>(v, a.num_items / 4);
  d::last_block_epilogue<d::VectorizedRung, 0>(a, s, d::dynamic_shared<PT<float>>());
}
template <class T> struct Bench {
  const char* name; T* in; T* out; void* ct; size_t ctb = 0; unsigned char* temp; void* temp_lib;
  static constexpr size_t kTemp = 64 << 20;
  Bench(const char* nm, long long maxn) : name(nm) {
    CK(cudaMalloc(&in, maxn * sizeof(T) + 64)); CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&temp, 1 << 20)); CK(cudaMemset(temp, 0, 1 << 20));
    CK(cudaMalloc(&temp_lib, kTemp)); CK(cudaMemset(temp_lib, 0, kTemp));
    std::vector<T> h(maxn); std::mt19937_64 r(7); for (T& x : h) { int v = int(r() % 32) - 16; x = T(v >= 0 ? v + 1 : v); }
    CK(cudaMemcpy(in, h.data(), maxn * sizeof(T), cudaMemcpyHostToDevice));
    CK(cub::DeviceReduce::Sum(nullptr, ctb, in, out, maxn, S)); CK(cudaMalloc(&ct, ctb));
  }
  T result() { T r; CK(cudaStreamSynchronize(S)); CK(cudaMemcpy(&r, out, sizeof(T), cudaMemcpyDeviceToHost)); return r; }
  d::KernelArgs<PT<T>> args(long long n, bool flagged) {
    return d::KernelArgs<PT<T>>{in, out, n, {}, T{}, true, Pipeline::last_block, (T*)(temp + 256 + 32768), nullptr, (d::ControlBlock*)temp,
                                flagged ? (std::uint64_t*)(temp + 256) : nullptr};
  }
  template <class K, class... A> cudaError_t exs(K k, int g, int b, size_t smem, A... a) {
    cudaLaunchConfig_t c{}; c.gridDim = g; c.blockDim = b; c.stream = S; c.dynamicSmemBytes = smem;
    cudaLaunchAttribute at; at.id = cudaLaunchAttributeProgrammaticStreamSerialization; at.val.programmaticStreamSerializationAllowed = 1; c.attrs = &at; c.numAttrs = 1;
    return cudaLaunchKernelEx(&c, k, a...);
  }
  void run(long long n, std::vector<int> grids) {
    Call cub = [=] { size_t b = ctb; return cub::DeviceReduce::Sum(ct, b, in, out, n, S); };
    CK(cub()); T ref = result(); double gc = graph_us(cub);
    printf("\n== graph %s n=%lld: CUB %.3f us\n", name, n, gc);
    auto row = [&](const char* what, const Call& f) {
      CK(cudaMemset(out, 0x7f, 64)); CK(f()); T r = result(); double g = graph_us(f);
      double g2 = graph_us(f);
      printf("  %-44s %7.3f %7.3f us  %.2fx CUB %s\n", what, g, g2, std::min(g, g2) / gc, r == ref ? "ok" : "WRONG");
    };
    const size_t smem = d::VectorizedRung::shared_bytes(256, sizeof(T));
    char nm[128];
    for (int g : grids) {
      Options o; o.strategy = Strategy::vectorized; o.pipeline = Pipeline::last_block; o.grid_blocks = g; o.block_threads = 256; o.temp_storage_zeroed = true;
      snprintf(nm, sizeof nm, "library explicit last_block zeroed %dx256", g); row(nm, [=] { size_t b = kTemp; return gpureduce::DeviceReduce::Sum<T, T>(temp_lib, b, in, out, n, S, o); });
      { Options z; z.temp_storage_zeroed = true; gpureduce::LaunchPlan plan; CK(gpureduce::DeviceReduce::PlanSum<T, T>(plan, in, n, z));
        snprintf(nm, sizeof nm, "library automatic+zeroed (%dx%d)", plan.grid_blocks, plan.block_threads); row(nm, [=] { size_t b = kTemp; return gpureduce::DeviceReduce::Sum<T, T>(temp_lib, b, in, out, n, S, z); }); }
      auto kern = d::reduce_input_kernel<d::VectorizedRung, 0, PT<T>>;
      auto af = args(n, true), ac = args(n, false);
      snprintf(nm, sizeof nm, "direct general flagged, 8 in flight %dx256", g); row(nm, [=] { return exs(kern, g, 256, smem, af); });
      if constexpr (std::is_same_v<T, float>) {
        unsigned long long* slots = (unsigned long long*)(temp + 512 * 1024); unsigned* counter = (unsigned*)(temp + 768 * 1024);
        const float4* v = reinterpret_cast<const float4*>(in); long long nv = n / 4;
        snprintf(nm, sizeof nm, "probe k_flag %dx256", g); row(nm, [=] { return ex(k_flag<256>, g, 256, v, nv, slots, counter, (float*)out); });
      }
    }
  }
};
// Data-phase variants, all with the probe's inline flagged epilogue (float).
__device__ __forceinline__ void flag_epilogue(float s, unsigned long long* slots, unsigned* counter, float* out) {
  __shared__ bool last;
  if (threadIdx.x == 0) { st_relaxed(slots + blockIdx.x, (1ull << 32) | __float_as_uint(s)); cuda::atomic_ref<unsigned, cuda::thread_scope_device> c(*counter);
    last = c.fetch_add(1, cuda::memory_order_relaxed) == gridDim.x - 1; }
  __syncthreads();
  if (!last) return;
  float t = 0;
  for (int i = threadIdx.x; i < gridDim.x; i += 256) { unsigned long long w; while (((w = ld_relaxed(slots + i)) >> 32) == 0) {} t += __uint_as_float(unsigned(w)); slots[i] = 0; }
  t = block_sum<256>(t);
  if (threadIdx.x == 0) { *out = t; *counter = 0; }
}

namespace dd = gpureduce::detail;
// Loop variants over whole float4 vectors v[first + k * stride], nv vectors, 4 loads per batch.
// S: sequential in-vector fold, running fold chain (the library's order); P: pairwise (probe's).
__device__ __forceinline__ float seq4(float4 a) { return ((a.x + a.y) + a.z) + a.w; }
__device__ __forceinline__ float pw4(float4 a) { return (a.x + a.y) + (a.z + a.w); }
template <int V> __device__ __forceinline__ float loop_variant(const float4* v, long long nv) {
  const long long stride = (long long)gridDim.x * 256; long long i = blockIdx.x * 256ll + threadIdx.x;
  if constexpr (V == 10) {  // probe loop, ptxas told not to unroll
    float s = 0;
#pragma unroll 1
    for (; i + 3 * stride < nv; i += 4 * stride) { float4 a = __ldg(v + i), b = __ldg(v + i + stride), c = __ldg(v + i + 2 * stride), d = __ldg(v + i + 3 * stride); s += ((pw4(a)) + (pw4(b))) + ((pw4(c)) + (pw4(d))); }
    for (; i < nv; i += stride) s += pw4(__ldg(v + i));
    return s;
  } else if constexpr (V == 11) {  // probe loop structure, library order (sequential), s starts at 0 (exact here)
    float s = 0;
    for (; i + 3 * stride < nv; i += 4 * stride) { float4 a = __ldg(v + i), b = __ldg(v + i + stride), c = __ldg(v + i + 2 * stride), d = __ldg(v + i + 3 * stride); s = s + seq4(a); s = s + seq4(b); s = s + seq4(c); s = s + seq4(d); }
    for (; i < nv; i += stride) s = s + seq4(__ldg(v + i));
    return s;
  } else if constexpr (V == 12) {  // library structure (ragged batch all in flight, has_value), pairwise order
    float value = 0; bool has = false;
    auto add = [&](float x) { value = has ? value + x : x; has = true; };
    for (; i + 3 * stride < nv; i += 4 * stride) { float4 r[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) r[k] = __ldg(v + i + k * stride);
      add((pw4(r[0]) + pw4(r[1])) + (pw4(r[2]) + pw4(r[3]))); }
    float4 r[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) if (i + k * stride < nv) r[k] = __ldg(v + i + k * stride);
#pragma unroll
    for (int k = 0; k < 4; ++k) if (i + k * stride < nv) add(pw4(r[k]));
    return value;
  } else if constexpr (V == 13) {  // library loop, sequential order, batch loop unrolled x2 (same bits as library)
    float value = 0; bool has = false;
    auto add = [&](float x) { value = has ? value + x : x; has = true; };
#pragma unroll 2
    for (; i + 3 * stride < nv; i += 4 * stride) { float4 r[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) r[k] = __ldg(v + i + k * stride);
#pragma unroll
      for (int k = 0; k < 4; ++k) add(seq4(r[k])); }
    float4 r[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) if (i + k * stride < nv) r[k] = __ldg(v + i + k * stride);
#pragma unroll
    for (int k = 0; k < 4; ++k) if (i + k * stride < nv) add(seq4(r[k]));
    return value;
  } else if constexpr (V == 14) {  // library order, no has_value: first batch peeled by hand when whole (same bits)
    float value = 0;
    if (i + 3 * stride < nv) {
      float4 r[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) r[k] = __ldg(v + i + k * stride);
      value = seq4(r[0]);
#pragma unroll
      for (int k = 1; k < 4; ++k) value = value + seq4(r[k]);
      i += 4 * stride;
      for (; i + 3 * stride < nv; i += 4 * stride) {
#pragma unroll
        for (int k = 0; k < 4; ++k) r[k] = __ldg(v + i + k * stride);
#pragma unroll
        for (int k = 0; k < 4; ++k) value = value + seq4(r[k]);
      }
      for (; i < nv; i += stride) value = value + seq4(__ldg(v + i));
    } else {
      for (; i < nv; i += stride) value = value + seq4(__ldg(v + i));  // value 0 + x == x here (exact probe data)
    }
    return value;
  } else {  // V == 15: library order, remainder one at a time (no ragged batch), has_value kept
    float value = 0; bool has = false;
    auto add = [&](float x) { value = has ? value + x : x; has = true; };
    for (; i + 3 * stride < nv; i += 4 * stride) { float4 r[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) r[k] = __ldg(v + i + k * stride);
#pragma unroll
      for (int k = 0; k < 4; ++k) add(seq4(r[k])); }
    for (; i < nv; i += stride) add(seq4(__ldg(v + i)));
    return value;
  }
}
// E: epilogue. 0 = flagged (ticket after the block sum); 1 = ticket taken at kernel start (after
// the PDL wait): the last block to *start* folds, so every other block is resident or done and will
// publish; 2 = ticket after the data loop, before the block sum.
__device__ __forceinline__ void poll_fold(unsigned long long* slots, unsigned* counter, float* out) {
  float t = 0;
  for (int i = threadIdx.x; i < gridDim.x; i += 256) { unsigned long long w; while (((w = ld_relaxed(slots + i)) >> 32) == 0) {} t += __uint_as_float(unsigned(w)); slots[i] = 0; }
  t = block_sum<256>(t);
  if (threadIdx.x == 0) { *out = t; *counter = 0; }
}
template <int V> __device__ __forceinline__ float data_phase(const float* in, long long n) {
  if constexpr (V == 0) return read_sum_thread(reinterpret_cast<const float4*>(in), n / 4);
  else if constexpr (V == 4) {  // library fold (fold_strided_vectors + has_value)
    const uint4* v = reinterpret_cast<const uint4*>(in); long long nv = n / 4;
    float value = 0; bool has = false;
    auto fold = [&](const uint4& raw) { float x = dd::VectorizedRung::fold_vector<float, float>(raw, ::cuda::std::plus<float>{}); value = has ? value + x : x; has = true; };
    dd::VectorizedRung::fold_strided_vectors(v, (long long)blockIdx.x * 256 + threadIdx.x, (long long)gridDim.x * 256, nv, fold);
    return value;
  } else return loop_variant<V>(reinterpret_cast<const float4*>(in), n / 4);
}
template <int V, int E = 0> __global__ void __launch_bounds__(256) k_var(const float* in, long long n, unsigned long long* slots, unsigned* counter, float* out) {
  pdl();
  __shared__ bool last;
  if constexpr (E == 1) {
    if (threadIdx.x == 0) { cuda::atomic_ref<unsigned, cuda::thread_scope_device> c(*counter); last = c.fetch_add(1, cuda::memory_order_relaxed) == gridDim.x - 1; }
  }
  float t = data_phase<V>(in, n);
  if constexpr (E == 2) {
    if (threadIdx.x == 0) { cuda::atomic_ref<unsigned, cuda::thread_scope_device> c(*counter); last = c.fetch_add(1, cuda::memory_order_relaxed) == gridDim.x - 1; }
  }
  float s = block_sum<256>(t);  // its __syncthreads publishes `last` to the block for E 1 and 2
  if constexpr (E == 0) { flag_epilogue(s, slots, counter, out); return; }
  else {
    if (threadIdx.x == 0) st_relaxed(slots + blockIdx.x, (1ull << 32) | __float_as_uint(s));
    if (!last) return;
    poll_fold(slots, counter, out);
  }
}
void variants(Bench<float>& b, long long n, int g) {
  Call cub = [=, &b] { size_t x = b.ctb; return cub::DeviceReduce::Sum(b.ct, x, b.in, b.out, n, S); };
  CK(cub()); float ref = b.result(); double gc = graph_us(cub);
  printf("\n== variants f32 n=%lld %dx256: CUB graph %.3f us\n", n, g, gc);
  unsigned long long* slots = (unsigned long long*)(b.temp + 512 * 1024); unsigned* counter = (unsigned*)(b.temp + 768 * 1024);
  auto row = [&](const char* what, const Call& f) {
    CK(cudaMemset(b.out, 0x7f, 64)); CK(f()); float r = b.result(); double g1 = graph_us(f), g2 = graph_us(f);
    printf("  %-60s %7.3f %7.3f us  %.3fx CUB %s\n", what, g1, g2, std::min(g1, g2) / gc, r == ref ? "ok" : "WRONG");
  };
  const float* in = b.in;
#define VROW(V, what) row(what, [=, &b] { return b.exs(k_var<V>, g, 256, 0, in, n, slots, counter, (float*)b.out); })
  VROW(0, "V0 probe loop (pairwise)");
  VROW(10, "V10 probe loop, #pragma unroll 1");
  VROW(11, "V11 probe loop structure, library (sequential) order");
  VROW(4, "V4 library fold loop (current)");
  VROW(12, "V12 library structure, pairwise order");
  VROW(13, "V13 library loop, batch loop unroll 2");
  VROW(14, "V14 library order, first batch peeled by hand, no has_value");
  VROW(15, "V15 library order, has_value, remainder one at a time");
#define EROW(V, E, what) row(what, [=, &b] { return b.exs(k_var<V, E>, g, 256, 0, in, n, slots, counter, (float*)b.out); })
  EROW(0, 1, "V0 + E1 ticket at kernel start");
  EROW(0, 2, "V0 + E2 ticket after data loop");
  EROW(4, 1, "V4 + E1 ticket at kernel start");
  EROW(4, 2, "V4 + E2 ticket after data loop");
  EROW(12, 1, "V12 + E1 ticket at kernel start");
  Options z; z.temp_storage_zeroed = true;
  row("library automatic+zeroed", [=, &b] { size_t x = b.kTemp; return gpureduce::DeviceReduce::Sum<float, float>(b.temp_lib, x, b.in, b.out, n, S, z); });
}
int main() {
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking)); cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("%s\n", prop.name);
  { Bench<float> b("f32", 1 << 22); variants(b, 1 << 16, 32); variants(b, 1 << 18, 64); variants(b, 1 << 20, 128); variants(b, 1 << 22, 256); }
  printf("done\n");
}
