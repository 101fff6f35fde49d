// DeviceSegmentedReduce::Sum (float) against cub::DeviceSegmentedReduce::Sum of the toolkit's CCCL,
// one run, paired: each iteration times one call of each between CUDA events on one stream,
// alternating which goes first (ABBA); a row gives both medians and the median of the per-iteration
// ratios (gpureduce / CUB: below 1 is faster). Shapes: the issue's (all empty, all size 1, sizes
// 1-32, 256-4K, a few of 10M+, power-law sizes, one huge segment among a million tiny ones,
// unsorted and overlapping offsets, 2^24 segments), then a sweep of segment sizes 2^0..2^24 over
// 2^26 items, with offset arrays and as fixed-size segments (CUB given offsets from a counting
// iterator), the few huge segments against one device-wide reduction of the same bytes, and Min
// and ArgMin against cub::DeviceSegmentedReduce::Min and ::ArgMin on a few shapes.
// GB/s counts the bytes a call must move: items, offsets (16 bytes a segment; none for fixed
// size) and outputs (4 bytes a segment, ArgMin's too). Inputs: k * 2^-24, k uniform in [-2^24, 2^24] \ {0}, made on the GPU (inputs.hpp).
//   gpureduce_segmented_paired OUT.md   (also prints the tables; writes OUT.csv beside OUT.md,
//                                       the rows for benchmark/segmented_plot.py)
// With GPUREDUCE_SEGMENTED_QUICK=1 in the environment, about 35 rows (Sum, Min, ArgMin), for
// comparing builds. Last, correctly rounded sums (Accuracy::correctly_rounded) against CUB's plain
// Sum; GPUREDUCE_SEGMENTED_CORRECTLY_ROUNDED=1 runs those rows alone.
#include <algorithm>
#include <iterator>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <cub/device/device_reduce.cuh>
#include <cub/util_type.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "cuda_check.hpp"
#include "device_info.hpp"
#include "inputs.hpp"
#include "segment_lengths.hpp"
#include "gpureduce/detail/segmented/state.cuh"
#include "gpureduce/segmented.hpp"

