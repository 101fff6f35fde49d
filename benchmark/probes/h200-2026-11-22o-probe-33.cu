// Probe run 33 (2026-11-22o): default Options inside a capture run two_kernel (floats; and what
// ints would) through the general kernels, reduce_input_kernel<VectorizedRung, 0> (block size at
// run time, every pipeline's epilogue behind a switch) and reduce_partials_kernel<VectorizedRung, 0>.
// Probe run 32 found a two-kernel shape built from minimal kernels 0.12-0.16 us faster at 2^20
// floats. Here: the same two kernels built for 256 threads (the shaped kernels' way:
// reduce_shaped_grid with two_kernel's epilogue; reduce_partials_kernel<VectorizedRung, 256>), the
// same rung, order and bits. Per reduction in graphs, placement controlled (three allocations,
// alternated, better of two graphs). Library at 4de3d0b. Build from the repository root:
//   nvcc -std=c++17 -O3 -arch=sm_90 -Iinclude -Ibenchmark/probes -o probe33
//     benchmark/probes/h200-2026-11-22o-probe-33.cu <build dir>/libgpureduce.a
#include "h200-2026-11-22d-graph-probe-harness.cuh"

namespace d = gpureduce::detail;
template <class T> using PT = d::Problem<T, T, T, d::sum_op_t<T, T>, T>;
using VR = d::VectorizedRung;

// reduce_shaped_grid<VectorizedRung, 256, P, ...> with two_kernel's epilogue.
template <class T> __global__ void __launch_bounds__(256) k_first_shaped(d::KernelArgs<PT<T>> a) {
  d::wait_for_previous_kernel_then_release_next();
  if (d::finished_empty_input(a)) return;
  T* shared = d::dynamic_shared<PT<T>>();
  const T partial = VR::reduce<256, T>(d::InputReader<T, T>{a.d_in}, a.num_items, std::int64_t(blockIdx.x),
                                       std::int64_t(gridDim.x), a.op, shared, static_cast<T*>(nullptr));
  if (d::finished_one_block(a, partial)) return;
  d::two_kernel_epilogue(a, partial);
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
    T *in, *out; unsigned char* temp; void* ct; size_t ctb = 0; void* lt; const size_t ltb = 1 << 20;
    CK(cudaMalloc(&in, n * sizeof(T))); CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&temp, 1 << 20)); CK(cudaMemset(temp, 0xA5, 1 << 20));
    CK(cudaMalloc(&lt, ltb)); CK(cudaMemset(lt, 0xA5, ltb));
    std::vector<T> h(n); std::mt19937_64 r(33 + skew); for (T& x : h) { int v = int(r() % 32) - 16; x = T(v >= 0 ? v + 1 : v); }
    CK(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    CK(cub::DeviceReduce::Sum(nullptr, ctb, in, out, n, S)); CK(cudaMalloc(&ct, ctb));
    Call cub = [=] { size_t x = ctb; return cub::DeviceReduce::Sum(ct, x, in, out, n, S); };
    CK(cub()); CK(cudaStreamSynchronize(S)); T ref; CK(cudaMemcpy(&ref, out, sizeof(T), cudaMemcpyDeviceToHost));
    gpureduce::LaunchPlan plan; CK(gpureduce::DeviceReduce::PlanSum<T, T>(plan, in, n, gpureduce::Options{}, S));
    const int g = plan.grid_blocks, b = plan.block_threads;
    const d::KernelArgs<PT<T>> a{in, out, n, temp, T{}, {}, true, std::uint8_t(gpureduce::Pipeline::two_kernel), false};
    const size_t smem = VR::shared_bytes(b, sizeof(T));
    struct Row { const char* name; Call f; };
    std::vector<Row> rows = {
        {"library API, default Options", [=] { size_t t = ltb; return gpureduce::DeviceReduce::Sum<T, T>(lt, t, in, out, n, S); }},
        {"general first + general partials", [=] {
          cudaError_t e = launch_pdl(d::reduce_input_kernel<VR, 0, PT<T>>, g, b, smem, a);
          return e == cudaSuccess ? launch_pdl(d::reduce_partials_kernel<VR, 0, PT<T>>, 1, b, smem, a, g) : e; }},
    };
    if (b == 256) {
      rows.push_back({"shaped first + shaped partials", [=] {
        cudaError_t e = launch_pdl(k_first_shaped<T>, g, 256, smem, a);
        return e == cudaSuccess ? launch_pdl(d::reduce_partials_kernel<VR, 256, PT<T>>, 1, 256, smem, a, g) : e; }});
      rows.push_back({"shaped first + general partials", [=] {
        cudaError_t e = launch_pdl(k_first_shaped<T>, g, 256, smem, a);
        return e == cudaSuccess ? launch_pdl(d::reduce_partials_kernel<VR, 0, PT<T>>, 1, 256, smem, a, g) : e; }});
      rows.push_back({"general first + shaped partials", [=] {
        cudaError_t e = launch_pdl(d::reduce_input_kernel<VR, 0, PT<T>>, g, 256, smem, a);
        return e == cudaSuccess ? launch_pdl(d::reduce_partials_kernel<VR, 256, PT<T>>, 1, 256, smem, a, g) : e; }});
    }
    bool ok = true;
    auto check = [&](const char* when) { for (auto& row : rows) { CK(cudaMemset(out, 0x7f, 64)); CK(row.f()); CK(cudaStreamSynchronize(S)); T got; CK(cudaMemcpy(&got, out, sizeof(T), cudaMemcpyDeviceToHost)); if (!(got == ref)) { ok = false; printf("  WRONG %s: %s\n", when, row.name); } } };
    check("before graphs");
    std::vector<double> best(rows.size(), 1e9);
    const double gc = graph_us(cub);
    for (int pass = 0; pass < 2; ++pass)
      for (size_t i = 0; i < rows.size(); ++i) best[i] = std::min(best[i], graph_us(rows[i].f));
    check("after graphs");
    printf("  skew %8zu B, grid %d x %d: CUB %.3f%s\n", skew, g, b, gc, ok ? "" : "  (WRONG above)");
    for (size_t i = 0; i < rows.size(); ++i) printf("    %-36s %6.3f us  %.3fx CUB\n", rows[i].name, best[i], best[i] / gc);
    cudaFree(ct); cudaFree(lt); cudaFree(temp); cudaFree(out); cudaFree(in); cudaFree(spacer);
  }
}

int main() {
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking)); cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("%s\n", prop.name);
  size_rows<float>("f32", 1 << 18); size_rows<float>("f32", 1 << 20); size_rows<float>("f32", 1 << 21); size_rows<float>("f32", 1 << 22);
  size_rows<double>("f64", 1 << 16); size_rows<double>("f64", 1 << 18); size_rows<double>("f64", 1 << 20);
  size_rows<int>("i32", 1 << 18); size_rows<int>("i32", 1 << 20);
  printf("done\n");
}
