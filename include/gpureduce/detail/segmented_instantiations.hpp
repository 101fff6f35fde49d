// The segmented instantiations libgpureduce.a ships (src/segmented_*.cu), over the same type lists
// as DeviceReduce's (shipped_instantiations.hpp): src/ instantiates them, segmented.cuh declares
// them extern so nvcc users reuse them.
#pragma once

#include <cstdint>
#include <string>

#include "../segmented.hpp"
#include "shipped_instantiations.hpp"

#define GPUREDUCE_DECLARE_SEGMENTED_SUM(In, Out, EXTERN)                                         \
  EXTERN template cudaError_t gpureduce::DeviceSegmentedReduce::Sum<In, Out>(                    \
      void*, std::size_t&, const In*, Out*, std::int64_t, const std::int64_t*,                   \
      const std::int64_t*, cudaStream_t, const gpureduce::Options&);                             \
  EXTERN template cudaError_t gpureduce::DeviceSegmentedReduce::FixedSizeSum<In, Out>(           \
      void*, std::size_t&, const In*, Out*, std::int64_t, std::int64_t, cudaStream_t,            \
      const gpureduce::Options&);

// Min/Max (OUT = T) and ArgMin/ArgMax (OUT = IndexedValue<T>) of T, by NAME.
#define GPUREDUCE_DECLARE_SEGMENTED_ONE(NAME, T, OUT, EXTERN)                                    \
  EXTERN template cudaError_t gpureduce::DeviceSegmentedReduce::NAME<T>(                         \
      void*, std::size_t&, const T*, OUT*, std::int64_t, const std::int64_t*,                    \
      const std::int64_t*, cudaStream_t, const gpureduce::Options&);                             \
  EXTERN template cudaError_t gpureduce::DeviceSegmentedReduce::FixedSize##NAME<T>(              \
      void*, std::size_t&, const T*, OUT*, std::int64_t, std::int64_t, cudaStream_t,             \
      const gpureduce::Options&);

#define GPUREDUCE_DECLARE_SEGMENTED_MINMAX(T, EXTERN)                                            \
  GPUREDUCE_DECLARE_SEGMENTED_ONE(Min, T, T, EXTERN)                                             \
  GPUREDUCE_DECLARE_SEGMENTED_ONE(Max, T, T, EXTERN)                                             \
  GPUREDUCE_DECLARE_SEGMENTED_ONE(ArgMin, T, gpureduce::IndexedValue<T>, EXTERN)                 \
  GPUREDUCE_DECLARE_SEGMENTED_ONE(ArgMax, T, gpureduce::IndexedValue<T>, EXTERN)                 \
  EXTERN template std::string gpureduce::DeviceSegmentedReduce::describe<T>(                     \
      std::int64_t, const std::int64_t*, const std::int64_t*, const gpureduce::Options&);        \
  EXTERN template std::string gpureduce::DeviceSegmentedReduce::describe<T>(                     \
      std::int64_t, std::int64_t, const gpureduce::Options&);

#ifndef GPUREDUCE_BUILDING_LIBRARY
#define GPUREDUCE_EXTERN_SEGMENTED_SUM(In, Out) GPUREDUCE_DECLARE_SEGMENTED_SUM(In, Out, extern)
#define GPUREDUCE_EXTERN_SEGMENTED_MINMAX(T) GPUREDUCE_DECLARE_SEGMENTED_MINMAX(T, extern)
GPUREDUCE_FOR_EACH_SUM(GPUREDUCE_EXTERN_SEGMENTED_SUM)
GPUREDUCE_FOR_EACH_MINMAX(GPUREDUCE_EXTERN_SEGMENTED_MINMAX)
#undef GPUREDUCE_EXTERN_SEGMENTED_SUM
#undef GPUREDUCE_EXTERN_SEGMENTED_MINMAX
#endif
