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
  // Non-null: write the sum's exact state here (ExactState<family>'s words) instead of rounding
  // it into d_out (gpureduce::nccl adds the states of all ranks before the one rounding).
  long long* d_state_out = nullptr;
  // exact_state_sum's calls, its size query (d_state_out still null) too: the plan is the
  // exported state's, so that the query sizes the storage of the call it stands for.
  bool exports_state = false;
};

template <class In, class Out>
cudaError_t reduce_exact(const ExactCall& call);

// The exact state of the sum of d_in[0 .. num_items) (ExactState<family of In>'s words,
// unrounded) into d_state, CUB-shaped (d_temp_storage null: the size query); validated as a Sum
// is. For gpureduce::nccl, which adds the states of all ranks and rounds once.
template <class In, class Out>
cudaError_t exact_state_sum(void* d_temp_storage, std::size_t* temp_storage_bytes, const In* d_in,
                            long long* d_state, std::int64_t num_items, cudaStream_t stream,
                            const Options& options);
// The words of one exact state (kWords of its family) and its rounding into d_out, one small
// kernel (gpureduce::nccl, after the states are added).
template <class In, class Out>
int exact_state_words();
template <class In, class Out>
cudaError_t round_exact_state(const long long* d_state, Out* d_out, cudaStream_t stream);

// A correctly rounded segmented sum (DeviceSegmentedReduce::Sum, FixedSizeSum), validated by the
// segmented dispatch: offsets begin/end, or fixed-size segments (begin null) of segment_size.
struct SegmentedExactCall {
  void* temp;
  const void* d_in;
  void* d_out;
  std::int64_t num_segments;
  const std::int64_t* begin;
  const std::int64_t* end;
  std::int64_t segment_size;
  cudaStream_t stream;
  Options options;
};
// Split segments a call gives a slot of its own at most (the rest run on one block each, with the
// same bits): segmented_sum.cuh's kSegmentSlots; a test hook lowers it.
inline std::int64_t segmented_slots_limit = 4096;
// Its temp storage (a function of num_segments only), and the call (segmented_sum.cuh).
template <class In, class Out>
std::size_t segmented_exact_temp_bytes(std::int64_t num_segments);
template <class In, class Out>
cudaError_t segmented_exact_sum(const SegmentedExactCall& call);

#define GPUREDUCE_FOR_EACH_CORRECTLY_ROUNDED_SUM(X) \
  X(float, float) X(float, double) X(double, double) X(__half, float) X(__nv_bfloat16, float)
#define GPUREDUCE_EXTERN_EXACT(In, Out)                                                       \
  extern template cudaError_t reduce_exact<In, Out>(const ExactCall&);                        \
  extern template cudaError_t exact_state_sum<In, Out>(void*, std::size_t*, const In*,        \
                                                       long long*, std::int64_t, cudaStream_t, \
                                                       const Options&);                       \
  extern template int exact_state_words<In, Out>();                                           \
  extern template cudaError_t round_exact_state<In, Out>(const long long*, Out*, cudaStream_t); \
  extern template std::size_t segmented_exact_temp_bytes<In, Out>(std::int64_t);               \
  extern template cudaError_t segmented_exact_sum<In, Out>(const SegmentedExactCall&);
GPUREDUCE_FOR_EACH_CORRECTLY_ROUNDED_SUM(GPUREDUCE_EXTERN_EXACT)
#undef GPUREDUCE_EXTERN_EXACT

}  // namespace gpureduce::detail::exact
