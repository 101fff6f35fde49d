// State the library keeps between calls must belong to the CUDA context it was made in. A program
// that resets the device, or makes a second context, gets fresh state; nothing of a dead context is
// ever touched again. These tests use the public API only (they ran unchanged against the library
// before the fix, and failed there: issue 20's closing note has the log).
//
// Each round: reset (after the first), allocate poisoned buffers at once (so the allocator hands
// out the addresses the last context's state had), then sum inputs whose answer is exact on every
// kind of stream the runtime offers, from several host threads, with default Options (automatic
// takes its stream's slot) and inside CUDA graphs (automatic takes graph-owned state). Every sum
// must be exact and every poisoned byte untouched.
#include <cudaTypedefs.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gpu/common.cuh"
#include "gpu/exact_sums.cuh"

namespace gpureduce::testing {
namespace {

constexpr int kResets = 3;

// The legacy stream, the per-thread stream, a blocking and a non-blocking new stream, on this
// thread; then three more host threads, each on its per-thread stream and a new stream of its own.
void every_kind_of_stream(const std::string& round) {
  exact_sums_on_stream(nullptr, round + " legacy stream");
  exact_sums_on_stream(cudaStreamPerThread, round + " per-thread stream");
  for (unsigned flags : {cudaStreamDefault, cudaStreamNonBlocking}) {
    cudaStream_t s = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, flags), cudaSuccess);
    exact_sums_on_stream(s, round + " new stream (flags " + std::to_string(flags) + ")");
    ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);
  }
  int device = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t)
    threads.emplace_back([&, t] {
      EXPECT_EQ(cudaSetDevice(device), cudaSuccess);
      const std::string who = round + " thread " + std::to_string(t);
      exact_sums_on_stream(cudaStreamPerThread, who + " per-thread stream");
      cudaStream_t s = nullptr;
      EXPECT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
      exact_sums_on_stream(s, who + " new stream");
      EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
    });
  for (std::thread& t : threads) t.join();
}

TEST(ContextResets, StreamStateNeverOutlivesItsContext) {
  REQUIRE_GPU();
  for (int round = 0; round <= kResets; ++round) {
    if (round > 0) ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
    const std::string name = "round " + std::to_string(round) + (round ? " (after a reset)" : "");
    PoisonedBuffers poison;
    every_kind_of_stream(name);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << name << ": " << last_error_message();
    poison.expect_untouched(name);
    if (HasFailure()) return;  // one broken round says it; the rest would only repeat it
  }
}

// Issue 20's program as its reporter described it: 20 sums of 2^20 + 5 ones on the legacy stream
// and 20 on a new non-blocking stream, everything allocated afresh after each reset, default
// Options, garbage temp storage. Built against the library before the fix (9b1e590) it passed on an
// H200 (2026-11-24): the dead context's addresses it reused held nothing this program checks; the
// graph and driver-context tests here are the ones that failed there.
TEST(ContextResets, TheReportersProgram) {
  REQUIRE_GPU();
  for (int round = 0; round <= kResets; ++round) {
    if (round > 0) ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
    const std::string name = "round " + std::to_string(round) + (round ? " (after a reset)" : "");
    cudaStream_t fresh = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&fresh, cudaStreamNonBlocking), cudaSuccess);
    {
      ExactSums<float> legacy(1.0f), other(1.0f);
      for (int k = 0; k < kSumsPerStream; ++k) {
        legacy.enqueue(nullptr, k);
        other.enqueue(fresh, k);
      }
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << name << ": " << last_error_message();
      legacy.expect_exact(name + " legacy stream");
      other.expect_exact(name + " new non-blocking stream");
    }
    ASSERT_EQ(cudaStreamDestroy(fresh), cudaSuccess);
    if (HasFailure()) return;
  }
}

TEST(ContextResets, GraphStateNeverOutlivesItsContext) {
  REQUIRE_GPU();
  for (int round = 0; round <= kResets; ++round) {
    if (round > 0) ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
    const std::string name = "graph round " + std::to_string(round);
    PoisonedBuffers poison;
    captured_exact_sums(name);
    poison.expect_untouched(name);
    if (HasFailure()) return;
  }
}

