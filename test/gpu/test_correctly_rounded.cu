// Accuracy::correctly_rounded on the GPU against MPFR (test/common/mpfr_oracle.hpp): bitwise equal
// to the exact sum rounded once, for every shipped pair, every input shape of the issue, sizes
// around every warp, block and tile boundary, aligned and misaligned; the same bits from every
// strategy x pipeline x block size x grid, under permutations, across streams, graphs and garbage
// or zeroed temp storage; bad input refused.
#include <algorithm>
#include <deque>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/exact_inputs.hpp"
#include "common/mpfr_oracle.hpp"
#include "gpu/common.cuh"
#include "gpu/correctly_rounded_common.cuh"
#include "gpureduce/detail/exact/exact_args.cuh"
#include "gpureduce/detail/exact/exact_sum.hpp"

namespace gpureduce::testing {
namespace {

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
  // 2049 and 4097: past automatic's one block (16 KiB of doubles, of floats); 16385 and 32769:
  // past one cluster (128 KiB of doubles, of floats; cluster_window.cuh), into the grid window.
  return capped({0, 1, 2, 31, 32, 33, 255, 256, 257, 1009, 2047, 2049, 4095, 4096, 4097, 8193,
                 16383, 16385, 32767, 32769, 65521, 65535, 65537, (1 << 20) - 1, (1 << 20) + 1});
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
  // large, the everyday and hardest shapes: 2^24 + 13, and 5 Mi + 7, whose threads on automatic's
  // general kernel end in a ragged batch (floats: padded with -0, thread_inputs.cuh); 4 Mi - 3,
  // within the deep window for all but halves (bfloat16: its last size, 8 MiB)
  for (std::int64_t n : capped({(1 << 24) + 13, 5 * (1 << 20) + 7, (1 << 22) - 3})) {
    for (ExactShape shape : {ExactShape::everyday, ExactShape::every_scale, ExactShape::cancellation,
                             ExactShape::drifting, ExactShape::wide}) {
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
                             ExactShape::ill_conditioned, ExactShape::drifting, ExactShape::wide}) {
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

// x[0, n) through the exported state (exact_state_sum: what gpureduce::nccl adds across ranks),
// rounded by round_exact_state; temp storage and output poisoned first, as run_gpureduce does.
template <class In, class Out>
::testing::AssertionResult run_exported_state(const In* d_in, std::int64_t n, Out& result) {
  using namespace detail::exact;
  std::size_t bytes = 0;
  cudaError_t e = exact_state_sum<In, Out>(nullptr, &bytes, nullptr, nullptr, n, nullptr, Options{});
  DeviceBuffer<unsigned char> temp(bytes);
  DeviceBuffer<long long> state(std::size_t(exact_state_words<In, Out>()));
  DeviceBuffer<Out> out(1);
  if (e == cudaSuccess) e = cudaMemset(temp.get(), kPoisonByte, bytes);
  if (e == cudaSuccess) e = cudaMemset(out.get(), kPoisonByte, sizeof(Out));
  if (e == cudaSuccess)
    e = exact_state_sum<In, Out>(temp.get(), &bytes, d_in, state.get(), n, nullptr, Options{});
  if (e == cudaSuccess) e = round_exact_state<In, Out>(state.get(), out.get(), nullptr);
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess)
    return ::testing::AssertionFailure() << cudaGetErrorString(e) << " / " << last_error_message();
  result = copy_to_host(out.get());
  return ::testing::AssertionSuccess();
}

// The exported state's size query (d_state null, as gpureduce::nccl asks it) sizes the storage
// of the exported call itself, at every plan a plain sum of that size would take (one block, a
// cluster, the grid window, the deep window, the general grid): the plain sum's windows export
// nothing, so the exported call runs the general kernel, on a grid of its own.
template <class In, class Out>
void exported_state_fits_its_query() {
  const std::uint64_t seed = fresh_seed();
  ExactInputs<In> inputs(seed);
  for (std::int64_t n : capped({1000, 16385, 65537, (1 << 18) + 1, (1 << 20) + 7, (1 << 22) + 3})) {
    Exact<In, Out> x(inputs.make(ExactShape::everyday, n), "everyday seed=" + std::to_string(seed));
    Out got{};
    ASSERT_TRUE(run_exported_state(x.at(0), n, got)) << x.what << " n=" << n;
    EXPECT_TRUE(same_bits(got, x.oracle)) << x.what << " n=" << n << ": " << show(got) << " vs MPFR " << show(x.oracle);
  }
}

TEST(CorrectlyRounded, ExportedStateQueryFitsItsCall) {
  REQUIRE_GPU();
  exported_state_fits_its_query<double, double>();
  exported_state_fits_its_query<float, float>();
}

// automatic's grid state (the atomic pipeline) for doubles, one call after another on one stream:
// blocks of like magnitude; one block's thread leaving a remainder in its state; blocks far apart
// (the grid's state spans them); an exact zero of nonzero block sums (+0). Each call's last block
// must leave the grid's state zero for the next. Then the exported state (exact_state_sum, what
// gpureduce::nccl adds across ranks) of each, rounded by round_exact_state.
TEST(CorrectlyRounded, DoubleGridStateAcrossCallsAndExported) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  ExactInputs<double> inputs(seed);
  const std::int64_t n = std::min<std::int64_t>((1 << 20) + 7, max_test_items());
  const std::vector<double> like = inputs.make(ExactShape::everyday, n);
  std::vector<double> one_in_state = like;
  one_in_state[std::size_t(n / 3)] = 0x1p-900;  // under its window's grid: a remainder
  std::vector<double> far_apart = like;
  for (std::int64_t i = 0; i < n / 2; ++i) far_apart[std::size_t(i)] *= 0x1p600;
  std::vector<double> zero = like;
  for (std::int64_t i = 0; i < n / 2; ++i) zero[std::size_t(n - 1 - i)] = -zero[std::size_t(i)];
  if (n % 2) zero[std::size_t(n / 2)] = 0.0;
  const std::string tag = " seed=" + std::to_string(seed);
  std::deque<Exact<double, double>> calls;  // Exact cannot move: a deque does not relocate
  calls.emplace_back(like, "like magnitudes" + tag);
  calls.emplace_back(one_in_state, "one remainder in a block's state" + tag);
  calls.emplace_back(far_apart, "blocks far apart" + tag);
  calls.emplace_back(zero, "an exact zero" + tag);
  ASSERT_TRUE(same_bits(calls[3].oracle, 0.0));
  for (int round = 0; round < 2; ++round)
    for (int k : {0, 1, 0, 2, 0, 3, 1, 3, 2})
      if (!calls[std::size_t(k)].check(correctly_rounded(), round)) return;

