// gpureduce_nccl_bench: a float array sharded over 1, 2, 4, ... GPUs of this process (as many as
// there are; one communicator each, ncclCommInitAll), reduced to every rank, per call:
//   cub+allreduce        what users write today: cub::DeviceReduce::Sum of the shard, then
//                        ncclAllReduce of the partial (the ranks' collectives in one group);
//   gpureduce            gpureduce::nccl::AllReduceSum, default Options;
//   gpureduce_exact      the same, Options::accuracy = correctly_rounded.
// Total n = 2^20 ... 2^32 in steps of 4x (--max_log2=K to stop earlier), equal shards of uniform
// random floats. Time: CUDA events around the call on every rank's stream, the slowest rank's
// time, median of --repeats calls after warm-up. CSV on stdout: gpus,n,contender,median_us,gbps.
// NCCL_NVLS_ENABLE=0 is set before NCCL starts (NVLink multicast must stay off here).
#include <cub/device/device_reduce.cuh>
#include <gpureduce/nccl.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

#define CHECK_CUDA(call)                                                                       \
  do {                                                                                         \
    const cudaError_t e_ = (call);                                                             \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d %s: %s (%s)\n", __FILE__, __LINE__, #call,                 \
                   cudaGetErrorString(e_), gpureduce::last_error_message());                  \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)
#define CHECK_NCCL(call)                                                                       \
  do {                                                                                         \
    const ncclResult_t r_ = (call);                                                            \
    if (r_ != ncclSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, ncclGetErrorString(r_)); \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)

__global__ void fill_uniform(float* out, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    std::uint64_t h = (std::uint64_t(i) + seed) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    out[i] = float(double(h >> 11) * 0x1p-53 * 2.0 - 1.0);
  }
}

struct Rank {
  int device;
  ncclComm_t comm;
  cudaStream_t stream;
  float* shard = nullptr;
  float* out = nullptr;
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  void* cub_temp = nullptr;
  std::size_t cub_bytes = 0;
  cudaEvent_t start, stop;
};

struct Run {
  std::vector<Rank> ranks;
  std::int64_t shard_items = 0;
};

// The slowest rank's time of one call, in microseconds.
double time_call(Run& run, const std::function<void()>& call) {
  for (Rank& r : run.ranks) {
    CHECK_CUDA(cudaSetDevice(r.device));
    CHECK_CUDA(cudaEventRecord(r.start, r.stream));
  }
  call();
  double slowest = 0;
  for (Rank& r : run.ranks) {
    CHECK_CUDA(cudaSetDevice(r.device));
    CHECK_CUDA(cudaEventRecord(r.stop, r.stream));
  }
  for (Rank& r : run.ranks) {
    CHECK_CUDA(cudaSetDevice(r.device));
    CHECK_CUDA(cudaEventSynchronize(r.stop));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, r.start, r.stop));
    slowest = std::max(slowest, double(ms) * 1000);
  }
  return slowest;
}

