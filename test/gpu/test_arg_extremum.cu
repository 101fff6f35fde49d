// DeviceReduce::ArgMin / ArgMax against cub::DeviceReduce::ArgMin / ArgMax (CCCL 3.0.1's overload
// with two outputs: the value, and the index as cuda::std::int64_t), for every shipped type:
//   - NaN-free inputs: index and value bitwise CUB's for every strategy x pipeline (float, int32,
//     __half; the other types: automatic and two pipelines per strategy), on the engine's sizes,
//     aligned and at d_in + 1, on inputs full of ties (integers in [-3, 3]) and on random ones,
//     with the best possible value planted just outside [d_in, d_in + n) so that reading past
//     either end changes the answer. The atomic pipeline refuses: cudaErrorInvalidValue, a
//     message, nothing written;
//   - extrema planted at known indices (first, last, duplicated, adjacent), checked against the
//     planted index as well as CUB, so a wrong index fails even where the value is right;
//   - empty input (what CUB writes), -0 and +0 tie (CUB's `<`: the first zero wins), NaN (the first
//     NaN's index and bits; no CUB comparison, CUB's answer with NaN depends on its order);
//   - block sizes 32 and 1024, grids of 1 and 3 blocks, garbage and zeroed temp storage (zeroed
//     once and reused by calls of several types, sizes and pipelines), a non-blocking stream, and
//     n > 2^31 (float ArgMin, where the memory is there).
#include <algorithm>
#include <cmath>
#include <limits>

#include "gpu/common.cuh"
#include "gpu/level1_calls.cuh"

