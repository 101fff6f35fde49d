// Probe runs 41-47 (2026-11-22r): the library's kernels before (HEAD e8cc9a2, its headers copied
// into namespace gpureduce_old: `git archive e8cc9a2 include`, directory renamed gpureduce_old and
// "namespace gpureduce" / "gpureduce::" / "<gpureduce/" renamed to match) and after this stop's
// changes, on the same buffers: automatic's zeroed last_block kernel and its captured two_kernel
// pair (first pass + partials kernel). Old and new must give the same bits (random floats, whose
// sums round, not only exact sums). What "new" was in each run:
//   41: the two tests (one block, empty input) after the data in the shaped kernels; the "every
//       thread holds a value" prefix computed before the loads; the short path for folding no
//       more partials than threads. (This run raced: the input copy and the storage memset ran
//       on the legacy stream, which the probe's non-blocking stream does not wait for. Its
//       timings stand; its WRONG / BITS lines were that race. Since run 42 it synchronizes.)
//   42: as 41, the prefix after the loads again, behind one test of l.vectors (run 41 showed the
//       hoisted prefix ahead of the first load, 0.03 us slower for doubles), the layout in 32 bits.
//   43: as 42, block 0's tail computed only in block 0 (ptxas had recomputed the layout after the
//       loop for every block).
//   44: as 43, plus rows with 8 vectors in flight per thread (kVectorsInFlight = 8, from a third
//       copy of the headers, namespace gpureduce_v8): not adopted.
//   45: as 43, plus the one-warp fold of the partials, in last_block's folding block and as
//       two_kernel's second kernel (32 threads), its virtual warps' trees one after another.
//   46: as 45, the virtual warps' trees level by level (interleaved).
//   47: as 43, plus the one-warp second kernel for 4-byte accumulators only (what dispatch does).
// This source is run 47's. Build from the repository root, with the old headers as above in
// build-scratch/old/include:
//   nvcc -std=c++17 -O3 -arch=sm_90 -Iinclude -Ibuild-scratch/old/include -Ibenchmark/probes
//     -o probe41 benchmark/probes/h200-2026-11-22r-probe-41.cu <build dir>/libgpureduce.a
#include "h200-2026-11-22d-graph-probe-harness.cuh"
#include <gpureduce_old/device_reduce.cuh>
namespace dn = gpureduce::detail;
namespace dO = gpureduce_old::detail;
template <class T> using PN = dn::Problem<T, T, T, dn::sum_op_t<T, T>, T>;
template <class T> using PO = dO::Problem<T, T, T, dO::sum_op_t<T, T>, T>;
template <class K, class... A> cudaError_t launch_pdl(K k, int g, size_t smem, A... a) {
  cudaLaunchConfig_t cfg{}; cfg.gridDim = g; cfg.blockDim = 256; cfg.stream = S; cfg.dynamicSmemBytes = smem;
  cudaLaunchAttribute at; at.id = cudaLaunchAttributeProgrammaticStreamSerialization; at.val.programmaticStreamSerializationAllowed = 1; cfg.attrs = &at; cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, k, a...);
}
template <class K, class... A> cudaError_t launch_pdl32(K k, A... a) {
  cudaLaunchConfig_t cfg{}; cfg.gridDim = 1; cfg.blockDim = 32; cfg.stream = S; cfg.dynamicSmemBytes = 0;
  cudaLaunchAttribute at; at.id = cudaLaunchAttributeProgrammaticStreamSerialization; at.val.programmaticStreamSerializationAllowed = 1; cfg.attrs = &at; cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, k, a...);
}
template <class T> struct Rows {
  struct Row { std::string name; Call f; };
  std::vector<Row> rows;
  void add(const std::string& tag, const T* in, T* out, long long n, unsigned char* st, int g, bool counted) {
    const size_t smem = dn::VectorizedRung::shared_bytes(256, sizeof(T));
    const dn::KernelArgs<PN<T>> an{in, out, n, st, T{}, {}, true, std::uint8_t(gpureduce::Pipeline::last_block), !counted};
    const dO::KernelArgs<PO<T>> ao{in, out, n, st, T{}, {}, true, std::uint8_t(gpureduce_old::Pipeline::last_block), !counted};
    const dn::KernelArgs<PN<T>> tn{in, out, n, st, T{}, {}, true, std::uint8_t(gpureduce::Pipeline::two_kernel), false};
    const dO::KernelArgs<PO<T>> to{in, out, n, st, T{}, {}, true, std::uint8_t(gpureduce_old::Pipeline::two_kernel), false};
    rows.push_back({"old zeroed last_block" + tag, [=] { return launch_pdl(dO::reduce_last_block_kernel<dO::VectorizedRung, 256, PO<T>>, g, smem, ao); }});
    rows.push_back({"new zeroed last_block" + tag, [=] { return launch_pdl(dn::reduce_last_block_kernel<dn::VectorizedRung, 256, PN<T>>, g, smem, an); }});
    rows.push_back({"old two_kernel pair" + tag, [=] { cudaError_t e = launch_pdl(dO::reduce_first_pass_kernel<dO::VectorizedRung, 256, PO<T>>, g, smem, to);
      return e ? e : launch_pdl(dO::reduce_partials_kernel<dO::VectorizedRung, 0, PO<T>>, 1, smem, to, g); }});
    rows.push_back({"new two_kernel pair" + tag, [=] { cudaError_t e = launch_pdl(dn::reduce_first_pass_kernel<dn::VectorizedRung, 256, PN<T>>, g, smem, tn);
      auto warp_kernel = dn::partials_in_warp_kernel_for<dn::VectorizedRung, PN<T>>(256);
      if (e) return e;
      return warp_kernel ? launch_pdl32(warp_kernel, tn, g) : launch_pdl(dn::reduce_partials_kernel<dn::VectorizedRung, 0, PN<T>>, 1, smem, tn, g); }});
  }
};
template <class T> void size_rows(const char* tname, long long n) {
  gpureduce::Options zo; zo.temp_storage_zeroed = true;
  T* probe_in; CK(cudaMalloc(&probe_in, 64 * 4));
  gpureduce::LaunchPlan plan; CK(gpureduce::DeviceReduce::PlanSum<T, T>(plan, probe_in, n, zo, S)); cudaFree(probe_in);
  const int g = plan.grid_blocks;
  const bool counted = std::is_integral_v<T> && sizeof(T) == 4;
  printf("\n== graph %s n=%lld grid %d x 256 (zeroed plan: %s) (us per reduction, better of two graphs)\n", tname, n, g, plan.rationale);
  for (size_t skew : {size_t(256), size_t(5) << 20, size_t(23) << 20}) {
    void* spacer; CK(cudaMalloc(&spacer, skew));
    T *in, *out; unsigned char *sa, *sb; void* ct; size_t ctb = 0;
    CK(cudaMalloc(&in, n * sizeof(T))); CK(cudaMalloc(&out, 64));
    CK(cudaMalloc(&sa, 1 << 20)); CK(cudaMemset(sa, 0, 1 << 20)); CK(cudaMalloc(&sb, 1 << 20)); CK(cudaMemset(sb, 0, 1 << 20)); CK(cudaDeviceSynchronize());
    std::vector<T> h(n); std::mt19937_64 r(41 + skew);
    CK(cub::DeviceReduce::Sum(nullptr, ctb, in, out, n, S)); CK(cudaMalloc(&ct, ctb));
    Call cub = [=] { size_t x = ctb; return cub::DeviceReduce::Sum(ct, x, in, out, n, S); };
    Rows<T> R; R.add(", storage A", in, out, n, sa, g, counted); R.add(", storage B", in, out, n, sb, g, counted);
    auto run_one = [&](size_t i) { T got; CK(cudaMemsetAsync(out, 0x7f, 64, S)); CK(R.rows[i].f()); CK(cudaStreamSynchronize(S)); CK(cudaMemcpy(&got, out, sizeof(T), cudaMemcpyDeviceToHost)); return got; };
    bool ok = true;
    // Bits: random values (sums round for floats): old and new of each pair must agree.
    for (T& x : h) { if constexpr (std::is_integral_v<T>) x = T(r()); else x = T(double(r() >> 11) * 0x1p-53 * 2.0 - 0.7); }
    CK(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice)); CK(cudaDeviceSynchronize());
    for (size_t i = 0; i < R.rows.size(); i += 2) { T a = run_one(i), b = run_one(i + 1); if (memcmp(&a, &b, sizeof(T)) != 0) { ok = false; printf("  BITS DIFFER: %s vs %s\n", R.rows[i].name.c_str(), R.rows[i + 1].name.c_str()); } }
    // Timing on small integers (exact): each must equal CUB.
    for (T& x : h) { int v = int(r() % 32) - 16; x = T(v >= 0 ? v + 1 : v); }
    CK(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice)); CK(cudaDeviceSynchronize());
    CK(cub()); CK(cudaStreamSynchronize(S)); T ref; CK(cudaMemcpy(&ref, out, sizeof(T), cudaMemcpyDeviceToHost));
    auto check = [&](const char* when) { for (size_t i = 0; i < R.rows.size(); ++i) { T got = run_one(i); if (!(got == ref)) { ok = false; printf("  WRONG %s: %s\n", when, R.rows[i].name.c_str()); } } };
    check("before graphs");
    std::vector<double> best(R.rows.size(), 1e9);
    const double gc = graph_us(cub);
    for (int pass = 0; pass < 2; ++pass) for (size_t i = 0; i < R.rows.size(); ++i) best[i] = std::min(best[i], graph_us(R.rows[i].f));
    check("after graphs");
    printf("  skew %8zu B: CUB %.3f%s\n", skew, gc, ok ? "" : "  (WRONG above)");
    for (size_t i = 0; i < R.rows.size(); ++i) printf("    %-36s %6.3f us  %.3fx CUB\n", R.rows[i].name.c_str(), best[i], best[i] / gc);
    cudaFree(ct); cudaFree(sa); cudaFree(sb); cudaFree(out); cudaFree(in); cudaFree(spacer);
  }
}
int main() {
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking)); cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("%s\n", prop.name);
  size_rows<float>("f32", 1 << 16); size_rows<float>("f32", 1 << 18); size_rows<float>("f32", 1 << 20); size_rows<float>("f32", 1 << 22);
  size_rows<int>("i32", 1 << 20);
  size_rows<double>("f64", 1 << 18); size_rows<double>("f64", 1 << 20);
  printf("done\n");
}
