// Probe run 25 (2026-11-22l): the zeroed last_block plan's grid. automatic sizes it as
// ceil(sqrt(bytes / 256)) (policy.hpp): 128 blocks at 4 MiB, 182 at 8 MiB (1.38 per SM of 132, so
// a third of the SMs run two blocks), 46 at 512 KiB. The library's own shaped kernel
// (reduce_last_block_kernel<VectorizedRung, B>), launched by hand on zeroed storage, over grids
// around whole multiples of the SM count, inside graphs.
// Library at 48f6438. Build from the repository root:
//   nvcc -std=c++17 -O3 -arch=sm_90 -Iinclude -Ibenchmark/results -o probe25
//     benchmark/results/h200-2026-11-22l-probe-25.cu <build dir>/libgpureduce.a
#include "h200-2026-11-22d-graph-probe-harness.cuh"

namespace d = gpureduce::detail;
template <class T> using PT = d::Problem<T, T, T, d::sum_op_t<T, T>, T>;
using VR = d::VectorizedRung;

template <class K, class... A> cudaError_t launch_pdl(K k, int g, int b, size_t smem, A... a) {
  cudaLaunchConfig_t c{}; c.gridDim = g; c.blockDim = b; c.stream = S; c.dynamicSmemBytes = smem;
  cudaLaunchAttribute at; at.id = cudaLaunchAttributeProgrammaticStreamSerialization; at.val.programmaticStreamSerializationAllowed = 1; c.attrs = &at; c.numAttrs = 1;
  return cudaLaunchKernelEx(&c, k, a...);
}

template <class T> void sweep(const char* tname, long long n, std::vector<int> grids256, std::vector<int> grids512) {
  T *in, *out; unsigned char* temp; void* ct; size_t ctb = 0;
  CK(cudaMalloc(&in, n * sizeof(T))); CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&temp, 1 << 20)); CK(cudaMemset(temp, 0, 1 << 20));
  std::vector<T> h(n); std::mt19937_64 r(25); for (T& x : h) { int v = int(r() % 32) - 16; x = T(v >= 0 ? v + 1 : v); }
  CK(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  CK(cub::DeviceReduce::Sum(nullptr, ctb, in, out, n, S)); CK(cudaMalloc(&ct, ctb));
  Call cub = [=] { size_t x = ctb; return cub::DeviceReduce::Sum(ct, x, in, out, n, S); };
  CK(cub()); CK(cudaStreamSynchronize(S)); T ref; CK(cudaMemcpy(&ref, out, sizeof(T), cudaMemcpyDeviceToHost));
  const double gc = std::min(graph_us(cub), graph_us(cub));
  gpureduce::Options z; z.temp_storage_zeroed = true; gpureduce::LaunchPlan plan; CK(gpureduce::DeviceReduce::PlanSum<T, T>(plan, in, n, z, S));
  printf("\n== graph %s n=%lld: CUB %.3f us; automatic zeroed plan %dx%d\n", tname, n, gc, plan.grid_blocks, plan.block_threads);
  const d::KernelArgs<PT<T>> a{in, out, n, temp, T{}, {}, true, std::uint8_t(gpureduce::Pipeline::last_block), true};
  auto row = [&](int b, int g, auto kernel) {
    const size_t smem = VR::shared_bytes(b, sizeof(T));
    Call f = [=] { return launch_pdl(kernel, g, b, smem, a); };
    CK(cudaMemset(out, 0x7f, 64)); CK(f()); CK(cudaStreamSynchronize(S)); T got; CK(cudaMemcpy(&got, out, sizeof(T), cudaMemcpyDeviceToHost));
    const double g1 = graph_us(f), g2 = graph_us(f);
    printf("  %4d x %3d  %7.3f %7.3f us  %.3fx CUB %s\n", g, b, g1, g2, std::min(g1, g2) / gc, got == ref ? "ok" : "WRONG");
  };
  for (int g : grids256) row(256, g, d::reduce_last_block_kernel<VR, 256, PT<T>>);
  for (int g : grids512) row(512, g, d::reduce_last_block_kernel<VR, 512, PT<T>>);
  cudaFree(in); cudaFree(out); cudaFree(temp); cudaFree(ct);
}

int main() {
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking)); cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("%s, %d SMs\n", prop.name, prop.multiProcessorCount);
  for (int rep = 0; rep < 2; ++rep) {
    sweep<double>("f64", 1 << 20, {91, 128, 132, 160, 182, 198, 232, 256, 264, 330, 396, 528}, {66, 91, 128, 132, 182, 264});
    sweep<float>("f32", 1 << 21, {128, 132, 182, 198, 256, 264, 396}, {66, 132, 182, 264});
    sweep<float>("f32", 1 << 20, {64, 96, 128, 132, 160, 182, 198, 256, 264}, {64, 66, 128, 132});
    sweep<double>("f64", 1 << 16, {23, 32, 40, 46, 56, 64, 92, 128, 132}, {23, 32, 46, 64});
    sweep<float>("f32", 1 << 16, {16, 24, 32, 40, 48, 64, 128}, {16, 32});
  }
  printf("done\n");
}
