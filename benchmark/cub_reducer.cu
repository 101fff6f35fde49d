// cub::DeviceReduce for every (type, operation) the benchmark programs measure.
#include <cub/device/device_reduce.cuh>

#include <cuda/std/functional>
#include <type_traits>

#include "cuda_check.hpp"
#include "reference_reducers.hpp"

namespace gpureduce_bench {

namespace {
template <class In, OpKind Op, class Out>
cudaError_t cub_call(void* d_temp, std::size_t& bytes, const In* d_in, Out* d_out, std::int64_t n,
                     cudaStream_t stream) {
  // Sum's plus<void>(float, __half) is ambiguous in CCCL 3.0, so half -> float sums go through
  // Reduce with plus<float> and a float init, which is what Sum does for the other types.
  if constexpr (Op == OpKind::sum && std::is_same_v<In, __half>)
    return cub::DeviceReduce::Reduce(d_temp, bytes, d_in, d_out, n, ::cuda::std::plus<Out>{}, Out{},
                                     stream);
  else if constexpr (Op == OpKind::sum)
    return cub::DeviceReduce::Sum(d_temp, bytes, d_in, d_out, n, stream);
  else if constexpr (Op == OpKind::min)
    return cub::DeviceReduce::Min(d_temp, bytes, d_in, d_out, n, stream);
  else
    return cub::DeviceReduce::Max(d_temp, bytes, d_in, d_out, n, stream);
}
}  // namespace

template <class In, OpKind Op>
CubReducer<In, Op>::CubReducer(const In* d_in, Out* d_out, std::int64_t n)
    : d_in_(d_in), d_out_(d_out), n_(n) {
  BENCH_CUDA_CHECK((cub_call<In, Op>(nullptr, temp_bytes_, d_in_, d_out_, n_, nullptr)));
  // CUB may ask for 0 bytes only in corner cases; still hand it a valid pointer.
  BENCH_CUDA_CHECK(cudaMalloc(&d_temp_, temp_bytes_ > 0 ? temp_bytes_ : 1));
}

template <class In, OpKind Op>
CubReducer<In, Op>::~CubReducer() {
  if (d_temp_) cudaFree(d_temp_);
}

template <class In, OpKind Op>
void CubReducer<In, Op>::enqueue(cudaStream_t stream) {
  BENCH_CUDA_CHECK((cub_call<In, Op>(d_temp_, temp_bytes_, d_in_, d_out_, n_, stream)));
}

#define GPUREDUCE_BENCH_CUB(T)                 \
  template class CubReducer<T, OpKind::sum>; \
  template class CubReducer<T, OpKind::min>; \
  template class CubReducer<T, OpKind::max>;
GPUREDUCE_BENCH_CUB(float)
GPUREDUCE_BENCH_CUB(double)
GPUREDUCE_BENCH_CUB(std::int32_t)
GPUREDUCE_BENCH_CUB(__half)
#undef GPUREDUCE_BENCH_CUB

}  // namespace gpureduce_bench
