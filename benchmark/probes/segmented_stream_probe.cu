// Do many short blocks stream DRAM better than a persistent grid? (2026-11-29, issue 24.)
// cub::DeviceSegmentedReduce::Sum runs 2^26 floats in segments of 2^12-2^17 items at 63-67 µs on
// an H200 (88% of 4814 GB/s), a block a segment; our fixed-size path, a persistent grid of 4
// blocks an SM looping over units, 65-68 µs; CUB's own device-wide Sum of the same items 67 µs.
// Here one kernel (the fixed-size chunk kernel's loop: VectorizedRung::reduce of a unit by a block
// of 256, then the next unit u + gridDim.x) at grids of 4, 6 and 8 blocks an SM and of one block
// a unit (the hardware's block scheduler then balances), beside CUB's segmented Sum and the
// library's fixed-size and offsets calls on the same segments. Same bits in every grid (checked).
// Answer (two runs): a block a unit 0.96-0.98x CUB at 2^12-2^14, 4 an SM 1.01-1.08x; the library's
// kernels on a block a unit did not gain it (docs/tuning.md, 'Fixed-size whole segments').
// Contenders alternate call by call, each on an idle GPU; median of ROUNDS (default 21). The
// harness moved to segmented_sweep_harness.cuh after the runs (the same calls, order and timing).
//   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -Ibenchmark/probes \
//     benchmark/probes/segmented_stream_probe.cu build/libgpureduce.a -o segmented_stream_probe
#include "gpureduce/detail/block/vectorized.cuh"
#include "gpureduce/detail/ops.cuh"
#include "gpureduce/detail/readers.cuh"
#include "segmented_sweep_harness.cuh"

namespace gd = gpureduce::detail;

__global__ void __launch_bounds__(256) unit_kernel(const float* in, float* out,
                                                   std::int64_t unit_items, std::int64_t units) {
  __shared__ float warp_totals[8];
  for (std::int64_t u = blockIdx.x; u < units; u += gridDim.x) {
    const float total = gd::VectorizedRung::reduce<256, float>(
        gd::InputReader<float, float>(in + u * unit_items), unit_items, 0, 1, gd::SumOp{},
        warp_totals, static_cast<float*>(nullptr));
    if (threadIdx.x == 0) out[u] = total;
    __syncthreads();
  }
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 21;
  int sms = 0, resident = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, unit_kernel, 256, 0));
  const SweepBuffers b = sweep_buffers();
  std::printf("SMs %d, unit_kernel resident %d an SM; 2^26 floats; median us of %d rounds\n", sms,
              resident, rounds);
  for (int k = 12; k <= 17; ++k) {
    const std::int64_t n = upload_uniform_offsets(b, k);
    std::vector<TimedCall> cs = library_calls(b, n, std::int64_t(1) << k);
    // Units of at most 2^15 items (the block class's largest, the chunk size): larger segments
    // are several units here, as the chunk kernel cuts them.
    const int unit_log2 = k < 15 ? k : 15;
    const std::int64_t unit = std::int64_t(1) << unit_log2;
    const std::int64_t units = SweepBuffers::kTotal >> unit_log2;
    for (std::int64_t grid : {std::int64_t(4) * sms, std::int64_t(6) * sms,
                              std::int64_t(8) * sms, units / 2, units}) {
      if (grid > units || (grid <= 8 * sms && grid > std::int64_t(resident) * sms)) continue;
      const std::string name = grid == units       ? "block a unit"
                               : grid == units / 2 ? "block two units"
                                                   : std::to_string(grid / sms) + " an SM";
      cs.push_back({"unit_kernel " + name, [=] {
                      unit_kernel<<<unsigned(grid), 256, 0, b.stream>>>(b.in, b.out, unit, units);
                      CHECK(cudaGetLastError());
                    }});
    }
    // Every unit_kernel grid gives the same bits (the order is the unit's alone).
    if (!same_bits_from(cs, 3, b.out, static_cast<std::size_t>(units))) return 1;
    time_alternating(cs, rounds, b.stream);
    print_rows(cs, k);
  }
  return 0;
}
