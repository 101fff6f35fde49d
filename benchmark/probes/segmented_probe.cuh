// What the segmented probes share: a checked CUDA call and a hashed float fill.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "gpureduce/gpureduce.hpp"

#define CHECK(call)                                                                      \
  do {                                                                                   \
    cudaError_t e_ = (call);                                                             \
    if (e_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s: %s (%s)\n", #call, cudaGetErrorString(e_),               \
                   gpureduce::last_error_message());                                     \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

__global__ void fill(float* x, std::int64_t n, unsigned seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u ^ seed;
    h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
    x[i] = float(int(h % 33554431u) - 16777215) * 0x1p-24f;  // never zero-heavy
  }
}
