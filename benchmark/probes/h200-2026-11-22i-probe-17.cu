// Probe run 17 (2026-11-22i): what is left between the library and the graph / 4M targets.
//  A. The combine of 4-byte integer sums: one 64-bit atomic that carries both the arrival count
//     and the running sum (count << 44 plus the sign-extended partial: exact, any order, so the
//     same bits as any other order), against the flagged slots + relaxed ticket the library uses.
//     The last arrival knows the answer from its atomic's return: no slot round trip.
//  B. The data phase of L2-resident inputs: the probe read loop with 4 or 8 vectors in flight per
//     thread, and a bulk-copy (TMA, cp.async.bulk) data phase that stages each block's contiguous
//     chunk in shared memory with one instruction per piece, then reduces it there.
//  C. The L2 read rate a read-only kernel reaches on 16 MiB, and per call at 4M floats, paired
//     with CUB: the floor of a one-launch reduction there.
// Library at bd89ebe. Build from the repository root:
//   nvcc -std=c++17 -O3 -arch=sm_90 -Iinclude -Ibenchmark/probes -I<build dir> -o probe17
//     benchmark/probes/h200-2026-11-22i-probe-17.cu <build dir>/libgpureduce.a
#include "h200-2026-11-22d-graph-probe-harness.cuh"

#include <cstdint>

template <class T> struct Vec4;
template <> struct Vec4<float> { using type = float4; };
template <> struct Vec4<int> { using type = int4; };
template <class V> __device__ __forceinline__ auto sum4(const V& a) { return (a.x + a.y) + (a.z + a.w); }

template <class T, int B> __device__ __forceinline__ T block_sum_t(T s) {
  __shared__ T sh[32];
  for (int o = 16; o; o >>= 1) s += __shfl_down_sync(~0u, s, o);
  if (threadIdx.x % 32 == 0) sh[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x < 32) { s = threadIdx.x < B / 32 ? sh[threadIdx.x] : T(0); for (int o = 16; o; o >>= 1) s += __shfl_down_sync(~0u, s, o); }
  return s;
}

// U vectors in flight per thread, grid-strided.
template <class T, int B, int U> __device__ __forceinline__ T read_sum_u(const T* in, long long n) {
  using V = typename Vec4<T>::type;
  const V* v = reinterpret_cast<const V*>(in); const long long nv = n / 4;
  T s = 0; const long long stride = (long long)gridDim.x * B; long long i = blockIdx.x * (long long)B + threadIdx.x;
  for (; i + (U - 1) * stride < nv; i += U * stride) {
    V a[U];
#pragma unroll
    for (int u = 0; u < U; ++u) a[u] = __ldg(v + i + u * stride);
#pragma unroll
    for (int u = 0; u < U; ++u) s += sum4(a[u]);
  }
  for (; i < nv; i += stride) s += sum4(__ldg(v + i));
  return block_sum_t<T, B>(s);
}

template <class T> __device__ __forceinline__ unsigned bits_of(T x) { unsigned u; memcpy(&u, &x, 4); return u; }
template <class T> __device__ __forceinline__ T from_bits(unsigned u) { T x; memcpy(&x, &u, 4); return x; }

// Flagged slot + relaxed ticket; the last block folds the slots (the library's combine, minimal).
template <class T, int B> __device__ __forceinline__ void flagged_combine(T s, unsigned long long* slots, unsigned* counter, T* out) {
  __shared__ bool last;
  if (threadIdx.x == 0) { st_relaxed(slots + blockIdx.x, (1ull << 32) | bits_of(s)); cuda::atomic_ref<unsigned, cuda::thread_scope_device> c(*counter);
    last = c.fetch_add(1, cuda::memory_order_relaxed) == gridDim.x - 1; }
  __syncthreads();
  if (!last) return;
  T t = 0;
  for (int i = threadIdx.x; i < gridDim.x; i += B) { unsigned long long w; while (((w = ld_relaxed(slots + i)) >> 32) == 0) {} t += from_bits<T>(unsigned(w)); slots[i] = 0; }
  t = block_sum_t<T, B>(t);
  if (threadIdx.x == 0) { *out = t; *counter = 0; }
}

template <class T, int B, int U> __global__ void __launch_bounds__(B) k_flag_u(const T* in, long long n, unsigned long long* slots, unsigned* counter, T* out) {
  pdl(); flagged_combine<T, B>(read_sum_u<T, B, U>(in, n), slots, counter, out);
}
template <class T, int B, int U> __global__ void __launch_bounds__(B) k_read_u(const T* in, long long n, T* partials) {
  pdl(); T s = read_sum_u<T, B, U>(in, n); if (threadIdx.x == 0) partials[blockIdx.x] = s;
}

