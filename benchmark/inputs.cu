// Input generation: splitmix64 of (seed, index), so any element is reproducible from the printed
// seed, and no host-side generation of 2^28 values slows the benchmark start.
#include "inputs.hpp"

#include <cuda_fp16.h>

#include <type_traits>

#include "cuda_check.hpp"

namespace gpureduce_bench {

namespace {

__device__ __forceinline__ std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform k in [-K, K] \ {0}: draw r in [0, 2K), map [0, K) to [-K, -1] and [K, 2K) to [1, K].
// The modulo bias (2K divides 2^64 for the power-of-two K; 200 does not, a bias of 1e-17) is
// irrelevant here.
__device__ __forceinline__ std::int64_t nonzero_in(std::uint64_t bits, std::int64_t K) {
  const std::int64_t r = std::int64_t(bits % std::uint64_t(2 * K));
  return r < K ? r - K : r - K + 1;
}

template <class T> struct Fine;
template <> struct Fine<float> { static constexpr std::int64_t K = std::int64_t(1) << 24; static constexpr int s = 24; };
template <> struct Fine<double> { static constexpr std::int64_t K = std::int64_t(1) << 40; static constexpr int s = 40; };
template <> struct Fine<__half> { static constexpr std::int64_t K = std::int64_t(1) << 10; static constexpr int s = 10; };
template <> struct Fine<std::int32_t> { static constexpr std::int64_t K = 100; static constexpr int s = 0; };

// k * 2^-s, exact in T: |k| <= K fits T's significand (24, 53, 11 bits), and scaling by a power
// of two is exact.
template <class T>
__device__ __forceinline__ T from_scaled(std::int64_t k, int s) {
  if constexpr (std::is_same_v<T, __half>) return __float2half_rn(ldexpf(float(k), -s));
  else if constexpr (std::is_same_v<T, std::int32_t>) return std::int32_t(k);
  else return T(ldexp(double(k), -s));
}

template <class T>
__global__ void fill_kernel(T* out, std::int64_t n, std::uint64_t seed, bool fine) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::uint64_t bits = splitmix64(seed ^ splitmix64(std::uint64_t(i)));
    out[i] = fine ? from_scaled<T>(nonzero_in(bits, Fine<T>::K), Fine<T>::s)
                  : from_scaled<T>(nonzero_in(bits, 16), 0);
  }
}

}  // namespace

template <class T>
int fine_scale_exponent() {
  return Fine<T>::s;
}

template <class T>
void fill_random(T* d_out, std::int64_t n, std::uint64_t seed, ValueMode mode, cudaStream_t stream) {
  if (n <= 0) return;
  const std::int64_t blocks_needed = (n + 255) / 256;
  const unsigned blocks = unsigned(blocks_needed < 65536 ? blocks_needed : 65536);
  fill_kernel<T><<<blocks, 256, 0, stream>>>(d_out, n, seed, mode == ValueMode::fine_grained);
  BENCH_CHECK_LAUNCH("fill_kernel");
}

#define GPUREDUCE_BENCH_INPUTS(T)                                                            \
  template int fine_scale_exponent<T>();                                                     \
  template void fill_random<T>(T*, std::int64_t, std::uint64_t, ValueMode, cudaStream_t);
GPUREDUCE_BENCH_INPUTS(float)
GPUREDUCE_BENCH_INPUTS(double)
GPUREDUCE_BENCH_INPUTS(__half)
GPUREDUCE_BENCH_INPUTS(std::int32_t)
#undef GPUREDUCE_BENCH_INPUTS

}  // namespace gpureduce_bench
