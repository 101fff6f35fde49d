// automatic's uncaptured last_block plan keeps its state in a slot its stream holds in the library
// (detail/stream_owned_state.hpp): zero when the stream first gets it, left zero by every reduction,
// one per stream. These tests enqueue many reductions of several types on several streams at once,
// on garbage temp storage, and require CUB's bits from every one; count the slots taken; and fill
// the table to see a stream without a slot take the old plan with the same bits.
#include <memory>
#include <string>
#include <vector>

#include "gpu/common.cuh"

namespace gpureduce::testing {
namespace {

using detail::set_stream_owned_slot_limit;
using detail::stream_owned_slots_in_use;

// automatic's plan for a sum of n T on `stream`, default Options.
template <class T>
cudaError_t plan_sum(LaunchPlan& plan, const T* d_in, std::int64_t n, cudaStream_t stream) {
  return DeviceReduce::PlanSum<T, T>(plan, d_in, n, Options{}, stream);
}

bool is_stream_owned(const LaunchPlan& plan) {
  return plan.pipeline == Pipeline::last_block && plan.launches == 1 &&
         std::string(plan.rationale) == detail::rationale::kStreamOwned;
}

// One reduction of Case C at n items on `stream`: its input, output, garbage temp storage and CUB's
// answer, all its own, so that reductions on every stream can be in flight together.
template <class C>
struct Job {
  using In = typename C::In;
  using Out = typename C::Out;
  std::int64_t n;
  std::size_t bytes = 0;  // before temp: query() sets it while temp is built
  std::uint64_t seed = fresh_seed();
  DeviceBuffer<In> in;
  DeviceBuffer<Out> out{1}, ref{1};
  DeviceBuffer<unsigned char> temp;

