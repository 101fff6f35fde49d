// Probe (stop 57, 2026-11-29, H200): where ArgMin's time goes past the float sum's, phase by phase
// on the SMs. last_block_stamps.patch (made against 98acfc5's include/) makes thread 0 of every
// block of automatic's last_block kernel write %globaltimer at eight points (after the launch's
// wait; its first batch of loads in; its own items folded; its warp's tree; the block's barrier;
// warp 0's tree; the partial; the ticket back) and the last block at eight more (its fold's
// start; its slot read; the warp tree; the barrier; warp 0's tree; the total; written), each
// stamp depending on the value it follows, into a __device__ array this program reads after each
// call. ArgMin f32 and TransformReduce f32 (x * x, plus: the float sum's kernel) at 256K, 1M and
// 4M items (grids of 64-256 blocks; the stamps hold 256), 20 calls each on an idle GPU; the median
// of each stamp, ns from the first block's start (phases: the latest block's; last: the last
// block's). ArgMin's answer is checked against the host's. In a copy of the tree:
//   patch -p1 < benchmark/probes/last_block_stamps.patch
//   nvcc -O3 -std=c++17 -arch=sm_90 -DGR_STAMPS -Iinclude benchmark/probes/last_block_stamps.cu \
//        src/*.cpp -o last_block_stamps
// The globaltimer ticks in 32 ns steps here, and each stamp costs some tens of ns: compare
// phases between builds and operators, not with the unstamped kernel's time.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "gpureduce/detail/arg_extremum.cuh"
#include "gpureduce/detail/blas1_terms.cuh"

namespace d = gpureduce::detail;
#define OK(call)                                                                    \
  do {                                                                              \
    cudaError_t e_ = (call);                                                        \
    if (e_ != cudaSuccess) {                                                        \
      std::printf("%s: %s\n", #call, cudaGetErrorString(e_));                       \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)

__global__ void fill(float* x, std::int64_t n) {  // uniform in [-0.5, 0.5), no zeros in a row
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    unsigned long long h = (unsigned long long)i * 0x9e3779b97f4a7c15ull + 77;
    h ^= h >> 31, h *= 0xbf58476d1ce4e5b9ull, h ^= h >> 29;
    x[i] = float(h >> 40) / 16777216.0f - 0.5f;
  }
}
struct Square {
  __device__ float operator()(float x) const { return x * x; }
};

constexpr int kSlots = 16;  // a block's stamps: 0-7 its own phases, 8-15 the last block's fold
template <class Call>
void stamps(const char* name, std::int64_t n, Call call, int grid) {
  std::vector<std::vector<double>> phase(8), last(8);
  for (int rep = 0; rep < 21; ++rep) {
    std::vector<unsigned long long> s(256 * kSlots, 0);
    OK(cudaMemcpyToSymbol(d::gr_stamps, s.data(), s.size() * 8));
    OK(cudaDeviceSynchronize());
    OK(call());
    OK(cudaDeviceSynchronize());
    OK(cudaMemcpyFromSymbol(s.data(), d::gr_stamps, s.size() * 8));
    unsigned long long t0 = ~0ull, written = 0;
    int last_block = 0;
    for (int b = 0; b < grid; ++b) t0 = std::min(t0, s[b * kSlots]);
    for (int b = 0; b < grid; ++b)
      if (s[b * kSlots + 15] > written) written = s[b * kSlots + 15], last_block = b;
    if (rep == 0) continue;  // warm-up
    for (int i = 0; i < 8; ++i) {
      unsigned long long latest = 0;
      for (int b = 0; b < grid; ++b) latest = std::max(latest, s[b * kSlots + i]);
      phase[i].push_back(double(latest - t0));
      last[i].push_back(double(s[last_block * kSlots + 8 + i] - t0));
    }
  }
  auto med = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::printf("%-10s n=%-8lld grid %3d | blocks: loads %4.0f thread %4.0f warp %4.0f bar %4.0f "
              "block %4.0f partial %4.0f ticket %4.0f | last: in %4.0f read %4.0f warp %4.0f bar "
              "%4.0f block %4.0f total %4.0f written %4.0f\n",
              name, (long long)n, grid, med(phase[1]), med(phase[2]), med(phase[3]), med(phase[4]),
              med(phase[5]), med(phase[6]), med(phase[7]), med(last[0]), med(last[1]), med(last[3]),
              med(last[4]), med(last[5]), med(last[6]), med(last[7]));
}

int main() {
  const std::int64_t max_n = std::int64_t(1) << 22;
  float* x;
  OK(cudaMalloc(&x, max_n * sizeof(float)));
  fill<<<1024, 256>>>(x, max_n);
  OK(cudaGetLastError());
  gpureduce::IndexedValue<float>* arg_out;
  OK(cudaMalloc(&arg_out, sizeof *arg_out));
  float* out;
  OK(cudaMalloc(&out, sizeof(float)));
  void* temp;
  const std::size_t temp_bytes = 64 << 20;
  OK(cudaMalloc(&temp, temp_bytes));
  gpureduce::Options options;
  for (std::int64_t n : {std::int64_t(1) << 18, std::int64_t(1) << 20, max_n}) {
    gpureduce::LaunchPlan plan;
    auto argmin = [&](gpureduce::LaunchPlan* p) {
      std::size_t bytes = temp_bytes;
      return d::reduce_input(p ? nullptr : temp, &bytes,
                             d::IndexedReader<float, gpureduce::IndexedValue<float>>(x), arg_out, n,
                             d::ArgMinOp{}, gpureduce::IndexedValue<float>{1, 0.f}, false, 0,
                             options, p);
    };
    auto square_sum = [&](gpureduce::LaunchPlan* p) {
      std::size_t bytes = temp_bytes;
      return d::reduce_input(p ? nullptr : temp, &bytes,
                             d::TransformReader<float, float, Square>(x, Square{}), out, n,
                             ::cuda::std::plus<float>{}, 0.f, true, 0, options, p);
    };
    OK(argmin(&plan));
    if (plan.grid_blocks > 256) continue;  // the stamps hold 256 blocks
    stamps("ArgMin", n, [&] { return argmin(nullptr); }, plan.grid_blocks);
    std::vector<float> h(n);
    OK(cudaMemcpy(h.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost));
    std::int64_t best = 0;
    for (std::int64_t i = 1; i < n; ++i)
      if (h[i] < h[best]) best = i;
    gpureduce::IndexedValue<float> got;
    OK(cudaMemcpy(&got, arg_out, sizeof got, cudaMemcpyDeviceToHost));
    std::printf("check n=%lld: {%lld, %a} against the host's {%lld, %a}: %s\n", (long long)n,
                (long long)got.index, got.value, (long long)best, h[best],
                got.index == best && got.value == h[best] ? "equal" : "MISMATCH");
    OK(square_sum(&plan));
    stamps("TR square", n, [&] { return square_sum(nullptr); }, plan.grid_blocks);
  }
  return 0;
}
