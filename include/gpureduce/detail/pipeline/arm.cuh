// Arming storage the caller did not zero: last_block and atomic need their counter (and the
// flagged slots their region) zero when the reduction kernel starts. Without
// Options::temp_storage_zeroed, dispatch launches this one-block kernel first; it zeroes those
// bytes once the previous kernel in the stream is done with them, and the reduction kernel, a PDL
// launch that waits for it, then finds them zero.
//
// Why a kernel and not cudaMemsetAsync (which did this before): inside a CUDA graph a memset node
// cannot start early the way a PDL kernel does. On an H100 (graph probe run 2,
// benchmark/results/h100-2026-11-22-graph-probe.txt), last_block after a memset took 4.63 us per
// reduction at 2^16 floats against 2.33 us on zeroed storage; on an H200 (probe run 18,
// benchmark/results/h200-2026-11-22i-probe.txt) a kernel like this one added 0.48-0.53 us to the
// counted-sum kernel (2^16 and 2^20 ints). Per call, outside graphs, either is one more enqueue.
#pragma once

#include <cstdint>

#include "../launch.cuh"

namespace gpureduce::detail {

inline constexpr int kArmThreads = 256;

// Zeroes `words` 8-byte words from `temp` (every region it arms is a multiple of 8 bytes).
template <int kThreads>
__global__ void __launch_bounds__(kThreads) arm_temp_storage_kernel(std::uint64_t* temp,
                                                                    unsigned words) {
  wait_for_previous_kernel_then_release_next();  // the previous call may still own these bytes
  for (unsigned i = threadIdx.x; i < words; i += kThreads) temp[i] = 0;
}

}  // namespace gpureduce::detail
