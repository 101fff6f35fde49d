// Correctly rounded BLAS level-1 sums: the exact engine's block body and epilogues (kernels.cuh)
// on shares of terms (blas1_shares.cuh) instead of a raw array. automatic's kernel (256 threads,
// the atomic epilogue) or the vectorized rung with the caller's block size and pipeline; the seed
// rungs, which serve the plain sums' ladder, are not built for them. Compiled into the library
// only (src/exact_blas1_*.cu).
#pragma once

#include "blas1_exact.hpp"
#include "blas1_shares.cuh"
#include "dispatch.cuh"

namespace gpureduce::detail::exact {

// The products' grid states (8 copies of a larger state) end before the partial states, and their
// zeroed bytes fit a stream's slot; they overlap the grid window's records, which like them every
// call leaves zero.
static_assert(kGridStateOffset + kGridStates * kGridStateStride<ProductFamily> <= kPartialStatesOffset);
static_assert(zeroed_state_bytes<ProductFamily>(true, false) <= kLargeSlotBytes);

// What a kernel is given besides ExactArgs: the vectors; each block takes its share of them.
template <Blas1Term kTerm, class T>
struct TermVectors {
  const T* x;
  const T* y;
  std::int64_t n;
  __device__ __forceinline__ auto share() const {
    const auto rank = std::int64_t(blockIdx.x), blocks = std::int64_t(gridDim.x);
    if constexpr (kTerm == Blas1Term::product) return ProductShare<T, false>{x, y, n, rank, blocks};
    else if constexpr (kTerm == Blas1Term::square && std::is_same_v<T, double>)
      return ProductShare<T, true>{x, x, n, rank, blocks};
    else return TermShare<kTerm, T>{{x, n, rank, blocks}};
  }
};

template <int BLOCK, bool kAtomicOnly, bool kDoubleWindow, Blas1Term kTerm, class T, class Out>
__device__ __forceinline__ void exact_terms_block(const ExactArgs<term_t<kTerm, T>, Out>& args,
                                                  const TermVectors<kTerm, T>& vectors) {
  using Item = term_t<kTerm, T>;
  wait_for_previous_kernel_then_release_next();
  finish_block<kAtomicOnly>(
      args, exact_block_state<VectorizedRung, BLOCK, Item, Out, kAtomicOnly, kDoubleWindow>(
                args, vectors.share()));
}

// automatic's: 256 threads, at least four blocks an SM, the atomic epilogue only (as
// exact_automatic_kernel).
template <bool kDoubleWindow, Blas1Term kTerm, class T, class Out>
__global__ void __launch_bounds__(kAutomaticBlockThreads, 4)
    exact_terms_automatic_kernel(ExactArgs<term_t<kTerm, T>, Out> args,
                                 TermVectors<kTerm, T> vectors) {
  exact_terms_block<kAutomaticBlockThreads, true, kDoubleWindow>(args, vectors);
}

// The vectorized rung at any block size, any pipeline.
template <Blas1Term kTerm, class T, class Out>
__global__ void __launch_bounds__(kMaxThreadsFor<0>)
    exact_terms_kernel(ExactArgs<term_t<kTerm, T>, Out> args, TermVectors<kTerm, T> vectors) {
  exact_terms_block<0, false, true>(args, vectors);
}

template <Blas1Term kTerm, class T, class Out>
auto exact_terms_kernel_for(const Choice& choice, std::int64_t n) {
  const bool shaped = choice.automatic_strategy && choice.automatic_pipeline &&
                      choice.block_threads == kAutomaticBlockThreads;
  if (!shaped) return exact_terms_kernel<kTerm, T, Out>;
  // doubles take the window from automatic's limit (dispatch.cuh, kDoubleWindowMinItems)
  if constexpr (!std::is_same_v<family_of<term_t<kTerm, T>>, FloatFamily>)
    if (n >= kDoubleWindowMinItems) return exact_terms_automatic_kernel<true, kTerm, T, Out>;
  return exact_terms_automatic_kernel<false, kTerm, T, Out>;
}

template <Blas1Term kTerm, class T, class Out>
cudaError_t reduce_blas1_exact(const ExactCall& c, const T* y) {
  static_assert(kCorrectlyRoundedBlas1<T, Out>);
  using Item = term_t<kTerm, T>;
  const Options& o = c.options;
  if (o.strategy != Strategy::automatic && o.strategy != Strategy::vectorized)
    return fail(cudaErrorInvalidValue,
                "gpureduce: correctly rounded Dot, SumSquares and SumAbs run on the vectorized "
                "rung (Strategy::automatic or vectorized)");
  Choice choice{Strategy::vectorized, o.block_threads, o.strategy == Strategy::automatic,
                o.pipeline == Pipeline::automatic};
  if (choice.block_threads == 0)
    choice.block_threads = choice.automatic_strategy
                               ? kAutomaticBlockThreads
                               : policy_for(Strategy::vectorized).default_block_threads;
  const auto kernel = exact_terms_kernel_for<kTerm, T, Out>(choice, c.num_items);
  ExactShape s;
  cudaError_t error =
      exact_shape<VectorizedRung, Item, T>(c, choice, reinterpret_cast<const void*>(kernel), s);
  if (error != cudaSuccess) return error;
  const ExactLaunches l = exact_launches(o, s);
  const std::size_t temp_bytes =
      temp_storage_bytes<family_of<Item>>(s.sizing_grid, choice.block_threads, false);
  if (c.d_temp_storage == nullptr) {
    *c.temp_storage_bytes = temp_bytes;
    return cudaSuccess;
  }
  if (*c.temp_storage_bytes < temp_bytes) return fail(cudaErrorInvalidValue, kTempTooSmall);
  ExactCall call = c;
  call.d_in = nullptr;  // the kernels read the vectors, not ExactArgs' d_in
  const TermVectors<kTerm, T> vectors{static_cast<const T*>(c.d_in), y, c.num_items};
  return launch_exact<Item, Out>(call, choice, kernel, s, l, vectors);
}

}  // namespace gpureduce::detail::exact
