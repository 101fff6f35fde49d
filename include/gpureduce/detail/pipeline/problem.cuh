// What every kernel of every pipeline is given: the problem's types, its input (a reader:
// readers.cuh), its output and its temp storage (whose layout is temp_layout.cuh).
#pragma once

#include <cstdint>

#include "../../gpureduce.hpp"
#include "temp_layout.cuh"

namespace gpureduce::detail {

// The types of one reduction. Reader turns element i into an Accum (readers.cuh); In is what one
// element of its memory holds; Accum is what blocks combine; Out is what d_out holds.
template <class Reader_, class Out_, class Accum_, class Op_, class Init_>
struct Problem {
  using Reader = Reader_;
  using In = typename Reader_::value_type;
  using Out = Out_;
  using Accum = Accum_;
  using Op = Op_;
  using Init = Init_;
};

// The kernels' one parameter, kept small: the pieces of temp storage are found from its base
// (temp_layout.cuh) rather than passed as four pointers, and the flags take a byte each, so it is
// 40 bytes for 4-byte inits and 48 for 8-byte ones (it was 72 and 80). Small calls got about 1%
// faster with it, for reasons not known (docs/tuning.md, 'Kernel arguments').
template <class P>
struct KernelArgs {
  using Accum = typename P::Accum;
  typename P::Reader input;
  typename P::Out* d_out;
  std::int64_t num_items;
  unsigned char* temp;  // temp storage: control block, flagged slots, partials, scratch
  typename P::Init init;
  typename P::Op op;
  bool fold_init;  // d_out = op(init, total) (Sum, Reduce) or total (Min, Max: init only if empty)
  std::uint8_t pipeline;  // a Pipeline (reduce_input_kernel's epilogue)
  bool flagged;           // last_block publishes through the flagged slots (flagged_slots.cuh)

  __host__ __device__ Pipeline pipeline_kind() const { return static_cast<Pipeline>(pipeline); }
  __host__ __device__ ControlBlock* control() const {
    return reinterpret_cast<ControlBlock*>(temp);
  }
  __host__ __device__ Accum* partials() const {  // one per block of the first pass
    return reinterpret_cast<Accum*>(temp + kPartialsOffset);
  }
  __host__ __device__ std::uint64_t* flagged_slots() const {  // null unless flagged
    return flagged ? reinterpret_cast<std::uint64_t*>(temp + kFlaggedSlotsOffset) : nullptr;
  }
  // The global_memory rung's blockDim.x slots per block, for a grid of `grid` blocks.
  __host__ __device__ Accum* scratch(std::int64_t grid) const {
    return reinterpret_cast<Accum*>(temp + scratch_offset(grid, sizeof(Accum)));
  }
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
