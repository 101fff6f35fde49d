// gpureduce::nccl: reductions of an array sharded across GPUs (one shard per NCCL rank), host-only
// (g++ can compile it; link gpureduce::nccl, built when NCCL is found). docs/nccl.md has the design
// and the cost model.
//
// Every rank calls with its shard (any size, 0 included) and the communicator; AllReduce* gives
// every rank, Reduce* the root, the reduction of the concatenation of the shards in rank order.
// CUB-shaped: d_temp_storage == nullptr asks for the size (it depends on the rank count); every
// call is asynchronous on `stream` (each rank's), one NCCL collective per call, capturable in a
// CUDA graph; no host synchronisation.
//
// Bits. Integer sums and Min/Max: those of the one-GPU reduction of the concatenation.
// Options::accuracy = correctly_rounded (float, double, half, bfloat16 sums): the one-GPU correctly
// rounded sum, for every rank count and split (the ranks' exact states are added, integer words,
// by one ncclAllReduce, then rounded once). Default float sums: each rank sums its shard in its
// plan's order, and every rank adds the ranks' sums in rank order: identical on all ranks, and the
// same on every run for a fixed rank count, split and GPU model (not the one-GPU bits).
#pragma once

#include <cstddef>
#include <cstdint>

#include <nccl.h>

#include "gpureduce.hpp"

namespace gpureduce::nccl {

template <class In, class Out>
cudaError_t AllReduceSum(void* d_temp_storage, std::size_t& temp_storage_bytes, const In* d_shard,
                         Out* d_out, std::int64_t shard_items, ncclComm_t comm,
                         cudaStream_t stream = nullptr, const Options& options = {});
template <class T>
cudaError_t AllReduceMin(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_shard,
                         T* d_out, std::int64_t shard_items, ncclComm_t comm,
                         cudaStream_t stream = nullptr, const Options& options = {});
template <class T>
cudaError_t AllReduceMax(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_shard,
                         T* d_out, std::int64_t shard_items, ncclComm_t comm,
                         cudaStream_t stream = nullptr, const Options& options = {});

// Only `root` writes d_out (the other ranks may pass null).
template <class In, class Out>
cudaError_t ReduceSum(void* d_temp_storage, std::size_t& temp_storage_bytes, const In* d_shard,
                      Out* d_out, std::int64_t shard_items, int root, ncclComm_t comm,
                      cudaStream_t stream = nullptr, const Options& options = {});
template <class T>
cudaError_t ReduceMin(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_shard,
                      T* d_out, std::int64_t shard_items, int root, ncclComm_t comm,
                      cudaStream_t stream = nullptr, const Options& options = {});
template <class T>
cudaError_t ReduceMax(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_shard,
                      T* d_out, std::int64_t shard_items, int root, ncclComm_t comm,
                      cudaStream_t stream = nullptr, const Options& options = {});

// A process that drives several GPUs (one thread, ncclCommInitAll) passes all its ranks at once:
// NCCL needs their collectives in one group, and each rank's rounding or fold must follow its
// collective, so the call runs every rank's local reduction, then the group of collectives, then
// the finishing kernels. Size query: every d_temp_storage null; each temp_storage_bytes is set.
template <class In, class Out>
struct LocalRank {
  void* d_temp_storage;
  std::size_t temp_storage_bytes;
  const In* d_shard;
  Out* d_out;  // the reduction (all ranks, or the root's for Reduce*)
  std::int64_t shard_items;
  ncclComm_t comm;
  cudaStream_t stream;
};
template <class In, class Out>
cudaError_t AllReduceSum(LocalRank<In, Out>* ranks, int count, const Options& options = {});
template <class T>
cudaError_t AllReduceMin(LocalRank<T, T>* ranks, int count, const Options& options = {});
template <class T>
cudaError_t AllReduceMax(LocalRank<T, T>* ranks, int count, const Options& options = {});
template <class In, class Out>
cudaError_t ReduceSum(LocalRank<In, Out>* ranks, int count, int root, const Options& options = {});
template <class T>
cudaError_t ReduceMin(LocalRank<T, T>* ranks, int count, int root, const Options& options = {});
template <class T>
cudaError_t ReduceMax(LocalRank<T, T>* ranks, int count, int root, const Options& options = {});

}  // namespace gpureduce::nccl
