// What the exact engine's threads sum for correctly rounded BLAS level-1 calls (blas1_sum.cuh):
// shares whose items are terms computed from the inputs as they are loaded, |x_i|, x_i^2 or
// x_i y_i, each exact. |x| is x with its sign cleared. A square or product of two float-family
// numbers (float, half, bfloat16) is exact in double: at most 24 + 24 significant bits, exponents
// from 2^-298 to 2^256, inside double's normal range. So SumSquares and Dot of the float family
// are sums of exact doubles (the double engine, rounded once to float), and SumAbs is a sum of the
// input type itself. A product of doubles is exactly hi + lo (TwoProduct: hi = x y rounded, lo =
// fma(x, y, -hi)) wherever 2^-968 <= |hi| < inf; the rest (products that underflow or overflow
// double) go into the block's state as their 106-bit integers: the products' family
// (exact_state.hpp), whose unit is 2^-2148.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "../block/vectorized.cuh"
#include "blas1_exact.hpp"
#include "exact_args.cuh"
#include "thread_inputs.cuh"
#include "thread_sum.cuh"

namespace gpureduce::detail::exact {

// The type a term is summed as: the input's own for |x|, double for squares and products of the
// float family, exact products (DoubleProducts) for those of doubles.
template <Blas1Term kTerm, class T>
using term_t = std::conditional_t<kTerm == Blas1Term::magnitude, T,
                                  std::conditional_t<std::is_same_v<T, double>, DoubleProducts, double>>;

template <class T>
__device__ __forceinline__ T magnitude(const T& x) {
  if constexpr (sizeof(T) == 2) {
    std::uint16_t bits;
    memcpy(&bits, &x, 2);
    bits &= 0x7fffu;
    T out;
    memcpy(&out, &bits, 2);
    return out;
  } else if constexpr (std::is_same_v<T, float>) {
    return fabsf(x);  // the sign bit cleared: -0 becomes +0, a NaN stays a NaN
  } else {
    return fabs(x);
  }
}
// Exact: a float-family value in double, and the product of two of them there.
template <class T>
__device__ __forceinline__ double exact_product(const T& a, const T& b) {
  return double(widen(a)) * double(widen(b));
}

// Between sum_inputs and a thread of the summed type: each loaded input becomes its term. The
// double engine's batches stay at most 8 long (a batch of 16 or 32 float-family terms would hold
// twice the doubles automatic's 64 registers allow).
template <Blas1Term kTerm, class T, class Thread>
struct TermFeed {
  Thread& thread;
  __device__ __forceinline__ term_t<kTerm, T> term(const T& x) const {
    if constexpr (kTerm == Blas1Term::magnitude) return magnitude(x);
    else return exact_product(x, x);
  }
  __device__ __forceinline__ void add(const T& x) { thread.add(term(x)); }
  template <int N>
  __device__ __forceinline__ void add_batch(const T (&items)[N]) {
    constexpr int kPart = kTerm == Blas1Term::magnitude || N < 8 ? N : 8;
#pragma unroll
    for (int g = 0; g < N; g += kPart) {
      term_t<kTerm, T> terms[kPart];
#pragma unroll
      for (int j = 0; j < kPart; ++j) terms[j] = term(items[g + j]);
      thread.add_batch(terms);
    }
  }
  template <int kBatch>
  __device__ __forceinline__ void counted(int added) {
    thread.template counted<kBatch>(added);
  }
};

// A block's share of |x_i| or x_i^2: the inputs' share (exact_args.cuh), each item fed as its
// term.
template <Blas1Term kTerm, class T>
struct TermShare : InputShare<T> {
  using Item = term_t<kTerm, T>;
  template <bool kVector, class Thread>
  __device__ __forceinline__ void sum_into(Thread& thread) const {
    TermFeed<kTerm, T, Thread> feed{thread};
    InputShare<T>::template sum_into<kVector>(feed);
  }
};

// Products of the float family into a thread of doubles: each exact, in batches of at most 8.
template <class T, class Thread>
struct FloatProductFeed {
  Thread& thread;
  __device__ __forceinline__ void add(const T& a, const T& b) { thread.add(exact_product(a, b)); }
  template <int K>
  __device__ __forceinline__ void add_products(const T (&a)[K], const T (&b)[K]) {
    constexpr int kPart = K < 8 ? K : 8;
#pragma unroll
    for (int g = 0; g < K; g += kPart) {
      double terms[kPart];
#pragma unroll
      for (int j = 0; j < kPart; ++j) terms[j] = exact_product(a[g + j], b[g + j]);
      thread.add_batch(terms);
    }
  }
  template <int kBatch>
  __device__ __forceinline__ void counted(int added) {
    thread.template counted<kBatch>(added);
  }
};

// Products of doubles into a thread of the products' family: hi into the thread (its window:
// products of like magnitude lie close), lo into the thread's second expansion (`low`: the lo
// terms lie some 53 binades lower, where in one window they would close it at every batch, and
// hi and lo together carry more bits than one two-word expansion holds; the block combines the
// two apart); a product that is no such pair (it underflows or overflows double) exactly into
// the state. A zero, infinite or NaN factor leaves hi = a b, IEEE's answer, and lo = -0, the
// identity.
template <class Thread>
struct DoubleProductFeed {
  Thread& thread;
  __device__ __forceinline__ void split(double a, double b, double& hi, double& lo) {
    hi = a * b;
    const double magnitude = fabs(hi);
    if (magnitude >= 0x1p-968 && magnitude < INFINITY) {  // hi + lo is a b, exactly
      lo = fma(a, b, -hi);
    } else if (a == 0 || b == 0 || !isfinite(a) || !isfinite(b)) {
      lo = -0.0;
    } else {
      atomic_add_exact_product(*thread.sink.block, a, b);
      thread.seen |= 1u << kNotNegativeZero;
      hi = lo = -0.0;
    }
  }
  __device__ __forceinline__ void add(double a, double b) {
    double hi, lo;
    split(a, b, hi, lo);
    thread.add(hi);
    thread.low.add(lo);
  }
  // In parts of 4: 8 products' hi and lo at once spilled automatic's 64 registers.
  template <int K>
  __device__ __forceinline__ void add_products(const double (&a)[K], const double (&b)[K]) {
    constexpr int kPart = K < 4 ? K : 4;
#pragma unroll
    for (int g = 0; g < K; g += kPart) {
      double hi[kPart], lo[kPart];
#pragma unroll
      for (int j = 0; j < kPart; ++j) split(a[g + j], b[g + j], hi[j], lo[j]);
      thread.add_batch(hi);
      thread.low.add_batch(lo);
    }
  }
  template <int kBatch>
  __device__ __forceinline__ void counted(int added) {
    thread.template counted<kBatch>(added);
    thread.low.template counted<kBatch>(added);
  }
};

template <class T, class Thread>
using ProductFeed =
    std::conditional_t<std::is_same_v<T, double>, DoubleProductFeed<Thread>, FloatProductFeed<T, Thread>>;

// A block's share of x_i y_i (kSquare: x_i x_i, y unread), x in the vectorized rung's order:
// 16-byte vectors of x and, where y has x's alignment, of y; else y's items one by one (still all
// in flight). The bytes the sum keeps in flight: its four vectors, two of x and two of y.
template <class T, bool kSquare>
struct ProductShare {
  using Item = term_t<kSquare ? Blas1Term::square : Blas1Term::product, T>;
  static constexpr int kPerVector = int(16 / sizeof(T));
  static constexpr int kInFlight = VectorizedRung::kVectorsInFlight / (kSquare ? 1 : 2);
  static constexpr int kBatch = kInFlight * kPerVector;
  const T* x;
  const T* y;
  std::int64_t n;
  std::int64_t rank;
  std::int64_t blocks;

