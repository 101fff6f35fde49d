// Probe run 49 (2026-11-22r): integer sums' RunningFold starting from zero (no "holds a value yet"
// select; the same bits) against the previous headers (HEAD ac4cebc, copied into namespace
// gpureduce_old as for probe 41), in automatic's one-block kernel, per call: each kernel launched
// directly (as the library's short path launches it, PDL attribute set), paired call by call with
// the other and with CUB (ABBA, median of per-pair ratios), and in graphs. int32 at 1K / 4K / 16K
// (blocks of 128 / 256 / 512), float as the control (its kernel does not change). Build:
//   nvcc -std=c++17 -O3 -arch=sm_90 -Iinclude -Ibuild-scratch/old/include -Ibenchmark/results
//     -o probe49 benchmark/results/h200-2026-11-22r-probe-49.cu <build dir>/libgpureduce.a
// RESULT: not adopted. The new int32 kernels came out larger (424 SASS instructions against 384)
// and no faster: new/old per call 0.986-1.006, in graphs +0.005-0.03 us; the float control, whose
// kernel is unchanged, read 1.006 (so differences under ~1% here are the method's). "New" was
// RunningFold::add doing value = op(value, x) from value = 0 for integer sums.
#include "h200-2026-11-22d-graph-probe-harness.cuh"
#include <gpureduce_old/device_reduce.cuh>
namespace dn = gpureduce::detail;
namespace dO = gpureduce_old::detail;
template <class T> using PN = dn::Problem<T, T, T, dn::sum_op_t<T, T>, T>;
template <class T> using PO = dO::Problem<T, T, T, dO::sum_op_t<T, T>, T>;
template <class K, class... A> cudaError_t launch_pdl(K k, int b, size_t smem, A... a) {
  cudaLaunchConfig_t cfg{}; cfg.gridDim = 1; cfg.blockDim = b; cfg.stream = S; cfg.dynamicSmemBytes = smem;
  cudaLaunchAttribute at; at.id = cudaLaunchAttributeProgrammaticStreamSerialization; at.val.programmaticStreamSerializationAllowed = 1; cfg.attrs = &at; cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, k, a...);
}
template <class T, int B> void rows(const char* tname, long long n) {
  T *in, *out; CK(cudaMalloc(&in, n * sizeof(T))); CK(cudaMalloc(&out, 64)); unsigned char* st; CK(cudaMalloc(&st, 4096));
  std::vector<T> h(n); std::mt19937_64 r(49 + n);
  for (T& x : h) x = std::is_integral_v<T> ? T(r()) : T(int(r() % 32) - 16);
  CK(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice)); CK(cudaDeviceSynchronize());
  void* ct; size_t ctb = 0; CK(cub::DeviceReduce::Sum(nullptr, ctb, in, out, n, S)); CK(cudaMalloc(&ct, ctb));
  Call cub = [=] { size_t x = ctb; return cub::DeviceReduce::Sum(ct, x, in, out, n, S); };
  const size_t smem = dn::VectorizedRung::shared_bytes(B, sizeof(T));
  const dn::KernelArgs<PN<T>> an{in, out, n, st, T{}, {}, true, std::uint8_t(gpureduce::Pipeline::last_block), false};
  const dO::KernelArgs<PO<T>> ao{in, out, n, st, T{}, {}, true, std::uint8_t(gpureduce_old::Pipeline::last_block), false};
  Call oldk = [=] { return launch_pdl(dO::reduce_one_block_kernel<dO::VectorizedRung, B, PO<T>>, B, smem, ao); };
  Call newk = [=] { return launch_pdl(dn::reduce_one_block_kernel<dn::VectorizedRung, B, PN<T>>, B, smem, an); };
  T ref, a, b; CK(cub()); CK(cudaStreamSynchronize(S)); CK(cudaMemcpy(&ref, out, sizeof(T), cudaMemcpyDeviceToHost));
  CK(oldk()); CK(cudaStreamSynchronize(S)); CK(cudaMemcpy(&a, out, sizeof(T), cudaMemcpyDeviceToHost));
  CK(newk()); CK(cudaStreamSynchronize(S)); CK(cudaMemcpy(&b, out, sizeof(T), cudaMemcpyDeviceToHost));
  const bool ok = memcmp(&a, &b, sizeof(T)) == 0 && (!std::is_integral_v<T> || a == ref);
  for (int w = 0; w < 200; ++w) { CK(oldk()); CK(newk()); CK(cub()); }
  CK(cudaStreamSynchronize(S));
  printf("\n== %s n=%lld, one block of %d%s\n", tname, n, B, ok ? "" : "  (WRONG or BITS DIFFER)");
  for (int rep = 0; rep < 2; ++rep) {
    Pair p1 = paired(newk, oldk, 3000), p2 = paired(oldk, cub, 3000), p3 = paired(newk, cub, 3000);
    printf("  per call: new/old %.4f (%.3f / %.3f us)   old/CUB %.4f   new/CUB %.4f\n", p1.r, p1.a, p1.b, p2.r, p3.r);
  }
  double go = 1e9, gn = 1e9;
  for (int pass = 0; pass < 2; ++pass) { go = std::min(go, graph_us(oldk)); gn = std::min(gn, graph_us(newk)); }
  printf("  graph: old %.3f us, new %.3f us, CUB %.3f us\n", go, gn, graph_us(cub));
  cudaFree(in); cudaFree(out); cudaFree(st); cudaFree(ct);
}
int main() {
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking)); cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("%s\n", prop.name);
  rows<int, 128>("i32", 1024); rows<int, 256>("i32", 4096); rows<int, 512>("i32", 16384);
  rows<float, 256>("f32 (control)", 4096);
  printf("done\n");
}
