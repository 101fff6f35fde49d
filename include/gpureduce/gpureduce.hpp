// gpureduce public API: host-only, usable from a plain C++ compiler (g++ links libgpureduce.a).
//
// Shaped like cub::DeviceReduce: call once with d_temp_storage == nullptr to learn the temp-storage
// size, allocate it, call again to reduce. Every call is asynchronous on `stream`.
//
// What the library keeps, per CUDA context (docs/design.md; release_cached_state gives it back):
// - With default Options, automatic keeps 16 KiB of state per stream (at most 256 streams a
//   context; further streams take a plan that needs none, same bits), from a pool of zeroed device
//   memory, until release_cached_state or the context's end. A stream's first such call may
//   allocate 64 KiB, zero it and wait for that (once per 4 streams).
// - Inside a stream capture, automatic's integer and float sums keep 128 B or 16 KiB for the
//   captured graph, given back when the graph and its executables are destroyed. Executables of
//   one capture share it, as they share its temp storage: run them one at a time.
// - Cached device and kernel attributes.
// With Options::temp_storage_zeroed nothing is taken, allocated or waited for; it costs the caller
// one zero-fill of its temp storage, and saves 0.015-0.036x CUB's time a call (docs/tuning.md,
// 'Stream-owned state').
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

namespace gpureduce {

// How one block turns its elements into one value: the rungs of the classic optimisation ladder
// (shared/seeds/) plus the modern ones. README.md maps each rung to its seed step.
enum class Strategy {
  neighbored,        // seed 001 baseline, 003 reduceNeighbored, 004 R1-R2: tid % (2s) == 0, divergent
  strided_index,     // 001 interleaved addressing #2, 003 reduceNeighboredLess: index = 2*s*tid
  sequential,        // 000 optimized1, 001, 003 reduceInterleaved, 004 R3: tid < s, conflict-free
  first_add,         // 000 optimized2, 001 idle threads, 004 R4: two loads added while loading
  unroll_last_warp,  // 000 optimized3, 001, 004 R5: the last 32 lanes without __syncthreads
  complete_unroll,   // 001, 003, 004 R6: block size as a template parameter, fully unrolled
  multi_element,     // 003 unrolling 2/4/8, 004 R7: fixed grid, many elements per thread
  warp_shuffle,      // 000, 004 R8: __shfl_down_sync
  global_memory,     // 004 R0: pairs added in global memory, on a scratch copy (input never written)
  vectorized,        // beyond the seeds: 128-bit loads, several in flight, shuffle
  cub_block,         // CUB's own AgentReduce/BlockReduce inside our pipelines (CUB's order)
  automatic
};

// How block partials become the answer; always on the GPU.
enum class Pipeline {
  two_kernel,  // partials, then a second kernel of one block reduces them
  last_block,  // one launch: the last block to finish (ticket counter) reduces the partials
  atomic,      // block partials combined with global atomics (seed 002); float sums order-dependent
  grid_sync,   // one cooperative launch: grid-wide barrier, then block 0 reduces the partials; no
               // counter, so nothing to zero and no zeroed-storage promise (needs cooperative
               // launch)
  cluster,     // one launch of one thread-block cluster (<= 16 blocks, sm_90+): block 0 folds the
               // partials from the other blocks' shared memory; for small inputs (64-256 KiB)
  automatic
};

// Whether a call checks, before launching, that d_in, d_out and d_temp_storage are memory the GPU
// can read (cudaPointerGetAttributes): it catches pageable host and freed pointers with
// cudaErrorInvalidValue instead of a fault that would break the CUDA context. build_default: on in
// Debug builds of the library, off in Release builds (docs/tuning.md, 'Pointer check default').
enum class PointerCheck { build_default, on, off };

// What a floating-point Sum promises about its bits (integer sums and Min/Max are exact either way).
enum class Accuracy {
  // The plan's order of additions, as CUB: the same bits on every run for a fixed strategy,
  // pipeline, block size, grid, n and device (not `atomic`); other plans, other bits.
  plan_order,
  // The exact sum of the inputs rounded once to nearest, ties to even: the same bits for every
  // strategy, pipeline, block size, grid, alignment, GPU and (gpureduce::nccl) number of GPUs,
  // equal to MPFR's. IEEE 754 otherwise: any NaN, or +inf with -inf, gives NaN (the canonical quiet
  // NaN); an infinity gives itself; overflow in the rounding gives an infinity; an exact zero is
  // +0 unless every input was -0; n = 0 gives +0. Sum of float -> float, double -> double,
  // __half -> float, __nv_bfloat16 -> float and float -> double; Reduce refuses it.
  correctly_rounded
};

struct Options {
  Strategy strategy = Strategy::automatic;
  Pipeline pipeline = Pipeline::automatic;
  int block_threads = 0;  // 0: the strategy's tuned default; else a power of two in [32, 1024]
  int grid_blocks = 0;    // 0: chosen from occupancy and n; else an upper bound on the grid
  // A promise that temp storage is zero: zero-fill it once after allocating it and use it only for
  // gpureduce calls (of any pipeline, type or size); every launch leaves it zero. last_block and
  // atomic then skip the zeroing they otherwise do before each call (a memset, or a small kernel
  // inside a stream capture), so every call is one kernel launch. automatic zeroes per call only
  // where the device cannot launch cooperatively; with the promise it takes its fastest plan and
  // keeps no state of its own (docs/tuning.md, 'Zeroed storage: last_block').
  bool temp_storage_zeroed = false;
  PointerCheck pointer_check = PointerCheck::build_default;
  Accuracy accuracy = Accuracy::plan_order;  // last, so that existing aggregate inits still work
};

// What a call would launch: the resolved strategy, pipeline and sizes (see DeviceReduce::Plan*).
struct LaunchPlan {
  Strategy strategy = Strategy::automatic;
  Pipeline pipeline = Pipeline::automatic;
  int block_threads = 0;
  int grid_blocks = 0;
  int items_per_thread = 0;  // elements a thread loads per iteration of its loop
  int launches = 0;          // kernel launches per call, a zeroing memset or kernel included
  std::size_t temp_storage_bytes = 0;
  // Why this plan: for `automatic`, the rule and device facts behind each choice; otherwise what
  // the caller fixed. Static text, never null.
  const char* rationale = "";
};

// ArgMin / ArgMax's result (cub::KeyValuePair<int64_t, T>'s layout: the index, then the value).
template <class T>
struct IndexedValue {
  std::int64_t index;
  T value;
};

struct DeviceReduce {
  // d_out[0] = sum of d_in[0..num_items), accumulated in Out.
  template <class In, class Out>
  static cudaError_t Sum(void* d_temp_storage, std::size_t& temp_storage_bytes, const In* d_in,
                         Out* d_out, std::int64_t num_items, cudaStream_t stream = nullptr,
                         const Options& options = {});
  // d_out[0] = minimum; NaN in gives NaN out; empty input gives numeric_limits<T>::max().
  template <class T>
  static cudaError_t Min(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_in,
                         T* d_out, std::int64_t num_items, cudaStream_t stream = nullptr,
                         const Options& options = {});
  // d_out[0] = maximum; NaN in gives NaN out; empty input gives numeric_limits<T>::lowest().
  template <class T>
  static cudaError_t Max(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_in,
                         T* d_out, std::int64_t num_items, cudaStream_t stream = nullptr,
                         const Options& options = {});