  for (auto& call : calls) {
    double got = 0;
    ASSERT_TRUE(run_exported_state(call.at(0), n, got)) << call.what;
    EXPECT_TRUE(same_bits(got, call.oracle))
        << "exported state, " << call.what << ": " << show(got) << " vs MPFR " << show(call.oracle);
  }
}

// A fixed input (seed 20261124) per pair, its bits printed ("CR-BITS ..."), so that runs on
// different GPUs can be compared line by line; each must equal MPFR's.
template <class In, class Out>
void seeded_bits(const char* pair) {
  // 1000003 items: many blocks; 2000: one block (the window's fast path on everyday inputs).
  for (std::int64_t n : {1000003, 2000})
    for (ExactShape shape : {ExactShape::every_scale, ExactShape::ill_conditioned, ExactShape::everyday}) {
      ExactInputs<In> inputs(20261124);
      Exact<In, Out> x(inputs.make(shape, n), "seeded");
      for (int offset : {0, 1}) {
        Out got{};
        ASSERT_TRUE((run_gpureduce<typename Exact<In, Out>::C>(x.at(offset), n, correctly_rounded(), got)));
        std::printf("CR-BITS %s %s n=%lld offset=%d seed=20261124: %s (MPFR %s)\n", pair,
                    to_string(shape), (long long)n, offset, show(got).c_str(), show(x.oracle).c_str());
        EXPECT_TRUE(same_result(got, x.oracle));
      }
    }
}

// automatic's one-block fast path (detail/exact/one_block_sum.cuh) adds in one double (float
// family) or one signed 128-bit integer (doubles) when the block's nonzero inputs span at most
// W exponent fields: W = 53 - precision - ceil(log2 n) (float 24, bfloat16 8), 74 - ceil(log2 n)
// for doubles. These inputs need every bit of that accumulator at span W and one bit more at
// W + 1, where only the general path is exact; a window one field too wide fails them.
// Float family: one_unit_above_a_tie (common/exact_inputs.hpp).
// Doubles: n - 1 terms of the largest mantissa and one of the lowest field: at W + 1 their
// integer sum reaches 2^127, past a signed 128-bit integer.
std::vector<double> filling_128_bits(int log2_n, int span, int small_at, bool negative) {
  const int n = 1 << log2_n, high_field = 1123;  // terms near 2^100
  const double sign = negative ? -1.0 : 1.0;
  std::vector<double> x(std::size_t(n), sign * std::ldexp(std::ldexp(1.0, 53) - 1, high_field - 1075));
  x[std::size_t(small_at)] = sign * std::ldexp(1.0, high_field - span - 1023);
  return x;
}

// Floats in 64-bit integers (one block past a double's window, or a cluster): n - 1 terms of the
// largest significand and one of the lowest field: at W + 1 their integer sum reaches 2^63, past a
// signed 64-bit integer.
std::vector<float> filling_64_bits(int log2_n, int span, int small_at, bool negative,
                                   int high_field = 200) {  // terms near 2^73
  const int n = 1 << log2_n;
  const float sign = negative ? -1.0f : 1.0f;
  std::vector<float> x(std::size_t(n), sign * std::ldexp(float((1 << 24) - 1), high_field - 150));
  x[std::size_t(small_at)] = sign * std::ldexp(1.0f, high_field - span - 127);
  return x;
}

// Every edge of a window: spans W - 1 to W + 2, the small terms at four places, both signs. `make`
// builds each input and checks on the host that it is what it claims; each is then summed aligned
// and misaligned against MPFR.
template <class In, class Make>
void window_edges(int log2_n, int window, const std::string& what, Make make) {
  using Out = std::conditional_t<std::is_same_v<In, double>, double, float>;
  const int n = 1 << log2_n;
  for (int span : {window - 1, window, window + 1, window + 2})
    for (int small_at : {0, n / 2 - 1, n - 2, n - 1})
      for (bool negative : {false, true}) {
        Exact<In, Out> x(make(span, small_at, negative),
                         what + ": span " + std::to_string(span) + ", small terms at " +
                             std::to_string(small_at) + (negative ? ", negative" : ""));
        for (int offset : {0, 1})
          if (!x.check(correctly_rounded(), offset)) return;
      }
}

// Doubles whose integer sum needs 127 bits at span W and 128 at W + 1 (checked here): a 128-bit
// window one field too wide overflows.
std::vector<double> filling_128_bits_checked(int log2_n, int window, int span, int small_at,
                                             bool negative) {
  const double units = std::ldexp(((1 << log2_n) - 1) * (std::ldexp(1.0, 53) - 1), span);
  EXPECT_EQ(units >= std::ldexp(1.0, 127), span > window) << "span " << span;
  return filling_128_bits(log2_n, span, small_at, negative);
}

template <class In>
void one_block_window_edges(int log2_n, int window) {
  window_edges<In>(log2_n, window, "window edge", [&](int span, int small_at, bool negative) {
    if constexpr (std::is_same_v<In, double>) {
      return filling_128_bits_checked(log2_n, window, span, small_at, negative);
    } else {
      std::vector<In> values = one_unit_above_a_tie<In>(log2_n, span, small_at, negative);
      // The input is what it claims: summed in a double in index order, it rounds right exactly
      // when the span fits the window.
      double in_order = 0;
      for (const In& v : values) in_order += to_double(v);
      const float oracle = correctly_rounded_sum<float>(values.data(), std::int64_t(values.size()));
      EXPECT_EQ(same_bits(float(in_order), oracle), span <= window) << "span " << span;
      return values;
    }
  });
}

TEST(CorrectlyRounded, OneBlockWindowEdges) {
  REQUIRE_GPU();
  one_block_window_edges<float>(12, 53 - 24 - 12);  // 4096 floats: 16 KiB, one block
  one_block_window_edges<float>(3, 53 - 24 - 3);
  one_block_window_edges<__nv_bfloat16>(8, 53 - 8 - 8);
  one_block_window_edges<double>(11, 74 - 11);  // 2048 doubles: 16 KiB
  one_block_window_edges<double>(2, 74 - 2);
}

// The windows of integers: floats in 64-bit ones (W = 63 - 24 - log2 n; one block, where a
// double's window is too narrow, and a cluster), doubles in 128-bit ones (W = 127 - 53 - log2 n)
// across a cluster of 4 and of 16 blocks. A window one field too wide overflows: wrong bits.
template <class In>
void integer_window_edges(int log2_n, int window) {
  const auto make = [&](int span, int small_at, bool negative) {
    if constexpr (std::is_same_v<In, double>) {
      return filling_128_bits_checked(log2_n, window, span, small_at, negative);
    } else {
      // The input is what it claims: its integer sum reaches 2^63 exactly past W.
      const double units = std::ldexp(((1 << log2_n) - 1) * (std::ldexp(1.0, 24) - 1), span);
      EXPECT_EQ(units >= std::ldexp(1.0, 63), span > window) << "span " << span;
      return filling_64_bits(log2_n, span, small_at, negative);
    }
  };
  window_edges<In>(log2_n, window, "integer window edge", make);
}

TEST(CorrectlyRounded, IntegerWindowEdges) {
  REQUIRE_GPU();
  integer_window_edges<float>(12, 63 - 24 - 12);    // 4096 floats: 16 KiB, one block
  integer_window_edges<float>(13, 63 - 24 - 13);    // 8192: 32 KiB, a cluster of 4 blocks of 8 KiB
  integer_window_edges<float>(15, 63 - 24 - 15);    // 32768: 128 KiB, 16 blocks of 8 KiB
  integer_window_edges<double>(12, 127 - 53 - 12);  // 4096 doubles: 32 KiB
  integer_window_edges<double>(14, 127 - 53 - 14);  // 16384 doubles: 128 KiB, 16 blocks
  integer_window_edges<double>(15, 127 - 53 - 15);  // 32768 doubles: 256 KiB, the grid window
}

// The plan automatic reports from just past one block to 128 KiB: one cluster, one launch, the
// blocks its bytes need (8 KiB each), where the device's clusters hold them; past 128 KiB, the
// grid plan.
template <class T>
void expect_cluster_plan(std::int64_t n, int blocks, bool on_sm90 = false) {
  DeviceBuffer<T> in(static_cast<std::size_t>(n));
  LaunchPlan plan{};
  const cudaError_t planned = DeviceReduce::PlanSum<T, T>(plan, in.get(), n, correctly_rounded());
  ASSERT_EQ(planned, cudaSuccess) << last_error_message();
  const bool cluster = plan.pipeline == Pipeline::cluster;
  if (on_sm90) EXPECT_TRUE(cluster) << n << ": a cluster of " << blocks << " fits any sm_90 GPU";
  EXPECT_EQ(std::strstr(plan.rationale, "one cluster of 2 to 16 blocks") != nullptr, cluster)
      << n << ": " << plan.rationale;
  if (blocks == 0 || !cluster) {  // past 128 KiB, or clusters too small on this device
    EXPECT_FALSE(cluster && blocks == 0) << n;
    return;
  }
  EXPECT_EQ(plan.grid_blocks, blocks) << n;
  EXPECT_EQ(plan.launches, 1) << n;
}

TEST(CorrectlyRounded, AutomaticPlansOneClusterUpTo128KiB) {
  REQUIRE_GPU();
  int major = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
  expect_cluster_plan<float>(4097, 3, major >= 9);
  expect_cluster_plan<float>(16385, 9);
  expect_cluster_plan<float>(32768, 16);
  expect_cluster_plan<float>(32769, 0);
  expect_cluster_plan<double>(2049, 3);
  expect_cluster_plan<double>(16384, 16);
  expect_cluster_plan<double>(16385, 0);
}

// The window over a grid (grid_window.cuh): 128-bit integers for both families, W = 127 - 53 -
// log2 n for doubles, 127 - 24 - log2 n for the float family. At W + 1 the blocks that hold the
// small term take the general body and the last block adds the others' sums into the exact state.
// 2 MiB: the square-root grid's last size; 4-16 MiB: the deep window.
template <class In>
void grid_window_edges(int log2_n) {
  if constexpr (std::is_same_v<In, double>) {
    integer_window_edges<double>(log2_n, 127 - 53 - log2_n);
  } else {
    const int window = 127 - 24 - log2_n;
    window_edges<float>(log2_n, window, "grid window edge", [&](int span, int small_at, bool negative) {
      const double units = std::ldexp(((1 << log2_n) - 1) * (std::ldexp(1.0, 24) - 1), span);
      EXPECT_EQ(units >= std::ldexp(1.0, 127), span > window) << "span " << span;
      return filling_64_bits(log2_n, span, small_at, negative, 230);  // terms near 2^104
    });
  }
}

TEST(CorrectlyRounded, GridWindowEdges) {
  REQUIRE_GPU();
  grid_window_edges<double>(18);  // 2 MiB of doubles
  grid_window_edges<double>(20);  // 8 MiB
  grid_window_edges<double>(21);  // 16 MiB
  grid_window_edges<float>(19);   // 2 MiB of floats
  grid_window_edges<float>(20);   // 4 MiB
  grid_window_edges<float>(21);   // 8 MiB
}

// Blocks whose own inputs lie close but far from the other blocks': every block's record holds
// its sum, and the grid's span passes the window, so the last block adds the records into the
// exact state. A caller's grid of 4 blocks: vector v (16 bytes) is block (v / 256) % 4's.
template <class In, class Out>
void blocks_far_apart() {
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> unit(1.0, 2.0);
  const std::int64_t n = (std::int64_t(1) << 18) - 3, per_vector = 16 / sizeof(In);
  const double large = std::is_same_v<In, double> ? 0x1p+600 : 0x1p+60;
  const double small = std::is_same_v<In, double> ? 0x1p-600 : 0x1p-60;
  std::vector<In> values(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const bool far_block = (i / per_vector / 256) % 2 == 1;
    const double sign = random() % 2 == 0 ? 1.0 : -1.0;
    values[std::size_t(i)] = from_double<In>(sign * unit(random) * (far_block ? small : large));
  }
  Exact<In, Out> x(std::move(values), "blocks far apart seed=" + std::to_string(seed));
  Options o = correctly_rounded();
  o.grid_blocks = 4;
  LaunchPlan plan{};
  ASSERT_EQ((DeviceReduce::PlanSum<In, Out>(plan, x.device.get(), n, o)), cudaSuccess);
  EXPECT_NE(std::strstr(plan.rationale, "the last block adds the blocks' sums"), nullptr)
      << plan.rationale;
  EXPECT_EQ(plan.grid_blocks, 4);
  x.check(o, 0);
  o.grid_blocks = 1;  // one block: the general kernel, nothing to meet in
  ASSERT_EQ((DeviceReduce::PlanSum<In, Out>(plan, x.device.get(), n, o)), cudaSuccess);
  EXPECT_EQ(std::strstr(plan.rationale, "the last block adds the blocks' sums"), nullptr);
  x.check(o, 1);
  o.grid_blocks = 0;  // automatic's own grid: the small and large terms in every block
  x.check(o, 0);
}

// The plan past one cluster: the grid window up to 40 MiB of doubles, 16 MiB of floats, 8 MiB of
// bfloat16 and 4 MiB of halves (its rationale: the last block adds the blocks' sums), the general
// grid above.
template <class T>
LaunchPlan expect_grid_window_plan(std::int64_t n, bool window, Options o = correctly_rounded()) {
  // half and bfloat16 -> float
  using Out = std::conditional_t<std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>, float, T>;
  DeviceBuffer<T> in(static_cast<std::size_t>(n));
  LaunchPlan plan{};
  EXPECT_EQ((DeviceReduce::PlanSum<T, Out>(plan, in.get(), n, o)), cudaSuccess);
  EXPECT_EQ(std::strstr(plan.rationale, "the last block adds the blocks' sums") != nullptr, window)
      << n << ": " << plan.rationale;
  EXPECT_EQ(plan.launches, 1) << n;
  return plan;
}

TEST(CorrectlyRounded, AutomaticPlansGridWindowUpTo40MiBOfDoubles16MiBOfFloats8MiBOfBfloat16) {
  REQUIRE_GPU();
  expect_grid_window_plan<double>(16385, true);  // past one cluster
  expect_grid_window_plan<double>(32769, true);
  expect_grid_window_plan<double>(1 << 20, true);
  expect_grid_window_plan<double>(5 << 20, true);  // 40 MiB
  expect_grid_window_plan<double>((5 << 20) + 1, false);
  expect_grid_window_plan<float>(32769, true);
  expect_grid_window_plan<float>(65537, true);
  expect_grid_window_plan<float>(1 << 22, true);  // 16 MiB
  expect_grid_window_plan<float>((1 << 22) + 1, false);
  expect_grid_window_plan<__nv_bfloat16>(1 << 22, true);  // 8 MiB
  expect_grid_window_plan<__nv_bfloat16>((1 << 22) + 1, false);
  expect_grid_window_plan<__half>(1 << 21, true);  // 4 MiB
  expect_grid_window_plan<__half>((1 << 21) + 1, false);
}

// Past 2 MiB of doubles, floats or bfloat16, automatic's own grid is the deep window's: a block on
// each SM, at most 128 (the record slots). Halves keep the square-root grid, as does a caller's.
template <class T>
void expect_deep_window_plan(std::int64_t n, bool deep, Options o = correctly_rounded()) {
  const LaunchPlan plan = expect_grid_window_plan<T>(n, true, o);
  EXPECT_EQ(std::strstr(plan.rationale, "a block of 256 threads on each SM") != nullptr, deep)
      << n << ": " << plan.rationale;
  int sms = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  if (deep) EXPECT_EQ(plan.grid_blocks, std::min(sms, 128)) << n;
  else if (o.grid_blocks > 0) EXPECT_EQ(plan.grid_blocks, o.grid_blocks) << n;
}

TEST(CorrectlyRounded, AutomaticPlansDeepWindowPast2MiB) {
  REQUIRE_GPU();
  expect_deep_window_plan<double>(1 << 18, false);  // 2 MiB
  expect_deep_window_plan<double>((1 << 18) + 1, true);
  expect_deep_window_plan<double>(5 << 20, true);
  expect_deep_window_plan<float>(1 << 19, false);
  expect_deep_window_plan<float>((1 << 19) + 1, true);
  expect_deep_window_plan<float>(1 << 22, true);
  expect_deep_window_plan<__nv_bfloat16>(1 << 20, false);
  expect_deep_window_plan<__nv_bfloat16>((1 << 20) + 1, true);
  expect_deep_window_plan<__nv_bfloat16>(1 << 22, true);
  expect_deep_window_plan<__half>(1 << 21, false);
  Options caller = correctly_rounded();
  caller.grid_blocks = 64;
  expect_deep_window_plan<double>(1 << 20, false, caller);
}

TEST(CorrectlyRounded, GridWindowBlocksFarApart) {
  REQUIRE_GPU();
  blocks_far_apart<double, double>();
  blocks_far_apart<float, float>();
  blocks_far_apart<float, double>();
}

// Doubles whose threads span more fields than two parts hold (27) but within three (the grid
// window's second read, DoubleWindowThread<3>): each thread's inputs fall from about 2^20 to 2^-20
// along its share (a thread reads its vectors in address order), so where a thread has more than
// one batch (the deep window's 1M + 3) its unit moves down 40 fields at once (the parts flushed
// first), or step by step (the parts rescaled and split again), or the share rises. On the
// square-root grid and the deep window, against MPFR.
TEST(CorrectlyRounded, DoubleWindowInThreeParts) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> unit(1.0, 2.0);
  for (std::int64_t n : {std::int64_t(100003), std::int64_t(1 << 20) + 3}) {
    const auto sign = [&] { return random() % 2 == 0 ? 1.0 : -1.0; };
    const auto make = [&](auto exponent_at) {
      std::vector<double> values(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i)
        values[std::size_t(i)] = sign() * std::ldexp(unit(random), exponent_at(double(i) / double(n)));
      return values;
    };
    const std::string at = " n=" + std::to_string(n) + " seed=" + std::to_string(seed);
    Exact<double, double> falling(make([](double f) { return f < 0.5 ? 20 : -20; }), "falling" + at);
    falling.check(correctly_rounded(), 1);
    Exact<double, double> ramp(make([](double f) { return int(20 - 40 * f); }), "ramp" + at);
    ramp.check(correctly_rounded(), 0);
    Exact<double, double> rising(make([](double f) { return f < 0.5 ? -20 : 20; }), "rising" + at);
    rising.check(correctly_rounded(), 1);
  }
}

