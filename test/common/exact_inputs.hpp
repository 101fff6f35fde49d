// Inputs for the correctly rounded sums, generated on the host from a seed: the shapes that break
// naive or merely reproducible summation. Shared by the host model tests and the GPU tests.
#pragma once

#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace gpureduce::testing {

enum class ExactShape {
  everyday,         // uniform in [-1, 1): what the speed targets are measured on
  every_scale,      // random finite bit patterns: every sign and exponent, subnormals included
  cancellation,     // pairs x, -x of every scale, shuffled, plus a few tiny terms
  ties,             // sums exactly halfway between two neighbours, both ways, under noise pairs
  near_overflow,    // MAX + MAX - MAX, sums just below, at and above the overflow threshold
  negative_zeros,   // only -0 (the sum is -0)
  signed_zeros,     // -0 and +0 (the sum is +0)
  specials,         // NaN or infinities placed anywhere among finite values
  ill_conditioned,  // Ogita, Rump and Oishi's generator: condition numbers 1e10 .. 1e30
  subnormals,       // the smallest magnitudes
  straddling,       // magnitudes across a power-of-16 exponent edge (float bins 7 and 8), with
                    // runs of signed zeros and a rare third magnitude: batches in one bin, in two,
                    // and in more
  drifting,         // runs of 4096 at one magnitude, each run 2^-6 .. 2^6 times the last, a quarter
                    // of them signed zeros: a thread's window must follow its data
  wide,             // sign x [1, 2) x 2^k, k uniform in [-20, 20] ([-7, 7] for halves): each
                    // batch spans more fields than one double holds (the deep window's bands) and
                    // each thread more than its window (the general body's bins)
};
inline const char* to_string(ExactShape s) {
  static const char* const names[] = {"everyday", "every_scale", "cancellation", "ties",
                                      "near_overflow", "negative_zeros", "signed_zeros",
                                      "specials", "ill_conditioned", "subnormals",
                                      "straddling", "drifting", "wide"};
  return names[int(s)];
}
inline constexpr ExactShape kAllExactShapes[] = {
    ExactShape::everyday, ExactShape::every_scale, ExactShape::cancellation, ExactShape::ties,
    ExactShape::near_overflow, ExactShape::negative_zeros, ExactShape::signed_zeros,
    ExactShape::specials, ExactShape::ill_conditioned, ExactShape::subnormals,
    ExactShape::straddling, ExactShape::drifting, ExactShape::wide};

// The bit-level view of each input type.
template <class T> struct Bits;
template <> struct Bits<float> { using U = std::uint32_t; static constexpr int kMantissa = 23, kExponent = 8; };
template <> struct Bits<double> { using U = std::uint64_t; static constexpr int kMantissa = 52, kExponent = 11; };
template <> struct Bits<__half> { using U = std::uint16_t; static constexpr int kMantissa = 10, kExponent = 5; };
template <> struct Bits<__nv_bfloat16> { using U = std::uint16_t; static constexpr int kMantissa = 7, kExponent = 8; };

template <class T>
T from_bits(typename Bits<T>::U u) {
  T t;
  std::memcpy(static_cast<void*>(&t), &u, sizeof(T));
  return t;
}
template <class T>
typename Bits<T>::U to_bits(const T& t) {
  typename Bits<T>::U u;
  std::memcpy(&u, static_cast<const void*>(&t), sizeof(T));
  return u;
}
template <class T>
double to_double(const T& t) {
  if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>) return double(float(t));
  else return double(t);
}
// x rounded to T (exact for values T holds).
template <class T>
T from_double(double x) {
  if constexpr (std::is_same_v<T, __half>) return __float2half_rn(float(x));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __float2bfloat16_rn(float(x));
  else return T(x);
}
template <class T>
T negate(const T& t) {
  return from_bits<T>(to_bits(t) ^ (typename Bits<T>::U(1) << (sizeof(T) * 8 - 1)));
}
template <class T>
T max_finite() {
  using U = typename Bits<T>::U;
  const U exponent_all_but_top = U((U(1) << Bits<T>::kExponent) - 2) << Bits<T>::kMantissa;
  return from_bits<T>(exponent_all_but_top | U((U(1) << Bits<T>::kMantissa) - 1));
}

