// Compiled correctly rounded sums (Accuracy::correctly_rounded): __half -> float. One file per pair so the
// build parallelises.
#include "gpureduce/detail/exact/dispatch.cuh"

template cudaError_t gpureduce::detail::exact::reduce_exact<__half, float>(
    const gpureduce::detail::exact::ExactCall&);
