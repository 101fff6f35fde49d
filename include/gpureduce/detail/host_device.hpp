// Functions that host code (g++ included: the host tests, describe()) and device code share.
#pragma once

#if defined(__CUDACC__)
#define GPUREDUCE_HD __host__ __device__ __forceinline__
#else
#define GPUREDUCE_HD inline
#endif
// Loops over constant bounds, unrolled in device code (g++ would warn of an unknown pragma).
#if defined(__CUDA_ARCH__)
#define GPUREDUCE_UNROLL _Pragma("unroll")
#else
#define GPUREDUCE_UNROLL
#endif