  Job(std::int64_t items, Fill fill, cudaStream_t stream)
      : n(items), in(std::size_t(items)), temp(query(items)) {
    EXPECT_TRUE(in.ok() && out.ok() && ref.ok() && temp.ok());
    EXPECT_EQ(fill_random(in.get(), n, seed, fill, stream), cudaSuccess);
    EXPECT_EQ(cudaMemsetAsync(temp.get(), kPoisonByte, bytes, stream), cudaSuccess);  // garbage
    EXPECT_EQ(cudaMemsetAsync(out.get(), kPoisonByte, sizeof(Out), stream), cudaSuccess);
  }
  std::size_t query(std::int64_t items) {
    EXPECT_EQ(C::run(nullptr, bytes, nullptr, nullptr, items, nullptr, Options{}), cudaSuccess);
    return bytes;
  }
  cudaError_t enqueue(cudaStream_t stream) {
    return C::run(temp.get(), bytes, in.get(), out.get(), n, stream, Options{});
  }
  // After the device is idle: CUB's answer on the same input, and the comparison.
  void check(const std::string& where) {
    ASSERT_EQ(C::cub(in.get(), ref.get(), n), cudaSuccess);
    const Out got = copy_to_host(out.get()), want = copy_to_host(ref.get());
    EXPECT_TRUE(same_bits(got, want)) << where << " " << C::name() << " n=" << n << " seed=" << seed
                                      << ": " << show(got) << " vs CUB " << show(want);
  }
};

// Four non-blocking streams and the legacy stream; on each, three rounds of four reductions (float
// sums over 2^20 and 3 * 2^16 + 7 items, int32 sums, double sums, float max: flagged slots of 4 and
// 8 bytes, the counted word, grids of 16 to 128 blocks) enqueued without a sync in between. State
// that a stream shared, or that one reduction left dirty for the next, would shift a sum, mix two,
// or leave an output unwritten. Floats and doubles hold small integers (every partial sum exact);
// int32 covers the full range.
TEST(StreamOwnedState, EveryStreamKeepsItsOwnState) {
  REQUIRE_GPU();
  using F = Case<float, float, Op::sum>;
  using I = Case<std::int32_t, std::int32_t, Op::sum>;
  using D = Case<double, double, Op::sum>;
  using M = Case<float, float, Op::max>;
  constexpr int kRounds = 3;
  std::vector<cudaStream_t> streams(4);
  for (cudaStream_t& s : streams) CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  streams.push_back(nullptr);  // the legacy default stream has an id, and a slot, of its own
  CUDA_OK(cudaDeviceSynchronize());
  const std::size_t before = stream_owned_slots_in_use();

  std::vector<std::unique_ptr<Job<F>>> floats;
  std::vector<std::unique_ptr<Job<I>>> ints;
  std::vector<std::unique_ptr<Job<D>>> doubles;
  std::vector<std::unique_ptr<Job<M>>> maxima;
  for (int round = 0; round < kRounds; ++round) {
    for (cudaStream_t s : streams) {
      const std::int64_t float_n = round % 2 == 0 ? std::int64_t(1) << 20 : 3 * (std::int64_t(1) << 16) + 7;
      floats.push_back(std::make_unique<Job<F>>(float_n, Fill::small_integers, s));
      ints.push_back(std::make_unique<Job<I>>((std::int64_t(1) << 18) + round, Fill::random, s));
      doubles.push_back(std::make_unique<Job<D>>(std::int64_t(1) << 16, Fill::small_integers, s));
      maxima.push_back(std::make_unique<Job<M>>(std::int64_t(1) << 19, Fill::random, s));
      if (round == 0) {  // the plans, on this stream: its own state, one launch
        LaunchPlan plan;
        ASSERT_EQ(plan_sum(plan, floats.back()->in.get(), float_n, s), cudaSuccess)
            << last_error_message();
        EXPECT_TRUE(is_stream_owned(plan)) << gpureduce::describe(plan);
        ASSERT_EQ(plan_sum(plan, ints.back()->in.get(), ints.back()->n, s),
                  cudaSuccess) << last_error_message();
        EXPECT_TRUE(is_stream_owned(plan)) << gpureduce::describe(plan);
        EXPECT_GT(plan.grid_blocks, 1);
      }
      ASSERT_EQ(floats.back()->enqueue(s), cudaSuccess) << last_error_message();
      ASSERT_EQ(ints.back()->enqueue(s), cudaSuccess) << last_error_message();
      ASSERT_EQ(doubles.back()->enqueue(s), cudaSuccess) << last_error_message();
      ASSERT_EQ(maxima.back()->enqueue(s), cudaSuccess) << last_error_message();
    }
    // Each stream took one slot on its first call, and only then (the legacy stream may have had
    // one from an earlier test in this process).
    EXPECT_GE(stream_owned_slots_in_use(), before + streams.size() - 1);
    EXPECT_LE(stream_owned_slots_in_use(), before + streams.size());
  }
  const std::size_t after_enqueueing = stream_owned_slots_in_use();
  CUDA_OK(cudaDeviceSynchronize());
  for (std::size_t i = 0; i < floats.size(); ++i) {
    const std::string where = "round " + std::to_string(i / streams.size()) + " stream " +
                              std::to_string(i % streams.size());
    floats[i]->check(where);
    ints[i]->check(where);
    doubles[i]->check(where);
    maxima[i]->check(where);
  }
  EXPECT_EQ(stream_owned_slots_in_use(), after_enqueueing);
  for (std::size_t i = 0; i + 1 < streams.size(); ++i) CUDA_OK(cudaStreamDestroy(streams[i]));
}

// Sizing and planning take no slot; the first reduction on a stream takes one, later ones reuse it.
TEST(StreamOwnedState, OnlyAReductionTakesASlotAndKeepsIt) {
  REQUIRE_GPU();
  using F = Case<float, float, Op::sum>;
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const std::size_t before = stream_owned_slots_in_use();
  const std::int64_t n = std::int64_t(1) << 20;
  Job<F> job(n, Fill::small_integers, stream);
  LaunchPlan plan;
  ASSERT_EQ(plan_sum(plan, job.in.get(), n, stream), cudaSuccess);
  EXPECT_TRUE(is_stream_owned(plan)) << gpureduce::describe(plan);
  EXPECT_EQ(stream_owned_slots_in_use(), before) << "sizing or planning took a slot";
  for (int call = 0; call < 3; ++call) {
    ASSERT_EQ(job.enqueue(stream), cudaSuccess) << last_error_message();
    EXPECT_EQ(stream_owned_slots_in_use(), before + 1) << "call " << call;
  }
  CUDA_OK(cudaStreamSynchronize(stream));
  job.check("three calls on one stream");
  CUDA_OK(cudaStreamDestroy(stream));
}

// With every slot held (the limit lowered to what streams hold now), a new stream gets none: its
// plan is the one automatic had before slots (grid_sync where the device launches cooperatively,
// else last_block after a memset), on the same grid, so the same bits as a stream with a slot, on
// random floats whose sums round. Half the grid must give other bits on some input, or "same"
// would prove nothing. Streams that hold a slot keep it.
TEST(StreamOwnedState, WithoutASlotTheOldPlanGivesTheSameBits) {
  REQUIRE_GPU();
  using F = Case<float, float, Op::sum>;
  int device = 0, cooperative = 0;
  CUDA_OK(cudaGetDevice(&device));
  CUDA_OK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
  cudaStream_t with_slot, without_slot;
  CUDA_OK(cudaStreamCreateWithFlags(&with_slot, cudaStreamNonBlocking));
  CUDA_OK(cudaStreamCreateWithFlags(&without_slot, cudaStreamNonBlocking));
  const std::int64_t n = (std::int64_t(1) << 20) + 3;
  Job<F> first(n, Fill::random, with_slot);
  ASSERT_EQ(first.enqueue(with_slot), cudaSuccess) << last_error_message();  // takes its slot
  CUDA_OK(cudaStreamSynchronize(with_slot));

  const std::size_t held = stream_owned_slots_in_use();
  const std::size_t old_limit = set_stream_owned_slot_limit(0);
  LaunchPlan kept, fallback;
  ASSERT_EQ(plan_sum(kept, first.in.get(), n, with_slot), cudaSuccess);
  ASSERT_EQ(plan_sum(fallback, first.in.get(), n, without_slot), cudaSuccess);
  EXPECT_TRUE(is_stream_owned(kept)) << gpureduce::describe(kept);
  EXPECT_EQ(fallback.pipeline, cooperative ? Pipeline::grid_sync : Pipeline::last_block) << gpureduce::describe(fallback);
  EXPECT_EQ(fallback.launches, cooperative ? 1 : 2);
  EXPECT_EQ(fallback.grid_blocks, kept.grid_blocks);
  EXPECT_EQ(fallback.temp_storage_bytes, kept.temp_storage_bytes);

  // Five fresh inputs: every one must give both streams the same bits; one order's sum can
  // happen to round like another's, so half the grid need only differ on some of them.
  constexpr int kInputs = 5;
  int half_grid_differs = 0;
  cudaStream_t streams[2] = {with_slot, without_slot};
  for (int input = 0; input < kInputs; ++input) {
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    CUDA_OK(fill_random(first.in.get(), n, seed, Fill::random));
    float bits[2];
    for (int i = 0; i < 2; ++i) {
      DeviceBuffer<float> out{1};
      DeviceBuffer<unsigned char> temp(first.bytes);
      CUDA_OK(prepare_temp_storage(temp.get(), first.bytes, false));
      CUDA_OK(cudaMemset(out.get(), kPoisonByte, sizeof(float)));
      CUDA_OK(cudaDeviceSynchronize());
      std::size_t bytes = first.bytes;
      ASSERT_EQ(DeviceReduce::Sum(temp.get(), bytes, first.in.get(), out.get(), n, streams[i]), cudaSuccess)
          << last_error_message();
      CUDA_OK(cudaStreamSynchronize(streams[i]));
      bits[i] = copy_to_host(out.get());
    }
    EXPECT_TRUE(same_bits(bits[0], bits[1])) << show(bits[0]) << " (stream's state) vs " << show(bits[1]);
    float half_grid{};
    const Options half{Strategy::vectorized, Pipeline::last_block, kept.block_threads, kept.grid_blocks / 2};
    ASSERT_TRUE(run_gpureduce<F>(first.in.get(), n, half, half_grid));
    half_grid_differs += !same_bits(half_grid, bits[0]);
  }
  EXPECT_EQ(stream_owned_slots_in_use(), held) << "a stream got a slot past the limit";
  set_stream_owned_slot_limit(old_limit);
  EXPECT_GT(half_grid_differs, 0) << "half the grid gave the same bits on every input: the order does not show";
  CUDA_OK(cudaStreamDestroy(with_slot));
  CUDA_OK(cudaStreamDestroy(without_slot));
}

// automatic with the caller's grid_blocks (or block_threads): the state must fit the slot at the
// grid the call will launch, not at the rule's. 8-byte partials at 3879 blocks outgrow the 16 KiB
// slot (the fuzz test's case 1363 failed there with an internal error): that call keeps grid_sync;
// at 64 blocks it takes the slot. Answers bitwise CUB's (Max; uint64 sums wrap alike in any order).
template <class C>
void caller_grid(std::int64_t n, int block_threads, int grid_blocks, bool expect_slot) {
  Options options;
  options.block_threads = block_threads;
  options.grid_blocks = grid_blocks;
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(C::name() + " " + describe(options, n, 0, seed));
  DeviceBuffer<typename C::In> in{std::size_t(n)};
  DeviceBuffer<typename C::Out> ref{1};
  CUDA_OK(fill_random(in.get(), n, seed, Fill::random));
  CUDA_OK(C::cub(in.get(), ref.get(), n));
  LaunchPlan plan;
  ASSERT_EQ(C::plan(plan, in.get(), n, options), cudaSuccess) << last_error_message();
  EXPECT_EQ(is_stream_owned(plan), expect_slot) << gpureduce::describe(plan);
  typename C::Out got{};
  ASSERT_TRUE(run_gpureduce<C>(in.get(), n, options, got));
  EXPECT_TRUE(same_bits(got, copy_to_host(ref.get()))) << show(got) << " vs CUB " << show(copy_to_host(ref.get()));
}

TEST(StreamOwnedState, TheCallersGridDecidesWhetherTheStateFits) {
  REQUIRE_GPU();
  caller_grid<Case<double, double, Op::max>>(369244, 0, 3879, false);
  caller_grid<Case<std::uint64_t, std::uint64_t, Op::sum>>(176628, 64, 4223, false);
  caller_grid<Case<double, double, Op::max>>(369244, 0, 64, true);
  // 4-byte partials: 256 + 8 x 2016 bytes fill the 16 KiB slot, 2017 do not (the input fills 2148
  // blocks of 128 threads, under one wave of them on an H100 or H200).
  caller_grid<Case<float, float, Op::max>>(1100000, 128, 2016, true);
  caller_grid<Case<float, float, Op::max>>(1100000, 128, 2017, false);
}

}  // namespace
}  // namespace gpureduce::testing
