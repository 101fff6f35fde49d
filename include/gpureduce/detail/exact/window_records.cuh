// The grid window's records (grid_window.cuh): what each block tells the last block, passed the
// way last_block's flagged slots pass partials (pipeline/flagged_slots.cuh). Each 32-bit word of
// a record travels in a 64-bit word of its own with a "written" flag, so a block publishes it with
// plain stores and takes its ticket with a relaxed atomic, and the last block waits on each flag
// as it reads. The classic way (the record stored, then an acquire-release ticket) put three L2
// round trips in a row after the data: the store's acknowledgement, the ticket, the records'
// loads (docs/tuning.md, 'Grid window').
//
// The records live in the zeroed state (exact_args.cuh: kWindowRecordSlots slots at
// kWindowRecordsOffset), and the last block clears every slot it read, so they are zero before
// every call, as the ticket and the grid's state are.
#pragma once

#include <cstdint>

#include "../pipeline/flagged_slots.cuh"
#include "exact_args.cuh"

namespace gpureduce::detail::exact {

// What a block tells the last block.
struct WindowRecord {
  __int128 sum;                // the block's inputs, in units 2^(lowest - 1075)
  unsigned lowest, highest;    // its span (lowest ~0u: nothing nonzero, or not a window block)
  unsigned window;             // 1: `sum` holds the block's inputs; 0: the grid's state does
  unsigned not_negative_zero;  // 1: some input was not -0
};

// A record travels as kWindowRecordWords flagged words: the sum's four 32-bit words, then the
// span and the two flags in one (exponent fields are at most 0x7ff): lowest in bits 0-11 (0xfff:
// none), highest in 12-23, window 24, not_negative_zero 25. The wait is flagged_slots.cuh's
// poll_until_flagged; the stores are publish_flagged's, written out here because calling it
// through a struct changed this kernel's code (its PTX), which was measured as it is.
inline constexpr unsigned kNoField = 0xfffu;

__device__ __forceinline__ void publish_record(std::uint64_t* slots, unsigned index,
                                               const WindowRecord& record) {
  std::uint32_t words[kWindowRecordWords];
  memcpy(words, &record.sum, sizeof record.sum);
  words[4] = (record.lowest == ~0u ? kNoField : record.lowest) | (record.highest << 12) |
             (record.window << 24) | (record.not_negative_zero << 25);
  std::uint64_t* slot = slots + std::size_t(index) * kWindowRecordWords;
#pragma unroll
  for (int j = 0; j < kWindowRecordWords; ++j) store_word_relaxed(slot + j, kSlotWritten | words[j]);
}

// Record r, once its flags show (every word's load in flight before any is checked); the slot is
// left for clear_record.
__device__ __forceinline__ WindowRecord load_record(const std::uint64_t* slots, int r) {
  const std::uint64_t* slot = slots + std::size_t(r) * kWindowRecordWords;
  std::uint64_t words[kWindowRecordWords];
#pragma unroll
  for (int j = 0; j < kWindowRecordWords; ++j) words[j] = load_word_relaxed(slot + j);
  poll_until_flagged(slot, words);
  std::uint32_t low[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) low[j] = std::uint32_t(words[j]);
  WindowRecord record;
  memcpy(&record.sum, low, sizeof record.sum);
  const auto meta = std::uint32_t(words[4]);
  record.lowest = (meta & kNoField) == kNoField ? ~0u : meta & kNoField;
  record.highest = (meta >> 12) & kNoField;
  record.window = (meta >> 24) & 1u;
  record.not_negative_zero = (meta >> 25) & 1u;
  return record;
}

// Slot r zero again, by the thread that read it (the kernel boundary orders this before the next
// call's stores).
__device__ __forceinline__ void clear_record(std::uint64_t* slots, int r) {
  std::uint64_t* slot = slots + std::size_t(r) * kWindowRecordWords;
#pragma unroll
  for (int j = 0; j < kWindowRecordWords; ++j) slot[j] = 0;
}

}  // namespace gpureduce::detail::exact
