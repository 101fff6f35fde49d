// The entry point of correctly rounded BLAS level-1 sums (Blas1::Dot, SumSquares, SumAbs with
// Accuracy::correctly_rounded), declared for blas1.cuh and defined in exact/blas1_sum.cuh, which
// only the library's src/exact_blas1_*.cu compile.
#pragma once

#include <type_traits>

#include "exact_sum.hpp"

namespace gpureduce::detail::exact {

// The term a call sums: |x_i| (SumAbs), x_i^2 (SumSquares) or x_i y_i (Dot).
enum class Blas1Term { magnitude, square, product };

// The (input, output) pairs built: Blas1's shipped pairs (T -> T for float and double, half and
// bfloat16 -> float), every term.
template <class T, class Out>
inline constexpr bool kCorrectlyRoundedBlas1 =
    kCorrectlyRoundedPair<T, Out> &&
    std::is_same_v<Out, std::conditional_t<std::is_same_v<T, double>, double, float>>;

// The call, validated as blas1.cuh validates its others; call.d_in is x; y is Dot's second vector
// (null otherwise).
template <Blas1Term kTerm, class T, class Out>
cudaError_t reduce_blas1_exact(const ExactCall& call, const T* y);

#define GPUREDUCE_FOR_EACH_CORRECTLY_ROUNDED_BLAS1(X)                                     \
  X(magnitude, float, float) X(magnitude, double, double) X(magnitude, __half, float)     \
  X(magnitude, __nv_bfloat16, float) X(square, float, float) X(square, __half, float)     \
  X(square, __nv_bfloat16, float) X(product, float, float) X(product, __half, float)      \
  X(product, __nv_bfloat16, float) X(square, double, double) X(product, double, double)
#define GPUREDUCE_EXTERN_BLAS1_EXACT(Term, T, Out) \
  extern template cudaError_t reduce_blas1_exact<Blas1Term::Term, T, Out>(const ExactCall&, const T*);
GPUREDUCE_FOR_EACH_CORRECTLY_ROUNDED_BLAS1(GPUREDUCE_EXTERN_BLAS1_EXACT)
#undef GPUREDUCE_EXTERN_BLAS1_EXACT

}  // namespace gpureduce::detail::exact
