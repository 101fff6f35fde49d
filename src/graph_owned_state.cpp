// Loans of pool slots to captured graphs (see detail/graph_owned_state.hpp and slot_pool.hpp).
#include "gpureduce/detail/graph_owned_state.hpp"

#include <atomic>

#include "gpureduce/detail/runtime.hpp"
#include "gpureduce/detail/slot_pool.hpp"

namespace gpureduce::detail {
namespace {

std::atomic<std::size_t> slots_lent{0};

struct SlotLoan {
  unsigned long long context_id;
  unsigned char* slot;
};

// The user object's destructor, on CUDA's internal thread once nothing references the graph's
// copy any more: every launch of it has completed, so the slot is zero. No CUDA calls here.
void give_back(void* loan_pointer) {
  auto* loan = static_cast<SlotLoan*>(loan_pointer);
  return_slot(loan->context_id, loan->slot);
  --slots_lent;
  delete loan;
}

}  // namespace

cudaError_t acquire_graph_owned_slot(cudaStream_t stream, const ContextKey& context,
                                     std::size_t bytes, unsigned char** slot) {
  if (bytes > kLargeSlotBytes)
    return fail(cudaErrorInvalidValue,
                "gpureduce: internal error: more graph-owned state asked for than a slot holds");
  const std::size_t slot_bytes = bytes <= kSmallSlotBytes ? kSmallSlotBytes : kLargeSlotBytes;
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  cudaGraph_t graph = nullptr;
  cudaError_t error = check(cudaStreamGetCaptureInfo(stream, &status, nullptr, &graph),
                            "gpureduce: asking which graph the stream is captured into");
  if (error != cudaSuccess) return error;
  if (status != cudaStreamCaptureStatusActive || graph == nullptr)
    return fail(cudaErrorInvalidValue,
                "gpureduce: internal error: graph-owned state asked for outside a capture");

  auto* loan = new SlotLoan{context.id, nullptr};
  error = take_zeroed_slot(context, slot_bytes, &loan->slot);
  if (error != cudaSuccess) {
    delete loan;
    return error;
  }
  ++slots_lent;
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
    (void)cudaUserObjectRelease(object, 1);  // runs give_back; the retain's error is reported
    return error;
  }
  *slot = granted;
  return cudaSuccess;
}

std::size_t graph_owned_slots_in_use() { return slots_lent.load(); }

}  // namespace gpureduce::detail
