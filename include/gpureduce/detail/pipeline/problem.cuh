// What every kernel of every pipeline is given: the problem's types and pointers, and where in
// temp storage the partials, the scratch buffer and the control block live.
#pragma once

#include <cstdint>

#include "../../gpureduce.hpp"

namespace gpureduce::detail {

// The types of one reduction. Accum is what blocks combine; Out is what d_out holds.
template <class In_, class Out_, class Accum_, class Op_, class Init_>
struct Problem {
  using In = In_;
  using Out = Out_;
  using Accum = Accum_;
  using Op = Op_;
  using Init = Init_;
};

// Lives at the start of temp storage. All-zero bytes is the "armed" state: the memset of the
// default path writes it, and every launch that uses it leaves it so.
struct ControlBlock {
  unsigned int ticket;                     // blocks finished so far (last_block, atomic)
  unsigned int padding;
  unsigned long long atomic_accumulator;   // atomic pipeline: encoded running result
};

template <class P>
struct KernelArgs {
  const typename P::In* d_in;
  typename P::Out* d_out;
  std::int64_t num_items;
  typename P::Op op;
  typename P::Init init;
  bool fold_init;  // d_out = op(init, total) (Sum, Reduce) or total (Min, Max: init only if empty)
  Pipeline pipeline;
  typename P::Accum* partials;  // one per block of the first pass
  typename P::Accum* scratch;   // global_memory rung: blockDim.x slots per block
  ControlBlock* control;
  std::uint64_t* flagged_slots;  // last_block: partials with flags (flagged_slots.cuh), or null
};

// Writes the final answer (thread 0 of exactly one block calls it).
template <class P>
__device__ __forceinline__ void write_result(const KernelArgs<P>& args,
                                             const typename P::Accum& total) {
  using Out = typename P::Out;
  *args.d_out = args.fold_init ? static_cast<Out>(args.op(args.init, total)) : static_cast<Out>(total);
}

template <class P>
__device__ __forceinline__ void write_empty_result(const KernelArgs<P>& args) {
  *args.d_out = static_cast<typename P::Out>(args.init);
}

}  // namespace gpureduce::detail
