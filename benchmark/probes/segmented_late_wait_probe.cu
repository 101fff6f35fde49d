// Can the offsets path stream as one kernel does while a check of the offsets runs beside it?
// (2026-11-29, issue 24.) The offsets path's contract writes nothing when some end is below its
// begin, so today a first kernel reads every offset (and files the work) before the reducing
// kernel starts: 2^26 floats in segments of 2^12-2^15 items run 1.10-1.16x CUB where the fixed-size
// path runs 0.96-1.01x. Here the reducing kernel reads the offsets itself and streams from its
// first instruction; it waits for the checking kernel (griddepcontrol.wait, programmatic dependent
// launch) only before its first output, so that the check might hide behind the loads. It did
// not: V+S late ran no faster than V+S early, both 2-4 us over S alone (docs/tuning.md, 'Offsets
// floor'). Contenders:
//   S            the streaming kernel alone (a block a segment, static, next offsets prefetched)
//   V+S early    a check kernel, then S waiting first thing (today's order)
//   V+S late     S waiting just before its first write
//   V+S late+T   plus a one-block tail kernel (what would zero the call's state)
//   C            one cooperative launch: each block checks a slice of the offsets and counts
//                itself, streams, and waits for every block's count before its first write
//                (added after the first runs; with S on a cooperative launch as its control)
// each at every resident block (persistent) and at a block a segment, beside CUB's segmented Sum
// and the library's offsets and fixed-size calls. Contenders alternate; median of ROUNDS. The
// harness moved to segmented_sweep_harness.cuh after the runs (the same calls and timing; the
// library's fixed-size call now before its offsets call).
//   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -Ibenchmark/probes \
//     benchmark/probes/segmented_late_wait_probe.cu build/libgpureduce.a \
//     -o segmented_late_wait_probe
#include <memory>

#include "gpureduce/detail/block/vectorized.cuh"
#include "gpureduce/detail/ops.cuh"
#include "gpureduce/detail/readers.cuh"
#include "segmented_sweep_harness.cuh"

namespace gd = gpureduce::detail;

__device__ __forceinline__ void grid_wait() { asm volatile("griddepcontrol.wait;" ::: "memory"); }
__device__ __forceinline__ void grid_release() {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

__global__ void validate_kernel(const std::int64_t* begin, const std::int64_t* end, std::int64_t n,
                                unsigned* bad) {
  grid_wait();  // the input's producer has finished before anything after us may read it
  grid_release();
  const std::int64_t s = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (__any_sync(~0u, s < n && end[s] < begin[s]) && threadIdx.x % 32 == 0) atomicOr(bad, 1u);
}

// Block b's segments b, b + G, ..., each reduced by the whole block, the next one's offsets loaded
// while this one is reduced. `may_write()` (every thread calls it) is asked once, before the first
// output: false writes nothing.
template <class MayWrite>
__device__ void stream_segments(const float* in, const std::int64_t* begin,
                                const std::int64_t* end, std::int64_t n, float* out,
                                MayWrite may_write) {
  __shared__ float warp_totals[8];
  std::int64_t s = blockIdx.x;
  std::int64_t next_begin = s < n ? begin[s] : 0, next_end = s < n ? end[s] : 0;
  bool asked = false, ok = true;
  for (; s < n; s += gridDim.x) {
    const std::int64_t b = next_begin, e = next_end, t = s + gridDim.x;
    if (t < n) next_begin = begin[t], next_end = end[t];
    const float total = gd::VectorizedRung::reduce<256, float>(
        gd::InputReader<float, float>(in + b), e - b, 0, 1, gd::SumOp{}, warp_totals,
        static_cast<float*>(nullptr));
    if (!asked) ok = may_write(), asked = true;
    if (threadIdx.x == 0 && ok) out[s] = total;
    __syncthreads();
  }
}

// S: waits for V (if `bad`) first thing, or (kLate) just before its first write.
template <bool kLate>
__global__ void __launch_bounds__(256) stream_kernel(const float* in, const std::int64_t* begin,
                                                     const std::int64_t* end, std::int64_t n,
                                                     float* out, const unsigned* bad) {
  bool early_ok = true;
  if (!kLate && bad != nullptr) {
    grid_wait();
    early_ok = *bad == 0;
  }
  grid_release();
  stream_segments(in, begin, end, n, out, [&] {
    if (kLate && bad != nullptr) {
      grid_wait();
      return *reinterpret_cast<const volatile unsigned*>(bad) == 0;
    }
    return early_ok;
  });
}

// One launch (C): every block checks a slice of the offsets and counts itself in words[1], streams
// its segments, and before its first write waits (thread 0 spinning) until every block of the call
// has counted: target = the call's number x gridDim.x (the count only grows, so nothing is reset).
// The spin needs every block resident: a cooperative launch. (Since the runs its first offsets
// load after the check, not before: the loop is stream_kernel's.)
__global__ void __launch_bounds__(256) checked_stream_kernel(const float* in,
                                                             const std::int64_t* begin,
                                                             const std::int64_t* end,
                                                             std::int64_t n, float* out,
                                                             unsigned* words, unsigned target) {
  __shared__ bool ok;
  grid_wait();
  grid_release();
  bool bad = false;
  for (std::int64_t c = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; c < n;
       c += std::int64_t(gridDim.x) * blockDim.x)
    bad = bad || end[c] < begin[c];
  if (__syncthreads_or(bad) && threadIdx.x == 0) atomicOr(&words[0], 1u);
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(&words[1], 1u);
  }
  stream_segments(in, begin, end, n, out, [&] {
    if (threadIdx.x == 0) {
      while (*reinterpret_cast<volatile unsigned*>(&words[1]) < target) __nanosleep(64);
      __threadfence();
      ok = *reinterpret_cast<volatile unsigned*>(&words[0]) == 0;
    }
    __syncthreads();
    return ok;
  });
}

