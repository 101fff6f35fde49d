// Names and one-line histories of the strategies and pipelines, for messages and reports.
#include "gpureduce/gpureduce.hpp"

namespace gpureduce {

const char* to_string(Strategy strategy) {
  switch (strategy) {
    case Strategy::neighbored: return "neighbored";
    case Strategy::strided_index: return "strided_index";
    case Strategy::sequential: return "sequential";
    case Strategy::first_add: return "first_add";
    case Strategy::unroll_last_warp: return "unroll_last_warp";
    case Strategy::complete_unroll: return "complete_unroll";
    case Strategy::multi_element: return "multi_element";
    case Strategy::warp_shuffle: return "warp_shuffle";
    case Strategy::global_memory: return "global_memory";
    case Strategy::vectorized: return "vectorized";
    case Strategy::cub_block: return "cub_block";
    case Strategy::automatic: return "automatic";
  }
  return "invalid";
}

const char* to_string(Pipeline pipeline) {
  switch (pipeline) {
    case Pipeline::two_kernel: return "two_kernel";
    case Pipeline::last_block: return "last_block";
    case Pipeline::atomic: return "atomic";
    case Pipeline::grid_sync: return "grid_sync";
    case Pipeline::cluster: return "cluster";
    case Pipeline::automatic: return "automatic";
  }
  return "invalid";
}

const char* to_string(Accuracy accuracy) {
  switch (accuracy) {
    case Accuracy::plan_order: return "plan_order";
    case Accuracy::correctly_rounded: return "correctly_rounded";
  }
  return "invalid";
}

const char* seed_step(Strategy strategy) {
  switch (strategy) {
    case Strategy::global_memory: return "004 R0";
    case Strategy::neighbored: return "001 baseline, 003 reduceNeighbored, 004 R1-R2";
    case Strategy::strided_index: return "001 interleaved #2, 003 reduceNeighboredLess";
    case Strategy::sequential: return "000 optimized1, 001, 003 reduceInterleaved, 004 R3";
    case Strategy::first_add: return "000 optimized2, 001, 004 R4";
    case Strategy::unroll_last_warp: return "000 optimized3, 001, 004 R5";
    case Strategy::complete_unroll: return "001, 003, 004 R6";
    case Strategy::multi_element: return "003 unrolling 2/4/8, 004 R7";
    case Strategy::warp_shuffle: return "000, 004 R8";
    case Strategy::vectorized: return "beyond the seeds";
    case Strategy::cub_block: return "beyond the seeds (CUB)";
    case Strategy::automatic: return "-";
  }
  return "invalid";
}

const char* what_it_fixes(Strategy strategy) {
  switch (strategy) {
    case Strategy::global_memory: return "baseline: pairs added in global memory";
    case Strategy::neighbored: return "tree in shared memory (divergent tid % 2s)";
    case Strategy::strided_index: return "no divergence (bank conflicts instead)";
    case Strategy::sequential: return "no bank conflicts (tid < s)";
    case Strategy::first_add: return "no idle threads: two loads added while loading";
    case Strategy::unroll_last_warp: return "last warp without __syncthreads";
    case Strategy::complete_unroll: return "block size at compile time, fully unrolled";
    case Strategy::multi_element: return "fixed grid, many elements per thread";
    case Strategy::warp_shuffle: return "shuffles instead of a shared-memory tree";
    case Strategy::vectorized: return "128-bit loads, 4 in flight";
    case Strategy::cub_block: return "CUB's AgentReduce: CUB's order, bit for bit";
    case Strategy::automatic: return "chosen per device and size";
  }
  return "invalid";
}

}  // namespace gpureduce

namespace gpureduce {

std::string describe(const LaunchPlan& plan) {
  std::string text = std::string(to_string(plan.strategy)) + "/" + to_string(plan.pipeline) +
                     ": grid " + std::to_string(plan.grid_blocks) + " x " +
                     std::to_string(plan.block_threads) + " threads, " +
                     std::to_string(plan.items_per_thread) + " items/thread per load batch, " +
                     std::to_string(plan.launches) + (plan.launches == 1 ? " launch" : " launches") +
                     ", temp storage " + std::to_string(plan.temp_storage_bytes) + " B";
  if (plan.rationale != nullptr && *plan.rationale != '\0') text += "; " + std::string(plan.rationale);
  return text;
}

}  // namespace gpureduce