double median_us(Run& run, int repeats, const std::function<void()>& call) {
  for (int w = 0; w < 3; ++w) time_call(run, call);
  std::vector<double> t;
  for (int k = 0; k < repeats; ++k) t.push_back(time_call(run, call));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

std::vector<gpureduce::nccl::LocalRank<float, float>> local_ranks(Run& run) {
  std::vector<gpureduce::nccl::LocalRank<float, float>> list;
  for (Rank& r : run.ranks)
    list.push_back({r.temp, r.temp_bytes, r.shard, r.out, run.shard_items, r.comm, r.stream});
  return list;
}

void measure(Run& run, std::int64_t total, int repeats) {
  const int gpus = int(run.ranks.size());
  const double bytes = double(total) * sizeof(float);
  auto report = [&](const char* contender, double us) {
    std::printf("%d,%lld,%s,%.2f,%.1f\n", gpus, (long long)total, contender, us, bytes / us / 1e3);
    std::fflush(stdout);
  };
  report("cub+allreduce", median_us(run, repeats, [&] {
    for (Rank& r : run.ranks) {
      CHECK_CUDA(cudaSetDevice(r.device));
      CHECK_CUDA(cub::DeviceReduce::Sum(r.cub_temp, r.cub_bytes, r.shard, r.out + 2, run.shard_items, r.stream));
    }
    CHECK_NCCL(ncclGroupStart());
    for (Rank& r : run.ranks) CHECK_NCCL(ncclAllReduce(r.out + 2, r.out + 3, 1, ncclFloat, ncclSum, r.comm, r.stream));
    CHECK_NCCL(ncclGroupEnd());
  }));
  for (bool exact : {false, true}) {
    gpureduce::Options options;
    if (exact) options.accuracy = gpureduce::Accuracy::correctly_rounded;
    report(exact ? "gpureduce_exact" : "gpureduce", median_us(run, repeats, [&] {
      auto list = local_ranks(run);
      CHECK_CUDA(gpureduce::nccl::AllReduceSum(list.data(), int(list.size()), options));
    }));
  }
  // The correctly rounded answer's bits (every rank's; the same input for every GPU count, so
  // the same bits for every count).
  for (Rank& r : run.ranks) {
    float got = 0;
    CHECK_CUDA(cudaSetDevice(r.device));
    CHECK_CUDA(cudaMemcpy(&got, r.out, sizeof got, cudaMemcpyDeviceToHost));
    unsigned bits = 0;
    std::memcpy(&bits, &got, 4);
    std::printf("# correctly rounded bits: gpus=%d n=%lld rank=%d 0x%08x (%.9g)\n", gpus,
                (long long)total, r.device, bits, double(got));
  }
}

// Shards of `total` over the given GPUs, their buffers sized for every contender.
void prepare(Run& run, std::int64_t total) {
  run.shard_items = total / std::int64_t(run.ranks.size());
  for (Rank& r : run.ranks) {
    CHECK_CUDA(cudaSetDevice(r.device));
    cudaFree(r.shard);
    cudaFree(r.temp);
    cudaFree(r.cub_temp);
    CHECK_CUDA(cudaMalloc(&r.shard, std::size_t(run.shard_items) * sizeof(float)));
    // Element i of the whole array is the same for every GPU count: rank r's shard starts at
    // r * shard_items (the seed offsets the index).
    fill_uniform<<<2048, 256, 0, r.stream>>>(r.shard, run.shard_items,
                                             std::uint64_t(r.device) * std::uint64_t(run.shard_items));
    CHECK_CUDA(cudaGetLastError());
    r.cub_bytes = 0;
    CHECK_CUDA(cub::DeviceReduce::Sum(nullptr, r.cub_bytes, r.shard, r.out, run.shard_items, r.stream));
    CHECK_CUDA(cudaMalloc(&r.cub_temp, r.cub_bytes));
  }
  std::size_t most = 0;
  for (bool exact : {false, true}) {  // temp storage for both accuracies
    gpureduce::Options options;
    if (exact) options.accuracy = gpureduce::Accuracy::correctly_rounded;
    for (Rank& r : run.ranks) r.temp = nullptr;
    auto list = local_ranks(run);
    CHECK_CUDA(gpureduce::nccl::AllReduceSum(list.data(), int(list.size()), options));
    for (auto& l : list) most = std::max(most, l.temp_storage_bytes);
  }
  for (Rank& r : run.ranks) {
    CHECK_CUDA(cudaSetDevice(r.device));
    CHECK_CUDA(cudaMalloc(&r.temp, most));
    r.temp_bytes = most;
    CHECK_CUDA(cudaStreamSynchronize(r.stream));
  }
}

Run make_run(int gpus) {
  Run run;
  std::vector<int> devices(gpus);
  std::vector<ncclComm_t> comms(gpus);
  for (int d = 0; d < gpus; ++d) devices[d] = d;
  CHECK_NCCL(ncclCommInitAll(comms.data(), gpus, devices.data()));
  for (int d = 0; d < gpus; ++d) {
    Rank r{};
    r.device = d;
    r.comm = comms[d];
    CHECK_CUDA(cudaSetDevice(d));
    CHECK_CUDA(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking));
    CHECK_CUDA(cudaMalloc(&r.out, 4 * sizeof(float)));
    CHECK_CUDA(cudaEventCreate(&r.start));
    CHECK_CUDA(cudaEventCreate(&r.stop));
    run.ranks.push_back(r);
  }
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  int max_log2 = 32, repeats = 30;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--max_log2=", 11) == 0) max_log2 = std::atoi(argv[i] + 11);
    if (std::strncmp(argv[i], "--repeats=", 10) == 0) repeats = std::atoi(argv[i] + 10);
  }
  int devices = 0;
  CHECK_CUDA(cudaGetDeviceCount(&devices));
  std::printf("gpus,n,contender,median_us,gbps\n");
  for (int gpus = 1; gpus <= devices; gpus *= 2) {  // 1, 2, 4, 8: the scaling curve
    Run run = make_run(gpus);
    for (int k = 20; k <= max_log2; k += 2) {
      prepare(run, std::int64_t(1) << k);
      measure(run, std::int64_t(1) << k, repeats);
    }
    for (Rank& r : run.ranks) {
      cudaSetDevice(r.device);
      cudaFree(r.shard);
      cudaFree(r.temp);
      cudaFree(r.cub_temp);
      ncclCommDestroy(r.comm);
    }
  }
  return 0;
}
