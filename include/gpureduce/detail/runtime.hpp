// Host-side services the dispatch layer needs, compiled once into the library (src/runtime.cpp):
// error reporting for last_error_message(), and cached device facts.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

#include "context.hpp"

namespace gpureduce::detail {

// Records `message` as the calling thread's last error and returns `code`.
cudaError_t fail(cudaError_t code, const char* message);
// cudaSuccess passes through; anything else is recorded as "<what>: <CUDA's description>".
cudaError_t check(cudaError_t code, const char* what);

// cudaSuccess if `pointer` is memory the current device can read: device, managed or mapped
// pinned host memory. Pageable host memory, freed or foreign pointers fail with
// cudaErrorInvalidValue and a message naming `what` (e.g. "d_in").
cudaError_t check_device_accessible(const void* pointer, const char* what);
// Whether a call with this setting checks its pointers (build_default: !NDEBUG of the library).
bool pointer_check_enabled(int pointer_check);

// What dispatch and `automatic` need to know about a device; read once per device and cached by
// ordinal: attributes of the hardware, the same in every context on it (a reset changes none).
struct DeviceFacts {
  int multiprocessors = 0;
  unsigned long long l2_bytes = 0;  // cudaDevAttrL2CacheSize: where `automatic` starts streaming
  bool cooperative_launch = false;  // cudaDevAttrCooperativeLaunch: the grid_sync pipeline can run
  bool programmatic_launch = false;  // compute capability 9.0+: launches may allow PDL (launch.cuh)
  bool thread_block_clusters = false;  // compute capability 9.0+: the cluster pipeline can run
};
cudaError_t device_facts(int device, DeviceFacts& facts);
// cudaOccupancyMaxActiveBlocksPerMultiprocessor, cached per (context, kernel, threads, smem): it
// depends on the kernel's attributes, which are set per context.
cudaError_t resident_blocks_per_sm(const ContextKey& context, const void* kernel, int block_threads,
                                   std::size_t dynamic_shared_bytes, int& blocks);
// The largest cluster of this kernel the device can schedule at this block size (at most 16: the
// non-portable sizes are enabled on the kernel first, an attribute of the context's copy of the
// kernel, so a new context sets it again), cached likewise.
cudaError_t max_cluster_blocks(const ContextKey& context, const void* kernel, int block_threads,
                               std::size_t dynamic_shared_bytes, int& blocks);
// Lets `kernel` launch with `bytes` of dynamic shared memory (cudaFuncSetAttribute above the 48 KiB
// default: an attribute of the context's copy of the kernel, set once per context).
cudaError_t allow_dynamic_shared_bytes(const ContextKey& context, const void* kernel,
                                       std::size_t bytes);
// Forgets the answers cached for `context` (release_cached_state).
void release_context_caches(const ContextKey& context);

// Whether work enqueued on `stream` now is being captured into a CUDA graph (cudaStreamIsCapturing;
// not cached: capture begins and ends at any time).
cudaError_t stream_is_capturing(cudaStream_t stream, bool& capturing);

// The virtual architecture the kernel's code was compiled for, as major * 10 + minor (90 for
// compute_90), cached per (device, kernel): a property of the code the device runs, not of a
// context. PDL is only safe on kernels built for 90 or newer:
// older PTX, JIT-compiled for an sm_90 device, lacks the griddepcontrol.wait of launch.cuh.
cudaError_t kernel_ptx_version(int device, const void* kernel, int& version);
}  // namespace gpureduce::detail
