// DeviceSegmentedReduce::Sum and FixedSizeSum with Accuracy::correctly_rounded against MPFR
// (test/common/mpfr_oracle.hpp), segment by segment, bitwise:
//   - every shipped pair, every input shape of the correctly rounded issue (each segment its own
//     hard input), lengths around the warp window (4096 items), the one-block window (16 KiB) and
//     the split chunk (64 KiB), contiguous (so starts of every alignment), then the same
//     segments in shuffled order; the warp window's edge (span W and W + 1);
//   - a few huge segments (split across blocks) and a million tiny ones;
//   - the bits do not depend on the grid (1, 3, 7 blocks), on how many split segments got a slot
//     (the rest run whole on one block, in pieces past the most a block sums at once), or on
//     zeroed storage, which stays zero;
//   - fixed-size segments give the offsets call's bits;
//   - an end below its begin writes nothing.
#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "common/exact_inputs.hpp"
#include "common/mpfr_oracle.hpp"
#include "gpu/segmented_common.cuh"
#include "gpu/correctly_rounded_common.cuh"
#include "gpureduce/detail/exact/exact_sum.hpp"
#include "gpureduce/detail/exact/segmented_sum.cuh"  // its test hook, segmented_piece_items

namespace gpureduce::testing {
namespace {

// The split chunk of segmented_sum.cuh, restated: 64 KiB of items.
template <class In>
constexpr std::int64_t kChunkItems = (std::int64_t(64) << 10) / std::int64_t(sizeof(In));

// Segments over one host array, their oracles, the device copies.
template <class In, class Out>
struct ExactSegments {
  using C = SegCase<In, Out, SegOp::sum>;
  std::vector<In> host;
  SegmentList list;
  std::vector<Out> oracle;
  DeviceBuffer<In> input;

