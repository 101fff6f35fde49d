// Graph probe run 11: the zeroed streaming grid of reduce_last_block_kernel at 512 threads, 1 to
// occupancy blocks per SM, against CUB. Output: h200-2026-11-22d-graph-probe.txt.
#include "h200-2026-11-22d-graph-probe-harness.cuh"


namespace d = gpureduce::detail;
template <class T> using PT = d::Problem<T, T, T, ::cuda::std::plus<T>, T>;
template <class T> using PM = d::Problem<T, T, T, d::MaxOp, T>;
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

// The zeroed streaming plan's grid for the shaped last_block kernel at 512 threads: 1, 2 or 3 (or
// 4) blocks per SM, against the kernel's occupancy, per reduction in a 100-reduction graph.
template <class P, class T> void streaming(const char* name, Buf<T>& b, long long n, bool is_max) {
  Call cub = [=, &b] { size_t x = b.ctb; return is_max ? cub::DeviceReduce::Max(b.ct, x, b.in, b.out, n, S) : cub::DeviceReduce::Sum(b.ct, x, b.in, b.out, n, S); };
  CK(cub()); T ref = b.result(); double gc = graph_us(cub);
  auto kern = d::reduce_last_block_kernel<d::VectorizedRung, 512, P>;
  int occ = 0; const size_t smem = d::VectorizedRung::shared_bytes(512, sizeof(T));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kern, 512, smem));
  cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, kern));
  printf("\n== %s n=%lld (%.1f MiB): CUB graph %.3f us; shaped kernel %d regs, %d blocks of 512 per SM\n", name, n, n * sizeof(T) / 1048576.0, gc, fa.numRegs, occ);
  d::KernelArgs<P> a{b.in, b.out, n, {}, is_max ? std::numeric_limits<T>::lowest() : T{}, !is_max, gpureduce::Pipeline::last_block, (T*)(b.temp + 256 + 32768), nullptr, (d::ControlBlock*)b.temp, (std::uint64_t*)(b.temp + 256)};
  int sms = 0; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  for (int per = 1; per <= occ; ++per) {
    int g = per * sms; char nm[96]; snprintf(nm, sizeof nm, "shaped last_block %d x 512 (%d of %d per SM)", g, per, occ);
    CK(cudaMemset(b.out, 0x7f, 64)); CK(exs(kern, g, 512, smem, a)); T r = b.result(); Call f = [=] { return exs(kern, g, 512, smem, a); }; double g1 = graph_us(f), g2 = graph_us(f);
    printf("  %-52s %8.3f %8.3f us  %.3fx CUB %s\n", nm, g1, g2, std::min(g1, g2) / gc, r == ref ? "ok" : "WRONG");
  }
}
int main() {
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking)); cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("%s\n", prop.name);
  { Buf<float> b(1 << 25); streaming<PT<float>>("f32 sum", b, 10000000, false); streaming<PT<float>>("f32 sum", b, 1 << 24, false); streaming<PT<float>>("f32 sum", b, 1 << 25, false); }
  { Buf<double> b(1 << 24); streaming<PM<double>>("f64 max", b, 1 << 22, true); streaming<PM<double>>("f64 max", b, 5000000, true); streaming<PM<double>>("f64 max", b, 1 << 24, true);
    streaming<PT<double>>("f64 sum", b, 5000000, false); streaming<PT<double>>("f64 sum", b, 1 << 24, false); }
  printf("done\n");
}
