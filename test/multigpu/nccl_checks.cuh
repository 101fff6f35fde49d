// The checks of gpureduce::nccl, shared by the one-process test (both GPUs, ncclCommInitAll) and
// the two-process test (a rank a process, the unique id over a pipe). Every process generates the
// whole array from a seed on each of its GPUs, keeps its ranks' shards, and computes the one-GPU
// reduction over the whole array itself: the reference the ranks' answer must equal bitwise
// (integers, Min/Max and correctly rounded sums); default float sums must be identical on every
// rank and on a second call. Plain C++ (no gtest): failures are printed and counted.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "gpureduce/gpureduce.hpp"
#include "gpureduce/nccl.hpp"

namespace gpureduce::testing::nccl_checks {

inline std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
__device__ inline std::uint64_t mix_d(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Random bit patterns: every value, for integers; every finite value, every sign and exponent,
// for floating types (a NaN or infinity pattern is turned into a finite one).
template <class T>
__global__ void fill_every_value(T* out, std::int64_t n, std::uint64_t seed) {
  using Bits = std::conditional_t<sizeof(T) == 8, std::uint64_t,
                                  std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint16_t>>;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    Bits bits = Bits(mix_d(seed ^ std::uint64_t(i)));
    if constexpr (!std::is_integral_v<T>) {
      constexpr int kMantissa = std::is_same_v<T, double> ? 52 : std::is_same_v<T, float> ? 23
                                : std::is_same_v<T, __half> ? 10 : 7;
      constexpr Bits kExponent = Bits((Bits(~Bits(0)) >> 1) >> kMantissa) << kMantissa;
      if ((bits & kExponent) == kExponent) bits = Bits(bits & ~(Bits(1) << (kMantissa + 1)));
    }
    memcpy(out + i, &bits, sizeof(T));
  }
}

#define NCCL_CHECKS_CUDA(call)                                                             \
  do {                                                                                     \
    const cudaError_t e_ = (call);                                                         \
    if (e_ != cudaSuccess) {                                                               \
      std::printf("FAIL %s:%d %s: %s (%s)\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_), \
                  ::gpureduce::last_error_message());                                      \
      return 1;                                                                            \
    }                                                                                      \
  } while (0)

// The GPUs this process drives: rank r's communicator, device and stream.
struct LocalRanks {
  std::vector<int> ranks, devices;
  std::vector<ncclComm_t> comms;
  std::vector<cudaStream_t> streams;
  int world = 0;  // ranks in the communicator
};

enum class Kind { sum, min, max };

template <class T>
std::string bits_text(const T& v) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  std::string s = "0x";
  char buf[3];
  for (int i = int(sizeof(T)) - 1; i >= 0; --i) {
    std::snprintf(buf, sizeof buf, "%02x", b[i]);
    s += buf;
  }
  return s;
}

template <class In, class Out, Kind K>
cudaError_t one_gpu(void* temp, std::size_t& bytes, const In* in, Out* out, std::int64_t n,
                    cudaStream_t s, const Options& o) {
  if constexpr (K == Kind::sum) return DeviceReduce::Sum(temp, bytes, in, out, n, s, o);
  else if constexpr (K == Kind::min) return DeviceReduce::Min(temp, bytes, in, out, n, s, o);
  else return DeviceReduce::Max(temp, bytes, in, out, n, s, o);
}
template <class In, class Out, Kind K>
cudaError_t across(nccl::LocalRank<In, Out>* ranks, int count, int root, bool all,
                   const Options& o) {
  if constexpr (K == Kind::sum) return all ? nccl::AllReduceSum(ranks, count, o) : nccl::ReduceSum(ranks, count, root, o);
  else if constexpr (K == Kind::min) return all ? nccl::AllReduceMin(ranks, count, o) : nccl::ReduceMin(ranks, count, root, o);
  else return all ? nccl::AllReduceMax(ranks, count, o) : nccl::ReduceMax(ranks, count, root, o);
}

// One (type, op, total n, split, Options) on every local rank, all-reduce and reduce to each root;
// returns the failures. split[r] = rank r's items; the shards are consecutive, in rank order.
template <class In, class Out, Kind K>
int check_case(LocalRanks& local, std::int64_t total, const std::vector<std::int64_t>& split,
               std::uint64_t seed, const Options& options, const std::string& what) {
  const bool exact_bits = !std::is_floating_point_v<Out> || K != Kind::sum ||
                          options.accuracy == Accuracy::correctly_rounded;
  int failures = 0;
  const int count = int(local.ranks.size());
  std::vector<In*> whole(count), shard(count);
  std::vector<Out*> out(count), reference(count);
  std::vector<void*> temp(count, nullptr);
  std::vector<nccl::LocalRank<In, Out>> args(count);
  std::vector<Out> want(count);
  for (int i = 0; i < count; ++i) {
    NCCL_CHECKS_CUDA(cudaSetDevice(local.devices[i]));
    std::int64_t offset = 0;
    for (int r = 0; r < local.ranks[i]; ++r) offset += split[r];
    NCCL_CHECKS_CUDA(cudaMalloc(&whole[i], sizeof(In) * std::size_t(total > 0 ? total : 1)));
    NCCL_CHECKS_CUDA(cudaMalloc(&out[i], 4 * sizeof(Out)));
    reference[i] = out[i] + 2;
    if (total > 0) fill_every_value<<<2048, 256, 0, local.streams[i]>>>(whole[i], total, seed);
    NCCL_CHECKS_CUDA(cudaGetLastError());
    shard[i] = whole[i] + offset;
    std::size_t bytes = 0;
    NCCL_CHECKS_CUDA((one_gpu<In, Out, K>(nullptr, bytes, whole[i], reference[i], total, local.streams[i], options)));
    void* ref_temp = nullptr;
    NCCL_CHECKS_CUDA(cudaMalloc(&ref_temp, bytes));
    NCCL_CHECKS_CUDA((one_gpu<In, Out, K>(ref_temp, bytes, whole[i], reference[i], total, local.streams[i], options)));
    NCCL_CHECKS_CUDA(cudaStreamSynchronize(local.streams[i]));
    NCCL_CHECKS_CUDA(cudaFree(ref_temp));
    NCCL_CHECKS_CUDA(cudaMemcpy(&want[i], reference[i], sizeof(Out), cudaMemcpyDeviceToHost));
    args[i] = {nullptr, 0, shard[i], out[i], split[local.ranks[i]], local.comms[i], local.streams[i]};
  }
  NCCL_CHECKS_CUDA((across<In, Out, K>(args.data(), count, 0, true, options)));  // size query
  for (int i = 0; i < count; ++i) {
    NCCL_CHECKS_CUDA(cudaSetDevice(local.devices[i]));
    NCCL_CHECKS_CUDA(cudaMalloc(&temp[i], args[i].temp_storage_bytes));
    NCCL_CHECKS_CUDA(cudaMemset(temp[i], 0xA5, args[i].temp_storage_bytes));  // garbage
    NCCL_CHECKS_CUDA(cudaDeviceSynchronize());  // legacy stream: the calls' streams do not wait for it
    args[i].d_temp_storage = temp[i];
  }
  // All-reduce twice (the second's answer must match the first's), then reduce to each root.
  // Floating sums in plan order: every answer must be the first local rank's first all-reduce
  // answer, kept here (its slot is poisoned again by the calls after it).
  Out first_answer{};
  for (int call = 0; call < 2 + local.world; ++call) {
    const bool all = call < 2;
    const int root = all ? 0 : call - 2;
    for (int i = 0; i < count; ++i) {
      NCCL_CHECKS_CUDA(cudaSetDevice(local.devices[i]));
      NCCL_CHECKS_CUDA(cudaMemsetAsync(out[i] + (call % 2), 0xA5, sizeof(Out), local.streams[i]));
      args[i].d_out = out[i] + (call % 2);
    }
    NCCL_CHECKS_CUDA((across<In, Out, K>(args.data(), count, root, all, options)));
    for (int i = 0; i < count; ++i) {
      NCCL_CHECKS_CUDA(cudaSetDevice(local.devices[i]));
      NCCL_CHECKS_CUDA(cudaStreamSynchronize(local.streams[i]));
      Out got;
      NCCL_CHECKS_CUDA(cudaMemcpy(&got, out[i] + (call % 2), sizeof(Out), cudaMemcpyDeviceToHost));
      const bool receives = all || local.ranks[i] == root;
      Out expected = want[i];
      if (!exact_bits) {
        if (call == 0 && i == 0) first_answer = got;
        expected = first_answer;
      }
      if (!receives) {
        Out poison;
        std::memset(static_cast<void*>(&poison), 0xA5, sizeof(Out));
        expected = poison;  // a rank that does not receive writes nothing
      }
      if (std::memcmp(&got, &expected, sizeof(Out)) != 0) {
        ++failures;
        std::printf("FAIL %s total=%lld rank=%d call=%d root=%d: %s, want %s\n", what.c_str(),
                    (long long)total, local.ranks[i], call, root, bits_text(got).c_str(),
                    bits_text(expected).c_str());
      }
    }
  }
  for (int i = 0; i < count; ++i) {
    NCCL_CHECKS_CUDA(cudaSetDevice(local.devices[i]));
    NCCL_CHECKS_CUDA(cudaFree(temp[i]));
    NCCL_CHECKS_CUDA(cudaFree(out[i]));
    NCCL_CHECKS_CUDA(cudaFree(whole[i]));
  }
  return failures;
}

// Splits of `total` over `world` ranks: equal, uneven (rank r takes ~ (r + 1) shares), and each
// rank alone holding everything (every other shard empty).
inline std::vector<std::vector<std::int64_t>> splits(std::int64_t total, int world) {
  std::vector<std::vector<std::int64_t>> out;
  std::vector<std::int64_t> equal(world, total / world);
  equal[world - 1] += total % world;
  out.push_back(equal);
  std::vector<std::int64_t> uneven(world);
  const std::int64_t shares = std::int64_t(world) * (world + 1) / 2;
  std::int64_t given = 0;
  for (int r = 0; r < world; ++r) given += uneven[r] = total * (r + 1) / shares;
  uneven[world - 1] += total - given;
  out.push_back(uneven);
  for (int alone = 0; alone < world; ++alone) {
    std::vector<std::int64_t> s(world, 0);
    s[alone] = total;
    out.push_back(s);
  }
  return out;
}

template <class In, class Out, Kind K>
int check_sizes(LocalRanks& local, const std::vector<std::int64_t>& totals, std::uint64_t seed,
                const char* name, bool with_exact) {
  int failures = 0;
  for (std::int64_t total : totals)
    for (const auto& split : splits(total, local.world)) {
      std::string what = std::string(name) + " split";
      for (auto s : split) what += " " + std::to_string(s);
      failures += check_case<In, Out, K>(local, total, split, seed + std::uint64_t(total), Options{}, what);
      if (with_exact) {
        Options exact;
        exact.accuracy = Accuracy::correctly_rounded;
        failures += check_case<In, Out, K>(local, total, split, seed + std::uint64_t(total), exact,
                                           what + " correctly_rounded");
      }
    }
  return failures;
}

// Every shipped (type, operation) at small and medium totals; float sums and int32 sums also at
// 2^31 + 17 items (equal and uneven splits included).
inline int check_everything(LocalRanks& local, std::uint64_t seed, bool large) {
  const std::vector<std::int64_t> totals = {0, 1, 2, 31, 1000, 65537, (1 << 20) + 7};
  int failures = 0;
  failures += check_sizes<std::int32_t, std::int32_t, Kind::sum>(local, totals, seed, "Sum<int32>", false);
  failures += check_sizes<std::uint32_t, std::uint32_t, Kind::sum>(local, totals, seed, "Sum<uint32>", false);
  failures += check_sizes<std::int64_t, std::int64_t, Kind::sum>(local, totals, seed, "Sum<int64>", false);
  failures += check_sizes<std::uint64_t, std::uint64_t, Kind::sum>(local, totals, seed, "Sum<uint64>", false);
  failures += check_sizes<float, float, Kind::sum>(local, totals, seed, "Sum<float>", true);
  failures += check_sizes<float, double, Kind::sum>(local, totals, seed, "Sum<float,double>", true);
  failures += check_sizes<double, double, Kind::sum>(local, totals, seed, "Sum<double>", true);
  failures += check_sizes<__half, float, Kind::sum>(local, totals, seed, "Sum<half,float>", true);
  failures += check_sizes<__nv_bfloat16, float, Kind::sum>(local, totals, seed, "Sum<bf16,float>", true);
#define NCCL_CHECKS_MINMAX(T)                                                                     \
  failures += check_sizes<T, T, Kind::min>(local, totals, seed, "Min<" #T ">", false);           \
  failures += check_sizes<T, T, Kind::max>(local, totals, seed, "Max<" #T ">", false);
  NCCL_CHECKS_MINMAX(std::int32_t)
  NCCL_CHECKS_MINMAX(std::uint32_t)
  NCCL_CHECKS_MINMAX(std::int64_t)
  NCCL_CHECKS_MINMAX(std::uint64_t)
  NCCL_CHECKS_MINMAX(float)
  NCCL_CHECKS_MINMAX(double)
  NCCL_CHECKS_MINMAX(__half)
  NCCL_CHECKS_MINMAX(__nv_bfloat16)
#undef NCCL_CHECKS_MINMAX
  if (large) {
    const std::vector<std::int64_t> big = {(std::int64_t(1) << 31) + 17};
    failures += check_sizes<float, float, Kind::sum>(local, big, seed, "Sum<float> large", true);
    failures += check_sizes<std::int32_t, std::int32_t, Kind::sum>(local, big, seed, "Sum<int32> large", false);
  }
  return failures;
}

}  // namespace gpureduce::testing::nccl_checks
