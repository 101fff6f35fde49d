// Shared by the GPU tests: the GPU gate (skip, or fail under GPUREDUCE_REQUIRE_GPU=1), device
// buffers, random inputs generated on the GPU, poisoned outputs, and reference reductions by
// cub::DeviceReduce and thrust::reduce.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include <cub/device/device_reduce.cuh>
#include <cuda/functional>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

#include "gpureduce/device_reduce.cuh"
#include "gpureduce/gpureduce.hpp"

namespace gpureduce::testing {

#define CUDA_OK(call)                                                                    \
  do {                                                                                   \
    cudaError_t cuda_ok_error_ = (call);                                                 \
    ASSERT_EQ(cuda_ok_error_, cudaSuccess) << #call << ": " << cudaGetErrorString(cuda_ok_error_); \
  } while (0)

inline bool gpu_present() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}
inline bool gpu_required() {
  const char* v = std::getenv("GPUREDUCE_REQUIRE_GPU");
  return v != nullptr && std::string(v) == "1";
}

// Every GPU test starts with this: without a GPU it skips (CTest reports "Skipped"), unless
// GPUREDUCE_REQUIRE_GPU=1, when it fails, so a GPU runner can never pass by skipping.
#define REQUIRE_GPU()                                                                    \
  do {                                                                                   \
    if (!::gpureduce::testing::gpu_present()) {                                          \
      if (::gpureduce::testing::gpu_required()) FAIL() << "GPUREDUCE_REQUIRE_GPU=1 but no CUDA GPU found"; \
      GTEST_SKIP() << "no CUDA GPU found";                                               \
    }                                                                                    \
  } while (0)

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) { resize(count); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(ptr_); }
  void resize(std::size_t count) {
    cudaFree(ptr_);
    ptr_ = nullptr;
    count_ = count;
    if (count > 0 && cudaMalloc(&ptr_, count * sizeof(T)) != cudaSuccess) {
      ptr_ = nullptr;
      count_ = 0;
    }
  }
  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  bool ok() const { return ptr_ != nullptr || count_ == 0; }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

// ---- Random inputs, generated on the GPU from (seed, index) ------------------------------------

__host__ __device__ inline std::uint64_t mix64(std::uint64_t x) {  // splitmix64 finaliser
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

enum class Fill {
  small_integers,  // integers in [-3, 3] (never all zero): every float partial sum is exact
  random,          // floats: k * 2^-f with integer k (exact host reference); ints: full range
};

// Floating inputs are k * kScale with |k| < 2^kBits: exactly representable, and their sum is
// exactly sum(k) * kScale, which the host computes in 128-bit integers.
template <class T>
struct FixedPoint;
template <> struct FixedPoint<float> { static constexpr int kBits = 24; static constexpr double kScale = 1.0 / (1 << 24); };
template <> struct FixedPoint<double> { static constexpr int kBits = 40; static constexpr double kScale = 1.0 / 1099511627776.0; };
template <> struct FixedPoint<__half> { static constexpr int kBits = 10; static constexpr double kScale = 1.0 / 1024; };
template <> struct FixedPoint<__nv_bfloat16> { static constexpr int kBits = 7; static constexpr double kScale = 1.0 / 128; };

template <class T>
inline constexpr bool is_floating_v = std::is_floating_point_v<T> || detail::is_half_like_v<T>;

// The integer k behind element i (floating types) or the element itself (integers).
__host__ __device__ inline std::int64_t fixed_point_k(std::uint64_t seed, std::int64_t i, int bits,
                                                      Fill fill) {
  const std::uint64_t h = mix64(seed ^ mix64(std::uint64_t(i)));
  if (fill == Fill::small_integers) return std::int64_t(h % 7) - 3;
  const std::int64_t range = std::int64_t(1) << bits;  // k in (-range, range), never 0
  std::int64_t k = std::int64_t(h % std::uint64_t(2 * range - 1)) - (range - 1);
  return k == 0 ? 1 : k;
}

template <class T>
__host__ __device__ inline T make_value(std::uint64_t seed, std::int64_t i, Fill fill) {
  if constexpr (is_floating_v<T>) {
    const std::int64_t k = fixed_point_k(seed, i, FixedPoint<T>::kBits, fill);
    const double scale = fill == Fill::small_integers ? 1.0 : FixedPoint<T>::kScale;
    return T(float(double(k) * scale));  // float holds k * 2^-24 exactly; double via float only for half-likes
  } else {
    const std::uint64_t h = mix64(seed ^ mix64(std::uint64_t(i)));
    if (fill == Fill::small_integers) return T(std::int64_t(h % 7) - 3);
    return T(h);  // full range: sums wrap, min/max see the extremes
  }
}
template <>
__host__ __device__ inline double make_value<double>(std::uint64_t seed, std::int64_t i, Fill fill) {
  const std::int64_t k = fixed_point_k(seed, i, FixedPoint<double>::kBits, fill);
  return fill == Fill::small_integers ? double(k) : double(k) * FixedPoint<double>::kScale;
}

template <class T>
__global__ void fill_kernel(T* out, std::int64_t n, std::uint64_t seed, Fill fill) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = make_value<T>(seed, i, fill);
}

