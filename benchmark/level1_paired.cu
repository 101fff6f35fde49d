// gpureduce's level-1 calls against what users would call instead, one run, paired: ArgMin/ArgMax
// and TransformReduce against cub::DeviceReduce, Dot/Norm2/SumAbs/ArgMaxAbs against cuBLAS
// (device pointer mode, result left on the device, handle made outside the timing). Each
// iteration times one call of each between CUDA events on one stream, alternating which goes
// first, each started on an idle GPU (so each pays its host launch cost alike; when the second was
// enqueued behind the first, the ratios came in two modes, one per order) and, from half the L2 up,
// with the L2 flushed first (so the second does not read what the first left in L2); the table
// gives both medians and the median of the per-iteration ratios (gpureduce / competitor). Inputs: uniform floats in [-1, 1) made on the GPU, every n a prefix.
// Each iteration also times one launch of an empty kernel (floor_kernel.hpp, 1 block of 32 threads)
// the same way, after the pair, on the idle stream: the row's floor is its median plus the input
// bytes (x and y for Dot) at the theoretical DRAM bandwidth, as report.py's `floor µs`.
//   gpureduce_level1_paired OUT.md    (also prints the tables; writes OUT.csv beside OUT.md, the
//                                      rows for benchmark/level1_plot.py)
#include <cublas_v2.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <cub/device/device_reduce.cuh>

#include "device_info.hpp"
#include "floor_kernel.hpp"
#include "l2_flush.hpp"
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
  double empty_us;  // one launch of an empty kernel, timed alike in the same iterations
};

// Medians of A (ours) and B (theirs), of the per-iteration ratios (ABBA order, after warm-up) and
// of an empty launch timed after each pair, each call between its own events on the drained stream
// (host launch cost included).
Paired time_paired(const std::function<void()>& ours, const std::function<void()>& theirs,
                   gpureduce_bench::L2Flusher* flusher) {
  cudaEvent_t e[2];
  for (auto& ev : e) CHECK(cudaEventCreate(&ev));
  for (int i = 0; i < 5; ++i) { ours(); theirs(); }
  // One call between events, on an idle GPU (and a cold L2 where `flusher`), in microseconds.
  auto time_one = [&](const std::function<void()>& call) {
    if (flusher) flusher->flush(nullptr);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaEventRecord(e[0])); call(); CHECK(cudaEventRecord(e[1]));
    CHECK(cudaEventSynchronize(e[1]));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, e[0], e[1]));
    return 1e3 * ms;
  };
  const std::function<void()> empty = [] { CHECK(gpureduce_bench::launch_empty_kernel(nullptr)); };
  std::vector<double> a, b, r, f;
  double spent = 0;
  for (int it = 0; it < 2000 && (it < 30 || spent < 0.05); ++it) {
    const bool ours_first = it % 2 == 0;
    const double t1 = time_one(ours_first ? ours : theirs);
    const double t2 = time_one(ours_first ? theirs : ours);
    const double t3 = time_one(empty);
    const double ta = ours_first ? t1 : t2, tb = ours_first ? t2 : t1;
    a.push_back(ta); b.push_back(tb); r.push_back(ta / tb); f.push_back(t3);
    spent += ta * 1e-6;
  }
  for (auto& ev : e) CHECK(cudaEventDestroy(ev));
  auto median = [](std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; };
  return {median(a), median(b), median(r), median(f)};
}

struct Row {
  std::string op, competitor;
  std::int64_t n;
  double bytes;
  bool flushed;  // the L2 flushed before every call (from half the L2 up); else the input sits in L2
  Paired t;
  bool has_target = true;  // false: a correctly rounded row, the guarantee's price (no target)
};

