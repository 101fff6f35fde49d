// Shared by the segmented tests: segment shapes (host offsets), the operations with their CUB
// references, and runners that poison outputs and temp storage and copy the results back.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <cub/device/device_segmented_reduce.cuh>

#include "gpu/common.cuh"
#include "gpureduce/segmented.cuh"

namespace gpureduce::testing {

// ---- Segment shapes -------------------------------------------------------------------------------

struct SegmentList {
  std::string name;
  std::vector<std::int64_t> begin, end;
  std::int64_t span = 0;  // items the input holds: every offset is at most this
  std::int64_t size() const { return std::int64_t(begin.size()); }
  std::int64_t items() const {
    std::int64_t total = 0;
    for (std::size_t i = 0; i < begin.size(); ++i) total += std::max<std::int64_t>(0, end[i] - begin[i]);
    return total;
  }
};

// Consecutive segments of the given lengths from offset 0.
inline SegmentList contiguous(std::string name, const std::vector<std::int64_t>& lengths) {
  SegmentList s{std::move(name), {}, {}, 0};
  for (std::int64_t length : lengths) {
    s.begin.push_back(s.span);
    s.span += length;
    s.end.push_back(s.span);
  }
  return s;
}

inline std::vector<std::int64_t> uniform_lengths(std::mt19937_64& rng, std::int64_t n,
                                                 std::int64_t lo, std::int64_t hi) {
  std::uniform_int_distribution<std::int64_t> pick(lo, hi);
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(n));
  for (auto& l : lengths) l = pick(rng);
  return lengths;
}

// Power-law (Zipf-like) lengths: P(length >= k) ~ 1/k, at most `largest`; about 1 in 1000 are
// empty (u rounds to a length of 0 there).
inline std::vector<std::int64_t> zipf_lengths(std::mt19937_64& rng, std::int64_t n,
                                              std::int64_t largest) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(n));
  for (auto& l : lengths) {
    const double x = u(rng);
    l = x < 0.001 ? 0 : std::min<std::int64_t>(largest, std::int64_t(1.0 / x));
  }
  return lengths;
}

// The same segments in a random order (offsets unsorted).
inline SegmentList shuffled(SegmentList s, std::mt19937_64& rng) {
  std::vector<std::size_t> order(s.begin.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::shuffle(order.begin(), order.end(), rng);
  SegmentList t{s.name + ", unsorted", {}, {}, s.span};
  for (std::size_t i : order) {
    t.begin.push_back(s.begin[i]);
    t.end.push_back(s.end[i]);
  }
  return t;
}

// Segments anywhere in [0, span), lengths up to `longest`: they overlap (CUB allows it).
inline SegmentList overlapping(std::mt19937_64& rng, std::int64_t n, std::int64_t span,
                               std::int64_t longest) {
  SegmentList s{"overlapping", {}, {}, span};
  std::uniform_int_distribution<std::int64_t> start(0, span), length(0, longest);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t b = start(rng);
    s.begin.push_back(b);
    s.end.push_back(std::min(span, b + length(rng)));
  }
  return s;
}

// Lengths around every class boundary of items of kItemBytes bytes (shape.cuh), each twice.
template <std::size_t kItemBytes>
std::vector<std::int64_t> boundary_lengths() {
  using S = detail::segmented::Shape<kItemBytes>;
  std::vector<std::int64_t> lengths{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65,
                                    127, 128, 129, 130};
  for (std::int64_t edge : {S::kWarpMaxItems, S::kChunkItems, 2 * S::kChunkItems})
    for (std::int64_t d : {-1, 0, 1}) lengths.push_back(edge + d);
  lengths.push_back(5 * S::kChunkItems + 17);
  std::vector<std::int64_t> twice = lengths;
  twice.insert(twice.end(), lengths.begin(), lengths.end());
  return twice;
}

