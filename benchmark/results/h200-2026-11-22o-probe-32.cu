// Probe run 32 (2026-11-22o): how fast can default Options be inside graphs? Without
// Options::temp_storage_zeroed the storage's bytes are unknown at every call (CUB's contract), so
// a reduction needs a kernel boundary (two_kernel, or a zeroing kernel before last_block) or the
// driver's grid barrier (grid_sync). This times the two-kernel shape built from the fastest pieces
// measured (the harness's read loop, which beats the library's by 0.1-0.2 us at 2^20 floats, and a
// one-block fold kernel), its parts, and the library, per reduction in graphs, placement controlled
// (three allocations, better of two graphs). f32; 2^21 floats is the 8 MiB of 2^20 doubles.
// Library at ea23ff2 + the all-words reader. Build from the repository root:
//   nvcc -std=c++17 -O3 -arch=sm_90 -Iinclude -Ibenchmark/results -o probe32
//     benchmark/results/h200-2026-11-22o-probe-32.cu <build dir>/libgpureduce.a
#include "h200-2026-11-22d-graph-probe-harness.cuh"

// The second kernel of the two-kernel shape: one block folds the partials.
template <int B> __global__ void __launch_bounds__(B) k_fold(const float* partials, int count, float* out) {
  pdl();
  float t = 0;
  for (int i = threadIdx.x; i < count; i += B) t += __ldcg(partials + i);
  t = block_sum<B>(t);
  if (threadIdx.x == 0) *out = t;
}
template <int B> __global__ void __launch_bounds__(B) k_empty_grid(float* out) { pdl(); if (out == nullptr) *out = 0; }

void size_rows(long long n) {
  gpureduce::Options z; z.temp_storage_zeroed = true;
  printf("\n== graph f32 n=%lld (us per reduction, better of two graphs)\n", n);
  for (size_t skew : {size_t(256), size_t(5) << 20, size_t(23) << 20}) {
    void* spacer; CK(cudaMalloc(&spacer, skew));
    float *in, *out, *partials; unsigned char* temp; void* ct; size_t ctb = 0; void* lt; const size_t ltb = 1 << 20;
    unsigned* counter;
    CK(cudaMalloc(&in, n * sizeof(float))); CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&temp, 1 << 20)); CK(cudaMemset(temp, 0, 1 << 20));
    CK(cudaMalloc(&partials, 1 << 16)); CK(cudaMalloc(&counter, 256)); CK(cudaMemset(counter, 0, 256));
    CK(cudaMalloc(&lt, ltb)); CK(cudaMemset(lt, 0xA5, ltb));
    std::vector<float> h(n); std::mt19937_64 r(32 + skew); for (float& x : h) { int v = int(r() % 32) - 16; x = float(v >= 0 ? v + 1 : v); }
    CK(cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CK(cub::DeviceReduce::Sum(nullptr, ctb, in, out, n, S)); CK(cudaMalloc(&ct, ctb));
    Call cub = [=] { size_t x = ctb; return cub::DeviceReduce::Sum(ct, x, in, out, n, S); };
    CK(cub()); CK(cudaStreamSynchronize(S)); float ref; CK(cudaMemcpy(&ref, out, sizeof(float), cudaMemcpyDeviceToHost));
    gpureduce::LaunchPlan plan; CK(gpureduce::DeviceReduce::PlanSum<float, float>(plan, in, n, z, S));
    const int g = plan.grid_blocks;
    const float4* v = reinterpret_cast<const float4*>(in); const long long nv = n / 4;
    auto* slots = reinterpret_cast<unsigned long long*>(temp);
    struct Row { const char* name; Call f; bool sums; };
    std::vector<Row> rows = {
        {"library API, default Options", [=] { size_t t = ltb; return gpureduce::DeviceReduce::Sum<float, float>(lt, t, in, out, n, S); }, true},
        {"library API, zeroed", [=] { size_t t = 1 << 19; return gpureduce::DeviceReduce::Sum<float, float>(temp + (1 << 19), t, in, out, n, S, z); }, true},
        {"probe two kernels (read + fold)", [=] { cudaError_t e = ex(k_read<256>, g, 256, v, nv, partials); return e == cudaSuccess ? ex(k_fold<256>, 1, 256, partials, g, out) : e; }, true},
        {"probe read kernel alone", [=] { return ex(k_read<256>, g, 256, v, nv, partials); }, false},
        {"probe flagged one kernel (zeroed)", [=] { return ex(k_flag<256>, g, 256, v, nv, slots, counter, out); }, true},
        {"empty grid + empty block", [=] { cudaError_t e = ex(k_empty_grid<256>, g, 256, out); return e == cudaSuccess ? ex(k_empty_grid<256>, 1, 256, out) : e; }, false},
        {"empty grid alone", [=] { return ex(k_empty_grid<256>, g, 256, out); }, false},
    };
    bool ok = true;
    for (auto& row : rows) { if (!row.sums) continue; CK(cudaMemset(out, 0x7f, 64)); CK(row.f()); CK(cudaStreamSynchronize(S)); float got; CK(cudaMemcpy(&got, out, sizeof(float), cudaMemcpyDeviceToHost)); if (!(got == ref)) { ok = false; printf("  WRONG: %s\n", row.name); } }
    std::vector<double> best(rows.size(), 1e9);
    const double gc = graph_us(cub);
    for (int pass = 0; pass < 2; ++pass)
      for (size_t i = 0; i < rows.size(); ++i) best[i] = std::min(best[i], graph_us(rows[i].f));
    printf("  skew %8zu B, grid %d: CUB %.3f%s\n", skew, g, gc, ok ? "" : "  (WRONG above)");
    for (size_t i = 0; i < rows.size(); ++i) printf("    %-36s %6.3f us  %.3fx CUB\n", rows[i].name, best[i], best[i] / gc);
    cudaFree(ct); cudaFree(lt); cudaFree(temp); cudaFree(out); cudaFree(in); cudaFree(partials); cudaFree(counter); cudaFree(spacer);
  }
}

int main() {
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking)); cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("%s\n", prop.name);
  size_rows(1 << 16); size_rows(1 << 20); size_rows(1 << 21);
  printf("done\n");
}
