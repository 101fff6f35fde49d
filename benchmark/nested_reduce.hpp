// Seed 003's nested (dynamic-parallelism) reduce, built as its own small library because it needs
// relocatable device code (-rdc) and the device runtime (cudadevrt), which nothing else here does.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace gpureduce_bench {

// Scratch the nested reduce needs for n elements: a status word and two ping-pong partial arrays.
template <class Out>
std::size_t nested_reduce_scratch_bytes(std::int64_t n);

// *d_out = sum of d_in[0, n). The host launches the first level; every level's block 0 launches the
// next level from the GPU on the previous level's block partials, until one block remains.
// Asynchronous on `stream`. d_scratch: nested_reduce_scratch_bytes(n) bytes.
template <class In, class Out>
void nested_reduce_sum(const In* d_in, Out* d_out, std::int64_t n, void* d_scratch,
                       cudaStream_t stream);

// After the stream has finished: the first device-side launch error, or cudaSuccess. A launch
// from the GPU cannot report to the host any other way.
cudaError_t nested_reduce_status(const void* d_scratch);

}  // namespace gpureduce_bench
