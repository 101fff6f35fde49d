// Accuracy::correctly_rounded on the GPU against MPFR (test/common/mpfr_oracle.hpp): bitwise equal
// to the exact sum rounded once, for every shipped pair, every input shape of the issue, sizes
// around every warp, block and tile boundary, aligned and misaligned; the same bits from every
// strategy x pipeline x block size x grid, under permutations, across streams, graphs and garbage
// or zeroed temp storage; bad input refused.
#include <algorithm>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/exact_inputs.hpp"
#include "common/mpfr_oracle.hpp"
#include "gpu/common.cuh"

namespace gpureduce::testing {
namespace {

Options correctly_rounded(Options o = {}) {
  o.accuracy = Accuracy::correctly_rounded;
  return o;
}

template <class T>
bool same_result(const T& got, const T& oracle) {
  if (std::isnan(oracle)) return same_bits(got, std::numeric_limits<T>::quiet_NaN());
  return same_bits(got, oracle);
}

// One input on the device (at d_in + offset) and its oracle.
template <class In, class Out>
struct Exact {
  using C = Case<In, Out, Op::sum>;
  std::vector<In> host;
  DeviceBuffer<In> device;
  Out oracle;
  std::string what;

  // Room for offsets 0 to 3 (misaligned starts).
  Exact(std::vector<In> values, std::string name)
      : host(std::move(values)), device(host.size() + 4), what(std::move(name)) {
    oracle = correctly_rounded_sum<Out>(host.data(), std::int64_t(host.size()));
    EXPECT_TRUE(device.ok());
  }
  const In* at(int offset) {
    EXPECT_EQ(cudaMemcpy(device.get() + offset, host.data(), host.size() * sizeof(In),
                         cudaMemcpyHostToDevice),
              cudaSuccess);
    return device.get() + offset;
  }
  // Runs with these Options at this offset; false (with the failure recorded) if the bits differ.
  bool check(const Options& options, int offset, const std::string& where = "") {
    Out got{};
    const auto ran = run_gpureduce<C>(at(offset), std::int64_t(host.size()), options, got);
    EXPECT_TRUE(ran) << where;
    if (!ran) return false;
    const bool same = same_result(got, oracle);
    EXPECT_TRUE(same) << C::name() << " " << what << " n=" << host.size() << " offset=" << offset
                      << " " << to_string(options.strategy) << "/" << to_string(options.pipeline)
                      << " block=" << options.block_threads << " grid=" << options.grid_blocks
                      << (options.temp_storage_zeroed ? " zeroed" : "") << " " << where << ": "
                      << show(got) << " vs MPFR " << show(oracle);
    return same;
  }
};

std::vector<std::int64_t> boundary_sizes() {
  return capped({0, 1, 2, 31, 32, 33, 255, 256, 257, 1009, 4095, 4096, 4097, 65521, 65535, 65537,
                 (1 << 20) - 1, (1 << 20) + 1});
}

template <class In, class Out>
void every_shape_every_size() {
  const std::uint64_t seed = fresh_seed();
  ExactInputs<In> inputs(seed);
  for (ExactShape shape : kAllExactShapes)
    for (std::int64_t n : boundary_sizes()) {
      Exact<In, Out> x(inputs.make(shape, n), std::string(to_string(shape)) + " seed=" + std::to_string(seed));
      for (int offset : {0, 1})
        if (!x.check(correctly_rounded(), offset)) return;
    }
  for (std::int64_t n : capped({(1 << 24) + 13})) {  // large: the everyday and hardest shapes
    for (ExactShape shape : {ExactShape::everyday, ExactShape::every_scale, ExactShape::cancellation,
                             ExactShape::drifting}) {
      Exact<In, Out> x(inputs.make(shape, n), std::string(to_string(shape)) + " seed=" + std::to_string(seed));
      if (!x.check(correctly_rounded(), 1)) return;
    }
  }
}

TEST(CorrectlyRounded, FloatEveryShapeAndSize) { REQUIRE_GPU(); every_shape_every_size<float, float>(); }
TEST(CorrectlyRounded, FloatToDoubleEveryShapeAndSize) { REQUIRE_GPU(); every_shape_every_size<float, double>(); }
TEST(CorrectlyRounded, DoubleEveryShapeAndSize) { REQUIRE_GPU(); every_shape_every_size<double, double>(); }
TEST(CorrectlyRounded, HalfEveryShapeAndSize) { REQUIRE_GPU(); every_shape_every_size<__half, float>(); }
TEST(CorrectlyRounded, BFloat16EveryShapeAndSize) { REQUIRE_GPU(); every_shape_every_size<__nv_bfloat16, float>(); }

// Every strategy x pipeline (and automatic), at their default block size and at 32 and 1024
// threads, on inputs that make order visible: each must give MPFR's bits or refuse with a message.
template <class In, class Out>
void every_configuration() {
  const std::uint64_t seed = fresh_seed();
  ExactInputs<In> inputs(seed);
  for (std::int64_t n : capped({1000, 65537, (1 << 20) + 7}))
    for (ExactShape shape : {ExactShape::every_scale, ExactShape::cancellation, ExactShape::ties,
                             ExactShape::ill_conditioned, ExactShape::drifting}) {
      Exact<In, Out> x(inputs.make(shape, n), std::string(to_string(shape)) + " seed=" + std::to_string(seed));
      for (Strategy strategy : kAllStrategies)
        for (Pipeline pipeline : kAllPipelines)
          for (int block : {0, 32, 1024}) {
            if (strategy == Strategy::cub_block && block != 0) continue;  // CUB's 256 only
            Options o = correctly_rounded({strategy, pipeline});
            o.block_threads = block;
            if (!x.check(o, int(n % 3))) return;
          }
      for (Pipeline pipeline : kAllPipelines)
        if (!x.check(correctly_rounded({Strategy::automatic, pipeline}), 0)) return;
    }
}

TEST(CorrectlyRounded, FloatEveryStrategyPipelineAndBlock) { REQUIRE_GPU(); every_configuration<float, float>(); }
TEST(CorrectlyRounded, DoubleEveryStrategyPipelineAndBlock) { REQUIRE_GPU(); every_configuration<double, double>(); }
TEST(CorrectlyRounded, HalfEveryStrategyPipelineAndBlock) { REQUIRE_GPU(); every_configuration<__half, float>(); }
TEST(CorrectlyRounded, BFloat16EveryStrategyPipelineAndBlock) { REQUIRE_GPU(); every_configuration<__nv_bfloat16, float>(); }

// Grids forced from one block to more than the input has, and the zeroed-storage promise.
template <class In, class Out>
void every_grid() {
  const std::uint64_t seed = fresh_seed();
  ExactInputs<In> inputs(seed);
  const std::int64_t n = std::min<std::int64_t>((1 << 20) + 3, max_test_items());
  Exact<In, Out> x(inputs.make(ExactShape::every_scale, n), "every_scale seed=" + std::to_string(seed));
  for (Pipeline pipeline : kAllPipelines)
    for (int grid : {1, 2, 3, 7, 64, 1000, 100000}) {
      Options o = correctly_rounded({Strategy::vectorized, pipeline});
      o.grid_blocks = grid;
      if (!x.check(o, 0)) return;
      o.temp_storage_zeroed = true;
      if (!x.check(o, 3)) return;
    }
}

TEST(CorrectlyRounded, FloatEveryGrid) { REQUIRE_GPU(); every_grid<float, float>(); }
TEST(CorrectlyRounded, DoubleEveryGrid) { REQUIRE_GPU(); every_grid<double, double>(); }

// One array under 20 random permutations: the same bits every time, MPFR's.
TEST(CorrectlyRounded, PermutationsGiveIdenticalBits) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  ExactInputs<float> inputs(seed);
  std::vector<float> values =
      inputs.make(ExactShape::cancellation, std::min<std::int64_t>((1 << 20) + 3, max_test_items()));
  std::mt19937_64 rng(seed);
  Exact<float, float> first(values, "permutation 0");
  for (int p = 1; p <= 20; ++p) {
    std::shuffle(values.begin(), values.end(), rng);
    Exact<float, float> x(values, "permutation " + std::to_string(p) + " seed=" + std::to_string(seed));
    ASSERT_TRUE(same_bits(x.oracle, first.oracle));
    if (!x.check(correctly_rounded(), p % 4)) return;
    if (!x.check(correctly_rounded({Strategy::warp_shuffle, Pipeline::two_kernel}), 0)) return;
  }
}

// Default Options on several streams at once, garbage temp storage, no sync between rounds; then
// the same sums captured into a graph and replayed over fresh inputs copied in.
TEST(CorrectlyRounded, StreamsAndGraphs) {
  REQUIRE_GPU();
  using C = Case<float, float, Op::sum>;
  const std::uint64_t seed = fresh_seed();
  ExactInputs<float> inputs(seed);
  constexpr int kStreams = 4;
  const std::int64_t kN = std::min<std::int64_t>((1 << 18) + 11, max_test_items());
  std::vector<cudaStream_t> streams(kStreams);
  for (auto& s : streams) CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  std::vector<std::vector<float>> host(kStreams);
  std::vector<DeviceBuffer<float>> in(kStreams), out(kStreams);
  std::size_t bytes = 0;
  CUDA_OK(C::run(nullptr, bytes, nullptr, nullptr, kN, nullptr, correctly_rounded()));
  std::vector<DeviceBuffer<unsigned char>> temp(kStreams);
  for (int s = 0; s < kStreams; ++s) {
    host[s] = inputs.make(s % 2 ? ExactShape::every_scale : ExactShape::ill_conditioned, kN);
    in[s].resize(kN);
    out[s].resize(3);
    temp[s].resize(bytes);
    CUDA_OK(cudaMemcpy(in[s].get(), host[s].data(), kN * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(temp[s].get(), kPoisonByte, bytes));
    CUDA_OK(cudaMemset(out[s].get(), kPoisonByte, 3 * sizeof(float)));
  }
  // The copies and memsets above run on the legacy stream, which non-blocking streams do not wait
  // for: without this a reduction could read its input early, or the poison land on its result.
  CUDA_OK(cudaDeviceSynchronize());
  for (int round = 0; round < 3; ++round)
    for (int s = 0; s < kStreams; ++s)
      CUDA_OK(C::run(temp[s].get(), bytes, in[s].get(), out[s].get() + round, kN, streams[s], correctly_rounded()));
  CUDA_OK(cudaDeviceSynchronize());
  for (int s = 0; s < kStreams; ++s) {
    const float want = correctly_rounded_sum<float>(host[s].data(), kN);
    for (int round = 0; round < 3; ++round)
      EXPECT_TRUE(same_bits(copy_to_host(out[s].get() + round), want)) << "stream " << s << " round " << round;
  }

  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  CUDA_OK(cudaStreamBeginCapture(streams[0], cudaStreamCaptureModeGlobal));
  for (int s = 0; s < kStreams; ++s)
    CUDA_OK(C::run(temp[s].get(), bytes, in[s].get(), out[s].get(), kN, streams[0], correctly_rounded()));
  CUDA_OK(cudaStreamEndCapture(streams[0], &graph));
  CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 3; ++replay) {
    for (int s = 0; s < kStreams; ++s) {
      host[s] = inputs.make(ExactShape::every_scale, kN);
      CUDA_OK(cudaMemcpy(in[s].get(), host[s].data(), kN * sizeof(float), cudaMemcpyHostToDevice));
      CUDA_OK(cudaMemset(out[s].get(), kPoisonByte, sizeof(float)));
    }
    CUDA_OK(cudaDeviceSynchronize());  // as above: the legacy stream's copies and poison first
    CUDA_OK(cudaGraphLaunch(exec, streams[0]));
    CUDA_OK(cudaStreamSynchronize(streams[0]));
    for (int s = 0; s < kStreams; ++s)
      EXPECT_TRUE(same_bits(copy_to_host(out[s].get()), correctly_rounded_sum<float>(host[s].data(), kN)))
          << "graph replay " << replay << " sum " << s << " seed=" << seed;
  }
  CUDA_OK(cudaGraphExecDestroy(exec));
  CUDA_OK(cudaGraphDestroy(graph));
  for (auto s : streams) CUDA_OK(cudaStreamDestroy(s));
}

// Four host threads, each with its own stream and inputs, at once.
TEST(CorrectlyRounded, HostThreads) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t, seed] {
      ExactInputs<double> inputs(seed + std::uint64_t(t));
      Exact<double, double> x(inputs.make(ExactShape::every_scale, 300001), "thread " + std::to_string(t));
      for (int k = 0; k < 5; ++k) x.check(correctly_rounded(), k % 2);
    });
  for (auto& t : threads) t.join();
}