__global__ void tail_kernel(unsigned* bad) {
  grid_wait();
  if (threadIdx.x == 0) *bad = 0;
}

template <bool kCooperative = false, class... P, class... A>
void launch(cudaStream_t stream, void (*k)(P...), unsigned grid, unsigned threads,
            A... args) {
  cudaLaunchAttribute attr[2];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  attr[1].id = cudaLaunchAttributeCooperative;
  attr[1].val.cooperative = 1;
  cudaLaunchConfig_t c{};
  c.gridDim = dim3(grid);
  c.blockDim = dim3(threads);
  c.attrs = attr;
  c.numAttrs = kCooperative ? 2 : 1;
  c.stream = stream;
  CHECK(cudaLaunchKernelEx(&c, k, args...));
  CHECK(cudaGetLastError());
}

// S alone, then V and S (S waiting early or late), then with T: at grid g.
void add_probe_calls(std::vector<TimedCall>& cs, const SweepBuffers& b, std::int64_t n,
                     unsigned g, const std::string& at, unsigned* bad) {
  const unsigned vgrid = unsigned((n + 255) / 256);
  const auto* none = static_cast<const unsigned*>(nullptr);
  const auto* flag = static_cast<const unsigned*>(bad);
  const auto check = [=] { launch(b.stream, validate_kernel, vgrid, 256, b.begin, b.end, n, bad); };
  const auto stream = [=](bool late, const unsigned* f) {
    if (late) launch(b.stream, stream_kernel<true>, g, 256, b.in, b.begin, b.end, n, b.out, f);
    else launch(b.stream, stream_kernel<false>, g, 256, b.in, b.begin, b.end, n, b.out, f);
  };
  cs.push_back({"S" + at, [=] { stream(true, none); }});
  cs.push_back({"V+S early" + at, [=] { check(), stream(false, flag); }});
  cs.push_back({"V+S late" + at, [=] { check(), stream(true, flag); }});
  cs.push_back({"V+S late+T" + at, [=] {
                  check(), stream(true, flag);
                  launch(b.stream, tail_kernel, 1, 32, bad);
                }});
}

// S on a cooperative launch, and C (one cooperative launch with the check), at every resident
// block. `words`: C's bad flag and count, zero before the first call of this size.
void add_one_launch_calls(std::vector<TimedCall>& cs, const SweepBuffers& b, std::int64_t n,
                          unsigned g, unsigned* words) {
  const auto* none = static_cast<const unsigned*>(nullptr);
  auto calls = std::make_shared<unsigned>(0u);
  cs.push_back({"S cooperative, resident grid", [=] {
                  launch<true>(b.stream, stream_kernel<true>, g, 256, b.in, b.begin, b.end, n,
                               b.out, none);
                }});
  cs.push_back({"C: one launch, checked, resident", [=] {
                  const unsigned target = ++*calls * g;
                  launch<true>(b.stream, checked_stream_kernel, g, 256, b.in, b.begin, b.end, n,
                               b.out, words, target);
                }});
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 21;
  int sms = 0, resident = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, stream_kernel<true>, 256, 0));
  const SweepBuffers b = sweep_buffers();
  unsigned* bad = nullptr;
  CHECK(cudaMalloc(&bad, sizeof(unsigned)));
  CHECK(cudaMemset(bad, 0, sizeof(unsigned)));
  unsigned* words = nullptr;
  CHECK(cudaMalloc(&words, 2 * sizeof(unsigned)));
  std::printf("SMs %d, stream_kernel resident %d an SM; 2^26 floats; median us of %d rounds\n",
              sms, resident, rounds);
  for (int k = 12; k <= 15; ++k) {
    const std::int64_t n = upload_uniform_offsets(b, k), size = std::int64_t(1) << k;
    std::vector<TimedCall> cs = library_calls(b, n, size);
    const unsigned wave = unsigned(std::min<std::int64_t>(std::int64_t(resident) * sms, n));
    add_probe_calls(cs, b, n, wave, ", resident grid", bad);
    add_probe_calls(cs, b, n, unsigned(n), ", a block a segment", bad);
    CHECK(cudaMemset(words, 0, 2 * sizeof(unsigned)));
    add_one_launch_calls(cs, b, n, wave, words);
    // The probe's own kernels agree bitwise (CUB's order aside).
    if (!same_bits_from(cs, 3, b.out, static_cast<std::size_t>(n))) return 1;
    time_alternating(cs, rounds, b.stream);
    print_rows(cs, k);
  }
  return 0;
}
