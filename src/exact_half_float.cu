// Compiled correctly rounded sums (Accuracy::correctly_rounded): __half -> float. One file per pair so the
// build parallelises.
#include "gpureduce/detail/exact/dispatch.cuh"
#include "gpureduce/detail/exact/segmented_sum.cuh"

namespace gpureduce::detail::exact {
template cudaError_t reduce_exact<__half, float>(const ExactCall&);
template cudaError_t exact_state_sum<__half, float>(void*, std::size_t*, const __half*, long long*,
                                             std::int64_t, cudaStream_t, const Options&);
template int exact_state_words<__half, float>();
template std::size_t segmented_exact_temp_bytes<__half, float>(std::int64_t);
template cudaError_t segmented_exact_sum<__half, float>(const SegmentedExactCall&);
template cudaError_t round_exact_state<__half, float>(const long long*, float*, cudaStream_t);
}  // namespace gpureduce::detail::exact
