// gpureduce::nccl (include/gpureduce/nccl.hpp): each rank reduces its shard with gpureduce, then one
// NCCL collective per call combines the ranks, then (where needed) one small kernel finishes:
// - integer Sum/Min/Max: ncclAllReduce / ncclReduce of the partial, straight into d_out (exact in
//   any order, so the one-GPU bits);
// - correctly rounded sums: each rank's exact state (int64 words, unrounded), added word by word
//   by ncclAllReduce / ncclReduce with ncclSum on int64, then rounded once: the one-GPU bits;
// - the rest (default float sums, floating Min/Max): the partials gathered (ncclAllGather) and
//   folded in rank order by every receiving rank with the one-GPU operator (Min/Max: NaN wins,
//   -0 below +0, so the one-GPU bits; sums: a fixed order, identical on every rank).
#include "gpureduce/nccl.hpp"

#include <string>
#include <type_traits>
#include <vector>

#include "gpureduce/detail/exact/exact_sum.hpp"
#include "gpureduce/detail/ops.cuh"
#include "gpureduce/detail/runtime.hpp"
#include "gpureduce/detail/shipped_instantiations.hpp"

namespace gpureduce::nccl {
namespace {

using detail::check;
using detail::fail;

enum class Op { sum, min, max };
enum class Collective { all_reduce, reduce };

cudaError_t nccl_check(ncclResult_t result, const char* what) {
  if (result == ncclSuccess) return cudaSuccess;
  const std::string message = std::string("gpureduce::nccl: ") + what + ": " + ncclGetErrorString(result);
  const bool caller = result == ncclInvalidArgument || result == ncclInvalidUsage;
  return fail(caller ? cudaErrorInvalidValue : cudaErrorUnknown, message.c_str());
}

template <class T>
ncclDataType_t nccl_type() {
  if constexpr (std::is_same_v<T, std::int32_t>) return ncclInt32;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return ncclUint32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return ncclInt64;
  else return ncclUint64;
}
constexpr ncclRedOp_t nccl_op(Op op) {
  return op == Op::sum ? ncclSum : op == Op::min ? ncclMin : ncclMax;
}

// How the ranks meet for this (In, Out, Op, Options).
enum class Path { native, exact, gather };
template <class In, class Out, Op kOp>
inline constexpr bool kCanBeExact = kOp == Op::sum && detail::exact::kCorrectlyRoundedPair<In, Out>;
template <class In, class Out, Op kOp>
Path path_for(const Options& options) {
  if constexpr (kCanBeExact<In, Out, kOp>)
    if (options.accuracy == Accuracy::correctly_rounded) return Path::exact;
  return std::is_integral_v<Out> ? Path::native : Path::gather;
}

template <class In, class Out, Op kOp>
cudaError_t local_reduce(void* temp, std::size_t& bytes, const In* d_shard, Out* partial,
                         std::int64_t n, cudaStream_t stream, const Options& options) {
  if constexpr (kOp == Op::sum) return DeviceReduce::Sum(temp, bytes, d_shard, partial, n, stream, options);
  else if constexpr (kOp == Op::min) return DeviceReduce::Min(temp, bytes, d_shard, partial, n, stream, options);
  else return DeviceReduce::Max(temp, bytes, d_shard, partial, n, stream, options);
}

template <class Out, Op kOp>
struct FoldOp {
  __device__ Out operator()(const Out& a, const Out& b) const {
    if constexpr (kOp == Op::sum) return a + b;
    else if constexpr (kOp == Op::min) return detail::MinOp{}(a, b);
    else return detail::MaxOp{}(a, b);
  }
};
template <class Out, Op kOp>
__global__ void __launch_bounds__(32) fold_in_rank_order(const Out* partials, int ranks, Out* d_out) {
  if (threadIdx.x != 0) return;
  Out total = partials[0];
  for (int r = 1; r < ranks; ++r) total = FoldOp<Out, kOp>{}(total, partials[r]);
  *d_out = total;
}

constexpr std::size_t align_up(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

// Switches to a device for the scope of one rank's work, and back.
class DeviceScope {
 public:
  cudaError_t enter(ncclComm_t comm) {
    int device = 0;
    cudaError_t error = nccl_check(ncclCommCuDevice(comm, &device), "ncclCommCuDevice");
    if (error == cudaSuccess) error = check(cudaSetDevice(device), "gpureduce::nccl: cudaSetDevice");
    return error;
  }
  DeviceScope() { (void)cudaGetDevice(&saved_); }
  ~DeviceScope() { (void)cudaSetDevice(saved_); }

 private:
  int saved_ = 0;
};

// What one rank's call needs: its size in ranks, its rank, the buffer the collective works on.
template <class Out>
struct RankPlan {
  int ranks = 0, rank = 0;
  std::size_t buffer_bytes = 0;  // first in temp storage
  std::size_t local_bytes = 0;   // the local reduction's temp storage, after it
};

template <class In, class Out, Op kOp>
cudaError_t plan_rank(LocalRank<In, Out>& r, Path path, Collective kind, int root,
                      const Options& options, RankPlan<Out>& plan) {
  if (r.comm == nullptr) return fail(cudaErrorInvalidValue, "gpureduce::nccl: comm is null");
  if (r.shard_items < 0) return fail(cudaErrorInvalidValue, "gpureduce::nccl: shard_items is negative");
  cudaError_t error = nccl_check(ncclCommCount(r.comm, &plan.ranks), "ncclCommCount");
  if (error == cudaSuccess) error = nccl_check(ncclCommUserRank(r.comm, &plan.rank), "ncclCommUserRank");
  if (error != cudaSuccess) return error;
  if (kind == Collective::reduce && (root < 0 || root >= plan.ranks))
    return fail(cudaErrorInvalidValue, "gpureduce::nccl: root is not a rank of the communicator");
  const bool receives = kind == Collective::all_reduce || plan.rank == root;
  if (r.d_temp_storage != nullptr) {
    if (r.d_shard == nullptr && r.shard_items > 0)
      return fail(cudaErrorInvalidValue, "gpureduce::nccl: d_shard is null and shard_items > 0");
    if (receives && r.d_out == nullptr)
      return fail(cudaErrorInvalidValue, "gpureduce::nccl: d_out is null on a receiving rank");
  }
  if constexpr (kCanBeExact<In, Out, kOp>) {
    if (path == Path::exact) {
      plan.buffer_bytes = std::size_t(detail::exact::exact_state_words<In, Out>()) * 8;
      return detail::exact::exact_state_sum<In, Out>(nullptr, &plan.local_bytes, r.d_shard,
                                                     nullptr, r.shard_items, r.stream, options);
    }
  }
  plan.buffer_bytes = sizeof(Out) * (path == Path::native ? 1 : std::size_t(plan.ranks));
  return local_reduce<In, Out, kOp>(nullptr, plan.local_bytes, r.d_shard, nullptr, r.shard_items,
                                    r.stream, options);
}

// The rank's local part: its shard reduced into the buffer (its slot of it, when gathering).
template <class In, class Out, Op kOp>
cudaError_t reduce_locally(LocalRank<In, Out>& r, Path path, const RankPlan<Out>& plan,
                           const Options& options) {
  auto* base = static_cast<unsigned char*>(r.d_temp_storage);
  void* local_temp = base + align_up(plan.buffer_bytes);
  std::size_t local_bytes = plan.local_bytes;
  if constexpr (kCanBeExact<In, Out, kOp>)
    if (path == Path::exact)
      return detail::exact::exact_state_sum<In, Out>(local_temp, &local_bytes, r.d_shard,
                                                     reinterpret_cast<long long*>(base),
                                                     r.shard_items, r.stream, options);
  Out* partial = reinterpret_cast<Out*>(base) + (path == Path::gather ? plan.rank : 0);
  return local_reduce<In, Out, kOp>(local_temp, local_bytes, r.d_shard, partial, r.shard_items,
                                    r.stream, options);
}

// The rank's collective (inside the caller's group).
template <class In, class Out, Op kOp>
cudaError_t combine(LocalRank<In, Out>& r, Path path, Collective kind, int root,
                    const RankPlan<Out>& plan) {
  void* buffer = r.d_temp_storage;
  const bool all = kind == Collective::all_reduce;
  if constexpr (kCanBeExact<In, Out, kOp>) {
    if (path == Path::exact) {
      const auto words = std::size_t(detail::exact::exact_state_words<In, Out>());
      return nccl_check(
          all ? ncclAllReduce(buffer, buffer, words, ncclInt64, ncclSum, r.comm, r.stream)
              : ncclReduce(buffer, buffer, words, ncclInt64, ncclSum, root, r.comm, r.stream),
          "adding the ranks' exact states");
    }
  }
  if constexpr (std::is_integral_v<Out>) {
    if (path == Path::native)
      return nccl_check(all ? ncclAllReduce(buffer, r.d_out, 1, nccl_type<Out>(), nccl_op(kOp), r.comm, r.stream)
                            : ncclReduce(buffer, plan.rank == root ? r.d_out : buffer, 1, nccl_type<Out>(),
                                         nccl_op(kOp), root, r.comm, r.stream),
                        "combining the ranks' partials");
  }
  auto* partials = static_cast<Out*>(buffer);
  return nccl_check(ncclAllGather(partials + plan.rank, partials, sizeof(Out), ncclUint8, r.comm, r.stream),
                    "gathering the ranks' partials");
}

// After the collective, on a receiving rank: the rounding or the fold.
template <class In, class Out, Op kOp>
cudaError_t finish(LocalRank<In, Out>& r, Path path, const RankPlan<Out>& plan) {
  if constexpr (kCanBeExact<In, Out, kOp>)
    if (path == Path::exact)
      return detail::exact::round_exact_state<In, Out>(
          static_cast<const long long*>(r.d_temp_storage), r.d_out, r.stream);
  if (path == Path::native) return cudaSuccess;
  fold_in_rank_order<Out, kOp><<<1, 32, 0, r.stream>>>(static_cast<const Out*>(r.d_temp_storage),
                                                       plan.ranks, r.d_out);
  return check(cudaGetLastError(), "gpureduce::nccl: launching the fold of the ranks' partials");
}

template <class In, class Out, Op kOp>
cudaError_t reduce_ranks(LocalRank<In, Out>* ranks, int count, Collective kind, int root,
                         const Options& options) {
  if (ranks == nullptr || count < 1)
    return fail(cudaErrorInvalidValue, "gpureduce::nccl: no ranks given");
  const Path path = path_for<In, Out, kOp>(options);
  DeviceScope scope;
  std::vector<RankPlan<Out>> plans(static_cast<std::size_t>(count));
  bool sizing = false;
  for (int i = 0; i < count; ++i) {
    LocalRank<In, Out>& r = ranks[i];
    cudaError_t error = scope.enter(r.comm);
    if (error == cudaSuccess) error = plan_rank<In, Out, kOp>(r, path, kind, root, options, plans[i]);
    if (error != cudaSuccess) return error;
    const std::size_t needed = align_up(plans[i].buffer_bytes) + plans[i].local_bytes;
    if (r.d_temp_storage == nullptr) {
      r.temp_storage_bytes = needed;
      sizing = true;
    } else if (r.temp_storage_bytes < needed) {
      return fail(cudaErrorInvalidValue,
                  "gpureduce::nccl: temp_storage_bytes is smaller than this call needs (query it "
                  "with d_temp_storage == nullptr)");
    }
  }
  if (sizing) return cudaSuccess;
  for (int i = 0; i < count; ++i) {
    cudaError_t error = scope.enter(ranks[i].comm);
    if (error == cudaSuccess) error = reduce_locally<In, Out, kOp>(ranks[i], path, plans[i], options);
    if (error != cudaSuccess) return error;
  }
  cudaError_t error = nccl_check(ncclGroupStart(), "ncclGroupStart");
  for (int i = 0; i < count && error == cudaSuccess; ++i)
    error = combine<In, Out, kOp>(ranks[i], path, kind, root, plans[i]);
  const cudaError_t ended = nccl_check(ncclGroupEnd(), "ncclGroupEnd");
  if (error != cudaSuccess) return error;
  if (ended != cudaSuccess) return ended;
  for (int i = 0; i < count; ++i) {
    if (kind == Collective::reduce && plans[i].rank != root) continue;
    error = scope.enter(ranks[i].comm);
    if (error == cudaSuccess) error = finish<In, Out, kOp>(ranks[i], path, plans[i]);
    if (error != cudaSuccess) return error;
  }
  return cudaSuccess;
}

// One rank's call through the many-rank path.
template <class In, class Out, Op kOp>
cudaError_t reduce_one(void* d_temp, std::size_t& bytes, const In* d_shard, Out* d_out,
                       std::int64_t n, ncclComm_t comm, cudaStream_t stream, Collective kind,
                       int root, const Options& options) {
  LocalRank<In, Out> rank{d_temp, bytes, d_shard, d_out, n, comm, stream};
  const cudaError_t error = reduce_ranks<In, Out, kOp>(&rank, 1, kind, root, options);
  if (d_temp == nullptr) bytes = rank.temp_storage_bytes;
  return error;
}

}  // namespace

template <class In, class Out>
cudaError_t AllReduceSum(void* t, std::size_t& b, const In* d_shard, Out* d_out, std::int64_t n,
                         ncclComm_t comm, cudaStream_t s, const Options& o) {
  return reduce_one<In, Out, Op::sum>(t, b, d_shard, d_out, n, comm, s, Collective::all_reduce, 0, o);
}
template <class T>
cudaError_t AllReduceMin(void* t, std::size_t& b, const T* d_shard, T* d_out, std::int64_t n,
                         ncclComm_t comm, cudaStream_t s, const Options& o) {
  return reduce_one<T, T, Op::min>(t, b, d_shard, d_out, n, comm, s, Collective::all_reduce, 0, o);
}
template <class T>
cudaError_t AllReduceMax(void* t, std::size_t& b, const T* d_shard, T* d_out, std::int64_t n,
                         ncclComm_t comm, cudaStream_t s, const Options& o) {
  return reduce_one<T, T, Op::max>(t, b, d_shard, d_out, n, comm, s, Collective::all_reduce, 0, o);
}
template <class In, class Out>
cudaError_t ReduceSum(void* t, std::size_t& b, const In* d_shard, Out* d_out, std::int64_t n,
                      int root, ncclComm_t comm, cudaStream_t s, const Options& o) {
  return reduce_one<In, Out, Op::sum>(t, b, d_shard, d_out, n, comm, s, Collective::reduce, root, o);
}
template <class T>
cudaError_t ReduceMin(void* t, std::size_t& b, const T* d_shard, T* d_out, std::int64_t n,
                      int root, ncclComm_t comm, cudaStream_t s, const Options& o) {
  return reduce_one<T, T, Op::min>(t, b, d_shard, d_out, n, comm, s, Collective::reduce, root, o);
}
template <class T>
cudaError_t ReduceMax(void* t, std::size_t& b, const T* d_shard, T* d_out, std::int64_t n,
                      int root, ncclComm_t comm, cudaStream_t s, const Options& o) {
  return reduce_one<T, T, Op::max>(t, b, d_shard, d_out, n, comm, s, Collective::reduce, root, o);
}

template <class In, class Out>
cudaError_t AllReduceSum(LocalRank<In, Out>* ranks, int count, const Options& o) {
  return reduce_ranks<In, Out, Op::sum>(ranks, count, Collective::all_reduce, 0, o);
}
template <class T>
cudaError_t AllReduceMin(LocalRank<T, T>* ranks, int count, const Options& o) {
  return reduce_ranks<T, T, Op::min>(ranks, count, Collective::all_reduce, 0, o);
}
template <class T>
cudaError_t AllReduceMax(LocalRank<T, T>* ranks, int count, const Options& o) {
  return reduce_ranks<T, T, Op::max>(ranks, count, Collective::all_reduce, 0, o);
}
template <class In, class Out>
cudaError_t ReduceSum(LocalRank<In, Out>* ranks, int count, int root, const Options& o) {
  return reduce_ranks<In, Out, Op::sum>(ranks, count, Collective::reduce, root, o);
}
template <class T>
cudaError_t ReduceMin(LocalRank<T, T>* ranks, int count, int root, const Options& o) {
  return reduce_ranks<T, T, Op::min>(ranks, count, Collective::reduce, root, o);
}
template <class T>
cudaError_t ReduceMax(LocalRank<T, T>* ranks, int count, int root, const Options& o) {
  return reduce_ranks<T, T, Op::max>(ranks, count, Collective::reduce, root, o);
}

// The shipped (type, operation) pairs, as the one-GPU library's.
#define GPUREDUCE_NCCL_SUM(In, Out)                                                              \
  template cudaError_t AllReduceSum<In, Out>(void*, std::size_t&, const In*, Out*, std::int64_t,  \
                                             ncclComm_t, cudaStream_t, const Options&);           \
  template cudaError_t ReduceSum<In, Out>(void*, std::size_t&, const In*, Out*, std::int64_t,     \
                                          int, ncclComm_t, cudaStream_t, const Options&);         \
  template cudaError_t AllReduceSum<In, Out>(LocalRank<In, Out>*, int, const Options&);           \
  template cudaError_t ReduceSum<In, Out>(LocalRank<In, Out>*, int, int, const Options&);
#define GPUREDUCE_NCCL_MINMAX(T)                                                                   \
  template cudaError_t AllReduceMin<T>(void*, std::size_t&, const T*, T*, std::int64_t, ncclComm_t, \
                                       cudaStream_t, const Options&);                               \
  template cudaError_t AllReduceMax<T>(void*, std::size_t&, const T*, T*, std::int64_t, ncclComm_t, \
                                       cudaStream_t, const Options&);                               \
  template cudaError_t ReduceMin<T>(void*, std::size_t&, const T*, T*, std::int64_t, int,          \
                                    ncclComm_t, cudaStream_t, const Options&);                      \
  template cudaError_t ReduceMax<T>(void*, std::size_t&, const T*, T*, std::int64_t, int,          \
                                    ncclComm_t, cudaStream_t, const Options&);                      \
  template cudaError_t AllReduceMin<T>(LocalRank<T, T>*, int, const Options&);                     \
  template cudaError_t AllReduceMax<T>(LocalRank<T, T>*, int, const Options&);                     \
  template cudaError_t ReduceMin<T>(LocalRank<T, T>*, int, int, const Options&);                   \
  template cudaError_t ReduceMax<T>(LocalRank<T, T>*, int, int, const Options&);
GPUREDUCE_FOR_EACH_SUM(GPUREDUCE_NCCL_SUM)
GPUREDUCE_FOR_EACH_MINMAX(GPUREDUCE_NCCL_MINMAX)

}  // namespace gpureduce::nccl
