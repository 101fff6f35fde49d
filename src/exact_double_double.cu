// Compiled correctly rounded sums (Accuracy::correctly_rounded): double -> double. One file per pair so the
// build parallelises.
#include "gpureduce/detail/exact/dispatch.cuh"
#include "gpureduce/detail/exact/segmented_sum.cuh"

namespace gpureduce::detail::exact {
template cudaError_t reduce_exact<double, double>(const ExactCall&);
template cudaError_t exact_state_sum<double, double>(void*, std::size_t*, const double*, long long*,
                                             std::int64_t, cudaStream_t, const Options&);
template int exact_state_words<double, double>();
template std::size_t segmented_exact_temp_bytes<double, double>(std::int64_t);
template cudaError_t segmented_exact_sum<double, double>(const SegmentedExactCall&);
template cudaError_t round_exact_state<double, double>(const long long*, double*, cudaStream_t);
}  // namespace gpureduce::detail::exact