  ExactSegments(std::vector<In> items, SegmentList segments)
      : host(std::move(items)), list(std::move(segments)),
        input(std::size_t(std::max<std::int64_t>(std::int64_t(host.size()), 1))) {
    for (std::int64_t i = 0; i < list.size(); ++i)
      oracle.push_back(correctly_rounded_sum<Out>(host.data() + list.begin[i],
                                                  list.end[i] - list.begin[i]));
    EXPECT_TRUE(input.ok());
    EXPECT_EQ(cudaMemcpy(input.get(), host.data(), host.size() * sizeof(In), cudaMemcpyHostToDevice),
              cudaSuccess);
  }
  // Our call with these Options, segment by segment against MPFR; false on the first mismatch.
  ::testing::AssertionResult check(const Options& options, const std::string& what) {
    DeviceSegments<std::int64_t> offsets(list);
    std::vector<Out> got;
    auto ran = run_ours<C>(input.get(), list.size(), offsets.begin(), offsets.end(), -1, options, got);
    if (!ran) return ran << " (" << what << ")";
    return against_oracle(got, what);
  }
  ::testing::AssertionResult against_oracle(const std::vector<Out>& got, const std::string& what) {
    std::int64_t wrong = 0;
    ::testing::AssertionResult result = ::testing::AssertionFailure();
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (same_result(got[i], oracle[i])) continue;
      if (wrong++ < 5)
        result << "\n  " << C::name() << " " << what << " segment " << i << " [" << list.begin[i]
               << ", " << list.end[i] << "): " << show(got[i]) << " vs MPFR " << show(oracle[i]);
    }
    if (wrong == 0) return ::testing::AssertionSuccess();
    return result << "\n  " << wrong << " of " << got.size() << " segments wrong";
  }
};

template <class In>
std::vector<std::int64_t> boundary_lengths_exact(bool with_split) {
  constexpr std::int64_t kWindow = (std::int64_t(16) << 10) / std::int64_t(sizeof(In));
  // 4096 +- 1: the warp window's limit (items); kWindow +- 1: the one-block window's (16 KiB).
  std::vector<std::int64_t> lengths = {0,    1,    2,    31,          32,      33,          255,
                                       256,  257,  1021, 4095,        4096,    4097,        kWindow - 1,
                                       kWindow, kWindow + 1, 65537};
  if (with_split)
    for (std::int64_t n : {kChunkItems<In> - 1, kChunkItems<In>, kChunkItems<In> + 1,
                           2 * kChunkItems<In> + 3, 5 * kChunkItems<In> + 17})
      lengths.push_back(n);
  return capped(lengths);
}

// Each shape of the issue, a segment of each length made of that shape's input; contiguous, then
// shuffled (unsorted offsets).
template <class In, class Out>
void every_shape_every_length() {
  const std::uint64_t seed = fresh_seed();
  ExactInputs<In> inputs(seed);
  std::mt19937_64 rng(seed);
  for (ExactShape shape : kAllExactShapes) {
    const bool split = shape == ExactShape::everyday || shape == ExactShape::every_scale ||
                       shape == ExactShape::cancellation || shape == ExactShape::specials ||
                       shape == ExactShape::drifting;
    std::vector<In> items;
    std::vector<std::int64_t> lengths;
    for (std::int64_t n : boundary_lengths_exact<In>(split)) {
      const std::vector<In> x = inputs.make(shape, n);
      items.insert(items.end(), x.begin(), x.end());
      lengths.push_back(n);
    }
    const std::string what = std::string(to_string(shape)) + " seed=" + std::to_string(seed);
    ExactSegments<In, Out> s(items, contiguous(to_string(shape), lengths));
    ASSERT_TRUE(s.check(correctly_rounded(), what));
    ExactSegments<In, Out> u(items, shuffled(contiguous(to_string(shape), lengths), rng));
    ASSERT_TRUE(u.check(correctly_rounded(), what + " shuffled"));
  }
}

TEST(SegmentedCorrectlyRounded, FloatEveryShapeAndLength) { REQUIRE_GPU(); every_shape_every_length<float, float>(); }
TEST(SegmentedCorrectlyRounded, FloatToDoubleEveryShapeAndLength) { REQUIRE_GPU(); every_shape_every_length<float, double>(); }
TEST(SegmentedCorrectlyRounded, DoubleEveryShapeAndLength) { REQUIRE_GPU(); every_shape_every_length<double, double>(); }
TEST(SegmentedCorrectlyRounded, HalfEveryShapeAndLength) { REQUIRE_GPU(); every_shape_every_length<__half, float>(); }
TEST(SegmentedCorrectlyRounded, BFloat16EveryShapeAndLength) { REQUIRE_GPU(); every_shape_every_length<__nv_bfloat16, float>(); }

// The warp window's edge (segmented_sum.cuh, warp_window_sum: W = 53 - precision - ceil(log2 n)):
// inputs that need every bit of the double at span W and one more at W + 1, where only the block
// path is exact, each a segment of n items beside the others; a window one field too wide fails.
template <class In>
void warp_window_edges(int log2_n, int window) {
  const int n = 1 << log2_n;
  std::vector<In> items;
  std::vector<std::int64_t> lengths;
  for (int span : {window - 1, window, window + 1, window + 2})
    for (int small_at : {0, n / 2 - 1, n - 2, n - 1})
      for (bool negative : {false, true}) {
        const std::vector<In> x = one_unit_above_a_tie<In>(log2_n, span, small_at, negative);
        items.insert(items.end(), x.begin(), x.end());
        lengths.push_back(n);
      }
  ExactSegments<In, float> s(items, contiguous("window edges", lengths));
  EXPECT_TRUE(s.check(correctly_rounded(), "warp window edges, n = " + std::to_string(n)));
}

TEST(SegmentedCorrectlyRounded, WarpWindowEdges) {
  REQUIRE_GPU();
  warp_window_edges<float>(12, 53 - 24 - 12);  // 4096 floats: the warp window's largest
  warp_window_edges<float>(8, 53 - 24 - 8);
  warp_window_edges<float>(3, 53 - 24 - 3);
  warp_window_edges<__nv_bfloat16>(8, 53 - 8 - 8);
}

// Float segments of mixed sizes (tiny to split) and hard shapes: the same bits on grids of 1, 3
// and 7 blocks, with one split slot or none (the split segments then run whole), on zeroed
// storage (left zero), and overlapping.
TEST(SegmentedCorrectlyRounded, BitsDoNotDependOnGridSlotsOrStorage) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  ExactInputs<float> inputs(seed);
  std::mt19937_64 rng(seed);
  std::vector<std::int64_t> lengths = uniform_lengths(rng, 300, 0, 5000);
  for (std::int64_t n : {kChunkItems<float> + 1, 3 * kChunkItems<float>, 2 * kChunkItems<float> - 7})
    lengths.push_back(n);
  std::shuffle(lengths.begin(), lengths.end(), rng);
  const std::int64_t total = std::accumulate(lengths.begin(), lengths.end(), std::int64_t(0));
  const std::vector<float> items = inputs.make(ExactShape::cancellation, total);
  ExactSegments<float, float> s(items, contiguous("mixed", lengths));
  const std::string what = "seed=" + std::to_string(seed);
  EXPECT_TRUE(s.check(correctly_rounded(), what));
  for (int grid : {1, 3, 7}) {
    Options o = correctly_rounded();
    o.grid_blocks = grid;
    EXPECT_TRUE(s.check(o, what + " grid " + std::to_string(grid)));
  }
  for (std::int64_t limit : {0, 1}) {
    const std::int64_t saved = detail::exact::segmented_slots_limit;
    detail::exact::segmented_slots_limit = limit;
    EXPECT_TRUE(s.check(correctly_rounded(), what + " slots " + std::to_string(limit)));
    detail::exact::segmented_slots_limit = saved;
  }
  // Zeroed storage: the same bits, and every byte zero after.
  Options zeroed = correctly_rounded();
  zeroed.temp_storage_zeroed = true;
  DeviceSegments<std::int64_t> offsets(s.list);
  DeviceBuffer<float> out(s.list.size());
  std::size_t bytes = 0;
  ASSERT_EQ(DeviceSegmentedReduce::Sum(nullptr, bytes, s.input.get(), out.get(), s.list.size(),
                                       offsets.begin(), offsets.end(), nullptr, zeroed),
            cudaSuccess);
  DeviceBuffer<unsigned char> temp(bytes);
  CUDA_OK(cudaMemset(temp.get(), 0, bytes));
  for (int call = 0; call < 2; ++call) {
    CUDA_OK(cudaMemset(out.get(), kPoisonByte, s.list.size() * sizeof(float)));
    ASSERT_EQ(DeviceSegmentedReduce::Sum(temp.get(), bytes, s.input.get(), out.get(), s.list.size(),
                                         offsets.begin(), offsets.end(), nullptr, zeroed),
              cudaSuccess) << last_error_message();
    CUDA_OK(cudaDeviceSynchronize());
    std::vector<float> got(s.list.size());
    CUDA_OK(cudaMemcpy(got.data(), out.get(), got.size() * sizeof(float), cudaMemcpyDeviceToHost));
    EXPECT_TRUE(s.against_oracle(got, what + " zeroed"));
    EXPECT_TRUE(all_bytes_equal(device_bytes(temp.get(), 0, bytes), 0)) << "zeroed storage left dirty";
  }
  ExactSegments<float, float> o(items, overlapping(rng, 400, total, 3 * kChunkItems<float>));
  EXPECT_TRUE(o.check(correctly_rounded(), what + " overlapping"));
}

