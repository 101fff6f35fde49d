// The entry point of correctly rounded sums (Accuracy::correctly_rounded), declared for dispatch.cuh
// and defined in exact/dispatch.cuh, which only the library's src/exact_*.cu compile: the five
// (input, output) pairs below are built into libgpureduce.a once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include "../../gpureduce.hpp"
#include "../context.hpp"
#include "../runtime.hpp"

namespace gpureduce::detail::exact {

// Sum's (input, output) pairs that can be correctly rounded.
template <class In, class Out>
inline constexpr bool kCorrectlyRoundedPair =
    (std::is_same_v<In, float> && (std::is_same_v<Out, float> || std::is_same_v<Out, double>)) ||
    (std::is_same_v<In, double> && std::is_same_v<Out, double>) ||
    ((std::is_same_v<In, __half> || std::is_same_v<In, __nv_bfloat16>) && std::is_same_v<Out, float>);

// One call, validated by dispatch's reduce(): plan (plan != null), size query (d_temp_storage
// null) or run.
struct ExactCall {
  void* d_temp_storage;
  std::size_t* temp_storage_bytes;
  const void* d_in;
  void* d_out;
  std::int64_t num_items;
  cudaStream_t stream;
  Options options;
  LaunchPlan* plan;
  ContextKey context;
  DeviceFacts facts;
};

template <class In, class Out>
cudaError_t reduce_exact(const ExactCall& call);

#define GPUREDUCE_FOR_EACH_CORRECTLY_ROUNDED_SUM(X) \
  X(float, float) X(float, double) X(double, double) X(__half, float) X(__nv_bfloat16, float)
#define GPUREDUCE_EXTERN_EXACT(In, Out) \
  extern template cudaError_t reduce_exact<In, Out>(const ExactCall&);
GPUREDUCE_FOR_EACH_CORRECTLY_ROUNDED_SUM(GPUREDUCE_EXTERN_EXACT)
#undef GPUREDUCE_EXTERN_EXACT

}  // namespace gpureduce::detail::exact
