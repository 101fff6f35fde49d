// last_block's fast way to hand partials to the last block: each partial travels with its own
// "written" flag in the same 64-bit word, so a block publishes it with plain stores and takes its
// ticket with a relaxed atomic, and no fence has to wait for the store to reach L2 first.
//
// Why: with the classic publication (store the partial, then a release fetch-add) every block
// waits for its store to be acknowledged before its ticket is even sent, and the last block then
// loads the partials: three L2 round trips in a row after the data is read. The slots took
// 0.13-0.24 us off a reduction in graphs (docs/tuning.md, 'Flagged slots').
//
// Why it is correct: a block stores its slot before it takes its ticket, so when the last ticket
// is drawn every slot store has been issued and will land; the last block spins on each slot
// until its flag shows, which waits at most for a store already in flight (no block it waits for
// has work left to do, so the spin cannot deadlock, co-resident or not). Each 64-bit word is one
// single-copy-atomic store, so a set flag means that word's payload is there too.
//
// The slots live in a region of temp storage of their own (temp_layout.cuh: kFlaggedSlotCapacity
// slots at a fixed offset, in every layout), which only this path writes, and the last block
// leaves it all zero again, as it does the ticket: so it is zero before every call, after the
// caller zeroed the storage once (Options::temp_storage_zeroed) or the per-call zeroing did (a
// memset, or arm.cuh's kernel inside a capture).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "problem.cuh"
#include "temp_layout.cuh"

namespace gpureduce::detail {

// Accumulators of whole 32-bit words, up to 32 bytes (an IndexedValue of ArgMin/ArgMax is 16, Blue's
// sums of Norm2 24): each word travels in a 64-bit slot word of its own with its flag.
inline constexpr std::size_t kMaxFlaggedBytes = 32;
template <class Accum>
inline constexpr bool kFlaggable = std::is_trivially_copyable_v<Accum> && sizeof(Accum) % 4 == 0 &&
                                   sizeof(Accum) <= kMaxFlaggedBytes && alignof(Accum) >= 4;

// The high half of a word: 1 once the low half holds this call's payload. Zero is "empty".
inline constexpr std::uint64_t kSlotWritten = std::uint64_t(1) << 32;

template <class Accum>
inline constexpr int kWordsPerSlot = int(sizeof(Accum) / 4);

// The most partials of this type the slot region holds (temp_layout.cuh): kFlaggedSlotCapacity up to
// 8-byte partials, fewer for wider ones (1024 of 16 bytes).
template <class Accum>
inline constexpr int kFlaggedCapacity =
    kWordsPerSlot<Accum> <= 2 ? kFlaggedSlotCapacity
                              : int(kFlaggedRegionBytes / (kWordsPerSlot<Accum> * sizeof(std::uint64_t)));

__device__ __forceinline__ void store_word_relaxed(std::uint64_t* word, std::uint64_t value) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(word), "l"(value) : "memory");
}
__device__ __forceinline__ std::uint64_t load_word_relaxed(const std::uint64_t* word) {
  std::uint64_t value;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(value) : "l"(word) : "memory");
  return value;
}

// Thread 0 of each block: its partial into slot `index`, flagged.
template <class Accum>
__device__ __forceinline__ void publish_flagged(std::uint64_t* slots, unsigned index,
                                                const Accum& partial) {
  std::uint32_t halves[kWordsPerSlot<Accum>];
  memcpy(halves, &partial, sizeof(Accum));
  std::uint64_t* slot = slots + std::size_t(index) * kWordsPerSlot<Accum>;
#pragma unroll
  for (int j = 0; j < kWordsPerSlot<Accum>; ++j) store_word_relaxed(slot + j, kSlotWritten | halves[j]);
}

template <int kWords>
__device__ __forceinline__ bool any_word_missing(const std::uint64_t (&words)[kWords]) {
  bool missing = false;
#pragma unroll
  for (int j = 0; j < kWords; ++j) missing |= (words[j] & kSlotWritten) == 0;
  return missing;
}

// A slot of several words, each loaded once already: every missing word re-loaded together until
// every flag shows, one round trip per re-poll (waiting on the first word and only then on the
// second let a stale load of the second cost a round trip of its own). Shared with the exact
// grid window's records (exact/window_records.cuh).
template <int kWords>
__device__ __forceinline__ void poll_until_flagged(const std::uint64_t* slot,
                                                   std::uint64_t (&words)[kWords]) {
  while (any_word_missing(words)) {
#pragma unroll
    for (int j = 0; j < kWords; ++j)
      if ((words[j] & kSlotWritten) == 0) words[j] = load_word_relaxed(slot + j);
  }
}

// Reads partial i for the last block's fold (fold_partials), waiting for its flag: the same
// values in the same order as PartialsReader would give, so the same bits. Then it clears the
// slot, which re-arms it for the next call: a fold reads each partial exactly once (rung_base.cuh,
// kReadsPartialsByIndex), so every slot the grid used ends zero, and the kernel boundary orders
// these stores before the next call's. Clearing here, by the thread that read the slot, needs no
// barrier; the separate pass after the fold that this replaces needed one.
//
// A partial of 8 bytes or more is several words, stored one after the other, so a load can find
// the first word there and a later one not yet: poll_until_flagged. One word keeps the loop it
// had: the 4-byte kernels' code stays what was measured, since the shape of a spin loop alone has
// cost 0.1-0.3 us (docs/tuning.md, 'Flagged slots').
template <class Accum>
struct FlaggedPartialsReader {
  using value_type = Accum;
  static constexpr bool kContiguousInput = false;
  static constexpr int kWords = kWordsPerSlot<Accum>;
  std::uint64_t* slots;

  __device__ __forceinline__ Accum operator()(std::int64_t i) const {
    std::uint64_t* slot = slots + i * kWords;
    // Every word's load in flight before any is checked: one memory round trip per slot, not one
    // per word.
    std::uint64_t words[kWords];
#pragma unroll
    for (int j = 0; j < kWords; ++j) words[j] = load_word_relaxed(slot + j);
    std::uint32_t halves[kWords];
    if constexpr (kWords == 1) {
      while ((words[0] & kSlotWritten) == 0) words[0] = load_word_relaxed(slot);
      halves[0] = std::uint32_t(words[0]);
      slot[0] = 0;
    } else {
      poll_until_flagged(slot, words);
#pragma unroll
      for (int j = 0; j < kWords; ++j) {
        halves[j] = std::uint32_t(words[j]);
        slot[j] = 0;
      }
    }
    Accum value;
    memcpy(&value, halves, sizeof(Accum));
    return value;
  }
};

}  // namespace gpureduce::detail
