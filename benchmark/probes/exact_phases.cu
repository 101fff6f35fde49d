// Probe: where the one-block correctly rounded kernel spends its time (clock64).
#include <cstdio>
#include <vector>
#include "gpureduce/detail/exact/kernels.cuh"
using namespace gpureduce::detail; using namespace gpureduce::detail::exact;
__device__ long long marks[16];
#define MARK(k) do { __syncthreads(); if (threadIdx.x == 0) marks[k] = clock64(); } while (0)
template <class In, class Out>
__global__ void __launch_bounds__(256) phases(ExactArgs<In, Out> args) {
  using Family = family_of<In>;
  if (threadIdx.x == 0) marks[15] = clock64();
  MARK(0);
  extern __shared__ __align__(16) unsigned char exact_shared[];
  auto& shared = *reinterpret_cast<BlockExact<Family>*>(exact_shared);
  unsigned char* region = exact_shared + kBlockExactBytes<Family>;
  auto* slots = reinterpret_cast<long long*>(region + region_bytes<Family>(int(blockDim.x)));
  shared.clear(slots);
  MARK(1);
  if constexpr (std::is_same_v<Family, FloatFamily>) {
    auto* bins = reinterpret_cast<double*>(region);
    FloatBinsThread thread(bins + threadIdx.x, int(blockDim.x));
    sum_inputs<true>(args.d_in, args.num_items, 0, 1, thread, shared.state);
    MARK(2);
    const unsigned nonzero = thread.template finish<false>();
    MARK(3);
    block_or(thread.seen, shared.seen);
    MARK(4);
    combine_bins_by_warps(shared, reinterpret_cast<long long*>(bins), nonzero, slots);
    MARK(5);
  } else {
    DoubleExpansionThread thread(shared.state);
    sum_inputs<true>(args.d_in, args.num_items, 0, 1, thread, shared.state);
    MARK(2);
    Pieces pieces[2];
    thread.finish(pieces);
    MARK(3);
    block_or(thread.seen, shared.seen);
    MARK(4);
    combine_limbs_by_warps(shared, pieces, slots);
    MARK(5);
  }
  if (threadIdx.x == 0) count_what_was_seen(shared, args.num_items);
  MARK(6);
  if (threadIdx.x < 32) write_rounded_by_warp(args.d_out, shared.state);
  MARK(7);
}
template <class T> void run(long n) {
  T* in; T* out; cudaMalloc(&in, n * sizeof(T)); cudaMalloc(&out, 8);
  std::vector<T> h(n); for (long i = 0; i < n; ++i) h[i] = T((i * 2654435761u % 1000) / 1000.0 - 0.5);
  cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  ExactArgs<T, T> args{in, out, n, nullptr, nullptr, 0, nullptr};
  size_t smem = exact_shared_bytes<VectorizedRung, family_of<T>>(256);
  for (int rep = 0; rep < 5; ++rep) phases<T, T><<<1, 256, smem>>>(args);
  cudaDeviceSynchronize();
  long long m[16]; cudaMemcpyFromSymbol(m, marks, sizeof m);
  printf("%s n=%ld err=%s cycles:", sizeof(T) == 4 ? "f32" : "f64", n, cudaGetErrorString(cudaGetLastError()));
  const char* names[] = {"clear", "loop", "finish", "or", "combine", "seal", "round"};
  printf(" start %lld", m[0] - m[15]);
  for (int k = 1; k <= 7; ++k) printf(" %s %lld", names[k-1], m[k] - m[k-1]);
  printf("\n");
}
int main() { for (long n : {1024L, 4096L, 16384L}) { run<float>(n); run<double>(n); } }
