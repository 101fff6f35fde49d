// Error checking for the benchmark programs: every CUDA and gpureduce call goes through these, so a
// failure names the call and the line instead of surfacing later as a wrong number.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include <gpureduce/gpureduce.hpp>

namespace gpureduce_bench {

// Thrown by the checks below; the programs catch it at one place (a benchmark skips, the ladder
// prints it and exits 1).
struct CudaFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline void check_cuda(cudaError_t code, const char* what, const char* file, int line) {
  if (code == cudaSuccess) return;
  throw CudaFailure(std::string(file) + ":" + std::to_string(line) + ": " + what + " failed: " +
                    cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")");
}

// gpureduce calls report why they failed through last_error_message(); keep that text.
inline void check_gpureduce(cudaError_t code, const char* what, const char* file, int line) {
  if (code == cudaSuccess) return;
  throw CudaFailure(std::string(file) + ":" + std::to_string(line) + ": " + what + " failed: " +
                    cudaGetErrorName(code) + " (" + gpureduce::last_error_message() + ")");
}

}  // namespace gpureduce_bench

#define BENCH_CUDA_CHECK(call) ::gpureduce_bench::check_cuda((call), #call, __FILE__, __LINE__)
#define BENCH_GPUREDUCE_CHECK(call) \
  ::gpureduce_bench::check_gpureduce((call), #call, __FILE__, __LINE__)
// After every <<<...>>> launch: launch-configuration errors only show up here.
#define BENCH_CHECK_LAUNCH(what) \
  ::gpureduce_bench::check_cuda(cudaGetLastError(), what, __FILE__, __LINE__)
