// What the library holds per CUDA context, looked at directly (detail/slot_pool.hpp's held_chunks):
// release_cached_state gives back everything a context holds, keeps what live graphs hold, and a
// later call starts afresh.
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "gpu/common.cuh"
#include "gpu/context_introspection.cuh"
#include "gpu/exact_sums.cuh"

namespace gpureduce::testing {
namespace {

using detail::held_chunks;

TEST(ContextState, ReleaseGivesBackEverythingOfTheContext) {
  REQUIRE_GPU();
  std::vector<cudaStream_t> streams(3);
  for (cudaStream_t& s : streams) CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (cudaStream_t s : streams) exact_sums_on_stream(s, "before release");
  captured_exact_sums("before release");
  wait_for_graph_slots();
  const unsigned long long context = current_context_id();
  EXPECT_GT(chunks_of(context), 0u) << "the reductions above should have taken slots";
  const std::size_t streams_holding = detail::stream_owned_slots_in_use();

  CUDA_OK(release_cached_state());
  EXPECT_EQ(chunks_of(context), 0u) << "release left chunks of the current context";
  EXPECT_LE(detail::stream_owned_slots_in_use() + streams.size(), streams_holding)
      << "release left streams' slots";

  for (cudaStream_t s : streams) exact_sums_on_stream(s, "after release");
  captured_exact_sums("after release");
  wait_for_graph_slots();
  EXPECT_GT(chunks_of(context), 0u) << "reductions after a release allocate afresh";
  CUDA_OK(release_cached_state());
  CUDA_OK(release_cached_state());  // nothing held: still fine
  EXPECT_EQ(chunks_of(context), 0u);
  for (cudaStream_t s : streams) CUDA_OK(cudaStreamDestroy(s));
}

// A live graph keeps its slot through a release, replays correctly, and gives it back later.
TEST(ContextState, ReleaseKeepsWhatLiveGraphsHold) {
  REQUIRE_GPU();
  CUDA_OK(release_cached_state());
  CapturedSums captured;
  captured.replay_and_check("before release");
  CUDA_OK(release_cached_state());
  const unsigned long long context = current_context_id();
  int lent = 0;
  for (const auto& chunk : held_chunks())
    if (chunk.context_id == context) lent += chunk.slots_out;
  EXPECT_GT(lent, 0) << "the live graph's slots should survive the release";
  captured.replay_and_check("after release");
  captured.destroy();
  wait_for_graph_slots();
  CUDA_OK(release_cached_state());
  EXPECT_EQ(chunks_of(context), 0u);
}

// Every chunk the library holds lies on the device of the context it is filed under.
TEST(ContextState, ChunksLieOnTheirContextsDevice) {
  REQUIRE_GPU();
  exact_sums_on_stream(nullptr, "legacy stream");
  for (const auto& chunk : held_chunks()) {
    cudaPointerAttributes attributes{};
    if (chunk.context_id != current_context_id()) continue;  // other contexts' memory: not mapped
    CUDA_OK(cudaPointerGetAttributes(&attributes, chunk.base));
    EXPECT_EQ(attributes.type, cudaMemoryTypeDevice);
    EXPECT_EQ(attributes.device, chunk.device);
  }
}

}  // namespace
}  // namespace gpureduce::testing