// The general body's double window with its third word (double_thread.hpp): each thread's inputs
// fall from about 2^30 to 2^-10 along its share (40 binades: past the 33 two words hold, within
// three words' 76), so its window keeps its top, the third word takes the small inputs' low bits,
// and the capacity's fold reopens the window lower; in the second input a sprinkle near 2^-80 (110
// binades under the top) turns the third word off in the threads that meet one. On automatic's
// general kernel (past 40 MiB) and on the vectorized rung under every pipeline, against MPFR.
TEST(CorrectlyRounded, DoubleWindowThirdWord) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> unit(1.0, 2.0);
  for (std::int64_t n : capped({std::int64_t(1 << 20) + 5, std::int64_t(6 << 20) + 3})) {
    for (bool sprinkled : {false, true}) {
      std::vector<double> values(static_cast<std::size_t>(n));
      for (std::int64_t i = 0; i < n; ++i) {
        int exponent = i < n / 2 ? 30 : -10;
        if (sprinkled && random() % 4096 == 0) exponent = -80;
        values[std::size_t(i)] = (random() % 2 == 0 ? 1.0 : -1.0) * std::ldexp(unit(random), exponent);
      }
      Exact<double, double> x(std::move(values), std::string(sprinkled ? "falling, sprinkled" : "falling") +
                                                     " n=" + std::to_string(n) + " seed=" + std::to_string(seed));
      if (!x.check(correctly_rounded(), 1)) return;
      if (n > (2 << 20)) continue;
      for (Pipeline pipeline : kAllPipelines)
        if (!x.check(correctly_rounded({Strategy::vectorized, pipeline}), 0)) return;
    }
  }
}

