// The cluster pipeline (sm_90+): the whole grid is one thread-block cluster of at most 16 blocks.
// Each block leaves its partial in its own shared memory, the cluster meets at its hardware
// barrier, and block 0 reads the partials straight out of the other blocks' shared memory
// (distributed shared memory) and folds them in index order. No global partials, no counter, no
// cooperative launch: for inputs of 64-256 KiB, which 16 blocks read in one batch, it was the
// cheapest way for blocks to meet on an H200; from 1 MiB more blocks read faster than 16 can
// (docs/tuning.md, 'Cluster pipeline').
#pragma once

#include <cooperative_groups.h>

#include "problem.cuh"

namespace gpureduce::detail {

// The most blocks a cluster may hold on sm_90 (8 portably; 16 with
// cudaFuncAttributeNonPortableClusterSizeAllowed, which dispatch sets).
inline constexpr int kMaxClusterBlocks = 16;

template <class P>
__device__ __forceinline__ void cluster_epilogue(const KernelArgs<P>& args,
                                                 const typename P::Accum& partial) {
  using Accum = typename P::Accum;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  // Device code built for an older architecture has no clusters; dispatch never selects this
  // pipeline on a device below compute capability 9.0, so this is unreachable there.
  __trap();
#else
  __shared__ alignas(Accum) unsigned char slot_bytes[sizeof(Accum)];
  Accum* slot = reinterpret_cast<Accum*>(slot_bytes);
  if (threadIdx.x == 0) *slot = partial;
  cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  cluster.sync();  // release/acquire at cluster scope: every block's slot is written and visible
  if (blockIdx.x == 0 && threadIdx.x == 0) {  // the grid is one cluster: block index = rank
    const int blocks = int(gridDim.x);
    // All loads first (each a round trip to another SM), then the fold, in rank order.
    Accum parts[kMaxClusterBlocks];
#pragma unroll
    for (int r = 0; r < kMaxClusterBlocks; ++r)
      if (r < blocks) parts[r] = *cluster.map_shared_rank(slot, r);
    Accum total = parts[0];
#pragma unroll
    for (int r = 1; r < kMaxClusterBlocks; ++r)
      if (r < blocks) total = args.op(total, parts[r]);
    write_result(args, total);
  }
  cluster.sync();  // no block may exit, freeing its shared memory, before block 0 has read it
#endif
}

}  // namespace gpureduce::detail
