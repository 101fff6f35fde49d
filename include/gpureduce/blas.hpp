// BLAS level-1 reductions for plain C++ callers (host-only header; libgpureduce.a holds the code).
//
// The calls cuBLAS users make, shaped like DeviceReduce: call with d_temp_storage == nullptr for
// the temp-storage size, then again to reduce; asynchronous on `stream`; the result stays on the
// device (as cuBLAS's CUBLAS_POINTER_MODE_DEVICE); Options pick the strategy and pipeline. Unit
// stride (a strided vector is an iterator: gpureduce::TransformReduce). Bad input gets
// cudaErrorInvalidValue, a message (last_error_message) and nothing written. Shipped for
// T = float, double, __half, __nv_bfloat16; Out = T for float and double, float for the 16-bit
// types. docs/level1.md: accuracy of each and how it differs from cuBLAS.
//
// Options::accuracy = Accuracy::correctly_rounded: Dot, SumSquares and SumAbs return the exact
// sum of their terms rounded once (the same bits for every plan and order), for every T (a
// product of doubles summed exactly, underflow and overflow included); Norm2 refuses it
// (cudaErrorInvalidValue).
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpureduce.hpp"

namespace gpureduce {

struct Blas1 {
  // d_out[0] = sum of x[i] * y[i], accumulated in Out (cublasSdot, Ddot; half and bfloat16
  // products are exact in float). n = 0 gives 0.
  template <class T, class Out>
  static cudaError_t Dot(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* x,
                         const T* y, Out* d_out, std::int64_t num_items,
                         cudaStream_t stream = nullptr, const Options& options = {});
  // d_out[0] = sum of x[i]^2 with no overflow or underflow before the result's own: float, half
  // and bfloat16 squares are exact in double and summed there; doubles are summed in Blue's three
  // scaled accumulators (as LAPACK's dnrm2). Overflows only if the sum itself exceeds Out.
  template <class T, class Out>
  static cudaError_t SumSquares(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* x,
                                Out* d_out, std::int64_t num_items, cudaStream_t stream = nullptr,
                                const Options& options = {});
  // d_out[0] = sqrt(sum of x[i]^2), safe from overflow and underflow as cublasSnrm2 / Dnrm2.
  template <class T, class Out>
  static cudaError_t Norm2(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* x,
                           Out* d_out, std::int64_t num_items, cudaStream_t stream = nullptr,
                           const Options& options = {});
  // d_out[0] = sum of |x[i]|, accumulated in Out (cublasSasum, Dasum).
  template <class T, class Out>
  static cudaError_t SumAbs(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* x,
                            Out* d_out, std::int64_t num_items, cudaStream_t stream = nullptr,
                            const Options& options = {});
  // d_out[0] = {index, |x[index]|} of the first largest |x[i]|. The index is 0-based:
  // cublasIsamax returns index + 1. A NaN wins (the first NaN's index), as ArgMax. n = 0 gives
  // {-1, 0} (cuBLAS returns 0, its 1-based "none").
  template <class T>
  static cudaError_t ArgMaxAbs(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* x,
                               IndexedValue<T>* d_out, std::int64_t num_items,
                               cudaStream_t stream = nullptr, const Options& options = {});
};

}  // namespace gpureduce
