// ArgMin / ArgMax across a warp by an order key: one __reduce_min_sync on a key of each lane's
// value (a second, on the index, only where lanes tie), one ballot, then the winner's pair from
// its lane. It replaces five levels of shuffling {index, value} pairs (four words a level for a
// float) through ArgExtremumOp (NaN tests, two comparisons, the index's tie-break), about 75
// dependent instructions a tree against about 15 (docs/tuning.md, 'ArgMin and ArgMax').
//
// The same answer as any tree of ArgExtremumOp: that operator keeps the smallest (key, index),
// with the key below equal exactly where `<` ties two values (-0 and +0, any two NaNs) and NaN the
// smallest of all, so the result does not depend on the order of combining.
#pragma once

#include <cstdint>
#include <type_traits>

#include "../device_memory.cuh"
#include "../ops.cuh"
#include "../value_traits.cuh"

namespace gpureduce::detail {

// Value types with an ordered_key: arithmetic types and the 2-byte floats, up to 8 bytes.
template <class V>
inline constexpr bool kHasArgKey =
    (std::is_arithmetic_v<V> || is_half_like_v<V>) && sizeof(V) <= 8 && !std::is_same_v<V, bool>;

// Whether the warp tree of Op over Accum goes by key: ArgMin/ArgMax over {index, value} pairs.
template <class Op, class Accum, class = void>
inline constexpr bool kWarpArgByKey = false;
template <bool kMin, class Accum>
inline constexpr bool
    kWarpArgByKey<ArgExtremumOp<kMin>, Accum, std::void_t<decltype(std::declval<Accum>().value)>> =
        kHasArgKey<std::decay_t<decltype(std::declval<Accum>().value)>>;

// The key by which ArgMin (kMin) or ArgMax ranks a value: smaller is better, equal exactly where
// the op ties, and 0 for every NaN alone (a number's key is never 0: the best, -inf for ArgMin or
// +inf for ArgMax, keys 0x007fffff...).
template <bool kMin, class V>
__device__ __forceinline__ typename ordered_key<V>::type arg_rank_key(V v) {
  using traits = value_traits<V>;
  using Key = typename ordered_key<V>::type;
  if constexpr (traits::is_floating) {
    if (traits::is_nan(v)) return Key(0);
    const Key ascending = traits::widen(v) == 0 ? ordered_key<V>::sign_bit  // -0 ties +0
                                                : ordered_key<V>::encode(v);
    return kMin ? ascending : Key(~ascending);
  } else {
    const Key ascending = ordered_key<V>::encode(v);
    return kMin ? ascending : Key(~ascending);
  }
}

__device__ __forceinline__ std::uint32_t warp_min_key(std::uint32_t key) {
  return __reduce_min_sync(kFullWarpMask, key);
}
// 64 bits as two 32-bit reductions: the high words, then the low words of the lanes that hold
// the smallest high word (the others offer the largest low word, which cannot win wrongly).
__device__ __forceinline__ std::uint64_t warp_min_key(std::uint64_t key) {
  const std::uint32_t high = std::uint32_t(key >> 32);
  const std::uint32_t best_high = __reduce_min_sync(kFullWarpMask, high);
  const std::uint32_t low = high == best_high ? std::uint32_t(key) : ~0u;
  return (std::uint64_t(best_high) << 32) | __reduce_min_sync(kFullWarpMask, low);
}

// The ArgExtremumOp<kMin> total of the lanes whose `holds_value` is set (at least one; the others'
// pairs are ignored), on every lane.
template <bool kMin, class Pair>
__device__ __forceinline__ Pair warp_arg_extremum(const Pair& mine, bool holds_value) {
  using Key = typename ordered_key<std::decay_t<decltype(mine.value)>>::type;
  const int lane = int(threadIdx.x) & (kWarpThreads - 1);
  const Key key = holds_value ? arg_rank_key<kMin>(mine.value) : Key(~Key(0));
  const Key best = warp_min_key(key);
  unsigned tied = __ballot_sync(kFullWarpMask, holds_value && key == best);
  if (__popc(tied) > 1) {  // equal values in several lanes: the smallest index among them
    const bool candidate = (tied >> lane) & 1u;
    const std::uint64_t index = candidate ? std::uint64_t(mine.index) : ~std::uint64_t(0);
    const std::uint64_t first = warp_min_key(index);
    tied = __ballot_sync(kFullWarpMask, candidate && index == first);
  }
  const int source = tied == 0 ? 0 : __ffs(int(tied)) - 1;
  Pair result = mine;
  result.index = shuffle_from(mine.index, source);
  result.value = shuffle_from(mine.value, source);
  return result;
}

}  // namespace gpureduce::detail
