// Compiled correctly rounded sums (Accuracy::correctly_rounded): float -> double. One file per pair so the
// build parallelises.
#include "gpureduce/detail/exact/dispatch.cuh"

namespace gpureduce::detail::exact {
template cudaError_t reduce_exact<float, double>(const ExactCall&);
template cudaError_t exact_state_sum<float, double>(void*, std::size_t*, const float*, long long*,
                                             std::int64_t, cudaStream_t, const Options&);
template int exact_state_words<float, double>();
template cudaError_t round_exact_state<float, double>(const long long*, double*, cudaStream_t);
}  // namespace gpureduce::detail::exact
