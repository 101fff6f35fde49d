// Compiled correctly rounded sums (Accuracy::correctly_rounded): float -> double. One file per pair so the
// build parallelises.
#include "gpureduce/detail/exact/dispatch.cuh"
#include "gpureduce/detail/exact/segmented_sum.cuh"

namespace gpureduce::detail::exact {
template cudaError_t reduce_exact<float, double>(const ExactCall&);
template cudaError_t exact_state_sum<float, double>(void*, std::size_t*, const float*, long long*,
                                             std::int64_t, cudaStream_t, const Options&);
template int exact_state_words<float, double>();
template std::size_t segmented_exact_temp_bytes<float, double>(std::int64_t);
template cudaError_t segmented_exact_sum<float, double>(const SegmentedExactCall&);
template cudaError_t round_exact_state<float, double>(const long long*, double*, cudaStream_t);
}  // namespace gpureduce::detail::exact
