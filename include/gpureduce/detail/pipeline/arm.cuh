// Arming storage the caller did not zero inside a stream capture: last_block and atomic need their
// counter (and the flagged slots their region) zero when the reduction kernel starts. Without
// Options::temp_storage_zeroed, dispatch zeroes those bytes before every call: per call with
// cudaMemsetAsync, and while the stream is being captured with this one-block kernel, which zeroes
// them once the previous kernel in the stream is done with them; the reduction kernel, a PDL
// launch that waits for it, then finds them zero.
//
// Why a kernel inside graphs: a memset node cannot start early the way a PDL kernel does. On an
// H100 (graph probe run 2, benchmark/results/h100-2026-11-22-graph-probe.txt), last_block after a
// memset took 4.63 us per reduction at 2^16 floats against 2.33 us on zeroed storage; on an H200
// (probe run 18, benchmark/results/h200-2026-11-22i-probe.txt) a kernel like this one added
// 0.48-0.53 us to the counted-sum kernel (2^16 and 2^20 ints).
// Why not per call: there the kernel cost more than the memset. With it for every call (benchmark
// run h200-2026-11-22i against -22h, the same machine type, median over the strategies), explicit
// last_block on unzeroed storage took 1.14x as long at 1K floats, 1.31x at 64K and 1.10x at 1M,
// and atomic 1.19-1.42x, while two_kernel, which zeroes nothing, stayed at 0.96-1.00x.
#pragma once

#include <cstdint>

#include "../launch.cuh"

namespace gpureduce::detail {

inline constexpr int kArmThreads = 256;

// Zeroes `words` 8-byte words from `temp` (every region it arms is a multiple of 8 bytes).
//
// Unlike every other kernel here it lets the reduction kernel launch before it waits (launch.cuh
// says why the others wait first). That is as correct: the reduction's griddepcontrol.wait blocks
// until this grid has completed and its zeros are visible, whenever the trigger came, and this grid
// completes only after its own wait on the previous kernel. It lets the reduction's launch overlap
// this kernel's wait. Inside graphs on an H200 (probe run 29, benchmark/results/
// h200-2026-11-22l-probe.txt; three allocations, alternated), this kernel plus the counted-sum
// kernel took 1.79-1.80 us against 1.85-1.86 at 2^16 ints, and 2.41-2.43 against 2.44-2.46 at
// 2^20. The same early trigger in the reduction kernel itself lost 0.8 us at 2^20 ints and floats:
// its dependents' blocks then launched while it still had its data to read.
template <int kThreads>
__global__ void __launch_bounds__(kThreads) arm_temp_storage_kernel(std::uint64_t* temp,
                                                                    unsigned words) {
  release_next_then_wait_for_previous_kernel();  // the previous call may still own these bytes
  for (unsigned i = threadIdx.x; i < words; i += kThreads) temp[i] = 0;
}

}  // namespace gpureduce::detail
