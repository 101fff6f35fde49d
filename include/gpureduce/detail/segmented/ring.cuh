// Segmented reductions: the ring's slots and the split segments' tickets (split.cuh). Unit u uses
// slot u mod R in generation u / R.
//
// Where the accumulator is whole 32-bit words (up to 32 bytes: every shipped type), a slot holds
// each word in a 64-bit word with the unit's generation + 1 above it, the layout of last_block's
// flagged slots (pipeline/flagged_slots.cuh): a block publishes a chunk's partial with plain
// stores and takes its segment's tickets with a relaxed atomic, and the block that draws the last
// ticket waits on each word until its generation shows. A block stores its slots before it takes
// its tickets, so every word the fold waits for is already on its way, and one 64-bit store is
// single-copy atomic, so a word with its generation carries its payload. Why: the acquire-release
// ticket put a fence (MEMBAR.ALL.GPU) on the critical path of every run, the block waiting at a
// barrier behind thread 0 (ncu: 9% of the stall samples on 2^15-float segments; a relaxed ticket
// took 4 x 16M floats from 104.0 to 100.3 us on an H100, docs/tuning.md 'Chunk size').
// classify_kernel zeroes the words before every call (temp storage holds anything); other
// accumulators keep plain slots and the acquire-release ticket.
#pragma once

#include <cstdint>
#include <cstring>

#include <cuda/atomic>

#include "../device_memory.cuh"
#include "../pipeline/flagged_slots.cuh"
#include "../pipeline/ticket.cuh"
#include "state.cuh"

namespace gpureduce::detail::segmented {

template <class Accum>
inline constexpr bool kFlaggedRing = kFlaggable<Accum>;
template <class Accum>
inline constexpr int kRingWords = kFlaggedRing<Accum> ? kWordsPerSlot<Accum> : 0;
// Bytes of one ring slot (state.cuh's general_layout).
template <class Accum>
inline constexpr std::size_t kRingSlotBytes =
    kFlaggedRing<Accum> ? std::size_t(kWordsPerSlot<Accum>) * sizeof(std::uint64_t) : sizeof(Accum);

template <class Accum>
struct Ring {
  unsigned char* slots;
  unsigned log2;

  __device__ __forceinline__ unsigned slot(unsigned u) const { return u & ((1u << log2) - 1u); }
  __device__ __forceinline__ std::uint64_t flag(unsigned u) const {
    return std::uint64_t((u >> log2) + 1u) << 32;
  }
  __device__ __forceinline__ std::uint64_t* words(unsigned u) const {
    return reinterpret_cast<std::uint64_t*>(slots) + std::size_t(slot(u)) * kRingWords<Accum>;
  }
  __device__ __forceinline__ Accum* plain(unsigned u) const {
    return reinterpret_cast<Accum*>(slots) + slot(u);
  }

  // Unit u's partial (one thread), once its slot is free.
  __device__ __forceinline__ void put(unsigned u, const Accum& partial) const {
    if constexpr (kFlaggedRing<Accum>) {
      std::uint32_t halves[kRingWords<Accum>];
      memcpy(halves, &partial, sizeof(Accum));
#pragma unroll
      for (int j = 0; j < kRingWords<Accum>; ++j) store_word_relaxed(words(u) + j, flag(u) | halves[j]);
    } else {
      *plain(u) = partial;
    }
  }

  // Unit u's partial, by a block that drew its segment's last ticket (or holds every chunk):
  // every missing word re-loaded together, one round trip a poll.
  __device__ __forceinline__ Accum take(unsigned u) const {
    if constexpr (kFlaggedRing<Accum>) {
      constexpr int kWords = kRingWords<Accum>;
      std::uint64_t* w = words(u);
      const std::uint64_t want = flag(u);
      std::uint64_t got[kWords];
#pragma unroll
      for (int j = 0; j < kWords; ++j) got[j] = load_word_relaxed(w + j);
      for (;;) {
        bool missing = false;
#pragma unroll
        for (int j = 0; j < kWords; ++j) missing |= (got[j] & ~0xffffffffull) != want;
        if (!missing) break;
#pragma unroll
        for (int j = 0; j < kWords; ++j)
          if ((got[j] & ~0xffffffffull) != want) got[j] = load_word_relaxed(w + j);
      }
      std::uint32_t halves[kWords];
#pragma unroll
      for (int j = 0; j < kWords; ++j) halves[j] = std::uint32_t(got[j]);
      Accum value;
      memcpy(&value, halves, sizeof(Accum));
      return value;
    } else {
      return load_cg(plain(u));
    }
  }

  // Options::temp_storage_zeroed: the slot zero again (by the thread that took it).
  __device__ __forceinline__ void clear(unsigned u) const {
    if constexpr (kFlaggedRing<Accum>) {
#pragma unroll
      for (int j = 0; j < kRingWords<Accum>; ++j) words(u)[j] = 0;
    } else {
      store_zero(plain(u));
    }
  }

  // `count` of a segment's tickets; the last drawn is the returned value + count - 1.
  __device__ __forceinline__ unsigned take_tickets(unsigned* counter, unsigned count) const {
    if constexpr (kFlaggedRing<Accum>) {
      ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> ticket(*counter);
      return ticket.fetch_add(count, ::cuda::memory_order_relaxed);
    } else {
      return detail::take_tickets(counter, count);
    }
  }
};

}  // namespace gpureduce::detail::segmented
