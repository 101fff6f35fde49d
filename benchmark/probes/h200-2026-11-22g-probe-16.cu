// Probe run 16 (2026-11-22g): Min and Max of 16-bit floats and f64 Max at streaming sizes, inside
// graphs, per reduction: automatic+zeroed, and one, two and three blocks of 512 per SM (grids
// forced through automatic's own plan: strategy and pipeline automatic, zeroed storage, 512
// threads, grid_blocks, which launches the shaped last_block kernel), against CUB, with f32 sum
// alongside. Public API only. Libraries: run 16 (bf16 and f32 only) and 16a at c504b6a (generic
// ExtremumOp for 16-bit types and double; bf16 and f64 Min/Max kernels at 36 registers); 16b with
// PTX min.NaN/max.NaN for __half and __nv_bfloat16; 16c also with the zeroed streaming grid at
// half the launched kernel's room; 16d also with double Min/Max through integer keys (32
// registers). Output: h200-2026-11-22g-probe.txt.
#include "h200-2026-11-22d-graph-probe-harness.cuh"

#include <cuda_bf16.h>

using gpureduce::Options;

template <class T, class Reduce, class CubReduce>
void streaming(const char* name, long long n, Reduce lib, CubReduce cub_call) {
  T *in, *out; void *ct, *temp; size_t ctb = 0, tb = 64 << 20;
  CK(cudaMalloc(&in, n * sizeof(T))); CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&temp, tb)); CK(cudaMemset(temp, 0, tb));
  std::vector<T> h(n); std::mt19937_64 r(3); for (T& x : h) x = T(float(int(r() % 2001) - 1000) / 8.0f);
  CK(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  CK(cub_call(nullptr, ctb, in, out, n)); CK(cudaMalloc(&ct, ctb));
  Call cub = [=] { size_t b = ctb; return cub_call(ct, b, in, out, n); };
  CK(cub()); T ref; CK(cudaStreamSynchronize(S)); CK(cudaMemcpy(&ref, out, sizeof(T), cudaMemcpyDeviceToHost));
  int sms = 0; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const double gc = graph_us(cub);
  Options z; z.temp_storage_zeroed = true;
  printf("\n== %s n=%lld (%lld MiB): CUB %.3f us per reduction in a graph\n", name, n, n * (long long)sizeof(T) >> 20, gc);
  for (int rep = 0; rep < 2; ++rep)
    for (int per_sm : {0, 1, 2, 3}) {
      Options o = z; o.block_threads = 512; o.grid_blocks = per_sm * sms;
      gpureduce::LaunchPlan plan; size_t none = 0; CK(lib(plan, nullptr, none, in, out, n, o, true));
      Call f = [=] { size_t b = tb; gpureduce::LaunchPlan unused; return lib(unused, temp, b, in, out, n, o, false); };
      CK(cudaMemset(out, 0x7f, 64)); CK(f()); T got; CK(cudaStreamSynchronize(S)); CK(cudaMemcpy(&got, out, sizeof(T), cudaMemcpyDeviceToHost));
      const double g = graph_us(f);
      printf("  %-24s %4dx%-4d %-10s %8.3f us  %.3fx CUB  %s\n", per_sm == 0 ? "automatic+zeroed" : per_sm == 1 ? "1 block per SM" : per_sm == 2 ? "2 blocks per SM" : "3 blocks per SM",
             plan.grid_blocks, plan.block_threads, gpureduce::to_string(plan.pipeline), g, g / gc,
             std::memcmp(&got, &ref, sizeof(T)) == 0 ? "ok" : "WRONG");
    }
  cudaFree(in); cudaFree(out); cudaFree(ct); cudaFree(temp);
}

int main() {
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking)); cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("%s\n", prop.name);
  using B = __nv_bfloat16;
  auto bf16_min = [](gpureduce::LaunchPlan& plan, void* t, size_t& b, const B* in, B* out, long long n, Options o, bool planning) {
    return planning ? gpureduce::DeviceReduce::PlanMin<B>(plan, in, n, o, S) : gpureduce::DeviceReduce::Min<B>(t, b, in, out, n, S, o); };
  auto bf16_max = [](gpureduce::LaunchPlan& plan, void* t, size_t& b, const B* in, B* out, long long n, Options o, bool planning) {
    return planning ? gpureduce::DeviceReduce::PlanMax<B>(plan, in, n, o, S) : gpureduce::DeviceReduce::Max<B>(t, b, in, out, n, S, o); };
  auto f32_sum = [](gpureduce::LaunchPlan& plan, void* t, size_t& b, const float* in, float* out, long long n, Options o, bool planning) {
    return planning ? gpureduce::DeviceReduce::PlanSum<float, float>(plan, in, n, o, S) : gpureduce::DeviceReduce::Sum<float, float>(t, b, in, out, n, S, o); };
  auto cub_min = [](void* t, size_t& b, const B* in, B* out, long long n) { return cub::DeviceReduce::Min(t, b, in, out, n, S); };
  auto cub_max = [](void* t, size_t& b, const B* in, B* out, long long n) { return cub::DeviceReduce::Max(t, b, in, out, n, S); };
  auto cub_sum = [](void* t, size_t& b, const float* in, float* out, long long n) { return cub::DeviceReduce::Sum(t, b, in, out, n, S); };
  using H = __half;
  auto f16_min = [](gpureduce::LaunchPlan& plan, void* t, size_t& b, const H* in, H* out, long long n, Options o, bool planning) {
    return planning ? gpureduce::DeviceReduce::PlanMin<H>(plan, in, n, o, S) : gpureduce::DeviceReduce::Min<H>(t, b, in, out, n, S, o); };
  auto cub_f16_min = [](void* t, size_t& b, const H* in, H* out, long long n) { return cub::DeviceReduce::Min(t, b, in, out, n, S); };
  auto f64_max = [](gpureduce::LaunchPlan& plan, void* t, size_t& b, const double* in, double* out, long long n, Options o, bool planning) {
    return planning ? gpureduce::DeviceReduce::PlanMax<double>(plan, in, n, o, S) : gpureduce::DeviceReduce::Max<double>(t, b, in, out, n, S, o); };
  auto cub_f64_max = [](void* t, size_t& b, const double* in, double* out, long long n) { return cub::DeviceReduce::Max(t, b, in, out, n, S); };
  for (long long n : {1ll << 25, 1ll << 27}) {
    streaming<B>("bf16 min", n, bf16_min, cub_min);
    streaming<B>("bf16 max", n, bf16_max, cub_max);
    streaming<H>("f16 min", n, f16_min, cub_f16_min);
    streaming<double>("f64 max", n / 4, f64_max, cub_f64_max);
    streaming<float>("f32 sum", n / 2, f32_sum, cub_sum);
  }
  printf("done\n");
}
