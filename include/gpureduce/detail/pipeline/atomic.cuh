// The atomic pipeline (seed 002, its "block-level partial + atomic" step): each block combines its
// partial into one accumulator in temp storage with a global atomic. Float sums therefore depend
// on the order the blocks finish in (documented); integers and Min/Max do not. A ticket, as in
// last_block, lets the final block publish the result to d_out and re-arm the accumulator.
#pragma once

#include "../device_memory.cuh"
#include "atomic_combine.cuh"
#include "problem.cuh"
#include "ticket.cuh"

namespace gpureduce::detail {

template <class P>
__device__ __forceinline__ void atomic_epilogue(const KernelArgs<P>& args,
                                                const typename P::Accum& partial) {
  using Combiner = AtomicCombiner<typename P::Op, typename P::Accum>;
  if constexpr (Combiner::supported) {
    __shared__ bool is_last_block;
    if (threadIdx.x == 0) {
      Combiner::combine(&args.control()->atomic_accumulator, partial);
      // The release orders the combine before the ticket; the last holder's acquire sees them all.
      is_last_block = take_ticket(&args.control()->ticket) == gridDim.x - 1;
    }
    __syncthreads();
    if (is_last_block && threadIdx.x == 0) {
      write_result(args, Combiner::read(&args.control()->atomic_accumulator));
      args.control()->atomic_accumulator = 0;  // re-armed
      args.control()->ticket = 0;
    }
  }
}

}  // namespace gpureduce::detail
