// Compiled correctly rounded BLAS level-1 sums (Dot, SumSquares, SumAbs) of __nv_bfloat16. One file per input
// type so the build parallelises.
#include "gpureduce/detail/exact/blas1_sum.cuh"

namespace gpureduce::detail::exact {
#define GPUREDUCE_INSTANTIATE_BLAS1_EXACT(Term, T, Out)                          \
  template cudaError_t reduce_blas1_exact<Blas1Term::Term, T, Out>(const ExactCall&, const T*);
GPUREDUCE_INSTANTIATE_BLAS1_EXACT(magnitude, __nv_bfloat16, float)
GPUREDUCE_INSTANTIATE_BLAS1_EXACT(square, __nv_bfloat16, float)
GPUREDUCE_INSTANTIATE_BLAS1_EXACT(product, __nv_bfloat16, float)
#undef GPUREDUCE_INSTANTIATE_BLAS1_EXACT
}  // namespace gpureduce::detail::exact
