// Beyond 32-bit offsets: a uint8 -> uint64 sum over more than 2^31 items (through the template
// header), every strategy x pipeline, against CUB and an exact host sum.
#include <thread>

#include "gpu/common.cuh"

namespace gpureduce::testing {
namespace {

__global__ void fill_bytes(std::uint8_t* out, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = std::uint8_t(mix64(seed + std::uint64_t(i)) >> 56);
}

TEST(Large, Uint8SumBeyond2To31Items) {
  REQUIRE_GPU();
  const std::int64_t n = (std::int64_t(1) << 31) + (1 << 20) + 7;
  const std::uint64_t seed = fresh_seed();
  DeviceBuffer<std::uint8_t> buffer{std::size_t(n + 1)};
  ASSERT_TRUE(buffer.ok()) << "could not allocate " << n << " bytes";
  fill_bytes<<<4096, 256>>>(buffer.get(), n + 1, seed);
  CUDA_OK(cudaGetLastError());
  const std::uint8_t* d_in = buffer.get() + 1;  // misaligned too

  // Exact host sum over the same generator, on a few threads.
  const int kThreads = 8;
  std::vector<std::uint64_t> partial(kThreads, 0);
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreads; ++t)
    workers.emplace_back([&, t] {
      for (std::int64_t i = 1 + t; i <= n; i += kThreads) partial[t] += mix64(seed + std::uint64_t(i)) >> 56;
    });
  for (auto& w : workers) w.join();
  std::uint64_t exact = 0;
  for (auto p : partial) exact += p;

  DeviceBuffer<std::uint64_t> d_ref(1), d_out(1);
  std::size_t bytes = 0;
  CUDA_OK(cub::DeviceReduce::Sum(nullptr, bytes, d_in, d_ref.get(), n));
  {
    DeviceBuffer<unsigned char> temp(bytes);
    CUDA_OK(cub::DeviceReduce::Sum(temp.get(), bytes, d_in, d_ref.get(), n));
    CUDA_OK(cudaDeviceSynchronize());
  }
  ASSERT_EQ(copy_to_host(d_ref.get()), exact) << "CUB disagrees with the host";

  std::vector<Options> configurations{Options{}};
  for (Strategy strategy : kAllStrategies)
    for (Pipeline pipeline : kAllPipelines) configurations.push_back(Options{strategy, pipeline});
  for (const Options& options : configurations) {
    SCOPED_TRACE(describe(options, n, 1, seed));
    std::size_t our_bytes = 0;
    ASSERT_EQ(DeviceReduce::Sum(nullptr, our_bytes, d_in, d_out.get(), n, nullptr, options), cudaSuccess)
        << last_error_message();
    DeviceBuffer<unsigned char> temp(our_bytes);
    CUDA_OK(cudaMemset(d_out.get(), kPoisonByte, sizeof(std::uint64_t)));
    ASSERT_EQ(DeviceReduce::Sum(temp.get(), our_bytes, d_in, d_out.get(), n, nullptr, options), cudaSuccess)
        << last_error_message();
    CUDA_OK(cudaDeviceSynchronize());
    EXPECT_EQ(copy_to_host(d_out.get()), exact);
  }
}

}  // namespace
}  // namespace gpureduce::testing
