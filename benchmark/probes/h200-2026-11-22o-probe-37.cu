// Probe runs 36 and 37 (2026-11-22o); run 36 is "probe37 36" (without the full-block tree's rows,
// over its own sizes), run 37 is "probe37". Run 37: probe 36 found the harness's read loop 0.06-0.09 us
// faster than the library's first pass on the same buffers, about the same at every size: a fixed
// cost, not a per-batch one. The SASS (cuobjdump, this session) shows the library's kernel ~60
// instructions longer outside the loop, much of it block_reduce_shuffle's valid-prefix tests. Here
// a third first pass: the library's loop, and the plain shuffle tree when every thread of the
// block holds a value (the same adds in the same order, so the same bits). Run 36: is the "data loop gap" (the harness's read loop
// 0.1-0.2 us faster than the library's at 2^20 floats in graphs, graph probe runs 7-12, 23, 32)
// real, or where the partials lay? Until now the two were timed on different partials buffers.
// Here both first passes write the same partials array, folded by the same one-block kernel.
// Otherwise as probe 35, which reads:
// Probe run 35 (2026-11-22o): probe 34 found the same two kernels, on the same input, 0.1-0.19 us
// apart per reduction in graphs depending only on which allocation holds the partials (a few
// hundred bytes). Does spreading the partials out (one per 32-byte sector, or one per 128-byte
// line, instead of packed) make the time independent of where they lie, and at which level? The
// library's general two_kernel kernels against the same first pass (VectorizedRung, 256 threads)
// storing partial i at partials + i * stride and a one-block fold reading them back (the library's
// fold with a strided reader: same order, same bits). Two allocations of storage x three skews.
// Library at 4de3d0b. Build from the repository root:
//   nvcc -std=c++17 -O3 -arch=sm_90 -Iinclude -Ibenchmark/probes -o probe37
//     benchmark/probes/h200-2026-11-22o-probe-37.cu   (then: probe37 36, or probe37) <build dir>/libgpureduce.a
#include "h200-2026-11-22d-graph-probe-harness.cuh"

namespace d = gpureduce::detail;
static bool kRun36 = false;  // "probe37 36": run 36's rows and sizes
template <class T> using PT = d::Problem<T, T, T, d::sum_op_t<T, T>, T>;
using VR = d::VectorizedRung;

template <class Accum> struct StridedPartialsReader {
  using value_type = Accum;
  static constexpr bool kContiguousInput = false;
  const Accum* data;
  int stride;
  __device__ __forceinline__ Accum operator()(std::int64_t i) const { return d::load_cg(data + i * stride); }
};

