// The pool of zeroed slots, and the loans of them to captured graphs (see
// detail/graph_owned_state.hpp; stream_owned_state.cpp keeps slots of it too).
#include "gpureduce/detail/graph_owned_state.hpp"

#include <map>
#include <mutex>
#include <vector>

#include "gpureduce/detail/runtime.hpp"

namespace gpureduce::detail {
namespace {

// Each chunk is 64 KiB of device memory (512 small slots or 8 large ones). Chunks are never freed:
// a process holds as many as it ever had captured reductions alive at once.
constexpr std::size_t kChunkBytes = std::size_t(64) << 10;

// Never destroyed: CUDA's internal thread may give a slot back while the process exits (a graph
// destroyed by a static destructor), after this file's statics would have been.
struct Pool {
  std::mutex mutex;
  std::map<std::pair<int, std::size_t>, std::vector<unsigned char*>> free_slots;  // (device, size)
  std::size_t slots_in_use = 0;
};
Pool& pool() {
  static Pool* const instance = new Pool;
  return *instance;
}

struct SlotLoan {
  std::pair<int, std::size_t> device_and_size;
  unsigned char* slot;
};

// The user object's destructor, on CUDA's internal thread once nothing references the graph's
// copy any more: every launch of it has completed, so the slot is zero. No CUDA calls here.
void give_back(void* loan_pointer) {
  auto* loan = static_cast<SlotLoan*>(loan_pointer);
  {
    std::lock_guard<std::mutex> lock(pool().mutex);
    pool().free_slots[loan->device_and_size].push_back(loan->slot);
    --pool().slots_in_use;
  }
  delete loan;
}

// A new chunk, zeroed, its slots added to the device's free list (the pool's mutex held).
cudaError_t grow(std::size_t slot_bytes, std::vector<unsigned char*>& free_slots) {
  // cudaMalloc is prohibited while a stream of this thread is being captured in global mode; the
  // allocation is not part of the graph, so the thread's mode is relaxed around it. The zeroing
  // runs on a stream of its own: the legacy stream would wait for the capturing stream.
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  cudaError_t error = check(cudaThreadExchangeStreamCaptureMode(&mode),
                            "gpureduce: relaxing the capture mode to allocate graph-owned state");
  if (error != cudaSuccess) return error;
  void* chunk = nullptr;
  cudaStream_t zeroing = nullptr;
  error = check(cudaMalloc(&chunk, kChunkBytes),
                "gpureduce: allocating graph-owned state for a captured reduction");
  if (error == cudaSuccess)
    error = check(cudaStreamCreateWithFlags(&zeroing, cudaStreamNonBlocking),
                  "gpureduce: creating a stream to zero graph-owned state");
  if (error == cudaSuccess)
    error = check(cudaMemsetAsync(chunk, 0, kChunkBytes, zeroing),
                  "gpureduce: zeroing graph-owned state");
  if (error == cudaSuccess)
    error = check(cudaStreamSynchronize(zeroing), "gpureduce: zeroing graph-owned state");
  if (zeroing != nullptr) cudaStreamDestroy(zeroing);
  if (error != cudaSuccess && chunk != nullptr) cudaFree(chunk);
  const cudaError_t restored = cudaThreadExchangeStreamCaptureMode(&mode);
  if (error != cudaSuccess) return error;
  if (restored != cudaSuccess)
    return check(restored, "gpureduce: restoring the capture mode after allocating");
  auto* bytes = static_cast<unsigned char*>(chunk);
  for (std::size_t i = kChunkBytes / slot_bytes; i-- > 0;) free_slots.push_back(bytes + i * slot_bytes);
  return cudaSuccess;
}

}  // namespace

cudaError_t take_zeroed_slot(int device, std::size_t slot_bytes, unsigned char** slot) {
  if (slot_bytes != kGraphOwnedSmallSlotBytes && slot_bytes != kGraphOwnedLargeSlotBytes)
    return fail(cudaErrorInvalidValue, "gpureduce: internal error: no slots of that size");
  std::lock_guard<std::mutex> lock(pool().mutex);
  std::vector<unsigned char*>& free_slots = pool().free_slots[{device, slot_bytes}];
  if (free_slots.empty()) {
    const cudaError_t error = grow(slot_bytes, free_slots);
    if (error != cudaSuccess) return error;
  }
  *slot = free_slots.back();
  free_slots.pop_back();
  return cudaSuccess;
}

cudaError_t acquire_graph_owned_slot(cudaStream_t stream, int device, std::size_t bytes,
                                     unsigned char** slot) {
  if (bytes > kGraphOwnedLargeSlotBytes)
    return fail(cudaErrorInvalidValue,
                "gpureduce: internal error: more graph-owned state asked for than a slot holds");
  const std::size_t slot_bytes =
      bytes <= kGraphOwnedSmallSlotBytes ? kGraphOwnedSmallSlotBytes : kGraphOwnedLargeSlotBytes;
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  cudaGraph_t graph = nullptr;
  cudaError_t error = check(cudaStreamGetCaptureInfo(stream, &status, nullptr, &graph),
                            "gpureduce: asking which graph the stream is captured into");
  if (error != cudaSuccess) return error;
  if (status != cudaStreamCaptureStatusActive || graph == nullptr)
    return fail(cudaErrorInvalidValue,
                "gpureduce: internal error: graph-owned state asked for outside a capture");

  auto* loan = new SlotLoan{{device, slot_bytes}, nullptr};
  error = take_zeroed_slot(device, slot_bytes, &loan->slot);
  if (error != cudaSuccess) {
    delete loan;
    return error;
  }
  {
    std::lock_guard<std::mutex> lock(pool().mutex);
    ++pool().slots_in_use;
  }
  unsigned char* const granted = loan->slot;  // the loan belongs to the graph from here on
  cudaUserObject_t object = nullptr;
  error = check(cudaUserObjectCreate(&object, loan, give_back, 1, cudaUserObjectNoDestructorSync),
                "gpureduce: creating the user object that holds graph-owned state");
  if (error != cudaSuccess) {
    give_back(loan);
    return error;
  }
  // The graph takes over the one reference: when it and its executables are gone, give_back runs.
  error = check(cudaGraphRetainUserObject(graph, object, 1, cudaGraphUserObjectMove),
                "gpureduce: handing graph-owned state to the captured graph");
  if (error != cudaSuccess) {
    cudaUserObjectRelease(object, 1);  // runs give_back
    return error;
  }
  *slot = granted;
  return cudaSuccess;
}

std::size_t graph_owned_slots_in_use() {
  std::lock_guard<std::mutex> lock(pool().mutex);
  return pool().slots_in_use;
}

}  // namespace gpureduce::detail