// A: count and sum in one atomic word. word = count * 2^44 + S, |S| < grid * 2^31 < 2^43 for
// grids up to 4096, so count = (word + 2^43) >> 44 exactly and S = word - count * 2^44.
constexpr int kCountShift = 44;
template <int B, int U> __global__ void __launch_bounds__(B) k_packed(const int* in, long long n, unsigned long long* word, int* out) {
  pdl(); const int s = read_sum_u<int, B, U>(in, n);
  if (threadIdx.x == 0) {
    const long long add = (1ll << kCountShift) + (long long)s;
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> w(*word);
    const long long total = (long long)(w.fetch_add((unsigned long long)add, cuda::memory_order_relaxed) + (unsigned long long)add);
    const long long count = (total + (1ll << (kCountShift - 1))) >> kCountShift;
    if (count == gridDim.x) { *out = int(unsigned(total - (count << kCountShift))); *word = 0; }
  }
}

// B: bulk copy of the block's contiguous chunk into shared memory, P pieces with a barrier each.
__device__ __forceinline__ unsigned smem_addr(const void* p) { return unsigned(__cvta_generic_to_shared(p)); }
template <class T, int B, int P> __global__ void __launch_bounds__(B) k_tma(const T* in, long long n, unsigned long long* slots, unsigned* counter, T* out) {
  using V = typename Vec4<T>::type;
  extern __shared__ __align__(128) unsigned char stage[];
  __shared__ __align__(8) unsigned long long bars[P];
  const long long per_block = n / gridDim.x;
  const unsigned piece = unsigned(per_block * sizeof(T) / P);
  if (threadIdx.x == 0) {
#pragma unroll
    for (int p = 0; p < P; ++p) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bars[p])) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  pdl();
  if (threadIdx.x == 0) {
    const char* src = reinterpret_cast<const char*>(in + blockIdx.x * per_block);
#pragma unroll
    for (int p = 0; p < P; ++p) {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(&bars[p])), "r"(piece) : "memory");
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                   ::"r"(smem_addr(stage + p * piece)), "l"(src + p * piece), "r"(piece), "r"(smem_addr(&bars[p])) : "memory");
    }
  }
  T s = 0;
  const int vecs = int(piece / sizeof(V));
#pragma unroll 1
  for (int p = 0; p < P; ++p) {
    unsigned done = 0;
    while (!done) asm volatile("{ .reg .pred q; mbarrier.try_wait.parity.shared::cta.b64 q, [%1], 0; selp.u32 %0, 1, 0, q; }" : "=r"(done) : "r"(smem_addr(&bars[p])) : "memory");
    const V* v = reinterpret_cast<const V*>(stage + p * piece);
    for (int i = threadIdx.x; i < vecs; i += B) s += sum4(v[i]);
  }
  flagged_combine<T, B>(block_sum_t<T, B>(s), slots, counter, out);
}

struct Bufs { void* in; void* out; unsigned long long* slots; unsigned* counter; void* partials; };

template <class T> bool close_enough(T got, T ref, long long n) {
  if constexpr (std::is_integral_v<T>) return got == ref;
  else return std::fabs(double(got) - double(ref)) <= 1e-5 * 125.0 * double(n) + 1e-3;
}

template <class T> void check_row(const char* name, const Call& f, const Bufs& b, T ref, long long n, double cub_graph) {
  CK(cudaMemsetAsync(b.out, 0x7f, 64, S)); CK(f()); CK(cudaGetLastError()); CK(cudaStreamSynchronize(S));
  T got; CK(cudaMemcpy(&got, b.out, sizeof(T), cudaMemcpyDeviceToHost));
  const double g1 = graph_us(f), g2 = graph_us(f);
  printf("  %-34s %8.3f %8.3f us  %.3fx CUB  %s\n", name, g1, g2, std::min(g1, g2) / cub_graph, close_enough(got, ref, n) ? "ok" : "WRONG");
}

