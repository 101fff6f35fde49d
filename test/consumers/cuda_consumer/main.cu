// A CUDA program reducing with its own operator through <gpureduce/device_reduce.cuh>: the largest
// magnitude of random floats. Exit codes: 0 verified, 1 failed, 77 no GPU (CTest reports it
// skipped; with GPUREDUCE_REQUIRE_GPU=1 a missing GPU is a failure instead).
#include <gpureduce/device_reduce.cuh>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace {

constexpr int kSkip = 77;

// Associative and commutative; the result is always one of |x|, so it can be compared exactly.
struct MaxAbs {
  __host__ __device__ float operator()(float a, float b) const {
    return fmaxf(fabsf(a), fabsf(b));
  }
};

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

  const std::int64_t n = (std::int64_t{1} << 22) + 777;
  const std::size_t count = static_cast<std::size_t>(n);
  std::vector<float> h_in(count);
  std::mt19937 rng(20261121);
  std::uniform_real_distribution<float> dist(-1000.0f, 1000.0f);
  float expected = 0.0f;
  for (float& v : h_in) {
    v = dist(rng);
    expected = MaxAbs{}(expected, v);
  }

  float* d_in = nullptr;
  float* d_out = nullptr;
  void* d_temp = nullptr;
  std::size_t temp_bytes = 0;
  float result = -1.0f;
  if (!ok(cudaMalloc(reinterpret_cast<void**>(&d_in), count * sizeof(float)), "cudaMalloc(d_in)") ||
      !ok(cudaMalloc(reinterpret_cast<void**>(&d_out), sizeof(float)), "cudaMalloc(d_out)") ||
      !ok(cudaMemcpy(d_in, h_in.data(), count * sizeof(float), cudaMemcpyHostToDevice),
          "cudaMemcpy(d_in)") ||
      !ok(gpureduce::Reduce(nullptr, temp_bytes, d_in, d_out, n, MaxAbs{}, 0.0f),
          "Reduce (size query)") ||
      !ok(cudaMalloc(&d_temp, temp_bytes), "cudaMalloc(d_temp)") ||
      !ok(gpureduce::Reduce(d_temp, temp_bytes, d_in, d_out, n, MaxAbs{}, 0.0f), "Reduce") ||
      !ok(cudaGetLastError(), "launch") || !ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize") ||
      !ok(cudaMemcpy(&result, d_out, sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy(d_out)") ||
      !ok(cudaFree(d_temp), "cudaFree(d_temp)") || !ok(cudaFree(d_out), "cudaFree(d_out)") ||
      !ok(cudaFree(d_in), "cudaFree(d_in)")) {
    return 1;
  }

  if (result != expected) {
    std::printf("FAIL: gpureduce::Reduce(MaxAbs) of %lld floats gave %.9g, expected %.9g\n",
                static_cast<long long>(n), static_cast<double>(result),
                static_cast<double>(expected));
    return 1;
  }
  std::printf("PASS: gpureduce::Reduce(MaxAbs) of %lld floats = %.9g\n", static_cast<long long>(n),
              static_cast<double>(result));
  return 0;
}
