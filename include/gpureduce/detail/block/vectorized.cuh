// Beyond the seeds: 128-bit loads, kVectorsInFlight of them issued before the first is used, then
// the R8 shuffle reduction (without its lane tests when every thread holds a value). Fixes what R8
// leaves: one 4-byte load per instruction and little memory-level parallelism per thread.
// Misaligned starts (d_in + 1) are handled by peeling the elements before the first 16-byte
// boundary (and the ragged tail) into scalar loads of block 0.
#pragma once

#include <cstring>
#include <type_traits>

#include "../readers.cuh"
#include "rung_base.cuh"
#include "shuffle_reduce.cuh"
#include "thread_accumulate.cuh"

namespace gpureduce::detail {

// What one thread has folded so far: the first item as it is, each later one combined onto it, so
// no identity element is needed. add_later: x's index is above every item folded so far (the op's
// cheaper in-order form, ops.cuh); add: any index (the scalar head, below the vectors).
template <class Accum, class Op>
struct RunningFold {
  Op op;
  Accum value{};
  bool has_value = false;
  __device__ __forceinline__ void add(const Accum& x) {
    value = has_value ? op(value, x) : x;
    has_value = true;
  }
  __device__ __forceinline__ void add_later(const Accum& x) {
    value = has_value ? combine_in_order(op, value, x) : x;
    has_value = true;
  }
};

// Whether Reader folds whole batches of vectors under Op (IndexedReader::kFoldsBatches: its
// batch_extreme and first_holding).
template <class Reader, class Op, class = void>
inline constexpr bool kReaderFoldsBatches = false;
template <class Reader, class Op>
inline constexpr bool
    kReaderFoldsBatches<Reader, Op, std::void_t<decltype(Reader::template kFoldsBatches<Op>)>> =
        Reader::template kFoldsBatches<Op>;

// The vectors of one thread into its RunningFold (vector v holds items head + v * kPerVector
// ...), each vector's in-order fold as it comes.
template <class Reader, class Accum, class Op, class Index>
struct VectorByVector {
  const Reader& read;
  RunningFold<Accum, Op>& mine;
  Index head;
  __device__ __forceinline__ void operator()(const typename Reader::vector_type& raw, Index v) {
    mine.add_later(read.fold_vector(raw, std::int64_t(head) + std::int64_t(v) * Reader::kPerVector,
                                    mine.op));
  }
};

template <class Reader, class Accum, class Op, class Index, int K,
          bool kByBatch = kReaderFoldsBatches<Reader, Op>>
struct VectorFold : VectorByVector<Reader, Accum, Op, Index> {
  static constexpr bool kBatches = false;
};

// ArgMin/ArgMax (a reader with batch_extreme): whole batches of K vectors. A batch costs its
// extreme value (ExtremumOp, one instruction an item) and, only where that beats the thread's
// best so far, a copy of the batch's registers; the first item holding the best is looked for
// once, in the kept batch, at the end. The same pair as the in-order fold of every item (a later
// item replaces the best only if strictly better, or a NaN over a number), where that fold took
// about five instructions an item, or four with the search done in each improving batch: every
// batch of a warp improved some lane's best at 4M floats (ncu, H200, docs/tuning.md 'ArgMin and
// ArgMax'). The ragged last batch goes vector by vector (the base's operator()).
template <class Reader, class Accum, class Op, class Index, int K>
struct VectorFold<Reader, Accum, Op, Index, K, true> : VectorByVector<Reader, Accum, Op, Index> {
  static constexpr bool kBatches = true;
  using value_t = typename Reader::value_t;
  value_t best{};
  uint4 best_raw[K] = {};
  Index best_v = 0;
  bool has_best = false;

  __device__ __forceinline__ void batch(const uint4 (&raw)[K], Index v) {
    const value_t extreme = this->read.template batch_extreme<Op>(raw);
    if (!has_best || Op::later_wins(best, extreme)) {
      best = extreme;
      best_v = v;
#pragma unroll
      for (int k = 0; k < K; ++k) best_raw[k] = raw[k];
      has_best = true;
    }
  }
  // After the last whole batch, before anything else enters `mine` (the ragged batch, then the
  // scalar head and tail).
  __device__ __forceinline__ void end_batches(Index stride) {
    if (!has_best) return;
    this->mine.value =
        this->read.template first_holding<Op>(best_raw, best, this->head, best_v, stride);
    this->mine.has_value = true;
  }
};

template <int K, class Reader, class Accum, class Op, class Index>
__device__ __forceinline__ VectorFold<Reader, Accum, Op, Index, K> vector_fold(
    const Reader& read, RunningFold<Accum, Op>& mine, Index head) {
  return {{read, mine, head}};
}

struct VectorizedRung : ShuffleRungDefaults<VectorizedRung> {
  // Four 16-byte loads in flight per thread: enough for CUB's bandwidth; eight never won
  // (docs/tuning.md, 'Vectors in flight').
  static constexpr int kVectorsInFlight = 4;
  static constexpr int kLoadsPerThread = 1;  // for inputs that cannot be vectorised
  // Partials are not vectorizable input: reduce() folds them by accumulate_grid_stride<1> and
  // block_reduce_shuffle, which is what fold_partials.cuh's short path restates.
  static constexpr bool kFoldsPartialsOnePerThread = true;

