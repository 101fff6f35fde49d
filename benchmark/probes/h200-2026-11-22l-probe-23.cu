// Probe run 23 (2026-11-22l). Two questions.
//  A. Inside graphs the library's zeroed last_block kernel is 0.15-0.2 us slower than a minimal
//     kernel with the same combine at 2^20-2^21 floats (probe 22: 2.57 vs 2.40 us, 3.09 vs 2.89),
//     and 2^20 doubles take 0.25 us more than 2^21 floats (the same bytes). Probe 12 pinned the
//     floats' gap on the fold loop (fold_strided_vectors + RunningFold), not the layout, the order
//     or the epilogue. Here the library's own kernel body with one part of the loop swapped at a
//     time (flags F, combinable): 1 the remainder one vector at a time instead of the ragged batch,
//     2 an identity start (-0.0 for floats: the exact additive identity, so the same bits) instead
//     of RunningFold's has_value select, 4 32-bit loop indices. F=0 is the library's code, built
//     here, checked against the library's kernel in the same run.
//  B. Per call at 4096 items, i32 sits at 1.005-1.015x CUB while its kernel is faster than CUB's
//     in graphs. We launch with the PDL attribute (cudaLaunchKernelEx); CUB's reduce launches with
//     <<<>>>. Paired with CUB: the library's one-block kernel launched with the attribute, without
//     it, and by <<<>>>; and the one-block body with an identity start.
// Library at 48f6438. Build from the repository root:
//   nvcc -std=c++17 -O3 -arch=sm_90 -Iinclude -Ibenchmark/probes -o probe23
//     benchmark/probes/h200-2026-11-22l-probe-23.cu <build dir>/libgpureduce.a
#include "h200-2026-11-22d-graph-probe-harness.cuh"

#include <cstdint>

namespace d = gpureduce::detail;
template <class T> using PT = d::Problem<T, T, T, d::sum_op_t<T, T>, T>;
template <class T> using Args = d::KernelArgs<PT<T>>;
using VR = d::VectorizedRung;

enum : int { kSerialRemainder = 1, kIdentityStart = 2, kIndex32 = 4 };

// -0.0 is the exact identity of IEEE addition (-0 + x == x for every x, zeros and NaN included);
// 0 for integers.
template <class T> __device__ __forceinline__ T identity() {
  if constexpr (std::is_floating_point_v<T>) return T(-0.0); else return T(0);
}

template <class T, int F> struct Acc;
template <class T> struct Acc<T, 0> {  // RunningFold
  d::RunningFold<T, d::SumOp> f{d::SumOp{}};
  __device__ __forceinline__ void add(T x) { f.add(x); }
  __device__ __forceinline__ T value() const { return f.value; }
};
template <class T> struct Acc<T, 1> {  // identity start
  T v = identity<T>();
  __device__ __forceinline__ void add(T x) { v = v + x; }
  __device__ __forceinline__ T value() const { return v; }
};

template <int F, class Index, class Fold>
__device__ __forceinline__ void var_loop(const uint4* vectors, Index first, Index stride, Index count, Fold& fold) {
  constexpr int K = VR::kVectorsInFlight;
  Index v = first;
  for (; v + (K - 1) * stride < count; v += K * stride) {
    uint4 raw[K];
#pragma unroll
    for (int k = 0; k < K; ++k) raw[k] = __ldg(vectors + v + k * stride);
#pragma unroll
    for (int k = 0; k < K; ++k) fold(raw[k]);
  }
  if constexpr (F & kSerialRemainder) {
    for (; v < count; v += stride) fold(__ldg(vectors + v));
  } else if (v < count) {
    uint4 raw[K];
#pragma unroll
    for (int k = 0; k < K; ++k)
      if (v + k * stride < count) raw[k] = __ldg(vectors + v + k * stride);
#pragma unroll
    for (int k = 0; k < K; ++k)
      if (v + k * stride < count) fold(raw[k]);
  }
}

// VectorizedRung::reduce<256> for contiguous T with the swaps F.
template <class T, int F>
__device__ __forceinline__ T var_reduce(const T* data, long long n, T* shared) {
  const VR::Layout l = VR::layout(reinterpret_cast<std::uintptr_t>(data), sizeof(T), n);
  const uint4* vectors = reinterpret_cast<const uint4*>(data + l.head);
  const int tid = int(threadIdx.x);
  const long long threads = 256, rank = blockIdx.x, blocks = gridDim.x;
  d::SumOp op;
  Acc<T, (F & kIdentityStart) ? 1 : 0> mine;
  auto fold = [&](const uint4& raw) { mine.add(VR::fold_vector<T, T>(raw, op)); };
  if constexpr (F & kIndex32)
    var_loop<F, unsigned>(vectors, unsigned(rank * threads + tid), unsigned(threads * blocks), unsigned(l.vectors), fold);
  else
    var_loop<F, std::int64_t>(vectors, rank * threads + tid, threads * blocks, l.vectors, fold);
  long long first_free = l.vectors - rank * threads;
  first_free = first_free < 0 ? 0 : (first_free > threads ? threads : first_free);
  if (rank == 0) {
    const long long tail = n - l.tail_begin;
    if (tid < l.head) mine.add(data[tid]);
    if (tid < tail) mine.add(data[l.tail_begin + tid]);
    first_free = first_free > l.head ? first_free : l.head;
    first_free = first_free > tail ? first_free : tail;
  }
  return d::block_reduce_shuffle(mine.value(), int(first_free), op, shared);
}

