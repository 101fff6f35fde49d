// thrust::reduce for every (type, operation) the benchmark programs measure, called the way a user
// calls it (execution policy thrust::device, raw device pointers).
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>
#include <thrust/system_error.h>

#include <cuda/functional>
#include <cuda/std/functional>

#include <cfloat>
#include <climits>
#include <string>

#include "cuda_check.hpp"
#include "reference_reducers.hpp"

namespace gpureduce_bench {

namespace {
// The identity of min / max, as the init value thrust::reduce requires.
template <class T> T largest();
template <class T> T lowest();
template <> float largest<float>() { return FLT_MAX; }
template <> float lowest<float>() { return -FLT_MAX; }
template <> double largest<double>() { return DBL_MAX; }
template <> double lowest<double>() { return -DBL_MAX; }
template <> std::int32_t largest<std::int32_t>() { return INT_MAX; }
template <> std::int32_t lowest<std::int32_t>() { return INT_MIN; }
template <> __half largest<__half>() { __half_raw r; r.x = 0x7BFF; return __half(r); }   // 65504
template <> __half lowest<__half>() { __half_raw r; r.x = 0xFBFF; return __half(r); }    // -65504
}  // namespace

template <class In, OpKind Op>
out_t<In, Op> thrust_reduce(const In* d_in, std::int64_t n) {
  using Out = out_t<In, Op>;
  try {
    if constexpr (Op == OpKind::sum)
      return thrust::reduce(thrust::device, d_in, d_in + n, Out{}, ::cuda::std::plus<Out>{});
    else if constexpr (Op == OpKind::min)
      return thrust::reduce(thrust::device, d_in, d_in + n, largest<Out>(), ::cuda::minimum<>{});
    else
      return thrust::reduce(thrust::device, d_in, d_in + n, lowest<Out>(), ::cuda::maximum<>{});
  } catch (const thrust::system_error& e) {
    throw CudaFailure(std::string("thrust::reduce failed: ") + e.what());
  }
}

#define GPUREDUCE_BENCH_THRUST(T)                                          \
  template out_t<T, OpKind::sum> thrust_reduce<T, OpKind::sum>(const T*, std::int64_t); \
  template out_t<T, OpKind::min> thrust_reduce<T, OpKind::min>(const T*, std::int64_t); \
  template out_t<T, OpKind::max> thrust_reduce<T, OpKind::max>(const T*, std::int64_t);
GPUREDUCE_BENCH_THRUST(float)
GPUREDUCE_BENCH_THRUST(double)
GPUREDUCE_BENCH_THRUST(std::int32_t)
GPUREDUCE_BENCH_THRUST(__half)
#undef GPUREDUCE_BENCH_THRUST

}  // namespace gpureduce_bench
