// gpureduce's level-1 calls against what users would call instead, one run, paired: ArgMin/ArgMax
// and TransformReduce against cub::DeviceReduce, Dot/Norm2/SumAbs/ArgMaxAbs against cuBLAS
// (device pointer mode, result left on the device, handle made outside the timing). Each
// iteration times one call of each between CUDA events on one stream, alternating which goes
// first; the table gives both medians and the median of the per-iteration ratios
// (gpureduce / competitor). Inputs: uniform floats in [-1, 1) made on the GPU, every n a prefix.
//   gpureduce_level1_paired OUT.md    (also prints the table)
#include <cublas_v2.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <cub/device/device_reduce.cuh>

#include "gpureduce/blas.hpp"
#include "gpureduce/device_reduce.cuh"

namespace {

#define CHECK(call)                                                                          \
  do {                                                                                       \
    const auto check_result_ = (call);                                                       \
    if (check_result_ != decltype(check_result_){}) {                                        \
      std::fprintf(stderr, "%s:%d: %s failed (%d) %s\n", __FILE__, __LINE__, #call,          \
                   int(check_result_), gpureduce::last_error_message());                    \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)

__global__ void fill_uniform(float* out, std::int64_t n, unsigned long long seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    unsigned long long x = seed ^ (0x9E3779B97F4A7C15ull * (i + 1));
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    x ^= x >> 31;
    out[i] = float(x >> 40) / float(1 << 23) - 1.0f;
  }
}
__global__ void widen(const float* in, double* out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = double(in[i]) * (1.0 + 1e-9 * double(i % 7));
}

struct Paired {
  double ours_us, theirs_us, ratio;
};

// Medians of A (ours) and B (theirs) and of the per-iteration ratios, ABBA order, after warm-up.
Paired time_paired(const std::function<void()>& ours, const std::function<void()>& theirs) {
  cudaEvent_t e[4];
  for (auto& ev : e) CHECK(cudaEventCreate(&ev));
  for (int i = 0; i < 5; ++i) { ours(); theirs(); }
  CHECK(cudaDeviceSynchronize());
  std::vector<double> a, b, r;
  double spent = 0;
  for (int it = 0; it < 2000 && (it < 30 || spent < 0.05); ++it) {
    const bool ours_first = it % 2 == 0;
    const std::function<void()>& first = ours_first ? ours : theirs;
    const std::function<void()>& second = ours_first ? theirs : ours;
    CHECK(cudaEventRecord(e[0])); first(); CHECK(cudaEventRecord(e[1]));
    CHECK(cudaEventRecord(e[2])); second(); CHECK(cudaEventRecord(e[3]));
    CHECK(cudaEventSynchronize(e[3]));
    float t1 = 0, t2 = 0;
    CHECK(cudaEventElapsedTime(&t1, e[0], e[1]));
    CHECK(cudaEventElapsedTime(&t2, e[2], e[3]));
    const double ta = 1e3 * (ours_first ? t1 : t2), tb = 1e3 * (ours_first ? t2 : t1);
    a.push_back(ta); b.push_back(tb); r.push_back(ta / tb);
    spent += ta * 1e-6;
  }
  for (auto& ev : e) CHECK(cudaEventDestroy(ev));
  auto median = [](std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; };
  return {median(a), median(b), median(r)};
}

struct Row {
  std::string op, competitor;
  std::int64_t n;
  double bytes;
  Paired t;
};

const char* target(std::int64_t n) {
  if (n >= (std::int64_t(1) << 26)) return "<=1.00 (>=1x throughput)";
  if (n >= (1 << 14) && n <= (1 << 22)) return "<=0.70";
  return "<=1.00";
}

struct Bench {
  float* x;
  float* y;
  double* xd;
  double* yd;
  void* temp;          // for gpureduce and CUB, big enough for both
  std::size_t temp_bytes;
  void* out;           // 64 bytes of outputs
  cublasHandle_t blas;
  std::vector<Row> rows;

  void add(const std::string& op, const std::string& competitor, std::int64_t n, double bytes,
           const std::function<void()>& ours, const std::function<void()>& theirs) {
    rows.push_back({op, competitor, n, bytes, time_paired(ours, theirs)});
    const Row& r = rows.back();
    std::fprintf(stderr, "%s n=%lld ours %.2f us theirs %.2f us ratio %.3f\n", op.c_str(),
                 (long long)n, r.t.ours_us, r.t.theirs_us, r.t.ratio);
  }
  template <class Call>
  std::function<void()> ours(Call call) {
    return [this, call] {
      std::size_t bytes = temp_bytes;
      CHECK(call(temp, bytes));
    };
  }

