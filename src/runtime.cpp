// Error reporting and cached device facts for the dispatch layer (see detail/runtime.hpp).
#include "gpureduce/detail/runtime.hpp"

#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include "gpureduce/gpureduce.hpp"

namespace gpureduce {
namespace {
thread_local std::string last_error;
}  // namespace

const char* last_error_message() { return last_error.c_str(); }

namespace detail {

cudaError_t fail(cudaError_t code, const char* message) {
  last_error = message;
  return code;
}

cudaError_t check(cudaError_t code, const char* what) {
  if (code == cudaSuccess) return code;
  (void)cudaGetLastError();  // returned to the caller here: do not leave it for their next call
  last_error = std::string(what) + ": " + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")";
  return code;
}

cudaError_t check_device_accessible(const void* pointer, const char* what) {
  cudaPointerAttributes attributes{};
  const cudaError_t error = cudaPointerGetAttributes(&attributes, pointer);
  if (error != cudaSuccess) {
    (void)cudaGetLastError();  // consume it: a rejected argument must not leave a sticky error
    last_error = std::string("gpureduce: ") + what + " is not a pointer CUDA knows (" +
                 cudaGetErrorString(error) + ")";
    return cudaErrorInvalidValue;
  }
  const bool readable = attributes.type == cudaMemoryTypeDevice ||
                        attributes.type == cudaMemoryTypeManaged ||
                        (attributes.type == cudaMemoryTypeHost && attributes.devicePointer != nullptr);
  if (!readable) {
    last_error = std::string("gpureduce: ") + what +
                 " is not device-accessible memory (pageable host memory, or freed): use "
                 "cudaMalloc, cudaMallocManaged or mapped pinned memory";
    return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}

bool pointer_check_enabled(int pointer_check) {
  if (pointer_check == int(PointerCheck::on)) return true;
  if (pointer_check == int(PointerCheck::off)) return false;
#ifdef NDEBUG
  return false;
#else
  return true;
#endif
}

namespace {
// Occupancy queries cost microseconds; reductions are called in loops. The answers never change
// for a (device, kernel, block size, shared memory) tuple, so they are asked once.
std::mutex cache_mutex;
std::map<int, DeviceFacts> facts_by_device;
}  // namespace

cudaError_t device_facts(int device, DeviceFacts& facts) {
  // The calling thread's last answer first: no lock on the path every call takes.
  thread_local int last_device = -1;
  thread_local DeviceFacts last_facts;
  if (device == last_device) {
    facts = last_facts;
    return cudaSuccess;
  }
  {
    std::lock_guard<std::mutex> lock(cache_mutex);
    auto it = facts_by_device.find(device);
    if (it != facts_by_device.end()) {
      facts = last_facts = it->second;
      last_device = device;
      return cudaSuccess;
    }
  }
  DeviceFacts read;
  int cooperative = 0, major = 0, l2_bytes = 0;
  cudaError_t error = check(cudaDeviceGetAttribute(&read.multiprocessors,
                                                   cudaDevAttrMultiProcessorCount, device),
                            "gpureduce: reading the multiprocessor count");
  if (error == cudaSuccess)
    error = check(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device),
                  "gpureduce: reading cooperative-launch support");
  if (error == cudaSuccess)
    error = check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device),
                  "gpureduce: reading the compute capability");
  if (error == cudaSuccess)
    error = check(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device),
                  "gpureduce: reading the L2 size");
  if (error != cudaSuccess) return error;
  read.l2_bytes = static_cast<unsigned long long>(l2_bytes);
  read.cooperative_launch = cooperative != 0;
  read.programmatic_launch = major >= 9;
  read.thread_block_clusters = major >= 9;
  std::lock_guard<std::mutex> lock(cache_mutex);
  facts_by_device[device] = read;
  facts = last_facts = read;
  last_device = device;
  return cudaSuccess;
}