// The shapes every typed test runs (moderate sizes: the large ones have tests of their own).
template <class In>
std::vector<SegmentList> standard_shapes(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<SegmentList> shapes;
  shapes.push_back(contiguous("all empty", std::vector<std::int64_t>(10000, 0)));
  shapes.push_back(contiguous("all size 1", std::vector<std::int64_t>(100000, 1)));
  shapes.push_back(contiguous("sizes 1-32", uniform_lengths(rng, 200000, 1, 32)));
  shapes.push_back(contiguous("sizes 256-4K", uniform_lengths(rng, 3000, 256, 4096)));
  // The boundaries are a few segments (the unit and fold kernels, few.cuh); five times over, the
  // general path (direct_kernel and the reduce kernel up to 2^17 segments; above, as in
  // "sizes 1-32", classify and the reduce kernel; the tests run each shape both ways).
  const std::vector<std::int64_t> boundaries = boundary_lengths<sizeof(In)>();
  shapes.push_back(contiguous("boundaries", boundaries));
  std::vector<std::int64_t> boundaries_x5;
  for (int k = 0; k < 5; ++k) boundaries_x5.insert(boundaries_x5.end(), boundaries.begin(), boundaries.end());
  static_assert(detail::segmented::kFewMaxSegments < 5 * 64, "boundaries x5: the general path");
  shapes.push_back(shuffled(contiguous("boundaries x5", boundaries_x5), rng));
  shapes.push_back(shuffled(contiguous("a few of every class", uniform_lengths(rng, 50, 0, 300000)), rng));
  shapes.push_back(overlapping(rng, 60, 1 << 20, 200000));
  shapes.push_back(contiguous("zipf", zipf_lengths(rng, 100000, std::int64_t(1) << 20)));
  shapes.push_back(shuffled(contiguous("sizes 0-300", uniform_lengths(rng, 50000, 0, 300)), rng));
  shapes.push_back(overlapping(rng, 20000, 1 << 20, 20000));
  shapes.push_back(shuffled(contiguous("mixed classes", uniform_lengths(rng, 400, 0, 200000)), rng));
  return shapes;
}

template <class T>
class DeviceSegments {
 public:
  explicit DeviceSegments(const SegmentList& s)
      : begin_(std::max<std::size_t>(1, s.begin.size())), end_(std::max<std::size_t>(1, s.end.size())) {
    if (!s.begin.empty()) {
      cudaMemcpy(begin_.get(), s.begin.data(), s.begin.size() * sizeof(T), cudaMemcpyHostToDevice);
      cudaMemcpy(end_.get(), s.end.data(), s.end.size() * sizeof(T), cudaMemcpyHostToDevice);
    }
  }
  const T* begin() const { return begin_.get(); }
  const T* end() const { return end_.get(); }
  bool ok() const { return begin_.ok() && end_.ok(); }

 private:
  DeviceBuffer<T> begin_, end_;
};

// ---- Operations and their CUB references ---------------------------------------------------------

enum class SegOp { sum, min, max, argmin, argmax };

template <class In_, class Out_, SegOp kOp>
struct SegCase {
  static constexpr bool kArg = kOp == SegOp::argmin || kOp == SegOp::argmax;
  using In = In_;
  using Out = std::conditional_t<kArg, IndexedValue<In_>, Out_>;
  using CubOut = std::conditional_t<kArg, cub::KeyValuePair<int, In_>, Out_>;
  static constexpr SegOp op = kOp;

