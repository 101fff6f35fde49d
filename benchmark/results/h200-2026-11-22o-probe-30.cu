// Probe run 30 (2026-11-22o): two ways to take a round trip off last_block's critical path inside
// graphs, with the library's own kernel bodies, placement controlled (three allocations, variants
// alternated on the same buffers, better of two graphs each).
//  1. A dedicated collector. The grid is the data grid plus one block that reads no data: it polls
//     the flagged slots from the start and folds them as last_block's folding block does (the
//     library's FlaggedPartialsReader and fold, so the same bits). No block takes a ticket, so the
//     folder does not wait for the ticket's round trip after the last partial lands. Session i's
//     collector (8a28981, reverted) was the block that started last, with data of its own to read.
//  2. A late wait for default Options inside captures. Now the arm kernel zeroes the control block
//     and the reduction kernel waits for it (griddepcontrol.wait) before it reads any data. Here the
//     arm kernel waits for the previous kernel, then lets the reduction launch, then zeroes; the
//     reduction reads its data first and waits for the arm kernel only before its combine.
//     (Probe only: the reduction reads its input before its own griddepcontrol.wait, which the PDL
//     contract does not cover by itself; see the log.)
// Library at ea23ff2. Build from the repository root:
//   nvcc -std=c++17 -O3 -arch=sm_90 -Iinclude -Ibenchmark/results -o probe30
//     benchmark/results/h200-2026-11-22o-probe-30.cu <build dir>/libgpureduce.a
#include "h200-2026-11-22d-graph-probe-harness.cuh"

namespace d = gpureduce::detail;
template <class T> using PT = d::Problem<T, T, T, d::sum_op_t<T, T>, T>;
using VR = d::VectorizedRung;

__device__ __forceinline__ void wait_only() { asm volatile("griddepcontrol.wait;" ::: "memory"); }
__device__ __forceinline__ void trigger_only() { asm volatile("griddepcontrol.launch_dependents;" ::: "memory"); }

// The library's arm kernel with its wait first and its trigger second (kLate), or the library's.
template <int kThreads> __global__ void __launch_bounds__(kThreads) arm_late(std::uint64_t* temp, unsigned words) {
  wait_only(); trigger_only();
  for (unsigned i = threadIdx.x; i < words; i += kThreads) temp[i] = 0;
}

// reduce_shaped_grid<VectorizedRung, 256, P, last_block>: kLate reads its data before it waits.
template <class T, bool kLate> __global__ void __launch_bounds__(256) k_lb(d::KernelArgs<PT<T>> a) {
  if constexpr (!kLate) d::wait_for_previous_kernel_then_release_next();
  if (d::finished_empty_input(a)) return;
  T* shared = d::dynamic_shared<PT<T>>();
  const T partial = VR::reduce<256, T>(d::InputReader<T, T>{a.d_in}, a.num_items, std::int64_t(blockIdx.x),
                                       std::int64_t(gridDim.x), a.op, shared, static_cast<T*>(nullptr));
  if constexpr (kLate) { wait_only(); trigger_only(); }
  if (d::finished_one_block(a, partial)) return;
  d::last_block_epilogue<VR, 256>(a, partial, shared);
}

// The dedicated collector: blocks 0..G-1 read data and publish flagged slots; block G folds.
template <class T, bool kLate> __global__ void __launch_bounds__(256) k_coll(d::KernelArgs<PT<T>> a) {
  if constexpr (!kLate) d::wait_for_previous_kernel_then_release_next();
  const unsigned data_grid = gridDim.x - 1;
  T* shared = d::dynamic_shared<PT<T>>();
  if (blockIdx.x < data_grid) {
    const T partial = VR::reduce<256, T>(d::InputReader<T, T>{a.d_in}, a.num_items, std::int64_t(blockIdx.x),
                                         std::int64_t(data_grid), a.op, shared, static_cast<T*>(nullptr));
    if constexpr (kLate) { wait_only(); trigger_only(); }
    if (threadIdx.x == 0) d::publish_flagged(a.flagged_slots(), blockIdx.x, partial);
    return;
  }
  if constexpr (kLate) { wait_only(); trigger_only(); }
  const T total = d::fold_partials_from<VR, 256>(d::FlaggedPartialsReader<T>{a.flagged_slots()}, a,
                                                 std::int64_t(data_grid), shared);
  if (threadIdx.x == 0) d::write_result(a, total);
}

template <class K, class... A> cudaError_t launch_pdl(K k, int g, int b, size_t smem, A... a) {
  cudaLaunchConfig_t cfg{}; cfg.gridDim = g; cfg.blockDim = b; cfg.stream = S; cfg.dynamicSmemBytes = smem;
  cudaLaunchAttribute at; at.id = cudaLaunchAttributeProgrammaticStreamSerialization; at.val.programmaticStreamSerializationAllowed = 1; cfg.attrs = &at; cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, k, a...);
}