namespace {
// (context id, or a device ordinal for context-independent facts), kernel, threads, shared memory
using KernelKey = std::tuple<unsigned long long, const void*, int, std::size_t>;
struct LastAnswer {  // the calling thread's last question about one kind of fact
  KernelKey key{~0ull, nullptr, 0, 0};
  int value = 0;
};
std::map<KernelKey, int> occupancy_cache;
std::map<KernelKey, int> cluster_cache;
std::map<KernelKey, int> ptx_version_cache;
std::map<KernelKey, int> shared_bytes_cache;

// A fact about (device, kernel, block size, shared memory) that never changes: the calling
// thread's last answer first (no lock), then the shared cache under the lock, else `ask` once.
template <class Ask>
cudaError_t cached_kernel_fact(std::map<KernelKey, int>& cache, LastAnswer& last,
                               const KernelKey& key, int& value, Ask ask) {
  if (key == last.key) {
    value = last.value;
    return cudaSuccess;
  }
  {
    std::lock_guard<std::mutex> lock(cache_mutex);
    auto it = cache.find(key);
    if (it != cache.end()) {
      value = last.value = it->second;
      last.key = key;
      return cudaSuccess;
    }
  }
  const cudaError_t error = ask(value);
  if (error != cudaSuccess) return error;
  std::lock_guard<std::mutex> lock(cache_mutex);
  cache[key] = last.value = value;
  last.key = key;
  return cudaSuccess;
}
}  // namespace

cudaError_t resident_blocks_per_sm(const ContextKey& context, const void* kernel, int block_threads,
                                   std::size_t dynamic_shared_bytes, int& blocks) {
  thread_local LastAnswer last;
  return cached_kernel_fact(
      occupancy_cache, last, KernelKey{context.id, kernel, block_threads, dynamic_shared_bytes},
      blocks,
      [&](int& answer) {
        return check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&answer, kernel, block_threads,
                                                                   dynamic_shared_bytes),
                     "gpureduce: occupancy query");
      });
}

cudaError_t max_cluster_blocks(const ContextKey& context, const void* kernel, int block_threads,
                               std::size_t dynamic_shared_bytes, int& blocks) {
  thread_local LastAnswer last;
  return cached_kernel_fact(
      cluster_cache, last, KernelKey{context.id, kernel, block_threads, dynamic_shared_bytes},
      blocks,
      [&](int& answer) {
        cudaError_t error =
            check(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1),
                  "gpureduce: allowing 16-block clusters");
        cudaLaunchConfig_t config{};
        config.gridDim = dim3(16);
        config.blockDim = dim3(unsigned(block_threads));
        config.dynamicSmemBytes = dynamic_shared_bytes;
        if (error == cudaSuccess)
          error = check(cudaOccupancyMaxPotentialClusterSize(&answer, kernel, &config),
                        "gpureduce: cluster size query");
        if (error == cudaSuccess && answer > 16) answer = 16;
        return error;
      });
}

cudaError_t allow_dynamic_shared_bytes(const ContextKey& context, const void* kernel,
                                       std::size_t bytes) {
  constexpr std::size_t kDefaultLimit = std::size_t(48) << 10;
  if (bytes <= kDefaultLimit) return cudaSuccess;
  thread_local LastAnswer last;
  int done = 0;
  return cached_kernel_fact(shared_bytes_cache, last, KernelKey{context.id, kernel, 0, bytes}, done,
                            [&](int& answer) {
                              answer = 1;
                              return check(cudaFuncSetAttribute(
                                               kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               int(bytes)),
                                           "gpureduce: allowing the kernel its shared memory");
                            });
}

void release_context_caches(const ContextKey& context) {
  std::lock_guard<std::mutex> lock(cache_mutex);
  for (auto* cache : {&occupancy_cache, &cluster_cache, &shared_bytes_cache}) {
    const auto first = cache->lower_bound(KernelKey{context.id, nullptr, 0, 0});
    auto last = first;
    while (last != cache->end() && std::get<0>(last->first) == context.id) ++last;
    cache->erase(first, last);
  }
}

cudaError_t stream_is_capturing(cudaStream_t stream, bool& capturing) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  const cudaError_t error = check(cudaStreamIsCapturing(stream, &status),
                                  "gpureduce: asking whether the stream is being captured");
  capturing = status == cudaStreamCaptureStatusActive;
  return error;
}

cudaError_t kernel_ptx_version(int device, const void* kernel, int& version) {
  thread_local LastAnswer last;
  return cached_kernel_fact(ptx_version_cache, last,
                            KernelKey{static_cast<unsigned long long>(device), kernel, 0, 0}, version,
                            [&](int& answer) {
                              cudaFuncAttributes attributes{};
                              const cudaError_t error =
                                  check(cudaFuncGetAttributes(&attributes, kernel),
                                        "gpureduce: reading the kernel's PTX version");
                              answer = attributes.ptxVersion;
                              return error;
                            });
}

}  // namespace detail
}  // namespace gpureduce
