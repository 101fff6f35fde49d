// Device facts from cudaDeviceGetAttribute (CUDA 13 dropped cudaDeviceProp::memoryClockRate; the
// attribute remains). Compiled by nvcc only to see the CCCL version macro of the headers in use.
#include "device_info.hpp"

#include <cuda_runtime_api.h>

#include <cub/version.cuh>
#include <cstdio>

#include "cuda_check.hpp"

namespace gpureduce_bench {

namespace {
std::string version_text(int v) {  // 13000 -> "13.0"
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}
}  // namespace

std::string DeviceInfo::peak_text() const {
  if (peak_bytes_per_second <= 0.0) return "unknown";
  char text[64];
  std::snprintf(text, sizeof text, "%.1f GB/s", peak_bytes_per_second * 1e-9);
  return text;
}

std::string DeviceInfo::versions_text() const {
  return "CUDA runtime " + version_text(runtime_version) + ", driver supports CUDA " +
         version_text(driver_version) + ", CCCL " + cccl_version;
}

double DeviceInfo::percent_of_peak(double bytes, double seconds) const {
  if (peak_bytes_per_second <= 0.0 || seconds <= 0.0) return -1.0;
  return 100.0 * bytes / seconds / peak_bytes_per_second;
}

int cuda_device_count(std::string& why_none) {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    why_none = std::string("cudaGetDeviceCount: ") + cudaGetErrorName(error) + ", " +
               cudaGetErrorString(error);
    cudaGetLastError();  // not a sticky error: clear it so no later check reports it
    return 0;
  }
  if (count == 0) why_none = "cudaGetDeviceCount returned 0 devices";
  return count;
}

DeviceInfo query_device() {
  DeviceInfo info;
  BENCH_CUDA_CHECK(cudaGetDevice(&info.ordinal));
  cudaDeviceProp prop{};
  BENCH_CUDA_CHECK(cudaGetDeviceProperties(&prop, info.ordinal));
  info.name = prop.name;
  info.sm_major = prop.major;
  info.sm_minor = prop.minor;
  const int d = info.ordinal;
  int l2 = 0;
  BENCH_CUDA_CHECK(cudaDeviceGetAttribute(&info.multiprocessors, cudaDevAttrMultiProcessorCount, d));
  BENCH_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, d));
  info.l2_bytes = std::size_t(l2 > 0 ? l2 : 0);
  // A device may not report its memory clock (some virtualised or future parts answer 0 or an
  // error); then the peak is "unknown" rather than a made-up number. NVML would know, but it is
  // not linkable on the build machine, so it is not used.
  if (cudaDeviceGetAttribute(&info.memory_clock_khz, cudaDevAttrMemoryClockRate, d) != cudaSuccess)
    info.memory_clock_khz = 0;
  if (cudaDeviceGetAttribute(&info.bus_width_bits, cudaDevAttrGlobalMemoryBusWidth, d) != cudaSuccess)
    info.bus_width_bits = 0;
  cudaGetLastError();  // clear a failed optional query
  if (info.memory_clock_khz > 0 && info.bus_width_bits > 0)
    info.peak_bytes_per_second = double(info.memory_clock_khz) * 1e3 * info.bus_width_bits * 2.0 / 8.0;
  BENCH_CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
  BENCH_CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
  info.cccl_version = std::to_string(CUB_MAJOR_VERSION) + "." + std::to_string(CUB_MINOR_VERSION) +
                      "." + std::to_string(CUB_SUBMINOR_VERSION);
  return info;
}

}  // namespace gpureduce_bench