TEST(CorrectlyRounded, BadInputIsRefusedAndNothingWritten) {
  REQUIRE_GPU();
  DeviceBuffer<float> in(1000), out(1);
  CUDA_OK(cudaMemset(in.get(), 0, 1000 * sizeof(float)));
  CUDA_OK(cudaMemset(out.get(), kPoisonByte, sizeof(float)));
  std::size_t bytes = 0;
  Options bad = correctly_rounded();
  bad.accuracy = static_cast<Accuracy>(7);
  EXPECT_EQ(DeviceReduce::Sum(nullptr, bytes, in.get(), out.get(), 1000, nullptr, bad), cudaErrorInvalidValue);
  EXPECT_NE(std::string(last_error_message()).find("accuracy"), std::string::npos);
  EXPECT_EQ(Reduce(nullptr, bytes, in.get(), out.get(), 1000, ::cuda::std::plus<float>{}, 0.0f,
                   nullptr, correctly_rounded()),
            cudaErrorInvalidValue);
  EXPECT_NE(std::string(last_error_message()).find("correctly rounded"), std::string::npos);
  // Temp storage one byte short: refused, nothing launched, the poisoned output untouched.
  CUDA_OK(DeviceReduce::Sum(nullptr, bytes, in.get(), out.get(), 1000, nullptr, correctly_rounded()));
  DeviceBuffer<unsigned char> temp(bytes);
  std::size_t short_bytes = bytes - 1;
  EXPECT_EQ(DeviceReduce::Sum(temp.get(), short_bytes, in.get(), out.get(), 1000, nullptr, correctly_rounded()),
            cudaErrorInvalidValue);
  CUDA_OK(cudaDeviceSynchronize());
  EXPECT_TRUE(same_bits(copy_to_host(out.get()), poison_value<float>()));
  // Integer sums, Min and Max are exact already: accepted, CUB's bits.
  using IntSum = Case<int, int, Op::sum>;
  DeviceBuffer<int> ints(1000), cub_out(1);
  CUDA_OK(fill_random(ints.get(), 1000, fresh_seed(), Fill::random));
  int got = 0;
  ASSERT_TRUE(run_gpureduce<IntSum>(ints.get(), 1000, correctly_rounded(), got));
  ASSERT_EQ(IntSum::cub(ints.get(), cub_out.get(), 1000), cudaSuccess);
  EXPECT_EQ(got, copy_to_host(cub_out.get()));
}

