// last_block's counted word for sums of 4-byte integers (pipeline/counted_sum.cuh): its decode is
// exact at the ends of the partials' range and at the largest grid it takes, exactly one block
// learns the total, the word is zero again after every call, and it is the only state the path
// touches (the slot and partials regions keep whatever they held).
#include <algorithm>
#include <vector>

#include "gpu/common.cuh"
#include "gpureduce/detail/pipeline/counted_sum.cuh"

namespace gpureduce::testing {
namespace {

static_assert(detail::kCountedSumMaxGrid == 4096);
static_assert(detail::uses_counted_sum<detail::SumOp, std::int32_t>(4096));
static_assert(!detail::uses_counted_sum<detail::SumOp, std::int32_t>(4097));
static_assert(!detail::uses_counted_sum<detail::SumOp, std::int32_t>(1));
static_assert(detail::uses_counted_sum<detail::SumOp, std::uint32_t>(2));
static_assert(!detail::uses_counted_sum<detail::SumOp, std::int64_t>(2));
static_assert(!detail::uses_counted_sum<detail::SumOp, float>(2));
static_assert(!detail::uses_counted_sum<detail::MinOp, std::int32_t>(2));

// Each block adds partials[blockIdx.x]; the block told it is last writes the total and its index.
template <class T>
__global__ void add_counted_kernel(unsigned long long* word, const T* partials, T* total,
                                   int* last_blocks, int* last_index) {
  if (threadIdx.x != 0) return;
  T mine;
  if (detail::add_counted(word, partials[blockIdx.x], mine)) {
    *total = mine;
    *last_index = int(blockIdx.x);
    atomicAdd(last_blocks, 1);
  }
}

// Partials chosen to sit at the ends of the range, where a count that absorbed a carry or a
// borrow from the sum would show, at grids up to the largest the word takes.
template <class T>
void decodes_extreme_partials() {
  using U = std::uint32_t;
  const std::vector<U> patterns = {0x80000000u, 0x7fffffffu, 0xffffffffu, 0x00000001u};
  for (int grid : {2, 3, 255, 4095, 4096}) {
    for (int pattern = 0; pattern < 6; ++pattern) {
      std::vector<T> host(grid);
      std::uint64_t state = fresh_seed();
      for (int b = 0; b < grid; ++b) {
        U bits;
        if (pattern < 4) bits = patterns[pattern];
        else if (pattern == 4) bits = (b % 2) ? 0x7fffffffu : 0x80000000u;  // alternating ends
        else bits = U(state = mix64(state));                               // random
        std::memcpy(&host[b], &bits, sizeof bits);
      }
      U expected = 0;
      for (T v : host) { U bits; std::memcpy(&bits, &v, sizeof bits); expected += bits; }
      DeviceBuffer<T> partials{std::size_t(grid)}, total{1};
      DeviceBuffer<unsigned long long> word{1};
      DeviceBuffer<int> counters{2};
      ASSERT_TRUE(partials.ok() && total.ok() && word.ok() && counters.ok());
      CUDA_OK(cudaMemcpy(partials.get(), host.data(), grid * sizeof(T), cudaMemcpyHostToDevice));
      CUDA_OK(cudaMemset(word.get(), 0, sizeof(unsigned long long)));
      CUDA_OK(cudaMemset(counters.get(), 0, 2 * sizeof(int)));
      CUDA_OK(cudaMemset(total.get(), kPoisonByte, sizeof(T)));
      for (int call = 0; call < 2; ++call) {  // the second call starts from the word the first left
        SCOPED_TRACE("grid " + std::to_string(grid) + " pattern " + std::to_string(pattern) + " call " + std::to_string(call));
        CUDA_OK(cudaMemset(counters.get(), 0, sizeof(int)));
        add_counted_kernel<T><<<grid, 32>>>(word.get(), partials.get(), total.get(), counters.get(), counters.get() + 1);
        CUDA_OK(cudaGetLastError());
        CUDA_OK(cudaDeviceSynchronize());
        EXPECT_EQ(copy_to_host(counters.get()), 1) << "blocks told they were last";
        const T got = copy_to_host(total.get());
        U got_bits;
        std::memcpy(&got_bits, &got, sizeof got_bits);
        EXPECT_EQ(got_bits, expected);
        EXPECT_EQ(copy_to_host(word.get()), 0ull) << "word not re-armed";
      }
    }
  }
}

TEST(CountedSum, DecodesExtremePartialsInt32) { REQUIRE_GPU(); decodes_extreme_partials<std::int32_t>(); }
TEST(CountedSum, DecodesExtremePartialsUint32) { REQUIRE_GPU(); decodes_extreme_partials<std::uint32_t>(); }

// Through the API, full-range inputs (sums wrap): bitwise CUB at every grid up to the word's
// limit and one past it (where the classic partials array takes over: the slots hold 2048), on
// zeroed storage call after call and on
// garbage storage with the per-call memset. On garbage storage, the slot and partials regions
// keep their garbage while the counted word serves (nothing published), and the partials are
// written once it no longer does: that is what shows which path ran.
template <class T>
void last_block_through_the_api() {
  using C = Case<T, T, Op::sum>;
  for (int grid : {2, 3, 64, 2048, 4096, 4097}) {
    const std::int64_t n = std::int64_t(grid) * 128 * 4 + 5;  // every block has work
    const std::uint64_t seed = fresh_seed();
    DeviceBuffer<T> in{std::size_t(n)}, out{1}, ref{1};
    ASSERT_TRUE(in.ok() && out.ok() && ref.ok());
    CUDA_OK(fill_random(in.get(), n, seed, Fill::random));
    CUDA_OK(C::cub(in.get(), ref.get(), n));
    // sequential: 4 waves of resident blocks; 128-thread blocks leave room for 4097 of them on a
    // 132-SM H100 or H200 (256-thread blocks: 3168 on the H200).
    Options options{Strategy::sequential, Pipeline::last_block, 128, grid};
    options.temp_storage_zeroed = true;
    SCOPED_TRACE(C::name() + " " + describe(options, n, 0, seed));
    LaunchPlan plan;
    ASSERT_EQ(C::plan(plan, in.get(), n, options), cudaSuccess) << last_error_message();
    if (plan.grid_blocks != grid) {  // only a device smaller than an H100 may cap the grid
      int device = 0, sms = 0;
      CUDA_OK(cudaGetDevice(&device));
      CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
      ASSERT_TRUE(grid > 2048 && sms < 128) << "grid capped at " << plan.grid_blocks << " on " << sms << " SMs";
      continue;
    }
    std::size_t bytes = 0;
    ASSERT_EQ(C::run(nullptr, bytes, in.get(), out.get(), n, nullptr, options), cudaSuccess);
    ASSERT_GE(bytes, kLayoutPartialsOffset + std::size_t(grid) * sizeof(T));
    DeviceBuffer<unsigned char> temp(bytes);
    ASSERT_TRUE(temp.ok());
    CUDA_OK(cudaMemset(temp.get(), 0, bytes));
    for (int call = 0; call < 3; ++call) {
      CUDA_OK(cudaMemset(out.get(), kPoisonByte, sizeof(T)));
      ASSERT_EQ(C::run(temp.get(), bytes, in.get(), out.get(), n, nullptr, options), cudaSuccess) << last_error_message();
      CUDA_OK(cudaDeviceSynchronize());
      EXPECT_TRUE(same_bits(copy_to_host(out.get()), copy_to_host(ref.get()))) << "call " << call;
      EXPECT_TRUE(all_bytes_equal(device_bytes(temp.get(), 0, kLayoutPartialsOffset), 0)) << "call " << call << " left state behind";
    }
    Options per_call = options;
    per_call.temp_storage_zeroed = false;
    CUDA_OK(prepare_temp_storage(temp.get(), bytes, false));
    CUDA_OK(cudaMemset(out.get(), kPoisonByte, sizeof(T)));
    ASSERT_EQ(C::run(temp.get(), bytes, in.get(), out.get(), n, nullptr, per_call), cudaSuccess) << last_error_message();
    CUDA_OK(cudaDeviceSynchronize());
    EXPECT_TRUE(same_bits(copy_to_host(out.get()), copy_to_host(ref.get()))) << "memset path";
    const auto partials = device_bytes(temp.get(), kLayoutPartialsOffset, std::size_t(grid) * sizeof(T));
    ASSERT_FALSE(partials.empty());
    if (grid <= 4096) {
      EXPECT_TRUE(all_bytes_equal(device_bytes(temp.get(), kLayoutControlBytes, kLayoutPartialsOffset - kLayoutControlBytes), kPoisonByte))
          << "the counted path touched the slot region";
      EXPECT_TRUE(all_bytes_equal(partials, kPoisonByte)) << "the counted path published partials";
    } else {
      EXPECT_FALSE(all_bytes_equal(partials, kPoisonByte)) << "past the word's limit no partial was written";
    }
  }
}

TEST(CountedSum, LastBlockThroughTheApiInt32) { REQUIRE_GPU(); last_block_through_the_api<std::int32_t>(); }
TEST(CountedSum, LastBlockThroughTheApiUint32) { REQUIRE_GPU(); last_block_through_the_api<std::uint32_t>(); }

}  // namespace
}  // namespace gpureduce::testing