// reduce_shaped_grid<VectorizedRung, 256, P, last_block> with var_reduce in place of the rung.
template <class T, int F> __global__ void __launch_bounds__(256) k_var(Args<T> a) {
  d::wait_for_previous_kernel_then_release_next();
  T* shared = d::dynamic_shared<PT<T>>();
  const T partial = var_reduce<T, F>(a.d_in, a.num_items, shared);
  if (d::finished_one_block(a, partial)) return;
  d::last_block_epilogue<VR, 256>(a, partial, shared);
}

// reduce_one_block_kernel<VectorizedRung, 256> with an identity start (B).
template <class T> __global__ void __launch_bounds__(256, 1) k_one_identity(Args<T> a) {
  d::wait_for_previous_kernel_then_release_next();
  if (d::finished_empty_input(a)) return;
  const T* data = a.d_in; const int n = int(a.num_items);
  constexpr int kPerVector = 16 / int(sizeof(T));
  const int misalign = int(reinterpret_cast<std::uintptr_t>(data) % 16);
  int head = misalign == 0 ? 0 : (16 - misalign) / int(sizeof(T));
  head = head < n ? head : n;
  const int vector_count = (n - head) / kPerVector, tail_begin = head + vector_count * kPerVector, tail = n - tail_begin;
  const int tid = int(threadIdx.x);
  T head_item = identity<T>(), tail_item = identity<T>();
  if (tid < head) head_item = data[tid];
  if (tid < tail) tail_item = data[tail_begin + tid];
  Acc<T, 1> mine; d::SumOp op;
  auto fold = [&](const uint4& raw) { mine.add(VR::fold_vector<T, T>(raw, op)); };
  VR::fold_strided_vectors(reinterpret_cast<const uint4*>(data + head), tid, 256, vector_count, fold);
  mine.add(head_item); mine.add(tail_item);
  int valid = vector_count < 256 ? vector_count : 256;
  valid = valid > head ? valid : head; valid = valid > tail ? valid : tail;
  const T total = d::block_reduce_shuffle(mine.value(), valid, op, d::dynamic_shared<PT<T>>());
  if (threadIdx.x == 0) d::write_result(a, total);
}

template <class K, class... A> cudaError_t launch_pdl(K k, int g, size_t smem, A... a) {
  cudaLaunchConfig_t c{}; c.gridDim = g; c.blockDim = 256; c.stream = S; c.dynamicSmemBytes = smem;
  cudaLaunchAttribute at; at.id = cudaLaunchAttributeProgrammaticStreamSerialization; at.val.programmaticStreamSerializationAllowed = 1; c.attrs = &at; c.numAttrs = 1;
  return cudaLaunchKernelEx(&c, k, a...);
}
template <class K, class... A> cudaError_t launch_plain_ex(K k, int g, size_t smem, A... a) {
  cudaLaunchConfig_t c{}; c.gridDim = g; c.blockDim = 256; c.stream = S; c.dynamicSmemBytes = smem;
  return cudaLaunchKernelEx(&c, k, a...);
}

template <class T> struct Buf {
  T* in; T* out; void* ct; size_t ctb = 0; unsigned char* temp; void* lt; size_t ltb = 64 << 20;
  explicit Buf(long long maxn) {
    CK(cudaMalloc(&in, maxn * sizeof(T) + 64)); CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&temp, 1 << 20)); CK(cudaMemset(temp, 0, 1 << 20));
    CK(cudaMalloc(&lt, ltb)); CK(cudaMemset(lt, 0, ltb));
    std::vector<T> h(maxn); std::mt19937_64 r(23); for (T& x : h) { int v = int(r() % 32) - 16; x = T(v >= 0 ? v + 1 : v); }
    CK(cudaMemcpy(in, h.data(), maxn * sizeof(T), cudaMemcpyHostToDevice));
    CK(cub::DeviceReduce::Sum(nullptr, ctb, in, out, maxn, S)); CK(cudaMalloc(&ct, ctb));
  }
  T result() { T r; CK(cudaStreamSynchronize(S)); CK(cudaMemcpy(&r, out, sizeof(T), cudaMemcpyDeviceToHost)); return r; }
  Args<T> args(long long n) { return Args<T>{in, out, n, temp, T{}, {}, true, std::uint8_t(gpureduce::Pipeline::last_block), true}; }
};

