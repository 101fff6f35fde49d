// Per-type facts the engine needs on host and device: NaN test, the values an empty Min/Max
// writes, and an order-preserving map to unsigned integers (for the atomic pipeline's Min/Max).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <cuda/std/bit>
#include <cuda/std/limits>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace gpureduce::detail {

template <class T>
struct value_traits {
  static constexpr bool is_floating = std::is_floating_point_v<T>;
  __host__ __device__ static bool is_nan(T x) {
    if constexpr (is_floating) return x != x;
    else return false;
  }
  __host__ __device__ static T max() { return ::cuda::std::numeric_limits<T>::max(); }
  __host__ __device__ static T lowest() { return ::cuda::std::numeric_limits<T>::lowest(); }
  // The NaN a Min/Max result carries when the atomic pipeline cannot keep the input's: for float
  // the canonical NaN 0x7fffffff that PTX min.NaN/max.NaN return (ExtremumOp), so every pipeline
  // gives the same bits; quiet_NaN() otherwise.
  __host__ __device__ static T quiet_nan() {
    if constexpr (std::is_same_v<T, float>) return ::cuda::std::bit_cast<float>(0x7fffffffu);
    else return ::cuda::std::numeric_limits<T>::quiet_NaN();
  }
  // Widened value used for comparisons (exact for every type here).
  __host__ __device__ static T widen(T x) { return x; }
};

// __half and __nv_bfloat16: compared through float, which holds every value exactly. Their
// quiet_nan is the canonical 0x7fff that PTX min.NaN/max.NaN .f16/.bf16 return (ExtremumOp), as
// float's, so the atomic pipeline's NaN has the other pipelines' bits.
template <class Half, unsigned short MaxBits, unsigned short LowestBits, unsigned short NanBits>
struct half_like_traits {
  static constexpr bool is_floating = true;
  __host__ __device__ static float widen(Half x) { return static_cast<float>(x); }
  __host__ __device__ static bool is_nan(Half x) {
    float f = widen(x);
    return f != f;
  }
  __host__ __device__ static Half from_bits(unsigned short bits) {
    if constexpr (std::is_same_v<Half, __half>) {
      __half_raw raw;
      raw.x = bits;
      return Half(raw);
    } else {
      __nv_bfloat16_raw raw;
      raw.x = bits;
      return Half(raw);
    }
  }
  __host__ __device__ static Half max() { return from_bits(MaxBits); }
  __host__ __device__ static Half lowest() { return from_bits(LowestBits); }
  __host__ __device__ static Half quiet_nan() { return from_bits(NanBits); }
};
template <>
struct value_traits<__half> : half_like_traits<__half, 0x7BFF, 0xFBFF, 0x7FFF> {};
template <>
struct value_traits<__nv_bfloat16> : half_like_traits<__nv_bfloat16, 0x7F7F, 0xFF7F, 0x7FFF> {};

template <class T>
inline constexpr bool is_half_like_v =
    std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

// An order-preserving bijection to unsigned integers: a < b  <=>  key(a) < key(b) (for floats:
// -0 < +0, NaN excluded). 2-byte floats are keyed through float, which holds them exactly.
template <class T>
struct ordered_key {
  using wide = std::conditional_t<is_half_like_v<T>, float, T>;
  using type = std::conditional_t<sizeof(wide) <= 4, std::uint32_t, std::uint64_t>;
  static constexpr type sign_bit = type(1) << (sizeof(type) * 8 - 1);

  __host__ __device__ static type encode(T x) {
    if constexpr (is_half_like_v<T> || std::is_floating_point_v<T>) {
      wide w = static_cast<wide>(x);
      type bits;
      std::memcpy(&bits, &w, sizeof(bits));
      return (bits & sign_bit) ? type(~bits) : type(bits | sign_bit);
    } else if constexpr (std::is_signed_v<T>) {
      return type(static_cast<std::make_unsigned_t<T>>(x)) ^ (type(1) << (sizeof(T) * 8 - 1));
    } else {
      return type(x);
    }
  }
  __host__ __device__ static T decode(type key) {
    if constexpr (is_half_like_v<T> || std::is_floating_point_v<T>) {
      type bits = (key & sign_bit) ? type(key & ~sign_bit) : type(~key);
      wide w;
      std::memcpy(&w, &bits, sizeof(w));
      return T(w);
    } else if constexpr (std::is_signed_v<T>) {
      auto u = static_cast<std::make_unsigned_t<T>>(key ^ (type(1) << (sizeof(T) * 8 - 1)));
      return static_cast<T>(u);
    } else {
      return static_cast<T>(key);
    }
  }
};

}  // namespace gpureduce::detail
