// The library's state on a machine with two GPUs: each device's context keeps its own (state made
// on device 1 is never used on device 0, and the reverse), and releasing one device's state while
// the other reduces leaves the other alone. Label `multigpu`: skipped with fewer than two GPUs,
// failed instead under GPUREDUCE_REQUIRE_GPU=1.
#include <algorithm>
#include <string>
#include <vector>

#include "gpu/common.cuh"
#include "gpu/context_introspection.cuh"
#include "gpu/exact_sums.cuh"
#include "multigpu/multigpu_common.hpp"

namespace gpureduce::testing {
namespace {

// Every chunk filed under `device`'s current context lies on that device; none of another
// context does.
void expect_chunks_on_their_device(int device) {
  ASSERT_EQ(cudaSetDevice(device), cudaSuccess);
  const unsigned long long context = current_context_id();
  int mine = 0;
  for (const auto& chunk : detail::held_chunks()) {
    if (chunk.context_id != context) {
      EXPECT_NE(chunk.device, device) << "a chunk of another context on device " << device;
      continue;
    }
    ++mine;
    EXPECT_EQ(chunk.device, device);
    cudaPointerAttributes attributes{};
    ASSERT_EQ(cudaPointerGetAttributes(&attributes, chunk.base), cudaSuccess);
    EXPECT_EQ(attributes.device, device) << "a chunk filed under device " << device << " lies elsewhere";
  }
  EXPECT_GT(mine, 0) << "device " << device << " should hold state after its reductions";
}

TEST(TwoDevices, EachContextKeepsItsOwnState) {
  REQUIRE_GPUS(2);
  std::vector<unsigned long long> ids;
  for (int device : {1, 0, 1, 0}) {
    ASSERT_EQ(cudaSetDevice(device), cudaSuccess);
    const std::string where = "device " + std::to_string(device);
    PoisonedBuffers poison;
    exact_sums_on_stream(nullptr, where + " legacy stream");
    exact_sums_on_stream(cudaStreamPerThread, where + " per-thread stream");
    cudaStream_t s = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    exact_sums_on_stream(s, where + " new stream");
    ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);
    captured_exact_sums(where);
    poison.expect_untouched(where);
    expect_chunks_on_their_device(device);
    ids.push_back(current_context_id());
  }
  EXPECT_NE(ids[0], ids[1]) << "the two devices' contexts should differ";
  EXPECT_EQ(ids[0], ids[2]);
  EXPECT_EQ(ids[1], ids[3]);
}

// Device 1 sums 2^28 ones ten times over while device 0 releases its state: device 0's release
// waits for nothing of device 1's, and device 1's sums and state are untouched.
TEST(TwoDevices, ReleaseLeavesTheOtherDeviceAlone) {
  REQUIRE_GPUS(2);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  exact_sums_on_stream(nullptr, "device 0");
  const unsigned long long context0 = current_context_id();

  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  const unsigned long long context1 = current_context_id();
  constexpr std::int64_t kItems = std::int64_t(1) << 28;
  // A sum below the streaming range takes the stream's slot, so device 1 holds state; the long
  // sums (streaming: no slot) keep device 1 busy while device 0 releases.
  constexpr std::int64_t kSlotItems = std::int64_t(1) << 20;
  constexpr int kSums = 10;
  DeviceBuffer<std::int32_t> in(kItems), out(kSums);
  ASSERT_TRUE(in.ok() && out.ok());
  fill_constant<<<1024, 256>>>(in.get(), kItems, 1);
  ASSERT_EQ(cudaMemset(out.get(), kPoisonByte, kSums * sizeof(std::int32_t)), cudaSuccess);
  std::size_t bytes = 0;
  ASSERT_EQ(DeviceReduce::Sum(nullptr, bytes, in.get(), out.get(), kItems), cudaSuccess);
  std::size_t slot_call_bytes = 0;
  ASSERT_EQ(DeviceReduce::Sum(nullptr, slot_call_bytes, in.get(), out.get(), kSlotItems), cudaSuccess);
  bytes = std::max(bytes, slot_call_bytes);
  DeviceBuffer<unsigned char> temp(bytes);
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_EQ(DeviceReduce::Sum(temp.get(), bytes, in.get(), out.get(), kSlotItems, s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  ASSERT_GT(chunks_of(context1), 0u) << "device 1's stream took no slot: nothing to leave alone";
  for (int k = 0; k < kSums; ++k)
    ASSERT_EQ(DeviceReduce::Sum(temp.get(), bytes, in.get(), out.get() + k, kItems, s), cudaSuccess);

  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  EXPECT_EQ(release_cached_state(), cudaSuccess) << last_error_message();
  EXPECT_EQ(chunks_of(context0), 0u);
  EXPECT_GT(chunks_of(context1), 0u) << "device 0's release took device 1's state";

  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  std::vector<std::int32_t> got(kSums);
  ASSERT_EQ(cudaMemcpy(got.data(), out.get(), sizeof(std::int32_t) * kSums, cudaMemcpyDeviceToHost),
            cudaSuccess);
  for (int k = 0; k < kSums; ++k) EXPECT_EQ(got[k], std::int32_t(kItems)) << "sum " << k;
  ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
}

}  // namespace
}  // namespace gpureduce::testing