// Segments that found no split slot run whole, and past the most items a block sums into one
// state (2^30; lowered here to 1000 and 4099) in pieces whose states warp 0 adds: MPFR's bits.
template <class In, class Out>
void pieces_of_whole_segments() {
  const std::uint64_t seed = fresh_seed();
  ExactInputs<In> inputs(seed);
  std::mt19937_64 rng(seed);
  std::vector<std::int64_t> lengths = uniform_lengths(rng, 40, 0, 3 * kChunkItems<In>);
  const std::int64_t total = std::accumulate(lengths.begin(), lengths.end(), std::int64_t(0));
  for (ExactShape shape : {ExactShape::every_scale, ExactShape::cancellation, ExactShape::specials}) {
    ExactSegments<In, Out> s(inputs.make(shape, total), contiguous("long", lengths));
    const std::int64_t slots = detail::exact::segmented_slots_limit;
    const std::int64_t pieces = detail::exact::segmented_piece_items;
    detail::exact::segmented_slots_limit = 0;
    for (std::int64_t piece : {1000, 4099}) {
      detail::exact::segmented_piece_items = piece;
      EXPECT_TRUE(s.check(correctly_rounded(), std::string(to_string(shape)) + " pieces of " +
                                                   std::to_string(piece) + " seed=" + std::to_string(seed)));
    }
    detail::exact::segmented_slots_limit = slots;
    detail::exact::segmented_piece_items = pieces;
  }
}