template <class T> __global__ void __launch_bounds__(256) k_first(d::KernelArgs<PT<T>> a, int stride) {
  d::wait_for_previous_kernel_then_release_next();
  T* shared = d::dynamic_shared<PT<T>>();
  const T partial = VR::reduce<256, T>(d::InputReader<T, T>{a.d_in}, a.num_items, std::int64_t(blockIdx.x),
                                       std::int64_t(gridDim.x), a.op, shared, static_cast<T*>(nullptr));
  if (threadIdx.x == 0) a.partials()[std::int64_t(blockIdx.x) * stride] = partial;
}
// The harness's read loop (floats only), writing where k_first writes.
__global__ void __launch_bounds__(256) k_first_harness(d::KernelArgs<PT<float>> a) {
  pdl();
  const float s = read_sum<256>(reinterpret_cast<const float4*>(a.d_in), a.num_items / 4);
  if (threadIdx.x == 0) a.partials()[blockIdx.x] = s;
}
// block_reduce_shuffle for a block whose every thread holds a value: no per-lane tests in the
// first stage; the second stage as before (the warps' totals are a prefix of warp 0's lanes).
template <int BLOCK, class Accum, class Op>
__device__ __forceinline__ Accum block_reduce_full(Accum value, Op op, Accum* warp_totals) {
  const int tid = int(threadIdx.x), warp = tid / 32, lane = tid % 32;
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) value = op(value, d::shuffle_down(value, offset));
  if (lane == 0) warp_totals[warp] = value;
  __syncthreads();
  if (warp == 0) {
    if (lane < BLOCK / 32) value = warp_totals[lane];
    value = d::warp_reduce_prefix(value, BLOCK / 32, op);
  }
  return value;
}
// VectorizedRung::reduce (aligned input, no head; tail handled), with the full-block fast path.
template <class T> __global__ void __launch_bounds__(256) k_first_full(d::KernelArgs<PT<T>> a) {
  d::wait_for_previous_kernel_then_release_next();
  T* shared = d::dynamic_shared<PT<T>>();
  constexpr int BLOCK = 256;
  const d::InputReader<T, T> read{a.d_in};
  const std::int64_t n = a.num_items, rank = blockIdx.x, blocks = gridDim.x;
  const VR::Layout l = VR::layout(reinterpret_cast<std::uintptr_t>(read.data), sizeof(T), n);
  const uint4* vectors = reinterpret_cast<const uint4*>(read.data + l.head);
  const int tid = int(threadIdx.x);
  d::RunningFold<T, d::sum_op_t<T, T>> mine{a.op};
  auto fold = [&](const uint4& raw) { mine.add(VR::fold_vector<T, T>(raw, a.op)); };
  VR::fold_strided_vectors(vectors, rank * BLOCK + tid, std::int64_t(BLOCK) * blocks, l.vectors, fold);
  std::int64_t first_free = l.vectors - rank * BLOCK;
  first_free = first_free < 0 ? 0 : (first_free > BLOCK ? BLOCK : first_free);
  if (rank == 0) {
    const std::int64_t tail = n - l.tail_begin;
    if (tid < l.head) mine.add(read(tid));
    if (tid < tail) mine.add(read(l.tail_begin + tid));
    first_free = first_free > l.head ? first_free : l.head;
    first_free = first_free > tail ? first_free : tail;
  }
  const T partial = first_free == BLOCK ? block_reduce_full<BLOCK>(mine.value, a.op, shared)
                                        : d::block_reduce_shuffle(mine.value, int(first_free), a.op, shared);
  if (threadIdx.x == 0) a.partials()[blockIdx.x] = partial;
}
template <class T> __global__ void __launch_bounds__(256) k_fold(d::KernelArgs<PT<T>> a, int count, int stride) {
  d::wait_for_previous_kernel_then_release_next();
  const T total = d::fold_partials_from<VR, 256>(StridedPartialsReader<T>{a.partials(), stride}, a, count,
                                                 d::dynamic_shared<PT<T>>());
  if (threadIdx.x == 0) d::write_result(a, total);
}

template <class K, class... A> cudaError_t launch_pdl(K k, int g, int b, size_t smem, A... a) {
  cudaLaunchConfig_t cfg{}; cfg.gridDim = g; cfg.blockDim = b; cfg.stream = S; cfg.dynamicSmemBytes = smem;
  cudaLaunchAttribute at; at.id = cudaLaunchAttributeProgrammaticStreamSerialization; at.val.programmaticStreamSerializationAllowed = 1; cfg.attrs = &at; cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, k, a...);
}

