// Why 16 KiB segments lose to CUB (2026-11-28): bytes in flight or the shape of the streams?
// Standalone kernels (not the library's) sum 2^26 floats in segments of 2^K (K = 11, 12, 13), and
// their time is set beside CUB's DeviceSegmentedReduce::Sum (counting-iterator offsets, as the
// benchmark's fixed-size competitor) and the library's FixedSizeSum:
//   warp D/B:  a warp a segment (the library's warp class), D 16-byte loads a lane in flight,
//              B blocks of 256 an SM, segments grid-strided over the warps (the library's form);
//   quad D/B:  four warps (128 threads) a segment, D loads a thread in flight;
//   block:     a block of 256 a segment, one block a segment launched (CUB's shape), 4 loads a
//              thread in flight.
// Beside them the library's own pieces on the same segments: its warp_reduce in a plain kernel,
// fixed_warp_kernel (with and without PDL), fixed_warps alone, and fixed_small_kernel's switch,
// where every warp segment ran before fixed_warp_kernel (the base), each with the call's host time. Found: every standalone
// shape within 4% of CUB at 2^12 floats, the switch 2-3 µs slower than the same code alone
// (docs/tuning.md, 'Fixed-size warp kernel'). Every kernel adds each thread's vectors in ascending
// order (the sums are checked against the warp 4 kernel's only loosely: their trees differ).
// Contenders alternate call by call; median of ROUNDS (first argument, 21 by default). Built
// against the library:
//   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -Ibenchmark/probes benchmark/probes/segmented_depth_probe.cu build/libgpureduce.a -o segmented_depth_probe
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "gpureduce/detail/segmented/kernels.cuh"
#include "gpureduce/segmented.hpp"
#include "segmented_probe.cuh"

__device__ __forceinline__ float sum4(float4 v) { return ((v.x + v.y) + v.z) + v.w; }

// THREADS threads a segment of `size` floats (size a multiple of 4 * THREADS * DEPTH), segments
// grid-strided over the grid's groups of THREADS threads.
template <int THREADS, int DEPTH>
__global__ void __launch_bounds__(256) group_kernel(const float* in, float* out, long long segments,
                                                    int size) {
  __shared__ float partial[256 / 32];
  const int rank = threadIdx.x % THREADS;
  const long long group = (blockIdx.x * 256LL + threadIdx.x) / THREADS;
  const long long groups = gridDim.x * 256LL / THREADS;
  // Uniform trip counts across a block (its barriers): a group past the end loads nothing.
  const long long first_of_block = blockIdx.x * (256LL / THREADS);
  for (long long base = first_of_block; base < segments; base += groups) {
    const long long s = group - first_of_block + base;
    const float4* v = reinterpret_cast<const float4*>(in + (s < segments ? s : 0) * size);
    const int vectors = s < segments ? size / 4 : 0;
    float acc = 0.f;
    for (int i = rank; i < vectors; i += THREADS * DEPTH) {
      float4 raw[DEPTH];
#pragma unroll
      for (int k = 0; k < DEPTH; ++k) raw[k] = __ldg(v + i + k * THREADS);
#pragma unroll
      for (int k = 0; k < DEPTH; ++k) acc += sum4(raw[k]);
    }
#pragma unroll
    for (int o = 16; o > 0; o /= 2) acc += __shfl_down_sync(~0u, acc, o);
    if (THREADS == 32) {
      if (rank == 0 && s < segments) out[s] = acc;
    } else {
      // THREADS / 32 warps of one block: their totals meet in shared memory.
      const int warp = threadIdx.x / 32, first = (threadIdx.x / THREADS) * (THREADS / 32);
      if (threadIdx.x % 32 == 0) partial[warp] = acc;
      __syncthreads();
      if (rank == 0 && s < segments) {
        float t = 0.f;
        for (int w = 0; w < THREADS / 32; ++w) t += partial[first + w];
        out[s] = t;
      }
      __syncthreads();
    }
  }
}

// One block of 256 a segment, one launch of `segments` blocks.
__global__ void __launch_bounds__(256) block_kernel(const float* in, float* out, int size) {
  __shared__ float partial[8];
  const float4* v = reinterpret_cast<const float4*>(in + blockIdx.x * (long long)size);
  const int vectors = size / 4;
  float acc = 0.f;
  for (int i = threadIdx.x; i < vectors; i += 256 * 4) {
    float4 raw[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) raw[k] = __ldg(v + i + k * 256);
#pragma unroll
    for (int k = 0; k < 4; ++k) acc += sum4(raw[k]);
  }
#pragma unroll
  for (int o = 16; o > 0; o /= 2) acc += __shfl_down_sync(~0u, acc, o);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0.f;
    for (int w = 0; w < 8; ++w) t += partial[w];
    out[blockIdx.x] = t;
  }
}

// The library's warp piece itself (warp_per_segment.cuh), a warp a segment, as fixed_warps runs it.
__global__ void __launch_bounds__(256) library_warp_kernel(const float* in, float* out,
                                                           long long segments, int size) {
  using namespace gpureduce::detail;
  for (long long s = segmented::global_warp(); s < segments; s += segmented::grid_warps()) {
    const float total = segmented::warp_reduce<float>(InputReader<float, float>(in + s * size),
                                                      size, SumOp{});
    if (threadIdx.x % 32 == 0) out[s] = total;
  }
}

