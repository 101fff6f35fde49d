// Segmented reductions: work lists claimed in runs. One counter hands the reduce kernel's warps
// (and, separately, its blocks) consecutive entries of a work list; a claim takes a run whose
// length is a share of what is left (guided self-scheduling, Polychronopoulos and Kuck, 1987):
// long runs while much is left, single entries at the end. What is left is read off the counter
// as the worker's run in hand reaches its last piece, just before the next claim is made.
// Why: claims of one entry each were serialised on the counter, about 1 ns each (2^18 warp-class
// segments took 275 us with offsets against 74 fixed size, H200 2026-11-26), and each entry's
// list slot and offsets were a memory round trip before its first data load; a run reads those for
// all its entries at once. Which worker runs what never changes a result (docs/segmented.md).
#pragma once

#include <cstdint>

#include "../host_device.hpp"

namespace gpureduce::detail::segmented {

// A claim takes 1 / (kClaimShare x workers) of what was left. Each worker holds two runs at once
// (the next claim is in flight while it reduces one), so a share of 2 hands out three quarters of
// a list in the first two rounds, before the sizes of what each got have evened out. H100 (quick
// segmented rows, 2026-11-26): 64K segments of 256-4K floats 223.5 us at 2 and 210.5 at 4 (CUB
// 206.8, one claim an entry 209.3); 2^18 segments of 256 floats 131 us at 2, 170 at 4, 293 one
// claim an entry (docs/tuning.md, 'Segmented claims').
inline constexpr unsigned long long kClaimShare = 4;
// At most 32 entries a run: a warp loads a run's list slots and offsets a lane an entry, and a
// block its first 32 threads, in one round trip.
inline constexpr unsigned long long kMaxRun = 32;

// The length of the run a worker asks for, having seen `seen` of `total` entries handed out (a
// lower bound of the counter now).
GPUREDUCE_HD constexpr unsigned long long guided_run(unsigned long long total,
                                                     unsigned long long seen,
                                                     unsigned long long workers) {
  const unsigned long long left = seen < total ? total - seen : 0;
  const unsigned long long run = left / (kClaimShare * (workers > 0 ? workers : 1));
  return run < 1 ? 1 : (run > kMaxRun ? kMaxRun : run);
}

#if defined(__CUDACC__)
// The claiming thread's read of the counter (lane 0 of a warp, thread 0 of a block; the others
// hold no counter), taken as the piece `last` of the run in hand begins: it sizes the claim after
// the one in flight, a run's work fresher than that claim's own result. Relaxed (a size, not a
// synchronisation), and held in a register: stored to shared memory, the load would stall the
// thread until it arrived. No counter once a run of one has been asked for: every later one is
// one too (sizes only shrink as the counter grows), and each read is one more access to the
// counter every worker's atomics already queue on.
// `statics`: the entries handed out before the counter's first (the warps' static first runs).
struct CounterPeek {
  const unsigned long long* counter;
  unsigned last;
  unsigned seen;
  unsigned statics;
  __device__ __forceinline__ void at(unsigned piece) {
    if (counter != nullptr && piece == last)
      seen = statics + unsigned(*reinterpret_cast<const volatile unsigned long long*>(counter));
  }
  // Entries handed out, at least: the counter as read, or the end of the claim in hand.
  __device__ __forceinline__ unsigned handed_out(unsigned first, unsigned held) const {
    return seen > first + held ? seen : first + held;
  }
};
#endif

}  // namespace gpureduce::detail::segmented
