// Probe run 29 (2026-11-22l): when a kernel lets the next one launch. Every gpureduce kernel runs
// griddepcontrol.wait, then griddepcontrol.launch_dependents (launch.cuh). The dependent's own wait
// blocks until this grid has completed and its writes are visible, whenever the trigger came, so
// triggering before waiting is as correct, and lets the next kernel's launch overlap this one's
// wait. Inside graphs, per reduction, placement controlled (three allocations, variants alternated
// on the same buffers):
//  - default Options inside a capture for int sums runs two kernels, arm_temp_storage_kernel (one
//    block, zeroes the control block) then the counted last_block kernel; the arm kernel with the
//    trigger first ("early") against the library's;
//  - the zeroed last_block kernel (the library's body, rebuilt) with the trigger first or second.
// Library at 80c44d2. Build from the repository root:
//   nvcc -std=c++17 -O3 -arch=sm_90 -Iinclude -Ibenchmark/probes -o probe29
//     benchmark/probes/h200-2026-11-22l-probe-29.cu <build dir>/libgpureduce.a
#include "h200-2026-11-22d-graph-probe-harness.cuh"

namespace d = gpureduce::detail;
template <class T> using PT = d::Problem<T, T, T, d::sum_op_t<T, T>, T>;
using VR = d::VectorizedRung;

__device__ __forceinline__ void trigger_then_wait() {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");
}

template <int kThreads> __global__ void __launch_bounds__(kThreads) arm_early(std::uint64_t* temp, unsigned words) {
  trigger_then_wait();
  for (unsigned i = threadIdx.x; i < words; i += kThreads) temp[i] = 0;
}

// reduce_shaped_grid<VectorizedRung, 256, P, last_block>, with the trigger first if kEarly.
template <class T, bool kEarly> __global__ void __launch_bounds__(256) k_lb(d::KernelArgs<PT<T>> a) {
  if constexpr (kEarly) trigger_then_wait(); else d::wait_for_previous_kernel_then_release_next();
  if (d::finished_empty_input(a)) return;
  T* shared = d::dynamic_shared<PT<T>>();
  const T partial = VR::reduce<256, T>(d::InputReader<T, T>{a.d_in}, a.num_items, std::int64_t(blockIdx.x),
                                       std::int64_t(gridDim.x), a.op, shared, static_cast<T*>(nullptr));
  if (d::finished_one_block(a, partial)) return;
  d::last_block_epilogue<VR, 256>(a, partial, shared);
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
    std::vector<T> h(n); std::mt19937_64 r(29 + skew); for (T& x : h) { int v = int(r() % 32) - 16; x = T(v >= 0 ? v + 1 : v); }
    CK(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    CK(cub::DeviceReduce::Sum(nullptr, ctb, in, out, n, S)); CK(cudaMalloc(&ct, ctb));
    Call cub = [=] { size_t x = ctb; return cub::DeviceReduce::Sum(ct, x, in, out, n, S); };
    CK(cub()); CK(cudaStreamSynchronize(S)); T ref; CK(cudaMemcpy(&ref, out, sizeof(T), cudaMemcpyDeviceToHost));
    gpureduce::LaunchPlan plan; CK(gpureduce::DeviceReduce::PlanSum<T, T>(plan, in, n, z, S));
    const int g = plan.grid_blocks;
    const d::KernelArgs<PT<T>> a{in, out, n, temp, T{}, {}, true, std::uint8_t(gpureduce::Pipeline::last_block), !std::is_integral_v<T>};
    const size_t smem = VR::shared_bytes(256, sizeof(T));
    auto* words = reinterpret_cast<std::uint64_t*>(temp);
    const unsigned nwords = unsigned(sizeof(d::ControlBlock) / 8);
    struct Row { const char* name; Call f; };
    std::vector<Row> rows = {
        {"library API, default Options", [=] { size_t t = ltb; return gpureduce::DeviceReduce::Sum<T, T>(lt, t, in, out, n, S); }},
        {"last_block, trigger second (library)", [=] { return launch_pdl(k_lb<T, false>, g, 256, smem, a); }},
        {"last_block, trigger first", [=] { return launch_pdl(k_lb<T, true>, g, 256, smem, a); }},
    };
    if constexpr (std::is_integral_v<T>) {
      rows.push_back({"arm (library) + last_block (library)", [=] {
        cudaError_t e = launch_pdl(d::arm_temp_storage_kernel<d::kArmThreads>, 1, d::kArmThreads, 0, words, nwords);
        return e == cudaSuccess ? launch_pdl(k_lb<T, false>, g, 256, smem, a) : e; }});
      rows.push_back({"arm early + last_block (library)", [=] {
        cudaError_t e = launch_pdl(arm_early<d::kArmThreads>, 1, d::kArmThreads, 0, words, nwords);
        return e == cudaSuccess ? launch_pdl(k_lb<T, false>, g, 256, smem, a) : e; }});
      rows.push_back({"arm early + last_block early", [=] {
        cudaError_t e = launch_pdl(arm_early<d::kArmThreads>, 1, d::kArmThreads, 0, words, nwords);
        return e == cudaSuccess ? launch_pdl(k_lb<T, true>, g, 256, smem, a) : e; }});
    }
    bool ok = true;
    for (auto& row : rows) { CK(cudaMemset(out, 0x7f, 64)); CK(row.f()); CK(cudaStreamSynchronize(S)); T got; CK(cudaMemcpy(&got, out, sizeof(T), cudaMemcpyDeviceToHost)); if (!(got == ref)) { ok = false; printf("  WRONG: %s\n", row.name); } }
    std::vector<double> best(rows.size(), 1e9);
    const double gc = graph_us(cub);
    for (int pass = 0; pass < 2; ++pass)
      for (size_t i = 0; i < rows.size(); ++i) best[i] = std::min(best[i], graph_us(rows[i].f));
    printf("  skew %8zu B, grid %d: CUB %.3f%s\n", skew, g, gc, ok ? "" : "  (WRONG above)");
    for (size_t i = 0; i < rows.size(); ++i) printf("    %-40s %6.3f us  %.3fx CUB\n", rows[i].name, best[i], best[i] / gc);
    cudaFree(ct); cudaFree(lt); cudaFree(temp); cudaFree(out); cudaFree(in); cudaFree(spacer);
  }
}

int main() {
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking)); cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("%s\n", prop.name);
  size_rows<int>("i32", 1 << 16); size_rows<int>("i32", 1 << 20);
  size_rows<float>("f32", 1 << 16); size_rows<float>("f32", 1 << 20);
  size_rows<double>("f64", 1 << 16); size_rows<double>("f64", 1 << 20);
  printf("done\n");
}