// The issue's targets for gpureduce / competitor: 0.70 from 16K to 4M items, 1.00 elsewhere.
double target_ratio(std::int64_t n) { return n >= (1 << 14) && n <= (1 << 22) ? 0.70 : 1.00; }
const char* target(const Row& r) {
  const std::int64_t n = r.n;
  if (!r.has_target) return "none";
  if (n >= (std::int64_t(1) << 26)) return "<=1.00 (>=1x throughput)";
  return target_ratio(n) < 1.0 ? "<=0.70" : "<=1.00";
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
  gpureduce_bench::L2Flusher* flusher;  // used from half the L2 up (the library's streaming range)
  std::size_t l2_bytes;
  bool correctly_rounded;  // GPUREDUCE_LEVEL1_CORRECTLY_ROUNDED=1: only the correctly rounded rows
  std::vector<Row> rows;

  void add(const std::string& op, const std::string& competitor, std::int64_t n, double bytes,
           const std::function<void()>& ours, const std::function<void()>& theirs) {
    const bool streaming = bytes >= double(l2_bytes / 2);
    rows.push_back({op, competitor, n, bytes, streaming,
                    time_paired(ours, theirs, streaming ? flusher : nullptr), !correctly_rounded});
    const Row& r = rows.back();
    std::fprintf(stderr, "%s n=%lld ours %.2f us theirs %.2f us ratio %.3f empty launch %.2f us\n", op.c_str(),
                 (long long)n, r.t.ours_us, r.t.theirs_us, r.t.ratio, r.t.empty_us);
  }
  template <class Call>
  std::function<void()> ours(Call call) {
    return [this, call] {
      std::size_t bytes = temp_bytes;
      CHECK(call(temp, bytes));
    };
  }

  // Dot, SumSquares and SumAbs with Accuracy::correctly_rounded against cuBLAS's plain calls (no
  // sum of squares in cuBLAS: its nrm2): what the guarantee costs.
  void run_correctly_rounded(std::int64_t n) {
    auto* f = static_cast<float*>(out);
    gpureduce::Options cr;
    cr.accuracy = gpureduce::Accuracy::correctly_rounded;
    const double fb = double(n) * sizeof(float);
    add("Dot f32 correctly rounded", "cublasSdot", n, 2 * fb,
        ours([=](void* t, std::size_t& b) { return gpureduce::Blas1::Dot(t, b, x, y, f, n, nullptr, cr); }),
        [=] { CHECK(cublasSdot_64(blas, n, x, 1, y, 1, f + 1)); });
    add("SumSquares f32 correctly rounded", "cublasSnrm2", n, fb,
        ours([=](void* t, std::size_t& b) { return gpureduce::Blas1::SumSquares(t, b, x, f, n, nullptr, cr); }),
        [=] { CHECK(cublasSnrm2_64(blas, n, x, 1, f + 1)); });
    add("SumAbs f32 correctly rounded", "cublasSasum", n, fb,
        ours([=](void* t, std::size_t& b) { return gpureduce::Blas1::SumAbs(t, b, x, f, n, nullptr, cr); }),
        [=] { CHECK(cublasSasum_64(blas, n, x, 1, f + 1)); });
    auto* d = static_cast<double*>(out);
    const double db = double(n) * sizeof(double);
    add("Dot f64 correctly rounded", "cublasDdot", n, 2 * db,
        ours([=](void* t, std::size_t& b) { return gpureduce::Blas1::Dot(t, b, xd, yd, d, n, nullptr, cr); }),
        [=] { CHECK(cublasDdot_64(blas, n, xd, 1, yd, 1, d + 1)); });
    add("SumSquares f64 correctly rounded", "cublasDnrm2", n, db,
        ours([=](void* t, std::size_t& b) { return gpureduce::Blas1::SumSquares(t, b, xd, d, n, nullptr, cr); }),
        [=] { CHECK(cublasDnrm2_64(blas, n, xd, 1, d + 1)); });
  }

  void run(std::int64_t n) {
    if (correctly_rounded) return run_correctly_rounded(n);
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

// A row's numbers, as the Markdown and the CSV show them. floor: the empty launch plus the input
// read once at the theoretical DRAM bandwidth (report.py's floor; the launch alone where the
// device does not report its bandwidth), the least any one-launch call reading DRAM can take in
// this harness: a target ratio below floor / competitor is out of reach where the L2 is flushed.
// An input left in L2 may be read faster than DRAM, so there the floor excludes nothing.
struct Derived {
  double gbps, pct_peak, floor_us, floor_ratio;
  bool meets, floor_allows;
};
const char* reachable_text(const Row& r, const Derived& d) {
  if (!r.has_target) return "-";
  if (d.floor_allows) return "yes";
  return r.flushed ? "no" : "not excluded (in L2)";
}
Derived derive(const Row& r, double peak_bytes_per_second) {
  const bool peak_known = peak_bytes_per_second > 0;
  Derived d{};
  d.gbps = r.bytes / (r.t.ours_us * 1e3);
  d.pct_peak = peak_known ? 100.0 * d.gbps * 1e9 / peak_bytes_per_second : 0.0;
  d.floor_us = r.t.empty_us + (peak_known ? r.bytes / peak_bytes_per_second * 1e6 : 0.0);
  d.floor_ratio = d.floor_us / r.t.theirs_us;
  d.meets = r.has_target && r.t.ratio <= target_ratio(r.n);
  d.floor_allows = d.floor_ratio <= target_ratio(r.n);
  return d;
}

// The ops in the order they were first measured.
std::vector<std::string> ops_in_order(const Bench& bench) {
  std::vector<std::string> ops;
  for (const Row& r : bench.rows)
    if (std::find(ops.begin(), ops.end(), r.op) == ops.end()) ops.push_back(r.op);
  return ops;
}

// One table per op, a row per size.
void write_table(const Bench& bench, const gpureduce_bench::DeviceInfo& device, FILE* out) {
  std::fprintf(out, "# Level-1 reductions against CUB and cuBLAS: %s\n\n", device.name.c_str());
  std::fprintf(out, "%s, theoretical bandwidth %s, L2 %zu MiB. Paired: one call of each between CUDA "
               "events per iteration, each on an idle GPU, ABBA, median of >= 30 iterations; ratio = median of "
               "per-iteration gpureduce / competitor. (L2): the input is below half the L2 and is not flushed; "
               "from half the L2 up the L2 is flushed before every call (a kernel reads a buffer of twice the "
               "L2, so no dirty lines are left to write back). floor µs: one launch of an empty "
               "kernel (1 block of 32 threads), timed the same way after each pair (median), plus the "
               "input bytes (x and y for Dot) at the theoretical DRAM bandwidth; where the L2 is flushed "
               "a target ratio below floor / competitor is unreachable in this harness (target reachable: "
               "no); an (L2) input may be read faster than DRAM, so there the floor excludes nothing "
               "(not excluded).\n",
               device.versions_text().c_str(), device.peak_text().c_str(), device.l2_bytes >> 20);
  for (const std::string& op : ops_in_order(bench)) {
    bool header = false;
    for (const Row& r : bench.rows) {
      if (r.op != op) continue;
      if (!header) {
        std::fprintf(out, "\n### %s vs %s\n\n| n | %s µs | gpureduce µs | GB/s | %% of peak | ratio | floor µs | "
                     "floor / competitor | target | meets | target reachable |\n"
                     "|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|\n",
                     r.op.c_str(), r.competitor.c_str(), r.competitor.c_str());
        header = true;
      }
      const Derived d = derive(r, device.peak_bytes_per_second);
      std::fprintf(out, "| %lld%s | %.2f | %.2f | %.1f | %.1f | %.3f | %.2f | %.3f | %s | %s | %s |\n",
                   (long long)r.n, r.flushed ? "" : " (L2)", r.t.theirs_us, r.t.ours_us, d.gbps,
                   d.pct_peak, r.t.ratio, d.floor_us, d.floor_ratio, target(r),
                   !r.has_target ? "-" : d.meets ? "yes" : "no",
                   reachable_text(r, d));
    }
  }
}

// The same rows, flat, for benchmark/level1_plot.py.
void write_csv(const Bench& bench, const gpureduce_bench::DeviceInfo& device, FILE* out) {
  std::fprintf(out, "op,competitor,n,competitor_us,gpureduce_us,gbps,pct_peak,ratio,floor_us\n");
  for (const Row& r : bench.rows) {
    const Derived d = derive(r, device.peak_bytes_per_second);
    std::fprintf(out, "%s,%s,%lld,%.3f,%.3f,%.2f,%.2f,%.4f,%.3f\n", r.op.c_str(), r.competitor.c_str(),
                 (long long)r.n, r.t.theirs_us, r.t.ours_us, d.gbps, d.pct_peak, r.t.ratio, d.floor_us);
  }
}

// OUT.md -> OUT.csv (OUT -> OUT.csv).
std::string csv_path(const std::string& markdown) {
  const std::string md = ".md";
  const bool has_md = markdown.size() > md.size() && markdown.compare(markdown.size() - md.size(), md.size(), md) == 0;
  return (has_md ? markdown.substr(0, markdown.size() - md.size()) : markdown) + ".csv";
}

bool write_file(const std::string& path, void (*write)(const Bench&, const gpureduce_bench::DeviceInfo&, FILE*),
                const Bench& bench, const gpureduce_bench::DeviceInfo& device) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    return false;
  }
  write(bench, device, f);
  return std::fclose(f) == 0;
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
  const gpureduce_bench::DeviceInfo device = gpureduce_bench::query_device();
  gpureduce_bench::L2Flusher flusher(device.l2_bytes);
  bench.flusher = &flusher;
  bench.l2_bytes = device.l2_bytes;
  const char* only_correctly_rounded = std::getenv("GPUREDUCE_LEVEL1_CORRECTLY_ROUNDED");
  bench.correctly_rounded = only_correctly_rounded != nullptr && std::string(only_correctly_rounded) == "1";
  for (int k = 10; k <= 28; k += 2) bench.run(std::int64_t(1) << k);
  write_table(bench, device, stdout);
  if (argc > 1 && !(write_file(argv[1], write_table, bench, device) &&
                    write_file(csv_path(argv[1]), write_csv, bench, device)))
    return 1;
  CHECK(cublasDestroy(bench.blas));
  return 0;
}