template <class T> void graph_size(const char* tname, long long n) {
  Bufs b; const size_t bytes = n * sizeof(T);
  CK(cudaMalloc(&b.in, bytes)); CK(cudaMalloc(&b.out, 64)); CK(cudaMalloc(&b.slots, 1 << 16)); CK(cudaMemset(b.slots, 0, 1 << 16));
  CK(cudaMalloc(&b.counter, 256)); CK(cudaMemset(b.counter, 0, 256)); CK(cudaMalloc(&b.partials, 1 << 16));
  std::vector<T> h(n); std::mt19937_64 r(17); for (T& x : h) x = T(int(r() % 2001) - 1000) / T(std::is_integral_v<T> ? 1 : 8);
  CK(cudaMemcpy(b.in, h.data(), bytes, cudaMemcpyHostToDevice));
  const T* in = static_cast<const T*>(b.in); T* out = static_cast<T*>(b.out);
  size_t cb = 0; void* ct; CK(cub::DeviceReduce::Sum(nullptr, cb, in, out, n, S)); CK(cudaMalloc(&ct, cb));
  Call cub = [=] { size_t t = cb; return cub::DeviceReduce::Sum(ct, t, in, out, n, S); };
  CK(cub()); CK(cudaStreamSynchronize(S)); T ref; CK(cudaMemcpy(&ref, out, sizeof(T), cudaMemcpyDeviceToHost));
  const double gc = std::min(graph_us(cub), graph_us(cub));
  printf("\n== graph %s n=%lld (%lld KiB): CUB %.3f us per reduction\n", tname, n, (long long)(bytes >> 10), gc);
  void* lt; size_t lb = 64 << 20; CK(cudaMalloc(&lt, lb)); CK(cudaMemset(lt, 0, lb));
  gpureduce::Options z; z.temp_storage_zeroed = true;
  check_row<T>("library default", [=] { size_t t = lb; return gpureduce::DeviceReduce::Sum<T, T>(lt, t, in, out, n, S); }, b, ref, n, gc);
  check_row<T>("library zeroed", [=] { size_t t = lb; return gpureduce::DeviceReduce::Sum<T, T>(lt, t, in, out, n, S, z); }, b, ref, n, gc);
  int sms = 0; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  std::vector<int> grids;
  for (int g : {16, 32, 64, 128, 256, 512}) if (n / 4 >= 256LL * g / 2 && g <= 4 * sms) grids.push_back(g);
  char name[96];
  for (int g : grids) {
    snprintf(name, sizeof name, "flag U4 %dx256", g);
    check_row<T>(name, [=] { return ex(k_flag_u<T, 256, 4>, g, 256, in, n, b.slots, b.counter, out); }, b, ref, n, gc);
    snprintf(name, sizeof name, "flag U8 %dx256", g);
    check_row<T>(name, [=] { return ex(k_flag_u<T, 256, 8>, g, 256, in, n, b.slots, b.counter, out); }, b, ref, n, gc);
    if constexpr (std::is_same_v<T, int>) {
      snprintf(name, sizeof name, "packed atomic U4 %dx256", g);
      check_row<T>(name, [=] { return ex(k_packed<256, 4>, g, 256, in, n, reinterpret_cast<unsigned long long*>(b.counter) + 4, out); }, b, ref, n, gc);
    }
    const long long chunk = bytes / g;
    if (bytes % (g * 64) == 0 && chunk <= 96 * 1024) {
      for (int P : {1, 4}) {
        snprintf(name, sizeof name, "tma P%d %dx256 (%lld KiB/block)", P, g, chunk >> 10);
        auto k = P == 1 ? k_tma<T, 256, 1> : k_tma<T, 256, 4>;
        CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024));
        check_row<T>(name, [=] {
          cudaLaunchConfig_t c{}; c.gridDim = g; c.blockDim = 256; c.dynamicSmemBytes = chunk; c.stream = S;
          cudaLaunchAttribute at; at.id = cudaLaunchAttributeProgrammaticStreamSerialization; at.val.programmaticStreamSerializationAllowed = 1; c.attrs = &at; c.numAttrs = 1;
          return cudaLaunchKernelEx(&c, k, in, n, b.slots, b.counter, out); }, b, ref, n, gc);
      }
    }
  }
  // The data phase alone: read and write one partial per block, no combine (result not checked).
  for (int g : grids) {
    const double t4 = graph_us([=] { return ex(k_read_u<T, 256, 4>, g, 256, in, n, static_cast<T*>(b.partials)); });
    const double t8 = graph_us([=] { return ex(k_read_u<T, 256, 8>, g, 256, in, n, static_cast<T*>(b.partials)); });
    printf("  read only %4dx256: U4 %.3f us, U8 %.3f us\n", g, t4, t8);
  }
  for (int g : {sms * 8, sms * 4}) {
    const double t4 = graph_us([=] { return ex(k_read_u<T, 256, 4>, g, 256, in, n, static_cast<T*>(b.partials)); });
    printf("  read only %4dx256 U4 (full occupancy): %.3f us\n", g, t4);
  }
  const double te = graph_us([=] { return ex(k_empty<32>, 1, 32, static_cast<float*>(b.out)); });
  printf("  empty kernel 1x32: %.3f us\n", te);
  cudaFree(b.in); cudaFree(b.out); cudaFree(b.slots); cudaFree(b.counter); cudaFree(b.partials); cudaFree(ct); cudaFree(lt);
}