  // How the input splits into a scalar head (up to the first 16-byte boundary), whole vectors,
  // and a scalar tail. Computed identically on host (grid size) and device.
  struct Layout {
    bool vectorizable;
    std::int64_t head;        // scalar elements before the first aligned vector
    std::int64_t vectors;     // whole 16-byte vectors
    std::int64_t tail_begin;  // first element after the vectors
  };
  __host__ __device__ static Layout layout(std::uintptr_t address, std::size_t item_size,
                                           std::int64_t n) {
    Layout l{false, 0, 0, 0};
    if (item_size == 0 || item_size > kVectorBytes || kVectorBytes % item_size != 0) return l;
    const std::int64_t per_vector = std::int64_t(kVectorBytes / item_size);
    // Bytes up to the next 16-byte boundary (0 when aligned), then as items. In 32 bits and
    // unsigned: on the device this runs ahead of every block's first load, and the 64-bit signed
    // form (a select and a signed division) was about 8 more dependent instructions there
    // (docs/tuning.md, 'Full blocks').
    const unsigned to_boundary = unsigned(0u - unsigned(address)) % unsigned(kVectorBytes);
    std::int64_t head = std::int64_t(to_boundary / unsigned(item_size));
    head = head < n ? head : n;
    l.vectorizable = true;
    l.head = head;
    // n >= head >= 0 (dispatch refuses n < 0), so the unsigned division is the signed one.
    l.vectors = std::int64_t(std::uint64_t(n - head) / std::uint64_t(per_vector));
    l.tail_begin = head + l.vectors * per_vector;
    return l;
  }

  static std::int64_t max_useful_blocks(std::int64_t n, int block_threads, std::uintptr_t address,
                                        std::size_t item_size) {
    const Layout l = layout(address, item_size, n);
    if (!l.vectorizable || l.vectors == 0)
      return RungDefaults<VectorizedRung>::max_useful_blocks(l.vectorizable ? 1 : n, block_threads,
                                                             address, item_size);
    return (l.vectors + block_threads - 1) / block_threads;
  }

  // Whether reads of Reader's items go through 16-byte vectors (else the plain R8 path).
  template <class Reader>
  static constexpr bool kVectorizable = Reader::kContiguousInput &&
                                        sizeof(typename Reader::value_type) <= kVectorBytes &&
                                        kVectorBytes % sizeof(typename Reader::value_type) == 0;

  // Folds the vectors first, first + stride, first + 2 * stride, ... below count, in ascending
  // order, with kVectorsInFlight loads issued before the first of them is used: whole batches
  // unguarded, then the ragged last batch (fewer vectors), also all in flight at once, since
  // one-at-a-time loads there cost a memory latency each, which is most of a small reduction.
  //
  // The ragged batch sits behind one branch taken when it is empty: without it every thread ran
  // its guarded code with nothing left to load, 5% of a reduction in graphs. One loop for all
  // batches, guarded, was worse: ptxas interleaved each load with its fold (docs/tuning.md, 'The
  // ragged last batch').
  template <class Index, class Reader, class Fold>
  __device__ __forceinline__ static void fold_strided_vectors(const Reader& read, Index head,
                                                              Index first, Index stride,
                                                              Index count, Fold& fold) {
    using Vector = typename Reader::vector_type;
    const auto vectors = read.vectors_from(head);
    Index v = first;
    for (; v + (kVectorsInFlight - 1) * stride < count; v += kVectorsInFlight * stride) {
      Vector raw[kVectorsInFlight];
#pragma unroll
      for (int k = 0; k < kVectorsInFlight; ++k) raw[k] = Reader::load_vector(vectors, v + k * stride);
      if constexpr (Fold::kBatches) {
        fold.batch(raw, v);
      } else {
#pragma unroll
        for (int k = 0; k < kVectorsInFlight; ++k) fold(raw[k], v + k * stride);
      }
    }
    // A fold of whole batches hands over before the ragged batch, which goes vector by vector:
    // as a batch (the missing vectors copies of the first) it was twice the instructions of the
    // in-order folds at 64K floats, two vectors a thread (ncu, H200).
    if constexpr (Fold::kBatches) fold.end_batches(stride);
    if (v < count) {
      Vector raw[kVectorsInFlight];
#pragma unroll
      for (int k = 0; k < kVectorsInFlight; ++k)
        if (v + k * stride < count) raw[k] = Reader::load_vector(vectors, v + k * stride);
#pragma unroll
      for (int k = 0; k < kVectorsInFlight; ++k)
        if (v + k * stride < count) fold(raw[k], v + k * stride);
    }
  }

