// Probe run 26 (2026-11-22l): the collector again, controlled for placement. Commit 8a28981 made
// last_block's flagged slots be folded by the block that started last (a start order drawn before
// the data) instead of the block that took the last ticket; benchmark run k (8a28981) against run j
// (efdf521) then showed it slower at 2^16 floats and 2^20 doubles, faster at 2^20 floats, and it
// was reverted (a645102) though minimal probe kernels gained 0.15-0.2 us everywhere. But runs j and
// k used different allocations, and probe 25 found the same kernel and grid 0.17 us apart in two
// allocations. Here both kernels, the library's zeroed last_block kernel now (ticket) and at
// 8a28981 (collector, its headers built in a namespace of their own), run on the same buffers,
// alternated, over several allocations per size.
// Build from the repository root (8a28981's include/ extracted by git archive into
// build-scratch/inc-collector):
//   nvcc -std=c++17 -O3 -arch=sm_90 -Iinclude -Ibenchmark/results -o probe26
//     benchmark/results/h200-2026-11-22l-probe-26.cu <build dir>/libgpureduce.a
#include "h200-2026-11-22d-graph-probe-harness.cuh"

#define gpureduce gpureduce_collector
#include "../../build-scratch/inc-collector/include/gpureduce/device_reduce.cuh"
#undef gpureduce

namespace d = gpureduce::detail;
namespace c = gpureduce_collector::detail;
template <class T> using PT = d::Problem<T, T, T, d::sum_op_t<T, T>, T>;
template <class T> using PC = c::Problem<T, T, T, c::sum_op_t<T, T>, T>;

template <class K, class... A> cudaError_t launch_pdl(K k, int g, int b, size_t smem, A... a) {
  cudaLaunchConfig_t cfg{}; cfg.gridDim = g; cfg.blockDim = b; cfg.stream = S; cfg.dynamicSmemBytes = smem;
  cudaLaunchAttribute at; at.id = cudaLaunchAttributeProgrammaticStreamSerialization; at.val.programmaticStreamSerializationAllowed = 1; cfg.attrs = &at; cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, k, a...);
}

// One allocation: input, output and temp storage of its own, and a spacer of `skew` bytes
// allocated first so that the next allocation lands elsewhere.
template <class T> void one_allocation(const char* tname, long long n, int grid, size_t skew, double& sum_ticket, double& sum_collector) {
  void* spacer; CK(cudaMalloc(&spacer, skew));
  T *in, *out; unsigned char *temp_t, *temp_c; void* ct; size_t ctb = 0;
  CK(cudaMalloc(&in, n * sizeof(T))); CK(cudaMalloc(&out, 64));
  CK(cudaMalloc(&temp_t, 1 << 20)); CK(cudaMemset(temp_t, 0, 1 << 20)); CK(cudaMalloc(&temp_c, 1 << 20)); CK(cudaMemset(temp_c, 0, 1 << 20));
  std::vector<T> h(n); std::mt19937_64 r(26 + skew); for (T& x : h) { int v = int(r() % 32) - 16; x = T(v >= 0 ? v + 1 : v); }
  CK(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  CK(cub::DeviceReduce::Sum(nullptr, ctb, in, out, n, S)); CK(cudaMalloc(&ct, ctb));
  Call cub = [=] { size_t x = ctb; return cub::DeviceReduce::Sum(ct, x, in, out, n, S); };
  CK(cub()); CK(cudaStreamSynchronize(S)); T ref; CK(cudaMemcpy(&ref, out, sizeof(T), cudaMemcpyDeviceToHost));
  const d::KernelArgs<PT<T>> at{in, out, n, temp_t, T{}, {}, true, std::uint8_t(gpureduce::Pipeline::last_block), true};
  const c::KernelArgs<PC<T>> ac{in, out, n, temp_c, T{}, {}, true, std::uint8_t(gpureduce_collector::Pipeline::last_block), true};
  const size_t smem = d::VectorizedRung::shared_bytes(256, sizeof(T));
  Call ticket = [=] { return launch_pdl(d::reduce_last_block_kernel<d::VectorizedRung, 256, PT<T>>, grid, 256, smem, at); };
  Call collector = [=] { return launch_pdl(c::reduce_last_block_kernel<c::VectorizedRung, 256, PC<T>>, grid, 256, smem, ac); };
  auto check = [&](const Call& f) { CK(cudaMemset(out, 0x7f, 64)); CK(f()); CK(cudaStreamSynchronize(S)); T got; CK(cudaMemcpy(&got, out, sizeof(T), cudaMemcpyDeviceToHost)); return got == ref; };
  const bool ok = check(ticket) && check(collector);
  const double gc = graph_us(cub);
  double t[2] = {1e9, 1e9}, k[2] = {1e9, 1e9};
  for (int i = 0; i < 2; ++i) { t[i] = graph_us(ticket); k[i] = graph_us(collector); }
  const double tb = std::min(t[0], t[1]), kb = std::min(k[0], k[1]);
  printf("  skew %8zu B: CUB %6.3f  ticket %6.3f %6.3f  collector %6.3f %6.3f us  collector - ticket %+.3f  (%.3fx / %.3fx CUB) %s\n",
         skew, gc, t[0], t[1], k[0], k[1], kb - tb, tb / gc, kb / gc, ok ? "ok" : "WRONG");
  sum_ticket += tb; sum_collector += kb;
  cudaFree(ct); cudaFree(temp_c); cudaFree(temp_t); cudaFree(out); cudaFree(in); cudaFree(spacer);
}

template <class T> void size_rows(const char* tname, long long n, int grid) {
  printf("\n== graph %s n=%lld, %dx256 (us per reduction)\n", tname, n, grid);
  double st = 0, sc = 0; int rows = 0;
  for (size_t skew : {size_t(256), size_t(2) << 20, size_t(5) << 20, size_t(11) << 20, size_t(23) << 20, size_t(37) << 20}) {
    one_allocation<T>(tname, n, grid, skew, st, sc); ++rows;
  }
  printf("  mean over %d allocations: ticket %.3f, collector %.3f, difference %+.3f us\n", rows, st / rows, sc / rows, (sc - st) / rows);
}

int main() {
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking)); cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("%s\n", prop.name);
  size_rows<float>("f32", 1 << 16, 32);
  size_rows<float>("f32", 1 << 18, 64);
  size_rows<float>("f32", 1 << 20, 128);
  size_rows<float>("f32", 1 << 21, 182);
  size_rows<float>("f32", 1 << 22, 256);
  size_rows<double>("f64", 1 << 16, 46);
  size_rows<double>("f64", 1 << 18, 91);
  size_rows<double>("f64", 1 << 20, 182);
  printf("done\n");
}
