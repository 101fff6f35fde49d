// How the kernels see their input: a reader turns element i into the accumulator type. One reader
// per input shape, so every rung and pipeline serves every shape (Sum/Min/Max and Reduce of a raw
// array, TransformReduce, any random-access iterator, ArgMin/ArgMax, two arrays for Dot).
//
// Every reader has `value_type` (what one element of memory holds), `kContiguousInput`, and
// `operator()(i)`: element i as Accum. A contiguous reader's elements are an array in index order
// at `address()`, so the vectorized rung may load them as 16-byte vectors (`vectors_from`,
// `load_vector`) and fold each vector (`fold_vector`, given its first item's index: left to
// right, the same values operator() gives); the others are read element by element.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <cuda/std/functional>

#include "ops.cuh"

namespace gpureduce::detail {

inline constexpr int kVectorBytes = 16;

// The transform that leaves an element as it is (readers' default; ours, not CCCL's internal one).
struct Identity {
  template <class T>
  __host__ __device__ __forceinline__ T operator()(const T& x) const {
    return x;
  }
};

// The device pointers a reader reads, for the host's checks (null, device-accessible).
struct ReaderPointers {
  const void* pointer[2] = {nullptr, nullptr};
  const char* name[2] = {"", ""};
  int count = 0;
};

// The shared vector machinery of the readers of one array; `Self` turns item x at index i into
// Accum (`item`).
template <class Self, class In, class Accum>
struct ArrayReaderBase {
  using value_type = In;
  using accum_type = Accum;
  using vector_type = uint4;
  static constexpr bool kContiguousInput = true;
  static constexpr int kPerVector = int(kVectorBytes / sizeof(In));

  __device__ __forceinline__ Accum operator()(std::int64_t i) const {
    const Self& self = static_cast<const Self&>(*this);
    return self.item(self.data[i], i);
  }
  __host__ __device__ std::uintptr_t address() const {
    return reinterpret_cast<std::uintptr_t>(static_cast<const Self&>(*this).data);
  }
  ReaderPointers pointers() const {
    return {{static_cast<const Self&>(*this).data, nullptr}, {"d_in", ""}, 1};
  }
  // The vectors from item `head` (16-byte aligned) on, and vector v of them: a vector pointer,
  // so that the loads of a batch are one base plus constant offsets.
  using vector_pointer = const uint4*;
  template <class Index>
  __device__ __forceinline__ vector_pointer vectors_from(Index head) const {
    return reinterpret_cast<const uint4*>(static_cast<const Self&>(*this).data + head);
  }
  template <class Index>
  __device__ __forceinline__ static vector_type load_vector(vector_pointer vectors, Index v) {
    return __ldg(vectors + v);
  }
  template <class Op>
  __device__ __forceinline__ Accum fold_vector(const vector_type& raw, std::int64_t first,
                                               Op op) const {
    const Self& self = static_cast<const Self&>(*this);
    In items[kPerVector];
    memcpy(items, &raw, sizeof(raw));
    Accum value = self.item(items[0], first);
#pragma unroll
    for (int j = 1; j < kPerVector; ++j) value = combine_in_order(op, value, self.item(items[j], first + j));
    return value;
  }
};

// A raw array, each element converted to Accum (Sum, Min, Max, Reduce).
template <class In, class Accum>
struct InputReader : ArrayReaderBase<InputReader<In, Accum>, In, Accum> {
  const In* data;
  __host__ __device__ InputReader(const In* d) : data(d) {}
  __device__ __forceinline__ static Accum item(const In& x, std::int64_t) {
    return static_cast<Accum>(x);
  }
};

// A raw array through a transform (TransformReduce and the BLAS-1 reductions of one array).
template <class In, class Accum, class Transform>
struct TransformReader : ArrayReaderBase<TransformReader<In, Accum, Transform>, In, Accum> {
  const In* data;
  Transform transform;
  __host__ __device__ TransformReader(const In* d, Transform t) : data(d), transform(t) {}
  __device__ __forceinline__ Accum item(const In& x, std::int64_t) const {
    return static_cast<Accum>(transform(x));
  }
};

// A raw array paired with each element's index (ArgMin, ArgMax, ArgMaxAbs): Accum is an
// IndexedValue-like {index, value} built from the transformed element.
template <class In, class Accum, class Transform = Identity>
struct IndexedReader : ArrayReaderBase<IndexedReader<In, Accum, Transform>, In, Accum> {
  const In* data;
  Transform transform;
  __host__ __device__ IndexedReader(const In* d, Transform t = {}) : data(d), transform(t) {}
  __device__ __forceinline__ Accum item(const In& x, std::int64_t i) const {
    Accum a;
    a.index = i;
    a.value = transform(x);
    return a;
  }
  // A vector's items by value alone, keeping the winner's place in the vector, then one pair:
  // with an op that has an in-order form (ArgMin/ArgMax), about 5 instructions an item where
  // folding pairs, each with its 64-bit index, took 13 (ncu, probe h100-2026-11-25-argmin).
  template <class Op>
  __device__ __forceinline__ Accum fold_vector(const uint4& raw, std::int64_t first, Op op) const {
    using Base = ArrayReaderBase<IndexedReader, In, Accum>;
    if constexpr (has_in_order_v<Op>) {
      In items[Base::kPerVector];
      memcpy(items, &raw, sizeof(raw));
      Accum best;
      best.value = transform(items[0]);
      int best_at = 0;
#pragma unroll
      for (int j = 1; j < Base::kPerVector; ++j) {
        const auto value = transform(items[j]);
        const bool later_wins = Op::later_wins(best.value, value);
        best.value = later_wins ? value : best.value;
        best_at = later_wins ? j : best_at;
      }
      best.index = first + best_at;
      return best;
    } else {
      return Base::fold_vector(raw, first, op);
    }
  }