template <class T> void size_rows(const char* tname, long long n) {
  printf("\n== graph %s n=%lld (us per reduction, better of two graphs)\n", tname, n);
  for (size_t skew : {size_t(256), size_t(5) << 20, size_t(23) << 20}) {
    void* spacer; CK(cudaMalloc(&spacer, skew));
    T *in, *out; unsigned char *sa, *sb; void* ct; size_t ctb = 0; const size_t sbytes = 1 << 20;
    CK(cudaMalloc(&in, n * sizeof(T))); CK(cudaMalloc(&out, 64));
    CK(cudaMalloc(&sa, sbytes)); CK(cudaMemset(sa, 0xA5, sbytes)); CK(cudaMalloc(&sb, sbytes)); CK(cudaMemset(sb, 0xA5, sbytes));
    std::vector<T> h(n); std::mt19937_64 r(35 + skew); for (T& x : h) { int v = int(r() % 32) - 16; x = T(v >= 0 ? v + 1 : v); }
    CK(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    CK(cub::DeviceReduce::Sum(nullptr, ctb, in, out, n, S)); CK(cudaMalloc(&ct, ctb));
    Call cub = [=] { size_t x = ctb; return cub::DeviceReduce::Sum(ct, x, in, out, n, S); };
    CK(cub()); CK(cudaStreamSynchronize(S)); T ref; CK(cudaMemcpy(&ref, out, sizeof(T), cudaMemcpyDeviceToHost));
    gpureduce::LaunchPlan plan; CK(gpureduce::DeviceReduce::PlanSum<T, T>(plan, in, n, gpureduce::Options{}, S));
    const int g = plan.grid_blocks;
    const size_t smem = VR::shared_bytes(256, sizeof(T));
    struct Row { std::string name; Call f; };
    std::vector<Row> rows;
    for (int which = 0; which < 2; ++which) {
      unsigned char* st = which == 0 ? sa : sb;
      const std::string tag = which == 0 ? ", storage A" : ", storage B";
      const d::KernelArgs<PT<T>> a{in, out, n, st, T{}, {}, true, std::uint8_t(gpureduce::Pipeline::two_kernel), false};
      rows.push_back({"library first pass" + tag, [=] {
        cudaError_t e = launch_pdl(k_first<T>, g, 256, smem, a, 1);
        return e == cudaSuccess ? launch_pdl(k_fold<T>, 1, 256, smem, a, g, 1) : e; }});
      if (!kRun36) rows.push_back({"library loop, full-block tree" + tag, [=] {
        cudaError_t e = launch_pdl(k_first_full<T>, g, 256, smem, a);
        return e == cudaSuccess ? launch_pdl(k_fold<T>, 1, 256, smem, a, g, 1) : e; }});
      if constexpr (std::is_same_v<T, float>)
        rows.push_back({"harness read loop" + tag, [=] {
          cudaError_t e = launch_pdl(k_first_harness, g, 256, size_t(0), a);
          return e == cudaSuccess ? launch_pdl(k_fold<T>, 1, 256, smem, a, g, 1) : e; }});
    }
    bool ok = true;
    auto check = [&](const char* when) { for (auto& row : rows) { CK(cudaMemset(out, 0x7f, 64)); CK(row.f()); CK(cudaStreamSynchronize(S)); T got; CK(cudaMemcpy(&got, out, sizeof(T), cudaMemcpyDeviceToHost)); if (!(got == ref)) { ok = false; printf("  WRONG %s: %s\n", when, row.name.c_str()); } } };
    check("before graphs");
    std::vector<double> best(rows.size(), 1e9);
    const double gc = graph_us(cub);
    for (int pass = 0; pass < 2; ++pass)
      for (size_t i = 0; i < rows.size(); ++i) best[i] = std::min(best[i], graph_us(rows[i].f));
    check("after graphs");
    printf("  skew %8zu B, grid %d x 256: CUB %.3f%s\n", skew, g, gc, ok ? "" : "  (WRONG above)");
    for (size_t i = 0; i < rows.size(); ++i) printf("    %-36s %6.3f us  %.3fx CUB\n", rows[i].name.c_str(), best[i], best[i] / gc);
    cudaFree(ct); cudaFree(sa); cudaFree(sb); cudaFree(out); cudaFree(in); cudaFree(spacer);
  }
}

int main(int argc, char** argv) {
  kRun36 = argc > 1 && std::string(argv[1]) == "36";
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking)); cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("%s\n", prop.name);
  if (kRun36) {
    for (int log2n : {16, 18, 20, 21, 22}) size_rows<float>("f32", 1LL << log2n);
  } else {
    size_rows<float>("f32", 1 << 16); size_rows<float>("f32", 1 << 20); size_rows<float>("f32", 1 << 22);
    size_rows<double>("f64", 1 << 18); size_rows<double>("f64", 1 << 20);
  }
  printf("done\n");
}
