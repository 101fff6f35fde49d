// Segmented reductions: work lists claimed in runs. One counter hands the reduce kernel's warps
// (and, separately, its blocks) consecutive entries of a work list; a claim takes a run whose
// length is a share of what was left at the claimer's previous claim (guided self-scheduling,
// Polychronopoulos and Kuck, 1987): long runs while much is left, single entries at the end.
// Why: claims of one entry each were serialised on the counter, about 1 ns each (2^18 warp-class
// segments took 275 us with offsets against 74 fixed size, H200 2026-11-26), and each entry's
// list slot and offsets were a memory round trip before its first data load; a run reads those for
// all its entries at once. Which worker runs what never changes a result (docs/segmented.md).
#pragma once

#include <cstdint>

#include "../host_device.hpp"

namespace gpureduce::detail::segmented {

// A claim takes 1 / (kClaimShare x workers) of what was left: 2 keeps the runs that are still held
// when the list runs out to about half a worker's fair share of the work left then (reasoned).
inline constexpr unsigned long long kClaimShare = 2;
// At most 32 entries a run: a warp loads a run's list slots and offsets a lane an entry, and a
// block its first 32 threads, in one round trip.
inline constexpr unsigned long long kMaxRun = 32;

// The length of the run a worker asks for, having seen `seen` of `total` entries handed out
// (its last claim's first entry plus that claim's length: a lower bound of the counter now).
GPUREDUCE_HD constexpr unsigned long long guided_run(unsigned long long total,
                                                     unsigned long long seen,
                                                     unsigned long long workers) {
  const unsigned long long left = seen < total ? total - seen : 0;
  const unsigned long long run = left / (kClaimShare * (workers > 0 ? workers : 1));
  return run < 1 ? 1 : (run > kMaxRun ? kMaxRun : run);
}

#if defined(__CUDACC__)
// The counter as it stands, to size a later claim: a relaxed read (a size, not a synchronisation).
__device__ __forceinline__ unsigned peek_counter(const unsigned long long* counter) {
  return unsigned(*reinterpret_cast<const volatile unsigned long long*>(counter));
}
#endif

}  // namespace gpureduce::detail::segmented
