// Probe (2026-11-27, H100): issue 23's 4M rows at grids other than automatic's. ArgMin,
// TransformReduce (square, plus) and SumAbs of uniform floats, paired with CUB's ArgMin and
// TransformReduce (SumAbs against CUB's TransformReduce with |x|, same bytes), each call between
// CUDA events on an idle GPU, ABBA, medians: the level-1 harness's method (level1_paired.cu), the
// input left in L2 as there below half the L2. Options::grid_blocks = 0 (automatic's rule) and
// 128 .. 1056 blocks of 256 threads. Built against the library of c45b637:
//   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude benchmark/probes/level1_grid_probe.cu \
//        build/libgpureduce.a -o level1_grid_probe
// Output: benchmark/results/h100-2026-11-27-level1-grid-probe.txt.
#include <cub/device/device_reduce.cuh>
#include <gpureduce/blas.hpp>
#include <gpureduce/device_reduce.cuh>
#include <gpureduce/gpureduce.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <vector>

#define CHECK(x)                                                                        \
  do {                                                                                  \
    cudaError_t e_ = (x);                                                               \
    if (e_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

struct Square {
  __host__ __device__ float operator()(float v) const { return v * v; }
};
struct Absolute {
  __host__ __device__ float operator()(float v) const { return fabsf(v); }
};

__global__ void empty_kernel() {}

struct Paired {
  double ours, theirs, ratio, empty;
};
Paired time_paired(const std::function<void()>& ours, const std::function<void()>& theirs) {
  cudaEvent_t e[2];
  for (auto& ev : e) CHECK(cudaEventCreate(&ev));
  for (int i = 0; i < 5; ++i) ours(), theirs();
  auto time_one = [&](const std::function<void()>& call) {
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaEventRecord(e[0]));
    call();
    CHECK(cudaEventRecord(e[1]));
    CHECK(cudaEventSynchronize(e[1]));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, e[0], e[1]));
    return 1e3 * ms;
  };
  const std::function<void()> empty = [] { empty_kernel<<<1, 32>>>(); CHECK(cudaGetLastError()); };
  std::vector<double> a, b, r, f;
  for (int it = 0; it < 400; ++it) {
    const bool ours_first = it % 2 == 0;
    const double t1 = time_one(ours_first ? ours : theirs), t2 = time_one(ours_first ? theirs : ours);
    f.push_back(time_one(empty));
    const double ta = ours_first ? t1 : t2, tb = ours_first ? t2 : t1;
    a.push_back(ta), b.push_back(tb), r.push_back(ta / tb);
  }
  for (auto& ev : e) CHECK(cudaEventDestroy(ev));
  auto median = [](std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; };
  return {median(a), median(b), median(r), median(f)};
}

// Arguments (2026-11-30, H200): [ops [grid ...]]: the first `ops` of ArgMin, TransformReduce,
// SumAbs (default 3) at the grids given (default the 2026-11-27 list). Output of
// `level1_grid_probe 2 0 32 48 64 96 128 192 256`: h200-2026-11-30-level1-grid-probe.txt.
int main(int argc, char** argv) {
  const std::int64_t sizes[] = {std::int64_t(1) << 20, std::int64_t(1) << 22};
  const int ops = argc > 1 ? std::atoi(argv[1]) : 3;
  std::vector<int> grids;
  for (int i = 2; i < argc; ++i) grids.push_back(std::atoi(argv[i]));
  if (grids.empty()) grids = {0, 128, 256, 384, 528, 792, 1056};
  const std::int64_t most = sizes[1];
  std::vector<float> host(most);
  std::mt19937 rng(20261127);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (float& v : host) v = uniform(rng);
  float* x = nullptr;
  CHECK(cudaMalloc(&x, most * sizeof(float)));
  CHECK(cudaMemcpy(x, host.data(), most * sizeof(float), cudaMemcpyHostToDevice));
  const std::size_t temp_bytes = 64 << 20;
  void *temp = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&temp, temp_bytes));
  CHECK(cudaMalloc(&out, 256));
  auto* f = static_cast<float*>(out);
  auto* idx = static_cast<::cuda::std::int64_t*>(out) + 4;
  auto* arg = reinterpret_cast<gpureduce::IndexedValue<float>*>(static_cast<char*>(out) + 64);
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("# %s; ours = gpureduce at Options::grid_blocks (0: automatic), theirs = CUB; medians of 400 ABBA pairs, us\n", prop.name);
  std::printf("%-16s %9s %6s %8s %8s %7s %7s\n", "op", "n", "grid", "ours", "theirs", "ratio", "empty");
  for (std::int64_t n : sizes)
    for (int op = 0; op < ops; ++op)
      for (int grid : grids) {
        gpureduce::Options o;
        o.grid_blocks = grid;
        std::function<void()> ours, theirs;
        const char* name = op == 0 ? "ArgMin" : op == 1 ? "TransformReduce" : "SumAbs";
        if (op == 0) {
          ours = [=] { std::size_t b = temp_bytes; CHECK(gpureduce::DeviceReduce::ArgMin(temp, b, x, arg, n, nullptr, o)); };
          theirs = [=] { std::size_t b = temp_bytes; CHECK(cub::DeviceReduce::ArgMin(temp, b, x, f, idx, n)); };
        } else if (op == 1) {
          ours = [=] {
            std::size_t b = temp_bytes;
            CHECK(gpureduce::TransformReduce(temp, b, x, f, n, ::cuda::std::plus<>{}, Square{}, 0.0f, nullptr, o));
          };
          theirs = [=] {
            std::size_t b = temp_bytes;
            CHECK(cub::DeviceReduce::TransformReduce(temp, b, x, f, n, ::cuda::std::plus<>{}, Square{}, 0.0f));
          };
        } else {
          ours = [=] { std::size_t b = temp_bytes; CHECK(gpureduce::Blas1::SumAbs(temp, b, x, f, n, nullptr, o)); };
          theirs = [=] {
            std::size_t b = temp_bytes;
            CHECK(cub::DeviceReduce::TransformReduce(temp, b, x, f, n, ::cuda::std::plus<>{}, Absolute{}, 0.0f));
          };
        }
        const Paired p = time_paired(ours, theirs);
        std::printf("%-16s %9lld %6d %8.2f %8.2f %7.3f %7.2f\n", name, (long long)n, grid, p.ours,
                    p.theirs, p.ratio, p.empty);
        std::fflush(stdout);
      }
  return 0;
}