  // Whether batches serve Op (VectorFold): ArgMin/ArgMax of a value whose Min/Max (ExtremumOp)
  // is one instruction an item: float, the 2-byte floats, integers up to 32 bits.
  using value_t = std::decay_t<decltype(std::declval<Accum>().value)>;
  template <class Op>
  static constexpr bool kFoldsBatches =
      has_in_order_v<Op> && (std::is_same_v<value_t, float> || is_half_like_v<value_t> ||
                             (std::is_integral_v<value_t> && sizeof(value_t) <= 4));

  // The extreme value of a batch of vectors by ExtremumOp (NaN wins, as the canonical NaN). A
  // chain: as a tree (4 dependent steps, not 15) the kernel took twice as long at 4M floats, with
  // 58 registers against 48 (ncu, H200; docs/tuning.md, 'ArgMin and ArgMax').
  template <class Op, int K>
  __device__ __forceinline__ value_t batch_extreme(const uint4 (&raw)[K]) const {
    constexpr int kItems = K * ArrayReaderBase<IndexedReader, In, Accum>::kPerVector;
    In items[kItems];
    memcpy(items, raw, sizeof(raw));
    const ExtremumOp<Op::kIsMin> extremum;
    value_t extreme = transform(items[0]);
#pragma unroll
    for (int i = 1; i < kItems; ++i) extreme = extremum(extreme, transform(items[i]));
    return extreme;
  }

