// How a thread's inputs reach its exact sum (thread_sum.cuh, grid_window_thread.cuh): batches of
// the vectorized rung's 16-byte loads, or one element a step for the seed rungs; and, for the deep
// grid window (grid_window.cuh), larger batches whose next loads are in flight while the current
// batch is added.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../block/vectorized.cuh"

namespace gpureduce::detail::exact {

// Whether a rung's threads read with the vectorized rung's 16-byte loads (it and `automatic`);
// the others read one element per thread per step, grid-strided, as the seed rungs do.
template <class Rung>
inline constexpr bool kVectorLoads = std::is_same_v<Rung, VectorizedRung>;

// The scalar head and tail of a vectorized input (each shorter than a vector) into block 0's
// threads, an element each.
template <class In, class Thread>
__device__ __forceinline__ void add_scalar_ends(const In* in, std::int64_t n,
                                                const VectorizedRung::Layout& l, std::int64_t rank,
                                                Thread& thread) {
  if (rank != 0) return;
  const std::int64_t tid = threadIdx.x;
  if (tid < l.head) thread.add(in[tid]);
  if (tid < n - l.tail_begin) thread.add(in[l.tail_begin + tid]);
}

// A vector of In's -0: what pads a thread's last batch. -0 is IEEE addition's identity and
// leaves a window's verdicts alone (its magnitude is no input's, and a sum of -0s alone stays -0).
template <class In>
__device__ __forceinline__ uint4 negative_zero_vector() {
  constexpr unsigned kWord = sizeof(In) == 2 ? 0x80008000u : 0x80000000u;
  if constexpr (sizeof(In) == 8) return make_uint4(0u, kWord, 0u, kWord);
  else return make_uint4(kWord, kWord, kWord, kWord);
}

// kInFlight vectors from `first`, `stride` apart; those at or past `count` are `pad` (no memory
// touched for them).
template <int kInFlight>
__device__ __forceinline__ void load_padded(const uint4* vectors, std::int64_t count,
                                            std::int64_t first, std::int64_t stride, uint4 pad,
                                            uint4 (&raw)[kInFlight]) {
#pragma unroll
  for (int k = 0; k < kInFlight; ++k) {
    const std::int64_t v = first + k * stride;
    raw[k] = v < count ? __ldg(vectors + v) : pad;
  }
}

// Every input of this thread into `thread`, in batches: the vectorized rung's 16-byte loads,
// kVectorsInFlight vectors issued before the first is used (as VectorizedRung::
// fold_strided_vectors), handed over as one batch, so that a double expansion tests its remainders
// once a batch rather than once an input (a test on each put every add's full dependency chain,
// about ten double adds, on the thread's critical path); else one element per thread per step.
// After each step the thread counts what it added, told the most the next step can add.
// kPadRagged: the ragged last batch as one batch padded with -0, its loads in flight together,
// rather than a vector at a time, a memory round trip each (a thread whose windows take -0 as
// nothing: kernels.cuh, exact_automatic_kernel).
template <bool kVector, bool kPadRagged = false, class In, class Thread>
__device__ __forceinline__ void sum_inputs(const In* in, std::int64_t n, std::int64_t rank,
                                           std::int64_t blocks, Thread& thread) {
  const std::int64_t threads = blockDim.x;
  const std::int64_t tid = threadIdx.x;
  if constexpr (kVector && 16 % sizeof(In) == 0) {
    constexpr int kPerVector = int(16 / sizeof(In));
    constexpr int kInFlight = VectorizedRung::kVectorsInFlight;
    constexpr int kBatch = kInFlight * kPerVector;
    const VectorizedRung::Layout l =
        VectorizedRung::layout(reinterpret_cast<std::uintptr_t>(in), sizeof(In), n);
    const uint4* vectors = reinterpret_cast<const uint4*>(in + l.head);
    const std::int64_t stride = threads * blocks;
    std::int64_t v = rank * threads + tid;
    for (; v + (kInFlight - 1) * stride < l.vectors; v += kInFlight * stride) {
      uint4 raw[kInFlight];
#pragma unroll
      for (int k = 0; k < kInFlight; ++k) raw[k] = __ldg(vectors + v + k * stride);
      In items[kBatch];
      memcpy(items, raw, sizeof(raw));
      thread.add_batch(items);
      thread.template counted<kBatch>(kBatch);
    }
    if constexpr (kPadRagged) {
      if (v < l.vectors) {  // the ragged last batch as one, padded with -0
        uint4 raw[kInFlight];
        load_padded(vectors, l.vectors, v, stride, negative_zero_vector<In>(), raw);
        In items[kBatch];
        memcpy(items, raw, sizeof(raw));
        thread.add_batch(items);
        thread.template counted<kBatch>(kBatch);
      }
    } else {
      for (; v < l.vectors; v += stride) {  // the ragged last batch, a vector at a time
        const uint4 raw = __ldg(vectors + v);
        In items[kPerVector];
        memcpy(items, &raw, sizeof(raw));
        thread.add_batch(items);
        thread.template counted<kBatch>(kPerVector);
      }
    }
    add_scalar_ends(in, n, l, rank, thread);  // 2 <= kBatch: within what counted allowed
  } else {
    for (std::int64_t i = rank * threads + tid; i < n; i += threads * blocks) {
      thread.add(in[i]);
      thread.template counted<1>(1);
    }
  }
}

// The deep grid window's loads: batches of kInFlight vectors, the next batch's loads issued
// before the current batch is added, so that between kInFlight and 2 kInFlight vectors a thread
// are in flight through its whole share; a thread's last batch padded with -0 rather than read a
// vector at a time (each of those is a memory round trip of its own). For a grid of one block an
// SM, where registers are plenty and warps few (grid_window.cuh, kDeepWindowVectors).
template <int kInFlight, class In, class Thread>
__device__ __forceinline__ void sum_inputs_pipelined(const In* in, std::int64_t n,
                                                     std::int64_t rank, std::int64_t blocks,
                                                     Thread& thread) {
  static_assert(16 % sizeof(In) == 0, "whole items a vector");
  constexpr int kBatch = kInFlight * int(16 / sizeof(In));
  const VectorizedRung::Layout l =
      VectorizedRung::layout(reinterpret_cast<std::uintptr_t>(in), sizeof(In), n);
  const uint4* vectors = reinterpret_cast<const uint4*>(in + l.head);
  const std::int64_t stride = std::int64_t(blockDim.x) * blocks;
  const uint4 pad = negative_zero_vector<In>();
  std::int64_t v = rank * std::int64_t(blockDim.x) + threadIdx.x;
  uint4 raw[kInFlight];
  load_padded(vectors, l.vectors, v, stride, pad, raw);
  for (; v < l.vectors; v += kInFlight * stride) {
    uint4 ahead[kInFlight];
    // past the end: padding only, no memory touched
    load_padded(vectors, l.vectors, v + kInFlight * stride, stride, pad, ahead);
    In items[kBatch];
    memcpy(items, raw, sizeof(raw));
    thread.add_batch(items);
    thread.template counted<kBatch>(kBatch);
#pragma unroll
    for (int k = 0; k < kInFlight; ++k) raw[k] = ahead[k];
  }
  add_scalar_ends(in, n, l, rank, thread);
}

}  // namespace gpureduce::detail::exact
