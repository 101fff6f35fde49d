// The slots streams keep for automatic's uncaptured last_block plans (see
// detail/stream_owned_state.hpp).
#include "gpureduce/detail/stream_owned_state.hpp"

#include <iterator>
#include <map>
#include <mutex>
#include <utility>

#include "gpureduce/detail/runtime.hpp"
#include "gpureduce/detail/slot_pool.hpp"

namespace gpureduce::detail {
namespace {

using StreamKey = std::pair<unsigned long long, unsigned long long>;  // (context id, stream id)

// Never destroyed, like the pool it draws from: a static destructor may still reduce while the
// process exits.
struct Table {
  std::mutex mutex;
  std::map<StreamKey, unsigned char*> slots;
  std::size_t limit = kStreamOwnedSlotsPerContext;
};
Table& table() {
  static Table* const instance = new Table;
  return *instance;
}

cudaError_t stream_key(cudaStream_t stream, const ContextKey& context, StreamKey& key) {
  unsigned long long id = 0;
  const cudaError_t error =
      check(cudaStreamGetId(stream, &id), "gpureduce: asking for the stream's id");
  key = {context.id, id};
  return error;
}

// The context's entries: one range, since keys sort by context first (the table's mutex held).
std::pair<std::map<StreamKey, unsigned char*>::iterator, std::map<StreamKey, unsigned char*>::iterator>
context_range(Table& t, unsigned long long context_id) {
  return {t.slots.lower_bound({context_id, 0ull}),
          context_id == ~0ull ? t.slots.end() : t.slots.lower_bound({context_id + 1, 0ull})};
}

// Whether `key`'s stream holds a slot, or may take one: its context's streams hold fewer than the
// limit (the table's mutex held).
bool may_hold(Table& t, const StreamKey& key) {
  if (t.slots.count(key) != 0) return true;
  const auto [first, last] = context_range(t, key.first);
  return std::size_t(std::distance(first, last)) < t.limit;
}

}  // namespace

cudaError_t stream_owned_slot(cudaStream_t stream, const ContextKey& context, unsigned char** slot) {
  StreamKey key;
  const cudaError_t error = stream_key(stream, context, key);
  if (error != cudaSuccess) return error;
  *slot = nullptr;
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  const auto found = t.slots.find(key);
  if (found != t.slots.end()) {
    *slot = found->second;
    return cudaSuccess;
  }
  if (!may_hold(t, key)) return cudaSuccess;
  unsigned char* taken = nullptr;
  if (take_zeroed_slot(context, kLargeSlotBytes, &taken) != cudaSuccess) {
    // Out of memory, most likely: this call takes the plan that needs no slot instead of failing
    // where it used to succeed. cudaGetLastError clears what the failed call left, which the
    // launch's own check would otherwise report.
    (void)cudaGetLastError();
    return cudaSuccess;
  }
  t.slots.emplace(key, taken);
  *slot = taken;
  return cudaSuccess;
}

cudaError_t stream_owned_slot_available(cudaStream_t stream, const ContextKey& context,
                                        bool& available) {
  StreamKey key;
  const cudaError_t error = stream_key(stream, context, key);
  if (error != cudaSuccess) return error;
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  available = may_hold(t, key);
  return cudaSuccess;
}

void release_stream_owned_slots(const ContextKey& context) {
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  const auto [first, last] = context_range(t, context.id);
  for (auto it = first; it != last; ++it) return_slot(context.id, it->second);
  t.slots.erase(first, last);
}

std::size_t stream_owned_slots_in_use() {
  std::lock_guard<std::mutex> lock(table().mutex);
  return table().slots.size();
}

std::size_t set_stream_owned_slot_limit(std::size_t limit) {
  std::lock_guard<std::mutex> lock(table().mutex);
  const std::size_t old = table().limit;
  table().limit = limit;
  return old;
}

}  // namespace gpureduce::detail
