// Probe run 18 (2026-11-22i): can storage the caller did not zero reach the counted word's speed
// inside graphs? Today such a call runs two_kernel there (a partials kernel, then a one-block fold
// kernel). The alternative: a one-block "arm" kernel that zeroes the control block, then the
// single-pass kernel, both PDL launches; the arm kernel replaces the fold kernel, not adds to it.
// Rows: two_kernel-like (read + fold kernels), arm + counted (ints), arm + flagged (floats), the
// counted or flagged kernel alone on zeroed storage, and the library (counted_sum.cuh adopted)
// with default and zeroed Options. Reuses probe 17's kernels (its main() renamed away).
// Build from the repository root:
//   nvcc -std=c++17 -O3 -arch=sm_90 -Iinclude -Ibenchmark/probes -I<build dir> -o probe18
//     benchmark/probes/h200-2026-11-22i-probe-18.cu <build dir>/libgpureduce.a
#define main probe17_main
#include "h200-2026-11-22i-probe-17.cu"
#undef main

// Zeroes the counter word(s) and `slot_words` flagged slots, after the previous kernel is done.
__global__ void __launch_bounds__(256) k_arm(unsigned long long* control, unsigned long long* slots, int slot_words) {
  pdl();
  if (threadIdx.x < 4) control[threadIdx.x] = 0;
  for (int i = threadIdx.x; i < slot_words; i += 256) slots[i] = 0;
}
template <class T, int B> __global__ void __launch_bounds__(B) k_fold(const T* partials, int count, T* out) {
  pdl(); T t = 0;
  for (int i = threadIdx.x; i < count; i += B) t += __ldcg(partials + i);
  t = block_sum_t<T, B>(t);
  if (threadIdx.x == 0) *out = t;
}

template <class T> void size_rows(const char* tname, long long n, int grid) {
  Bufs b; const size_t bytes = n * sizeof(T);
  CK(cudaMalloc(&b.in, bytes)); CK(cudaMalloc(&b.out, 64)); CK(cudaMalloc(&b.slots, 1 << 16)); CK(cudaMemset(b.slots, 0, 1 << 16));
  CK(cudaMalloc(&b.counter, 256)); CK(cudaMemset(b.counter, 0, 256)); CK(cudaMalloc(&b.partials, 1 << 16));
  std::vector<T> h(n); std::mt19937_64 r(18); for (T& x : h) x = T(int(r() % 2001) - 1000) / T(std::is_integral_v<T> ? 1 : 8);
  CK(cudaMemcpy(b.in, h.data(), bytes, cudaMemcpyHostToDevice));
  const T* in = static_cast<const T*>(b.in); T* out = static_cast<T*>(b.out);
  size_t cb = 0; void* ct; CK(cub::DeviceReduce::Sum(nullptr, cb, in, out, n, S)); CK(cudaMalloc(&ct, cb));
  Call cub = [=] { size_t t = cb; return cub::DeviceReduce::Sum(ct, t, in, out, n, S); };
  CK(cub()); CK(cudaStreamSynchronize(S)); T ref; CK(cudaMemcpy(&ref, out, sizeof(T), cudaMemcpyDeviceToHost));
  const double gc = std::min(graph_us(cub), graph_us(cub));
  printf("\n== graph %s n=%lld, %dx256: CUB %.3f us per reduction\n", tname, n, grid, gc);
  void* lt; size_t lb = 64 << 20; CK(cudaMalloc(&lt, lb)); CK(cudaMemset(lt, 0, lb));
  gpureduce::Options z; z.temp_storage_zeroed = true;
  auto* control = reinterpret_cast<unsigned long long*>(b.counter);
  for (int rep = 0; rep < 2; ++rep) {
    check_row<T>("library default", [=] { size_t t = lb; return gpureduce::DeviceReduce::Sum<T, T>(lt, t, in, out, n, S); }, b, ref, n, gc);
    check_row<T>("library zeroed", [=] { size_t t = lb; return gpureduce::DeviceReduce::Sum<T, T>(lt, t, in, out, n, S, z); }, b, ref, n, gc);
    check_row<T>("two_kernel-like: read + fold", [=] {
      cudaError_t e = ex(k_read_u<T, 256, 4>, grid, 256, in, n, static_cast<T*>(b.partials));
      return e != cudaSuccess ? e : ex(k_fold<T, 256>, 1, 256, static_cast<const T*>(b.partials), grid, out); }, b, ref, n, gc);
    if constexpr (std::is_same_v<T, int>) {
      check_row<T>("counted alone (zeroed)", [=] { return ex(k_packed<256, 4>, grid, 256, in, n, control + 1, out); }, b, ref, n, gc);
      check_row<T>("arm + counted", [=] {
        cudaError_t e = ex(k_arm, 1, 256, control, b.slots, 0);
        return e != cudaSuccess ? e : ex(k_packed<256, 4>, grid, 256, in, n, control + 1, out); }, b, ref, n, gc);
    }
    check_row<T>("flagged alone (zeroed)", [=] { return ex(k_flag_u<T, 256, 4>, grid, 256, in, n, b.slots, b.counter, out); }, b, ref, n, gc);
    check_row<T>("arm + flagged", [=] {
      cudaError_t e = ex(k_arm, 1, 256, control, b.slots, grid);
      return e != cudaSuccess ? e : ex(k_flag_u<T, 256, 4>, grid, 256, in, n, b.slots, b.counter, out); }, b, ref, n, gc);
  }
  cudaFree(b.in); cudaFree(b.out); cudaFree(b.slots); cudaFree(b.counter); cudaFree(b.partials); cudaFree(ct); cudaFree(lt);
}

int main() {
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking)); cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("%s\n", prop.name);
  size_rows<int>("i32", 1 << 16, 32);
  size_rows<int>("i32", 1 << 20, 128);
  size_rows<float>("f32", 1 << 16, 32);
  size_rows<float>("f32", 1 << 20, 128);
  printf("done\n");
}
