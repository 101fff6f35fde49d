// The slots streams keep for automatic's uncaptured last_block plans (see
// detail/stream_owned_state.hpp).
#include "gpureduce/detail/stream_owned_state.hpp"

#include <iterator>
#include <map>
#include <mutex>
#include <utility>

#include "gpureduce/detail/graph_owned_state.hpp"
#include "gpureduce/detail/runtime.hpp"

namespace gpureduce::detail {
namespace {

// Never destroyed, like the pool it draws from (graph_owned_state.cpp): a static destructor may
// still reduce while the process exits.
struct Table {
  std::mutex mutex;
  std::map<std::pair<int, unsigned long long>, unsigned char*> slots;  // (device, stream id)
  std::size_t limit = kStreamOwnedSlotsPerDevice;
};
Table& table() {
  static Table* const instance = new Table;
  return *instance;
}

cudaError_t stream_key(cudaStream_t stream, int device, std::pair<int, unsigned long long>& key) {
  unsigned long long id = 0;
  const cudaError_t error =
      check(cudaStreamGetId(stream, &id), "gpureduce: asking for the stream's id");
  key = {device, id};
  return error;
}

// Whether `key`'s stream holds a slot, or may take one: its device's streams hold fewer than the
// limit (the table's mutex held; keys sort by device, so theirs are one range).
bool may_hold(const Table& t, const std::pair<int, unsigned long long>& key) {
  if (t.slots.count(key) != 0) return true;
  const auto first = t.slots.lower_bound({key.first, 0ull});
  const auto last = t.slots.lower_bound({key.first + 1, 0ull});
  return std::size_t(std::distance(first, last)) < t.limit;
}

}  // namespace

cudaError_t stream_owned_slot(cudaStream_t stream, int device, unsigned char** slot) {
  std::pair<int, unsigned long long> key;
  const cudaError_t error = stream_key(stream, device, key);
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
  if (take_zeroed_slot(device, kGraphOwnedLargeSlotBytes, &taken) != cudaSuccess) {
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

cudaError_t stream_owned_slot_available(cudaStream_t stream, int device, bool& available) {
  std::pair<int, unsigned long long> key;
  const cudaError_t error = stream_key(stream, device, key);
  if (error != cudaSuccess) return error;
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  available = may_hold(t, key);
  return cudaSuccess;
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
