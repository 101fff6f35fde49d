// Probe run 24 (2026-11-22l): probe 23 found the library's one-block kernel, launched by hand, at
// 0.98-0.99x CUB per call at 4096 items, and the same kernel through DeviceReduce::Sum at
// 1.009-1.020x: ~0.15 us of host time before the launch. Where it goes: host time per call
// (steady_clock around the call, median) in the paired loop, and tight loops of the pieces the
// dispatch path calls (PlanSum is the whole dispatch without the launch).
// Library at 48f6438. Build from the repository root:
//   nvcc -std=c++17 -O3 -arch=sm_90 -Iinclude -Ibenchmark/probes -o probe24
//     benchmark/probes/h200-2026-11-22l-probe-24.cu <build dir>/libgpureduce.a
#include "h200-2026-11-22d-graph-probe-harness.cuh"

namespace d = gpureduce::detail;
template <class T> using PT = d::Problem<T, T, T, d::sum_op_t<T, T>, T>;
using VR = d::VectorizedRung;

template <class F> double ns_per_call(F f, int iters = 200000) {
  for (int i = 0; i < 1000; ++i) f();
  std::vector<double> reps;
  for (int r = 0; r < 5; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) f();
    auto t1 = std::chrono::steady_clock::now();
    reps.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / iters);
  }
  return med(reps);
}

int main() {
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking)); cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("%s\n", prop.name);
  const long long n = 4096;
  int *in, *out; void* ct; size_t ctb = 0; void* lt; const size_t ltb = 1 << 20;
  CK(cudaMalloc(&in, n * 4)); CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&lt, ltb)); CK(cudaMemset(lt, 0, ltb));
  std::vector<int> h(n); std::mt19937 r(24); for (int& x : h) x = int(r() % 33) - 16 + (r() % 2 ? 0 : 1);
  CK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
  CK(cub::DeviceReduce::Sum(nullptr, ctb, in, out, n, S)); CK(cudaMalloc(&ct, ctb));
  using P = PT<int>;
  const d::KernelArgs<P> a{in, out, n, static_cast<unsigned char*>(lt), 0, {}, true, std::uint8_t(gpureduce::Pipeline::grid_sync), false};
  const size_t smem = VR::shared_bytes(256, sizeof(int));
  auto kernel = d::reduce_one_block_kernel<VR, 256, P>;
  auto hand = [=] {
    cudaLaunchConfig_t c{}; c.gridDim = 1; c.blockDim = 256; c.stream = S; c.dynamicSmemBytes = smem;
    cudaLaunchAttribute at; at.id = cudaLaunchAttributeProgrammaticStreamSerialization; at.val.programmaticStreamSerializationAllowed = 1; c.attrs = &at; c.numAttrs = 1;
    return cudaLaunchKernelEx(&c, kernel, a);
  };
  Call lib = [=] { size_t t = ltb; return gpureduce::DeviceReduce::Sum<int, int>(lt, t, in, out, n, S); };
  Call cub = [=] { size_t t = ctb; return cub::DeviceReduce::Sum(ct, t, in, out, n, S); };
  Call hand_call = hand;
  Call hand_plus = [=] { int dev; cudaGetDevice(&dev); cudaError_t e = hand(); return e == cudaSuccess ? cudaGetLastError() : e; };
  struct Row { const char* name; Call f; };
  std::vector<Row> rows = {{"library API, default Options", lib},
                           {"one-block kernel by hand (PDL)", hand_call},
                           {"cudaGetDevice + by hand + cudaGetLastError", hand_plus}};
  printf("\n== per call i32 n=4096, paired with CUB: GPU us between events, host us inside the call (medians)\n");
  for (int rep = 0; rep < 3; ++rep)
    for (auto& row : rows) {
      const Pair p = paired(row.f, cub, 20000);
      printf("  %-44s gpu %5.2f vs CUB %5.2f  ratio %.4f   host %.3f vs CUB %.3f us\n", row.name, p.a, p.b, p.r, p.ha, p.hb);
    }
  CK(cudaStreamSynchronize(S));
  printf("\n== host ns per call, tight loops (no launch)\n");
  gpureduce::LaunchPlan plan;
  printf("  PlanSum<int> 4096, default Options        %7.1f\n", ns_per_call([&] { (void)gpureduce::DeviceReduce::PlanSum<int, int>(plan, in, n); }));
  printf("  Sum<int> size query (d_temp null)         %7.1f\n", ns_per_call([&] { size_t t = 0; (void)gpureduce::DeviceReduce::Sum<int, int>(nullptr, t, in, out, n, S); }));
  printf("  cudaGetDevice                             %7.1f\n", ns_per_call([&] { int dev; (void)cudaGetDevice(&dev); }));
  printf("  cudaGetLastError                          %7.1f\n", ns_per_call([&] { (void)cudaGetLastError(); }));
  printf("  cudaPeekAtLastError                       %7.1f\n", ns_per_call([&] { (void)cudaPeekAtLastError(); }));
  printf("  cudaStreamIsCapturing                     %7.1f\n", ns_per_call([&] { cudaStreamCaptureStatus s; (void)cudaStreamIsCapturing(S, &s); }));
  printf("  cub Sum size query                        %7.1f\n", ns_per_call([&] { size_t t = 0; (void)cub::DeviceReduce::Sum(nullptr, t, in, out, n, S); }));
  printf("  std::function call of an empty lambda     %7.1f\n", ns_per_call([&] { Call f = [] { return cudaSuccess; }; (void)f(); }));
  printf("\n== host ns per call, enqueue loops (synchronised every 64 calls)\n");
  auto enq = [&](const Call& f) { int i = 0; return ns_per_call([&] { (void)f(); if (++i % 64 == 0) (void)cudaStreamSynchronize(S); }, 20000); };
  for (int rep = 0; rep < 2; ++rep) {
    printf("  library API                               %7.1f\n", enq(lib));
    printf("  by hand                                   %7.1f\n", enq(hand_call));
    printf("  cudaGetDevice + by hand + GetLastError    %7.1f\n", enq(hand_plus));
    printf("  CUB                                       %7.1f\n", enq(cub));
  }
  printf("done\n");
}
