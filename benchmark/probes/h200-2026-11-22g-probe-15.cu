// Probe run 15 (2026-11-22g): the library before and after one change, as two builds of this file:
// "old" against HEAD 928ea2b's headers and libgpureduce.a, "new" against the working tree's (the
// 40-byte KernelArgs and the capture query only where it can change the launch). Public API only.
// Run alternately (old, new, old, new) so drift hits both. Also (argument "params"): how an empty
// PDL kernel's launch time depends on its parameter bytes, and (argument "address") whether the
// temp storage's address moves a graph reduction's time.
#include "h200-2026-11-22d-graph-probe-harness.cuh"

#include <cstring>
#include <string>

using gpureduce::Options;

template <class T> struct Data {
  T *in, *out; void* ct; size_t ctb = 0; unsigned char* temp; size_t temp_bytes = 64 << 20;
  explicit Data(long long maxn) {
    CK(cudaMalloc(&in, maxn * sizeof(T))); CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&temp, temp_bytes)); CK(cudaMemset(temp, 0, temp_bytes));
    std::vector<T> h(maxn); std::mt19937_64 r(5); for (T& x : h) { int v = int(r() % 32) - 16; x = T(v >= 0 ? v + 1 : v); }
    CK(cudaMemcpy(in, h.data(), maxn * sizeof(T), cudaMemcpyHostToDevice));
    CK(cub::DeviceReduce::Sum(nullptr, ctb, in, out, maxn, S)); CK(cudaMalloc(&ct, ctb));
  }
  ~Data() { cudaFree(in); cudaFree(out); cudaFree(ct); cudaFree(temp); }
  T result() { T v; CK(cudaStreamSynchronize(S)); CK(cudaMemcpy(&v, out, sizeof(T), cudaMemcpyDeviceToHost)); return v; }
  Call cub(long long n) { return [=] { size_t b = ctb; return cub::DeviceReduce::Sum(ct, b, in, out, n, S); }; }
  Call lib(long long n, Options o, size_t offset = 0) {
    return [=] { size_t b = temp_bytes - offset; return gpureduce::DeviceReduce::Sum<T, T>(temp + offset, b, in, out, n, S, o); };
  }
};

Options zeroed() { Options o; o.temp_storage_zeroed = true; return o; }

template <class T> void per_call(const char* name, Data<T>& d, long long n) {
  Call cub = d.cub(n); CK(cub()); const T ref = d.result();
  for (auto [what, o] : {std::pair{"default", Options{}}, std::pair{"zeroed", zeroed()}}) {
    Call f = d.lib(n, o); CK(cudaMemset(d.out, 0x7f, 64)); CK(f()); const T got = d.result();
    const Pair p = paired(f, cub, 4000);
    printf("  per call %s n=%-8lld %-8s  GPU %6.2f vs CUB %6.2f  median ratio %.3f  %s\n", name, n, what, p.a, p.b, p.r, got == ref ? "ok" : "WRONG");
  }
}
template <class T> void graph(const char* name, Data<T>& d, long long n) {
  Call cub = d.cub(n); CK(cub()); const T ref = d.result(); const double gc = graph_us(cub);
  for (auto [what, o] : {std::pair{"default", Options{}}, std::pair{"zeroed", zeroed()}}) {
    Call f = d.lib(n, o); CK(cudaMemset(d.out, 0x7f, 64)); CK(f()); const T got = d.result();
    const double g = graph_us(f);
    printf("  graph    %s n=%-8lld %-8s  %6.3f us vs CUB %6.3f  ratio %.3f  %s\n", name, n, what, g, gc, g / gc, got == ref ? "ok" : "WRONG");
  }
}

// Empty PDL kernels whose one parameter is a struct of kBytes bytes.
template <int kBytes> struct Blob { unsigned long long word[kBytes / 8]; };
template <int kBytes> __global__ void __launch_bounds__(256) k_blob(Blob<kBytes> b) {
  pdl(); if (threadIdx.x == 0 && b.word[0] == 1) *reinterpret_cast<int*>(b.word[kBytes / 8 - 1]) = 0;
}
template <int kBytes> void params_row() {
  Blob<kBytes> b{}; Call f = [=] { return ex(k_blob<kBytes>, 1, 256, b); };
  Call g = [=] { return ex(k_blob<16>, 1, 256, Blob<16>{}); };
  const Pair p = paired(f, g, 4000);
  printf("  params %3d bytes: graph %.3f us per kernel; per call %.2f us vs 16 bytes %.2f, median ratio %.3f\n", kBytes, graph_us(f), p.a, p.b, p.r);
}

int main(int argc, char** argv) {
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking)); cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
  const std::string mode = argc > 1 ? argv[1] : "compare";
  printf("%s: %s\n", prop.name, mode.c_str());
  if (mode == "params") {
    for (int rep = 0; rep < 2; ++rep) { params_row<16>(); params_row<40>(); params_row<48>(); params_row<64>(); params_row<72>(); params_row<96>(); params_row<128>(); params_row<256>(); }
    return 0;
  }
  Data<float> f(1 << 22); Data<int> i(1 << 22); Data<double> g(1 << 22);
  if (mode == "address") {
    for (size_t offset : {size_t(0), size_t(256), size_t(4096), size_t(65536), size_t(1) << 20, (size_t(2) << 20) + 256, size_t(5) << 20}) {
      for (long long n : {1 << 18, 1 << 20}) {
        Call cub = f.cub(n); const double gc = graph_us(cub);
        CK(cudaMemset(f.temp, 0, f.temp_bytes));
        const double a = graph_us(f.lib(n, Options{}, offset)), z = graph_us(f.lib(n, zeroed(), offset));
        Call ci = i.cub(n); const double gci = graph_us(ci);
        CK(cudaMemset(i.temp, 0, i.temp_bytes));
        const double ai = graph_us(i.lib(n, Options{}, offset)), zi = graph_us(i.lib(n, zeroed(), offset));
        printf("  temp + %8zu  n=%-8lld f32 default %.3f zeroed %.3f (CUB %.3f)   i32 default %.3f zeroed %.3f (CUB %.3f)\n", offset, n, a, z, gc, ai, zi, gci);
      }
    }
    return 0;
  }
  for (long long n : {1024, 4096}) { per_call("f32", f, n); per_call("i32", i, n); per_call("f64", g, n); }
  for (long long n : {4096, 1 << 16, 1 << 18, 1 << 20, 1 << 22}) { graph("f32", f, n); graph("i32", i, n); graph("f64", g, n); }
  printf("done\n");
}