// The warp 4 kernel with the library's order of adds: each item into the running sum in turn
// (a chain of 16 dependent adds a batch, against 4 after three-deep vector sums).
__global__ void __launch_bounds__(256) in_order_warp_kernel(const float* in, float* out,
                                                            long long segments, int size) {
  const int lane = threadIdx.x % 32;
  for (long long s = (blockIdx.x * 256LL + threadIdx.x) / 32; s < segments; s += gridDim.x * 8LL) {
    const float4* v = reinterpret_cast<const float4*>(in + s * size);
    float acc = 0.f;
    for (int i = lane; i < size / 4; i += 32 * 4) {
      float4 raw[4];
#pragma unroll
      for (int k = 0; k < 4; ++k) raw[k] = __ldg(v + i + k * 32);
#pragma unroll
      for (int k = 0; k < 4; ++k) acc = (((acc + raw[k].x) + raw[k].y) + raw[k].z) + raw[k].w;
    }
#pragma unroll
    for (int o = 16; o > 0; o /= 2) acc += __shfl_down_sync(~0u, acc, o);
    if (lane == 0) out[s] = acc;
  }
}

// fixed_warp_kernel's body, with and without its PDL wait and release (before fixed_warp_kernel
// existed: fixed_small_kernel's warp case alone).
template <class P>
__global__ void __launch_bounds__(256) warps_only_kernel(gpureduce::detail::segmented::Args<P> a) {
  gpureduce::detail::wait_for_previous_kernel_then_release_next();
  gpureduce::detail::segmented::fixed_warps(a);
}
template <class P>
__global__ void __launch_bounds__(256) warps_only_no_pdl_kernel(
    gpureduce::detail::segmented::Args<P> a) {
  gpureduce::detail::segmented::fixed_warps(a);
}

// A launch with programmatic stream serialization, as the library launches its kernels.
template <class... Params, class... Args>
void launch_with_pdl(void (*kernel)(Params...), unsigned grid, Args... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(grid);
  config.blockDim = dim3(256);
  cudaLaunchAttribute pdl{};
  pdl.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  pdl.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &pdl;
  config.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&config, kernel, args...));
}

struct Scale {
  int size;
  __host__ __device__ long long operator()(long long i) const { return i * size; }
};

