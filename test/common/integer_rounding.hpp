// Cases for round_integer (detail/exact/round.hpp), the windows' last step, and MPFR's answer for
// each: signed integers of 1 to 64 or 128 bits (the most negative included) times 2^e, whose
// results run from below the least subnormal to past the largest finite value, with exact ties
// (and one unit either side) where the integer is long enough to hold one. Host and GPU tests
// share them.
#pragma once

#include <mpfr.h>

#include <cstdint>
#include <random>
#include <type_traits>

#include "common/mpfr_oracle.hpp"
#include "gpureduce/detail/exact/round.hpp"

namespace gpureduce::testing {

struct IntegerCase {
  __int128 x;  // within a signed integer of `width` bits
  int unit_exponent;
};

template <class Out>
IntegerCase random_integer_case(std::mt19937_64& rng, int trial, int width) {
  constexpr int precision = std::is_same_v<Out, float> ? 24 : 53;
  constexpr int lowest = std::is_same_v<Out, float> ? -152 : -1077;  // msb + e of the results
  constexpr int highest = std::is_same_v<Out, float> ? 130 : 1026;
  const int bits = 1 + int(rng() % std::uint64_t(width - 1));
  unsigned __int128 m = (static_cast<unsigned __int128>(rng()) << 64) | rng();
  m = (m >> (128 - bits)) | (static_cast<unsigned __int128>(1) << (bits - 1));
  if (trial % 5 == 0 && bits > precision + 1) {  // a tie: the bits below the kept ones are 100...0
    const int below = bits - precision;
    m = (m >> below) << below | static_cast<unsigned __int128>(1) << (below - 1);
    m += (trial / 5) % 3 == 0 ? 0 : (trial / 5) % 3 == 1 ? 1 : -1;
  }
  __int128 x = static_cast<__int128>(m);
  if (rng() % 2 == 0) x = -x;
  const unsigned __int128 top = static_cast<unsigned __int128>(1) << (width - 1);
  if (trial % 101 == 0) x = -static_cast<__int128>(top - 1) - 1;  // -2^(width - 1)
  if (trial % 103 == 0) x = static_cast<__int128>(top - 1);       // 2^(width - 1) - 1
  const unsigned __int128 magnitude =
      x < 0 ? 0 - static_cast<unsigned __int128>(x) : static_cast<unsigned __int128>(x);
  int msb = 127;
  while (((magnitude >> msb) & 1u) == 0) --msb;
  const int target = lowest + int(rng() % std::uint64_t(highest - lowest + 1));
  return {x, target - msb};
}

// MPFR's x * 2^e rounded once to nearest, ties to even.
template <class Out>
Out mpfr_rounded_integer(const IntegerCase& c) {
  const bool negative = c.x < 0;
  const unsigned __int128 magnitude =
      negative ? 0 - static_cast<unsigned __int128>(c.x) : static_cast<unsigned __int128>(c.x);
  mpfr_t exact, low;
  mpfr_init2(exact, 160);
  mpfr_init2(low, 64);
  mpfr_set_ui_2exp(exact, static_cast<unsigned long>(magnitude >> 64), c.unit_exponent + 64, MPFR_RNDN);
  mpfr_set_ui_2exp(low, static_cast<unsigned long>(magnitude), c.unit_exponent, MPFR_RNDN);
  mpfr_add(exact, exact, low, MPFR_RNDN);  // exact: 128 bits in 160
  if (negative) mpfr_neg(exact, exact, MPFR_RNDN);
  const Out out = round_once<Out>(exact);
  mpfr_clear(low);
  mpfr_clear(exact);
  return out;
}

// round_integer at the case's width: as a 64-bit integer where it is one.
template <class Out>
GPUREDUCE_HD Out rounded_at_width(const IntegerCase& c, int width) {
  return width == 64 ? detail::exact::round_integer<Out>(static_cast<long long>(c.x), c.unit_exponent)
                     : detail::exact::round_integer<Out>(c.x, c.unit_exponent);
}

}  // namespace gpureduce::testing
