// Which CUDA context a call runs in (see detail/context.hpp).
#include "gpureduce/detail/context.hpp"

#include <cudaTypedefs.h>

#include "gpureduce/detail/runtime.hpp"

namespace gpureduce::detail {
namespace {

struct DriverCalls {
  PFN_cuCtxGetCurrent_v4000 get_current = nullptr;
  PFN_cuCtxGetId_v12000 get_id = nullptr;
  cudaError_t status = cudaSuccess;
};

template <class Function>
cudaError_t look_up(const char* name, Function& function) {
  void* address = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  const cudaError_t error =
      cudaGetDriverEntryPointByVersion(name, &address, 12000, cudaEnableDefault, &found);
  if (error != cudaSuccess) return error;
  if (found != cudaDriverEntryPointSuccess) return cudaErrorSymbolNotFound;
  function = reinterpret_cast<Function>(address);
  return cudaSuccess;
}

// Looked up once per process: the driver's entry points do not change.
const DriverCalls& driver_calls() {
  static const DriverCalls calls = [] {
    DriverCalls c;
    c.status = look_up("cuCtxGetCurrent", c.get_current);
    if (c.status == cudaSuccess) c.status = look_up("cuCtxGetId", c.get_id);
    if (c.status != cudaSuccess) (void)cudaGetLastError();
    return c;
  }();
  return calls;
}

// The id of the context current on this thread; false if there is none, or it is no longer valid.
bool current_id(const DriverCalls& calls, unsigned long long& id) {
  CUcontext context = nullptr;
  return calls.get_current(&context) == CUDA_SUCCESS && context != nullptr &&
         calls.get_id(context, &id) == CUDA_SUCCESS;
}

}  // namespace

cudaError_t current_context(int device, ContextKey& key) {
  const DriverCalls& calls = driver_calls();
  if (calls.status != cudaSuccess)
    return check(calls.status, "gpureduce: looking up cuCtxGetCurrent and cuCtxGetId");
  unsigned long long id = 0;
  if (!current_id(calls, id)) {
    // The runtime binds its primary context to a thread lazily, at the first call that needs
    // one (and anew after cudaDeviceReset): make it do so now, then ask again.
    const cudaError_t error = check(cudaFree(nullptr), "gpureduce: initialising the CUDA context");
    if (error != cudaSuccess) return error;
    if (!current_id(calls, id))
      return fail(cudaErrorInvalidDevice, "gpureduce: no CUDA context is current on this thread");
  }
  key.id = id;
  key.device = device;
  return cudaSuccess;
}

}  // namespace gpureduce::detail