struct Contender {
  std::string name;
  std::function<void()> call;
  std::vector<float> us;
  std::vector<float> host_us;  // the call's own time on the host (launches are asynchronous)
};

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 21;
  const long long total = 1LL << 26;
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  float *in = nullptr, *out = nullptr, *ref = nullptr;
  CHECK(cudaMalloc(&in, total * sizeof(float)));
  CHECK(cudaMalloc(&out, (total >> 10) * sizeof(float)));
  CHECK(cudaMalloc(&ref, (total >> 10) * sizeof(float)));
  fill<<<1024, 256>>>(in, total, 12345u);
  CHECK(cudaGetLastError());
  void* temp = nullptr;
  const std::size_t temp_bytes = std::size_t(64) << 20;
  CHECK(cudaMalloc(&temp, temp_bytes));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::printf("SMs %d; 2^26 floats; median us of %d rounds, contenders alternated\n", sms, rounds);
  for (int k : {11, 12, 13}) {
    const int size = 1 << k;
    const long long segments = total >> k;
    std::vector<Contender> cs;
    auto offsets = thrust::make_transform_iterator(thrust::counting_iterator<long long>(0),
                                                   Scale{size});
    cs.push_back({"cub segmented", [=] {
                    std::size_t b = temp_bytes;
                    CHECK(cub::DeviceSegmentedReduce::Sum(temp, b, in, out, segments, offsets,
                                                          offsets + 1));
                  }, {}});
    cs.push_back({"gpureduce fixed", [=] {
                    std::size_t b = temp_bytes;
                    CHECK(gpureduce::DeviceSegmentedReduce::FixedSizeSum(temp, b, in, out,
                                                                         segments, size));
                  }, {}});
    std::vector<std::int64_t> begin(segments + 1);
    for (long long s = 0; s <= segments; ++s) begin[s] = s * size;
    std::int64_t* d_offsets = nullptr;
    CHECK(cudaMalloc(&d_offsets, (segments + 1) * 8));
    CHECK(cudaMemcpy(d_offsets, begin.data(), (segments + 1) * 8, cudaMemcpyHostToDevice));
    cs.push_back({"cub segmented, offset array", [=] {
                    std::size_t b = temp_bytes;
                    CHECK(cub::DeviceSegmentedReduce::Sum(temp, b, in, out, segments, d_offsets,
                                                          d_offsets + 1));
                  }, {}});
    cs.push_back({"gpureduce offsets", [=] {
                    std::size_t b = temp_bytes;
                    CHECK(gpureduce::DeviceSegmentedReduce::Sum(temp, b, in, out, segments,
                                                                d_offsets, d_offsets + 1));
                  }, {}});
    auto group = [&](auto kernel, const char* name, int per_sm) {
      const std::string n = std::string(name) + " " + std::to_string(per_sm) + "/SM";
      cs.push_back({n, [=] {
                      kernel<<<per_sm * sms, 256>>>(in, out, segments, size);
                      CHECK(cudaGetLastError());
                    }, {}});
    };
    using namespace gpureduce::detail;
    using P = segmented::Problem<segmented::ArraySource<float, float>, float, float, SumOp, float>;
    const segmented::Args<P> args{{in},    out,     nullptr, nullptr, segments, size,    SumOp{},
                                  0.f,     true,    nullptr, nullptr, nullptr,  nullptr, 0u,
                                  nullptr, 0u,      nullptr, false,   false};
    cs.push_back({"fixed_warp_kernel 4/SM", [=] {
                    segmented::fixed_warp_kernel<P><<<4 * sms, 256>>>(args);
                    CHECK(cudaGetLastError());
                  }, {}});
    cs.push_back({"fixed_warp_kernel 4/SM, PDL", [=] {
                    launch_with_pdl(segmented::fixed_warp_kernel<P>, 4 * sms, args);
                  }, {}});
    // The warp case of fixed_small_kernel's switch: all warp segments ran there before
    // fixed_warp_kernel (library 1a8d5c9), and those of up to 4 KiB still do.
    cs.push_back({"switch form 4/SM, PDL (base)", [=] {
                    launch_with_pdl(segmented::fixed_small_kernel<P>, 4 * sms, args, 0);
                  }, {}});
    cs.push_back({"warps-only kernel 4/SM", [=] {
                    warps_only_kernel<P><<<4 * sms, 256>>>(args);
                    CHECK(cudaGetLastError());
                  }, {}});
    cs.push_back({"warps-only, no griddepcontrol", [=] {
                    warps_only_no_pdl_kernel<P><<<4 * sms, 256>>>(args);
                    CHECK(cudaGetLastError());
                  }, {}});
    group(library_warp_kernel, "library warp_reduce", 4);
    group(in_order_warp_kernel, "warp 4 in order", 4);
    cs.push_back({"warp 4 4/SM, PDL launch", [=] {
                    launch_with_pdl(group_kernel<32, 4>, 4 * sms, in, out, segments, size);
                  }, {}});
    for (int b : {4, 6, 8}) group(group_kernel<32, 4>, "warp 4", b);
    for (int b : {4, 6, 8}) group(group_kernel<32, 8>, "warp 8", b);
    if (size >= 128 * 4 * 4)
      for (int b : {4, 8}) group(group_kernel<128, 4>, "quad 4", b);
    if (size >= 256 * 4 * 4) {
      cs.push_back({"block 4, a block a segment", [=] {
                      block_kernel<<<unsigned(segments), 256>>>(in, out, size);
                      CHECK(cudaGetLastError());
                    }, {}});
    }
    // Each contender's sums against the first kernel's, loosely (different trees).
    group_kernel<32, 4><<<4 * sms, 256>>>(in, ref, segments, size);
    CHECK(cudaDeviceSynchronize());
    std::vector<float> want(segments), got(segments);
    CHECK(cudaMemcpy(want.data(), ref, segments * 4, cudaMemcpyDeviceToHost));
    for (int round = -2; round < rounds; ++round)
      for (auto& c : cs) {
        CHECK(cudaMemset(out, 0xff, segments * 4));
        CHECK(cudaEventRecord(start));
        const auto host_start = std::chrono::steady_clock::now();
        c.call();
        const auto host_end = std::chrono::steady_clock::now();
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        if (round >= 0) c.us.push_back(ms * 1000);
        if (round >= 0)
          c.host_us.push_back(
              std::chrono::duration<float, std::micro>(host_end - host_start).count());
        if (round == -1) {
          CHECK(cudaMemcpy(got.data(), out, segments * 4, cudaMemcpyDeviceToHost));
          for (long long s = 0; s < segments; ++s)
            if (!(std::fabs(got[s] - want[s]) <= 1e-3f * (1 + std::fabs(want[s])))) {
              std::printf("%s: segment %lld: %g against %g\n", c.name.c_str(), s, got[s], want[s]);
              return 1;
            }
        }
      }
    CHECK(cudaFree(d_offsets));
    std::printf("\n2^%d segments of 2^%d floats\n", int(26 - k), k);
    const float cub = [&] {
      auto u = cs[0].us;
      std::sort(u.begin(), u.end());
      return u[u.size() / 2];
    }();
    for (auto& c : cs) {
      std::sort(c.us.begin(), c.us.end());
      std::sort(c.host_us.begin(), c.host_us.end());
      const float med = c.us[c.us.size() / 2];
      std::printf("  %-28s %8.2f us  (%.2f-%.2f)  %7.1f GB/s  %.3fx cub  host %.2f us\n",
                  c.name.c_str(), med, c.us.front(), c.us.back(), total * 4.0 / med / 1e3,
                  med / cub, c.host_us[c.host_us.size() / 2]);
    }
  }
  return 0;
}