namespace {

#define CHECK(call) BENCH_CUDA_CHECK(call)  // CUDA's calls and CUB's
#define CHECK_OURS(call) BENCH_GPUREDUCE_CHECK(call)

struct Timing {
  double ours_us, theirs_us, ratio;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// ABBA after warm-up: at least 20 pairs, then until ours has run 0.1 s or 1000 pairs.
Timing time_paired(const std::function<void()>& ours, const std::function<void()>& theirs) {
  cudaEvent_t e[4];
  for (auto& ev : e) CHECK(cudaEventCreate(&ev));
  for (int i = 0; i < 3; ++i) { ours(); theirs(); }
  CHECK(cudaDeviceSynchronize());
  std::vector<double> a, b, r;
  double spent = 0;
  for (int it = 0; it < 1000 && (it < 20 || spent < 0.1); ++it) {
    const bool ours_first = it % 2 == 0;
    CHECK(cudaEventRecord(e[0]));
    (ours_first ? ours : theirs)();
    CHECK(cudaEventRecord(e[1]));
    (ours_first ? theirs : ours)();
    CHECK(cudaEventRecord(e[2]));
    CHECK(cudaEventSynchronize(e[2]));
    float t1 = 0, t2 = 0;
    CHECK(cudaEventElapsedTime(&t1, e[0], e[1]));
    CHECK(cudaEventElapsedTime(&t2, e[1], e[2]));
    const double ta = 1e3 * (ours_first ? t1 : t2), tb = 1e3 * (ours_first ? t2 : t1);
    a.push_back(ta), b.push_back(tb), r.push_back(ta / tb);
    spent += ta * 1e-6;
  }
  for (auto& ev : e) CHECK(cudaEventDestroy(ev));
  return {median(a), median(b), median(r)};
}

// ---- Shapes ------------------------------------------------------------------------------------------

struct Shape {
  std::string name;
  std::vector<std::int64_t> begin, end;
  std::int64_t span = 0;
  std::int64_t fixed_size = -1;  // >= 0: fixed-size segments, no offsets
  double target = 1.0;           // the issue's ratio to meet (gpureduce / CUB time)
  std::int64_t segments() const {
    return fixed_size >= 0 ? span / std::max<std::int64_t>(fixed_size, 1) : std::int64_t(begin.size());
  }
  std::int64_t items() const {
    if (fixed_size >= 0) return segments() * fixed_size;
    std::int64_t total = 0;
    for (std::size_t i = 0; i < begin.size(); ++i) total += end[i] - begin[i];
    return total;
  }
  double bytes() const {
    return double(items()) * 4 + double(segments()) * (fixed_size >= 0 ? 4 : 20);
  }
};

Shape contiguous(std::string name, const std::vector<std::int64_t>& lengths, double target = 1.0) {
  Shape s{std::move(name), {}, {}, 0, -1, target};
  for (std::int64_t l : lengths) {
    s.begin.push_back(s.span);
    s.span += l;
    s.end.push_back(s.span);
  }
  return s;
}

std::vector<std::int64_t> uniform(std::mt19937_64& rng, std::int64_t n, std::int64_t lo, std::int64_t hi) {
  std::uniform_int_distribution<std::int64_t> pick(lo, hi);
  std::vector<std::int64_t> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = pick(rng);
  return v;
}

Shape unsorted(Shape s, std::mt19937_64& rng) {
  std::vector<std::size_t> order(s.begin.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::shuffle(order.begin(), order.end(), rng);
  Shape t = s;
  t.name += ", unsorted";
  for (std::size_t i = 0; i < order.size(); ++i) t.begin[i] = s.begin[order[i]], t.end[i] = s.end[order[i]];
  return t;
}

bool starts_with(const std::string& name, const char* prefix) { return name.rfind(prefix, 0) == 0; }

// The sweep's offsets shape: 2^26 items in segments of 2^k.
Shape sweep_offsets(int k) {
  const std::int64_t size = std::int64_t(1) << k, n = (std::int64_t(1) << 26) / size;
  return contiguous("2^" + std::to_string(k) + " items", std::vector<std::int64_t>(std::size_t(n), size),
                    k <= 5 ? 0.5 : 1.0);
}

std::vector<Shape> issue_shapes(std::mt19937_64& rng) {
  std::vector<Shape> shapes;
  const std::int64_t million = 1 << 20;
  shapes.push_back(contiguous("all empty (1M)", std::vector<std::int64_t>(million, 0)));
  shapes.push_back(contiguous("all size 1 (1M)", std::vector<std::int64_t>(million, 1)));
  shapes.push_back(contiguous("sizes 1-32 (1M)", uniform(rng, million, 1, 32), 0.5));
  shapes.push_back(unsorted(contiguous("sizes 1-32 (1M)", uniform(rng, million, 1, 32), 0.5), rng));
  shapes.push_back(contiguous("sizes 256-4K (64K)", uniform(rng, 65536, 256, 4096)));
  shapes.push_back(contiguous("a few of 10M+ (4 x 16M)", std::vector<std::int64_t>(4, 1 << 24)));
  shapes.push_back(contiguous("power law (1M, up to 2^24)", gpureduce_bench::power_law_lengths(rng, million, 1 << 24), 0.5));
  std::vector<std::int64_t> tiny = uniform(rng, million, 1, 32);
  tiny[std::size_t(rng() % tiny.size())] = 1 << 24;
  shapes.push_back(contiguous("one 16M among 1M tiny", tiny));
  Shape overlapping{"overlapping (1M, 0-64 items, in 16M)", {}, {}, 1 << 24, -1, 1.0};
  std::uniform_int_distribution<std::int64_t> start(0, (1 << 24) - 64), length(0, 64);
  for (std::int64_t i = 0; i < million; ++i) {
    overlapping.begin.push_back(start(rng));
    overlapping.end.push_back(overlapping.begin.back() + length(rng));
  }
  shapes.push_back(overlapping);
  shapes.push_back(contiguous("2^24 segments of 1-32", uniform(rng, std::int64_t(1) << 24, 1, 32), 0.5));
  // Tiny segments at the direct kernel's limit (a warp a segment: docs/tuning.md, 'Direct warps').
  shapes.push_back(contiguous("sizes 1-32 (128K)", uniform(rng, std::int64_t(1) << 17, 1, 32), 0.5));
  // A mix of every class between the direct kernel's limit and the power law's million.
  shapes.push_back(contiguous("power law (256K, up to 2^22)", gpureduce_bench::power_law_lengths(rng, 1 << 18, 1 << 22), 0.5));
  return shapes;
}

// ---- Runs ----------------------------------------------------------------------------------------------

struct Row {
  std::string table, shape;
  std::int64_t segments, segment_size, items;  // segment_size: the sweep's, else 0
  double bytes, target;
  Timing t;
  std::string competitor;
};

struct TimesSize {
  std::int64_t size;
  __host__ __device__ std::int64_t operator()(std::int64_t i) const { return i * size; }
};

// correctly_rounded: our Sum with Accuracy::correctly_rounded against CUB's plain Sum.
enum class Reduction { sum, min, argmin, correctly_rounded };

struct Bench {
  float* input = nullptr;
  float* out = nullptr;
  void* arg_out = nullptr;  // ArgMin's outputs, ours (16 bytes a segment) and CUB's (8 bytes)
  std::size_t arg_capacity = 0;
  std::int64_t* begin = nullptr;
  std::int64_t* end = nullptr;
  void* temp = nullptr;
  std::size_t temp_capacity = 0;
  void* cub_temp = nullptr;
  std::size_t cub_capacity = 0;
  std::vector<Row> rows;

  void* temp_for(std::size_t bytes, void*& buffer, std::size_t& capacity) {
    if (bytes > capacity) {
      CHECK(cudaFree(buffer));
      CHECK(cudaMalloc(&buffer, bytes));
      capacity = bytes;
    }
    return buffer;
  }

  // Ours and CUB on one shape (offsets uploaded already, or fixed size).
  void pair(const std::string& table, const Shape& s, std::int64_t sweep_size,
            Reduction reduction = Reduction::sum) {
    using R = gpureduce::DeviceSegmentedReduce;
    const std::int64_t n = s.segments(), size = s.fixed_size;
    float* const in = input;  // the lambdas copy what they use, never the shape's offsets
    float* const sums = out;
    const std::int64_t* const offsets_begin = begin;
    const std::int64_t* const offsets_end = end;
    std::size_t bytes = 0, cub_bytes = 0;
    const auto counting_begin =
        thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), TimesSize{size});
    const auto counting_end =
        thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(1), TimesSize{size});
    std::function<cudaError_t(void*, std::size_t&)> ours, theirs;
    if (size >= 0 && reduction == Reduction::argmin) {
      auto* const pairs = static_cast<gpureduce::IndexedValue<float>*>(
          temp_for(std::size_t(n) * 24, arg_out, arg_capacity));
      auto* const cub_pairs = reinterpret_cast<cub::KeyValuePair<int, float>*>(pairs + n);
      ours = [=](void* t, std::size_t& b) { return R::FixedSizeArgMin(t, b, in, pairs, n, size); };
      theirs = [=](void* t, std::size_t& b) {
        return cub::DeviceSegmentedReduce::ArgMin(t, b, in, cub_pairs, n, counting_begin, counting_end);
      };
    } else if (size >= 0 && reduction == Reduction::min) {
      ours = [=](void* t, std::size_t& b) { return R::FixedSizeMin(t, b, in, sums, n, size); };
      theirs = [=](void* t, std::size_t& b) {
        return cub::DeviceSegmentedReduce::Min(t, b, in, sums, n, counting_begin, counting_end);
      };
    } else if (size >= 0) {
      gpureduce::Options o;
      if (reduction == Reduction::correctly_rounded) o.accuracy = gpureduce::Accuracy::correctly_rounded;
      ours = [=](void* t, std::size_t& b) {
        return R::FixedSizeSum(t, b, in, sums, n, size, nullptr, o);
      };
      theirs = [=](void* t, std::size_t& b) {
        return cub::DeviceSegmentedReduce::Sum(t, b, in, sums, n, counting_begin, counting_end);
      };
    } else if (reduction == Reduction::argmin) {
      auto* const pairs = static_cast<gpureduce::IndexedValue<float>*>(
          temp_for(std::size_t(n) * 24, arg_out, arg_capacity));
      auto* const cub_pairs = reinterpret_cast<cub::KeyValuePair<int, float>*>(pairs + n);
      ours = [=](void* t, std::size_t& b) {
        return R::ArgMin(t, b, in, pairs, n, offsets_begin, offsets_end);
      };
      theirs = [=](void* t, std::size_t& b) {
        return cub::DeviceSegmentedReduce::ArgMin(t, b, in, cub_pairs, n, offsets_begin, offsets_end);
      };
    } else if (reduction == Reduction::min) {
      ours = [=](void* t, std::size_t& b) {
        return R::Min(t, b, in, sums, n, offsets_begin, offsets_end);
      };
      theirs = [=](void* t, std::size_t& b) {
        return cub::DeviceSegmentedReduce::Min(t, b, in, sums, n, offsets_begin, offsets_end);
      };
    } else {
      gpureduce::Options o;
      if (reduction == Reduction::correctly_rounded) o.accuracy = gpureduce::Accuracy::correctly_rounded;
      ours = [=](void* t, std::size_t& b) {
        return R::Sum(t, b, in, sums, n, offsets_begin, offsets_end, nullptr, o);
      };
      theirs = [=](void* t, std::size_t& b) {
        return cub::DeviceSegmentedReduce::Sum(t, b, in, sums, n, offsets_begin, offsets_end);
      };
    }
    CHECK_OURS(ours(nullptr, bytes));
    CHECK(theirs(nullptr, cub_bytes));
    void* t = temp_for(bytes, temp, temp_capacity);
    void* ct = temp_for(cub_bytes, cub_temp, cub_capacity);
    const Timing timing = time_paired([&] { std::size_t b = bytes; CHECK_OURS(ours(t, b)); },
                                      [&] { std::size_t b = cub_bytes; CHECK(theirs(ct, b)); });
    // The issue sets no ratio for correctly rounded sums against CUB's plain ones: target 0.
    add({table, s.name, n, sweep_size, s.items(), s.bytes(),
         reduction == Reduction::correctly_rounded ? 0.0 : s.target, timing,
         s.fixed_size >= 0 ? "CUB, counting-iterator offsets" : competitor_name(reduction)});
  }

