// Probe run 40 (2026-11-22r): probe 39 found the library's last_block kernel 0.24 us slower than the
// harness's at 2^20 floats in graphs, additively: 0.13 from the data loop, 0.12 from the epilogue,
// 0.03 from two compare-and-branch checks, while the SASS differs by few instructions on the
// executed path. Is it instruction fetch (code size on the executed path)? The harness kernel with
// N extra executed instructions (independent integer adds, in every block before the data, or in
// the last block only, after the ticket).
// RESULT: nothing measured. ptxas folds a chain of adds of immediates into one add, so every
// padded kernel ran the same instructions as the unpadded one (the times agree to 0.003 us).
// Kept as the record of a test that could not fail. Build: nvcc -std=c++17 -O3 -arch=sm_90
// -Iinclude -Ibenchmark/results -o probe40 benchmark/results/h200-2026-11-22r-probe-40.cu
#include "h200-2026-11-22d-graph-probe-harness.cuh"
template <int N> __device__ __forceinline__ unsigned pad(unsigned x) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("add.u32 %0, %0, %1;" : "+r"(x) : "r"(i * 7 + 1));
  return x;
}
template <int PRE, int POST> __global__ void __launch_bounds__(256) kP(const float4* v, long long nv, unsigned long long* slots, unsigned* counter, float* out) {
  pdl();
  unsigned junk = threadIdx.x;
  if constexpr (PRE > 0) junk = pad<PRE>(junk);
  float s = read_sum<256>(v, nv);
  __shared__ bool last;
  if (threadIdx.x == 0) { st_relaxed(slots + blockIdx.x, (1ull << 32) | __float_as_uint(s)); cuda::atomic_ref<unsigned, cuda::thread_scope_device> c(*counter);
    last = c.fetch_add(1, cuda::memory_order_relaxed) == gridDim.x - 1; }
  __syncthreads();
  if (!last) { if (junk == 0xdeadbeef) *out = 1.f; return; }
  if constexpr (POST > 0) junk = pad<POST>(junk);
  float t = 0;
  for (int i = threadIdx.x; i < gridDim.x; i += 256) { unsigned long long w; while (((w = ld_relaxed(slots + i)) >> 32) == 0) {} t += __uint_as_float(unsigned(w)); slots[i] = 0; }
  t = block_sum<256>(t);
  if (threadIdx.x == 0) { *out = t; *counter = 0; }
  if (junk == 0xdeadbeef) *out = 1.f;
}
void size_rows(long long n, int g) {
  printf("\n== graph f32 n=%lld grid %d x 256 (us per reduction, better of two graphs)\n", n, g);
  for (size_t skew : {size_t(256), size_t(5) << 20}) {
    void* spacer; CK(cudaMalloc(&spacer, skew));
    float *in, *out; unsigned char *sa; CK(cudaMalloc(&in, n * 4)); CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&sa, 1 << 20)); CK(cudaMemset(sa, 0, 1 << 20));
    std::vector<float> h(n); std::mt19937_64 r(40 + skew); for (float& x : h) { int v = int(r() % 32) - 16; x = float(v >= 0 ? v + 1 : v); }
    CK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
    const float4* v4 = reinterpret_cast<const float4*>(in); const long long nv = n / 4;
    unsigned long long* slots = reinterpret_cast<unsigned long long*>(sa + 256); unsigned* counter = reinterpret_cast<unsigned*>(sa);
    struct Row { std::string name; Call f; };
    std::vector<Row> rows = {
      {"pad 0", [=] { return ex(kP<0, 0>, g, 256, v4, nv, slots, counter, out); }},
      {"pad 64 before data (all blocks)", [=] { return ex(kP<64, 0>, g, 256, v4, nv, slots, counter, out); }},
      {"pad 256 before data (all blocks)", [=] { return ex(kP<256, 0>, g, 256, v4, nv, slots, counter, out); }},
      {"pad 1024 before data (all blocks)", [=] { return ex(kP<1024, 0>, g, 256, v4, nv, slots, counter, out); }},
      {"pad 64 in last block", [=] { return ex(kP<0, 64>, g, 256, v4, nv, slots, counter, out); }},
      {"pad 256 in last block", [=] { return ex(kP<0, 256>, g, 256, v4, nv, slots, counter, out); }},
      {"pad 1024 in last block", [=] { return ex(kP<0, 1024>, g, 256, v4, nv, slots, counter, out); }},
      {"pad 0 (again)", [=] { return ex(kP<0, 0>, g, 256, v4, nv, slots, counter, out); }},
    };
    std::vector<double> best(rows.size(), 1e9);
    for (int pass = 0; pass < 2; ++pass) for (size_t i = 0; i < rows.size(); ++i) best[i] = std::min(best[i], graph_us(rows[i].f));
    printf("  skew %8zu B\n", skew);
    for (size_t i = 0; i < rows.size(); ++i) printf("    %-40s %6.3f us\n", rows[i].name.c_str(), best[i]);
    cudaFree(sa); cudaFree(out); cudaFree(in); cudaFree(spacer);
  }
}
int main() {
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking)); cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("%s\n", prop.name);
  size_rows(1 << 20, 128); size_rows(1 << 16, 16);
  printf("done\n");
}
