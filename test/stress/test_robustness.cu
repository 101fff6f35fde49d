// Robustness: long CUDA-graph replays with the input copied in by a node of the same graph, eight
// concurrent streams, wrong pointers caught before launch, managed and mapped-pinned inputs, and
// launch-time errors returned by the call instead of left behind.
#include <cstdlib>

#include "gpu/common.cuh"

namespace gpureduce::testing {
namespace {

using SumI64 = Case<std::int64_t, std::int64_t, Op::sum>;

std::int64_t cub_sum(const std::int64_t* d_in, std::int64_t n) {
  DeviceBuffer<std::int64_t> out(1);
  if (SumI64::cub(d_in, out.get(), n) != cudaSuccess) return -1;
  return copy_to_host(out.get());
}

// Each pipeline (default and zeroed fast path) captured once: [copy source -> input] + reduce.
// The source changes before every replay; 1,000 replays, every result exact.
TEST(Graphs, ThousandReplaysWithInputCopiedInByTheGraph) {
  REQUIRE_GPU();
  const std::int64_t n = 1'000'003;
  DeviceBuffer<std::int64_t> source{std::size_t(n)}, input{std::size_t(n)}, out{1};
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (Pipeline pipeline : kAllPipelines) {
    for (bool zeroed : {false, true}) {
      Options options{Strategy::automatic, pipeline};
      options.temp_storage_zeroed = zeroed;
      SCOPED_TRACE(describe(options, n, 0, 0));
      std::size_t bytes = 0;
      ASSERT_EQ(DeviceReduce::Sum(nullptr, bytes, input.get(), out.get(), n, stream, options), cudaSuccess);
      DeviceBuffer<unsigned char> temp(bytes);
      CUDA_OK(prepare_temp_storage(temp.get(), bytes, zeroed));
      CUDA_OK(cudaDeviceSynchronize());
      cudaGraph_t graph;
      cudaGraphExec_t exec;
      CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
      cudaError_t copy = cudaMemcpyAsync(input.get(), source.get(), n * sizeof(std::int64_t),
                                         cudaMemcpyDeviceToDevice, stream);
      cudaError_t reduce = DeviceReduce::Sum(temp.get(), bytes, input.get(), out.get(), n, stream, options);
      CUDA_OK(cudaStreamEndCapture(stream, &graph));
      ASSERT_EQ(copy, cudaSuccess);
      ASSERT_EQ(reduce, cudaSuccess) << last_error_message();
      CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
      for (int replay = 0; replay < 1000; ++replay) {
        const std::uint64_t seed = fresh_seed();
        CUDA_OK(fill_random(source.get(), n, seed, Fill::random, stream));  // full-range ints, wrapping
        CUDA_OK(cudaMemsetAsync(out.get(), kPoisonByte, sizeof(std::int64_t), stream));
        CUDA_OK(cudaGraphLaunch(exec, stream));
        CUDA_OK(cudaStreamSynchronize(stream));
        const std::int64_t got = copy_to_host(out.get());
        ASSERT_EQ(got, cub_sum(source.get(), n)) << "replay " << replay << " seed " << seed;
      }
      CUDA_OK(cudaGraphExecDestroy(exec));
      CUDA_OK(cudaGraphDestroy(graph));
    }
  }
  CUDA_OK(cudaStreamDestroy(stream));
}

// Eight streams, each with its own temp storage and array, 100 rounds without host sync.
TEST(Streams, EightStreamsHundredRounds) {
  REQUIRE_GPU();
  constexpr int kStreams = 8, kRounds = 100;
  const std::int64_t n = 777'777;
  for (Pipeline pipeline : kAllPipelines) {
    const Options options{Strategy::automatic, pipeline};
    SCOPED_TRACE(describe(options, n, 0, 0));
    std::vector<cudaStream_t> streams(kStreams);
    std::vector<DeviceBuffer<std::int64_t>> in(kStreams), out(kStreams);
    std::vector<DeviceBuffer<unsigned char>> temp(kStreams);
    std::size_t bytes = 0;
    for (int s = 0; s < kStreams; ++s) {
      CUDA_OK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
      in[s].resize(std::size_t(n));
      out[s].resize(kRounds);
      CUDA_OK(fill_random(in[s].get(), n, fresh_seed(), Fill::random));
      ASSERT_EQ(DeviceReduce::Sum(nullptr, bytes, in[s].get(), out[s].get(), n, streams[s], options), cudaSuccess);
      temp[s].resize(bytes);
      CUDA_OK(cudaMemset(out[s].get(), kPoisonByte, kRounds * sizeof(std::int64_t)));
    }
    CUDA_OK(cudaDeviceSynchronize());
    for (int round = 0; round < kRounds; ++round)
      for (int s = 0; s < kStreams; ++s)
        ASSERT_EQ(DeviceReduce::Sum(temp[s].get(), bytes, in[s].get(), out[s].get() + round, n, streams[s], options), cudaSuccess)
            << last_error_message();
    CUDA_OK(cudaDeviceSynchronize());
    for (int s = 0; s < kStreams; ++s) {
      const std::int64_t expected = cub_sum(in[s].get(), n);
      std::vector<std::int64_t> results(kRounds);
      CUDA_OK(cudaMemcpy(results.data(), out[s].get(), kRounds * sizeof(std::int64_t), cudaMemcpyDeviceToHost));
      for (int round = 0; round < kRounds; ++round)
        ASSERT_EQ(results[round], expected) << "stream " << s << " round " << round;
      CUDA_OK(cudaStreamDestroy(streams[s]));
    }
  }
}

class WrongPointers : public ::testing::Test {
 protected:
  static constexpr std::int64_t kItems = 4096;
  void SetUp() override {
    REQUIRE_GPU();
    in_.resize(kItems);
    out_.resize(1);
    CUDA_OK(fill_random(in_.get(), kItems, fresh_seed(), Fill::random));
    options_.pointer_check = PointerCheck::on;
    CUDA_OK(DeviceReduce::Sum(nullptr, bytes_, in_.get(), out_.get(), kItems, nullptr, options_));
    temp_.resize(bytes_);
  }
  // Rejected before any launch, then the context still reduces correctly.
  void expect_rejected_then_recover(cudaError_t error, const char* what) {
    EXPECT_EQ(error, cudaErrorInvalidValue);
    EXPECT_NE(std::string(last_error_message()).find(what), std::string::npos) << last_error_message();
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
    std::int64_t result = 0;
    ASSERT_TRUE((run_gpureduce<SumI64>(in_.get(), kItems, options_, result)));
    EXPECT_EQ(result, cub_sum(in_.get(), kItems));
  }
  DeviceBuffer<std::int64_t> in_, out_;
  DeviceBuffer<unsigned char> temp_;
  std::size_t bytes_ = 0;
  Options options_;
};

TEST_F(WrongPointers, PageableHostInput) {
  std::vector<std::int64_t> host(kItems, 1);
  expect_rejected_then_recover(DeviceReduce::Sum(temp_.get(), bytes_, host.data(), out_.get(), kItems, nullptr, options_), "d_in");
}
TEST_F(WrongPointers, PageableHostOutput) {
  std::int64_t host_out = 0;
  expect_rejected_then_recover(DeviceReduce::Sum(temp_.get(), bytes_, in_.get(), &host_out, kItems, nullptr, options_), "d_out");
}
TEST_F(WrongPointers, FreedDeviceInput) {
  std::int64_t* freed = nullptr;
  CUDA_OK(cudaMalloc(&freed, kItems * sizeof(std::int64_t)));
  CUDA_OK(cudaFree(freed));
  expect_rejected_then_recover(DeviceReduce::Sum(temp_.get(), bytes_, freed, out_.get(), kItems, nullptr, options_), "d_in");
}
TEST_F(WrongPointers, FreedDeviceOutput) {
  std::int64_t* freed = nullptr;
  CUDA_OK(cudaMalloc(&freed, sizeof(std::int64_t)));
  CUDA_OK(cudaFree(freed));
  expect_rejected_then_recover(DeviceReduce::Sum(temp_.get(), bytes_, in_.get(), freed, kItems, nullptr, options_), "d_out");
}

// Managed memory and mapped pinned host memory are valid inputs.
TEST(Memory, ManagedAndMappedPinnedInputs) {
  REQUIRE_GPU();
  const std::int64_t n = 1'000'003;
  Options options;
  options.pointer_check = PointerCheck::on;
  std::int64_t* managed = nullptr;
  CUDA_OK(cudaMallocManaged(&managed, n * sizeof(std::int64_t)));
  std::int64_t* pinned = nullptr;
  CUDA_OK(cudaHostAlloc(&pinned, n * sizeof(std::int64_t), cudaHostAllocMapped));
  std::int64_t expected = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    managed[i] = pinned[i] = std::int64_t(mix64(std::uint64_t(i)) % 2001) - 1000;
    expected += managed[i];
  }
  for (const std::int64_t* input : {static_cast<const std::int64_t*>(managed), static_cast<const std::int64_t*>(pinned)}) {
    for (Pipeline pipeline : kAllPipelines) {
      options.pipeline = pipeline;
      std::int64_t result = 0;
      ASSERT_TRUE((run_gpureduce<SumI64>(input, n, options, result)));
      EXPECT_EQ(result, expected) << (input == managed ? "managed" : "mapped pinned") << " " << to_string(pipeline);
    }
  }
  CUDA_OK(cudaFree(managed));
  CUDA_OK(cudaFreeHost(pinned));
}

// A launch configuration the device cannot run comes back as the call's error with a message, and
// no error is left for the caller's next CUDA call. Forced through Options: a 64-byte accumulator
// with 1024 threads needs 64 KiB of dynamic shared memory per block for the tree, above the 48 KiB
// a kernel gets without opting in; 256 threads (16 KiB) run, and give the exact answer.
struct Wide {
  float v[16];
};
struct WideAdd {
  __host__ __device__ Wide operator()(const Wide& a, const Wide& b) const {
    Wide r;
    for (int i = 0; i < 16; ++i) r.v[i] = a.v[i] + b.v[i];
    return r;
  }
};
__global__ void fill_wide(Wide* out, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    for (int k = 0; k < 16; ++k) out[i].v[k] = float(int(mix64(seed ^ std::uint64_t(i * 16 + k)) % 7) - 3);
}

TEST(LaunchErrors, ImpossibleConfigurationReturnedNotLeftSticky) {
  REQUIRE_GPU();
  const std::int64_t n = 100'003;
  const std::uint64_t seed = fresh_seed();
  DeviceBuffer<Wide> in{std::size_t(n)}, out{1};
  fill_wide<<<256, 256>>>(in.get(), n, seed);
  CUDA_OK(cudaGetLastError());
  const Wide zero{};
  Options impossible{Strategy::sequential, Pipeline::two_kernel, 1024};
  std::size_t bytes = 0;
  const cudaError_t error = Reduce(nullptr, bytes, in.get(), out.get(), n, WideAdd{}, zero, nullptr, impossible);
  EXPECT_NE(error, cudaSuccess);
  EXPECT_NE(std::string(last_error_message()).find("gpureduce"), std::string::npos) << last_error_message();
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "an error was left behind";
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  const Options possible{Strategy::sequential, Pipeline::two_kernel, 256};
  ASSERT_EQ(Reduce(nullptr, bytes, in.get(), out.get(), n, WideAdd{}, zero, nullptr, possible), cudaSuccess)
      << last_error_message();
  DeviceBuffer<unsigned char> temp(bytes);
  ASSERT_EQ(Reduce(temp.get(), bytes, in.get(), out.get(), n, WideAdd{}, zero, nullptr, possible), cudaSuccess)
      << last_error_message();
  CUDA_OK(cudaDeviceSynchronize());
  const Wide result = copy_to_host(out.get());
  for (int k = 0; k < 16; ++k) {
    std::int64_t expected = 0;
    for (std::int64_t i = 0; i < n; ++i) expected += std::int64_t(mix64(seed ^ std::uint64_t(i * 16 + k)) % 7) - 3;
    EXPECT_EQ(double(result.v[k]), double(expected)) << "lane " << k;
  }
}

}  // namespace
}  // namespace gpureduce::testing
