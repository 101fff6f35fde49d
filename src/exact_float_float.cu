// Compiled correctly rounded sums (Accuracy::correctly_rounded): float -> float. One file per pair so the
// build parallelises.
#include "gpureduce/detail/exact/dispatch.cuh"

template cudaError_t gpureduce::detail::exact::reduce_exact<float, float>(
    const gpureduce::detail::exact::ExactCall&);
