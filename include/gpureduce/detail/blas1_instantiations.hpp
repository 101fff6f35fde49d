// The BLAS level-1 instantiations libgpureduce.a ships (src/blas1_*.cu), as an X-macro: src/
// instantiates them, blas1.cuh declares them extern so nvcc users reuse them.
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "../blas.hpp"

// X(T, Out) for every shipped pair.
#define GPUREDUCE_FOR_EACH_BLAS1(X) \
  X(float, float) X(double, double) X(__half, float) X(__nv_bfloat16, float)

#define GPUREDUCE_DECLARE_BLAS1(T, Out, EXTERN)                                                   \
  EXTERN template cudaError_t gpureduce::Blas1::Dot<T, Out>(                                     \
      void*, std::size_t&, const T*, const T*, Out*, std::int64_t, cudaStream_t,                 \
      const gpureduce::Options&);                                                               \
  EXTERN template cudaError_t gpureduce::Blas1::SumSquares<T, Out>(                              \
      void*, std::size_t&, const T*, Out*, std::int64_t, cudaStream_t, const gpureduce::Options&); \
  EXTERN template cudaError_t gpureduce::Blas1::Norm2<T, Out>(                                   \
      void*, std::size_t&, const T*, Out*, std::int64_t, cudaStream_t, const gpureduce::Options&); \
  EXTERN template cudaError_t gpureduce::Blas1::SumAbs<T, Out>(                                  \
      void*, std::size_t&, const T*, Out*, std::int64_t, cudaStream_t, const gpureduce::Options&); \
  EXTERN template cudaError_t gpureduce::Blas1::ArgMaxAbs<T>(                                    \
      void*, std::size_t&, const T*, gpureduce::IndexedValue<T>*, std::int64_t, cudaStream_t,    \
      const gpureduce::Options&);

#ifndef GPUREDUCE_BUILDING_LIBRARY
#define GPUREDUCE_EXTERN_BLAS1(T, Out) GPUREDUCE_DECLARE_BLAS1(T, Out, extern)
GPUREDUCE_FOR_EACH_BLAS1(GPUREDUCE_EXTERN_BLAS1)
#undef GPUREDUCE_EXTERN_BLAS1
#endif
