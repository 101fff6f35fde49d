// Probe run 27 (2026-11-22l): probe 25's grid sweep of the zeroed last_block kernel, controlled for
// placement as probe 26: per size, a few grids of the library's own kernel on the same buffers,
// alternated, over six allocations. Probe 25 (one allocation) had 128 blocks 0.12 us faster than
// the sqrt rule's 46 at 2^16 doubles, and benchmark run j's sweep the opposite.
// Run 28 ("probe27 28", on a fresh machine): grids of one block per SM (132 on an H200) and of two
// (264) beside the best of run 27.
// Library at 1afa991. Build from the repository root:
//   nvcc -std=c++17 -O3 -arch=sm_90 -Iinclude -Ibenchmark/probes -o probe27
//     benchmark/probes/h200-2026-11-22l-probe-27.cu <build dir>/libgpureduce.a
#include "h200-2026-11-22d-graph-probe-harness.cuh"

namespace d = gpureduce::detail;
template <class T> using PT = d::Problem<T, T, T, d::sum_op_t<T, T>, T>;

template <class K, class... A> cudaError_t launch_pdl(K k, int g, int b, size_t smem, A... a) {
  cudaLaunchConfig_t cfg{}; cfg.gridDim = g; cfg.blockDim = b; cfg.stream = S; cfg.dynamicSmemBytes = smem;
  cudaLaunchAttribute at; at.id = cudaLaunchAttributeProgrammaticStreamSerialization; at.val.programmaticStreamSerializationAllowed = 1; cfg.attrs = &at; cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, k, a...);
}

int run_number = 27;  // 27 or 28: the seed and the grids

template <class T> void size_rows(const char* tname, long long n, std::vector<int> grids) {
  printf("\n== graph %s n=%lld, x256 (us per reduction; each grid's better of two graphs)\n", tname, n);
  std::vector<double> sums(grids.size(), 0.0); int rows = 0;
  for (size_t skew : {size_t(256), size_t(2) << 20, size_t(5) << 20, size_t(11) << 20, size_t(23) << 20, size_t(37) << 20}) {
    void* spacer; CK(cudaMalloc(&spacer, skew));
    T *in, *out; unsigned char* temp; void* ct; size_t ctb = 0;
    CK(cudaMalloc(&in, n * sizeof(T))); CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&temp, 1 << 20)); CK(cudaMemset(temp, 0, 1 << 20));
    std::vector<T> h(n); std::mt19937_64 r(run_number + skew); for (T& x : h) { int v = int(r() % 32) - 16; x = T(v >= 0 ? v + 1 : v); }
    CK(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    CK(cub::DeviceReduce::Sum(nullptr, ctb, in, out, n, S)); CK(cudaMalloc(&ct, ctb));
    Call cub = [=] { size_t x = ctb; return cub::DeviceReduce::Sum(ct, x, in, out, n, S); };
    CK(cub()); CK(cudaStreamSynchronize(S)); T ref; CK(cudaMemcpy(&ref, out, sizeof(T), cudaMemcpyDeviceToHost));
    const d::KernelArgs<PT<T>> a{in, out, n, temp, T{}, {}, true, std::uint8_t(gpureduce::Pipeline::last_block), true};
    const size_t smem = d::VectorizedRung::shared_bytes(256, sizeof(T));
    printf("  skew %8zu B: CUB %6.3f |", skew, graph_us(cub));
    bool ok = true;
    std::vector<double> best(grids.size(), 1e9);
    for (int pass = 0; pass < 2; ++pass)
      for (size_t i = 0; i < grids.size(); ++i) {
        const int g = grids[i];
        Call f = [=] { return launch_pdl(d::reduce_last_block_kernel<d::VectorizedRung, 256, PT<T>>, g, 256, smem, a); };
        if (pass == 0) { CK(cudaMemset(out, 0x7f, 64)); CK(f()); CK(cudaStreamSynchronize(S)); T got; CK(cudaMemcpy(&got, out, sizeof(T), cudaMemcpyDeviceToHost)); ok = ok && got == ref; }
        best[i] = std::min(best[i], graph_us(f));
      }
    for (size_t i = 0; i < grids.size(); ++i) { printf("  %4d: %6.3f", grids[i], best[i]); sums[i] += best[i]; }
    printf("  %s\n", ok ? "ok" : "WRONG");
    ++rows;
    cudaFree(ct); cudaFree(temp); cudaFree(out); cudaFree(in); cudaFree(spacer);
  }
  printf("  mean over %d allocations:", rows);
  for (size_t i = 0; i < grids.size(); ++i) printf("  %4d: %6.3f", grids[i], sums[i] / rows);
  printf("\n");
}

int main(int argc, char** argv) {
  if (argc > 1) run_number = std::atoi(argv[1]);
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking)); cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("%s\n", prop.name);
  if (run_number == 28) {
    size_rows<double>("f64", 1 << 16, {46, 120, 128, 132});
    size_rows<double>("f64", 1 << 18, {91, 128, 132, 264});
    size_rows<double>("f64", 1 << 20, {182, 256, 264});
    size_rows<float>("f32", 1 << 21, {182, 256, 264});
  } else {
    size_rows<double>("f64", 1 << 16, {46, 64, 92, 128});
    size_rows<double>("f64", 1 << 18, {91, 128, 182});
    size_rows<double>("f64", 1 << 20, {182, 256});
    size_rows<float>("f32", 1 << 16, {32, 46, 64});
    size_rows<float>("f32", 1 << 18, {64, 91, 128});
    size_rows<float>("f32", 1 << 20, {128, 182, 256});
  }
  printf("done\n");
}