  static const char* competitor_name(Reduction reduction) {
    switch (reduction) {
      case Reduction::min: return "cub::DeviceSegmentedReduce::Min";
      case Reduction::argmin: return "cub::DeviceSegmentedReduce::ArgMin";
      default: return "cub::DeviceSegmentedReduce::Sum";
    }
  }

  // The few huge segments against one device-wide reduction of the same items (CUB's).
  void against_device_wide(const Shape& s) {
    using R = gpureduce::DeviceSegmentedReduce;
    const std::int64_t n = s.segments(), items = s.items();
    std::size_t bytes = 0, cub_bytes = 0;
    CHECK_OURS(R::Sum(nullptr, bytes, input, out, n, begin, end));
    CHECK(cub::DeviceReduce::Sum(nullptr, cub_bytes, input, out + n, items));
    void* t = temp_for(bytes, temp, temp_capacity);
    void* ct = temp_for(cub_bytes, cub_temp, cub_capacity);
    const Timing timing = time_paired(
        [&] { std::size_t b = bytes; CHECK_OURS(R::Sum(t, b, input, out, n, begin, end)); },
        [&] { std::size_t b = cub_bytes; CHECK(cub::DeviceReduce::Sum(ct, b, input, out + n, items)); });
    add({"huge", s.name, n, 0, items, double(items) * 4, 1.05, timing,
         "cub::DeviceReduce::Sum of the same items"});
  }

