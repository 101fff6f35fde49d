// Blas1::Dot, SumSquares and SumAbs with Accuracy::correctly_rounded on the GPU against MPFR: the
// exact sum of the terms x_i y_i, x_i^2 or |x_i| rounded once, bitwise, for every built pair,
// every input shape of the correctly rounded suite (test/common/exact_inputs.hpp), sizes around
// the block and vector boundaries, x and y at every relative alignment; the same bits from every
// pipeline, block size and grid, under permutations, on concurrent streams and in replayed CUDA
// graphs, on one stream between calls of every other kind; what is not built refused with nothing
// written. The oracle: MPFR's mpfr_sum of the terms, computed in double on the host where each is
// exact (the float family's products and squares, checked with an FMA; |x|), else by mpfr_mul at
// 106 bits (products of doubles).
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "common/exact_inputs.hpp"
#include "common/mpfr_oracle.hpp"
#include "gpu/common.cuh"
#include "gpu/correctly_rounded_common.cuh"
#include "gpu/level1_calls.cuh"
#include "gpureduce/blas.hpp"

namespace gpureduce::testing {
namespace {

enum class Term { dot, sum_squares, sum_abs };
const char* term_name(Term t) {
  return t == Term::dot ? "Dot" : t == Term::sum_squares ? "SumSquares" : "SumAbs";
}
template <class T>
using blas_out_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// The call's terms, each exact in double (a product of two float-family values has at most 48
// significant bits; |x| is x): the FMA's residual of a finite product is zero.
template <class T>
std::vector<double> exact_terms(Term term, const std::vector<T>& x, const std::vector<T>& y) {
  std::vector<double> terms(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double a = to_double(x[i]);
    const double b = term == Term::dot ? to_double(y[i]) : a;
    const double t = term == Term::sum_abs ? std::fabs(a) : a * b;
    if (term != Term::sum_abs && std::isfinite(t)) EXPECT_EQ(std::fma(a, b, -t), 0.0) << "inexact term";
    terms[i] = t;
  }
  return terms;
}

// The exact sum of x_i y_i for doubles, rounded once: each product exact at 106 bits (mpfr_mul),
// summed exactly at 4400 bits (products lie within 2^-2148 .. 2^2048), chunk by chunk.
double correctly_rounded_double_dot(const std::vector<double>& x, const std::vector<double>& y) {
  const std::size_t n = x.size(), chunk = 1 << 16;
  if (n == 0) return 0.0;
  std::vector<__mpfr_struct> terms(std::min(n, chunk));
  std::vector<mpfr_ptr> pointers(terms.size());
  for (std::size_t i = 0; i < terms.size(); ++i) mpfr_init2(&terms[i], 106), pointers[i] = &terms[i];
  mpfr_t a, b, part, total;
  mpfr_inits2(53, a, b, static_cast<mpfr_ptr>(nullptr));
  mpfr_inits2(4400, part, total, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_zero(total, -1);  // -0: a sum of only -0 products stays -0
  for (std::size_t begin = 0; begin < n; begin += chunk) {
    const std::size_t count = std::min(chunk, n - begin);
    for (std::size_t i = 0; i < count; ++i) {
      mpfr_set_d(a, x[begin + i], MPFR_RNDN);
      mpfr_set_d(b, y[begin + i], MPFR_RNDN);
      EXPECT_EQ(mpfr_mul(&terms[i], a, b, MPFR_RNDN), 0) << "inexact product";
    }
    mpfr_sum(part, pointers.data(), static_cast<unsigned long>(count), MPFR_RNDN);
    mpfr_add(total, total, part, MPFR_RNDN);
  }
  const double out = mpfr_get_d(total, MPFR_RNDN);
  mpfr_clears(a, b, part, total, static_cast<mpfr_ptr>(nullptr));
  for (auto& t : terms) mpfr_clear(&t);
  return out;
}

template <class T>
cudaError_t call(Term term, void* temp, std::size_t& bytes, const T* x, const T* y,
                 blas_out_t<T>* out, std::int64_t n, const Options& o) {
  switch (term) {
    case Term::dot: return Blas1::Dot(temp, bytes, x, y, out, n, nullptr, o);
    case Term::sum_squares: return Blas1::SumSquares(temp, bytes, x, out, n, nullptr, o);
    default: return Blas1::SumAbs(temp, bytes, x, out, n, nullptr, o);
  }
}

// One call with fresh temp storage (poison, or zeros where promised) and a poisoned output.
template <class T>
::testing::AssertionResult run(Term term, const T* x, const T* y, std::int64_t n, const Options& o,
                               blas_out_t<T>& got) {
  using Out = blas_out_t<T>;
  std::size_t bytes = 0;
  cudaError_t e = call<T>(term, nullptr, bytes, x, y, nullptr, n, o);
  if (e != cudaSuccess) return ::testing::AssertionFailure() << "size query: " << last_error_message();
  DeviceBuffer<unsigned char> temp(bytes);
  DeviceBuffer<Out> out(1);
  if (!temp.ok() || !out.ok()) return ::testing::AssertionFailure() << "allocation failed";
  if ((e = cudaMemset(out.get(), kPoisonByte, sizeof(Out))) == cudaSuccess)
    e = prepare_temp_storage(temp.get(), bytes, o.temp_storage_zeroed);
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) return ::testing::AssertionFailure() << "setup: " << cudaGetErrorString(e);
  e = call<T>(term, temp.get(), bytes, x, y, out.get(), n, o);
  if (e != cudaSuccess) return ::testing::AssertionFailure() << "run: " << last_error_message();
  if ((e = cudaDeviceSynchronize()) == cudaSuccess)
    e = cudaMemcpy(&got, out.get(), sizeof(Out), cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) return ::testing::AssertionFailure() << "kernel: " << cudaGetErrorString(e);
  return ::testing::AssertionSuccess();
}

// x and y on the device, with room for starts 0 to 3 items in, and each term's oracle.
template <class T>
struct Vectors {
  std::vector<T> x, y;
  DeviceBuffer<T> dx, dy;
  std::string what;
  std::map<Term, blas_out_t<T>> oracles;
  Vectors(std::vector<T> x_, std::vector<T> y_, std::string name)
      : x(std::move(x_)), y(std::move(y_)), dx(x.size() + 4), dy(y.size() + 4), what(std::move(name)) {}
  blas_out_t<T> oracle(Term term) {
    if (const auto known = oracles.find(term); known != oracles.end()) return known->second;
    if constexpr (std::is_same_v<T, double>)
      if (term != Term::sum_abs)
        return oracles[term] = correctly_rounded_double_dot(x, term == Term::dot ? y : x);
    const std::vector<double> terms = exact_terms(term, x, y);
    return oracles[term] = correctly_rounded_sum<blas_out_t<T>>(terms.data(), std::int64_t(terms.size()));
  }
  std::int64_t n() const { return std::int64_t(x.size()); }
  // Copies x to item x_at and y to item y_at of their buffers; the device pointers.
  std::pair<const T*, const T*> at(int x_at, int y_at) {
    EXPECT_EQ(cudaMemcpy(dx.get() + x_at, x.data(), x.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(dy.get() + y_at, y.data(), y.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
    return {dx.get() + x_at, dy.get() + y_at};
  }
  // Every term under `o` at these starts against its oracle; false once one differs.
  bool check(const std::vector<Term>& terms, const Options& o, int x_at, int y_at) {
    const auto [px, py] = at(x_at, y_at);
    for (Term term : terms) {
      const blas_out_t<T> want = oracle(term);
      blas_out_t<T> got{};
      const auto ran = run<T>(term, px, py, n(), o, got);
      EXPECT_TRUE(ran) << term_name(term) << " " << what;
      const bool same = ran && same_result(got, want);
      EXPECT_TRUE(same) << term_name(term) << " " << what << " n=" << n() << " x at " << x_at
                        << " y at " << y_at << " " << to_string(o.strategy) << "/"
                        << to_string(o.pipeline) << " block=" << o.block_threads
                        << " grid=" << o.grid_blocks << (o.temp_storage_zeroed ? " zeroed" : "")
                        << ": " << show(got) << " vs MPFR " << show(want);
      if (!same) return false;
    }
    return true;
  }
};

std::vector<Term> every_term() { return {Term::dot, Term::sum_squares, Term::sum_abs}; }

std::vector<std::int64_t> sizes() {
  // Vectors of 4 or 8 items, one block's batch (256 threads), automatic's one block (16 KiB) and
  // the double window's start (2^20 terms).
  return capped({0, 1, 2, 3, 5, 31, 32, 33, 255, 256, 257, 1009, 4095, 4097, 16383, 16385, 65537,
                 (1 << 20) + 3});
}

template <class T>
void every_shape_every_size() {
  const std::uint64_t seed = fresh_seed();
  ExactInputs<T> inputs(seed);
  for (ExactShape shape : kAllExactShapes)
    for (std::int64_t n : sizes()) {
      std::vector<T> x = inputs.make(shape, n), y = inputs.make(shape, n);
      Vectors<T> v(std::move(x), std::move(y), std::string(to_string(shape)) + " seed=" + std::to_string(seed));
      // y as x's alignment, then one and three items off (y read item by item)
      for (auto [x_at, y_at] : {std::pair{0, 0}, std::pair{1, 2}, std::pair{3, 0}})
        if (!v.check(every_term(), correctly_rounded(), x_at, y_at)) return;
    }
}

TEST(Blas1CorrectlyRounded, FloatEveryShapeEverySize) { REQUIRE_GPU(); every_shape_every_size<float>(); }
TEST(Blas1CorrectlyRounded, HalfEveryShapeEverySize) { REQUIRE_GPU(); every_shape_every_size<__half>(); }
TEST(Blas1CorrectlyRounded, Bfloat16EveryShapeEverySize) { REQUIRE_GPU(); every_shape_every_size<__nv_bfloat16>(); }
TEST(Blas1CorrectlyRounded, DoubleEveryShapeEverySize) { REQUIRE_GPU(); every_shape_every_size<double>(); }

// The vectorized rung under every pipeline, block size and grid, and zeroed storage: the bits of
// automatic's plan, MPFR's.
std::vector<Options> vectorized_plans() {
  std::vector<Options> plans{correctly_rounded()};
  for (Pipeline p : {Pipeline::two_kernel, Pipeline::last_block, Pipeline::atomic,
                     Pipeline::grid_sync, Pipeline::cluster, Pipeline::automatic})
    for (int block : {64, 256, 1024})
      for (int grid : {0, 1, 3, 7}) {
        Options o = correctly_rounded(Options{Strategy::vectorized, p, block, grid});
        plans.push_back(o);
      }
  Options zeroed = correctly_rounded();
  zeroed.temp_storage_zeroed = true;
  plans.push_back(zeroed);
  return plans;
}

template <class T>
void every_plan_same_bits() {
  const std::uint64_t seed = fresh_seed();
  ExactInputs<T> inputs(seed);
  for (ExactShape shape : {ExactShape::every_scale, ExactShape::cancellation, ExactShape::drifting})
    for (std::int64_t n : capped({4097, (1 << 18) + 5})) {
      std::vector<T> x = inputs.make(shape, n), y = inputs.make(shape, n);
      Vectors<T> v(std::move(x), std::move(y), std::string(to_string(shape)) + " seed=" + std::to_string(seed));
      for (const Options& o : vectorized_plans())
        if (!v.check(every_term(), o, 1, 2)) return;
    }
}

TEST(Blas1CorrectlyRounded, FloatEveryPlanSameBits) { REQUIRE_GPU(); every_plan_same_bits<float>(); }
TEST(Blas1CorrectlyRounded, Bfloat16EveryPlanSameBits) { REQUIRE_GPU(); every_plan_same_bits<__nv_bfloat16>(); }
TEST(Blas1CorrectlyRounded, DoubleEveryPlanSameBits) { REQUIRE_GPU(); every_plan_same_bits<double>(); }

// x and y permuted alike: the same terms in another order, the same bits.
TEST(Blas1CorrectlyRounded, PermutationsSameBits) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  ExactInputs<float> inputs(seed);
  const std::int64_t n = 100003;
  std::vector<float> x = inputs.make(ExactShape::ill_conditioned, n), y = inputs.make(ExactShape::every_scale, n);
  std::mt19937_64 rng(seed);
  std::vector<std::size_t> order(std::size_t(n), 0);
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  for (int round = 0; round < 8; ++round) {
    std::vector<float> px(x.size()), py(y.size());
    for (std::size_t i = 0; i < order.size(); ++i) px[i] = x[order[i]], py[i] = y[order[i]];
    Vectors<float> v(std::move(px), std::move(py), "permutation " + std::to_string(round) + " seed=" + std::to_string(seed));
    if (!v.check(every_term(), correctly_rounded(), 0, 0)) return;
    std::shuffle(order.begin(), order.end(), rng);
  }
}

// Dot with y all ones is the correctly rounded Sum of x: the two engines' entry points agree.
TEST(Blas1CorrectlyRounded, DotOfOnesIsTheSum) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  ExactInputs<float> inputs(seed);
  for (std::int64_t n : capped({33, 65537, (1 << 20) + 3})) {
    Vectors<float> v(inputs.make(ExactShape::cancellation, n), std::vector<float>(std::size_t(n), 1.0f),
                     "ones seed=" + std::to_string(seed));
    const auto [x, y] = v.at(1, 0);
    float dot = 0, sum = 0;
    ASSERT_TRUE(run<float>(Term::dot, x, y, n, correctly_rounded(), dot));
    ASSERT_TRUE((run_gpureduce<Case<float, float, Op::sum>>(x, n, correctly_rounded(), sum)));
    EXPECT_TRUE(same_bits(dot, sum)) << "n=" << n << ": Dot " << show(dot) << ", Sum " << show(sum);
    EXPECT_TRUE(same_result(dot, v.oracle(Term::dot)));
  }
}

// Dot of x and y (copies): MPFR's bits, and `want`, the exact answer worked out by hand.
template <class T>
void expect_dot(std::vector<T> x, std::vector<T> y, const std::string& what, blas_out_t<T> want) {
  Vectors<T> v(std::move(x), std::move(y), what);
  ASSERT_TRUE(v.check({Term::dot}, correctly_rounded(), 0, 0));
  blas_out_t<T> got = 0;
  const auto [px, py] = v.at(0, 0);
  ASSERT_TRUE(run<T>(Term::dot, px, py, v.n(), correctly_rounded(), got));
  EXPECT_EQ(got, want) << what;
}

// Products past float's range that cancel, and squares below it that add up: a float
// accumulator gives inf - inf (NaN) or 0 here; the exact sum gives the small answer.
TEST(Blas1CorrectlyRounded, TermsOutsideFloatRange) {
  REQUIRE_GPU();
  const std::int64_t n = 5000;
  std::vector<float> x(std::size_t(n), 0.75f), y(std::size_t(n), -0.5f);
  x[10] = 0x1p100f, y[10] = 0x1p100f;          // 2^200
  x[4000] = 0x1p100f, y[4000] = -0x1p100f;     // -2^200
  expect_dot(x, y, "cancelling 2^200", -0.375f * float(n - 2));  // the two huge products cancel
  Vectors<float> tiny(std::vector<float>(std::size_t(n), 0x1p-80f), std::vector<float>(std::size_t(n), 0.0f), "squares of 2^-80");
  ASSERT_TRUE(tiny.check({Term::sum_squares}, correctly_rounded(), 0, 0));  // 5000 * 2^-160: subnormal
}

// Products of doubles past double's range that cancel, and products below it (each would round
// to 0 in double) that add up to a subnormal: exact. Both sides of the TwoProduct path's limits.
TEST(Blas1CorrectlyRounded, DoubleProductsOutsideDoubleRange) {
  REQUIRE_GPU();
  const std::int64_t n = 1 << 20;
  std::vector<double> x(std::size_t(n), 0x1p-540), y(std::size_t(n), 0x1p-540);  // 2^-1080 each
  x[7] = 0x1p600, y[7] = 0x1p600;            // 2^1200
  x[70000] = 0x1p600, y[70000] = -0x1p600;   // -2^1200
  // (2^20 - 2) 2^-1080 is 16383.97 units of 2^-1074: 2^-1060 rounded
  expect_dot(x, y, "2^1200 cancelling among 2^-1080s", 0x1p-1060);
  // Around the TwoProduct path's lowest product (2^-968) and its highest (just below 2^1024).
  x[99] = 0x1p-484, y[99] = 0x1p-484;
  x[100] = 0x1.8p-485, y[100] = -0x1.000001p-484;
  x[101] = 0x1.fffffffffffffp511, y[101] = 0x1.fffffffffffffp511;
  x[102] = -0x1.fffffffffffffp511, y[102] = 0x1.fffffffffffffp511;
  Vectors<double> edges(x, y, "TwoProduct's edges");
  ASSERT_TRUE(edges.check({Term::dot, Term::sum_squares}, correctly_rounded(), 1, 1));
  std::vector<double> squares(std::size_t(4096), 0x1p-537);  // 2^-1074 each: the least subnormal
  Vectors<double> tiny(squares, squares, "squares of 2^-537");
  ASSERT_TRUE(tiny.check({Term::sum_squares, Term::dot}, correctly_rounded(), 1, 1));
}

// One call of a kind on its own stream, each round with fresh inputs: Dot of floats and doubles
// (grids of several blocks: the atomic pipeline on the stream's slot, or the graph's), SumSquares
// of doubles.
struct StreamJob {
  Term term;
  bool doubles;
  std::int64_t n;
};
template <class T>
struct JobBuffers {
  DeviceBuffer<T> x, y;
  DeviceBuffer<blas_out_t<T>> out{1};
  DeviceBuffer<unsigned char> temp;
  std::size_t bytes = 0;
  std::vector<T> hx, hy;
  void prepare(Term term, std::int64_t n, ExactInputs<T>& inputs, bool first) {
    if (first) {
      x.resize(std::size_t(n)), y.resize(std::size_t(n));
      ASSERT_EQ(call<T>(term, nullptr, bytes, nullptr, nullptr, nullptr, n, correctly_rounded()), cudaSuccess);
      temp.resize(bytes);
      ASSERT_EQ(cudaMemset(temp.get(), kPoisonByte, bytes), cudaSuccess);
    }
    hx = inputs.make(ExactShape::every_scale, n), hy = inputs.make(ExactShape::cancellation, n);
    ASSERT_EQ(cudaMemcpy(x.get(), hx.data(), hx.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(y.get(), hy.data(), hy.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemset(out.get(), kPoisonByte, sizeof(blas_out_t<T>)), cudaSuccess);
  }
  cudaError_t launch(Term term, std::int64_t n, cudaStream_t stream) {
    const Options o = correctly_rounded();
    switch (term) {
      case Term::dot: return Blas1::Dot(temp.get(), bytes, x.get(), y.get(), out.get(), n, stream, o);
      case Term::sum_squares: return Blas1::SumSquares(temp.get(), bytes, x.get(), out.get(), n, stream, o);
      default: return Blas1::SumAbs(temp.get(), bytes, x.get(), out.get(), n, stream, o);
    }
  }
  bool matches(Term term, const std::string& where) {
    Vectors<T> v(hx, hy, where);
    const blas_out_t<T> want = v.oracle(term), got = copy_to_host(out.get());
    EXPECT_TRUE(same_result(got, want)) << term_name(term) << " " << where << ": " << show(got) << " vs MPFR " << show(want);
    return same_result(got, want);
  }
};

TEST(Blas1CorrectlyRounded, StreamsAndGraphs) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  ExactInputs<float> float_inputs(seed);
  ExactInputs<double> double_inputs(seed + 1);
  const StreamJob jobs[] = {{Term::dot, false, (1 << 20) + 3}, {Term::dot, true, 300001},
                            {Term::sum_squares, true, 300001}, {Term::sum_abs, false, 65537}};
  constexpr int kJobs = 4;
  std::vector<JobBuffers<float>> floats(kJobs);
  std::vector<JobBuffers<double>> doubles(kJobs);
  std::vector<cudaStream_t> streams(kJobs);
  for (auto& s : streams) CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const auto prepare_all = [&](bool first) {
    for (int j = 0; j < kJobs; ++j) {
      if (jobs[j].doubles) doubles[j].prepare(jobs[j].term, jobs[j].n, double_inputs, first);
      else floats[j].prepare(jobs[j].term, jobs[j].n, float_inputs, first);
    }
    // the legacy stream's copies and poison, before the non-blocking streams' calls
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  };
  const auto launch = [&](int j, cudaStream_t stream) {
    return jobs[j].doubles ? doubles[j].launch(jobs[j].term, jobs[j].n, stream)
                           : floats[j].launch(jobs[j].term, jobs[j].n, stream);
  };
  const auto check_all = [&](const std::string& where) {
    for (int j = 0; j < kJobs; ++j) {
      const std::string what = where + " job " + std::to_string(j) + " seed=" + std::to_string(seed);
      if (!(jobs[j].doubles ? doubles[j].matches(jobs[j].term, what) : floats[j].matches(jobs[j].term, what))) return false;
    }
    return true;
  };
  for (int round = 0; round < 2; ++round) {  // each job on its own stream, at once
    prepare_all(round == 0);
    for (int j = 0; j < kJobs; ++j) CUDA_OK(launch(j, streams[j]));
    CUDA_OK(cudaDeviceSynchronize());
    if (!check_all("streams round " + std::to_string(round))) break;
  }
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  CUDA_OK(cudaStreamBeginCapture(streams[0], cudaStreamCaptureModeGlobal));
  for (int j = 0; j < kJobs; ++j) CUDA_OK(launch(j, streams[0]));
  CUDA_OK(cudaStreamEndCapture(streams[0], &graph));
  CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 3; ++replay) {
    prepare_all(false);
    CUDA_OK(cudaGraphLaunch(exec, streams[0]));
    CUDA_OK(cudaStreamSynchronize(streams[0]));
    if (!check_all("graph replay " + std::to_string(replay))) break;
  }
  CUDA_OK(cudaGraphExecDestroy(exec));
  CUDA_OK(cudaGraphDestroy(graph));
  for (auto s : streams) CUDA_OK(cudaStreamDestroy(s));
}

// One stream's slot serves every call on the stream in turn, so each kind of call must leave it as
// it found it (zero) for the next kind: the exact engine's atomic states of three families
// (float, double and the products of doubles, whose larger grid states overlap the windows'
// records), the grid and deep windows' records and tickets, and the default engine's flagged
// slots of 4- and 16-byte partials. The calls run back to back, four rounds with fresh inputs,
// alternately on a non-blocking stream and the legacy stream, the order reversed each time; every
// result checked:
// the correctly rounded ones against MPFR, the default Sum (small integers: exact in any order)
// and ArgMin against the host.
template <class T>
struct SumJob {  // DeviceReduce::Sum of T, correctly rounded or the default engine
  bool exact;
  std::int64_t n;
  DeviceBuffer<T> in{std::size_t(n)}, out{1};
  DeviceBuffer<unsigned char> temp;
  std::size_t bytes = 0;
  std::vector<T> host;
  SumJob(bool exact_, std::int64_t n_) : exact(exact_), n(n_) {}
  Options options() const { return exact ? correctly_rounded() : Options{}; }
  void prepare(ExactInputs<T>& inputs, std::mt19937_64& rng) {
    if (bytes == 0) {
      ASSERT_EQ(DeviceReduce::Sum(nullptr, bytes, in.get(), out.get(), n, nullptr, options()), cudaSuccess);
      temp.resize(bytes);
      ASSERT_EQ(cudaMemset(temp.get(), kPoisonByte, bytes), cudaSuccess);
    }
    if (exact) {
      host = inputs.make(ExactShape::cancellation, n);
    } else {
      std::uniform_int_distribution<int> small(-4, 4);  // every partial sum exact in T
      host.resize(std::size_t(n));
      for (T& v : host) v = T(small(rng));
    }
    ASSERT_EQ(cudaMemcpy(in.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemset(out.get(), kPoisonByte, sizeof(T)), cudaSuccess);
  }
  cudaError_t launch(cudaStream_t stream) {
    return DeviceReduce::Sum(temp.get(), bytes, in.get(), out.get(), n, stream, options());
  }
  bool matches(const std::string& where) {
    double whole = 0;
    for (T v : host) whole += double(v);
    const T want = exact ? correctly_rounded_sum<T>(host.data(), n) : T(whole), got = copy_to_host(out.get());
    EXPECT_TRUE(same_result(got, want)) << (exact ? "correctly rounded" : "default") << " Sum n=" << n
                                        << " " << where << ": " << show(got) << " vs " << show(want);
    return same_result(got, want);
  }
};
struct ArgMinJob {  // the default engine's 16-byte flagged slots
  std::int64_t n;
  DeviceBuffer<float> in{std::size_t(n)};
  DeviceBuffer<IndexedValue<float>> out{1};
  DeviceBuffer<unsigned char> temp;
  std::size_t bytes = 0;
  std::vector<float> host;
  explicit ArgMinJob(std::int64_t n_) : n(n_) {}
  void prepare(std::mt19937_64& rng) {
    if (bytes == 0) {
      ASSERT_EQ(DeviceReduce::ArgMin(nullptr, bytes, in.get(), out.get(), n), cudaSuccess);
      temp.resize(bytes);
      ASSERT_EQ(cudaMemset(temp.get(), kPoisonByte, bytes), cudaSuccess);
    }
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    host.resize(std::size_t(n));
    for (float& v : host) v = uniform(rng);
    ASSERT_EQ(cudaMemcpy(in.get(), host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemset(out.get(), kPoisonByte, sizeof(IndexedValue<float>)), cudaSuccess);
  }
  cudaError_t launch(cudaStream_t stream) {
    return DeviceReduce::ArgMin(temp.get(), bytes, in.get(), out.get(), n, stream);
  }
  bool matches(const std::string& where) {
    const auto first = std::min_element(host.begin(), host.end());
    const IndexedValue<float> got = copy_to_host(out.get());
    const bool same = got.index == first - host.begin() && same_bits(got.value, *first);
    EXPECT_TRUE(same) << "ArgMin " << where << ": " << got.index << " " << show(got.value)
                      << " vs " << (first - host.begin()) << " " << show(*first);
    return same;
  }
};

TEST(Blas1CorrectlyRounded, OneStreamEveryStateInTurn) {
  REQUIRE_GPU();
  const std::uint64_t seed = fresh_seed();
  std::mt19937_64 rng(seed);
  ExactInputs<float> float_inputs(seed);
  ExactInputs<double> double_inputs(seed + 1);
  JobBuffers<double> dot_doubles, squares_doubles;
  JobBuffers<float> dot_floats, magnitudes;
  SumJob<double> deep_doubles{true, (1 << 20) + 5};  // 8 MiB: the deep window
  SumJob<float> grid_floats{true, 65537};             // 256 KiB: the grid window
  SumJob<float> default_floats{false, (1 << 20) + 5};
  ArgMinJob argmin{(1 << 20) + 5};
  struct Step {
    std::function<void(bool)> prepare;
    std::function<cudaError_t(cudaStream_t)> launch;
    std::function<bool(const std::string&)> matches;
  };
  const auto blas = [](auto& job, Term term, std::int64_t n, auto& inputs) {
    return Step{[&job, term, n, &inputs](bool first) { job.prepare(term, n, inputs, first); },
                [&job, term, n](cudaStream_t s) { return job.launch(term, n, s); },
                [&job, term](const std::string& w) { return job.matches(term, w); }};
  };
  const auto sum = [&rng](auto& job, auto& inputs) {
    return Step{[&job, &inputs, &rng](bool) { job.prepare(inputs, rng); },
                [&job](cudaStream_t s) { return job.launch(s); },
                [&job](const std::string& w) { return job.matches(w); }};
  };
  std::vector<Step> steps = {
      blas(dot_doubles, Term::dot, 300001, double_inputs),  // products of doubles: atomic
      sum(deep_doubles, double_inputs),
      sum(default_floats, float_inputs),
      blas(squares_doubles, Term::sum_squares, 300001, double_inputs),
      Step{[&](bool) { argmin.prepare(rng); }, [&](cudaStream_t s) { return argmin.launch(s); },
           [&](const std::string& w) { return argmin.matches(w); }},
      blas(dot_floats, Term::dot, (1 << 20) + 3, float_inputs),  // the double family: atomic
      sum(grid_floats, float_inputs),
      blas(magnitudes, Term::sum_abs, 65537, float_inputs)};  // the float family: atomic
  cudaStream_t stream = nullptr;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (int round = 0; round < 4 && !HasFailure(); ++round) {
    for (std::size_t k = 0; k < steps.size(); ++k) steps[k].prepare(round == 0);
    CUDA_OK(cudaDeviceSynchronize());  // the legacy stream's copies and poison first
    const bool legacy = round % 2 == 1;
    if (legacy) std::reverse(steps.begin(), steps.end());
    for (auto& step : steps) CUDA_OK(step.launch(legacy ? nullptr : stream));
    CUDA_OK(cudaDeviceSynchronize());
    const std::string where = std::string(legacy ? "legacy stream" : "new stream") + ", round " +
                              std::to_string(round) + ", seed=" + std::to_string(seed);
    for (auto& step : steps) step.matches(where);
  }
  CUDA_OK(cudaStreamDestroy(stream));
}

// Beyond 2^31 items: x and y constant but for values planted on both sides of 2^31 and at the
// end (an index that wraps at 2^31 or a lost tail shows), products past float's range among them
// that cancel. Every partial sum is exact in double, so the oracle is the exact double rounded
// once. Then SumSquares of doubles alike, with squares below double's range planted.
__global__ void fill_constant(float* x, float* y, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    x[i] = 0.75f, y[i] = -0.5f;
}
__global__ void fill_constant(double* x, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    x[i] = 0.75;
}
template <class T>
cudaError_t plant_at(T* d, std::int64_t i, T value) {
  return cudaMemcpy(d + i, &value, sizeof value, cudaMemcpyHostToDevice);
}

TEST(Blas1CorrectlyRounded, Beyond2To31Items) {
  REQUIRE_GPU();
  const std::int64_t n = (std::int64_t(1) << 31) + 17, k = std::int64_t(1) << 31;
  {
    DeviceBuffer<float> x, y;
    if (const std::string why = allocate_large(x, n, std::size_t(n)); !why.empty()) GTEST_SKIP() << why;
    if (const std::string why = allocate_large(y, n, std::size_t(n)); !why.empty()) GTEST_SKIP() << why;
    fill_constant<<<4096, 256>>>(x.get(), y.get(), n);
    CUDA_OK(cudaGetLastError());
    const std::pair<float, float> plants[] = {{0x1p100f, 0x1p100f}, {3.0f, 5.0f}, {0x1p100f, -0x1p100f}, {7.0f, 11.0f}};
    const std::int64_t at[] = {k - 1, k, k + 1, n - 1};
    for (int p = 0; p < 4; ++p) {
      CUDA_OK(plant_at(x.get(), at[p], plants[p].first));
      CUDA_OK(plant_at(y.get(), at[p], plants[p].second));
    }
    const double exact = -0.375 * double(n - 4) + 15.0 + 77.0;  // 2^200 - 2^200 cancels
    DeviceBuffer<float> out(1);
    Scratch scratch;
    for (const Options& o : {correctly_rounded(), correctly_rounded(Options{Strategy::vectorized, Pipeline::two_kernel})}) {
      float got = 0;
      const auto ran = run_call([&](void* t, std::size_t& b) { return Blas1::Dot(t, b, x.get(), y.get(), out.get(), n, nullptr, o); },
                                out.get(), got, false, scratch);
      ASSERT_TRUE(ran);
      EXPECT_TRUE(same_bits(got, float(exact))) << "Dot f32 " << to_string(o.pipeline) << ": " << show(got) << " vs " << show(float(exact));
    }
  }
  DeviceBuffer<double> x;
  if (const std::string why = allocate_large(x, n, std::size_t(n)); !why.empty()) GTEST_SKIP() << why;
  fill_constant<<<4096, 256>>>(x.get(), n);
  CUDA_OK(cudaGetLastError());
  const double plants[] = {3.0, 0x1p-540, 5.0, 0x1p-600};  // the last two squares below double's range
  const std::int64_t at[] = {k - 1, k, k + 1, n - 1};
  for (int p = 0; p < 4; ++p) CUDA_OK(plant_at(x.get(), at[p], plants[p]));
  // 0.5625 (n - 4) + 34 is a double; the squares 2^-1080 and 2^-1200 below it only set the sticky bit
  const double exact = 0.5625 * double(n - 4) + 9.0 + 25.0;
  DeviceBuffer<double> out(1);
  double got = 0;
  Scratch scratch;
  ASSERT_TRUE(run_call([&](void* t, std::size_t& b) { return Blas1::SumSquares(t, b, x.get(), out.get(), n, nullptr, correctly_rounded()); },
                       out.get(), got, false, scratch));
  EXPECT_TRUE(same_bits(got, exact)) << "SumSquares f64: " << show(got) << " vs " << show(exact);
}

// What is not built is refused: cudaErrorInvalidValue, a message, the output untouched.
template <class T>
void expect_refused(const std::string& what, const std::function<cudaError_t(void*, std::size_t&, T*)>& call_with) {
  DeviceBuffer<T> out(1);
  DeviceBuffer<unsigned char> temp(1 << 20);
  ASSERT_EQ(cudaMemset(out.get(), kPoisonByte, sizeof(T)), cudaSuccess);
  std::size_t bytes = 1 << 20;
  EXPECT_EQ(call_with(nullptr, bytes, out.get()), cudaErrorInvalidValue) << what << " (size query)";
  EXPECT_EQ(call_with(temp.get(), bytes, out.get()), cudaErrorInvalidValue) << what;
  EXPECT_NE(std::string(last_error_message()), "") << what;
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  T host{};
  ASSERT_EQ(cudaMemcpy(&host, out.get(), sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_TRUE(same_bits(host, poison_value<T>())) << what << ": the output was written";
}

TEST(Blas1CorrectlyRounded, RefusesWhatIsNotBuilt) {
  REQUIRE_GPU();
  const std::int64_t n = 1000;
  DeviceBuffer<float> xf(n);
  ASSERT_TRUE(xf.ok());
  ASSERT_EQ(fill_random(xf.get(), n, fresh_seed(), Fill::random), cudaSuccess);
  const Options cr = correctly_rounded();
  expect_refused<float>("Norm2", [&](void* t, std::size_t& b, float* o) {
    return Blas1::Norm2(t, b, xf.get(), o, n, nullptr, cr);
  });
  expect_refused<float>("a seed rung", [&](void* t, std::size_t& b, float* o) {
    return Blas1::Dot(t, b, xf.get(), xf.get(), o, n, nullptr, correctly_rounded(Options{Strategy::sequential}));
  });
  // Not refusals of the option, but of the call: they must not write either.
  DeviceBuffer<float> out(1);
  ASSERT_EQ(cudaMemset(out.get(), kPoisonByte, sizeof(float)), cudaSuccess);
  std::size_t bytes = 0, squares_bytes = 0, magnitudes_bytes = 0;
  ASSERT_EQ(Blas1::Dot(nullptr, bytes, xf.get(), xf.get(), out.get(), n, nullptr, cr), cudaSuccess);
  ASSERT_EQ(Blas1::SumSquares(nullptr, squares_bytes, xf.get(), out.get(), n, nullptr, cr), cudaSuccess);
  ASSERT_EQ(Blas1::SumAbs(nullptr, magnitudes_bytes, xf.get(), out.get(), n, nullptr, cr), cudaSuccess);
  // Enough for any of the three, so that only the null vector can be what is refused.
  std::size_t most_bytes = std::max({bytes, squares_bytes, magnitudes_bytes});
  DeviceBuffer<unsigned char> temp(most_bytes);
  std::size_t short_bytes = bytes - 8;
  EXPECT_EQ(Blas1::Dot(temp.get(), short_bytes, xf.get(), xf.get(), out.get(), n, nullptr, cr), cudaErrorInvalidValue);
  EXPECT_EQ(Blas1::Dot(temp.get(), most_bytes, xf.get(), static_cast<const float*>(nullptr), out.get(), n, nullptr, cr),
            cudaErrorInvalidValue);
  EXPECT_EQ(Blas1::Dot(temp.get(), most_bytes, static_cast<const float*>(nullptr), xf.get(), out.get(), n, nullptr, cr),
            cudaErrorInvalidValue);
  EXPECT_EQ(Blas1::SumSquares(temp.get(), most_bytes, static_cast<const float*>(nullptr), out.get(), n, nullptr, cr),
            cudaErrorInvalidValue);
  EXPECT_EQ(Blas1::SumAbs(temp.get(), most_bytes, static_cast<const float*>(nullptr), out.get(), n, nullptr, cr),
            cudaErrorInvalidValue);
  EXPECT_EQ(Blas1::SumAbs(temp.get(), most_bytes, xf.get(), out.get(), -1, nullptr, cr), cudaErrorInvalidValue);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  float host = 0;
  ASSERT_EQ(cudaMemcpy(&host, out.get(), sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_TRUE(same_bits(host, poison_value<float>())) << "a refused call wrote its output";
}

}  // namespace
}  // namespace gpureduce::testing
