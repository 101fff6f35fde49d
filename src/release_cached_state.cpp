// gpureduce::release_cached_state: gives back everything the library holds for the current
// device's context (gpureduce.hpp says when to call it; docs/design.md lists what is held).
#include "gpureduce/gpureduce.hpp"

#include "gpureduce/detail/context.hpp"
#include "gpureduce/detail/runtime.hpp"
#include "gpureduce/detail/slot_pool.hpp"
#include "gpureduce/detail/stream_owned_state.hpp"

namespace gpureduce {

cudaError_t release_cached_state() {
  using namespace detail;
  int device = 0;
  cudaError_t error = check(cudaGetDevice(&device), "gpureduce: cudaGetDevice");
  ContextKey context;
  if (error == cudaSuccess) error = current_context(device, context);
  if (error != cudaSuccess) return error;
  // Reductions in flight on this device may still use the slots: wait for them. Other devices'
  // work is not waited for and not touched.
  error = check(cudaDeviceSynchronize(),
                "gpureduce: waiting for the device before releasing the library's state");
  if (error != cudaSuccess) return error;
  release_stream_owned_slots(context);
  release_context_caches(context);
  return release_context_slots(context);
}

}  // namespace gpureduce
