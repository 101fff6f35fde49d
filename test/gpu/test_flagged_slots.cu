// last_block's flagged slots (pipeline/flagged_slots.cuh): the partials reach the last block
// intact and in order, the slot region and the counter are left zero after every call, and the
// region is safe to share with every other pipeline on one zeroed-once buffer.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "gpu/common.cuh"
#include "gpureduce/detail/block/global_memory.cuh"
#include "gpureduce/detail/pipeline/flagged_slots.cuh"
#include "gpureduce/detail/pipeline/fold_partials.cuh"

namespace gpureduce::testing {
namespace {

// Bytes of the control block and slot region (common.cuh's restated layout) that are not zero.
std::size_t nonzero_state_bytes(const unsigned char* temp) {
  const std::vector<unsigned char> host = device_bytes(temp, 0, kLayoutPartialsOffset);
  if (host.empty()) return ~std::size_t(0);
  return std::size_t(std::count_if(host.begin(), host.end(), [](unsigned char b) { return b != 0; }));
}

// Zeroed storage, grids from 2 blocks to the slot capacity and one past it (the classic path):
// bitwise CUB on each call, and the state is all zero again after each.
template <class C>
void rearms_after_every_grid() {
  using In = typename C::In;
  using Out = typename C::Out;
  for (int grid : {2, 3, 64, 600, 2048, 2049}) {
    const std::int64_t n = std::int64_t(grid) * 256 * 4 + 5;  // every block has work
    const std::uint64_t seed = fresh_seed();
    DeviceBuffer<In> in{std::size_t(n)};
    DeviceBuffer<Out> out{1}, ref{1};
    ASSERT_TRUE(in.ok() && out.ok() && ref.ok());
    CUDA_OK(fill_random(in.get(), n, seed, Fill::small_integers));
    CUDA_OK(C::cub(in.get(), ref.get(), n));
    Options options{Strategy::sequential, Pipeline::last_block, 256, grid};  // 4 waves: room for 2049 blocks
    options.temp_storage_zeroed = true;
    LaunchPlan plan;
    ASSERT_EQ(C::plan(plan, in.get(), n, options), cudaSuccess) << last_error_message();
    ASSERT_EQ(plan.grid_blocks, grid);
    SCOPED_TRACE(C::name() + " " + describe(options, n, 0, seed));
    std::size_t bytes = 0;
    ASSERT_EQ(C::run(nullptr, bytes, in.get(), out.get(), n, nullptr, options), cudaSuccess);
    DeviceBuffer<unsigned char> temp(bytes);
    ASSERT_TRUE(temp.ok());
    CUDA_OK(cudaMemset(temp.get(), 0, bytes));
    for (int call = 0; call < 3; ++call) {
      CUDA_OK(cudaMemset(out.get(), kPoisonByte, sizeof(Out)));
      ASSERT_EQ(C::run(temp.get(), bytes, in.get(), out.get(), n, nullptr, options), cudaSuccess) << last_error_message();
      CUDA_OK(cudaDeviceSynchronize());
      EXPECT_TRUE(same_bits(copy_to_host(out.get()), copy_to_host(ref.get()))) << "call " << call;
      EXPECT_EQ(nonzero_state_bytes(temp.get()), 0u) << "call " << call << " left state behind";
    }
    // Without the promise, on garbage storage: the per-call memset must cover the slots this grid
    // uses (else stale flags would pass for partials), and the kernel leaves them zero. Past the
    // capacity the classic path runs and the slot region is never touched. This is also what
    // shows the flagged path is the one taken.
    Options per_call = options;
    per_call.temp_storage_zeroed = false;
    CUDA_OK(prepare_temp_storage(temp.get(), bytes, false));
    CUDA_OK(cudaMemset(out.get(), kPoisonByte, sizeof(Out)));
    ASSERT_EQ(C::run(temp.get(), bytes, in.get(), out.get(), n, nullptr, per_call), cudaSuccess) << last_error_message();
    CUDA_OK(cudaDeviceSynchronize());
    EXPECT_TRUE(same_bits(copy_to_host(out.get()), copy_to_host(ref.get()))) << "memset path";
    const std::size_t slot_bytes = std::size_t(grid) * (sizeof(Out) == 8 ? 16 : 8);
    const std::vector<unsigned char> slots = device_bytes(
        temp.get(), kLayoutControlBytes, std::min(slot_bytes, kLayoutPartialsOffset - kLayoutControlBytes));
    ASSERT_FALSE(slots.empty());
    const auto zero_bytes = std::size_t(std::count(slots.begin(), slots.end(), 0));
    if (grid <= 2048) EXPECT_EQ(zero_bytes, slots.size()) << "slots not zero after the memset path";
    else EXPECT_EQ(zero_bytes, 0u) << "the classic path touched the slot region";
  }
}

// Sums of 4-byte integers combine through the counted word instead (test_counted_sum.cu).
TEST(FlaggedSlots, RearmAfterEveryGridInt32Min) { REQUIRE_GPU(); rearms_after_every_grid<Case<std::int32_t, std::int32_t, Op::min>>(); }
TEST(FlaggedSlots, RearmAfterEveryGridFloat) { REQUIRE_GPU(); rearms_after_every_grid<Case<float, float, Op::sum>>(); }
TEST(FlaggedSlots, RearmAfterEveryGridDouble) { REQUIRE_GPU(); rearms_after_every_grid<Case<double, double, Op::sum>>(); }
TEST(FlaggedSlots, RearmAfterEveryGridInt64Max) { REQUIRE_GPU(); rearms_after_every_grid<Case<std::int64_t, std::int64_t, Op::max>>(); }

// The flagged fold reads the partials in the order grid_sync and two_kernel read their plain
// array, so for one grid all three give the same bits, on random floats whose sums round. So that
// this can fail, some other grid must give other bits on the same inputs.
TEST(FlaggedSlots, SameBitsAsThePlainPartialsPipelines) {
  REQUIRE_GPU();
  using C = Case<float, float, Op::sum>;
  int grid_changes_bits = 0;
  for (std::int64_t n : {std::int64_t(70'001), std::int64_t(1) << 20, std::int64_t(3'000'017)}) {
    for (int grid : {7, 64, 130}) {
      const std::uint64_t seed = fresh_seed();
      DeviceBuffer<float> in{std::size_t(n)};
      ASSERT_TRUE(in.ok());
      CUDA_OK(fill_random(in.get(), n, seed, Fill::random));
      Options flagged{Strategy::vectorized, Pipeline::last_block, 256, grid};
      flagged.temp_storage_zeroed = true;
      const Options memset_flagged{Strategy::vectorized, Pipeline::last_block, 256, grid};
      const Options plain_barrier{Strategy::vectorized, Pipeline::grid_sync, 256, grid};
      const Options plain_kernel{Strategy::vectorized, Pipeline::two_kernel, 256, grid};
      const Options other_grid{Strategy::vectorized, Pipeline::two_kernel, 256, grid + 1};
      SCOPED_TRACE(describe(flagged, n, 0, seed));
      float a{}, b{}, c{}, d{}, e{};
      ASSERT_TRUE(run_gpureduce<C>(in.get(), n, flagged, a));
      ASSERT_TRUE(run_gpureduce<C>(in.get(), n, memset_flagged, b));
      ASSERT_TRUE(run_gpureduce<C>(in.get(), n, plain_barrier, c));
      ASSERT_TRUE(run_gpureduce<C>(in.get(), n, plain_kernel, d));
      ASSERT_TRUE(run_gpureduce<C>(in.get(), n, other_grid, e));
      EXPECT_TRUE(same_bits(a, c)) << show(a) << " vs grid_sync " << show(c);
      EXPECT_TRUE(same_bits(b, c)) << show(b) << " (memset path) vs grid_sync " << show(c);
      EXPECT_TRUE(same_bits(d, c)) << show(d) << " (two_kernel) vs grid_sync " << show(c);
      grid_changes_bits += !same_bits(e, d);
    }
  }
  EXPECT_GT(grid_changes_bits, 0) << "no other grid changed the bits: these inputs cannot tell orders apart";
}

// One buffer, zeroed once, shared by calls of every pipeline and strategy in a random order (the
// Options::temp_storage_zeroed contract): the others' partials and scratch never land in the slot
// region, so every result stays bitwise CUB's and the state stays zero.
template <class C>
void share_one_zeroed_buffer_with_every_pipeline() {
  const std::int64_t max_n = 1 << 21;
  DeviceBuffer<std::int32_t> in{std::size_t(max_n)}, out{1}, ref{1};
  ASSERT_TRUE(in.ok() && out.ok() && ref.ok());
  std::size_t bytes = std::size_t(64) << 20;  // more than any call below asks for (checked)
  DeviceBuffer<unsigned char> temp(bytes);
  ASSERT_TRUE(temp.ok());
  CUDA_OK(cudaMemset(temp.get(), 0, bytes));
  std::uint64_t state = fresh_seed();
  for (int round = 0; round < 60; ++round) {
    state = mix64(state);
    const std::int64_t n = 1 + std::int64_t(state % max_n);
    const Strategy strategy = kAllStrategies[(state >> 24) % std::size(kAllStrategies)];
    const Pipeline pipeline = kAllPipelines[(state >> 32) % std::size(kAllPipelines)];
    Options options{strategy, pipeline};
    if ((state >> 40) % 2) options.grid_blocks = 2 + int((state >> 44) % 300);
    options.temp_storage_zeroed = true;
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE("round " + std::to_string(round) + " " + describe(options, n, 0, seed));
    CUDA_OK(fill_random(in.get(), n, seed, Fill::random));
    CUDA_OK(C::cub(in.get(), ref.get(), n));
    std::size_t needed = 0;
    ASSERT_EQ(C::run(nullptr, needed, in.get(), out.get(), n, nullptr, options), cudaSuccess) << last_error_message();
    ASSERT_LE(needed, bytes);
    CUDA_OK(cudaMemset(out.get(), kPoisonByte, sizeof(std::int32_t)));
    ASSERT_EQ(C::run(temp.get(), bytes, in.get(), out.get(), n, nullptr, options), cudaSuccess) << last_error_message();
    CUDA_OK(cudaDeviceSynchronize());
    EXPECT_EQ(copy_to_host(out.get()), copy_to_host(ref.get()));
    EXPECT_EQ(nonzero_state_bytes(temp.get()), 0u);
  }
}

// Sums of 4-byte integers: last_block through the counted word; Max: through the flagged slots.
TEST(FlaggedSlots, ShareOneZeroedBufferWithEveryPipelineInt32Sum) {
  REQUIRE_GPU();
  share_one_zeroed_buffer_with_every_pipeline<Case<std::int32_t, std::int32_t, Op::sum>>();
}
TEST(FlaggedSlots, ShareOneZeroedBufferWithEveryPipelineInt32Max) {
  REQUIRE_GPU();
  share_one_zeroed_buffer_with_every_pipeline<Case<std::int32_t, std::int32_t, Op::max>>();
}

// A fold touches no scratch but its own block's, whichever block folds and whatever the others are
// doing (fold_partials.cuh: block 0's scratch, used before, raced with block 0 under a collector
// that folded while other blocks still reduced). Block 0 fills its global_memory scratch with a
// sentinel and holds it while block 1 folds the partials, then checks the sentinel. With the old
// fold this test failed on the H200. Both blocks are resident at once (2 blocks of 64 threads).
using FoldProblem =
    detail::Problem<detail::InputReader<float, float>, float, float, detail::SumOp, float>;
__global__ void fold_beside_a_busy_block(detail::KernelArgs<FoldProblem> args, int count,
                                         unsigned* stage, unsigned* clobbered) {
  extern __shared__ float shared[];
  ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> step(*stage);
  float* block0_scratch = args.scratch(count);
  constexpr float kSentinel = -12345.0f;
  if (blockIdx.x == 0) {
    for (unsigned i = threadIdx.x; i < blockDim.x; i += blockDim.x) block0_scratch[i] = kSentinel;
    __syncthreads();
    if (threadIdx.x == 0) {
      step.store(1u, ::cuda::memory_order_release);
      while (step.load(::cuda::memory_order_acquire) != 2u) {}
    }
    __syncthreads();
    for (unsigned i = threadIdx.x; i < blockDim.x; i += blockDim.x)
      if (::cuda::atomic_ref<float, ::cuda::thread_scope_device>(block0_scratch[i]).load(
              ::cuda::memory_order_relaxed) != kSentinel)
        atomicAdd(clobbered, 1u);
  } else {
    if (threadIdx.x == 0) while (step.load(::cuda::memory_order_acquire) != 1u) {}
    __syncthreads();
    const float total = detail::fold_partials<detail::GlobalMemoryRung, 0>(args, count, shared);
    __syncthreads();
    if (threadIdx.x == 0) {
      *args.d_out = total;
      step.store(2u, ::cuda::memory_order_release);
    }
  }
}

TEST(FlaggedSlots, FoldUsesOnlyItsOwnBlocksScratch) {
  REQUIRE_GPU();
  constexpr int kGrid = 2, kThreads = 64, kPartials = kGrid;  // the first pass's grid sizes scratch
  const std::size_t bytes = detail::temp_storage_total(kPartials, kThreads, sizeof(float), true);
  DeviceBuffer<unsigned char> temp(bytes);
  DeviceBuffer<float> out{1};
  DeviceBuffer<unsigned> counters{2};
  ASSERT_TRUE(temp.ok() && out.ok() && counters.ok());
  CUDA_OK(cudaMemset(temp.get(), 0, bytes));
  CUDA_OK(cudaMemset(counters.get(), 0, 2 * sizeof(unsigned)));
  const float partials[kPartials] = {1.5f, -4.25f};
  CUDA_OK(cudaMemcpy(temp.get() + detail::kPartialsOffset, partials, sizeof partials, cudaMemcpyHostToDevice));
  const detail::KernelArgs<FoldProblem> args{detail::InputReader<float, float>(nullptr), out.get(), 0, temp.get(), 0.0f, detail::SumOp{},
                                            false, std::uint8_t(Pipeline::last_block), false};
  fold_beside_a_busy_block<<<kGrid, kThreads, kThreads * sizeof(float)>>>(args, kPartials, counters.get(),
                                                                          counters.get() + 1);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  EXPECT_EQ(copy_to_host(counters.get() + 1), 0u) << "block 1's fold wrote into block 0's scratch";
  EXPECT_EQ(copy_to_host(out.get()), 1.5f + -4.25f);
}

// An 8-byte partial is two words, and a reader can load them while only one has landed: it must
// wait for both (flagged_slots.cuh re-polls every missing word). Block 1 publishes one word, lets
// block 0 read, and only ~20 us later publishes the other, so block 0's first loads find one word
// flagged and the other still zero; a reader that trusted the first load of either word would
// return a wrong half. Each order is tried; afterwards both words must be zero (re-armed).
__global__ void read_slot_while_its_second_word_is_late(std::uint64_t* slots, int early_word,
                                                        double value, double* got, unsigned* stage) {
  if (threadIdx.x != 0) return;
  ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device> step(*stage);
  std::uint32_t halves[2];
  memcpy(halves, &value, sizeof value);
  if (blockIdx.x == 1) {
    detail::store_word_relaxed(slots + early_word, detail::kSlotWritten | halves[early_word]);
    step.store(1u, ::cuda::memory_order_release);
    std::uint64_t start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now)); while (now - start < 20000);
    const int late_word = 1 - early_word;
    detail::store_word_relaxed(slots + late_word, detail::kSlotWritten | halves[late_word]);
  } else {
    while (step.load(::cuda::memory_order_acquire) != 1u) {}
    *got = detail::FlaggedPartialsReader<double>{slots}(0);
  }
}

TEST(FlaggedSlots, ReaderWaitsForBothWordsOfAnEightBytePartial) {
  REQUIRE_GPU();
  const double value = -3.141592653589793;  // both halves non-zero
  for (int early_word : {0, 1}) {
    SCOPED_TRACE("word " + std::to_string(early_word) + " published first");
    DeviceBuffer<std::uint64_t> slots{2};
    DeviceBuffer<double> got{1};
    DeviceBuffer<unsigned> stage{1};
    ASSERT_TRUE(slots.ok() && got.ok() && stage.ok());
    CUDA_OK(cudaMemset(slots.get(), 0, 2 * sizeof(std::uint64_t)));
    CUDA_OK(cudaMemset(got.get(), 0x7f, sizeof(double)));  // poison
    CUDA_OK(cudaMemset(stage.get(), 0, sizeof(unsigned)));
    read_slot_while_its_second_word_is_late<<<2, 32>>>(slots.get(), early_word, value, got.get(),
                                                       stage.get());
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
    const double result = copy_to_host(got.get());
    EXPECT_EQ(std::memcmp(&result, &value, sizeof value), 0) << "read " << result;
    EXPECT_EQ(copy_to_host(slots.get()), 0u);
    EXPECT_EQ(copy_to_host(slots.get() + 1), 0u);
  }
}

}  // namespace
}  // namespace gpureduce::testing