// Every element `value` (inputs whose sum is known exactly, infinities, signed zeros).
template <class T>
__global__ void fill_constant(T* out, std::int64_t n, T value) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = value;
}

template <class T>
cudaError_t fill_random(T* out, std::int64_t n, std::uint64_t seed, Fill fill,
                        cudaStream_t stream = nullptr) {
  if (n == 0) return cudaSuccess;
  fill_kernel<<<1024, 256, 0, stream>>>(out, n, seed, fill);
  return cudaGetLastError();
}

// A seed that differs per test, per call and per run (fresh data every time), printed on failure.
inline std::uint64_t fresh_seed() {
  static std::uint64_t counter = mix64(std::uint64_t(std::time(nullptr)) ^ std::uint64_t(clock()));
  return mix64(++counter);
}

// ---- Poison -------------------------------------------------------------------------------------

constexpr int kPoisonByte = 0xA5;
template <class T>
T poison_value() {
  T v;
  std::memset(static_cast<void*>(&v), kPoisonByte, sizeof(T));
  return v;
}

// Temp storage as a caller leaves it: zero-filled once for the temp_storage_zeroed promise, else
// garbage (poison), which the default path must cope with since CUB's callers never initialise it.
inline cudaError_t prepare_temp_storage(void* temp, std::size_t bytes, bool zeroed) {
  return cudaMemset(temp, zeroed ? 0 : kPoisonByte, bytes);
}

// Where temp_layout.cuh puts the state a call leaves behind, restated so that a layout change has
// to be made on purpose: the control block in the first 256 bytes, then 2048 flagged slots of 16
// bytes, then the partials.
constexpr std::size_t kLayoutControlBytes = 256;
constexpr std::size_t kLayoutPartialsOffset = kLayoutControlBytes + 2048 * 16;

// `count` bytes of device memory from `base + offset`; empty if the copy failed.
inline std::vector<unsigned char> device_bytes(const unsigned char* base, std::size_t offset,
                                               std::size_t count) {
  std::vector<unsigned char> host(count);
  if (cudaMemcpy(host.data(), base + offset, count, cudaMemcpyDeviceToHost) != cudaSuccess) host.clear();
  return host;
}
// Whether every byte is `value` (false for an empty vector: a failed copy proves nothing).
inline bool all_bytes_equal(const std::vector<unsigned char>& bytes, unsigned char value) {
  return !bytes.empty() && std::all_of(bytes.begin(), bytes.end(), [&](unsigned char b) { return b == value; });
}

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
std::string show(const T& v) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));
  std::string hex;
  char buf[4];
  for (int i = int(sizeof(T)) - 1; i >= 0; --i) {
    std::snprintf(buf, sizeof buf, "%02x", bytes[i]);
    hex += buf;
  }
  double as_double;
  if constexpr (is_floating_v<T>) as_double = double(float(v));
  else as_double = double(v);
  if constexpr (std::is_same_v<T, double>) as_double = v;
  return std::to_string(as_double) + " (0x" + hex + ")";
}