// bfloat16 below the window (Bfloat16PairBounds::inside_widened): each group of 8 holds +B, -B
// (field F, so every thread's window starts at F - 13), +C, -C and +D, -D in the window, and two
// positive terms t with random significands; the B, C and D cancel, so the sum is the t's alone.
// Half the t's one field below the band are an odd number of half units of the window, so a
// thread's t's there are a whole number of units or not at random: a window that took them
// (kWidenedFields one too large) would drop the half unit of every thread with an odd count, many
// float ulps of the sum (odd significands two a group would pair up and hide it; docs/testing.md).
// Without `one_below` the t's span fields F - 29 to F - 14, the 16 below the window (F - 29, its
// edge, over half the time), where a batch goes into the window's double an input at a time; with
// it they lie at F - 30, one field lower, where a batch must take the groups' path and the
// bins. On automatic's general kernel (past 8 MiB) and on the vectorized rung under every
// pipeline, against MPFR.
std::vector<__nv_bfloat16> bfloat16_below_the_window(std::int64_t n, bool one_below, std::mt19937_64& random) {
  constexpr int kTop = 127 + 10;  // F: B's field
  const auto bf16 = [](int sign, int field, std::uint32_t mantissa) {
    return from_bits<__nv_bfloat16>(std::uint16_t((sign << 15) | (field << 7) | mantissa));
  };
  const auto in_window = [&](int sign) { return bf16(sign, kTop - 13 + int(random() % 14), std::uint32_t(random() % 128)); };
  const auto term = [&] {
    int field = one_below ? kTop - 30 : random() % 2 == 0 ? kTop - 29 : kTop - 29 + int(random() % 16);
    return bf16(0, field, std::uint32_t(random() % 128));
  };
  std::vector<__nv_bfloat16> values(static_cast<std::size_t>(n));
  for (std::int64_t g = 0; g + 8 <= n; g += 8) {
    const __nv_bfloat16 b = bf16(0, kTop, std::uint32_t(random() % 128)), c = in_window(0), d = in_window(1);
    const __nv_bfloat16 group[8] = {b, negate(b), c, term(), negate(c), d, negate(d), term()};
    std::copy(group, group + 8, values.begin() + g);
  }
  for (std::int64_t i = n / 8 * 8; i < n; ++i) values[std::size_t(i)] = term();
  return values;
}

