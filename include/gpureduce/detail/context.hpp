// Which CUDA context a call runs in. Everything the library keeps between calls on the device side
// (the pool of zeroed slots, the streams' slots, kernel attributes it has set, occupancy answers) is
// keyed by the context's unique id, never by the device ordinal alone: cudaDeviceReset destroys a
// device's primary context and the next call gets a new one with a new id, and a context made with
// the driver API is another id on the same device. So no call ever sees another context's
// pointers, and the memory of a context that is gone is never touched again (it went with it).
#pragma once

#include <cuda_runtime_api.h>

namespace gpureduce::detail {

struct ContextKey {
  unsigned long long id = 0;  // cuCtxGetId: unique for the life of the process
  int device = -1;            // the runtime's ordinal of the context's device
  bool operator==(const ContextKey& other) const { return id == other.id; }
  bool operator<(const ContextKey& other) const { return id < other.id; }
};

// The context the runtime uses on this thread for `device` (the current device), binding the
// runtime's primary context to the thread first if none is current yet. Two driver calls through
// pointers the runtime hands out (cudaGetDriverEntryPointByVersion), so the library needs no
// libcuda at link time; tens of nanoseconds (gpureduce_overhead's BM_CurrentContext).
cudaError_t current_context(int device, ContextKey& key);

}  // namespace gpureduce::detail