TEST(SegmentedCorrectlyRounded, WholeSegmentsInPieces) {
  REQUIRE_GPU();
  pieces_of_whole_segments<double, double>();
  pieces_of_whole_segments<float, float>();
}

// A million segments of 0-40 items (the one-block window's path) and a few split ones of 10M+.
TEST(SegmentedCorrectlyRounded, AMillionTinySegmentsAndAFewHugeOnes) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  ExactInputs<float> inputs(seed);
  std::mt19937_64 rng(seed);
  std::vector<std::int64_t> lengths = uniform_lengths(rng, std::int64_t(1) << 20, 0, 40);
  for (std::int64_t n : capped({(std::int64_t(10) << 20) + 3, (std::int64_t(12) << 20) + 1}))
    lengths.insert(lengths.begin() + std::int64_t(rng() % lengths.size()), n);
  const std::int64_t total = std::accumulate(lengths.begin(), lengths.end(), std::int64_t(0));
  ExactSegments<float, float> s(inputs.make(ExactShape::every_scale, total), contiguous("tiny and huge", lengths));
  EXPECT_TRUE(s.check(correctly_rounded(), "seed=" + std::to_string(seed)));
}

// FixedSizeSum gives the offsets call's bits (and MPFR's) for sizes in every path.
TEST(SegmentedCorrectlyRounded, FixedSizeMatchesOffsetsAndMpfr) {
  REQUIRE_GPU();
  using C = SegCase<double, double, SegOp::sum>;
  const std::uint64_t seed = fresh_seed();
  ExactInputs<double> inputs(seed);
  for (std::int64_t size : {std::int64_t(1), std::int64_t(33), std::int64_t(2049), kChunkItems<double> + 1}) {
    const std::int64_t segments = size > 4096 ? 5 : 301;
    std::vector<std::int64_t> lengths(std::size_t(segments), size);
    ExactSegments<double, double> s(inputs.make(ExactShape::ill_conditioned, segments * size),
                                    contiguous("fixed", lengths));
    std::vector<double> got;
    ASSERT_TRUE(run_ours<C>(s.input.get(), segments, nullptr, nullptr, size, correctly_rounded(), got));
    EXPECT_TRUE(s.against_oracle(got, "fixed size " + std::to_string(size) + " seed=" + std::to_string(seed)));
  }
}

// An end below its begin anywhere: cudaErrorInvalidValue with the pointer check, nothing written
// either way, and the next call fine.
TEST(SegmentedCorrectlyRounded, EndBelowBeginWritesNothing) {
  REQUIRE_GPU();
  std::vector<std::int64_t> begin = {0, 100, 5000, 300000}, end = {100, 5000, 4999, 600000};
  SegmentList s;
  s.begin = begin;
  s.end = end;
  DeviceSegments<std::int64_t> offsets(s);
  DeviceBuffer<float> in(600000), out(4);
  CUDA_OK(fill_random(in.get(), 600000, fresh_seed(), Fill::random));
  for (PointerCheck check : {PointerCheck::on, PointerCheck::off}) {
    Options o = correctly_rounded();
    o.pointer_check = check;
    std::size_t bytes = 0;
    ASSERT_EQ(DeviceSegmentedReduce::Sum(nullptr, bytes, in.get(), out.get(), 4, offsets.begin(),
                                         offsets.end(), nullptr, o), cudaSuccess);
    DeviceBuffer<unsigned char> temp(bytes);
    CUDA_OK(cudaMemset(out.get(), kPoisonByte, 4 * sizeof(float)));
    const cudaError_t e = DeviceSegmentedReduce::Sum(temp.get(), bytes, in.get(), out.get(), 4,
                                                     offsets.begin(), offsets.end(), nullptr, o);
    EXPECT_EQ(e, check == PointerCheck::on ? cudaErrorInvalidValue : cudaSuccess);
    CUDA_OK(cudaDeviceSynchronize());
    EXPECT_TRUE(all_bytes_equal(device_bytes(reinterpret_cast<unsigned char*>(out.get()), 0, 16), kPoisonByte))
        << "an output was written";
  }
}

}  // namespace
}  // namespace gpureduce::testing