  // The first item of a batch holding `extreme` (its batch_extreme), as a pair: `==` (either
  // zero for a zero), or any NaN for a NaN (ExtremumOp's NaN is the canonical one, not the
  // item's). Vector k of the batch is vector v + k * stride, items head + (v + k * stride) * P ...
  template <class Op, int K, class Index>
  __device__ __forceinline__ Accum first_holding(const uint4 (&raw)[K], value_t extreme,
                                                 Index head, Index v, Index stride) const {
    using traits = value_traits<value_t>;
    constexpr int kPer = ArrayReaderBase<IndexedReader, In, Accum>::kPerVector;
    In items[K * kPer];
    memcpy(items, raw, sizeof(raw));
    int at = K * kPer - 1;
    value_t at_value = transform(items[K * kPer - 1]);
    auto search = [&](auto holds) {
#pragma unroll
      for (int i = K * kPer - 2; i >= 0; --i) {
        const value_t value = transform(items[i]);
        const bool here = holds(value);
        at = here ? i : at;
        at_value = here ? value : at_value;
      }
    };
    // One branch, then one test an item: choosing the test item by item ("NaN? then is_nan, else
    // ==") cost 12% more of the kernel's instructions at 4M floats (ncu, H200).
    if (!traits::is_nan(extreme))
      search([&](value_t x) { return traits::widen(x) == traits::widen(extreme); });
    else
      search([](value_t x) { return traits::is_nan(x); });
    Accum pair;
    pair.value = at_value;
    pair.index = std::int64_t(head) + (std::int64_t(v) + std::int64_t(at / kPer) * stride) * kPer +
                 at % kPer;
    return pair;
  }
};

// Two raw arrays of one type, element i of each combined by `transform(x[i], y[i])` (Dot). Vectors
// are aligned on x; y's vector is loaded whole where y has x's alignment, else item by item (still
// all in flight at once).
template <class In, class Accum, class Transform>
struct PairReader {
  using value_type = In;
  using accum_type = Accum;
  struct vector_type {
    uint4 x, y;
  };
  static constexpr bool kContiguousInput = true;
  static constexpr int kPerVector = int(kVectorBytes / sizeof(In));
  const In* data;  // x
  const In* y;
  Transform transform;
  bool y_aligned_with_x;

  __host__ __device__ PairReader(const In* x_, const In* y_, Transform t)
      : data(x_), y(y_), transform(t),
        y_aligned_with_x((reinterpret_cast<std::uintptr_t>(x_) -
                          reinterpret_cast<std::uintptr_t>(y_)) % kVectorBytes == 0) {}
  __host__ __device__ std::uintptr_t address() const {
    return reinterpret_cast<std::uintptr_t>(data);
  }
  ReaderPointers pointers() const { return {{data, y}, {"x", "y"}, 2}; }
  __device__ __forceinline__ Accum operator()(std::int64_t i) const {
    return static_cast<Accum>(transform(__ldg(data + i), __ldg(y + i)));
  }
  struct vector_pointer {
    const uint4* x;
    const In* y;  // y's items from the same head on
    bool y_aligned;
  };
  template <class Index>
  __device__ __forceinline__ vector_pointer vectors_from(Index head) const {
    return {reinterpret_cast<const uint4*>(data + head), y + head, y_aligned_with_x};
  }
  template <class Index>
  __device__ __forceinline__ static vector_type load_vector(const vector_pointer& p, Index v) {
    vector_type raw;
    raw.x = __ldg(p.x + v);
    if (p.y_aligned) {
      raw.y = __ldg(reinterpret_cast<const uint4*>(p.y) + v);
    } else {
      In items[kPerVector];
#pragma unroll
      for (int j = 0; j < kPerVector; ++j) items[j] = __ldg(p.y + v * kPerVector + j);
      memcpy(&raw.y, items, sizeof(raw.y));
    }
    return raw;
  }
  template <class Op>
  __device__ __forceinline__ Accum fold_vector(const vector_type& raw, std::int64_t,
                                               Op op) const {
    In xs[kPerVector], ys[kPerVector];
    memcpy(xs, &raw.x, sizeof(raw.x));
    memcpy(ys, &raw.y, sizeof(raw.y));
    Accum value = static_cast<Accum>(transform(xs[0], ys[0]));
#pragma unroll
    for (int j = 1; j < kPerVector; ++j) value = op(value, static_cast<Accum>(transform(xs[j], ys[j])));
    return value;
  }
};

// Any random-access iterator (counting, constant, transform, zip, thrust::device_ptr), through a
// transform: element by element, no vectors.
template <class Iterator, class Accum, class Transform = Identity>
struct IteratorReader {
  using value_type = std::decay_t<decltype(*std::declval<Iterator>())>;
  using accum_type = Accum;
  static constexpr bool kContiguousInput = false;
  Iterator data;
  Transform transform;
  __device__ __forceinline__ Accum operator()(std::int64_t i) const {
    return static_cast<Accum>(transform(data[i]));
  }
  __host__ __device__ std::uintptr_t address() const { return 0; }
  ReaderPointers pointers() const { return {}; }  // an iterator: nothing the host can check
};

}  // namespace gpureduce::detail