namespace gpureduce::testing {
namespace {

template <class T>
std::string type_name() {
  return Case<T, T, Op::min>::template type_name<T>();
}

const char* fill_name(Fill fill) { return fill == Fill::small_integers ? "small_integers" : "random"; }

// One of the two calls, ours and CUB's, for T.
template <class T, bool kMin>
struct Arg {
  static cudaError_t ours(void* temp, std::size_t& bytes, const T* d_in, IndexedValue<T>* d_out,
                          std::int64_t n, cudaStream_t stream, const Options& options) {
    if constexpr (kMin) return DeviceReduce::ArgMin(temp, bytes, d_in, d_out, n, stream, options);
    else return DeviceReduce::ArgMax(temp, bytes, d_in, d_out, n, stream, options);
  }
  static cudaError_t reference(void* temp, std::size_t& bytes, const T* d_in, T* d_value,
                               ::cuda::std::int64_t* d_index, std::int64_t n, cudaStream_t stream) {
    if constexpr (kMin) return ::cub::DeviceReduce::ArgMin(temp, bytes, d_in, d_value, d_index, n, stream);
    else return ::cub::DeviceReduce::ArgMax(temp, bytes, d_in, d_value, d_index, n, stream);
  }
  static std::string name() { return std::string(kMin ? "ArgMin<" : "ArgMax<") + type_name<T>() + ">"; }
  // The value that beats every other (ties aside): planted outside the input, it changes the
  // answer of a kernel that reads past either end.
  static T beyond() { return kMin ? detail::value_traits<T>::lowest() : detail::value_traits<T>::max(); }
};

template <class T>
__host__ __device__ T from_int(int v) {
  if constexpr (is_floating_v<T>) return T(float(v));
  else return T(v);
}

// One element, written in `stream`'s order (pageable memory: staged before the call returns).
template <class T>
cudaError_t plant(T* d_buffer, std::int64_t i, T value, cudaStream_t stream = nullptr) {
  return cudaMemcpyAsync(d_buffer + i, &value, sizeof(T), cudaMemcpyHostToDevice, stream);
}

template <class T>
std::string show_result(const IndexedValue<T>& r) {
  return "{" + std::to_string(r.index) + ", " + show(r.value) + "}";
}

// Index equal and value bitwise equal (the padding after the value is not compared).
template <class T>
::testing::AssertionResult same_result(const IndexedValue<T>& got, const IndexedValue<T>& want) {
  if (got.index == want.index && same_bits(got.value, want.value)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << show_result(got) << ", want " << show_result(want);
}

enum class TempPrep {
  per_call,  // before each call: garbage (poison), or zero under temp_storage_zeroed
  keep,      // as the previous call left it (temp_storage_zeroed's promise: zeroed once, reused)
};

// Runs ArgMin/ArgMax (ours and CUB's) on one stream, everything asynchronous on it up to the final
// synchronisation, with the outputs poisoned before every call so that an unwritten result cannot
// pass.
template <class T, bool kMin>
class ArgRunner {
 public:
  using A = Arg<T, kMin>;
  explicit ArgRunner(cudaStream_t stream = nullptr, Scratch* shared = nullptr)
      : stream_(stream), temp_(shared ? shared : &own_), out_(1), cub_value_(1), cub_index_(1) {}

  ::testing::AssertionResult cub(const T* d_in, std::int64_t n, IndexedValue<T>& result) {
    std::size_t bytes = 0;
    cudaError_t e = A::reference(nullptr, bytes, d_in, cub_value_.get(), cub_index_.get(), n, stream_);
    if (e != cudaSuccess) return ::testing::AssertionFailure() << "CUB size query: " << cudaGetErrorString(e);
    if (auto r = cub_temp_.reserve(bytes); !r) return r;
    if ((e = cudaMemsetAsync(cub_value_.get(), kPoisonByte, sizeof(T), stream_)) != cudaSuccess ||
        (e = cudaMemsetAsync(cub_index_.get(), kPoisonByte, sizeof(::cuda::std::int64_t), stream_)) != cudaSuccess)
      return ::testing::AssertionFailure() << "poisoning CUB's outputs: " << cudaGetErrorString(e);
    e = A::reference(cub_temp_.buffer.get(), bytes, d_in, cub_value_.get(), cub_index_.get(), n, stream_);
    if (e != cudaSuccess) return ::testing::AssertionFailure() << "CUB: " << cudaGetErrorString(e);
    if ((e = cudaStreamSynchronize(stream_)) != cudaSuccess)
      return ::testing::AssertionFailure() << "CUB's kernels: " << cudaGetErrorString(e);
    ::cuda::std::int64_t index = 0;
    if ((e = cudaMemcpy(&result.value, cub_value_.get(), sizeof(T), cudaMemcpyDeviceToHost)) != cudaSuccess ||
        (e = cudaMemcpy(&index, cub_index_.get(), sizeof index, cudaMemcpyDeviceToHost)) != cudaSuccess)
      return ::testing::AssertionFailure() << "copying CUB's result: " << cudaGetErrorString(e);
    result.index = std::int64_t(index);
    // CCCL 3.0.1's ArgMin/ArgMax with separate value and index outputs write nothing at all for
    // n = 0 (seen on an H100), though the header documents {1, max()/lowest()}: the documented
    // pair stands in for CUB's, and the empty-input test says which CUB did.
    if (n == 0 && index == poison_value<::cuda::std::int64_t>()) result = documented_empty();
    return ::testing::AssertionSuccess();
  }
  static IndexedValue<T> documented_empty() {
    return {1, kMin ? detail::value_traits<T>::max() : detail::value_traits<T>::lowest()};
  }

  ::testing::AssertionResult ours(const T* d_in, std::int64_t n, const Options& options,
                                  IndexedValue<T>& result, TempPrep prep = TempPrep::per_call) {
    std::size_t bytes = 0;
    cudaError_t e = A::ours(nullptr, bytes, d_in, out_.get(), n, stream_, options);
    if (e != cudaSuccess)
      return ::testing::AssertionFailure() << "size query: " << cudaGetErrorString(e) << " / " << last_error_message();
    if (prep == TempPrep::keep && bytes > temp_->buffer.size())
      return ::testing::AssertionFailure() << "test error: " << bytes << " bytes of temp storage not reserved";
    if (auto r = temp_->reserve(bytes); !r) return r;
    if (prep == TempPrep::per_call &&
        (e = cudaMemsetAsync(temp_->buffer.get(), options.temp_storage_zeroed ? 0 : kPoisonByte, bytes,
                             stream_)) != cudaSuccess)
      return ::testing::AssertionFailure() << "preparing temp storage: " << cudaGetErrorString(e);
    if ((e = cudaMemsetAsync(out_.get(), kPoisonByte, sizeof(IndexedValue<T>), stream_)) != cudaSuccess)
      return ::testing::AssertionFailure() << "poisoning d_out: " << cudaGetErrorString(e);
    e = A::ours(temp_->buffer.get(), bytes, d_in, out_.get(), n, stream_, options);
    if (e != cudaSuccess)
      return ::testing::AssertionFailure() << "run: " << cudaGetErrorString(e) << " / " << last_error_message();
    if ((e = cudaStreamSynchronize(stream_)) != cudaSuccess)
      return ::testing::AssertionFailure() << "kernels: " << cudaGetErrorString(e);
    if ((e = cudaMemcpy(&result, out_.get(), sizeof result, cudaMemcpyDeviceToHost)) != cudaSuccess)
      return ::testing::AssertionFailure() << "copy back: " << cudaGetErrorString(e);
    return ::testing::AssertionSuccess();
  }

  // The atomic pipeline has no atomic that holds an {index, value} pair: the size query and the
  // call refuse with cudaErrorInvalidValue and a message naming the pipeline, launch nothing and
  // leave the poisoned d_out as it was.
  ::testing::AssertionResult refused(const T* d_in, std::int64_t n, const Options& options) {
    std::size_t bytes = 0;
    cudaError_t e = A::ours(nullptr, bytes, d_in, out_.get(), n, stream_, options);
    if (e != cudaErrorInvalidValue)
      return ::testing::AssertionFailure() << "size query gave " << cudaGetErrorName(e) << ", want cudaErrorInvalidValue";
    if (std::string(last_error_message()).find("atomic") == std::string::npos)
      return ::testing::AssertionFailure() << "message does not name the atomic pipeline: '" << last_error_message() << "'";
    // Storage sized for a pipeline that runs, so that only the pipeline can be the reason.
    Options runnable = options;
    runnable.pipeline = Pipeline::two_kernel;
    if ((e = A::ours(nullptr, bytes, d_in, out_.get(), n, stream_, runnable)) != cudaSuccess)
      return ::testing::AssertionFailure() << "two_kernel size query: " << cudaGetErrorString(e);
    if (auto r = temp_->reserve(bytes); !r) return r;
    if ((e = cudaMemsetAsync(temp_->buffer.get(), 0, bytes, stream_)) != cudaSuccess ||
        (e = cudaMemsetAsync(out_.get(), kPoisonByte, sizeof(IndexedValue<T>), stream_)) != cudaSuccess)
      return ::testing::AssertionFailure() << "preparing: " << cudaGetErrorString(e);
    e = A::ours(temp_->buffer.get(), bytes, d_in, out_.get(), n, stream_, options);
    if (e != cudaErrorInvalidValue)
      return ::testing::AssertionFailure() << "call gave " << cudaGetErrorName(e) << ", want cudaErrorInvalidValue";
    if (std::string(last_error_message()).empty()) return ::testing::AssertionFailure() << "no message";
    if ((e = cudaStreamSynchronize(stream_)) != cudaSuccess)
      return ::testing::AssertionFailure() << "stream: " << cudaGetErrorString(e);
    if ((e = cudaGetLastError()) != cudaSuccess)
      return ::testing::AssertionFailure() << "the refusal left a CUDA error: " << cudaGetErrorString(e);
    if (!all_bytes_equal(device_bytes(reinterpret_cast<const unsigned char*>(out_.get()), 0,
                                      sizeof(IndexedValue<T>)),
                         kPoisonByte))
      return ::testing::AssertionFailure() << "a refused call wrote d_out";
    return ::testing::AssertionSuccess();
  }

 private:
  cudaStream_t stream_;
  Scratch own_;
  Scratch* temp_;
  Scratch cub_temp_;
  DeviceBuffer<IndexedValue<T>> out_;
  DeviceBuffer<T> cub_value_;
  DeviceBuffer<::cuda::std::int64_t> cub_index_;
};

// ---- Plans ---------------------------------------------------------------------------------------

std::vector<Strategy> strategies_and_automatic() {
  std::vector<Strategy> all(std::begin(kAllStrategies), std::end(kAllStrategies));
  all.push_back(Strategy::automatic);
  return all;
}

// Every strategy (automatic's included) with one pipeline.
std::vector<Options> plans_with(Pipeline pipeline) {
  std::vector<Options> plans;
  for (Strategy s : strategies_and_automatic()) plans.push_back(Options{s, pipeline});
  return plans;
}

// Automatic, every strategy with the automatic pipeline, and with every pipeline but atomic.
std::vector<Options> every_runnable_plan() {
  std::vector<Options> plans = plans_with(Pipeline::automatic);
  for (Pipeline p : kAllPipelines)
    if (p != Pipeline::atomic)
      for (Strategy s : strategies_and_automatic()) plans.push_back(Options{s, p});
  return plans;
}

// For the types not run through the whole matrix: automatic, every strategy with two_kernel and
// last_block, the single-launch pipelines once each, and one atomic refusal.
std::vector<Options> reduced_plans() {
  std::vector<Options> plans{Options{}};
  for (Strategy s : kAllStrategies) {
    plans.push_back(Options{s, Pipeline::two_kernel});
    plans.push_back(Options{s, Pipeline::last_block});
  }
  plans.push_back(Options{Strategy::vectorized, Pipeline::grid_sync});
  plans.push_back(Options{Strategy::sequential, Pipeline::cluster});
  plans.push_back(Options{Strategy::automatic, Pipeline::atomic});
  return plans;
}

std::vector<Options> without_atomic(std::vector<Options> plans) {
  plans.erase(std::remove_if(plans.begin(), plans.end(),
                             [](const Options& o) { return o.pipeline == Pipeline::atomic; }),
              plans.end());
  return plans;
}

// ---- Against CUB on generated data ---------------------------------------------------------------

template <class T, bool kMin>
void expect_plans_match_cub(const std::vector<Options>& plans, const std::vector<std::int64_t>& sizes) {
  using A = Arg<T, kMin>;
  ArgRunner<T, kMin> runner;
  for (std::int64_t n : sizes) {
    for (int offset : {0, 1}) {
      for (Fill fill : {Fill::small_integers, Fill::random}) {
        const std::uint64_t seed = fresh_seed();
        const std::string where = A::name() + " " + fill_name(fill) + " " + describe(Options{}, n, offset, seed);
        DeviceBuffer<T> buffer{std::size_t(n + 2)};
        ASSERT_TRUE(buffer.ok()) << where;
        CUDA_OK(fill_random(buffer.get(), n + 2, seed, fill));
        CUDA_OK(plant(buffer.get(), n + offset, A::beyond()));
        if (offset > 0) CUDA_OK(plant(buffer.get(), 0, A::beyond()));
        const T* d_in = buffer.get() + offset;
        IndexedValue<T> want{};
        ASSERT_TRUE(runner.cub(d_in, n, want)) << where;
        for (const Options& options : plans) {
          SCOPED_TRACE(A::name() + " " + fill_name(fill) + " " + describe(options, n, offset, seed));
          if (options.pipeline == Pipeline::atomic) {
            EXPECT_TRUE(runner.refused(d_in, n, options));
            continue;
          }
          IndexedValue<T> got{};
          ASSERT_TRUE(runner.ours(d_in, n, options, got));
          EXPECT_TRUE(same_result(got, want)) << "(want: CUB's)";
        }
      }
    }
  }
}

template <class T>
void matrix_for(const std::vector<Options>& plans) {
  expect_plans_match_cub<T, true>(plans, engine_sizes());
  expect_plans_match_cub<T, false>(plans, engine_sizes());
}

// float, int32 and __half: every strategy x pipeline, one test per pipeline (the atomic one checks
// the refusal at every size and alignment).
#define GPUREDUCE_ARG_MATRIX_TESTS(NAME, T)                                                     \
  TEST(ArgExtremumMatrix_##NAME, Automatic) { REQUIRE_GPU(); matrix_for<T>(plans_with(Pipeline::automatic)); } \
  TEST(ArgExtremumMatrix_##NAME, TwoKernel) { REQUIRE_GPU(); matrix_for<T>(plans_with(Pipeline::two_kernel)); } \
  TEST(ArgExtremumMatrix_##NAME, LastBlock) { REQUIRE_GPU(); matrix_for<T>(plans_with(Pipeline::last_block)); } \
  TEST(ArgExtremumMatrix_##NAME, AtomicRefuses) { REQUIRE_GPU(); matrix_for<T>(plans_with(Pipeline::atomic)); } \
  TEST(ArgExtremumMatrix_##NAME, GridSync) { REQUIRE_GPU(); matrix_for<T>(plans_with(Pipeline::grid_sync)); } \
  TEST(ArgExtremumMatrix_##NAME, Cluster) { REQUIRE_GPU(); matrix_for<T>(plans_with(Pipeline::cluster)); }

GPUREDUCE_ARG_MATRIX_TESTS(float, float)
GPUREDUCE_ARG_MATRIX_TESTS(int32, std::int32_t)
GPUREDUCE_ARG_MATRIX_TESTS(half, __half)

// The other shipped types: automatic and a couple of pipelines per strategy.
TEST(ArgExtremumTypes, Uint32) { REQUIRE_GPU(); matrix_for<std::uint32_t>(reduced_plans()); }
TEST(ArgExtremumTypes, Int64) { REQUIRE_GPU(); matrix_for<std::int64_t>(reduced_plans()); }
TEST(ArgExtremumTypes, Uint64) { REQUIRE_GPU(); matrix_for<std::uint64_t>(reduced_plans()); }
TEST(ArgExtremumTypes, Double) { REQUIRE_GPU(); matrix_for<double>(reduced_plans()); }
TEST(ArgExtremumTypes, Bfloat16) { REQUIRE_GPU(); matrix_for<__nv_bfloat16>(reduced_plans()); }

// ---- Planted extrema: the index is known --------------------------------------------------------

// Background values 10..16 (ties everywhere, representable in every shipped type), so a planted 1
// (ArgMin) or 100 (ArgMax) is the extremum and its first position the answer.
template <class T>
__global__ void fill_background(T* out, std::int64_t n, std::uint64_t seed, int base) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = from_int<T>(base + int(mix64(seed ^ mix64(std::uint64_t(i))) % 7));
}

template <class T>
cudaError_t fill_background_on(T* out, std::int64_t n, std::uint64_t seed, int base,
                               cudaStream_t stream = nullptr) {
  if (n == 0) return cudaSuccess;
  fill_background<<<1024, 256, 0, stream>>>(out, n, seed, base);
  return cudaGetLastError();
}

// Where the extremum goes: first element, last, two random positions, two adjacent ones.
std::vector<std::vector<std::int64_t>> planted_layouts(std::int64_t n, std::uint64_t seed) {
  if (n == 1) return {{0}};
  std::int64_t p = std::int64_t(mix64(seed + 1) % std::uint64_t(n));
  std::int64_t q = std::int64_t(mix64(seed + 2) % std::uint64_t(n));
  if (p == q) q = (p + 1) % n;
  const std::int64_t a = std::int64_t(mix64(seed + 3) % std::uint64_t(n - 1));
  // Duplicates are planted later one first, so that a kernel keeping the last write cannot pass.
  return {{0}, {n - 1}, {std::max(p, q), std::min(p, q)}, {a + 1, a}};
}

template <class T, bool kMin>
void expect_planted_index(const std::vector<Options>& plans) {
  using A = Arg<T, kMin>;
  ArgRunner<T, kMin> runner;
  const T planted = from_int<T>(kMin ? 1 : 100);
  for (std::int64_t n : capped({1, 2, 33, 4097, 65537, (1 << 20) + 7})) {
    for (int offset : {0, 1}) {
      const std::uint64_t seed = fresh_seed();
      DeviceBuffer<T> buffer{std::size_t(n + 2)};
      ASSERT_TRUE(buffer.ok());
      T* d_in = buffer.get() + offset;
      for (const std::vector<std::int64_t>& positions : planted_layouts(n, seed)) {
        const std::string where = A::name() + " planted at " + std::to_string(positions.front()) +
                                  (positions.size() > 1 ? " and " + std::to_string(positions.back()) : "") +
                                  " " + describe(Options{}, n, offset, seed);
        CUDA_OK(fill_background_on(buffer.get(), n + 2, seed, 10));
        CUDA_OK(plant(buffer.get(), n + offset, A::beyond()));
        if (offset > 0) CUDA_OK(plant(buffer.get(), 0, A::beyond()));
        for (std::int64_t p : positions) CUDA_OK(plant(d_in, p, planted));
        const IndexedValue<T> want{*std::min_element(positions.begin(), positions.end()), planted};
        IndexedValue<T> cub_result{};
        ASSERT_TRUE(runner.cub(d_in, n, cub_result)) << where;
        ASSERT_TRUE(same_result(cub_result, want)) << where << ": CUB disagrees with the planted answer";
        for (const Options& options : plans) {
          SCOPED_TRACE(where + " " + describe(options, n, offset, seed));
          IndexedValue<T> got{};
          ASSERT_TRUE(runner.ours(d_in, n, options, got));
          EXPECT_TRUE(same_result(got, want));
        }
      }
    }
  }
}

TEST(ArgExtremumPlanted, Float) {
  REQUIRE_GPU();
  expect_planted_index<float, true>(every_runnable_plan());
  expect_planted_index<float, false>(every_runnable_plan());
}
TEST(ArgExtremumPlanted, Int32) {
  REQUIRE_GPU();
  expect_planted_index<std::int32_t, true>(every_runnable_plan());
  expect_planted_index<std::int32_t, false>(every_runnable_plan());
}
TEST(ArgExtremumPlanted, Half) {
  REQUIRE_GPU();
  expect_planted_index<__half, true>(every_runnable_plan());
  expect_planted_index<__half, false>(every_runnable_plan());
}
TEST(ArgExtremumPlanted, OtherTypes) {
  REQUIRE_GPU();
  const std::vector<Options> plans = without_atomic(reduced_plans());
  expect_planted_index<std::uint32_t, true>(plans);
  expect_planted_index<std::int64_t, false>(plans);
  expect_planted_index<std::uint64_t, true>(plans);
  expect_planted_index<double, false>(plans);
  expect_planted_index<__nv_bfloat16, true>(plans);
}

// ---- Empty input ----------------------------------------------------------------------------------

// n = 0 writes what CUB writes ({1, max()} for ArgMin, {1, lowest()} for ArgMax: checked against
// CUB's documentation too, so a CCCL change shows as such), under every plan; atomic refuses even
// then. The only element of the buffer is the best value there is: reading it would show.
template <class T, bool kMin>
void expect_empty_matches_cub() {
  using A = Arg<T, kMin>;
  ArgRunner<T, kMin> runner;
  DeviceBuffer<T> in(1);
  CUDA_OK(plant(in.get(), 0, A::beyond()));
  IndexedValue<T> want{};
  ASSERT_TRUE(runner.cub(in.get(), 0, want)) << A::name();  // CUB's, or the documented pair where CUB wrote none
  EXPECT_TRUE(same_result(want, ArgRunner<T, kMin>::documented_empty()))
      << A::name() << ": CUB's empty result is not what CUB documents";
  std::vector<Options> plans = every_runnable_plan();
  for (Strategy s : strategies_and_automatic()) plans.push_back(Options{s, Pipeline::atomic});
  for (const Options& options : plans) {
    SCOPED_TRACE(A::name() + " " + describe(options, 0, 0, 0));
    if (options.pipeline == Pipeline::atomic) {
      EXPECT_TRUE(runner.refused(in.get(), 0, options));
      continue;
    }
    IndexedValue<T> got{};
    ASSERT_TRUE(runner.ours(in.get(), 0, options, got));
    EXPECT_TRUE(same_result(got, want));
  }
  // Nothing is read when n == 0, so d_in may be null (as for CUB).
  IndexedValue<T> got{};
  ASSERT_TRUE(runner.ours(nullptr, 0, Options{}, got)) << A::name() << " d_in = nullptr";
  EXPECT_TRUE(same_result(got, want)) << A::name() << " d_in = nullptr";
}

template <class T>
void expect_empty_both() {
  expect_empty_matches_cub<T, true>();
  expect_empty_matches_cub<T, false>();
}

TEST(ArgExtremumSemantics, EmptyInputWritesWhatCubWrites) {
  REQUIRE_GPU();
  expect_empty_both<std::int32_t>();
  expect_empty_both<std::uint32_t>();
  expect_empty_both<std::int64_t>();
  expect_empty_both<std::uint64_t>();
  expect_empty_both<float>();
  expect_empty_both<double>();
  expect_empty_both<__half>();
  expect_empty_both<__nv_bfloat16>();
}

// ---- Signed zeros ---------------------------------------------------------------------------------

// Values compare with `<`, as CUB's: -0 and +0 tie, so the first zero wins whatever its sign (Min
// and Max order -0 below +0; ArgMin/ArgMax do not). Two shapes: all zeros of one sign with the
// other sign later, and both zeros planted in values that lose to them (10..16 for ArgMin,
// -16..-10 for ArgMax).
template <class T, bool kMin>
void expect_zeros_tie(const std::vector<Options>& plans) {
  using A = Arg<T, kMin>;
  ArgRunner<T, kMin> runner;
  const T positive_zero = T(0.0f), negative_zero = T(-0.0f);
  for (std::int64_t n : capped({33, 4097, 65537})) {
    const std::uint64_t seed = fresh_seed();
    DeviceBuffer<T> buffer{std::size_t(n)};
    ASSERT_TRUE(buffer.ok());
    for (bool all_zeros : {true, false}) {
      for (bool first_negative : {false, true}) {
        const T first = first_negative ? negative_zero : positive_zero;
        const T other = first_negative ? positive_zero : negative_zero;
        std::int64_t p = 0, q = n / 3;
        if (all_zeros) {
          fill_constant<<<256, 256>>>(buffer.get(), n, first);
          CUDA_OK(cudaGetLastError());
          CUDA_OK(plant(buffer.get(), n - 1, other));
        } else {
          p = std::int64_t(mix64(seed + 1) % std::uint64_t(n / 2));
          q = n / 2 + std::int64_t(mix64(seed + 2) % std::uint64_t(n / 2));
          CUDA_OK(fill_background_on(buffer.get(), n, seed, kMin ? 10 : -16));
          CUDA_OK(plant(buffer.get(), p, first));
        }
        CUDA_OK(plant(buffer.get(), q, other));
        const IndexedValue<T> want{p, first};
        const std::string where = A::name() + (all_zeros ? " all zeros" : " zeros planted") +
                                  (first_negative ? ", -0 first at " : ", +0 first at ") +
                                  std::to_string(p) + " then " + std::to_string(q) + " " +
                                  describe(Options{}, n, 0, seed);
        IndexedValue<T> cub_result{};
        ASSERT_TRUE(runner.cub(buffer.get(), n, cub_result)) << where;
        ASSERT_TRUE(same_result(cub_result, want)) << where << ": CUB disagrees";
        for (const Options& options : plans) {
          SCOPED_TRACE(where + " " + describe(options, n, 0, seed));
          IndexedValue<T> got{};
          ASSERT_TRUE(runner.ours(buffer.get(), n, options, got));
          EXPECT_TRUE(same_result(got, want));
        }
      }
    }
  }
}

TEST(ArgExtremumSemantics, SignedZerosTieAndTheFirstWins) {
  REQUIRE_GPU();
  expect_zeros_tie<float, true>(every_runnable_plan());
  expect_zeros_tie<float, false>(every_runnable_plan());
  expect_zeros_tie<__half, true>(every_runnable_plan());
  expect_zeros_tie<__half, false>(every_runnable_plan());
  const std::vector<Options> reduced = without_atomic(reduced_plans());
  expect_zeros_tie<double, true>(reduced);
  expect_zeros_tie<double, false>(reduced);
  expect_zeros_tie<__nv_bfloat16, true>(reduced);
  expect_zeros_tie<__nv_bfloat16, false>(reduced);
}

// ---- NaN --------------------------------------------------------------------------------------------

// A quiet NaN with a payload (and a sign), so that the answer's bits tell which NaN it carries.
template <class T>
T nan_with_payload(unsigned payload, bool negative) {
  using Bits = std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                  std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>;
  Bits quiet;  // exponent all ones, quiet bit set
  if constexpr (std::is_same_v<T, float>) quiet = 0x7fc00000u;
  else if constexpr (std::is_same_v<T, double>) quiet = 0x7ff8000000000000ull;
  else if constexpr (std::is_same_v<T, __half>) quiet = 0x7e00u;
  else quiet = 0x7fc0u;  // __nv_bfloat16
  const Bits sign = Bits(Bits(1) << (sizeof(T) * 8 - 1));
  const Bits bits = Bits(quiet | Bits(payload) | (negative ? sign : Bits(0)));
  T value;
  std::memcpy(static_cast<void*>(&value), &bits, sizeof value);
  return value;
}

// A NaN wins, and of several the first: NaN at k and k2 > k gives {k, the NaN at k} (its bits: the
// pair is carried whole), even with the best finite value just before k and just after k2.
template <class T, bool kMin>
void expect_first_nan_wins() {
  using A = Arg<T, kMin>;
  ArgRunner<T, kMin> runner;
  const std::vector<Options> plans{Options{},
                                   Options{Strategy::automatic, Pipeline::last_block},
                                   Options{Strategy::sequential, Pipeline::two_kernel},
                                   Options{Strategy::neighbored, Pipeline::last_block},
                                   Options{Strategy::global_memory, Pipeline::two_kernel},
                                   Options{Strategy::multi_element, Pipeline::automatic},
                                   Options{Strategy::warp_shuffle, Pipeline::grid_sync},
                                   Options{Strategy::vectorized, Pipeline::cluster},
                                   Options{Strategy::cub_block, Pipeline::last_block}};
  const T first_nan = nan_with_payload<T>(1, false), later_nan = nan_with_payload<T>(2, true);
  ASSERT_TRUE(detail::value_traits<T>::is_nan(first_nan) && detail::value_traits<T>::is_nan(later_nan));
  for (std::int64_t n : capped({1000, 65537, (1 << 20) + 7})) {
    for (int offset : {0, 1}) {
      const std::uint64_t seed = fresh_seed();
      DeviceBuffer<T> buffer{std::size_t(n + 1)};
      ASSERT_TRUE(buffer.ok());
      T* d_in = buffer.get() + offset;
      const std::int64_t k_mid = 1 + std::int64_t(mix64(seed + 1) % std::uint64_t(n / 2 - 1));  // [1, n/2)
      const std::int64_t k2_mid = n / 2 + std::int64_t(mix64(seed + 2) % std::uint64_t(n / 2 - 1));  // [n/2, n-1)
      const std::pair<std::int64_t, std::int64_t> layouts[] = {{0, n - 1}, {k_mid, k2_mid}, {n - 2, n - 1}};
      for (const auto& [k, k2] : layouts) {
        const std::string where = A::name() + " NaN at " + std::to_string(k) + " and " + std::to_string(k2) +
                                  " " + describe(Options{}, n, offset, seed);
        CUDA_OK(fill_random(buffer.get(), n + 1, seed, Fill::random));
        if (k > 0) CUDA_OK(plant(d_in, k - 1, A::beyond()));
        if (k2 + 1 < n) CUDA_OK(plant(d_in, k2 + 1, A::beyond()));
        CUDA_OK(plant(d_in, k, first_nan));
        CUDA_OK(plant(d_in, k2, later_nan));
        for (const Options& options : plans) {
          SCOPED_TRACE(where + " " + describe(options, n, offset, seed));
          IndexedValue<T> got{};
          ASSERT_TRUE(runner.ours(d_in, n, options, got));
          EXPECT_TRUE(same_result(got, IndexedValue<T>{k, first_nan}));
        }
      }
    }
  }
}

TEST(ArgExtremumSemantics, FirstNanWins) {
  REQUIRE_GPU();
  expect_first_nan_wins<float, true>();
  expect_first_nan_wins<float, false>();
  expect_first_nan_wins<double, true>();
  expect_first_nan_wins<double, false>();
  expect_first_nan_wins<__half, true>();
  expect_first_nan_wins<__half, false>();
  expect_first_nan_wins<__nv_bfloat16, true>();
  expect_first_nan_wins<__nv_bfloat16, false>();
}

// ---- The vectorized rung's batches and the warp's key tree ---------------------------------------

// One warp (a block of 32 threads, one block), so each thread folds five whole batches of four
// 16-byte vectors (VectorFold: a batch kept only where its extreme beats the thread's best, the
// first item holding it looked for at the end), then, for the longer n, a ragged batch. The best
// value is planted at every place p of thread 5's third batch, with ties after it: later in the
// same batch, at the same place of the thread's next batch, and in lane 4 at a higher index (the
// warp's key tree then ties two lanes, the lower lane holding the later index). Then a NaN there,
// with the best finite value just before it and other NaNs after it: {p's index, that NaN}.
template <class T, bool kMin>
void expect_first_extreme_in_every_place_of_a_batch() {
  using A = Arg<T, kMin>;
  ArgRunner<T, kMin> runner;
  const Options one_warp{Strategy::vectorized, Pipeline::two_kernel, 32, 1};
  constexpr std::int64_t kLanes = 32, kPerVector = 16 / sizeof(T), kBatch = 4 * kPerVector;
  const std::int64_t whole = kLanes * kBatch * 5;
  for (std::int64_t n : {whole, whole + 2 * kLanes * kPerVector + 3}) {
    for (int offset : {0, 1}) {
      const std::uint64_t seed = fresh_seed();
      DeviceBuffer<T> buffer{std::size_t(n + 1)};
      ASSERT_TRUE(buffer.ok());
      T* d_in = buffer.get() + offset;
      // Items before the first 16-byte boundary go to block 0 alone (the rung's scalar head).
      const std::int64_t head = offset == 0 ? 0 : (16 - offset * std::int64_t(sizeof(T))) / std::int64_t(sizeof(T));
      // Item `place` of batch b of lane t: vector t + 32 (4 b + place / kPerVector).
      auto item = [&](std::int64_t t, std::int64_t b, std::int64_t place) {
        return head + (t + kLanes * (4 * b + place / kPerVector)) * kPerVector + place % kPerVector;
      };
      for (std::int64_t place = 0; place < kBatch; ++place) {
        const std::int64_t at = item(5, 2, place);
        const std::string where = A::name() + " place " + std::to_string(place) + " (item " +
                                  std::to_string(at) + ") " + describe(one_warp, n, offset, seed);
        SCOPED_TRACE(where);
        CUDA_OK(fill_random(buffer.get(), n + 1, seed + std::uint64_t(place), Fill::random));
        const std::int64_t ties[] = {item(5, 2, kBatch - 1), item(5, 3, place), item(4, 3, 0)};
        for (std::int64_t tie : ties)
          if (tie != at) CUDA_OK(plant(d_in, tie, A::beyond()));
        CUDA_OK(plant(d_in, at, A::beyond()));
        IndexedValue<T> got{};
        ASSERT_TRUE(runner.ours(d_in, n, one_warp, got));
        EXPECT_TRUE(same_result(got, IndexedValue<T>{at, A::beyond()}));
        IndexedValue<T> want{};
        ASSERT_TRUE(runner.cub(d_in, n, want));
        EXPECT_TRUE(same_result(got, want)) << "(want: CUB's)";
        if constexpr (is_floating_v<T>) {
          const T first_nan = nan_with_payload<T>(3, true);
          if (place > 0) CUDA_OK(plant(d_in, at - 1, A::beyond()));
          CUDA_OK(plant(d_in, at, first_nan));
          for (std::int64_t tie : ties)
            if (tie != at) CUDA_OK(plant(d_in, tie, nan_with_payload<T>(4, false)));
          ASSERT_TRUE(runner.ours(d_in, n, one_warp, got));
          EXPECT_TRUE(same_result(got, IndexedValue<T>{at, first_nan})) << "(a NaN at the place)";
        }
      }
    }
  }
}

TEST(ArgExtremumSemantics, FirstExtremeInEveryPlaceOfABatch) {
  REQUIRE_GPU();
  expect_first_extreme_in_every_place_of_a_batch<float, true>();
  expect_first_extreme_in_every_place_of_a_batch<float, false>();
  expect_first_extreme_in_every_place_of_a_batch<__half, true>();
  expect_first_extreme_in_every_place_of_a_batch<std::int32_t, false>();
  expect_first_extreme_in_every_place_of_a_batch<double, true>();  // no batches: the per-vector fold
}

// ---- Block sizes, grids, temp storage ---------------------------------------------------------------

// Every strategy x runnable pipeline with blocks of 32 and 1024 threads (cub_block: its policy's
// only), grids forced down to 1 and 3 blocks (blocks loop over many tiles, and ties straddle them)
// and zeroed temp storage.
template <class T, bool kMin>
void sweep_block_and_grid(Fill fill) {
  using A = Arg<T, kMin>;
  ArgRunner<T, kMin> runner;
  for (std::int64_t n : capped({1, 33, 1000, 65537, (1 << 20) + 7})) {
    for (int offset : {0, 1}) {
      const std::uint64_t seed = fresh_seed();
      DeviceBuffer<T> buffer{std::size_t(n + 2)};
      ASSERT_TRUE(buffer.ok());
      CUDA_OK(fill_random(buffer.get(), n + 2, seed, fill));
      CUDA_OK(plant(buffer.get(), n + offset, A::beyond()));
      if (offset > 0) CUDA_OK(plant(buffer.get(), 0, A::beyond()));
      const T* d_in = buffer.get() + offset;
      IndexedValue<T> want{};
      ASSERT_TRUE(runner.cub(d_in, n, want)) << describe(Options{}, n, offset, seed);
      for (Strategy strategy : kAllStrategies) {
        for (Pipeline pipeline : kAllPipelines) {
          if (pipeline == Pipeline::atomic) continue;
          std::vector<Options> variants;
          if (strategy != Strategy::cub_block)
            for (int threads : {32, 1024}) variants.push_back(Options{strategy, pipeline, threads, 0});
          for (int grid : {1, 3}) variants.push_back(Options{strategy, pipeline, 0, grid});
          Options zeroed{strategy, pipeline};
          zeroed.temp_storage_zeroed = true;
          variants.push_back(zeroed);
          for (const Options& options : variants) {
            SCOPED_TRACE(A::name() + " " + fill_name(fill) + " " + describe(options, n, offset, seed));
            IndexedValue<T> got{};
            ASSERT_TRUE(runner.ours(d_in, n, options, got));
            EXPECT_TRUE(same_result(got, want)) << "(want: CUB's)";
          }
        }
      }
    }
  }
}

TEST(ArgExtremumBlockAndGrid, FloatArgMinTies) {
  REQUIRE_GPU();
  sweep_block_and_grid<float, true>(Fill::small_integers);
}
TEST(ArgExtremumBlockAndGrid, Int32ArgMaxRandom) {
  REQUIRE_GPU();
  sweep_block_and_grid<std::int32_t, false>(Fill::random);
}
TEST(ArgExtremumBlockAndGrid, HalfArgMaxTies) {
  REQUIRE_GPU();
  sweep_block_and_grid<__half, false>(Fill::small_integers);
}

// temp_storage_zeroed's promise: storage zeroed once serves every later call, of any pipeline,
// type or size, because every call leaves its state zero. One buffer, zeroed once, then float
// ArgMin, int64 ArgMax and __half ArgMin calls in turn over every plan; each against CUB, and the
// state region (control block and flagged slots, before the partials) checked zero after each.
TEST(ArgExtremumTempStorage, ZeroedOnceServesEveryLaterCall) {
  REQUIRE_GPU();
  Scratch shared;
  ArgRunner<float, true> float_min(nullptr, &shared);
  ArgRunner<std::int64_t, false> int64_max(nullptr, &shared);
  ArgRunner<__half, true> half_min(nullptr, &shared);
  const std::vector<std::int64_t> sizes = capped({1, 4097, 65537, (1 << 20) + 7, (1 << 24) + 13});
  const std::int64_t largest = *std::max_element(sizes.begin(), sizes.end());
  std::vector<Options> plans = every_runnable_plan();
  for (Options& o : plans) o.temp_storage_zeroed = true;

  const std::uint64_t seed = fresh_seed();
  DeviceBuffer<float> floats{std::size_t(largest + 1)};
  DeviceBuffer<std::int64_t> int64s{std::size_t(largest + 1)};
  DeviceBuffer<__half> halves{std::size_t(largest + 1)};
  ASSERT_TRUE(floats.ok() && int64s.ok() && halves.ok());
  CUDA_OK(fill_random(floats.get(), largest + 1, seed, Fill::small_integers));
  CUDA_OK(fill_random(int64s.get(), largest + 1, seed + 1, Fill::small_integers));
  CUDA_OK(fill_random(halves.get(), largest + 1, seed + 2, Fill::random));

  // The most any of these calls needs, allocated and zeroed once.
  std::size_t most = 0;
  for (std::int64_t n : sizes)
    for (const Options& o : plans) {
      std::size_t a = 0, b = 0, c = 0;
      ASSERT_EQ(DeviceReduce::ArgMin(nullptr, a, floats.get(), static_cast<IndexedValue<float>*>(nullptr), n, nullptr, o), cudaSuccess);
      ASSERT_EQ(DeviceReduce::ArgMax(nullptr, b, int64s.get(), static_cast<IndexedValue<std::int64_t>*>(nullptr), n, nullptr, o), cudaSuccess);
      ASSERT_EQ(DeviceReduce::ArgMin(nullptr, c, halves.get(), static_cast<IndexedValue<__half>*>(nullptr), n, nullptr, o), cudaSuccess);
      most = std::max({most, a, b, c});
    }
  ASSERT_TRUE(shared.reserve(most));
  ASSERT_GE(shared.buffer.size(), kLayoutPartialsOffset);
  CUDA_OK(cudaMemset(shared.buffer.get(), 0, shared.buffer.size()));

  const auto state_is_zero = [&] {
    return all_bytes_equal(device_bytes(shared.buffer.get(), 0, kLayoutPartialsOffset), 0);
  };
  for (std::int64_t n : sizes) {
    for (int offset : {0, 1}) {
      IndexedValue<float> want_f{};
      IndexedValue<std::int64_t> want_i{};
      IndexedValue<__half> want_h{};
      ASSERT_TRUE(float_min.cub(floats.get() + offset, n, want_f));
      ASSERT_TRUE(int64_max.cub(int64s.get() + offset, n, want_i));
      ASSERT_TRUE(half_min.cub(halves.get() + offset, n, want_h));
      for (const Options& options : plans) {
        SCOPED_TRACE(describe(options, n, offset, seed));
        IndexedValue<float> got_f{};
        ASSERT_TRUE(float_min.ours(floats.get() + offset, n, options, got_f, TempPrep::keep));
        EXPECT_TRUE(same_result(got_f, want_f)) << "float ArgMin";
        ASSERT_TRUE(state_is_zero()) << "float ArgMin left state behind";
        IndexedValue<std::int64_t> got_i{};
        ASSERT_TRUE(int64_max.ours(int64s.get() + offset, n, options, got_i, TempPrep::keep));
        EXPECT_TRUE(same_result(got_i, want_i)) << "int64 ArgMax";
        ASSERT_TRUE(state_is_zero()) << "int64 ArgMax left state behind";
        IndexedValue<__half> got_h{};
        ASSERT_TRUE(half_min.ours(halves.get() + offset, n, options, got_h, TempPrep::keep));
        EXPECT_TRUE(same_result(got_h, want_h)) << "half ArgMin";
        ASSERT_TRUE(state_is_zero()) << "half ArgMin left state behind";
      }
    }
  }
}

// ---- Streams ----------------------------------------------------------------------------------------

// Everything on a non-blocking stream (which does not wait for the legacy default stream): the
// inputs, CUB's call and ours, with garbage and zeroed temp storage; automatic's stream-owned
// state included (Options{}).
TEST(ArgExtremumStreams, NonBlockingStream) {
  REQUIRE_GPU();
  cudaStream_t stream = nullptr;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  struct Destroy {
    cudaStream_t s;
    ~Destroy() { cudaStreamDestroy(s); }
  } destroy{stream};
  ArgRunner<float, true> float_min(stream);
  ArgRunner<std::int64_t, false> int64_max(stream);
  std::vector<Options> plans{Options{},
                             Options{Strategy::vectorized, Pipeline::last_block},
                             Options{Strategy::cub_block, Pipeline::two_kernel},
                             Options{Strategy::sequential, Pipeline::grid_sync},
                             Options{Strategy::warp_shuffle, Pipeline::cluster}};
  for (std::size_t i = 0, count = plans.size(); i < count; ++i) {
    Options zeroed = plans[i];
    zeroed.temp_storage_zeroed = true;
    plans.push_back(zeroed);
  }
  for (std::int64_t n : capped({1, 4097, 65537, (1 << 20) + 7, (1 << 24) + 13})) {
    const std::uint64_t seed = fresh_seed();
    DeviceBuffer<float> floats{std::size_t(n + 1)};
    DeviceBuffer<std::int64_t> int64s{std::size_t(n + 1)};
    ASSERT_TRUE(floats.ok() && int64s.ok());
    CUDA_OK(fill_random(floats.get(), n + 1, seed, Fill::small_integers, stream));
    CUDA_OK(fill_random(int64s.get(), n + 1, seed + 1, Fill::random, stream));
    IndexedValue<float> want_f{};
    IndexedValue<std::int64_t> want_i{};
    ASSERT_TRUE(float_min.cub(floats.get() + 1, n, want_f));
    ASSERT_TRUE(int64_max.cub(int64s.get() + 1, n, want_i));
    for (const Options& options : plans) {
      SCOPED_TRACE(describe(options, n, 1, seed));
      IndexedValue<float> got_f{};
      ASSERT_TRUE(float_min.ours(floats.get() + 1, n, options, got_f));
      EXPECT_TRUE(same_result(got_f, want_f)) << "float ArgMin";
      IndexedValue<std::int64_t> got_i{};
      ASSERT_TRUE(int64_max.ours(int64s.get() + 1, n, options, got_i));
      EXPECT_TRUE(same_result(got_i, want_i)) << "int64 ArgMax";
    }
  }
}

// ---- Beyond 32-bit indices ------------------------------------------------------------------------

// 2^31 + 17 floats (8.6 GB, at d_in + 1): the minimum planted twice past 2^31, so its index does
// not fit an int; every strategy with the partials pipelines, automatic, and the atomic refusal.
TEST(ArgExtremumLarge, FloatArgMinBeyond2To31Items) {
  REQUIRE_GPU();
  const std::int64_t n = (std::int64_t(1) << 31) + 17;
  DeviceBuffer<float> buffer;
  if (const std::string why = allocate_large(buffer, n, std::size_t(n + 2)); !why.empty()) GTEST_SKIP() << why;
  using A = Arg<float, true>;
  const std::uint64_t seed = fresh_seed();
  CUDA_OK(fill_random(buffer.get(), n + 2, seed, Fill::random));  // values in (-1, 1)
  CUDA_OK(plant(buffer.get(), 0, A::beyond()));
  CUDA_OK(plant(buffer.get(), n + 1, A::beyond()));
  float* d_in = buffer.get() + 1;
  const float minimum = -2.0f;  // below every generated value
  const std::int64_t first = n - 5, second = n - 2;
  CUDA_OK(plant(d_in, second, minimum));
  CUDA_OK(plant(d_in, first, minimum));
  const IndexedValue<float> want{first, minimum};

  ArgRunner<float, true> runner;
  IndexedValue<float> cub_result{};
  ASSERT_TRUE(runner.cub(d_in, n, cub_result)) << describe(Options{}, n, 1, seed);
  ASSERT_TRUE(same_result(cub_result, want)) << "CUB disagrees with the planted minimum";

  std::vector<Options> plans{Options{}};
  Options zeroed;
  zeroed.temp_storage_zeroed = true;
  plans.push_back(zeroed);
  for (Strategy s : kAllStrategies) {
    plans.push_back(Options{s, Pipeline::two_kernel});
    plans.push_back(Options{s, Pipeline::last_block});
  }
  plans.push_back(Options{Strategy::vectorized, Pipeline::grid_sync});
  plans.push_back(Options{Strategy::cub_block, Pipeline::grid_sync});
  plans.push_back(Options{Strategy::vectorized, Pipeline::cluster});
  plans.push_back(Options{Strategy::automatic, Pipeline::atomic});
  for (const Options& options : plans) {
    SCOPED_TRACE(describe(options, n, 1, seed));
    if (options.pipeline == Pipeline::atomic) {
      EXPECT_TRUE(runner.refused(d_in, n, options));
      continue;
    }
    IndexedValue<float> got{};
    ASSERT_TRUE(runner.ours(d_in, n, options, got));
    EXPECT_TRUE(same_result(got, want));
  }
}

}  // namespace
}  // namespace gpureduce::testing
