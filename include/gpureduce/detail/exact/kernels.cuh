// The kernels of correctly rounded sums: every (rung, input, output) has one, whose pipeline is an
// argument as in kernels.cuh, plus the second kernel of two_kernel. A block: each thread sums its
// inputs exactly (thread_sum.cuh), the rung combines the threads' integers (block_combine.cuh),
// the pipeline's epilogue combines the blocks' states and rounds once (epilogues.cuh).
#pragma once

#include "../block/vectorized.cuh"
#include "../kernels.cuh"
#include "../launch.cuh"
#include "block_combine.cuh"
#include "epilogues.cuh"
#include "cluster_window.cuh"
#include "grid_window.cuh"
#include "one_block_sum.cuh"
#include "thread_inputs.cuh"
#include "thread_sum.cuh"

namespace gpureduce::detail::exact {

// Dynamic shared memory: the block's state, then the region (the threads' bins for float and
// bfloat16 inputs; else one column of integers, the seed rungs' combine), then the warps' slots and
// the rung's own buffer for 64-bit values. Halves keep no bins (HalfSumThread), so their blocks ask
// for 2 KiB of region, not 32.
template <class Family>
constexpr std::size_t kBlockExactBytes = (sizeof(BlockExact<Family>) + 15) / 16 * 16;
template <class In>
inline constexpr bool kKeepsBins =
    std::is_same_v<family_of<In>, FloatFamily> && !std::is_same_v<In, __half>;
// Doubles keep a second column: each thread's third window word (CascadeSink::third_word).
template <class In>
inline constexpr bool kKeepsThirdWord = kThirdWindowWord<family_of<In>>;
template <class In>
__host__ __device__ constexpr std::size_t region_bytes(int block_threads) {
  return std::size_t(block_threads) * 8 *
         (kKeepsBins<In> ? std::size_t(kFloatBins) : kKeepsThirdWord<In> ? 2 : 1);
}
__host__ __device__ constexpr std::size_t warp_slot_bytes(int block_threads) {
  return std::size_t(block_threads / 32) * kWarpSlots * 8;
}
template <class Rung, class In>
std::size_t exact_shared_bytes(int block_threads) {
  return kBlockExactBytes<family_of<In>> + region_bytes<In>(block_threads) +
         warp_slot_bytes(block_threads) + Rung::shared_bytes(block_threads, 8);
}

// Where a block keeps its shared memory (kBlockExactBytes, region_bytes, warp_slot_bytes), and the
// rung's global scratch row for this block, if it uses one.
template <class Family>
struct BlockMemory {
  BlockExact<Family>* exact;
  unsigned char* region;  // the threads' bins (float, bfloat16) or one column of integers
  long long* slots;       // a row of kWarpSlots words per warp
  long long* tree;        // the rung's own buffer
  long long* scratch;     // the rung's global scratch (kUsesGlobalScratch), else null
  // warp0_takes_state_on: the combine then ends with a warp's barrier, not the block's.
  bool warp0_finishes;
};

// The end of the vectorized rung's combine: the lanes that wrote the state's last words are warp
// 0's, so where warp 0 alone reads it next a warp barrier is enough (two block barriers fewer on a
// one-block call's path, one on the atomic pipeline's).
__device__ __forceinline__ void end_of_combine(bool warp0_finishes) {
  if (warp0_finishes) __syncwarp();
  else __syncthreads();
}

// Float family, one thread's kind (FloatWindowThread, HalfSumThread): it sums its inputs, and the
// block adds the threads' sums into its state. The vectorized rung's warps add their lanes' sums
// with shuffles into a row each (at once where the warp's windows lie close), warp 0 totals
// the rows; the seed rungs sum each limb's column with their own block reduction.
template <class Rung, int BLOCK, class Thread, class Share>
__device__ __forceinline__ void sum_float_thread(Thread& thread, const Share& share,
                                                 const BlockMemory<FloatFamily>& m) {
  BlockExact<FloatFamily>& shared = *m.exact;
  share.template sum_into<kVectorLoads<Rung>>(thread);
  if constexpr (kVectorLoads<Rung>) {
    std::int64_t n;
    int position;
    if (thread.finish_in_shared_window(n, position)) {
      block_or(thread.seen, shared.seen);
      warp_window_into_row(n, position, m.slots);
    } else {
      ThreadLimbs limbs;
      thread.finish(limbs);
      block_or(thread.seen, shared.seen);
      combine_thread_limbs_by_warps(limbs, m.slots);
    }
    __syncthreads();
    total_rows(shared, m.slots);
    end_of_combine(m.warp0_finishes);
  } else {
    ThreadLimbs limbs;
    thread.finish(limbs);
    block_or(thread.seen, shared.seen);
    block_or(limbs.nonzero(), shared.mask[0]);
    __syncthreads();
    combine_thread_limbs<Rung, BLOCK>(shared, limbs, reinterpret_cast<long long*>(m.region), m.tree,
                                      m.scratch);
  }
}

// Float family: each thread sums its inputs in its window and bins (or, for halves, one double).
template <class Rung, int BLOCK, class Share>
__device__ __forceinline__ void sum_float_family(const Share& share,
                                                 const BlockMemory<FloatFamily>& m) {
  if constexpr (std::is_same_v<typename Share::Item, __half>) {
    HalfSumThread thread(m.exact->state);
    sum_float_thread<Rung, BLOCK>(thread, share, m);
  } else {
    FloatWindowThread thread(reinterpret_cast<double*>(m.region) + threadIdx.x, int(blockDim.x),
                             m.exact->state);
    sum_float_thread<Rung, BLOCK>(thread, share, m);
  }
}

// The threads' second expansions (CascadeSink, in `his` and `los`), where any holds a word:
// merged by the block's combine into its state before the expansions themselves take those words.
// Each thread's own atomics into the state, every thread into the same few limbs, ran as
// compare-and-swap loops retried against one another (doubles spanning 120 binades: 4M 91 -> 66
// µs; ncu of the float bins' like case: docs/tuning.md, 'Wide data, continued').
template <class Family>
__device__ __forceinline__ void combine_second_expansions(BlockExact<Family>& shared,
                                                          const CascadeSink<Family>& sink,
                                                          double* his, double* los) {
  const DoubleExpansion second{*sink.hi, *sink.lo};
  // also orders every thread's read of its words before the combine writes them
  if (!__syncthreads_or(second.hi != 0 || second.lo != 0)) return;
  combine_expansions_by_halves(shared, second, his, los);
  __syncthreads();
}

// Double family (and exact products of doubles, whose unit is lower): each thread's window and
// double expansion (kWindow false: the expansion alone), their remainders in the block's state as
// they come; at the end the vectorized rung merges the expansions by halves (products: their lo
// terms' expansions first, apart), the seed rungs add their pieces limb by limb with their own
// block reduction (products never run on them: blas1_sum.cuh builds the vectorized rung only).
// kThirdWord false: the window's third word off from the start (see exact_block_state).
template <class Rung, int BLOCK, bool kWindow, bool kThirdWord, class Share, class Family>
__device__ __forceinline__ void sum_double_family(const Share& share, const BlockMemory<Family>& m) {
  BlockExact<Family>& shared = *m.exact;
  constexpr bool kProducts = !std::is_same_v<Family, DoubleFamily>;
  // the region (a column of integers for the seed rungs) and the warps' slots hold a double a
  // thread each: the thread's second expansion until its end, then the combine's words; sums of
  // doubles keep their window's third word in the region's second column
  auto* his = reinterpret_cast<double*>(m.region);
  auto* los = reinterpret_cast<double*>(m.slots);
  std::conditional_t<kProducts, ProductExpansionThread<kWindow, Family>,
                     DoubleExpansionThread<kWindow, Family>>
      thread(shared.state, his + threadIdx.x, los + threadIdx.x);
  if constexpr (!kThirdWord) thread.third_on = false;
  share.template sum_into<kVectorLoads<Rung>>(thread);
  if constexpr (kVectorLoads<Rung>) {
    thread.fold();
    if constexpr (kProducts) thread.sink.flush();  // holds nothing
    else combine_second_expansions(shared, thread.sink, his, los);
    thread.note_sign_of_zero();
    if constexpr (kProducts) {
      thread.low.note_sign_of_zero();
      thread.seen |= thread.low.seen;
    }
    block_or(thread.seen, shared.seen);
    if constexpr (kProducts) {  // the lo terms' expansions first, apart (ProductExpansionThread)
      combine_expansions_by_halves(shared, thread.low.expansion, his, los);
      __syncthreads();
    }
    combine_expansions_by_halves(shared, thread.expansion, his, los);
    end_of_combine(m.warp0_finishes);
  } else {
    Pieces pieces[2];
    thread.finish(pieces);
    block_or(thread.seen, shared.seen);
    mark_limbs(pieces, shared.mask);
    __syncthreads();
    combine_limbs<Rung, BLOCK>(shared, pieces, reinterpret_cast<long long*>(m.region), m.tree,
                               m.scratch);
  }
}

// Whether warp 0 alone takes the block's state on after the combine: finish_block's branches that
// begin in warp 0 (one block rounding its own state, the atomic epilogue).
template <bool kAtomicOnly, class In, class Out>
__device__ __forceinline__ bool warp0_takes_state_on(const ExactArgs<In, Out>& args) {
  if (gridDim.x == 1) return args.state_out == nullptr;
  return kAtomicOnly || static_cast<Pipeline>(args.pipeline) == Pipeline::atomic;
}

// The block's state, complete: with one block it is the answer (rounded, or exported sealed to
// be added to other ranks'); else it goes to the pipeline's epilogue.
template <bool kAtomicOnly, class Family, class In, class Out>
__device__ __forceinline__ void finish_block(const ExactArgs<In, Out>& args,
                                             BlockExact<Family>& shared) {
  if (gridDim.x == 1) {
    if (args.state_out != nullptr) {
      seal_block_state(shared, args.num_items);
    } else {
      if (threadIdx.x >= 32) return;  // warp 0 rounds (warp0_takes_state_on)
      if (threadIdx.x == 0) count_what_was_seen(shared, args.num_items);
      __syncwarp();
    }
    return finish_state(args, shared.state);
  }
  const std::int64_t items = blockIdx.x == 0 ? args.num_items : 0;  // counted once
  const auto pipeline = static_cast<Pipeline>(args.pipeline);
  if constexpr (kAtomicOnly) {
    atomic_epilogue(args, shared, items);  // seals in registers
  } else if (pipeline == Pipeline::atomic) {
    atomic_epilogue(args, shared, items);
  } else {
    seal_block_state(shared, items);
    switch (pipeline) {
      case Pipeline::last_block: last_block_epilogue(args, shared); break;
      case Pipeline::grid_sync: grid_sync_epilogue(args, shared); break;
      case Pipeline::cluster: cluster_epilogue(args, shared); break;
      default: write_partial(args.partial_states(), shared.state); break;  // two_kernel
    }
  }
}

// The block's exact state of its share of the inputs (the grid's share of args by default; a
// segment's range for segmented sums; a share of BLAS terms), in shared memory (after the launch's
// wait). In is the type the threads sum (the share's Item). kAtomicOnly: automatic's kernels,
// built with the atomic epilogue alone (less code on the path, and in the instruction cache).
// kDoubleWindow: doubles take the window (DoubleThreadSum). kThirdWord false: without its third
// word, for blocks whose doubles are known to span more than it holds (general_block_into_grid).
template <class Rung, int BLOCK, class In, class Out, bool kAtomicOnly, bool kDoubleWindow = true,
          bool kThirdWord = true, class Share = InputShare<In>>
__device__ __forceinline__ BlockExact<family_of<In>>& exact_block_state(
    const ExactArgs<In, Out>& args, const Share& share) {
  static_assert(std::is_same_v<typename Share::Item, In>, "the share feeds the summed type");
  using Family = family_of<In>;
  extern __shared__ __align__(16) unsigned char exact_shared[];
  BlockMemory<Family> m;
  m.exact = reinterpret_cast<BlockExact<Family>*>(exact_shared);
  m.region = exact_shared + kBlockExactBytes<Family>;
  m.slots = reinterpret_cast<long long*>(m.region + region_bytes<In>(int(blockDim.x)));
  m.tree = m.slots + warp_slot_bytes(int(blockDim.x)) / 8;
  m.scratch = Rung::kUsesGlobalScratch ? args.template scratch<Family>(gridDim.x) +
                                             std::int64_t(blockIdx.x) * blockDim.x
                                       : nullptr;
  m.warp0_finishes = warp0_takes_state_on<kAtomicOnly>(args);
  m.exact->clear(m.slots);
  __syncthreads();
  if constexpr (std::is_same_v<Family, FloatFamily>) sum_float_family<Rung, BLOCK>(share, m);
  else sum_double_family<Rung, BLOCK, kDoubleWindow, kThirdWord>(share, m);
  return *m.exact;
}
template <class Rung, int BLOCK, class In, class Out, bool kAtomicOnly, bool kDoubleWindow = true,
          bool kThirdWord = true>
__device__ __forceinline__ BlockExact<family_of<In>>& exact_block_state(
    const ExactArgs<In, Out>& args) {
  return exact_block_state<Rung, BLOCK, In, Out, kAtomicOnly, kDoubleWindow, kThirdWord>(
      args, grid_share(args));
}

// The body of every first-pass kernel: the block's state, then its pipeline's epilogue.
// kPadRagged: the share's (exact_args.cuh, InputShare).
template <class Rung, int BLOCK, class In, class Out, bool kAtomicOnly, bool kDoubleWindow = true,
          bool kPadRagged = false>
__device__ __forceinline__ void exact_sum_block(const ExactArgs<In, Out>& args) {
  wait_for_previous_kernel_then_release_next();
  auto& state = exact_block_state<Rung, BLOCK, In, Out, kAtomicOnly, kDoubleWindow>(
      args, grid_share<kPadRagged>(args));
  finish_block<kAtomicOnly>(args, state);
}

template <class Rung, int BLOCK, class In, class Out>
__global__ void __launch_bounds__(kMaxThreadsFor<BLOCK>) exact_sum_kernel(ExactArgs<In, Out> args) {
  exact_sum_block<Rung, BLOCK, In, Out, false>(args);
}

// automatic's kernel: the vectorized rung at its block size, the atomic epilogue only. At least
// four blocks an SM (64 registers): left free, the double kernel took 120 registers, two blocks.
// For doubles built twice, with and without the window (dispatch.cuh: kDoubleWindowMinItems).
inline constexpr int kAutomaticBlockThreads = 256;
// Floats read a thread's ragged last batch as one batch padded with -0 (sum_inputs), its loads in
// flight together: H200, graphs, f32 10M 10.89-10.94 -> 10.33-10.37 µs (CUB 8.79), 16M-256M
// 0.05-0.2 µs slower (docs/tuning.md, 'The general kernel's ragged batch'). Doubles keep a vector
// at a time: padded so, f64 10M took 23.67 -> 24.97 µs and 16M-256M 0.6-1.1 more.
template <class In, class Out, bool kDoubleWindow>
__global__ void __launch_bounds__(kAutomaticBlockThreads, 4)
    exact_automatic_kernel(ExactArgs<In, Out> args) {
  exact_sum_block<VectorizedRung, kAutomaticBlockThreads, In, Out, true, kDoubleWindow,
                  std::is_same_v<In, float>>(args);
}

// automatic's one-block kernel (at most kOneBlockBytes of input, nothing exported): the fast path
// where the block's inputs lie within a window (one_block_sum.cuh), else automatic's body.
template <class In, class Out>
__global__ void __launch_bounds__(kAutomaticBlockThreads)
    exact_one_block_kernel(ExactArgs<In, Out> args) {
  if (one_block_in_window<kAutomaticBlockThreads>(args)) return;
  exact_sum_block<VectorizedRung, kAutomaticBlockThreads, In, Out, true, false>(args);
}

// automatic's cluster kernel (above the one-block limit, at most kClusterWindowMaxBytes, nothing
// exported; the grid one cluster, args.pipeline cluster): the window across the cluster
// (cluster_window.cuh), else the general body, whose blocks meet in block 0's shared memory.
template <class In, class Out>
__global__ void __launch_bounds__(kAutomaticBlockThreads, 1)
    exact_cluster_kernel(ExactArgs<In, Out> args) {
  if (cluster_in_window<kAutomaticBlockThreads>(args)) return;
  exact_sum_block<VectorizedRung, kAutomaticBlockThreads, In, Out, false, false>(args);
}

// A grid window block whose inputs the window refused: the general body over its share, its
// state into the grid's, and a record saying so. Doubles get here only where three parts refused
// them too, spans past 61 fields (or infinities, NaN): the window's third word would hold few such
// data, and its first miss in each thread cost doubles of 2^-60 to 2^61 1M 40.7 -> 44.8 µs, 4M
// 74.7 -> 79.3 (threads of a few batches), so it stays off here.
template <class In, class Out>
__device__ __forceinline__ void general_block_into_grid(const ExactArgs<In, Out>& args,
                                                        std::uint64_t* records) {
  constexpr int kBlock = kAutomaticBlockThreads;
  auto& state = exact_block_state<VectorizedRung, kBlock, In, Out, true, true, false>(args);
  if (threadIdx.x < 32) {
    add_block_into_grid(args, state, 0);  // the last block counts n
    __syncwarp();  // warp 0's adds, then a fence, before thread 0's record (its flags)
    if (threadIdx.x == 0) {
      __threadfence();
      publish_record(records, blockIdx.x, WindowRecord{0, ~0u, 0u, 0u, 0u});
    }
  }
}

// A double block the window refused: its share read again, each input in three parts
// (DoubleWindowThread<3>, spans to 61 fields where two parts hold 27), and its record; where
// those refuse too (a span past the window, an infinity or NaN), the general body. Doubles of
// 2^-20 to 2^21, H200, graphs: 4M 53.7 -> 15.5 µs (CUB 7.1), 1M 19.4 -> 7.1, 64K 11.7 -> 4.5;
// doubles of 2^-60 to 2^61 pay the second read before the general body (4M 66 -> 75 µs), integer
// data 0.02-0.04 µs at 64K-256K (docs/tuning.md, 'Wide data, continued'). Out of line, so that
// the window's kernels keep their code: the general body's (its second expansion,
// thread_sum.cuh's CascadeSink) inline cost the deep window's f64 1M rows 5% on every kind of
// data; the three parts' choice made in the kernel, from a third flag of the block's vote, cost
// its square-root grid's 5% (64K-256K).
template <int kDeepVectors, class Out>
__device__ __noinline__ void refused_double_block(const ExactArgs<double, Out>& args,
                                                  std::uint64_t* records) {
  __syncthreads();  // the refused record's reads of shared memory before this one's writes
  DoubleWindowThread<3> thread;
  const auto rank = std::int64_t(blockIdx.x), blocks = std::int64_t(gridDim.x);
  if constexpr (kDeepVectors == 0) sum_inputs<true>(args.d_in, args.num_items, rank, blocks, thread);
  else sum_inputs_pipelined<kDeepVectors>(args.d_in, args.num_items, rank, blocks, thread);
  if (!block_window_record<kAutomaticBlockThreads>(args, thread, records))
    general_block_into_grid(args, records);
}

// A float-family block the window refused: the general body, out of line as the doubles' is, so
// that the window's kernels keep their registers whatever the general body's code: inline, a
// change to its groups' move test put 8-16 bytes of spill in the square-root grid's f32 kernel
// (ptxas, 2026-12-01), which every row of it would pay; out of line that kernel went from 80 to
// 56 bytes of stack and no spill, the deep window's from 88 to 78 registers.
template <class In, class Out>
__device__ __noinline__ void refused_float_block(const ExactArgs<In, Out>& args,
                                                 std::uint64_t* records) {
  general_block_into_grid(args, records);
}

// The grid window's block (grid_window.cuh): its window's record, else (doubles: after a second
// read in three parts) its general body's state into the grid's; the last block rounds the
// records' sum. kDeepVectors: 0, the default engine's batches (sum_inputs); else the deep
// window's pipelined batches of that many vectors.
// kEarlyTicket: the ticket as soon as the block's inputs are in, its round trip under the
// block's own record (each record carries its own flags, which the last block waits on:
// window_records.cuh; so the tickets need not follow the records), else after the record.
// H200, graphs: f32 256K 3.06 -> 2.83 µs, 1M 3.94 -> 3.75, 4M 6.33 -> 5.97, f64 1M 4.73 -> 4.42,
// 4M 8.53 -> 8.31; but the square-root grid's doubles at 2 MiB 3.50 -> 3.64, not explained, so
// they keep the late ticket (docs/tuning.md, 'Deep window').
template <int kDeepVectors, bool kEarlyTicket, class In, class Out>
__device__ __forceinline__ void grid_window_block(const ExactArgs<In, Out>& args) {
  constexpr int kBlock = kAutomaticBlockThreads;
  wait_for_previous_kernel_then_release_next();
  std::uint64_t* records = args.window_records();
  WindowThread<In, kDeepVectors != 0> thread;
  const auto rank = std::int64_t(blockIdx.x), blocks = std::int64_t(gridDim.x);
  if constexpr (kDeepVectors == 0) sum_inputs<true>(args.d_in, args.num_items, rank, blocks, thread);
  else sum_inputs_pipelined<kDeepVectors>(args.d_in, args.num_items, rank, blocks, thread);
  unsigned ticket = 0;
  const auto take_ticket = [&] {  // relaxed: each record carries its own flags
    if (threadIdx.x == 0)
      ticket = ::cuda::atomic_ref<unsigned, ::cuda::thread_scope_device>(*args.ticket())
                   .fetch_add(1u, ::cuda::memory_order_relaxed);
  };
  if constexpr (kEarlyTicket) take_ticket();
  if (!block_window_record<kBlock>(args, thread, records)) {
    if constexpr (std::is_same_v<In, double>) refused_double_block<kDeepVectors>(args, records);
    else refused_float_block(args, records);
  }
  if constexpr (!kEarlyTicket) take_ticket();
  __shared__ bool last;
  if (threadIdx.x == 0) last = ticket == gridDim.x - 1;
  __syncthreads();
  if (!last) return;
  extern __shared__ __align__(16) unsigned char exact_shared[];
  finish_grid_window<kBlock>(args, records,
                             reinterpret_cast<BlockExact<family_of<In>>*>(exact_shared)->total);
}

// automatic's grid kernel past the cluster, on the square-root grid (nothing exported; at most
// kGridWindowMaxBlocks blocks, args.pipeline atomic).
template <class In, class Out>
__global__ void __launch_bounds__(kAutomaticBlockThreads, kGridWindowBlocksPerSm<In>)
    exact_grid_window_kernel(ExactArgs<In, Out> args) {
  grid_window_block<0, !std::is_same_v<In, double>>(args);
}

// ... and the deep window's (doubles and floats past kDeepWindowAboveBytes): a block an SM, each
// thread kDeepWindowVectors vectors deep in flight, compiled for kDeepWindowMinBlocksPerSm
// (grid_window.cuh).
template <class In, class Out>
__global__ void __launch_bounds__(kAutomaticBlockThreads, kDeepWindowMinBlocksPerSm<In>)
    exact_deep_window_kernel(ExactArgs<In, Out> args) {
  grid_window_block<kDeepWindowVectors<In>, true>(args);
}

// two_kernel's second pass: one block folds the first pass's states and rounds.
template <class In, class Out>
__global__ void __launch_bounds__(256) exact_fold_kernel(ExactArgs<In, Out> args, int count) {
  using Family = family_of<In>;
  wait_for_previous_kernel_then_release_next();  // the first pass's states, complete and visible
  __shared__ ExactState<Family> total;
  for (int w = int(threadIdx.x); w < ExactState<Family>::kWords; w += int(blockDim.x))
    words_of(total)[w] = 0;
  __syncthreads();
  fold_states(args.partial_states(), count, total);
  finish_state(args, total);
}

}  // namespace gpureduce::detail::exact
