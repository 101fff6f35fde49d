// A program that uses the library the way a leak-checked application would: reductions with
// default Options on several streams (the library allocates its pool of zeroed state), a captured
// graph (its state lent to the graph and given back), then release_cached_state, its own frees and
// cudaDeviceReset. Under `compute-sanitizer --leak-check full` it must report no leak; with
// --skip-release it must report the pool (test/leak/leak_check.sh runs both: a check that can fail).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gpureduce/detail/graph_owned_state.hpp"
#include "gpureduce/gpureduce.hpp"

#define CHECK(call)                                                                       \
  do {                                                                                    \
    const cudaError_t check_error_ = (call);                                              \
    if (check_error_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s failed: %s (%s)\n", #call, cudaGetErrorString(check_error_), \
                   gpureduce::last_error_message());                                      \
      return 1;                                                                           \
    }                                                                                     \
  } while (0)

int main(int argc, char** argv) {
  const bool skip_release = argc > 1 && std::strcmp(argv[1], "--skip-release") == 0;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::puts("no CUDA GPU found");
    const char* require = std::getenv("GPUREDUCE_REQUIRE_GPU");
    return require != nullptr && std::strcmp(require, "1") == 0 ? 1 : 0;
  }
  const std::int64_t n = (std::int64_t(1) << 20) + 5;
  std::vector<float> ones(std::size_t(n), 1.0f);
  float* d_in = nullptr;
  float* d_out = nullptr;
  void* d_temp[3] = {};  // one a stream: concurrent calls must not share temp storage (as CUB's)
  std::size_t temp_bytes = 0;
  CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CHECK(cudaMalloc(&d_out, 8 * sizeof(float)));
  CHECK(cudaMemcpy(d_in, ones.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaDeviceSynchronize());  // a pageable copy may still be in flight on the legacy stream
  CHECK(gpureduce::DeviceReduce::Sum(nullptr, temp_bytes, d_in, d_out, n));
  for (void*& t : d_temp) CHECK(cudaMalloc(&t, temp_bytes));

  cudaStream_t streams[3];
  for (cudaStream_t& s : streams) CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (int k = 0; k < 3; ++k) CHECK(gpureduce::DeviceReduce::Sum(d_temp[k], temp_bytes, d_in, d_out + k, n, streams[k]));
  CHECK(cudaDeviceSynchronize());

  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  CHECK(cudaStreamBeginCapture(streams[0], cudaStreamCaptureModeGlobal));
  CHECK(gpureduce::DeviceReduce::Sum(d_temp[0], temp_bytes, d_in, d_out + 3, n, streams[0]));
  CHECK(cudaStreamEndCapture(streams[0], &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphLaunch(exec, streams[0]));
  CHECK(cudaStreamSynchronize(streams[0]));
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  for (int wait = 0; gpureduce::detail::graph_owned_slots_in_use() != 0 && wait < 5000; ++wait)
    CHECK(cudaDeviceSynchronize());  // the graph's slot returns on CUDA's internal thread

  float sums[4];
  CHECK(cudaMemcpy(sums, d_out, sizeof sums, cudaMemcpyDeviceToHost));
  for (float s : sums)
    if (s != float(n)) {
      std::fprintf(stderr, "wrong sum %g (want %g)\n", double(s), double(n));
      return 1;
    }
  for (cudaStream_t s : streams) CHECK(cudaStreamDestroy(s));
  for (void* t : d_temp) CHECK(cudaFree(t));
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_in));
  if (!skip_release) CHECK(gpureduce::release_cached_state());
  CHECK(cudaDeviceReset());  // the leak checker reports what is still allocated here
  std::puts(skip_release ? "done (library state not released)" : "done");
  return 0;
}