  // d_out[0] = {index, value} of the first minimum (ties to the smallest index), as
  // cub::DeviceReduce::ArgMin: values compare with `<`, so -0 and +0 tie. A NaN wins (the first
  // NaN's index), as Min's NaN does; CUB's answer with NaN present depends on its order. Empty
  // input: {1, numeric_limits<T>::max()}, what CUB writes. The atomic pipeline refuses (no atomic
  // holds a pair); every other strategy and pipeline gives the same answer.
  template <class T>
  static cudaError_t ArgMin(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_in,
                            IndexedValue<T>* d_out, std::int64_t num_items,
                            cudaStream_t stream = nullptr, const Options& options = {});
  // The first maximum; empty input: {1, numeric_limits<T>::lowest()}. Otherwise as ArgMin.
  template <class T>
  static cudaError_t ArgMax(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_in,
                            IndexedValue<T>* d_out, std::int64_t num_items,
                            cudaStream_t stream = nullptr, const Options& options = {});

  // What Sum/Min/Max would launch for these arguments on the current device, enqueued on
  // `stream` now; launches nothing. `d_in` only matters for its alignment (vectorized loads); it
  // is not read. The stream matters only to `automatic` without temp_storage_zeroed: whether it is
  // being captured into a CUDA graph, and whether it holds state of its own, pick the pipeline.
  template <class In, class Out>
  static cudaError_t PlanSum(LaunchPlan& plan, const In* d_in, std::int64_t num_items,
                             const Options& options = {}, cudaStream_t stream = nullptr);
  template <class T>
  static cudaError_t PlanMin(LaunchPlan& plan, const T* d_in, std::int64_t num_items,
                             const Options& options = {}, cudaStream_t stream = nullptr);
  template <class T>
  static cudaError_t PlanMax(LaunchPlan& plan, const T* d_in, std::int64_t num_items,
                             const Options& options = {}, cudaStream_t stream = nullptr);
};

const char* to_string(Strategy strategy);
const char* to_string(Pipeline pipeline);
const char* to_string(Accuracy accuracy);
// The seed step a strategy comes from and what it fixes (for reports such as the ladder).
const char* seed_step(Strategy strategy);
const char* what_it_fixes(Strategy strategy);
// One line describing a plan: strategy/pipeline, grid x block, items per thread, launches, temp
// storage and the rationale, e.g. for `--verbose` reports and logs.
std::string describe(const LaunchPlan& plan);
// Why the last failed gpureduce call on this host thread failed ("" if none has failed).
const char* last_error_message();

// Gives back what the library holds for the current device's context: it waits for the device's
// work to finish (cudaDeviceSynchronize), frees the pool of zeroed state (streams' slots included)
// and forgets that context's cached answers. Safe when nothing is held and while other devices
// reduce (they are not waited for). Slots lent to CUDA graphs that still exist stay until the
// graphs are destroyed and this is called again. Later calls allocate afresh as needed. For
// programs that run leak checkers (call it before exit) or reset the device; not while a stream of
// this thread is being captured.
cudaError_t release_cached_state();

// Every concrete strategy and pipeline, in ladder order (automatic excluded).
inline constexpr Strategy kAllStrategies[] = {
    Strategy::global_memory, Strategy::neighbored,       Strategy::strided_index,
    Strategy::sequential,    Strategy::first_add,        Strategy::unroll_last_warp,
    Strategy::complete_unroll, Strategy::multi_element,  Strategy::warp_shuffle,
    Strategy::vectorized,    Strategy::cub_block};
inline constexpr Pipeline kAllPipelines[] = {Pipeline::two_kernel, Pipeline::last_block,
                                             Pipeline::atomic, Pipeline::grid_sync,
                                             Pipeline::cluster};

}  // namespace gpureduce
