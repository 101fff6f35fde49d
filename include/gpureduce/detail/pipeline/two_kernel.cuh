// The two_kernel pipeline, as CUB does it: the first kernel writes one partial per block; a second
// kernel of one block reduces the partials, in index order with the same rung. The kernel boundary
// is the only synchronisation, so no counter and nothing to re-arm. A grid of one block (small n)
// needs no second kernel.
#pragma once

#include "problem.cuh"

namespace gpureduce::detail {

template <class P>
__device__ __forceinline__ void two_kernel_epilogue(const KernelArgs<P>& args,
                                                    const typename P::Accum& partial) {
  if (threadIdx.x == 0) args.partials()[blockIdx.x] = partial;
}

}  // namespace gpureduce::detail
