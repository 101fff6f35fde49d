// An owning device allocation, so an exception between cudaMalloc and cudaFree leaks nothing.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "cuda_check.hpp"

namespace gpureduce_bench {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    // cudaMalloc(0) returns nullptr; callers pass the pointer to APIs that reject null.
    void* p = nullptr;
    BENCH_CUDA_CHECK(cudaMalloc(&p, (count > 0 ? count : 1) * sizeof(T)));
    ptr_ = static_cast<T*>(p);
  }
  ~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);
  }
  DeviceBuffer(DeviceBuffer&& other) noexcept : ptr_(other.ptr_), count_(other.count_) {
    other.ptr_ = nullptr;
    other.count_ = 0;
  }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    std::swap(ptr_, other.ptr_);
    std::swap(count_, other.count_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace gpureduce_bench
