// What the benchmark programs print about the machine: device, theoretical bandwidth, L2 size and
// the CUDA / CCCL versions they were built and run with.
#pragma once

#include <cstddef>
#include <string>

namespace gpureduce_bench {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int sm_major = 0, sm_minor = 0;
  int multiprocessors = 0;
  std::size_t l2_bytes = 0;
  // memory clock (kHz) x bus width (bits) x 2 (double data rate) / 8; 0 when the device does not
  // report its memory clock (then peak_text() says "unknown").
  double peak_bytes_per_second = 0.0;
  int memory_clock_khz = 0;
  int bus_width_bits = 0;
  int runtime_version = 0;  // cudaRuntimeGetVersion, e.g. 13000
  int driver_version = 0;   // cudaDriverGetVersion: the newest CUDA the driver supports
  std::string cccl_version; // the CCCL headers compiled in, e.g. "3.0.1"

  std::string peak_text() const;  // "3352.3 GB/s" or "unknown"
  std::string versions_text() const;  // "CUDA runtime 13.0, driver 13.0, CCCL 3.0.1"
  // Percent of peak for `bytes` read in `seconds`; negative when the peak is unknown.
  double percent_of_peak(double bytes, double seconds) const;
  bool l2_resident(std::size_t bytes) const { return bytes < l2_bytes; }
};

// How many CUDA devices there are, with the reason when there are none (no driver, no device):
// lets the programs say "no CUDA GPU found (...)" instead of failing in the first allocation.
int cuda_device_count(std::string& why_none);

// Queries the current device; throws CudaFailure on a CUDA error.
DeviceInfo query_device();

}  // namespace gpureduce_bench
