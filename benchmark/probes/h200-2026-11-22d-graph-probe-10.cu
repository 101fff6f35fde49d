// Graph probe runs 10 and 10b: the library's kernels (one-block, shaped last_block, general)
// launched directly, per reduction in graphs; built once per tree under test, -DVARIANT="..."
// naming it. Output: h200-2026-11-22d-graph-probe.txt.
#include "h200-2026-11-22d-graph-probe-harness.cuh"


namespace d = gpureduce::detail;
template <class T> using PT = d::Problem<T, T, T, ::cuda::std::plus<T>, T>;
template <class T> struct Buf {
  T* in; T* out; void* ct; size_t ctb = 0; unsigned char* temp;
  Buf(long long maxn) {
    CK(cudaMalloc(&in, maxn * sizeof(T) + 64)); CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&temp, 1 << 20)); CK(cudaMemset(temp, 0, 1 << 20));
    std::vector<T> h(maxn); std::mt19937_64 r(7); for (T& x : h) { int v = int(r() % 32) - 16; x = T(v >= 0 ? v + 1 : v); }
    CK(cudaMemcpy(in, h.data(), maxn * sizeof(T), cudaMemcpyHostToDevice));
    CK(cub::DeviceReduce::Sum(nullptr, ctb, in, out, maxn, S)); CK(cudaMalloc(&ct, ctb));
  }
  T result() { T r; CK(cudaStreamSynchronize(S)); CK(cudaMemcpy(&r, out, sizeof(T), cudaMemcpyDeviceToHost)); return r; }
  d::KernelArgs<PT<T>> args(long long n) {
    return d::KernelArgs<PT<T>>{in, out, n, {}, T{}, true, gpureduce::Pipeline::last_block, (T*)(temp + 256 + 32768), nullptr, (d::ControlBlock*)temp, (std::uint64_t*)(temp + 256)};
  }
};
template <class K, class... A> cudaError_t exs(K k, int g, int b, size_t smem, A... a) {
  cudaLaunchConfig_t c{}; c.gridDim = g; c.blockDim = b; c.stream = S; c.dynamicSmemBytes = smem;
  cudaLaunchAttribute at; at.id = cudaLaunchAttributeProgrammaticStreamSerialization; at.val.programmaticStreamSerializationAllowed = 1; c.attrs = &at; c.numAttrs = 1;
  return cudaLaunchKernelEx(&c, k, a...);
}
template <class T> void sizes(const char* name, Buf<T>& b, long long n, int g, int bt) {
  Call cub = [=, &b] { size_t x = b.ctb; return cub::DeviceReduce::Sum(b.ct, x, b.in, b.out, n, S); };
  CK(cub()); T ref = b.result(); double gc = graph_us(cub);
  printf("\n== %s n=%lld %dx%d: CUB graph %.3f us\n", name, n, g, bt, gc);
  auto row = [&](const char* what, const Call& f) {
    CK(cudaMemset(b.out, 0x7f, 64)); CK(f()); T r = b.result(); double g1 = graph_us(f), g2 = graph_us(f);
    printf("  %-52s %7.3f %7.3f us  %.3fx CUB %s\n", what, g1, g2, std::min(g1, g2) / gc, r == ref ? "ok" : "WRONG");
  };
  auto a = b.args(n);
  const size_t smem = d::VectorizedRung::shared_bytes(bt, sizeof(T));
  if (g == 1) {
    if (bt == 128) row("lib one_block kernel", [=] { return exs(d::reduce_one_block_kernel<d::VectorizedRung, 128, PT<T>>, 1, 128, smem, a); });
    if (bt == 256) row("lib one_block kernel", [=] { return exs(d::reduce_one_block_kernel<d::VectorizedRung, 256, PT<T>>, 1, 256, smem, a); });
    if (bt == 512) row("lib one_block kernel", [=] { return exs(d::reduce_one_block_kernel<d::VectorizedRung, 512, PT<T>>, 1, 512, smem, a); });
    return;
  }
  if (bt == 256) row("lib last_block kernel (shaped, flagged)", [=] { return exs(d::reduce_last_block_kernel<d::VectorizedRung, 256, PT<T>>, g, 256, smem, a); });
  if (bt == 512) row("lib last_block kernel (shaped, flagged)", [=] { return exs(d::reduce_last_block_kernel<d::VectorizedRung, 512, PT<T>>, g, 512, smem, a); });
  row("lib reduce_input_kernel<0> (flagged)", [=] { return exs(d::reduce_input_kernel<d::VectorizedRung, 0, PT<T>>, g, bt, smem, a); });
  if constexpr (std::is_same_v<T, float>) if (bt == 256) {
    unsigned long long* slots = (unsigned long long*)(b.temp + 512 * 1024); unsigned* counter = (unsigned*)(b.temp + 768 * 1024);
    const float4* v = reinterpret_cast<const float4*>(b.in); long long nv = n / 4;
    row("probe k_flag (minimal kernel)", [=, &b] { return exs(k_flag<256>, g, 256, 0, v, nv, slots, counter, (float*)b.out); });
  }
}
int main() {
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking)); cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("%s (%s)\n", prop.name, VARIANT);
  {
    Buf<float> b(1 << 24);
    sizes("f32", b, 1 << 10, 1, 128); sizes("f32", b, 1 << 12, 1, 256); sizes("f32", b, 1 << 14, 1, 512);
    sizes("f32", b, 1 << 16, 32, 256); sizes("f32", b, 1 << 18, 64, 256); sizes("f32", b, 1000003, 125, 256);
    sizes("f32", b, 1 << 20, 128, 256); sizes("f32", b, 1 << 22, 256, 256); sizes("f32", b, 1 << 24, 264, 512);
  }
  { Buf<int> b(1 << 20); sizes("i32", b, 1 << 12, 1, 256); sizes("i32", b, 1 << 20, 128, 256); }
  { Buf<double> b(1 << 22); sizes("f64", b, 1 << 16, 46, 256); sizes("f64", b, 1 << 20, 182, 256); sizes("f64", b, 1 << 22, 264, 512); }
  printf("done\n");
}