// ---- The operations under test, with their CUB and Thrust references ----------------------------

enum class Op { sum, min, max };

template <class In_, class Out_, Op kOp>
struct Case {
  using In = In_;
  using Out = Out_;
  static constexpr Op op = kOp;

  static cudaError_t run(void* temp, std::size_t& bytes, const In* d_in, Out* d_out,
                         std::int64_t n, cudaStream_t stream, const Options& options) {
    if constexpr (kOp == Op::sum) return DeviceReduce::Sum(temp, bytes, d_in, d_out, n, stream, options);
    else if constexpr (kOp == Op::min) return DeviceReduce::Min(temp, bytes, d_in, d_out, n, stream, options);
    else return DeviceReduce::Max(temp, bytes, d_in, d_out, n, stream, options);
  }
  static cudaError_t plan(LaunchPlan& plan, const In* d_in, std::int64_t n, const Options& options) {
    if constexpr (kOp == Op::sum) return DeviceReduce::PlanSum<In, Out>(plan, d_in, n, options);
    else if constexpr (kOp == Op::min) return DeviceReduce::PlanMin(plan, d_in, n, options);
    else return DeviceReduce::PlanMax(plan, d_in, n, options);
  }
  // cub::DeviceReduce as a user would call it; (__half|bf16 -> float) sums through Reduce with
  // plus<float>, since CUB 3.0.1's Sum does not compile for mixed 16-bit -> float.
  static cudaError_t cub(const In* d_in, Out* d_out, std::int64_t n, cudaStream_t stream = nullptr) {
    std::size_t bytes = 0;
    auto call = [&](void* temp) {
      if constexpr (kOp == Op::sum) {
        if constexpr (std::is_same_v<In, Out>)
          return cub::DeviceReduce::Sum(temp, bytes, d_in, d_out, n, stream);
        else
          return cub::DeviceReduce::Reduce(temp, bytes, d_in, d_out, n, ::cuda::std::plus<Out>{}, Out{}, stream);
      } else if constexpr (kOp == Op::min) {
        return cub::DeviceReduce::Min(temp, bytes, d_in, d_out, n, stream);
      } else {
        return cub::DeviceReduce::Max(temp, bytes, d_in, d_out, n, stream);
      }
    };
    cudaError_t e = call(nullptr);
    if (e != cudaSuccess) return e;
    void* temp = nullptr;
    if ((e = cudaMalloc(&temp, bytes)) != cudaSuccess) return e;
    e = call(temp);
    cudaError_t s = cudaStreamSynchronize(stream);
    cudaFree(temp);
    return e != cudaSuccess ? e : s;
  }
  static Out thrust_reduce(const In* d_in, std::int64_t n) {
    if constexpr (kOp == Op::sum)
      return thrust::reduce(thrust::device, d_in, d_in + n, Out{}, ::cuda::std::plus<Out>{});
    else if constexpr (kOp == Op::min)
      return thrust::reduce(thrust::device, d_in, d_in + n, detail::value_traits<In>::max(), ::cuda::minimum<>{});
    else
      return thrust::reduce(thrust::device, d_in, d_in + n, detail::value_traits<In>::lowest(), ::cuda::maximum<>{});
  }
  static std::string name() {
    return std::string(kOp == Op::sum ? "Sum" : kOp == Op::min ? "Min" : "Max") + "<" +
           type_name<In>() + "," + type_name<Out>() + ">";
  }
  template <class T>
  static const char* type_name() {
    if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
    else if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32";
    else if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
    else if constexpr (std::is_same_v<T, std::uint64_t>) return "uint64";
    else if constexpr (std::is_same_v<T, float>) return "float";
    else if constexpr (std::is_same_v<T, double>) return "double";
    else if constexpr (std::is_same_v<T, __half>) return "half";
    else return "bfloat16";
  }
};