template <class T>
class ExactInputs {
 public:
  using U = typename Bits<T>::U;
  explicit ExactInputs(std::uint64_t seed) : rng_(seed) {}

  std::vector<T> make(ExactShape shape, std::int64_t n) {
    std::vector<T> x(static_cast<std::size_t>(n));
    if (n == 0) return x;
    switch (shape) {
      case ExactShape::everyday:
        for (auto& v : x) v = from_double<T>(uniform(-1.0, 1.0));
        break;
      case ExactShape::every_scale:
        for (auto& v : x) v = random_finite();
        break;
      case ExactShape::cancellation: cancellation(x); break;
      case ExactShape::ties: ties(x); break;
      case ExactShape::near_overflow: near_overflow(x); break;
      case ExactShape::negative_zeros:
        for (auto& v : x) v = negate(from_double<T>(0.0));
        break;
      case ExactShape::signed_zeros:
        for (auto& v : x) v = bit() ? negate(from_double<T>(0.0)) : from_double<T>(0.0);
        x[index(n)] = from_double<T>(0.0);  // at least one +0
        break;
      case ExactShape::specials: specials(x); break;
      case ExactShape::ill_conditioned: ill_conditioned(x); break;
      case ExactShape::subnormals:
        for (auto& v : x) v = from_bits<T>(U(rng_() % (U(1) << Bits<T>::kMantissa)) | sign_bit_random());
        break;
      case ExactShape::straddling: straddling(x); break;
      case ExactShape::drifting: drifting(x); break;
      case ExactShape::wide: {
        const int limit = std::is_same_v<T, __half> ? 7 : 20;  // normal in every T
        for (auto& v : x)
          v = from_double<T>(std::ldexp(uniform(1.0, 2.0), int(rng_() % (2 * limit + 1)) - limit) *
                             (bit() ? -1 : 1));
        break;
      }
    }
    return x;
  }

 private:
  std::mt19937_64 rng_;

  // Stretches of 64 inputs: all in [1, 2) (float bin 7; 6 stretches in 10), both sides of 2 ([1,
  // 4): bins 7 and 8; 3 in 10), or those with one input in 2000 at 2^-20 (bin 6; 1 in 10), each
  // with a third of its inputs signed zeros or none. A thread's batch takes four 16-byte vectors
  // from stretches far apart, so some batches fall in one bin, many in two, some in more.
  void straddling(std::vector<T>& x) {
    for (std::size_t start = 0; start < x.size(); start += 64) {
      const unsigned draw = unsigned(rng_() % 10), zeros = unsigned(rng_() % 2);
      const unsigned kind = draw < 6 ? 0 : draw < 9 ? 1 : 2;
      for (std::size_t i = start; i < x.size() && i < start + 64; ++i) {
        double v = kind == 0 ? uniform(1.0, 2.0) : uniform(1.0, 4.0);
        if (kind == 2 && rng_() % 2000 == 0) v = std::ldexp(uniform(1.0, 2.0), -20);
        if (bit()) v = -v;
        x[i] = zeros && rng_() % 3 == 0 ? (bit() ? negate(from_double<T>(0.0)) : from_double<T>(0.0))
                                        : from_double<T>(v);
      }
    }
  }

  void drifting(std::vector<T>& x) {
    const int limit = std::is_same_v<T, __half> ? 12 : 100;  // exponents that stay normal in T
    int scale = 0;
    for (std::size_t start = 0; start < x.size(); start += 4096) {
      scale = std::clamp(scale + int(rng_() % 13) - 6, -limit, limit);
      for (std::size_t i = start; i < x.size() && i < start + 4096; ++i) {
        const double v = std::ldexp(uniform(1.0, 2.0), scale) * (bit() ? -1 : 1);
        x[i] = rng_() % 4 == 0 ? (bit() ? negate(from_double<T>(0.0)) : from_double<T>(0.0))
                               : from_double<T>(v);
      }
    }
  }