  // Items v * kPerVector .. + kPerVector of y (vector v of y's own, where aligned as x).
  __device__ __forceinline__ void load_y(const T* ys, bool aligned, std::int64_t v,
                                         T* out) const {
    if (aligned) {
      const uint4 raw = __ldg(reinterpret_cast<const uint4*>(ys) + v);
      memcpy(out, &raw, 16);
    } else {
#pragma unroll
      for (int j = 0; j < kPerVector; ++j) out[j] = ys[v * kPerVector + j];
    }
  }
  template <int kVectors, class Feed>
  __device__ __forceinline__ void add_vectors(const uint4* xs, const T* ys, bool aligned,
                                              std::int64_t v, std::int64_t stride,
                                              Feed& feed) const {
    constexpr int kItems = kVectors * kPerVector;
    T a[kItems], b[kSquare ? 1 : kItems];
#pragma unroll
    for (int k = 0; k < kVectors; ++k) {
      const uint4 raw = __ldg(xs + v + k * stride);
      memcpy(a + k * kPerVector, &raw, 16);
      if constexpr (!kSquare) load_y(ys, aligned, v + k * stride, b + k * kPerVector);
    }
    if constexpr (kSquare) feed.add_products(a, a);
    else feed.add_products(a, b);
  }
  // Only the vectorized rung sums products (blas1_sum.cuh refuses the seed rungs).
  template <bool kVector, class Thread>
  __device__ __forceinline__ void sum_into(Thread& thread) const {
    static_assert(kVector, "correctly rounded Dot and SumSquares run on the vectorized rung only");
    ProductFeed<T, Thread> feed{thread};
    const T* const second = kSquare ? x : y;
    const std::int64_t threads = blockDim.x, tid = threadIdx.x;
    const VectorizedRung::Layout l =
        VectorizedRung::layout(reinterpret_cast<std::uintptr_t>(x), sizeof(T), n);
    const auto* xs = reinterpret_cast<const uint4*>(x + l.head);
    const T* ys = second + l.head;
    const bool aligned =
        ((reinterpret_cast<std::uintptr_t>(x) ^ reinterpret_cast<std::uintptr_t>(second)) & 15) == 0;
    const std::int64_t stride = threads * blocks;
    std::int64_t v = rank * threads + tid;
    for (; v + (kInFlight - 1) * stride < l.vectors; v += kInFlight * stride) {
      add_vectors<kInFlight>(xs, ys, aligned, v, stride, feed);
      feed.template counted<kBatch>(kBatch);
    }
    for (; v < l.vectors; v += stride) {  // the ragged last batch, a vector at a time
      add_vectors<1>(xs, ys, aligned, v, stride, feed);
      feed.template counted<kBatch>(kPerVector);
    }
    if (rank == 0) {  // the scalar head and tail (each shorter than a vector): block 0's
      if (tid < l.head) feed.add(x[tid], second[tid]);
      if (tid < n - l.tail_begin) feed.add(x[l.tail_begin + tid], second[l.tail_begin + tid]);
    }
  }
};

}  // namespace gpureduce::detail::exact