  template <int BLOCK, class Accum, class Reader, class Op>
  __device__ static Accum reduce(Reader read, std::int64_t n, std::int64_t rank,
                                 std::int64_t blocks, Op op, Accum* shared, Accum*) {
    using In = typename Reader::value_type;
    if constexpr (!kVectorizable<Reader>) {
      // Partials (already few) and odd-sized types: the plain R8 path, one load per iteration.
      const ThreadAggregate<Accum> mine = accumulate_grid_stride<1, Accum>(read, n, rank, blocks, op);
      return block_reduce_shuffle(mine.value, mine.valid_threads, op, shared);
    } else {
      const Layout l = layout(read.address(), sizeof(In), n);
      const int tid = int(threadIdx.x);
      const std::int64_t threads = BLOCK > 0 ? BLOCK : blockDim.x;  // BLOCK: the cluster kernel
      RunningFold<Accum, Op> mine{op};
      auto fold = vector_fold<kVectorsInFlight>(read, mine, l.head);
      fold_strided_vectors(read, l.head, rank * threads + tid, threads * blocks, l.vectors, fold);
      if (rank == 0) {  // the scalar head and tail (each shorter than a vector) go to block 0
        if (tid < l.head) mine.add(read(tid));
        if (tid < n - l.tail_begin) mine.add_later(read(l.tail_begin + tid));
      }
      // Every thread holds a value exactly when this block has a whole block of vectors: block
      // 0's head and tail are shorter than a vector, so they never fill a block that its vectors
      // do not. One test on every block's path from its last load to its partial, where working
      // out the prefix below took about 20 instructions; computed before the loads, the prefix
      // delayed the first load (docs/tuning.md, 'Full blocks').
      if (l.vectors >= (rank + 1) * threads) return block_reduce_shuffle_full(mine.value, op, shared);
      std::int64_t first_free = l.vectors - rank * threads;  // threads holding a vector
      first_free = first_free < 0 ? 0 : first_free;
      if (rank == 0) {
        const std::int64_t tail = n - l.tail_begin;
        first_free = first_free > l.head ? first_free : l.head;
        first_free = first_free > tail ? first_free : tail;
      }
      return block_reduce_shuffle(mine.value, int(first_free), op, shared);
    }
  }

  // reduce() for one block of BLOCK threads and n < 2^31 items (the one-block kernel, at most
  // 64 KiB of input), in the same order, so with the same bits: each thread folds its vectors
  // tid, tid + BLOCK, tid + 2 * BLOCK, ... in ascending order, then its head item, then its tail
  // item, and block_reduce_shuffle combines the same prefix of threads. What it saves: 32-bit
  // indices, no multi-block paths, and the head and tail loads issued with the first vectors
  // rather than one memory round trip after them.
  template <int BLOCK, class Accum, class Reader, class Op>
  __device__ static Accum reduce_one_block(Reader read, int n, Op op, Accum* shared) {
    using In = typename Reader::value_type;
    static_assert(kVectorizable<Reader>, "the one-block kernel is built for vectorizable inputs only");
    constexpr int kPerVector = int(kVectorBytes / sizeof(In));
    const int misalign = int(read.address() % kVectorBytes);
    int head = misalign == 0 ? 0 : (kVectorBytes - misalign) / int(sizeof(In));  // as layout()
    head = head < n ? head : n;
    const int vector_count = (n - head) / kPerVector;
    const int tail_begin = head + vector_count * kPerVector;
    const int tail = n - tail_begin;
    const int tid = int(threadIdx.x);

    Accum head_item{}, tail_item{};
    if (tid < head) head_item = read(tid);
    if (tid < tail) tail_item = read(tail_begin + tid);
    RunningFold<Accum, Op> mine{op};
    auto fold = vector_fold<kVectorsInFlight>(read, mine, head);
    fold_strided_vectors(read, head, tid, BLOCK, vector_count, fold);
    if (tid < head) mine.add(head_item);
    if (tid < tail) mine.add_later(tail_item);
    int valid = vector_count < BLOCK ? vector_count : BLOCK;
    valid = valid > head ? valid : head;
    valid = valid > tail ? valid : tail;
    if (valid == BLOCK) return block_reduce_shuffle_full(mine.value, op, shared);
    return block_reduce_shuffle(mine.value, valid, op, shared);
  }
};

}  // namespace gpureduce::detail