// A fixed input (seed 20261124) per pair, its bits printed ("CR-BITS ..."), so that runs on
// different GPUs can be compared line by line; each must equal MPFR's.
template <class In, class Out>
void seeded_bits(const char* pair) {
  for (ExactShape shape : {ExactShape::every_scale, ExactShape::ill_conditioned, ExactShape::everyday}) {
    ExactInputs<In> inputs(20261124);
    Exact<In, Out> x(inputs.make(shape, 1000003), "seeded");
    for (int offset : {0, 1}) {
      Out got{};
      ASSERT_TRUE((run_gpureduce<typename Exact<In, Out>::C>(x.at(offset), 1000003, correctly_rounded(), got)));
      std::printf("CR-BITS %s %s n=1000003 offset=%d seed=20261124: %s (MPFR %s)\n", pair,
                  to_string(shape), offset, show(got).c_str(), show(x.oracle).c_str());
      EXPECT_TRUE(same_result(got, x.oracle));
    }
  }
}

TEST(CorrectlyRounded, SeededBitsForComparingGpus) {
  REQUIRE_GPU();
  seeded_bits<float, float>("float->float");
  seeded_bits<float, double>("float->double");
  seeded_bits<double, double>("double->double");
  seeded_bits<__half, float>("half->float");
  seeded_bits<__nv_bfloat16, float>("bf16->float");
}

}  // namespace
}  // namespace gpureduce::testing
