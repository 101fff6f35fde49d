// What the library holds per CUDA context, for the tests that look at it directly.
#pragma once

#include "gpu/common.cuh"
#include "gpureduce/detail/context.hpp"
#include "gpureduce/detail/slot_pool.hpp"
#include "gpureduce/detail/stream_owned_state.hpp"

namespace gpureduce::testing {

inline unsigned long long current_context_id() {
  int device = 0;
  detail::ContextKey key;
  EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
  EXPECT_EQ(detail::current_context(device, key), cudaSuccess);
  return key.id;
}

// Chunks the library holds for the context with this id.
inline std::size_t chunks_of(unsigned long long context_id) {
  std::size_t count = 0;
  for (const auto& chunk : detail::held_chunks()) count += chunk.context_id == context_id;
  return count;
}

}  // namespace gpureduce::testing
