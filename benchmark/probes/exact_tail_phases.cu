// Probe (2026-11-27): where automatic's correctly rounded kernel spends its time, block by block.
// A copy of exact_automatic_kernel's body (kernels.cuh, epilogues.cuh of this commit) with clock64
// marks by thread 0 after each phase's barrier: clear, loop, combine, the atomic epilogue's seal,
// adds and ticket, and in the last block the gather (atomicExch of every copy) and lane 0's
// rounding. Prints, per type and n, the medians over blocks of each phase (cycles), the last
// block's gather and rounding, the kernel's time (events, median), and the library's correctly
// rounded and default calls for comparison. Updated 2026-11-28 for the double window (the marked
// double kernel takes it at every n; the library's only from 2^20 items): output
// `benchmark/results/h100-2026-11-28-exact-phases.txt`. The same day for the double combine by
// halves, built against the library before and after (their f64 rows in
// `benchmark/results/h200-2026-11-28-double-combine-ab.txt`).
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude PROBE -Lbuild -lgpureduce -o exact_tail_phases
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "gpureduce/detail/exact/kernels.cuh"
#include "gpureduce/gpureduce.hpp"

using namespace gpureduce::detail;
using namespace gpureduce::detail::exact;

#define CK(...)                                                                           \
  do {                                                                                    \
    cudaError_t e_ = (__VA_ARGS__);                                                       \
    if (e_) {                                                                             \
      printf("%s: %s\n", #__VA_ARGS__, cudaGetErrorString(e_));                           \
      exit(1);                                                                            \
    }                                                                                     \
  } while (0)

constexpr int kMarks = 10;
#ifndef PREFETCH
#define PREFETCH 1
#endif
constexpr bool kPrefetch = PREFETCH;
__device__ __forceinline__ void mark(long long* row, int k) {
  __syncthreads();
  if (threadIdx.x == 0) row[k] = clock64();
}

// The thread's first batch of vectors (sum_inputs's first loads), asked into L1 before the block
// clears its state: the clear and its barrier then overlap the loads' latency instead of
// preceding it (measured here; not adopted: docs/tuning.md, 'The first batch before the clear').
template <bool kVector, class In>
__device__ __forceinline__ void prefetch_first_batch(const In* in, std::int64_t n, std::int64_t rank,
                                                     std::int64_t blocks) {
  if constexpr (kVector && 16 % sizeof(In) == 0) {
    const VectorizedRung::Layout l =
        VectorizedRung::layout(reinterpret_cast<std::uintptr_t>(in), sizeof(In), n);
    const uint4* vectors = reinterpret_cast<const uint4*>(in + l.head);
    const std::int64_t stride = std::int64_t(blockDim.x) * blocks;
    const std::int64_t v = rank * blockDim.x + threadIdx.x;
#pragma unroll
    for (int k = 0; k < VectorizedRung::kVectorsInFlight; ++k)
      if (v + k * stride < l.vectors) asm volatile("prefetch.global.L1 [%0];" ::"l"(vectors + v + k * stride));
  }
}

// The same rounding twice more, its code now in the instruction cache: marks 8 and 9 (cycles).
template <class In, class Out, class State>
__device__ void round_again(const ExactArgs<In, Out>& args, State& state, long long* row) {
  for (int again = 0; again < 2; ++again) {
    __syncwarp();
    const long long t = clock64();
    finish_state(args, state);
    if (threadIdx.x == 0) row[8 + again] = clock64() - t;
  }
}

template <class In, class Out>
__global__ void __launch_bounds__(256, 4) marked(ExactArgs<In, Out> args, long long* marks) {
  using Family = family_of<In>;
  long long* row = marks + std::int64_t(blockIdx.x) * kMarks;
  if (threadIdx.x == 0) row[0] = clock64();
  extern __shared__ __align__(16) unsigned char exact_shared[];
  BlockMemory<Family> m;
  m.exact = reinterpret_cast<BlockExact<Family>*>(exact_shared);
  m.region = exact_shared + kBlockExactBytes<Family>;
  m.slots = reinterpret_cast<long long*>(m.region + region_bytes<In>(int(blockDim.x)));
  m.tree = m.slots + warp_slot_bytes(int(blockDim.x)) / 8;
  m.scratch = nullptr;
  if (kPrefetch) prefetch_first_batch<true>(args.d_in, args.num_items, blockIdx.x, gridDim.x);
  m.exact->clear(m.slots);
  mark(row, 1);
  BlockExact<Family>& shared = *m.exact;
  if constexpr (std::is_same_v<Family, FloatFamily>) {
    FloatWindowThread thread(reinterpret_cast<double*>(m.region) + threadIdx.x, int(blockDim.x),
                             shared.state);
    sum_inputs<true>(args.d_in, args.num_items, blockIdx.x, gridDim.x, thread);
    mark(row, 2);
    std::int64_t n;
    int position;
    if (thread.finish_in_shared_window(n, position)) {
      block_or(thread.seen, shared.seen);
      warp_window_into_row(n, position, m.slots);
    } else {
      ThreadLimbs limbs;
      thread.finish(limbs);
      block_or(thread.seen, shared.seen);
      combine_thread_limbs_by_warps(limbs, m.slots);
    }
    __syncthreads();
    total_rows(shared, m.slots);
  } else {
    DoubleExpansionThread<true> thread(shared.state);  // the window (2026-11-28: automatic's from 2^20)
    sum_inputs<true>(args.d_in, args.num_items, blockIdx.x, gridDim.x, thread);
    mark(row, 2);
    thread.fold();
    thread.note_sign_of_zero();
    block_or(thread.seen, shared.seen);
    combine_expansions_by_halves(shared, thread.expansion, reinterpret_cast<double*>(m.region),
                                 reinterpret_cast<double*>(m.slots));
  }
  mark(row, 3);
  if (gridDim.x == 1) {
    if (threadIdx.x == 0) count_what_was_seen(shared, args.num_items);
    mark(row, 4);
    mark(row, 5);
    mark(row, 6);
    finish_state(args, shared.state);
    if (threadIdx.x == 0) row[7] = clock64();
    return round_again(args, shared.state, row);
  }
  // atomic_epilogue's body (sealed in registers), marked.
  if (threadIdx.x == 0) row[4] = row[3];
  constexpr int L = Family::kLimbs, W = ExactState<Family>::kWords;
  const std::int64_t items = blockIdx.x == 0 ? args.num_items : 0;
  __shared__ bool last;
  if (threadIdx.x < 32) {
    const int lane = int(threadIdx.x);
    auto* grid = reinterpret_cast<unsigned long long*>(
        args.template grid_state<Family>(int(blockIdx.x % kGridStates)));
    long long carry_into_pass = 0;
#pragma unroll
    for (int base = 0; base < L; base += 32) {
      const long long sealed = sealed_limb(shared.state, base, carry_into_pass);
      if (base + lane < L && sealed != 0)
        atomicAdd(grid + base + lane, static_cast<unsigned long long>(sealed));
    }
    if (lane < kCounts) {
      const long long count = block_count(shared, items, lane);
      if (count != 0) atomicAdd(grid + L + lane, static_cast<unsigned long long>(count));
    }
    __syncwarp();
    if (lane == 0) last = take_ticket(args.ticket()) == gridDim.x - 1;
  }
  mark(row, 5);
  if (!last) {
    if (threadIdx.x == 0) row[6] = row[7] = -1;
    return;
  }
  long long* total = words_of(shared.total);
  for (int w = int(threadIdx.x); w < W; w += int(blockDim.x)) {
    long long sum = 0;
#pragma unroll
    for (int copy = 0; copy < kGridStates; ++copy)
      sum += static_cast<long long>(atomicExch(
          reinterpret_cast<unsigned long long*>(args.template grid_state<Family>(copy) + w), 0ull));
    total[w] = sum;
  }
  mark(row, 6);
  finish_state(args, shared.total);
  if (threadIdx.x == 0) row[7] = clock64();
  round_again(args, shared.total, row);
  if (threadIdx.x == 0) *args.ticket() = 0;
}

template <class T>
__global__ void fill(T* p, long n, unsigned long long seed) {
  for (long i = blockIdx.x * 256L + threadIdx.x; i < n; i += gridDim.x * 256L) {
    unsigned long long h = (i + seed) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    p[i] = T(double(h >> 11) * 0x1p-53 * 2.0 - 1.0);
  }
}

template <class F>
float median_us(F call, int reps = 41) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int r = 0; r < reps + 5; ++r) {
    CK(cudaEventRecord(a));
    call();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    if (r >= 5) t.push_back(ms * 1000);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

long long median_of(std::vector<long long> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class T>
void run(const char* name, long n) {
  T* in;
  T* out;
  CK(cudaMalloc(&in, n * sizeof(T)));
  CK(cudaMalloc(&out, 16));
  fill<<<1024, 256>>>(in, n, 77);
  CK(cudaGetLastError());
  gpureduce::Options cr;
  cr.accuracy = gpureduce::Accuracy::correctly_rounded;
  gpureduce::LaunchPlan plan;
  CK(gpureduce::DeviceReduce::PlanSum<T, T>(plan, in, n, cr));
  const int grid = plan.grid_blocks;
  using Family = family_of<T>;
  const size_t temp_bytes = temp_storage_bytes<Family>(grid, 256, false);
  unsigned char* temp;
  CK(cudaMalloc(&temp, temp_bytes));
  CK(cudaMemset(temp, 0, temp_bytes));
  long long* marks;
  CK(cudaMalloc(&marks, size_t(grid) * kMarks * 8));
  ExactArgs<T, T> args{in, out, n, temp, temp, std::uint8_t(gpureduce::Pipeline::atomic), nullptr};
  const size_t smem = exact_shared_bytes<VectorizedRung, T>(256);
  CK(cudaFuncSetAttribute(marked<T, T>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  const float marked_us = median_us([&] { marked<T, T><<<grid, 256, smem>>>(args, marks); });
  CK(cudaGetLastError());
  size_t lib_bytes = 0;
  CK(gpureduce::DeviceReduce::Sum(nullptr, lib_bytes, in, out, n, nullptr, cr));
  void* lib_temp;
  CK(cudaMalloc(&lib_temp, lib_bytes + 4096));
  const float cr_us = median_us([&] { CK(gpureduce::DeviceReduce::Sum(lib_temp, lib_bytes, in, out, n, nullptr, cr)); });
  size_t def_bytes = 0;
  CK(gpureduce::DeviceReduce::Sum(nullptr, def_bytes, in, out, n));
  void* def_temp;
  CK(cudaMalloc(&def_temp, def_bytes + 4096));
  const float def_us = median_us([&] { CK(gpureduce::DeviceReduce::Sum(def_temp, def_bytes, in, out, n)); });
  // One more marked launch, its marks read back.
  marked<T, T><<<grid, 256, smem>>>(args, marks);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<long long> h(size_t(grid) * kMarks);
  CK(cudaMemcpy(h.data(), marks, h.size() * 8, cudaMemcpyDeviceToHost));
  const char* names[] = {"clear", "loop", "combine", "-", "seal+adds+ticket"};
  printf("%s n=%ld grid=%d | marked %.2f us, library CR %.2f us, default %.2f us | median cycles:", name, n,
         grid, marked_us, cr_us, def_us);
  for (int k = 1; k <= 5; ++k) {
    std::vector<long long> d;
    for (int b = 0; b < grid; ++b) d.push_back(h[b * kMarks + k] - h[b * kMarks + k - 1]);
    printf(" %s %lld", names[k - 1], median_of(d));
  }
  for (int b = 0; b < grid; ++b)
    if (h[b * kMarks + 7] >= 0)
      printf(" | last block %d: total to ticket %lld, gather %lld, round %lld, again %lld %lld", b,
             h[b * kMarks + 5] - h[b * kMarks + 0], h[b * kMarks + 6] - h[b * kMarks + 5],
             h[b * kMarks + 7] - h[b * kMarks + 6], h[b * kMarks + 8], h[b * kMarks + 9]);
  printf("\n");
  CK(cudaFree(in));
  CK(cudaFree(out));
  CK(cudaFree(temp));
  CK(cudaFree(marks));
  CK(cudaFree(lib_temp));
  CK(cudaFree(def_temp));
}

// `exact_tail_phases` times 2^10 .. 2^22 items; `exact_tail_phases big` 2^26 and 2^28 floats (the
// question of the first-batch prefetch: build with -DPREFETCH=0 and 1, run them alternately; the
// library's own call, without the prefetch since 11b79ac, is beside the marked kernel's).
int main(int argc, char** argv) {
  int clock_khz = 0;
  CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  printf("%s, clock %d MHz, prefetch in the marked kernel: %d\n", p.name, clock_khz / 1000, PREFETCH);
  if (argc > 1 && std::string(argv[1]) == "big") {
    for (long n : {1L << 26, 1L << 28}) run<float>("f32", n);
    return 0;
  }
  for (long n : {1L << 10, 1L << 12, 1L << 16, 1L << 20, 1L << 22}) run<float>("f32", n);
  for (long n : {1L << 10, 1L << 12, 1L << 16, 1L << 20, 1L << 22}) run<double>("f64", n);
}
