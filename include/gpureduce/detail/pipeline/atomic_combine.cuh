// The atomic pipeline's combine step (seed 002: block partials meet in global memory through
// atomics). The accumulator starts as zero bytes, so every supported operator needs an encoding
// in which zero is its identity: plain values for sums; for Min/Max an order-preserving key
// (inverted for Min) combined with atomicMax, with NaN mapped to the largest key so it wins.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda/functional>

#include "../ops.cuh"
#include "../value_traits.cuh"

namespace gpureduce::detail {

template <class Op, class Accum, class = void>
struct AtomicCombiner {
  static constexpr bool supported = false;
};

template <class Accum>
inline constexpr bool has_native_atomic_add_v =
    std::is_same_v<Accum, int> || std::is_same_v<Accum, unsigned> || std::is_same_v<Accum, float> ||
    std::is_same_v<Accum, double> ||
    (std::is_integral_v<Accum> && sizeof(Accum) == 8);

template <class Op, class Accum>
struct AtomicCombiner<Op, Accum, std::enable_if_t<is_sum_op_v<Op> && has_native_atomic_add_v<Accum>>> {
  static constexpr bool supported = true;
  __device__ static void combine(unsigned long long* slot, Accum value) {
    if constexpr (std::is_integral_v<Accum> && sizeof(Accum) == 8)
      atomicAdd(slot, static_cast<unsigned long long>(value));  // two's complement: same bits
    else
      atomicAdd(reinterpret_cast<Accum*>(slot), value);
  }
  __device__ static Accum read(const unsigned long long* slot) {
    return load_cg(reinterpret_cast<const Accum*>(slot));
  }
};

// The library's Min/Max, and CCCL's cuda::minimum / cuda::maximum (TransformReduce and Reduce
// callers): the blocks' partials meet by order-preserving keys, which give what any order of
// cuda::minimum would (integers; floats but for NaN and a tie of -0 with +0, where cuda::minimum's
// own answer depends on the order of evaluation).
template <class Op>
inline constexpr bool is_min_like_v = std::is_same_v<Op, MinOp>;
template <class T>
inline constexpr bool is_min_like_v<::cuda::minimum<T>> = true;
template <class Op>
inline constexpr bool is_max_like_v = std::is_same_v<Op, MaxOp>;
template <class T>
inline constexpr bool is_max_like_v<::cuda::maximum<T>> = true;

template <class Op, class Accum>
inline constexpr bool is_min_or_max_v =
    (is_min_like_v<Op> || is_max_like_v<Op>) &&
    (std::is_arithmetic_v<Accum> || is_half_like_v<Accum>) && sizeof(Accum) <= 8;

template <class Op, class Accum>
struct AtomicCombiner<Op, Accum, std::enable_if_t<is_min_or_max_v<Op, Accum>>> {
  static constexpr bool supported = true;
  using Key = typename ordered_key<Accum>::type;
  using Word = std::conditional_t<sizeof(Key) == 4, unsigned int, unsigned long long>;
  static constexpr bool kIsMin = is_min_like_v<Op>;
  static constexpr Key kNanKey = Key(~Key(0));

  __device__ static Key encode(Accum value) {
    if (value_traits<Accum>::is_nan(value)) return kNanKey;
    const Key key = ordered_key<Accum>::encode(value);
    return kIsMin ? Key(~key) : key;
  }
  __device__ static void combine(unsigned long long* slot, Accum value) {
    atomicMax(reinterpret_cast<Word*>(slot), static_cast<Word>(encode(value)));
  }
  __device__ static Accum read(const unsigned long long* slot) {
    const Key key = load_cg(reinterpret_cast<const Key*>(slot));
    if (value_traits<Accum>::is_floating && key == kNanKey) return value_traits<Accum>::quiet_nan();
    return ordered_key<Accum>::decode(kIsMin ? Key(~key) : key);
  }
};

}  // namespace gpureduce::detail
