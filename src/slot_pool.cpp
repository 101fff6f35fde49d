// The pool of zeroed slots, one per CUDA context (see detail/slot_pool.hpp).
#include "gpureduce/detail/slot_pool.hpp"

#include <algorithm>
#include <map>
#include <mutex>

#include "gpureduce/detail/runtime.hpp"

namespace gpureduce::detail {
namespace {

struct Chunk {
  std::size_t slot_bytes;
  int slots_out = 0;
};

struct ContextPool {
  int device = -1;
  std::map<unsigned char*, Chunk> chunks;  // by base address
  std::map<std::size_t, std::vector<unsigned char*>> free_slots;  // by slot size
};

// Never destroyed: CUDA's internal thread may give a slot back while the process exits (a graph
// destroyed by a static destructor), after this file's statics would have been.
struct Pools {
  std::mutex mutex;
  std::map<unsigned long long, ContextPool> by_context;  // by context id
};
Pools& pools() {
  static Pools* const instance = new Pools;
  return *instance;
}

// The chunk holding `slot` (the mutex held), or end().
std::map<unsigned char*, Chunk>::iterator chunk_of(ContextPool& pool, unsigned char* slot) {
  auto it = pool.chunks.upper_bound(slot);
  if (it == pool.chunks.begin()) return pool.chunks.end();
  --it;
  return slot < it->first + kSlotChunkBytes ? it : pool.chunks.end();
}

// A new chunk, zeroed and waited for (the mutex held).
cudaError_t allocate_zeroed_chunk(unsigned char** chunk) {
  // cudaMalloc is prohibited while a stream of this thread is being captured in global mode; the
  // allocation is not part of the graph, so the thread's mode is relaxed around it. The zeroing
  // runs on a stream of its own: the legacy stream would wait for the capturing stream.
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  cudaError_t error = check(cudaThreadExchangeStreamCaptureMode(&mode),
                            "gpureduce: relaxing the capture mode to allocate its state");
  if (error != cudaSuccess) return error;
  void* memory = nullptr;
  cudaStream_t zeroing = nullptr;
  error = check(cudaMalloc(&memory, kSlotChunkBytes), "gpureduce: allocating its state (64 KiB)");
  if (error == cudaSuccess)
    error = check(cudaStreamCreateWithFlags(&zeroing, cudaStreamNonBlocking),
                  "gpureduce: creating a stream to zero its state");
  if (error == cudaSuccess)
    error = check(cudaMemsetAsync(memory, 0, kSlotChunkBytes, zeroing),
                  "gpureduce: zeroing its state");
  if (error == cudaSuccess)
    error = check(cudaStreamSynchronize(zeroing), "gpureduce: zeroing its state");
  if (zeroing != nullptr) {
    const cudaError_t destroyed = cudaStreamDestroy(zeroing);
    if (error == cudaSuccess) error = check(destroyed, "gpureduce: destroying its zeroing stream");
  }
  // On failure the first error is the one reported; freeing is best effort.
  if (error != cudaSuccess && memory != nullptr) (void)cudaFree(memory);
  const cudaError_t restored = cudaThreadExchangeStreamCaptureMode(&mode);
  if (error != cudaSuccess) return error;
  if (restored != cudaSuccess)
    return check(restored, "gpureduce: restoring the capture mode after allocating");
  *chunk = static_cast<unsigned char*>(memory);
  return cudaSuccess;
}

}  // namespace

cudaError_t take_zeroed_slot(const ContextKey& context, std::size_t slot_bytes,
                             unsigned char** slot) {
  if (slot_bytes != kSmallSlotBytes && slot_bytes != kLargeSlotBytes)
    return fail(cudaErrorInvalidValue, "gpureduce: internal error: no slots of that size");
  std::lock_guard<std::mutex> lock(pools().mutex);
  ContextPool& pool = pools().by_context[context.id];
  pool.device = context.device;
  std::vector<unsigned char*>& free_slots = pool.free_slots[slot_bytes];
  if (free_slots.empty()) {
    unsigned char* chunk = nullptr;
    const cudaError_t error = allocate_zeroed_chunk(&chunk);
    if (error != cudaSuccess) return error;
    pool.chunks.emplace(chunk, Chunk{slot_bytes});
    for (std::size_t i = kSlotChunkBytes / slot_bytes; i-- > 0;)
      free_slots.push_back(chunk + i * slot_bytes);
  }
  *slot = free_slots.back();
  free_slots.pop_back();
  ++chunk_of(pool, *slot)->second.slots_out;
  return cudaSuccess;
}

void return_slot(unsigned long long context_id, unsigned char* slot) {
  std::lock_guard<std::mutex> lock(pools().mutex);
  auto pool = pools().by_context.find(context_id);
  if (pool == pools().by_context.end()) return;  // released meanwhile: nothing to return to
  auto chunk = chunk_of(pool->second, slot);
  if (chunk == pool->second.chunks.end()) return;
  --chunk->second.slots_out;
  pool->second.free_slots[chunk->second.slot_bytes].push_back(slot);
}

cudaError_t release_context_slots(const ContextKey& context) {
  std::lock_guard<std::mutex> lock(pools().mutex);
  auto found = pools().by_context.find(context.id);
  if (found == pools().by_context.end()) return cudaSuccess;
  ContextPool& pool = found->second;
  cudaError_t first_error = cudaSuccess;
  for (auto chunk = pool.chunks.begin(); chunk != pool.chunks.end();) {
    if (chunk->second.slots_out != 0) {
      ++chunk;
      continue;
    }
    unsigned char* const base = chunk->first;
    std::vector<unsigned char*>& free_slots = pool.free_slots[chunk->second.slot_bytes];
    free_slots.erase(std::remove_if(free_slots.begin(), free_slots.end(),
                                    [&](unsigned char* s) { return s >= base && s < base + kSlotChunkBytes; }),
                     free_slots.end());
    const cudaError_t error = check(cudaFree(base), "gpureduce: freeing its state");
    if (first_error == cudaSuccess) first_error = error;
    chunk = pool.chunks.erase(chunk);
  }
  if (pool.chunks.empty()) pools().by_context.erase(found);
  return first_error;
}

std::vector<HeldChunk> held_chunks() {
  std::lock_guard<std::mutex> lock(pools().mutex);
  std::vector<HeldChunk> held;
  for (const auto& [id, pool] : pools().by_context)
    for (const auto& [base, chunk] : pool.chunks)
      held.push_back({id, pool.device, base, chunk.slot_bytes, chunk.slots_out});
  return held;
}

}  // namespace gpureduce::detail
