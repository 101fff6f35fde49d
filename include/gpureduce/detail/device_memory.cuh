// Device-side memory helpers shared by the rungs and the pipelines: cache-bypassing loads of
// values other blocks wrote, and a warp shuffle for any trivially copyable type.
#pragma once

#include <cstdint>
#include <type_traits>

namespace gpureduce::detail {

inline constexpr unsigned kFullWarpMask = 0xffffffffu;
inline constexpr int kWarpThreads = 32;

// Load a value that another block wrote during this kernel, bypassing L1 (which is not coherent
// across SMs): ld.global.cg, in words of the widest size the type allows.
template <class T>
__device__ __forceinline__ T load_cg(const T* p) {
  static_assert(std::is_trivially_copyable_v<T>, "partials must be trivially copyable");
  T value;
  if constexpr (sizeof(T) % 4 == 0 && alignof(T) >= 4) {
    auto* src = reinterpret_cast<const unsigned*>(p);
    auto* dst = reinterpret_cast<unsigned*>(&value);
#pragma unroll
    for (int i = 0; i < int(sizeof(T) / 4); ++i) dst[i] = __ldcg(src + i);
  } else if constexpr (sizeof(T) % 2 == 0 && alignof(T) >= 2) {
    auto* src = reinterpret_cast<const unsigned short*>(p);
    auto* dst = reinterpret_cast<unsigned short*>(&value);
#pragma unroll
    for (int i = 0; i < int(sizeof(T) / 2); ++i) dst[i] = __ldcg(src + i);
  } else {
    auto* src = reinterpret_cast<const volatile unsigned char*>(p);
    auto* dst = reinterpret_cast<unsigned char*>(&value);
#pragma unroll
    for (int i = 0; i < int(sizeof(T)); ++i) dst[i] = src[i];
  }
  return value;
}

// A warp shuffle of any trivially copyable type, moved as 32-bit words; `move` shuffles one word.
template <class T, class Move>
__device__ __forceinline__ T shuffle_words(T value, Move move) {
  static_assert(std::is_trivially_copyable_v<T>, "shuffled values must be trivially copyable");
  constexpr int kWords = int((sizeof(T) + 3) / 4);
  unsigned words[kWords] = {};
  memcpy(words, &value, sizeof(T));
#pragma unroll
  for (int i = 0; i < kWords; ++i) words[i] = move(words[i]);
  T result;
  memcpy(&result, words, sizeof(T));
  return result;
}

// __shfl_down_sync for any trivially copyable type.
template <class T>
__device__ __forceinline__ T shuffle_down(T value, int delta) {
  return shuffle_words(value, [delta](unsigned word) {
    return __shfl_down_sync(kFullWarpMask, word, delta);
  });
}

// __shfl_sync (one lane's value to every lane) for any trivially copyable type.
template <class T>
__device__ __forceinline__ T shuffle_from(T value, int source_lane) {
  return shuffle_words(value, [source_lane](unsigned word) {
    return __shfl_sync(kFullWarpMask, word, source_lane);
  });
}

// Reads block partials written by other blocks of the same launch.
template <class Accum>
struct PartialsReader {
  using value_type = Accum;
  static constexpr bool kContiguousInput = false;
  const Accum* data;
  __device__ __forceinline__ Accum operator()(std::int64_t i) const { return load_cg(data + i); }
  // Partials first, first + stride, ... (N of them, those below count) into out: all in flight
  // at once (fold_partials_in_warp).
  template <int N>
  __device__ __forceinline__ void read_strided(int first, int stride, int count,
                                               Accum (&out)[N]) const {
#pragma unroll
    for (int k = 0; k < N; ++k)
      if (first + k * stride < count) out[k] = load_cg(data + first + k * stride);
  }
};

// Whether a reader reads block partials (a plain array of Accum) rather than the input.
template <class Reader>
inline constexpr bool is_partials_reader_v = false;
template <class Accum>
inline constexpr bool is_partials_reader_v<PartialsReader<Accum>> = true;

}  // namespace gpureduce::detail