  static cudaError_t ours(void* t, std::size_t& b, const In* in, Out* out, std::int64_t n,
                          const std::int64_t* bg, const std::int64_t* en, cudaStream_t s,
                          const Options& o) {
    using R = DeviceSegmentedReduce;
    if constexpr (kOp == SegOp::sum) return R::Sum(t, b, in, out, n, bg, en, s, o);
    else if constexpr (kOp == SegOp::min) return R::Min(t, b, in, out, n, bg, en, s, o);
    else if constexpr (kOp == SegOp::max) return R::Max(t, b, in, out, n, bg, en, s, o);
    else if constexpr (kOp == SegOp::argmin) return R::ArgMin(t, b, in, out, n, bg, en, s, o);
    else return R::ArgMax(t, b, in, out, n, bg, en, s, o);
  }
  static cudaError_t ours_fixed(void* t, std::size_t& b, const In* in, Out* out, std::int64_t n,
                                std::int64_t size, cudaStream_t s, const Options& o) {
    using R = DeviceSegmentedReduce;
    if constexpr (kOp == SegOp::sum) return R::FixedSizeSum(t, b, in, out, n, size, s, o);
    else if constexpr (kOp == SegOp::min) return R::FixedSizeMin(t, b, in, out, n, size, s, o);
    else if constexpr (kOp == SegOp::max) return R::FixedSizeMax(t, b, in, out, n, size, s, o);
    else if constexpr (kOp == SegOp::argmin) return R::FixedSizeArgMin(t, b, in, out, n, size, s, o);
    else return R::FixedSizeArgMax(t, b, in, out, n, size, s, o);
  }
  // cub::DeviceSegmentedReduce as a user calls it; 16-bit -> float sums through Reduce with
  // plus<float> (CUB 3.0.1's Sum does not compile for them).
  template <class Offsets>
  static cudaError_t cub(void* t, std::size_t& b, const In* in, CubOut* out, std::int64_t n,
                         Offsets bg, Offsets en, cudaStream_t s) {
    using R = ::cub::DeviceSegmentedReduce;
    if constexpr (kOp == SegOp::sum) {
      if constexpr (std::is_same_v<In, Out>) return R::Sum(t, b, in, out, n, bg, en, s);
      else return R::Reduce(t, b, in, out, n, bg, en, ::cuda::std::plus<Out>{}, Out{}, s);
    } else if constexpr (kOp == SegOp::min) {
      return R::Min(t, b, in, out, n, bg, en, s);
    } else if constexpr (kOp == SegOp::max) {
      return R::Max(t, b, in, out, n, bg, en, s);
    } else if constexpr (kOp == SegOp::argmin) {
      return R::ArgMin(t, b, in, out, n, bg, en, s);
    } else {
      return R::ArgMax(t, b, in, out, n, bg, en, s);
    }
  }
  static bool same(const Out& ours, const CubOut& theirs) {
    if constexpr (kArg) return ours.index == theirs.key && same_bits(ours.value, theirs.value);
    else return same_bits(ours, theirs);
  }
  static std::string show_out(const Out& v) {
    if constexpr (kArg) return "{" + std::to_string(v.index) + ", " + show(v.value) + "}";
    else return show(v);
  }
  static std::string show_cub(const CubOut& v) {
    if constexpr (kArg) return "{" + std::to_string(v.key) + ", " + show(v.value) + "}";
    else return show(v);
  }
  static std::string name() {
    static const char* names[] = {"Sum", "Min", "Max", "ArgMin", "ArgMax"};
    return std::string(names[int(kOp)]) + "<" + Case<In_, Out_, Op::sum>::template type_name<In_>() +
           (kOp == SegOp::sum ? std::string(",") + Case<In_, Out_, Op::sum>::template type_name<Out_>() : "") + ">";
  }
};

// ---- Runners --------------------------------------------------------------------------------------

// `segment_size` < 0: general offsets (begin, end); else fixed-size segments.
template <class C>
::testing::AssertionResult run_ours(const typename C::In* d_in, std::int64_t n,
                                    const std::int64_t* d_begin, const std::int64_t* d_end,
                                    std::int64_t segment_size, const Options& options,
                                    std::vector<typename C::Out>& result, cudaStream_t stream = nullptr) {
  using Out = typename C::Out;
  DeviceBuffer<Out> d_out(std::size_t(std::max<std::int64_t>(n, 1)));
  const auto call = [&](void* temp, std::size_t& bytes) {
    return segment_size < 0
               ? C::ours(temp, bytes, d_in, d_out.get(), n, d_begin, d_end, stream, options)
               : C::ours_fixed(temp, bytes, d_in, d_out.get(), n, segment_size, stream, options);
  };
  std::size_t bytes = 0;
  cudaError_t e = call(nullptr, bytes);
  if (e != cudaSuccess)
    return ::testing::AssertionFailure() << "size query: " << cudaGetErrorString(e) << " / " << last_error_message();
  DeviceBuffer<unsigned char> temp(bytes);
  if (!temp.ok() || !d_out.ok()) return ::testing::AssertionFailure() << "allocation failed";
  if ((e = cudaMemset(d_out.get(), kPoisonByte, d_out.size() * sizeof(Out))) != cudaSuccess ||
      (e = prepare_temp_storage(temp.get(), bytes, options.temp_storage_zeroed)) != cudaSuccess)
    return ::testing::AssertionFailure() << "poisoning: " << cudaGetErrorString(e);
  if ((e = call(temp.get(), bytes)) != cudaSuccess)
    return ::testing::AssertionFailure() << "run: " << cudaGetErrorString(e) << " / " << last_error_message();
  if ((e = cudaStreamSynchronize(stream)) != cudaSuccess)
    return ::testing::AssertionFailure() << "kernel: " << cudaGetErrorString(e);
  result.assign(std::size_t(n), poison_value<Out>());
  if (n > 0 && (e = cudaMemcpy(result.data(), d_out.get(), std::size_t(n) * sizeof(Out),
                               cudaMemcpyDeviceToHost)) != cudaSuccess)
    return ::testing::AssertionFailure() << "copy back: " << cudaGetErrorString(e);
  return ::testing::AssertionSuccess();
}

