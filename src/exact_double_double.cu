// Compiled correctly rounded sums (Accuracy::correctly_rounded): double -> double. One file per pair so the
// build parallelises.
#include "gpureduce/detail/exact/dispatch.cuh"

template cudaError_t gpureduce::detail::exact::reduce_exact<double, double>(
    const gpureduce::detail::exact::ExactCall&);
