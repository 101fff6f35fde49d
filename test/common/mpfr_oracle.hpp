// The oracle for correctly rounded sums: MPFR (libmpfr, a well-kept library, not our arithmetic).
// mpfr_sum adds a chunk of inputs exactly at a precision that holds any such sum; the chunks' sums
// are added exactly at that precision too (threads take chunks for large inputs); then
// mpfr_get_flt / mpfr_get_d round once to nearest even, subnormals and overflow included. NaN,
// infinities and signed zeros follow MPFR, which follows IEEE 754 (the sum of only -0 is -0).
#pragma once

#include <mpfr.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <thread>
#include <type_traits>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace gpureduce::testing {

// Enough bits for any exact sum of up to 2^40 inputs: 277 + 40 (float family), 2098 + 40 (double).
template <class In>
constexpr mpfr_prec_t exact_precision() {
  return std::is_same_v<In, double> ? 2200 : 400;
}

template <class In>
double as_double_exactly(const In& x) {
  if constexpr (std::is_same_v<In, __half> || std::is_same_v<In, __nv_bfloat16>)
    return double(float(x));
  else
    return double(x);
}

// The exact sum of x[0..n) into `exact` (initialised by the caller at exact_precision).
template <class In>
void exact_sum_into(mpfr_t exact, const In* x, std::int64_t n) {
  constexpr std::int64_t kChunk = 1 << 16;
  // mpfr_t is an array type: a vector holds its element struct.
  std::vector<__mpfr_struct> terms(static_cast<std::size_t>(std::min(n, kChunk)));
  std::vector<mpfr_ptr> pointers(terms.size());
  for (std::size_t i = 0; i < terms.size(); ++i) {
    mpfr_init2(&terms[i], 64);
    pointers[i] = &terms[i];
  }
  mpfr_t chunk;
  mpfr_init2(chunk, exact_precision<In>());
  mpfr_set_zero(exact, -1);  // -0: the sum of only -0 inputs stays -0
  for (std::int64_t begin = 0; begin < n; begin += kChunk) {
    const std::int64_t count = std::min(kChunk, n - begin);
    for (std::int64_t i = 0; i < count; ++i)
      mpfr_set_d(&terms[std::size_t(i)], as_double_exactly(x[begin + i]), MPFR_RNDN);  // exact
    mpfr_sum(chunk, pointers.data(), static_cast<unsigned long>(count), MPFR_RNDN);  // exact
    mpfr_add(exact, exact, chunk, MPFR_RNDN);                                        // exact
  }
  mpfr_clear(chunk);
  for (auto& t : terms) mpfr_clear(&t);
}

template <class Out>
Out round_once(mpfr_t exact) {
  if constexpr (std::is_same_v<Out, float>) return mpfr_get_flt(exact, MPFR_RNDN);
  else return mpfr_get_d(exact, MPFR_RNDN);
}

// The exact sum of x[0..n), rounded once to nearest even into Out (float or double); +0 for n = 0.
template <class Out, class In>
Out correctly_rounded_sum(const In* x, std::int64_t n) {
  if (n == 0) return Out(0);
  const unsigned threads = n >= (std::int64_t(1) << 22) ? std::max(1u, std::thread::hardware_concurrency()) : 1u;
  const std::int64_t share = (n + threads - 1) / threads;
  std::vector<__mpfr_struct> parts(threads);
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) {
    mpfr_init2(&parts[t], exact_precision<In>());
    const std::int64_t begin = std::min(n, std::int64_t(t) * share);
    const std::int64_t end = std::min(n, begin + share);
    workers.emplace_back([&, t, begin, end] { exact_sum_into(&parts[t], x + begin, end - begin); });
  }
  for (auto& w : workers) w.join();
  mpfr_t total;
  mpfr_init2(total, exact_precision<In>());
  mpfr_set_zero(total, -1);
  for (auto& p : parts) {
    mpfr_add(total, total, &p, MPFR_RNDN);
    mpfr_clear(&p);
  }
  const Out out = round_once<Out>(total);
  mpfr_clear(total);
  return out;
}

}  // namespace gpureduce::testing
