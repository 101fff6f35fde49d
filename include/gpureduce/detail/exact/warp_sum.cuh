// The warp's total of 64- or 128-bit integers (correctly rounded sums: the one-block, cluster
// and grid windows' sums, the float family's bins at a thread's end).
#pragma once

#include <type_traits>

namespace gpureduce::detail::exact {

// The warp's total, in every lane, of 64- or 128-bit integers whose total the caller bounds
// within that width: each 16-bit digit of the two's complement bits summed by the warp's integer
// reduction (a REDUX each, independent of one another; 32 digits stay below 2^21), the sums put
// back together modulo 2^bits, where the total is exact. (A butterfly of shuffles took five
// dependent rounds, each four 32-bit shuffles and a carried add for 128 bits: docs/tuning.md,
// 'Window finish'.)
template <class Integer>
__device__ __forceinline__ Integer warp_sum(Integer v) {
  static_assert(sizeof(Integer) == 8 || sizeof(Integer) == 16, "a 64- or 128-bit integer");
  using Unsigned = std::conditional_t<sizeof(Integer) == 16, unsigned __int128, unsigned long long>;
  const auto bits = static_cast<Unsigned>(v);
  Unsigned total = 0;
#pragma unroll
  for (int k = 0; k < int(sizeof(Integer)) / 2; ++k) {
    const unsigned digit = unsigned(bits >> (16 * k)) & 0xffffu;
    total += static_cast<Unsigned>(__reduce_add_sync(0xffffffffu, digit)) << (16 * k);
  }
  return static_cast<Integer>(total);
}

}  // namespace gpureduce::detail::exact