  double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng_); }
  bool bit() { return rng_() & 1u; }
  std::size_t index(std::int64_t n) { return std::size_t(rng_() % std::uint64_t(n)); }
  U sign_bit_random() { return bit() ? U(U(1) << (sizeof(T) * 8 - 1)) : U(0); }
  T random_finite() {
    for (;;) {
      const U u = U(rng_());
      const U exponent = U(u >> Bits<T>::kMantissa) & U((U(1) << Bits<T>::kExponent) - 1);
      if (exponent != U((U(1) << Bits<T>::kExponent) - 1)) return from_bits<T>(u);
    }
  }
  // A random value of magnitude around 2^e (e within T's normal range).
  T around(int e) {
    return from_double<T>(std::ldexp(uniform(1.0, 2.0), e) * (bit() ? -1.0 : 1.0));
  }
  int max_exponent() const { return (1 << (Bits<T>::kExponent - 1)) - 1; }
  int min_exponent() const { return 2 - (1 << (Bits<T>::kExponent - 1)); }

  void cancellation(std::vector<T>& x) {
    const std::size_t n = x.size();
    std::size_t i = 0;
    for (; i + 1 < n; i += 2) {
      x[i] = random_finite();
      x[i + 1] = negate(x[i]);
    }
    if (i < n) x[i] = random_finite();
    for (int k = 0; k < 3 && n > 2; ++k)  // a few tiny terms survive the cancellation
      x[index(std::int64_t(n))] = from_bits<T>(U(1 + rng_() % 1000) | sign_bit_random());
    std::shuffle(x.begin(), x.end(), rng_);
  }

  // a + half an ulp of a (or minus), whose sum is a tie: round-to-even decides. Noise pairs
  // (y, -y) around them, then shuffled. Values within range of every type in the family.
  void ties(std::vector<T>& x) {
    const std::size_t n = x.size();
    const int e = int(rng_() % 20) - 10;
    const T a = around(e);
    const double ulp = std::ldexp(1.0, e - Bits<T>::kMantissa);  // a's last place
    x[0] = a;
    if (n > 1) x[1] = from_double<T>((bit() ? 0.5 : -0.5) * ulp * (bit() ? 1.0 : 3.0));
    for (std::size_t i = 2; i + 1 < n; i += 2) {
      x[i] = around(e - int(rng_() % 8));
      x[i + 1] = negate(x[i]);
    }
    if (n > 2 && n % 2 == 1) x[n - 1] = from_double<T>(0.0);
    std::shuffle(x.begin(), x.end(), rng_);
  }

  void near_overflow(std::vector<T>& x) {
    const T max = max_finite<T>();
    const double ulp_of_max = std::ldexp(1.0, max_exponent() - Bits<T>::kMantissa);
    const int variant = int(rng_() % 4);
    for (auto& v : x) v = from_double<T>(0.0);
    // MAX + MAX - MAX (= MAX); MAX + half an ulp (a tie: MAX is odd, so it rounds up, to inf);
    // MAX + a quarter ulp (stays MAX); MAX + MAX (inf).
    x[0] = max;
    if (x.size() > 1) x[1] = variant == 0 || variant == 3 ? max : from_double<T>(variant == 1 ? ulp_of_max / 2 : ulp_of_max / 4);
    if (x.size() > 2 && variant == 0) x[2] = negate(max);
    std::shuffle(x.begin(), x.end(), rng_);
  }

  void specials(std::vector<T>& x) {
    for (auto& v : x) v = random_finite();
    const T inf = from_bits<T>(U(U((U(1) << Bits<T>::kExponent) - 1) << Bits<T>::kMantissa));
    const T nan = from_bits<T>(U(to_bits(inf) | U(1)));
    const int variant = int(rng_() % 4);  // NaN, +inf only, -inf only, both infinities
    const std::int64_t n = std::int64_t(x.size());
    if (variant == 0) x[index(n)] = nan;
    if (variant == 1 || variant == 3) x[index(n)] = inf;
    if (variant == 2 || variant == 3) x[index(n)] = negate(inf);
  }

  // Ogita, Rump and Oishi (SIAM J. Sci. Comput. 26(6), 2005, Algorithm 6.1, GenDot, for sums):
  // the first half spreads random values over exponents 0 .. b, the second half walks the exact
  // running sum (MPFR) down, each term cancelling most of it, so the result is small against
  // sum |x|: condition numbers about 2^b, with b for 1e10 .. 1e30 (within T's range).
  void ill_conditioned(std::vector<T>& x) {
    const std::size_t n = x.size();
    const double log2_condition = std::log2(std::pow(10.0, 10 + int(rng_() % 21)));
    const int b = std::min(int(log2_condition), max_exponent() - 2);
    mpfr_t sum;
    mpfr_init2(sum, 2300);
    mpfr_set_zero(sum, 1);
    const std::size_t half = n / 2;
    for (std::size_t i = 0; i < n; ++i) {
      double target;
      if (i < half || n < 2) {
        target = std::ldexp(uniform(-1.0, 1.0), int(rng_() % unsigned(b + 1)));
      } else {  // exponents from b/2 down to 0 over the second half
        const int e = int(std::lround(double(b) / 2 * double(n - 1 - i) / double(n - half)));
        target = std::ldexp(uniform(-1.0, 1.0), e) - mpfr_get_d(sum, MPFR_RNDN);
      }
      x[i] = from_double<T>(target);
      mpfr_add_d(sum, sum, to_double(x[i]), MPFR_RNDN);  // exact at 2300 bits
    }
    mpfr_clear(sum);
  }
};

