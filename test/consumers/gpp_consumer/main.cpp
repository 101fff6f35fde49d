// A plain C++ program (no nvcc) that sums ints on the GPU through gpureduce's host-only header.
// Exit codes: 0 verified, 1 failed, 77 no GPU (CTest reports it skipped; with
// GPUREDUCE_REQUIRE_GPU=1 a missing GPU is a failure instead).
#include <gpureduce/gpureduce.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace {

constexpr int kSkip = 77;

bool ok(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return true;
  std::fprintf(stderr, "FAIL: %s: %s (%s) %s\n", what, cudaGetErrorName(err),
               cudaGetErrorString(err), gpureduce::last_error_message());
  return false;
}

int no_gpu(cudaError_t err) {
  const char* require = std::getenv("GPUREDUCE_REQUIRE_GPU");
  const bool required = require != nullptr && std::strcmp(require, "1") == 0;
  std::printf("%s: no usable GPU (%s)%s\n", required ? "FAIL" : "SKIP",
              err == cudaSuccess ? "0 devices" : cudaGetErrorString(err),
              required ? " and GPUREDUCE_REQUIRE_GPU=1" : "");
  return required ? 1 : kSkip;
}

}  // namespace

int main() {
  int devices = 0;
  const cudaError_t probe = cudaGetDeviceCount(&devices);
  if (probe != cudaSuccess || devices == 0) return no_gpu(probe);

  // Odd size: not a multiple of any block, tile or vector width.
  const std::int64_t n = (std::int64_t{1} << 20) + 12345;
  const std::size_t count = static_cast<std::size_t>(n);
  std::vector<int> h_in(count);
  std::mt19937 rng(20261121);
  std::uniform_int_distribution<int> dist(-1000, 999);
  std::int64_t expected = 0;
  for (int& v : h_in) {
    v = dist(rng);
    if (v >= 0) ++v;  // non-zero, in [-1000, 1000]
    expected += v;
  }

  int* d_in = nullptr;
  int* d_out = nullptr;
  void* d_temp = nullptr;
  std::size_t temp_bytes = 0;
  int result = 0;
  if (!ok(cudaMalloc(reinterpret_cast<void**>(&d_in), count * sizeof(int)), "cudaMalloc(d_in)") ||
      !ok(cudaMalloc(reinterpret_cast<void**>(&d_out), sizeof(int)), "cudaMalloc(d_out)") ||
      !ok(cudaMemcpy(d_in, h_in.data(), count * sizeof(int), cudaMemcpyHostToDevice),
          "cudaMemcpy(d_in)") ||
      !ok(gpureduce::DeviceReduce::Sum<int, int>(nullptr, temp_bytes, d_in, d_out, n),
          "Sum (size query)") ||
      !ok(cudaMalloc(&d_temp, temp_bytes), "cudaMalloc(d_temp)") ||
      !ok(gpureduce::DeviceReduce::Sum<int, int>(d_temp, temp_bytes, d_in, d_out, n), "Sum") ||
      !ok(cudaGetLastError(), "launch") || !ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize") ||
      !ok(cudaMemcpy(&result, d_out, sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy(d_out)") ||
      !ok(cudaFree(d_temp), "cudaFree(d_temp)") || !ok(cudaFree(d_out), "cudaFree(d_out)") ||
      !ok(cudaFree(d_in), "cudaFree(d_in)")) {
    return 1;
  }

  if (result != expected) {
    std::printf("FAIL: gpureduce::DeviceReduce::Sum of %lld ints gave %d, expected %lld\n",
                static_cast<long long>(n), result, static_cast<long long>(expected));
    return 1;
  }
  std::printf("PASS: gpureduce::DeviceReduce::Sum of %lld ints = %d (temp storage %zu bytes)\n",
              static_cast<long long>(n), result, temp_bytes);
  return 0;
}
