// The (type, operation) pairs compiled into libgpureduce.a, as an X-macro: src/ instantiates them,
// device_reduce.cuh declares them extern. One list, so the two cannot drift apart.
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "../gpureduce.hpp"

// GPUREDUCE_SUM(In, Out) for every shipped Sum; GPUREDUCE_MINMAX(T) for every shipped Min/Max
// (and ArgMin/ArgMax).
#define GPUREDUCE_FOR_EACH_SUM(X)                                                          \
  X(std::int32_t, std::int32_t) X(std::uint32_t, std::uint32_t) X(std::int64_t, std::int64_t) \
  X(std::uint64_t, std::uint64_t) X(float, float) X(float, double) X(double, double)     \
  X(__half, float) X(__nv_bfloat16, float)
#define GPUREDUCE_FOR_EACH_MINMAX(X)                                                       \
  X(std::int32_t) X(std::uint32_t) X(std::int64_t) X(std::uint64_t) X(float) X(double)    \
  X(__half) X(__nv_bfloat16)

#define GPUREDUCE_DECLARE_SUM(In, Out, EXTERN)                                              \
  EXTERN template cudaError_t gpureduce::DeviceReduce::Sum<In, Out>(                       \
      void*, std::size_t&, const In*, Out*, std::int64_t, cudaStream_t, const gpureduce::Options&);   \
  EXTERN template cudaError_t gpureduce::DeviceReduce::PlanSum<In, Out>(                   \
      gpureduce::LaunchPlan&, const In*, std::int64_t, const gpureduce::Options&, cudaStream_t);
#define GPUREDUCE_DECLARE_MINMAX(T, EXTERN)                                                 \
  EXTERN template cudaError_t gpureduce::DeviceReduce::Min<T>(                             \
      void*, std::size_t&, const T*, T*, std::int64_t, cudaStream_t, const gpureduce::Options&);      \
  EXTERN template cudaError_t gpureduce::DeviceReduce::Max<T>(                             \
      void*, std::size_t&, const T*, T*, std::int64_t, cudaStream_t, const gpureduce::Options&);      \
  EXTERN template cudaError_t gpureduce::DeviceReduce::ArgMin<T>(                          \
      void*, std::size_t&, const T*, gpureduce::IndexedValue<T>*, std::int64_t, cudaStream_t, \
      const gpureduce::Options&);                                                          \
  EXTERN template cudaError_t gpureduce::DeviceReduce::ArgMax<T>(                          \
      void*, std::size_t&, const T*, gpureduce::IndexedValue<T>*, std::int64_t, cudaStream_t, \
      const gpureduce::Options&);                                                          \
  EXTERN template cudaError_t gpureduce::DeviceReduce::PlanMin<T>(                         \
      gpureduce::LaunchPlan&, const T*, std::int64_t, const gpureduce::Options&, cudaStream_t); \
  EXTERN template cudaError_t gpureduce::DeviceReduce::PlanMax<T>(                         \
      gpureduce::LaunchPlan&, const T*, std::int64_t, const gpureduce::Options&, cudaStream_t);

#ifndef GPUREDUCE_BUILDING_LIBRARY
#define GPUREDUCE_EXTERN_SUM(In, Out) GPUREDUCE_DECLARE_SUM(In, Out, extern)
#define GPUREDUCE_EXTERN_MINMAX(T) GPUREDUCE_DECLARE_MINMAX(T, extern)
GPUREDUCE_FOR_EACH_SUM(GPUREDUCE_EXTERN_SUM)
GPUREDUCE_FOR_EACH_MINMAX(GPUREDUCE_EXTERN_MINMAX)
#undef GPUREDUCE_EXTERN_SUM
#undef GPUREDUCE_EXTERN_MINMAX
#endif