  void run(std::int64_t n) {
    using gpureduce::IndexedValue;
    auto* f = static_cast<float*>(out);
    auto* d = static_cast<double*>(out);
    auto* idx = static_cast<::cuda::std::int64_t*>(out) + 4;
    auto* arg = reinterpret_cast<IndexedValue<float>*>(static_cast<char*>(out) + 64);
    const double fb = double(n) * sizeof(float), db = double(n) * sizeof(double);
    add("ArgMin f32", "cub::DeviceReduce::ArgMin", n, fb,
        ours([=](void* t, std::size_t& b) { return gpureduce::DeviceReduce::ArgMin(t, b, x, arg, n); }),
        [=] { std::size_t b = temp_bytes; CHECK(cub::DeviceReduce::ArgMin(temp, b, x, f, idx, n)); });
    add("ArgMax f32", "cub::DeviceReduce::ArgMax", n, fb,
        ours([=](void* t, std::size_t& b) { return gpureduce::DeviceReduce::ArgMax(t, b, x, arg, n); }),
        [=] { std::size_t b = temp_bytes; CHECK(cub::DeviceReduce::ArgMax(temp, b, x, f, idx, n)); });
    add("TransformReduce f32 square+plus", "cub::DeviceReduce::TransformReduce", n, fb,
        ours([=](void* t, std::size_t& b) {
          return gpureduce::TransformReduce(t, b, x, f, n, ::cuda::std::plus<>{}, Square{}, 0.0f);
        }),
        [=] {
          std::size_t b = temp_bytes;
          CHECK(cub::DeviceReduce::TransformReduce(temp, b, x, f, n, ::cuda::std::plus<>{}, Square{}, 0.0f));
        });
    add("Dot f32", "cublasSdot", n, 2 * fb,
        ours([=](void* t, std::size_t& b) { return gpureduce::Blas1::Dot(t, b, x, y, f, n); }),
        [=] { CHECK(cublasSdot_64(blas, n, x, 1, y, 1, f + 1)); });
    add("Dot f64", "cublasDdot", n, 2 * db,
        ours([=](void* t, std::size_t& b) { return gpureduce::Blas1::Dot(t, b, xd, yd, d, n); }),
        [=] { CHECK(cublasDdot_64(blas, n, xd, 1, yd, 1, d + 1)); });
    add("Norm2 f32", "cublasSnrm2", n, fb,
        ours([=](void* t, std::size_t& b) { return gpureduce::Blas1::Norm2(t, b, x, f, n); }),
        [=] { CHECK(cublasSnrm2_64(blas, n, x, 1, f + 1)); });
    add("Norm2 f64", "cublasDnrm2", n, db,
        ours([=](void* t, std::size_t& b) { return gpureduce::Blas1::Norm2(t, b, xd, d, n); }),
        [=] { CHECK(cublasDnrm2_64(blas, n, xd, 1, d + 1)); });
    add("SumAbs f32", "cublasSasum", n, fb,
        ours([=](void* t, std::size_t& b) { return gpureduce::Blas1::SumAbs(t, b, x, f, n); }),
        [=] { CHECK(cublasSasum_64(blas, n, x, 1, f + 1)); });
    add("ArgMaxAbs f32", "cublasIsamax", n, fb,
        ours([=](void* t, std::size_t& b) { return gpureduce::Blas1::ArgMaxAbs(t, b, x, arg, n); }),
        [=] { CHECK(cublasIsamax_64(blas, n, x, 1, idx)); });
  }
  struct Square {
    __host__ __device__ float operator()(float v) const { return v * v; }
  };
};

double peak_gbps() {
  int clock_khz = 0, bus_bits = 0;
  CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, 0));
  CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0));
  return 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
}

void write_table(const Bench& bench, FILE* out) {
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const double peak = peak_gbps();
  std::fprintf(out, "# Level-1 reductions against CUB and cuBLAS: %s\n\n", prop.name);
  std::fprintf(out, "CCCL %d, theoretical bandwidth %.1f GB/s, L2 %d MiB. Paired: one call of "
               "each between CUDA events per iteration, ABBA, median of >= 30 iterations; ratio = "
               "median of per-iteration gpureduce / competitor. (L2): the input fits in L2.\n\n",
               CCCL_VERSION, peak, prop.l2CacheSize >> 20);
  std::string op;
  for (const Row& r : bench.rows) {
    if (r.op != op) {
      op = r.op;
      std::fprintf(out, "\n### %s vs %s\n\n| n | %s µs | gpureduce µs | GB/s | %% of peak | ratio | target | meets |\n|---:|---:|---:|---:|---:|---:|---|---|\n",
                   r.op.c_str(), r.competitor.c_str(), r.competitor.c_str());
    }
    const double gbps = r.bytes / (r.t.ours_us * 1e3);
    const bool mid = r.n >= (1 << 14) && r.n <= (1 << 22);
    const bool meets = r.t.ratio <= (mid ? 0.70 : 1.00);
    std::fprintf(out, "| %lld%s | %.2f | %.2f | %.1f | %.1f | %.3f | %s | %s |\n", (long long)r.n,
                 r.bytes <= prop.l2CacheSize ? " (L2)" : "", r.t.theirs_us, r.t.ours_us, gbps,
                 100.0 * gbps / peak, r.t.ratio, target(r.n), meets ? "yes" : "no");
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t largest = std::int64_t(1) << 28;
  Bench bench{};
  CHECK(cudaMalloc(&bench.x, largest * sizeof(float)));
  CHECK(cudaMalloc(&bench.y, largest * sizeof(float)));
  CHECK(cudaMalloc(&bench.xd, largest * sizeof(double)));
  CHECK(cudaMalloc(&bench.yd, largest * sizeof(double)));
  bench.temp_bytes = std::size_t(64) << 20;
  CHECK(cudaMalloc(&bench.temp, bench.temp_bytes));
  CHECK(cudaMalloc(&bench.out, 256));
  fill_uniform<<<2048, 256>>>(bench.x, largest, 1);
  fill_uniform<<<2048, 256>>>(bench.y, largest, 2);
  widen<<<2048, 256>>>(bench.x, bench.xd, largest);
  widen<<<2048, 256>>>(bench.y, bench.yd, largest);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cublasCreate(&bench.blas));
  CHECK(cublasSetPointerMode(bench.blas, CUBLAS_POINTER_MODE_DEVICE));
  for (int k = 10; k <= 28; k += 2) bench.run(std::int64_t(1) << k);
  write_table(bench, stdout);
  if (argc > 1) {
    FILE* f = std::fopen(argv[1], "w");
    if (!f) return 1;
    write_table(bench, f);
    std::fclose(f);
  }
  CHECK(cublasDestroy(bench.blas));
  return 0;
}
