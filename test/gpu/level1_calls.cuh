// Shared by the level-1 suites (test_arg_extremum.cu, test_transform_reduce.cu, test_blas1.cu):
// running one call as a caller does (size query, garbage or zeroed temp storage, poisoned output),
// checking that a call is refused and writes nothing, and the list of every plan.
#pragma once

#include <string>
#include <vector>

#include "gpu/common.cuh"

namespace gpureduce::testing {

// Temp storage reused across calls, grown on demand (a fresh cudaMalloc per call would cost more
// than most of the reductions it serves).
struct Scratch {
  DeviceBuffer<unsigned char> buffer;
  ::testing::AssertionResult reserve(std::size_t bytes) {
    // At least one byte: a null buffer would turn the call into a size query (CUB's n = 0 asks
    // for none), which writes nothing.
    bytes = bytes > 0 ? bytes : 1;
    if (bytes <= buffer.size()) return ::testing::AssertionSuccess();
    buffer.resize(bytes);
    if (!buffer.ok() || buffer.get() == nullptr)
      return ::testing::AssertionFailure() << "could not allocate " << bytes << " bytes of temp storage";
    return ::testing::AssertionSuccess();
  }
};

// Runs `call(temp, bytes)` (ours or CUB's) as a caller does: the size query, then the reduction on
// temp storage that is garbage (zero under temp_storage_zeroed), with d_out poisoned first.
template <class Out, class Call>
::testing::AssertionResult run_call(Call&& call, Out* d_out, Out& result, bool zeroed_temp, Scratch& temp) {
  std::size_t bytes = 0;
  cudaError_t e = call(nullptr, bytes);
  if (e != cudaSuccess)
    return ::testing::AssertionFailure() << "size query: " << cudaGetErrorString(e) << " / " << last_error_message();
  if (auto r = temp.reserve(bytes); !r) return r;
  if ((e = prepare_temp_storage(temp.buffer.get(), bytes, zeroed_temp)) != cudaSuccess ||
      (e = cudaMemset(d_out, kPoisonByte, sizeof(Out))) != cudaSuccess)
    return ::testing::AssertionFailure() << "preparing: " << cudaGetErrorString(e);
  e = call(temp.buffer.get(), bytes);
  if (e != cudaSuccess)
    return ::testing::AssertionFailure() << "run: " << cudaGetErrorString(e) << " / " << last_error_message();
  if ((e = cudaDeviceSynchronize()) != cudaSuccess)
    return ::testing::AssertionFailure() << "kernels: " << cudaGetErrorString(e);
  if ((e = cudaMemcpy(&result, d_out, sizeof(Out), cudaMemcpyDeviceToHost)) != cudaSuccess)
    return ::testing::AssertionFailure() << "copy back: " << cudaGetErrorString(e);
  return ::testing::AssertionSuccess();
}

// `call` given `bytes` of temp storage returns cudaErrorInvalidValue with a message (containing
// `mention` where given), launches nothing that fails, and leaves the poisoned d_out (when there
// is one) as it was.
template <class Out, class Call>
::testing::AssertionResult refused_with_temp(Call&& call, Out* d_out, std::size_t bytes, Scratch& temp,
                                             const char* mention = nullptr) {
  if (auto r = temp.reserve(bytes); !r) return r;
  cudaError_t e = prepare_temp_storage(temp.buffer.get(), bytes, false);
  if (e == cudaSuccess && d_out != nullptr) e = cudaMemset(d_out, kPoisonByte, sizeof(Out));
  if (e != cudaSuccess) return ::testing::AssertionFailure() << "preparing: " << cudaGetErrorString(e);
  e = call(temp.buffer.get(), bytes);
  if (e != cudaErrorInvalidValue)
    return ::testing::AssertionFailure() << "call gave " << cudaGetErrorName(e) << ", want cudaErrorInvalidValue";
  const std::string message = last_error_message();
  if (message.empty() || (mention != nullptr && message.find(mention) == std::string::npos))
    return ::testing::AssertionFailure() << "message '" << message << "' does not say why";
  if ((e = cudaDeviceSynchronize()) != cudaSuccess || (e = cudaGetLastError()) != cudaSuccess)
    return ::testing::AssertionFailure() << "the refusal left a CUDA error: " << cudaGetErrorString(e);
  if (d_out != nullptr &&
      !all_bytes_equal(device_bytes(reinterpret_cast<const unsigned char*>(d_out), 0, sizeof(Out)), kPoisonByte))
    return ::testing::AssertionFailure() << "a refused call wrote d_out";
  return ::testing::AssertionSuccess();
}

// Refused at the size query already, and again with storage (`bytes`, sized by a call that runs).
template <class Out, class Call>
::testing::AssertionResult refused(Call&& call, Out* d_out, std::size_t bytes, Scratch& temp,
                                   const char* mention = nullptr) {
  std::size_t queried = 0;
  const cudaError_t e = call(nullptr, queried);
  if (e != cudaErrorInvalidValue)
    return ::testing::AssertionFailure() << "size query gave " << cudaGetErrorName(e) << ", want cudaErrorInvalidValue";
  return refused_with_temp(call, d_out, bytes, temp, mention);
}

// `options` (an atomic pipeline) refuses `ours(temp, bytes, options)`, with a message naming the
// pipeline. The storage offered is what the same call takes with two_kernel, which runs, so that
// only the pipeline can be the reason.
template <class Out, class Ours>
::testing::AssertionResult atomic_refuses(Ours&& ours, const Options& options, Out* d_out, Scratch& temp) {
  Options runnable = options;
  runnable.pipeline = Pipeline::two_kernel;
  std::size_t bytes = 0;
  const cudaError_t e = ours(nullptr, bytes, runnable);
  if (e != cudaSuccess)
    return ::testing::AssertionFailure() << "two_kernel size query: " << cudaGetErrorString(e) << " / "
                                         << last_error_message();
  return refused([&](void* t, std::size_t& b) { return ours(t, b, options); }, d_out, bytes, temp, "atomic");
}

// Allocates `count` elements for a test over n items, or says why the test cannot run here (then
// the caller skips): GPUREDUCE_TEST_MAX_N below n, less free device memory than the buffer and
// 1 GiB to spare, or a failed cudaMalloc (its error cleared, so that later checks do not see it).
template <class T>
std::string allocate_large(DeviceBuffer<T>& buffer, std::int64_t n, std::size_t count) {
  if (n > max_test_items()) return "GPUREDUCE_TEST_MAX_N is below " + std::to_string(n);
  const std::size_t need = count * sizeof(T);
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return "cudaMemGetInfo failed";
  if (free_bytes < need + (std::size_t(1) << 30))
    return "needs " + std::to_string(need) + " bytes of device memory and 1 GiB to spare; " +
           std::to_string(free_bytes) + " free";
  buffer.resize(count);
  if (buffer.ok()) return "";
  (void)cudaGetLastError();
  return "cudaMalloc of " + std::to_string(need) + " bytes failed";
}

// Automatic; every strategy (automatic's included) with every pipeline; every strategy with the
// automatic pipeline.
inline std::vector<Options> every_plan() {
  std::vector<Strategy> strategies(std::begin(kAllStrategies), std::end(kAllStrategies));
  std::vector<Options> plans{Options{}};
  for (Strategy s : strategies) plans.push_back(Options{s, Pipeline::automatic});
  strategies.push_back(Strategy::automatic);
  for (Strategy s : strategies)
    for (Pipeline p : kAllPipelines) plans.push_back(Options{s, p});
  return plans;
}

// x * x rounded on its own (__fmul_rn is never contracted): a plain x * x may be fused with the
// reduction's add into one FMA in one kernel and not in another, so CUB's kernel and ours, in the
// same order, differed by an ulp (H100, n = 4097, cub_block). The order is the guarantee; the
// contraction of a caller's transform into the add is the compiler's.
struct SquareFloat {
  __host__ __device__ float operator()(float x) const {
#ifdef __CUDA_ARCH__
    return __fmul_rn(x, x);
#else
    return x * x;
#endif
  }
};

}  // namespace gpureduce::testing