template <class C, class Offsets>
::testing::AssertionResult run_cub(const typename C::In* d_in, std::int64_t n, Offsets d_begin,
                                   Offsets d_end, std::vector<typename C::CubOut>& result) {
  using CubOut = typename C::CubOut;
  DeviceBuffer<CubOut> d_out(std::size_t(std::max<std::int64_t>(n, 1)));
  std::size_t bytes = 0;
  cudaError_t e = C::cub(nullptr, bytes, d_in, d_out.get(), n, d_begin, d_end, nullptr);
  DeviceBuffer<unsigned char> temp(std::max<std::size_t>(bytes, 1));
  if (e == cudaSuccess) e = C::cub(temp.get(), bytes, d_in, d_out.get(), n, d_begin, d_end, nullptr);
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  result.assign(std::size_t(n), poison_value<CubOut>());
  if (e == cudaSuccess && n > 0)
    e = cudaMemcpy(result.data(), d_out.get(), std::size_t(n) * sizeof(CubOut), cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) return ::testing::AssertionFailure() << "CUB: " << cudaGetErrorString(e);
  return ::testing::AssertionSuccess();
}

// Segment by segment, bitwise; the first few differences are reported.
template <class C>
::testing::AssertionResult same_as_cub(const std::vector<typename C::Out>& ours,
                                       const std::vector<typename C::CubOut>& cub,
                                       const SegmentList* segments = nullptr) {
  int reported = 0;
  std::int64_t wrong = 0;
  ::testing::AssertionResult result = ::testing::AssertionFailure();
  for (std::size_t i = 0; i < ours.size(); ++i) {
    if (C::same(ours[i], cub[i])) continue;
    ++wrong;
    if (reported++ < 5) {
      result << "\n  segment " << i;
      if (segments) result << " [" << segments->begin[i] << ", " << segments->end[i] << ")";
      result << ": ours " << C::show_out(ours[i]) << ", CUB " << C::show_cub(cub[i]);
    }
  }
  if (wrong == 0) return ::testing::AssertionSuccess();
  return result << "\n  " << wrong << " of " << ours.size() << " segments differ";
}

// Bitwise equal, field by field for {index, value} pairs (their padding bytes carry nothing: two
// paths may leave them different, seen on an H100 for ArgMax<float>).
template <class T>
bool same_fields(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}
template <class V>
bool same_fields(const IndexedValue<V>& a, const IndexedValue<V>& b) {
  return a.index == b.index && std::memcmp(&a.value, &b.value, sizeof(V)) == 0;
}

template <class T>
::testing::AssertionResult same_bits_all(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return ::testing::AssertionFailure() << "sizes differ";
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!same_fields(a[i], b[i])) return ::testing::AssertionFailure() << "segment " << i << " differs";
  return ::testing::AssertionSuccess();
}

inline std::string trace(const std::string& what, const SegmentList& s, std::uint64_t seed) {
  return what + " on " + s.name + " (" + std::to_string(s.size()) + " segments, " +
         std::to_string(s.items()) + " items) seed=" + std::to_string(seed);
}

// Whether `bytes` of device memory can be had with 1 GiB to spare.
inline bool memory_for(std::size_t bytes) {
  std::size_t free_bytes = 0, total_bytes = 0;
  return cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess &&
         free_bytes > bytes + (std::size_t(1) << 30);
}

}  // namespace gpureduce::testing