  void add(const Row& r) {
    rows.push_back(r);
    std::fprintf(stderr, "%s | %s: ours %.2f us, %s %.2f us, ratio %.3f\n", r.table.c_str(),
                 r.shape.c_str(), r.t.ours_us, r.competitor.c_str(), r.t.theirs_us, r.t.ratio);
  }

  void upload(const Shape& s) {
    if (s.fixed_size >= 0) return;
    CHECK(cudaMemcpy(begin, s.begin.data(), s.begin.size() * 8, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(end, s.end.data(), s.end.size() * 8, cudaMemcpyHostToDevice));
  }
};

// ---- Report --------------------------------------------------------------------------------------------

void write_markdown(const std::vector<Row>& rows, const gpureduce_bench::DeviceInfo& device, FILE* f) {
  std::fprintf(f, "# Segmented reductions against CUB: %s\n\n%s, theoretical bandwidth %s. Float sums; "
               "paired: one call of each between CUDA events per iteration, ABBA, median of >= 20 "
               "iterations; ratio = median of per-iteration gpureduce / competitor (below 1: faster). "
               "GB/s: items, offsets (16 B a segment, none for fixed size) and outputs over "
               "gpureduce's time.\n",
               device.name.c_str(), device.versions_text().c_str(), device.peak_text().c_str());
  std::string table;
  for (const Row& r : rows) {
    if (r.table != table) {
      table = r.table;
      std::fprintf(f, "\n### %s\n\n| shape | segments | items | competitor | competitor µs | gpureduce µs "
                   "| GB/s | ratio | target | meets |\n|---|---:|---:|---|---:|---:|---:|---:|---:|---|\n",
                   table.c_str());
    }
    const double gbps = r.bytes / (r.t.ours_us * 1e3);
    char target[32] = "none";
    if (r.target > 0) std::snprintf(target, sizeof(target), "<= %.2f", r.target);
    std::fprintf(f, "| %s | %lld | %lld | %s | %.2f | %.2f | %.1f | %.3f | %s | %s |\n",
                 r.shape.c_str(), (long long)r.segments, (long long)r.items, r.competitor.c_str(),
                 r.t.theirs_us, r.t.ours_us, gbps, r.t.ratio, target,
                 r.target <= 0 ? "-" : r.t.ratio <= r.target ? "yes" : "no");
  }
}

void write_csv(const std::vector<Row>& rows, FILE* f) {
  std::fprintf(f, "table,shape,segments,segment_size,items,bytes,gpureduce_us,competitor_us,ratio,target\n");
  for (const Row& r : rows)
    std::fprintf(f, "\"%s\",\"%s\",%lld,%lld,%lld,%.0f,%.3f,%.3f,%.4f,%.2f\n", r.table.c_str(),
                 r.shape.c_str(), (long long)r.segments, (long long)r.segment_size,
                 (long long)r.items, r.bytes, r.t.ours_us, r.t.theirs_us, r.t.ratio, r.target);
}

std::string csv_path(const std::string& markdown) {
  const std::string md = ".md";
  const bool has_md = markdown.size() > md.size() && markdown.compare(markdown.size() - md.size(), md.size(), md) == 0;
  return (has_md ? markdown.substr(0, markdown.size() - md.size()) : markdown) + ".csv";
}

int run(int argc, char** argv) {
  std::string why;
  if (gpureduce_bench::cuda_device_count(why) == 0) {
    std::fprintf(stderr, "gpureduce_segmented_paired: no CUDA GPU found (%s)\n", why.c_str());
    return 1;
  }
  const gpureduce_bench::DeviceInfo device = gpureduce_bench::query_device();
  std::mt19937_64 rng(20261125);
  const std::vector<Shape> shapes = issue_shapes(rng);
  std::int64_t span = std::int64_t(1) << 26, segments = span;  // the sweep's 2^26 segments of 1
  for (const Shape& s : shapes) span = std::max(span, s.span), segments = std::max(segments, s.segments());
  Bench bench;
  CHECK(cudaMalloc(&bench.input, std::size_t(span) * sizeof(float)));
  CHECK(cudaMalloc(&bench.out, std::size_t(segments + 1) * sizeof(float)));
  CHECK(cudaMalloc(&bench.begin, std::size_t(segments) * 8));
  CHECK(cudaMalloc(&bench.end, std::size_t(segments) * 8));
  gpureduce_bench::fill_random(bench.input, span, 1, gpureduce_bench::ValueMode::fine_grained);
  CHECK(cudaDeviceSynchronize());
  // GPUREDUCE_SEGMENTED_QUICK=1: a few rows for comparing builds (the mix, the huge ones, sweep
  // points per class, with offsets and fixed size).
  const bool quick = std::getenv("GPUREDUCE_SEGMENTED_QUICK") != nullptr;
  // GPUREDUCE_SEGMENTED_DIRECT_LIMIT=N: the library's direct_segments_limit (state.cuh) for this
  // run, to set direct_kernel beside classify in one binary (docs/tuning.md, 'Direct warps').
  if (const char* limit = std::getenv("GPUREDUCE_SEGMENTED_DIRECT_LIMIT"))
    gpureduce::detail::segmented::direct_segments_limit = std::atoll(limit);
  const auto in_quick = [](const std::string& name) {
    return starts_with(name, "sizes 256-4K") || starts_with(name, "a few of 10M+") ||
           starts_with(name, "power law") || starts_with(name, "sizes 1-32 (128K)");
  };
  // GPUREDUCE_SEGMENTED_CORRECTLY_ROUNDED=1: the correctly rounded rows alone.
  const bool rounded_only = std::getenv("GPUREDUCE_SEGMENTED_CORRECTLY_ROUNDED") != nullptr;
  for (const Shape& s : shapes) {
    if (rounded_only || (quick && !in_quick(s.name))) continue;
    bench.upload(s);
    bench.pair("The issue's shapes", s, 0);
    if (starts_with(s.name, "a few of 10M+")) bench.against_device_wide(s);
  }
  // GB/s against segment size: 2^26 items, offsets and fixed size.
  // The quick rows' sweep points: one or two a class and the split class's chunk counts, with
  // offsets; fixed size, a point a class and the huge ones.
  constexpr int kQuickSweep[] = {6, 7, 8, 10, 11, 12, 13, 15, 16, 17, 18, 19, 20, 22, 24};
  constexpr int kQuickFixed[] = {8, 10, 12, 13, 15, 16, 17, 20, 24};
  const auto in = [](const auto& list, int k) {
    return std::find(std::begin(list), std::end(list), k) != std::end(list);
  };
  for (int k = 0; k <= 24 && !rounded_only; ++k) {
    const Shape offsets = sweep_offsets(k);
    const std::int64_t size = std::int64_t(1) << k, n = offsets.segments();
    if (!quick || in(kQuickSweep, k)) {
      bench.upload(offsets);
      bench.pair("Segment size sweep, offset arrays", offsets, size);
    }
    if (quick && !in(kQuickFixed, k)) continue;
    Shape fixed{offsets.name, {}, {}, n * size, size, offsets.target};
    bench.pair("Segment size sweep, fixed size", fixed, size);
  }
  // Min and ArgMin over a few shapes: the kernel's other operators share its registers. In the
  // quick rows too, since a change of the kernel's registers moves them most (docs/tuning.md,
  // 'Segmented registers').
  for (const Reduction reduction : {Reduction::min, Reduction::argmin}) {
    if (rounded_only) break;
    const std::string table = reduction == Reduction::min ? "Min, float" : "ArgMin, float";
    for (const Shape& s : shapes) {
      if (!(starts_with(s.name, "sizes 256-4K") || starts_with(s.name, "a few of 10M+"))) continue;
      bench.upload(s);
      bench.pair(table, s, 0, reduction);
    }
    for (int k : {8, 12, 16, 17}) {  // 2^16 and 2^17: whole segments of 2 and 4 chunks
      const Shape offsets = sweep_offsets(k);
      bench.upload(offsets);
      bench.pair(table, offsets, std::int64_t(1) << k, reduction);
    }
    for (int k : {16, 17}) {  // fixed size: a block a segment (fixed_whole_kernel)
      const Shape offsets = sweep_offsets(k);
      const std::int64_t size = std::int64_t(1) << k;
      Shape fixed{offsets.name + ", fixed size", {}, {}, offsets.segments() * size, size, offsets.target};
      bench.pair(table, fixed, size, reduction);
    }
  }
  // Correctly rounded float sums (each segment's exact sum rounded once) against CUB's plain
  // segmented Sum: the issue's shapes and a few segment sizes, offsets and fixed size.
  for (const Shape& s : shapes) {
    if (!rounded_only && quick && !in_quick(s.name)) continue;
    bench.upload(s);
    bench.pair("Correctly rounded Sum, float", s, 0, Reduction::correctly_rounded);
  }
  for (int k : {0, 4, 8, 10, 12, 13, 16, 18, 20, 24}) {
    const Shape offsets = sweep_offsets(k);
    const std::int64_t size = std::int64_t(1) << k, n = offsets.segments();
    bench.upload(offsets);
    bench.pair("Correctly rounded Sum, float", offsets, size, Reduction::correctly_rounded);
    Shape fixed{offsets.name + ", fixed size", {}, {}, n * size, size, offsets.target};
    bench.pair("Correctly rounded Sum, float", fixed, size, Reduction::correctly_rounded);
  }
  write_markdown(bench.rows, device, stdout);
  if (argc > 1) {
    FILE* md = std::fopen(argv[1], "w");
    FILE* csv = std::fopen(csv_path(argv[1]).c_str(), "w");
    if (!md || !csv) return 1;
    write_markdown(bench.rows, device, md);
    write_csv(bench.rows, csv);
    std::fclose(md);
    std::fclose(csv);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const gpureduce_bench::CudaFailure& failure) {
    std::fprintf(stderr, "gpureduce_segmented_paired: %s\n", failure.what());
    return 1;
  }
}
