// The multi-GPU gate: tests that need `count` GPUs skip on a machine with fewer (CTest reports them
// skipped: the message carries the GPU tests' skip phrase), and fail under GPUREDUCE_REQUIRE_GPU=1,
// so a multi-GPU runner cannot pass by skipping. On a one-GPU runner, run `ctest -LE multigpu`.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

namespace gpureduce::testing {

inline int gpu_count() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

#define REQUIRE_GPUS(count)                                                                      \
  do {                                                                                           \
    const int gpus_ = ::gpureduce::testing::gpu_count();                                         \
    if (gpus_ < (count)) {                                                                       \
      const char* require_ = std::getenv("GPUREDUCE_REQUIRE_GPU");                               \
      if (require_ != nullptr && std::string(require_) == "1")                                   \
        FAIL() << "GPUREDUCE_REQUIRE_GPU=1 but only " << gpus_ << " CUDA GPUs, " << (count)      \
               << " needed";                                                                     \
      GTEST_SKIP() << "needs " << (count) << " GPUs: no CUDA GPU found beyond " << gpus_;        \
    }                                                                                            \
  } while (0)

}  // namespace gpureduce::testing
