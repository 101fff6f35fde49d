// Random inputs, generated on the GPU (2^28 elements in milliseconds), never zero, and built so
// that sums are exactly computable on the host.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace gpureduce_bench {

enum class ValueMode {
  // k * 2^-s with k uniform in [-K, K] \ {0}: every value exact in its type, and the exact sum is
  // sum(k) * 2^-s, an integer sum. f32: K = 2^24, s = 24; f64: K = 2^40, s = 40; f16: K = 2^10,
  // s = 10; i32: K = 100, s = 0. Used by the ladder, which reports each rung's rounding error.
  fine_grained,
  // Integers in [-16, 16] \ {0}: every partial sum of up to 2^28 of them with random signs stays
  // far below 2^24 (about 9.5 * sqrt(n) = 155K), so every float summation order is exact and
  // the benchmark can validate each contender against CUB with equality, not a loose bound.
  small_integers,
};

// The s of fine_grained for T: value * 2^s is the integer k.
template <class T>
int fine_scale_exponent();

// Fills d_out[0, n) from a counter-based hash of (seed, index); asynchronous on `stream`.
template <class T>
void fill_random(T* d_out, std::int64_t n, std::uint64_t seed, ValueMode mode,
                 cudaStream_t stream = nullptr);

}  // namespace gpureduce_bench
