// gpureduce::nccl on every GPU of the machine (2, 4 or 8): one process driving all (ncclCommInitAll,
// the many-rank calls), and a process per GPU (the unique id over a pipe to children that exec
// gpureduce_nccl_rank). Every shipped (type, operation), totals 0 .. 2^31 + 17, equal, uneven and
// one-rank-empty splits, all-reduce and reduce to every root (nccl_checks.cuh says what must hold);
// and the correctly rounded all-reduce captured in CUDA graphs. Label multigpu: skipped with fewer
// than two GPUs, failed instead under GPUREDUCE_REQUIRE_GPU=1. NCCL_NVLS_ENABLE=0 always (NVLink
// multicast must stay off on the machines these run on).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "gpu/common.cuh"
#include "multigpu/multigpu_common.hpp"
#include "multigpu/nccl_checks.cuh"

namespace gpureduce::testing {
namespace {

using nccl_checks::LocalRanks;

class Nccl : public ::testing::Test {
 protected:
  void SetUp() override { setenv("NCCL_NVLS_ENABLE", "0", 1); }
};

// The first `count` GPUs of this process, as ranks 0 .. count-1 of one communicator.
struct AllGpus {
  LocalRanks local;
  explicit AllGpus(int count) {
    local.world = count;
    for (int d = 0; d < count; ++d) {
      local.ranks.push_back(d);
      local.devices.push_back(d);
    }
    local.comms.resize(count);
    local.streams.resize(count);
    EXPECT_EQ(ncclCommInitAll(local.comms.data(), count, local.devices.data()), ncclSuccess);
    for (int i = 0; i < count; ++i) {
      EXPECT_EQ(cudaSetDevice(i), cudaSuccess);
      EXPECT_EQ(cudaStreamCreateWithFlags(&local.streams[i], cudaStreamNonBlocking), cudaSuccess);
    }
  }
  ~AllGpus() {
    for (int i = 0; i < local.world; ++i) {
      cudaSetDevice(i);
      cudaStreamDestroy(local.streams[i]);
      ncclCommDestroy(local.comms[i]);
    }
    cudaSetDevice(0);
  }
};

// Every GPU of the machine (2, 4 or 8), one process.
TEST_F(Nccl, OneProcessDrivesEveryGpu) {
  REQUIRE_GPUS(2);
  AllGpus all(gpu_count());
  EXPECT_EQ(nccl_checks::check_everything(all.local, fresh_seed(), true), 0);
}

// The many-rank correctly rounded all-reduce captured into a graph per GPU, replayed twice.
TEST_F(Nccl, CorrectlyRoundedAllReduceInGraphs) {
  REQUIRE_GPUS(2);
  AllGpus both(2);
  const std::int64_t total = (1 << 20) + 3, half = total / 2;
  const std::uint64_t seed = fresh_seed();
  Options exact;
  exact.accuracy = Accuracy::correctly_rounded;
  float* whole[2];
  float* out[2];
  void* temp[2];
  nccl::LocalRank<float, float> ranks[2];
  float want = 0;
  for (int i = 0; i < 2; ++i) {
    CUDA_OK(cudaSetDevice(i));
    CUDA_OK(cudaMalloc(&whole[i], total * sizeof(float)));
    CUDA_OK(cudaMalloc(&out[i], 2 * sizeof(float)));
    nccl_checks::fill_every_value<<<1024, 256>>>(whole[i], total, seed);
    CUDA_OK(cudaDeviceSynchronize());
    ranks[i] = {nullptr, 0, whole[i] + (i ? half : 0), out[i], i ? total - half : half,
                both.local.comms[i], both.local.streams[i]};
  }
  CUDA_OK(cudaSetDevice(0));  // whole[0] lives there (the loop left device 1 current)
  ASSERT_TRUE((run_gpureduce<Case<float, float, Op::sum>>(whole[0], total, exact, want)));
  CUDA_OK(nccl::AllReduceSum(ranks, 2, exact));
  cudaGraph_t graph[2];
  cudaGraphExec_t exec[2];
  // Every allocation before the first capture begins: a global-mode capture refuses cudaMalloc
  // anywhere in the process until it ends. And one call outside the capture: the first
  // collective of a communicator sets up its connections (NCCL 2.22 on connects lazily), which a
  // capture cannot hold. On 2x H200 (2026-11-26) the captured call failed (cudaErrorUnknown from
  // an NCCL call) when it was the first; with this warm-up it succeeded (2x H100, same day).
  for (int i = 0; i < 2; ++i) {
    CUDA_OK(cudaSetDevice(i));
    CUDA_OK(cudaMalloc(&temp[i], ranks[i].temp_storage_bytes));
    ranks[i].d_temp_storage = temp[i];
  }
  ASSERT_EQ(nccl::AllReduceSum(ranks, 2, exact), cudaSuccess) << last_error_message();
  for (int i = 0; i < 2; ++i) {
    CUDA_OK(cudaSetDevice(i));
    CUDA_OK(cudaStreamSynchronize(both.local.streams[i]));
  }
  for (int i = 0; i < 2; ++i) {
    CUDA_OK(cudaSetDevice(i));
    CUDA_OK(cudaStreamBeginCapture(both.local.streams[i], cudaStreamCaptureModeGlobal));
  }
  const cudaError_t captured = nccl::AllReduceSum(ranks, 2, exact);
  EXPECT_EQ(captured, cudaSuccess) << last_error_message();
  // Every capture ends before any graph is instantiated: while one global-mode capture is open,
  // cudaGraphInstantiate anywhere in the process fails (2x H100, 2026-11-26: error 900 for GPU 0's
  // graph, GPU 1's capture still open, and the test then hung). Nor may an early return leave one
  // open.
  cudaError_t ended[2];
  for (int i = 0; i < 2; ++i) {
    CUDA_OK(cudaSetDevice(i));
    ended[i] = cudaStreamEndCapture(both.local.streams[i], &graph[i]);
  }
  for (int i = 0; i < 2; ++i) ASSERT_EQ(ended[i], cudaSuccess) << cudaGetErrorString(ended[i]);
  for (int i = 0; i < 2; ++i) {
    CUDA_OK(cudaSetDevice(i));
    CUDA_OK(cudaGraphInstantiate(&exec[i], graph[i], 0));
  }
  for (int replay = 0; replay < 2; ++replay) {
    for (int i = 0; i < 2; ++i) {
      CUDA_OK(cudaSetDevice(i));
      CUDA_OK(cudaMemsetAsync(out[i], 0xA5, sizeof(float), both.local.streams[i]));  // ordered before
      CUDA_OK(cudaGraphLaunch(exec[i], both.local.streams[i]));
    }
    for (int i = 0; i < 2; ++i) {
      CUDA_OK(cudaSetDevice(i));
      CUDA_OK(cudaStreamSynchronize(both.local.streams[i]));
      EXPECT_TRUE(same_bits(copy_to_host(out[i]), want)) << "GPU " << i << " replay " << replay;
    }
  }
  for (int i = 0; i < 2; ++i) {
    CUDA_OK(cudaSetDevice(i));
    CUDA_OK(cudaGraphExecDestroy(exec[i]));
    CUDA_OK(cudaGraphDestroy(graph[i]));
    CUDA_OK(cudaFree(temp[i]));
    CUDA_OK(cudaFree(out[i]));
    CUDA_OK(cudaFree(whole[i]));
  }
}

// A process per GPU (2, 4 or 8), one rank each: the parent makes the unique id and sends it down
// a pipe to each child, which execs gpureduce_nccl_rank (a fresh process: no CUDA state inherited).
TEST_F(Nccl, OneProcessPerGpu) {
  REQUIRE_GPUS(2);
  const int world = gpu_count();
  ncclUniqueId id;
  ASSERT_EQ(ncclGetUniqueId(&id), ncclSuccess);
  const std::string seed = std::to_string(fresh_seed()), world_text = std::to_string(world);
  // The rank program: next to this binary when run from the build tree; elsewhere (a copied
  // build) the environment says where.
  const char* from_environment = std::getenv("GPUREDUCE_NCCL_RANK_BINARY");
  const std::string program = from_environment ? from_environment : GPUREDUCE_NCCL_RANK_BINARY;
  std::vector<pid_t> children(world);
  for (int rank = 0; rank < world; ++rank) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    children[rank] = fork();
    ASSERT_GE(children[rank], 0);
    if (children[rank] == 0) {
      close(fds[1]);
      const std::string rank_text = std::to_string(rank), fd_text = std::to_string(fds[0]);
      execl(program.c_str(), program.c_str(), rank_text.c_str(), world_text.c_str(),
            fd_text.c_str(), seed.c_str(), static_cast<char*>(nullptr));
      _exit(127);  // exec failed
    }
    close(fds[0]);
    ASSERT_EQ(write(fds[1], &id, sizeof id), ssize_t(sizeof id));
    close(fds[1]);
  }
  for (int rank = 0; rank < world; ++rank) {
    int status = 0;
    ASSERT_EQ(waitpid(children[rank], &status, 0), children[rank]);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "rank " << rank << " failed (status " << status << "; its output is above)";
  }
}

}  // namespace
}  // namespace gpureduce::testing