void per_call_4m() {
  const long long n = 1ll << 22; const size_t bytes = n * 4;
  float *in, *out; unsigned long long* slots; unsigned* counter; void* lt; size_t lb = 64 << 20;
  CK(cudaMalloc(&in, bytes)); CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&slots, 1 << 16)); CK(cudaMemset(slots, 0, 1 << 16));
  CK(cudaMalloc(&counter, 256)); CK(cudaMemset(counter, 0, 256)); CK(cudaMalloc(&lt, lb)); CK(cudaMemset(lt, 0, lb));
  std::vector<float> h(n); std::mt19937_64 r(5); for (float& x : h) x = float(int(r() % 2001) - 1000) / 8;
  CK(cudaMemcpy(in, h.data(), bytes, cudaMemcpyHostToDevice));
  size_t cb = 0; void* ct; CK(cub::DeviceReduce::Sum(nullptr, cb, in, out, n, S)); CK(cudaMalloc(&ct, cb));
  Call cub = [=] { size_t t = cb; return cub::DeviceReduce::Sum(ct, t, in, out, n, S); };
  gpureduce::Options z; z.temp_storage_zeroed = true;
  auto k1 = k_tma<float, 256, 4>; CK(cudaFuncSetAttribute(k1, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024));
  auto tma = [=](int g) { return Call([=] {
    cudaLaunchConfig_t c{}; c.gridDim = g; c.blockDim = 256; c.dynamicSmemBytes = bytes / g; c.stream = S;
    cudaLaunchAttribute at; at.id = cudaLaunchAttributeProgrammaticStreamSerialization; at.val.programmaticStreamSerializationAllowed = 1; c.attrs = &at; c.numAttrs = 1;
    return cudaLaunchKernelEx(&c, k1, (const float*)in, n, slots, counter, out); }); };
  struct Row { const char* name; Call f; };
  std::vector<Row> rows = {
    {"library default", [=] { size_t t = lb; return gpureduce::DeviceReduce::Sum<float, float>(lt, t, in, out, n, S); }},
    {"library zeroed", [=] { size_t t = lb; return gpureduce::DeviceReduce::Sum<float, float>(lt, t, in, out, n, S, z); }},
    {"flag U4 256x256", [=] { return ex(k_flag_u<float, 256, 4>, 256, 256, (const float*)in, n, slots, counter, out); }},
    {"flag U8 256x256", [=] { return ex(k_flag_u<float, 256, 8>, 256, 256, (const float*)in, n, slots, counter, out); }},
    {"tma P4 256x256", tma(256)},
    {"tma P4 512x256", tma(512)},
    {"empty kernel 1x32", [=] { return ex(k_empty<32>, 1, 32, out); }},
  };
  printf("\n== per call f32 n=4194304 (16 MiB, L2-resident), paired with CUB (median of 3000 ABBA pairs)\n");
  for (int rep = 0; rep < 2; ++rep)
    for (auto& row : rows) {
      CK(row.f()); CK(cudaStreamSynchronize(S));
      const Pair p = paired(row.f, cub, 3000);
      printf("  %-22s %7.2f vs CUB %7.2f us  ratio %.3f\n", row.name, p.a, p.b, p.r);
    }
  cudaFree(in); cudaFree(out); cudaFree(slots); cudaFree(counter); cudaFree(lt); cudaFree(ct);
}

int main() {
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking)); cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("%s\n", prop.name);
  graph_size<int>("i32", 1 << 16);
  graph_size<int>("i32", 1 << 20);
  graph_size<float>("f32", 1 << 16);
  graph_size<float>("f32", 1 << 20);
  graph_size<float>("f32 (8 MiB, the bytes of 1M doubles)", 1 << 21);
  graph_size<float>("f32", 1 << 22);
  per_call_4m();
  printf("done\n");
}