template <class T> void graph_rows(const char* tname, Buf<T>& b, long long n) {
  gpureduce::Options z; z.temp_storage_zeroed = true;
  gpureduce::LaunchPlan plan; CK(gpureduce::DeviceReduce::PlanSum<T, T>(plan, b.in, n, z, S));
  const int g = plan.grid_blocks;
  Call cub = [=, &b] { size_t x = b.ctb; return cub::DeviceReduce::Sum(b.ct, x, b.in, b.out, n, S); };
  CK(cub()); const T ref = b.result(); const double gc = std::min(graph_us(cub), graph_us(cub));
  printf("\n== graph %s n=%lld, library zeroed plan %dx%d %s: CUB %.3f us per reduction\n", tname, n, g, plan.block_threads,
         gpureduce::to_string(plan.pipeline), gc);
  auto row = [&](const char* what, const Call& f) {
    CK(cudaMemset(b.out, 0x7f, 64)); CK(f()); const T r = b.result(); const double g1 = graph_us(f), g2 = graph_us(f);
    printf("  %-44s %7.3f %7.3f us  %.3fx CUB %s\n", what, g1, g2, std::min(g1, g2) / gc, r == ref ? "ok" : "WRONG");
  };
  const Args<T> a = b.args(n);
  const size_t smem = VR::shared_bytes(256, sizeof(T));
  for (int rep = 0; rep < 2; ++rep) {
    row("library API, zeroed", [=, &b] { size_t t = b.ltb; return gpureduce::DeviceReduce::Sum<T, T>(b.lt, t, b.in, b.out, n, S, z); });
    row("library reduce_last_block_kernel", [=] { return launch_pdl(d::reduce_last_block_kernel<VR, 256, PT<T>>, g, smem, a); });
    row("F0 library body rebuilt here", [=] { return launch_pdl(k_var<T, 0>, g, smem, a); });
    row("F1 serial remainder", [=] { return launch_pdl(k_var<T, 1>, g, smem, a); });
    row("F2 identity start", [=] { return launch_pdl(k_var<T, 2>, g, smem, a); });
    row("F3 serial remainder + identity", [=] { return launch_pdl(k_var<T, 3>, g, smem, a); });
    row("F4 32-bit indices", [=] { return launch_pdl(k_var<T, 4>, g, smem, a); });
    row("F5 serial remainder + 32-bit", [=] { return launch_pdl(k_var<T, 5>, g, smem, a); });
    row("F6 identity + 32-bit", [=] { return launch_pdl(k_var<T, 6>, g, smem, a); });
    row("F7 all three", [=] { return launch_pdl(k_var<T, 7>, g, smem, a); });
  }
}

template <class T> void per_call_rows(const char* tname, Buf<T>& b, long long n, int pairs) {
  Call cub = [=, &b] { size_t x = b.ctb; return cub::DeviceReduce::Sum(b.ct, x, b.in, b.out, n, S); };
  CK(cub()); const T ref = b.result();
  const Args<T> a = b.args(n);
  const size_t smem = VR::shared_bytes(256, sizeof(T));
  auto one_block = d::reduce_one_block_kernel<VR, 256, PT<T>>;
  struct Row { const char* name; Call f; };
  std::vector<Row> rows = {
      {"library API, default Options", [=, &b] { size_t t = b.ltb; return gpureduce::DeviceReduce::Sum<T, T>(b.lt, t, b.in, b.out, n, S); }},
      {"one-block kernel, PDL attribute", [=] { return launch_pdl(one_block, 1, smem, a); }},
      {"one-block kernel, LaunchKernelEx no attr", [=] { return launch_plain_ex(one_block, 1, smem, a); }},
      {"one-block kernel, <<<>>>", [=] { one_block<<<1, 256, smem, S>>>(a); return cudaGetLastError(); }},
      {"identity-start one-block, PDL attribute", [=] { return launch_pdl(k_one_identity<T>, 1, smem, a); }},
      {"identity-start one-block, <<<>>>", [=] { k_one_identity<T><<<1, 256, smem, S>>>(a); return cudaGetLastError(); }},
  };
  printf("\n== per call %s n=%lld, paired with CUB (ABBA, median of %d per-pair ratios; medians of A and B in us)\n", tname, n, pairs);
  for (auto& row : rows) { CK(cudaMemset(b.out, 0x7f, 64)); CK(row.f()); const T r = b.result(); if (!(r == ref)) printf("  %s WRONG\n", row.name); }
  for (int rep = 0; rep < 3; ++rep)
    for (auto& row : rows) {
      const Pair p = paired(row.f, cub, pairs);
      printf("  %-44s %6.2f vs CUB %6.2f us  ratio %.4f\n", row.name, p.a, p.b, p.r);
    }
}

int main() {
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking)); cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("%s\n", prop.name);
  {
    Buf<float> b(1 << 22);
    graph_rows<float>("f32", b, 1 << 16); graph_rows<float>("f32", b, 1 << 20);
    graph_rows<float>("f32", b, 1 << 21); graph_rows<float>("f32", b, 1 << 22);
  }
  {
    Buf<double> b(1 << 20);
    graph_rows<double>("f64", b, 1 << 16); graph_rows<double>("f64", b, 1 << 18); graph_rows<double>("f64", b, 1 << 20);
  }
  { Buf<int> b(1 << 12); per_call_rows<int>("i32", b, 4096, 20000); per_call_rows<int>("i32", b, 1024, 20000); }
  { Buf<float> b(1 << 12); per_call_rows<float>("f32", b, 4096, 20000); }
  printf("done\n");
}