TEST(CorrectlyRounded, Bfloat16BelowTheWindow) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 random(seed);
  for (std::int64_t n : capped({std::int64_t(100003), std::int64_t(4 << 20) + 5})) {
    for (bool one_below : {false, true}) {
      Exact<__nv_bfloat16, float> x(bfloat16_below_the_window(n, one_below, random),
                                    std::string(one_below ? "one field below" : "the 16 fields below") +
                                        " n=" + std::to_string(n) + " seed=" + std::to_string(seed));
      for (int offset : {0, 1})
        if (!x.check(correctly_rounded(), offset)) return;
      if (n > (2 << 20)) continue;
      for (Pipeline pipeline : kAllPipelines)
        if (!x.check(correctly_rounded({Strategy::vectorized, pipeline}), 0)) return;
    }
  }
}

// The zeroed-storage promise on the grid window: one buffer zeroed once and called again and
// again, the window's flagged records (window_records.cuh) and, for inputs that send blocks to
// the general body, the grid's state in it. Each call gives MPFR's bits, and every byte that must
// start zero is zero again after it.
template <class In, class Out>
void grid_window_keeps_storage_zero(std::int64_t n) {
  using C = Case<In, Out, Op::sum>;
  const std::uint64_t seed = fresh_seed();
  ExactInputs<In> inputs(seed);
  Options o = correctly_rounded();
  o.temp_storage_zeroed = true;
  LaunchPlan plan{};
  DeviceBuffer<In> d_in(static_cast<std::size_t>(n));
  DeviceBuffer<Out> d_out(1);
  ASSERT_EQ((DeviceReduce::PlanSum<In, Out>(plan, d_in.get(), n, o)), cudaSuccess);
  ASSERT_NE(std::strstr(plan.rationale, "the last block adds the blocks' sums"), nullptr)
      << n << ": " << plan.rationale;
  std::size_t bytes = 0;
  ASSERT_EQ(C::run(nullptr, bytes, d_in.get(), d_out.get(), n, nullptr, o), cudaSuccess);
  const std::size_t zeroed = detail::exact::kPartialStatesOffset;
  ASSERT_GE(bytes, zeroed);
  DeviceBuffer<unsigned char> temp(bytes);
  ASSERT_EQ(cudaMemset(temp.get(), 0, bytes), cudaSuccess);
  for (int round = 0; round < 3; ++round)
    for (ExactShape shape : {ExactShape::everyday, ExactShape::every_scale, ExactShape::cancellation}) {
      Exact<In, Out> x(inputs.make(shape, n), std::string(to_string(shape)) + " seed=" + std::to_string(seed));
      x.at(0);
      ASSERT_EQ(cudaMemset(d_out.get(), kPoisonByte, sizeof(Out)), cudaSuccess);
      ASSERT_EQ(C::run(temp.get(), bytes, x.device.get(), d_out.get(), n, nullptr, o), cudaSuccess);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      EXPECT_TRUE(same_result(copy_to_host(d_out.get()), x.oracle))
          << x.what << " n=" << n << " round " << round;
      std::vector<unsigned char> state(zeroed, 1);
      ASSERT_EQ(cudaMemcpy(state.data(), temp.get(), zeroed, cudaMemcpyDeviceToHost), cudaSuccess);
      const auto first_nonzero = std::find_if(state.begin(), state.end(), [](unsigned char b) { return b != 0; });
      ASSERT_EQ(first_nonzero, state.end())
          << x.what << " n=" << n << ": byte " << (first_nonzero - state.begin()) << " of the zeroed state left nonzero";
    }
}

