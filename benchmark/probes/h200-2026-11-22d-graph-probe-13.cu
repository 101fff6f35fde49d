// Graph probe run 13: default Options inside graphs, automatic's grid_sync plan against two_kernel
// with the same grid, and CUB. Output: h200-2026-11-22d-graph-probe.txt.
#include "h200-2026-11-22d-graph-probe-harness.cuh"



// Default Options inside graphs: automatic's grid_sync plan against two_kernel (same rung, grid and
// block: two launches, the second PDL-launched and waiting for the first) and CUB; per reduction in
// a 100-reduction graph. Also per call (one call between events), where two_kernel pays a launch.
using gpureduce::Options; using gpureduce::Pipeline; using gpureduce::Strategy;
template <class T> void one(const char* name, long long n) {
  T* in; T* out; CK(cudaMalloc(&in, n * sizeof(T))); CK(cudaMalloc(&out, 64));
  std::vector<T> h(n); std::mt19937_64 r(7); for (T& x : h) { int v = int(r() % 32) - 16; x = T(v >= 0 ? v + 1 : v); }
  CK(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  size_t ctb = 0; CK(cub::DeviceReduce::Sum(nullptr, ctb, in, out, n, S)); void* ct; CK(cudaMalloc(&ct, ctb));
  const size_t kTemp = 8 << 20; void* temp; CK(cudaMalloc(&temp, kTemp)); CK(cudaMemset(temp, 0, kTemp));
  Call cub = [=] { size_t b = ctb; return cub::DeviceReduce::Sum(ct, b, in, out, n, S); };
  CK(cub()); CK(cudaStreamSynchronize(S)); T ref; CK(cudaMemcpy(&ref, out, sizeof(T), cudaMemcpyDeviceToHost));
  double gc = graph_us(cub);
  gpureduce::LaunchPlan plan; CK(gpureduce::DeviceReduce::PlanSum<T, T>(plan, in, n, Options{}));
  printf("\n== %s n=%lld: CUB graph %.3f us; automatic: %s %d x %d\n", name, n, gc, plan.pipeline == Pipeline::grid_sync ? "grid_sync" : "other", plan.grid_blocks, plan.block_threads);
  auto row = [&](const char* what, const Options& o) {
    Call f = [=] { size_t b = kTemp; return gpureduce::DeviceReduce::Sum<T, T>(temp, b, in, out, n, S, o); };
    CK(cudaMemset(out, 0x7f, 64)); CK(f()); CK(cudaStreamSynchronize(S)); T got; CK(cudaMemcpy(&got, out, sizeof(T), cudaMemcpyDeviceToHost));
    double g1 = graph_us(f), g2 = graph_us(f);
    printf("  %-44s %7.3f %7.3f us  %.3fx CUB %s\n", what, g1, g2, std::min(g1, g2) / gc, got == ref ? "ok" : "WRONG");
  };
  row("automatic (default Options)", Options{});
  Options z; z.temp_storage_zeroed = true; row("automatic + temp_storage_zeroed", z);
  Options tk{Strategy::vectorized, Pipeline::two_kernel, plan.block_threads, plan.grid_blocks}; row("vectorized two_kernel, automatic's grid", tk);
  Options gs{Strategy::vectorized, Pipeline::grid_sync, plan.block_threads, plan.grid_blocks}; row("vectorized grid_sync, automatic's grid", gs);
  cudaFree(in); cudaFree(out); cudaFree(ct); cudaFree(temp);
}
int main() {
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking)); cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("%s\n", prop.name);
  for (long long n : {1ll << 16, 1ll << 18, 1ll << 20, 1ll << 22, 1ll << 24}) { one<float>("f32", n); one<int>("i32", n); one<double>("f64", n); }
  printf("done\n");
}