// automatic's correctly rounded cluster kernel at 16 blocks, sm_90's non-portable cluster size,
// which the library allows on each kernel once per context (runtime.cpp, max_cluster_blocks): a
// sum of 128 KiB of halves (0.5 each, so the answer is exact) on a stream and in a graph.
template <class T>
void correctly_rounded_cluster_sums(const std::string& where) {
  const std::int64_t n = std::int64_t(128 << 10) / std::int64_t(sizeof(T));
  DeviceBuffer<T> in(static_cast<std::size_t>(n)), out(2);
  fill_constant<<<64, 256>>>(in.get(), n, T(0.5));
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  Options options;
  options.accuracy = Accuracy::correctly_rounded;
  LaunchPlan plan{};
  const cudaError_t planned = DeviceReduce::PlanSum<T, T>(plan, in.get(), n, options);
  ASSERT_EQ(planned, cudaSuccess) << where << ": " << last_error_message();
  if (plan.pipeline == Pipeline::cluster) EXPECT_EQ(plan.grid_blocks, 16) << where;
  std::size_t bytes = 0;
  ASSERT_EQ(DeviceReduce::Sum(nullptr, bytes, in.get(), out.get(), n, nullptr, options), cudaSuccess);
  DeviceBuffer<unsigned char> temp(bytes);
  ASSERT_EQ(cudaMemset(out.get(), kPoisonByte, 2 * sizeof(T)), cudaSuccess);
  EXPECT_EQ(DeviceReduce::Sum(temp.get(), bytes, in.get(), out.get(), n, nullptr, options),
            cudaSuccess)
      << where << ": " << last_error_message();
  cudaStream_t stream = nullptr;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  EXPECT_EQ(DeviceReduce::Sum(temp.get(), bytes, in.get(), out.get() + 1, n, stream, options),
            cudaSuccess)
      << where << " (captured): " << last_error_message();
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess) << where << ": " << last_error_message();
  std::vector<T> got(2);
  ASSERT_EQ(cudaMemcpy(got.data(), out.get(), 2 * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(got[0], T(0.5) * T(n)) << where << ": on the legacy stream";
  EXPECT_EQ(got[1], T(0.5) * T(n)) << where << ": in a graph";
  EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

TEST(ContextResets, CorrectlyRoundedClustersAfterEveryReset) {
  REQUIRE_GPU();
  for (int round = 0; round <= kResets; ++round) {
    if (round > 0) ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
    const std::string name = "round " + std::to_string(round) + (round ? " (after a reset)" : "");
    correctly_rounded_cluster_sums<float>(name + ", float");
    correctly_rounded_cluster_sums<double>(name + ", double");
    if (HasFailure()) return;
  }
}

// A driver API function, looked up through the runtime (a test binary that linked libcuda.so.1
// could not even list its tests on a machine without a driver, as CI's test discovery does).
template <class Function>
Function driver_function(const char* name) {
  void* function = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  if (cudaGetDriverEntryPointByVersion(name, &function, 12050, cudaEnableDefault, &found) !=
          cudaSuccess ||
      found != cudaDriverEntryPointSuccess)
    return nullptr;
  return reinterpret_cast<Function>(function);
}

// A context made with the driver API, current on this thread: the runtime works in it, and so
// must the library, with state of its own (its memory is not even mapped in the primary context).
TEST(ContextResets, DriverContextGetsStateOfItsOwn) {
  REQUIRE_GPU();
  exact_sums_on_stream(nullptr, "primary context, before");
  int device = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  const auto device_get = driver_function<PFN_cuDeviceGet_v2000>("cuDeviceGet");
  const auto create = driver_function<PFN_cuCtxCreate_v12050>("cuCtxCreate");
  const auto pop = driver_function<PFN_cuCtxPopCurrent_v4000>("cuCtxPopCurrent");
  const auto destroy = driver_function<PFN_cuCtxDestroy_v4000>("cuCtxDestroy");
  ASSERT_TRUE(device_get && create && pop && destroy);
  CUdevice cu_device = 0;
  ASSERT_EQ(device_get(&cu_device, device), CUDA_SUCCESS);
  CUcontext context = nullptr;
  // cuCtxCreate as of CUDA 12.5 (the older entry point answers CUDA_ERROR_INVALID_DEVICE on
  // CUDA 13 drivers).
  ASSERT_EQ(create(&context, nullptr, 0, cu_device), CUDA_SUCCESS);  // pushed: current
  {
    PoisonedBuffers poison;
    exact_sums_on_stream(nullptr, "driver context");
    cudaStream_t s = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    exact_sums_on_stream(s, "driver context, new stream");
    ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    poison.expect_untouched("driver context");
  }
  CUcontext popped = nullptr;
  ASSERT_EQ(pop(&popped), CUDA_SUCCESS);
  exact_sums_on_stream(nullptr, "primary context, while the driver context lives");
  ASSERT_EQ(destroy(context), CUDA_SUCCESS);
  exact_sums_on_stream(nullptr, "primary context, after the driver context");
}

}  // namespace
}  // namespace gpureduce::testing