template <class T> void size_rows(const char* tname, long long n) {
  gpureduce::Options z; z.temp_storage_zeroed = true;
  printf("\n== graph %s n=%lld (us per reduction, better of two graphs)\n", tname, n);
  for (size_t skew : {size_t(256), size_t(5) << 20, size_t(23) << 20}) {
    void* spacer; CK(cudaMalloc(&spacer, skew));
    T *in, *out; unsigned char* temp; void* ct; size_t ctb = 0; void* lt; const size_t ltb = 1 << 20;
    CK(cudaMalloc(&in, n * sizeof(T))); CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&temp, 1 << 20)); CK(cudaMemset(temp, 0, 1 << 20));
    CK(cudaMalloc(&lt, ltb)); CK(cudaMemset(lt, 0xA5, ltb));  // the library's default path: storage not zeroed
    std::vector<T> h(n); std::mt19937_64 r(30 + skew); for (T& x : h) { int v = int(r() % 32) - 16; x = T(v >= 0 ? v + 1 : v); }
    CK(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    CK(cub::DeviceReduce::Sum(nullptr, ctb, in, out, n, S)); CK(cudaMalloc(&ct, ctb));
    Call cub = [=] { size_t x = ctb; return cub::DeviceReduce::Sum(ct, x, in, out, n, S); };
    CK(cub()); CK(cudaStreamSynchronize(S)); T ref; CK(cudaMemcpy(&ref, out, sizeof(T), cudaMemcpyDeviceToHost));
    gpureduce::LaunchPlan plan; CK(gpureduce::DeviceReduce::PlanSum<T, T>(plan, in, n, z, S));
    const int g = plan.grid_blocks;
    const d::KernelArgs<PT<T>> a{in, out, n, temp, T{}, {}, true, std::uint8_t(gpureduce::Pipeline::last_block), true};
    const size_t smem = VR::shared_bytes(256, sizeof(T));
    auto* words = reinterpret_cast<std::uint64_t*>(temp);
    const unsigned nwords = unsigned(sizeof(d::ControlBlock) / 8);
    struct Row { const char* name; Call f; };
    std::vector<Row> rows = {
        {"library API, default Options", [=] { size_t t = ltb; return gpureduce::DeviceReduce::Sum<T, T>(lt, t, in, out, n, S); }},
        {"zeroed: last_block (library)", [=] { return launch_pdl(k_lb<T, false>, g, 256, smem, a); }},
        {"zeroed: collector (grid + 1)", [=] { return launch_pdl(k_coll<T, false>, g + 1, 256, smem, a); }},
        {"arm (library) + last_block", [=] {
          cudaError_t e = launch_pdl(d::arm_temp_storage_kernel<d::kArmThreads>, 1, d::kArmThreads, 0, words, nwords);
          return e == cudaSuccess ? launch_pdl(k_lb<T, false>, g, 256, smem, a) : e; }},
        {"arm late + last_block late", [=] {
          cudaError_t e = launch_pdl(arm_late<d::kArmThreads>, 1, d::kArmThreads, 0, words, nwords);
          return e == cudaSuccess ? launch_pdl(k_lb<T, true>, g, 256, smem, a) : e; }},
        {"arm late + collector late", [=] {
          cudaError_t e = launch_pdl(arm_late<d::kArmThreads>, 1, d::kArmThreads, 0, words, nwords);
          return e == cudaSuccess ? launch_pdl(k_coll<T, true>, g + 1, 256, smem, a) : e; }},
    };
    bool ok = true;
    for (auto& row : rows) { CK(cudaMemset(out, 0x7f, 64)); CK(row.f()); CK(cudaStreamSynchronize(S)); T got; CK(cudaMemcpy(&got, out, sizeof(T), cudaMemcpyDeviceToHost)); if (!(got == ref)) { ok = false; printf("  WRONG: %s\n", row.name); } }
    std::vector<double> best(rows.size(), 1e9);
    const double gc = graph_us(cub);
    for (int pass = 0; pass < 2; ++pass)
      for (size_t i = 0; i < rows.size(); ++i) best[i] = std::min(best[i], graph_us(rows[i].f));
    // Replayed graphs must leave correct answers too (the slots re-armed by each fold).
    for (auto& row : rows) { CK(cudaMemset(out, 0x7f, 64)); CK(row.f()); CK(cudaStreamSynchronize(S)); T got; CK(cudaMemcpy(&got, out, sizeof(T), cudaMemcpyDeviceToHost)); if (!(got == ref)) { ok = false; printf("  WRONG after graphs: %s\n", row.name); } }
    printf("  skew %8zu B, grid %d: CUB %.3f%s\n", skew, g, gc, ok ? "" : "  (WRONG above)");
    for (size_t i = 0; i < rows.size(); ++i) printf("    %-34s %6.3f us  %.3fx CUB\n", rows[i].name, best[i], best[i] / gc);
    cudaFree(ct); cudaFree(lt); cudaFree(temp); cudaFree(out); cudaFree(in); cudaFree(spacer);
  }
}

int main() {
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking)); cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("%s\n", prop.name);
  size_rows<float>("f32", 1 << 16); size_rows<float>("f32", 1 << 20); size_rows<float>("f32", 1 << 21);
  size_rows<double>("f64", 1 << 16); size_rows<double>("f64", 1 << 20);
  size_rows<int>("i32", 1 << 16); size_rows<int>("i32", 1 << 20);
  printf("done\n");
}
