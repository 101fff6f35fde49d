// Shared by the context tests (resets, release, several devices): sums whose answer is exact, on a
// stream or captured in a graph, and poisoned buffers that must stay untouched. Public API only
// (and the count of slots lent to graphs), so the reset tests also build against older libraries.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gpu/common.cuh"
#include "gpureduce/detail/graph_owned_state.hpp"

namespace gpureduce::testing {

constexpr std::int64_t kExactItems = (std::int64_t(1) << 20) + 5;  // last_block on a stream slot
constexpr int kSumsPerStream = 20;

// Buffers allocated right after a reset and filled with poison; they must stay poisoned. A new
// context's allocations reuse the last one's addresses, so 64 buffers of each small size the
// allocator sorts into its own pages (256 B to 64 KiB, the library's chunk size) cover where the
// last context's small allocations lay, its state among them.
class PoisonedBuffers {
 public:
  PoisonedBuffers() {
    std::vector<std::size_t> sizes;
    for (std::size_t small : {std::size_t(256), std::size_t(4) << 10, std::size_t(32) << 10,
                              std::size_t(64) << 10})
      sizes.insert(sizes.end(), 64, small);
    for (std::size_t large : {std::size_t(2) << 20, std::size_t(8) << 20, std::size_t(32) << 20})
      sizes.push_back(large);
    for (std::size_t bytes : sizes) {
      buffers_.push_back(std::make_unique<DeviceBuffer<unsigned char>>(bytes));
      EXPECT_TRUE(buffers_.back()->ok());
      EXPECT_EQ(cudaMemset(buffers_.back()->get(), kPoisonByte, bytes), cudaSuccess);
    }
  }
  void expect_untouched(const std::string& where) const {
    for (const auto& b : buffers_)
      EXPECT_TRUE(all_bytes_equal(device_bytes(b->get(), 0, b->size()), kPoisonByte))
          << where << ": a poisoned buffer of " << b->size() << " bytes was written";
  }

 private:
  std::vector<std::unique_ptr<DeviceBuffer<unsigned char>>> buffers_;
};

// Up to kSumsPerStream sums of T (all `value`, so the answer is exact) with default Options, each
// into its own poisoned output, on garbage temp storage.
template <class T>
struct ExactSums {
  T value;
  DeviceBuffer<T> in{std::size_t(kExactItems)};
  DeviceBuffer<T> out{kSumsPerStream};
  DeviceBuffer<unsigned char> temp;
  std::size_t bytes = 0;

  explicit ExactSums(T v) : value(v) {
    EXPECT_EQ(DeviceReduce::Sum(nullptr, bytes, in.get(), out.get(), kExactItems), cudaSuccess);
    temp.resize(bytes);
    EXPECT_TRUE(in.ok() && out.ok() && temp.ok());
    fill_constant<<<256, 256>>>(in.get(), kExactItems, v);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    EXPECT_EQ(cudaMemset(temp.get(), kPoisonByte, bytes), cudaSuccess);
    poison_outputs();
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  void poison_outputs() {
    EXPECT_EQ(cudaMemset(out.get(), kPoisonByte, kSumsPerStream * sizeof(T)), cudaSuccess);
  }
  void enqueue(cudaStream_t stream, int k) {
    EXPECT_EQ(DeviceReduce::Sum(temp.get(), bytes, in.get(), out.get() + k, kExactItems, stream),
              cudaSuccess)
        << last_error_message();
  }
  // The first `count` outputs hold the exact sum (after the work has drained).
  void expect_exact(const std::string& where, int count = kSumsPerStream) {
    std::vector<T> got(static_cast<std::size_t>(count));
    ASSERT_EQ(cudaMemcpy(got.data(), out.get(), got.size() * sizeof(T), cudaMemcpyDeviceToHost),
              cudaSuccess);
    const T want = T(value * T(kExactItems));
    int wrong = 0;
    for (T g : got) wrong += !same_bits(g, want);
    EXPECT_EQ(wrong, 0) << where << ": " << wrong << " of " << count << " sums wrong, e.g. "
                        << show(got[0]) << " for " << show(want);
  }
};

// On `stream`: kSumsPerStream float, int32 and double sums, interleaved, then checked.
inline void exact_sums_on_stream(cudaStream_t stream, const std::string& where) {
  ExactSums<float> f(1.0f);
  ExactSums<std::int32_t> i(3);
  ExactSums<double> d(0.5);
  for (int k = 0; k < kSumsPerStream; ++k) {
    f.enqueue(stream, k);
    i.enqueue(stream, k);
    d.enqueue(stream, k);
  }
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess) << where;
  f.expect_exact(where + " float");
  i.expect_exact(where + " int32");
  d.expect_exact(where + " double");
}

// Float, int32 and double sums captured into one graph (automatic inside a capture: graph-owned
// state for the first two), replayed with the outputs poisoned before each replay.
class CapturedSums {
 public:
  static constexpr int kPerType = 3;
  CapturedSums() {
    EXPECT_EQ(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), cudaSuccess);
    EXPECT_EQ(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal), cudaSuccess);
    for (int k = 0; k < kPerType; ++k) {
      f_.enqueue(stream_, k);
      i_.enqueue(stream_, k);
      d_.enqueue(stream_, k);
    }
    EXPECT_EQ(cudaStreamEndCapture(stream_, &graph_), cudaSuccess);
    EXPECT_EQ(cudaGraphInstantiate(&exec_, graph_, 0), cudaSuccess);
  }
  ~CapturedSums() { destroy(); }
  void replay_and_check(const std::string& where) {
    f_.poison_outputs();
    i_.poison_outputs();
    d_.poison_outputs();
    // The poison is a legacy-stream memset, which the non-blocking stream does not wait for.
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << where;
    ASSERT_EQ(cudaGraphLaunch(exec_, stream_), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess) << where;
    f_.expect_exact(where + " captured float", kPerType);
    i_.expect_exact(where + " captured int32", kPerType);
    d_.expect_exact(where + " captured double", kPerType);
  }
  void destroy() {
    if (exec_) EXPECT_EQ(cudaGraphExecDestroy(exec_), cudaSuccess);
    if (graph_) EXPECT_EQ(cudaGraphDestroy(graph_), cudaSuccess);
    if (stream_) EXPECT_EQ(cudaStreamDestroy(stream_), cudaSuccess);
    exec_ = nullptr;
    graph_ = nullptr;
    stream_ = nullptr;
  }

 private:
  ExactSums<float> f_{1.0f};
  ExactSums<std::int32_t> i_{3};
  ExactSums<double> d_{0.5};
  cudaStream_t stream_ = nullptr;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

// Waits (up to 5 s) until every slot the library lent to graphs is back: a graph's slot returns
// on CUDA's internal thread some time after the graph and its executables are destroyed.
inline void wait_for_graph_slots() {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (detail::graph_owned_slots_in_use() != 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(detail::graph_owned_slots_in_use(), 0u);
}

// A graph of captured sums replayed three times, then destroyed; its slots back in the pool.
inline void captured_exact_sums(const std::string& where) {
  {
    CapturedSums captured;
    for (int replay = 0; replay < 3; ++replay)
      captured.replay_and_check(where + " replay " + std::to_string(replay));
  }
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  wait_for_graph_slots();
}

}  // namespace gpureduce::testing
