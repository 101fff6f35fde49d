// Segmented and batched reductions for plain C++ callers (host-only header; libgpureduce.a holds
// the code), shaped like cub::DeviceSegmentedReduce: call with d_temp_storage == nullptr for the
// temp-storage size, then again to reduce; asynchronous on `stream`.
//
// Segment i is d_in[d_begin_offsets[i], d_end_offsets[i]) (64-bit offsets; unsorted and overlapping
// segments are fine, as in CUB) and d_out[i] gets its reduction; an empty segment gets what CUB
// writes. Each segment is reduced by a group of lanes, a warp, a block or several blocks, chosen
// from its length alone, so its bits depend on its own items and length only (never on the other
// segments, the grid or the run): docs/segmented.md. FixedSize* take num_segments x segment_size
// items (segment i = d_in[i * segment_size, (i + 1) * segment_size), e.g. the rows of a row-major
// matrix) with no offset arrays, and give the same bits as the offsets calls.
//
// Bad input (null pointers, negative counts, more than 2^31 - 1 segments, too little temp storage,
// invalid Options) gets cudaErrorInvalidValue, a message (last_error_message) and nothing written.
// An end offset below its begin is seen on the device: nothing is written at all, and with the
// pointer check on (Options::pointer_check; Debug builds by default) and the stream not captured
// the call waits for its kernels and returns cudaErrorInvalidValue. Options: strategy automatic or
// vectorized, pipeline automatic or last_block, block_threads 0 or 256, grid_blocks caps every
// grid, temp_storage_zeroed as for DeviceReduce; Accuracy::correctly_rounded makes each floating
// Sum segment's result its exact sum rounded once (Reduce with a floating accumulator refuses it).
//
// Shipped for the input types of gpureduce.hpp: Sum of int32, uint32, int64, uint64, float,
// float -> double, double, __half -> float, __nv_bfloat16 -> float; Min, Max, ArgMin, ArgMax of
// those eight input types. Reduce and FixedSizeReduce (any operator, type or iterator) are defined
// in <gpureduce/segmented.cuh>, for nvcc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "gpureduce.hpp"

namespace gpureduce {

struct DeviceSegmentedReduce {
  // d_out[i] = sum of segment i, accumulated in Out; 0 for an empty segment (CUB's Sum).
  template <class In, class Out>
  static cudaError_t Sum(void* d_temp_storage, std::size_t& temp_storage_bytes, const In* d_in,
                         Out* d_out, std::int64_t num_segments,
                         const std::int64_t* d_begin_offsets, const std::int64_t* d_end_offsets,
                         cudaStream_t stream = nullptr, const Options& options = {});
  // d_out[i] = minimum of segment i (NaN in gives NaN out, -0 below +0, as DeviceReduce::Min);
  // numeric_limits<T>::max() for an empty segment (CUB's).
  template <class T>
  static cudaError_t Min(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_in,
                         T* d_out, std::int64_t num_segments, const std::int64_t* d_begin_offsets,
                         const std::int64_t* d_end_offsets, cudaStream_t stream = nullptr,
                         const Options& options = {});
  // Maximum; numeric_limits<T>::lowest() for an empty segment.
  template <class T>
  static cudaError_t Max(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_in,
                         T* d_out, std::int64_t num_segments, const std::int64_t* d_begin_offsets,
                         const std::int64_t* d_end_offsets, cudaStream_t stream = nullptr,
                         const Options& options = {});
  // d_out[i] = {index within segment i, value} of its first minimum (as CUB, whose index is the
  // offset within the segment; ours is 64-bit, so segments past 2^31 items work). Empty segment:
  // {1, numeric_limits<T>::max()}, what CUB writes. NaN: as DeviceReduce::ArgMin.
  template <class T>
  static cudaError_t ArgMin(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_in,
                            IndexedValue<T>* d_out, std::int64_t num_segments,
                            const std::int64_t* d_begin_offsets,
                            const std::int64_t* d_end_offsets, cudaStream_t stream = nullptr,
                            const Options& options = {});
  // The first maximum; empty segment: {1, numeric_limits<T>::lowest()}.
  template <class T>
  static cudaError_t ArgMax(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_in,
                            IndexedValue<T>* d_out, std::int64_t num_segments,
                            const std::int64_t* d_begin_offsets,
                            const std::int64_t* d_end_offsets, cudaStream_t stream = nullptr,
                            const Options& options = {});

  // The same over num_segments x segment_size items, no offset arrays.
  template <class In, class Out>
  static cudaError_t FixedSizeSum(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                  const In* d_in, Out* d_out, std::int64_t num_segments,
                                  std::int64_t segment_size, cudaStream_t stream = nullptr,
                                  const Options& options = {});
  template <class T>
  static cudaError_t FixedSizeMin(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                  const T* d_in, T* d_out, std::int64_t num_segments,
                                  std::int64_t segment_size, cudaStream_t stream = nullptr,
                                  const Options& options = {});
  template <class T>
  static cudaError_t FixedSizeMax(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                  const T* d_in, T* d_out, std::int64_t num_segments,
                                  std::int64_t segment_size, cudaStream_t stream = nullptr,
                                  const Options& options = {});
  template <class T>
  static cudaError_t FixedSizeArgMin(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                     const T* d_in, IndexedValue<T>* d_out,
                                     std::int64_t num_segments, std::int64_t segment_size,
                                     cudaStream_t stream = nullptr, const Options& options = {});
  template <class T>
  static cudaError_t FixedSizeArgMax(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                     const T* d_in, IndexedValue<T>* d_out,
                                     std::int64_t num_segments, std::int64_t segment_size,
                                     cudaStream_t stream = nullptr, const Options& options = {});

  // d_out[i] = op(init, op-reduction of segment i); init for an empty segment (CUB's Reduce). The
  // accumulator is what op(init, *d_in) returns. d_in: a pointer (16-byte vector loads) or any
  // random-access iterator. Defined in <gpureduce/segmented.cuh> (nvcc).
  template <class InputIt, class Out, class Op, class Init>
  static cudaError_t Reduce(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                            Out* d_out, std::int64_t num_segments,
                            const std::int64_t* d_begin_offsets, const std::int64_t* d_end_offsets,
                            Op op, Init init, cudaStream_t stream = nullptr,
                            const Options& options = {});
  template <class InputIt, class Out, class Op, class Init>
  static cudaError_t FixedSizeReduce(void* d_temp_storage, std::size_t& temp_storage_bytes,
                                     InputIt d_in, Out* d_out, std::int64_t num_segments,
                                     std::int64_t segment_size, Op op, Init init,
                                     cudaStream_t stream = nullptr, const Options& options = {});

  // What a call over items of type T would do, in words: the classes and their thresholds, how
  // many segments fall in each (read from the offsets: this copies them to the host and waits, so
  // it is for logs and reports, not hot paths), the launches, grids and temp storage (for Sum,
  // Min or Max of T). The second form, for fixed-size segments, reads nothing.
  template <class T>
  static std::string describe(std::int64_t num_segments, const std::int64_t* d_begin_offsets,
                              const std::int64_t* d_end_offsets, const Options& options = {});
  template <class T>
  static std::string describe(std::int64_t num_segments, std::int64_t segment_size,
                              const Options& options = {});
};

}  // namespace gpureduce