// GPUREDUCE_TEST_MAX_N caps the sizes (compute-sanitizer runs use it: it slows kernels ~100x).
inline std::int64_t max_test_items() {
  const char* v = std::getenv("GPUREDUCE_TEST_MAX_N");
  return v ? std::atoll(v) : std::int64_t(1) << 62;
}
inline std::vector<std::int64_t> capped(std::vector<std::int64_t> sizes) {
  std::vector<std::int64_t> kept;
  for (std::int64_t n : sizes)
    if (n <= max_test_items()) kept.push_back(n);
  return kept;
}

// The test sizes of the engine issue: around warp, block and tile boundaries, primes, 2^k +- 1.
inline std::vector<std::int64_t> engine_sizes() {
  // 16385: just past automatic's one-block limit (64 KiB) for 4-byte items.
  return capped({0, 1, 2, 31, 32, 33, 255, 256, 257, 1000, 4095, 4097, 16385, 65537, (1 << 20) + 7,
                 (1 << 24) + 13});
}

inline std::string describe(const Options& o, std::int64_t n, int offset, std::uint64_t seed) {
  return std::string("strategy=") + to_string(o.strategy) + " pipeline=" + to_string(o.pipeline) +
         " block_threads=" + std::to_string(o.block_threads) +
         " grid_blocks=" + std::to_string(o.grid_blocks) + " n=" + std::to_string(n) +
         " offset=" + std::to_string(offset) + " seed=" + std::to_string(seed) +
         (o.temp_storage_zeroed ? " zeroed" : "");
}

// Runs one gpureduce reduction with a poisoned output and returns the value it wrote.
template <class C>
::testing::AssertionResult run_gpureduce(const typename C::In* d_in, std::int64_t n,
                                         const Options& options, typename C::Out& result,
                                         cudaStream_t stream = nullptr) {
  using Out = typename C::Out;
  DeviceBuffer<Out> d_out(1);
  std::size_t bytes = 0;
  cudaError_t e = C::run(nullptr, bytes, d_in, d_out.get(), n, stream, options);
  if (e != cudaSuccess) return ::testing::AssertionFailure() << "size query: " << cudaGetErrorString(e) << " / " << last_error_message();
  DeviceBuffer<unsigned char> temp(bytes);
  if (!temp.ok() || !d_out.ok()) return ::testing::AssertionFailure() << "allocation failed";
  if ((e = cudaMemset(d_out.get(), kPoisonByte, sizeof(Out))) != cudaSuccess)
    return ::testing::AssertionFailure() << "poison: " << cudaGetErrorString(e);
  if ((e = prepare_temp_storage(temp.get(), bytes, options.temp_storage_zeroed)) != cudaSuccess)
    return ::testing::AssertionFailure() << "preparing temp storage: " << cudaGetErrorString(e);
  // Both ran on the legacy stream: a non-blocking `stream` would not wait for them.
  if ((e = cudaDeviceSynchronize()) != cudaSuccess)
    return ::testing::AssertionFailure() << "setup: " << cudaGetErrorString(e);
  e = C::run(temp.get(), bytes, d_in, d_out.get(), n, stream, options);
  if (e != cudaSuccess) return ::testing::AssertionFailure() << "run: " << cudaGetErrorString(e) << " / " << last_error_message();
  if ((e = cudaStreamSynchronize(stream)) != cudaSuccess)
    return ::testing::AssertionFailure() << "kernel: " << cudaGetErrorString(e);
  if ((e = cudaMemcpy(&result, d_out.get(), sizeof(Out), cudaMemcpyDeviceToHost)) != cudaSuccess)
    return ::testing::AssertionFailure() << "copy back: " << cudaGetErrorString(e);
  return ::testing::AssertionSuccess();
}

template <class T>
long double as_long_double(const T& v) {
  if constexpr (detail::is_half_like_v<T>) return (long double)float(v);
  else return (long double)v;
}

template <class T>
T copy_to_host(const T* d_value) {
  T v = poison_value<T>();
  cudaMemcpy(&v, d_value, sizeof(T), cudaMemcpyDeviceToHost);
  return v;
}

}  // namespace gpureduce::testing
