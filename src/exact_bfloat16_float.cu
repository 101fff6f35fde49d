// Compiled correctly rounded sums (Accuracy::correctly_rounded): __nv_bfloat16 -> float. One file per pair so the
// build parallelises.
#include "gpureduce/detail/exact/dispatch.cuh"

template cudaError_t gpureduce::detail::exact::reduce_exact<__nv_bfloat16, float>(
    const gpureduce::detail::exact::ExactCall&);