TEST(CorrectlyRounded, GridWindowKeepsZeroedStorageZero) {
  REQUIRE_GPU();
  grid_window_keeps_storage_zero<double, double>(1 << 16);  // 2 vectors a thread by the root rule
  grid_window_keeps_storage_zero<double, double>(1 << 18);  // the most blocks: every record slot
  grid_window_keeps_storage_zero<float, float>(1 << 18);
  grid_window_keeps_storage_zero<float, double>((1 << 20) - 5);
  grid_window_keeps_storage_zero<double, double>((1 << 21) + 3);  // the deep window
  grid_window_keeps_storage_zero<float, float>((1 << 21) - 1);
}

// automatic's grid window gives each thread one vector or at least a full batch (kVectorsInFlight,
// 4): never the 2 or 3 the square-root rule leaves at some sizes, read one round trip at a time.
TEST(CorrectlyRounded, GridWindowGridGivesFullBatches) {
  REQUIRE_GPU();
  for (std::int64_t n : {32769, 49152, 65536, 98304, 131072, 262144, 1 << 20}) {
    DeviceBuffer<double> in(static_cast<std::size_t>(n));
    LaunchPlan plan{};
    ASSERT_EQ((DeviceReduce::PlanSum<double, double>(plan, in.get(), n, correctly_rounded())), cudaSuccess);
    const std::int64_t vectors = n / 2, threads = std::int64_t(plan.grid_blocks) * plan.block_threads;
    const std::int64_t per_thread = (vectors + threads - 1) / threads;
    EXPECT_TRUE(per_thread == 1 || per_thread >= 4) << n << ": " << plan.grid_blocks << " blocks of "
                                                    << plan.block_threads << ", " << per_thread << " vectors a thread";
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