// Inputs of n = 2^log2_n items that need every bit of a double's window at span W and one bit
// more at W + 1 (the one-block and the segmented warp windows, test_correctly_rounded.cu and
// test_segmented_exact.cu).
// Float family: n - 3 large terms, one power of two and two terms of the lowest field summing to
// one unit, so that the exact sum lies one unit above a tie of the float result's rounding; a
// double that drops that unit (the sum takes 54 bits at W + 1) rounds the tie to even, down.
template <class In>
std::vector<In> one_unit_above_a_tie(int log2_n, int span, int small_at, bool negative) {
  constexpr int p = Bits<In>::kMantissa + 1;
  const std::int64_t n = std::int64_t(1) << log2_n, large_count = n - 3;
  // The largest significand whose n - 3 copies leave the bits below the result's last kept one
  // (24 bits of float) zero, the kept last bit too: their sum is an even float.
  std::int64_t m = (std::int64_t(1) << p) - 1, bits = 0;
  for (;; --m) {
    bits = 64 - __builtin_clzll(std::uint64_t(large_count * m));
    const int zeros = bits + 1 > 24 ? bits + 1 - 24 : 0;
    if ((large_count * m) % (std::int64_t(1) << zeros) == 0) break;
  }
  const int lowest_field = 132 - span;  // the large terms near 2^5
  const auto units = [&](double count) { return std::ldexp(count, lowest_field - 127 - (p - 1)); };
  const int half_bit = int(bits) + span - 24 - 1;  // the rounding's half, in units
  const double sign = negative ? -1.0 : 1.0;
  std::vector<In> x(std::size_t(n), from_double<In>(sign * units(std::ldexp(double(m), span))));
  x[std::size_t(small_at)] = from_double<In>(sign * units((1 << (p - 1)) + 1));
  x[std::size_t((small_at + 1) % n)] = from_double<In>(-sign * units(1 << (p - 1)));
  x[std::size_t((small_at + 2) % n)] = from_double<In>(sign * units(std::ldexp(1.0, half_bit)));
  return x;
}

}  // namespace gpureduce::testing
