// Arming storage the caller did not zero inside a stream capture: last_block and atomic need their
// counter (and the flagged slots their region) zero when the reduction kernel starts. Without
// Options::temp_storage_zeroed, dispatch zeroes those bytes before every call: per call with
// cudaMemsetAsync, and while the stream is being captured with this one-block kernel, which zeroes
// them once the previous kernel in the stream is done with them; the reduction kernel, a PDL
// launch that waits for it, then finds them zero.
//
// A kernel inside graphs, because a memset node cannot start early the way a PDL kernel does
// (about 2 us against 0.5 per reduction); a memset per call, because there the kernel cost more
// (docs/tuning.md, 'Per-call zeroing').
#pragma once

#include <cstdint>

#include "../launch.cuh"

namespace gpureduce::detail {

// Not tuned: one block of 256 threads zeroes at most the 32 KiB slot region plus the control block.
inline constexpr int kArmThreads = 256;

// Zeroes `words` 8-byte words from `temp` (every region it arms is a multiple of 8 bytes).
//
// Unlike every other kernel here it lets the reduction kernel launch before it waits (launch.cuh
// says why the others wait first). That is as correct: the reduction's griddepcontrol.wait blocks
// until this grid has completed and its zeros are visible, whenever the trigger came, and this grid
// completes only after its own wait on the previous kernel. It lets the reduction's launch overlap
// this kernel's wait: 0.03-0.06 us per reduction in graphs (docs/tuning.md, 'Programmatic
// dependent launch').
template <int kThreads>
__global__ void __launch_bounds__(kThreads) arm_temp_storage_kernel(std::uint64_t* temp,
                                                                    unsigned words) {
  release_next_then_wait_for_previous_kernel();  // the previous call may still own these bytes
  for (unsigned i = threadIdx.x; i < words; i += kThreads) temp[i] = 0;
}

}  // namespace gpureduce::detail
