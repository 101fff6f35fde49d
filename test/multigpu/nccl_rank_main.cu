// One rank of Nccl.OneProcessPerGpu (test_nccl.cu): `gpureduce_nccl_rank RANK WORLD FD SEED`
// reads the unique id from file descriptor FD, joins a WORLD-rank communicator on GPU RANK, runs
// every check of nccl_checks.cuh, and exits 0 when all hold.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "multigpu/nccl_checks.cuh"

int main(int argc, char** argv) {
  using namespace gpureduce::testing::nccl_checks;
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s RANK WORLD FD SEED\n", argv[0]);
    return 2;
  }
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  const int rank = std::atoi(argv[1]), world = std::atoi(argv[2]);
  ncclUniqueId id;
  if (read(std::atoi(argv[3]), &id, sizeof id) != ssize_t(sizeof id)) {
    std::fprintf(stderr, "rank %d: no unique id on the pipe\n", rank);
    return 1;
  }
  LocalRanks local;
  local.world = world;
  local.ranks = {rank};
  local.devices = {rank};
  local.comms.resize(1);
  local.streams.resize(1);
  NCCL_CHECKS_CUDA(cudaSetDevice(rank));
  NCCL_CHECKS_CUDA(cudaStreamCreateWithFlags(&local.streams[0], cudaStreamNonBlocking));
  if (ncclCommInitRank(&local.comms[0], world, id, rank) != ncclSuccess) {
    std::fprintf(stderr, "rank %d: ncclCommInitRank failed\n", rank);
    return 1;
  }
  const int failures = check_everything(local, std::strtoull(argv[4], nullptr, 10), true);
  std::printf("rank %d: %d failures\n", rank, failures);
  ncclCommDestroy(local.comms[0]);
  return failures == 0 ? 0 : 1;
}
