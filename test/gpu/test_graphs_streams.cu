// CUDA graphs and concurrent streams: each pipeline captured once and replayed with the input
// changing between replays (default path and the temp_storage_zeroed fast path), and two streams
// with separate temp storage reducing different arrays at once. Integer sums: exact.
#include <numeric>
#include <string>
#include <thread>
#include <chrono>

#include "gpu/common.cuh"

namespace gpureduce::testing {
namespace {

std::int64_t host_sum(std::uint64_t seed, std::int64_t n) {
  std::int64_t sum = 0;
  for (std::int64_t i = 0; i < n; ++i) sum += std::int64_t(std::int64_t(mix64(seed ^ mix64(std::uint64_t(i))) % 7) - 3);
  return sum;
}

TEST(Graphs, EachPipelineReplaysWithChangingInput) {
  REQUIRE_GPU();
  const std::int64_t n = 3'000'017;
  DeviceBuffer<std::int64_t> in{std::size_t(n)}, out{1};
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (Pipeline pipeline : kAllPipelines) {
    for (bool zeroed : {false, true}) {
      for (Strategy strategy : {Strategy::vectorized, Strategy::cub_block, Strategy::complete_unroll}) {
        Options options{strategy, pipeline};
        options.temp_storage_zeroed = zeroed;
        SCOPED_TRACE(describe(options, n, 0, 0));
        std::size_t bytes = 0;
        ASSERT_EQ(DeviceReduce::Sum(nullptr, bytes, in.get(), out.get(), n, stream, options), cudaSuccess);
        DeviceBuffer<unsigned char> temp(bytes);
        CUDA_OK(prepare_temp_storage(temp.get(), bytes, zeroed));
        CUDA_OK(cudaDeviceSynchronize());
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        const cudaError_t captured = DeviceReduce::Sum(temp.get(), bytes, in.get(), out.get(), n, stream, options);
        CUDA_OK(cudaStreamEndCapture(stream, &graph));
        ASSERT_EQ(captured, cudaSuccess) << last_error_message();
        CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
        for (int replay = 0; replay < 20; ++replay) {
          const std::uint64_t seed = fresh_seed();
          CUDA_OK(fill_random(in.get(), n, seed, Fill::small_integers, stream));
          CUDA_OK(cudaMemsetAsync(out.get(), kPoisonByte, sizeof(std::int64_t), stream));
          CUDA_OK(cudaGraphLaunch(exec, stream));
          CUDA_OK(cudaStreamSynchronize(stream));
          ASSERT_EQ(copy_to_host(out.get()), host_sum(seed, n)) << "replay " << replay << " seed " << seed;
        }
        CUDA_OK(cudaGraphExecDestroy(exec));
        CUDA_OK(cudaGraphDestroy(graph));
      }
    }
  }
  CUDA_OK(cudaStreamDestroy(stream));
}

// Whether a kernel's name (mangled or not, as cudaFuncGetName gives it) is
// reduce_first_pass_kernel<VectorizedRung, block_threads, ...>.
bool first_pass_kernel_name(const std::string& name, int block_threads) {
  const std::string block = std::to_string(block_threads);
  return name.find("reduce_first_pass_kernel") != std::string::npos &&
         name.find("VectorizedRung") != std::string::npos &&
         (name.find("Li" + block + "E") != std::string::npos ||  // Itanium mangling: int literal
          name.find(", " + block + ",") != std::string::npos);    // demangled
}

// The kernel nodes of a captured graph: how many, and whether they run automatic's first pass built
// for `block_threads` and the one-warp second kernel. By name: the library's kernel and this
// file's instantiation of the same template are different functions to the runtime (each
// translation unit registers its own).
struct GraphKernels {
  std::size_t nodes = 0;
  int kernels = 0;
  bool shaped_first_pass = false;
  bool warp_fold = false;
};
void inspect_graph(cudaGraph_t graph, int block_threads, GraphKernels& g) {
  CUDA_OK(cudaGraphGetNodes(graph, nullptr, &g.nodes));
  std::vector<cudaGraphNode_t> list(g.nodes);
  CUDA_OK(cudaGraphGetNodes(graph, list.data(), &g.nodes));
  for (cudaGraphNode_t node : list) {
    cudaGraphNodeType type;
    CUDA_OK(cudaGraphNodeGetType(node, &type));
    if (type != cudaGraphNodeTypeKernel) continue;
    ++g.kernels;
    cudaKernelNodeParams params{};
    CUDA_OK(cudaGraphKernelNodeGetParams(node, &params));
    const char* name = nullptr;
    CUDA_OK(cudaFuncGetName(&name, params.func));
    g.shaped_first_pass |= name != nullptr && first_pass_kernel_name(name, block_threads);
    g.warp_fold |= name != nullptr &&
                   std::string(name).find("reduce_partials_in_warp_kernel") != std::string::npos;
  }
}

// The graph holds what the captured plan says: its launches as kernel nodes, no memset; a
// two_kernel plan's first pass is the one built for its block size (kernels.cuh), which must give
// the general kernel's bits, and, for 4-byte sums whose grid fits one block's worth of partials,
// its second kernel the one-warp fold (their bits: against the uncaptured call, by the caller).
template <class T>
void expect_graph_runs_the_plan(cudaGraph_t graph, const LaunchPlan& inside) {
  GraphKernels g;
  inspect_graph(graph, inside.block_threads, g);
  EXPECT_EQ(g.kernels, inside.launches) << "the graph holds what the plan says, and no memset";
  EXPECT_EQ(int(g.nodes), inside.launches);
  if (inside.pipeline != Pipeline::two_kernel || inside.grid_blocks <= 1) return;
  EXPECT_TRUE(g.shaped_first_pass) << "no kernel node runs reduce_first_pass_kernel<"
                                   << inside.block_threads << ">";
  EXPECT_EQ(g.warp_fold, sizeof(T) == 4 && inside.grid_blocks <= inside.block_threads)
      << "reduce_partials_in_warp_kernel";
}

// Replays `graph` twice with its temp storage and output poisoned first: each answer must have
// `expected`'s bits, and `cub` 's (where given).
template <class T>
void replay_on_garbage(cudaGraph_t graph, cudaStream_t stream, unsigned char* temp,
                       std::size_t bytes, T* out, const T& expected, const T* cub) {
  cudaGraphExec_t exec;
  CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 2; ++replay) {
    // On the stream: a plain cudaMemset (legacy stream) would not be ordered before the graph.
    CUDA_OK(cudaMemsetAsync(temp, kPoisonByte, bytes, stream));
    CUDA_OK(cudaMemsetAsync(out, kPoisonByte, sizeof(T), stream));
    CUDA_OK(cudaGraphLaunch(exec, stream));
    CUDA_OK(cudaStreamSynchronize(stream));
    const T from_graph = copy_to_host(out);
    EXPECT_TRUE(same_bits(from_graph, expected)) << show(from_graph) << " vs " << show(expected);
    if (cub != nullptr) EXPECT_TRUE(same_bits(from_graph, copy_to_host(cub))) << "vs CUB";
  }
  CUDA_OK(cudaGraphExecDestroy(exec));
}

// Inside a stream capture, `automatic` (default Options) launches two_kernel where it would launch
// grid_sync, or last_block on the stream's state (policy.hpp: a cooperative launch costs more in a
// graph than a second launch; a graph may be launched on any stream, so not on the capturing
// stream's state), with
// the same grid and block, so the same temp storage size and the same floating-point order: the
// captured graph's answer must have the uncaptured call's bits, on random floats whose sums round.
// So that "same bits" can fail, half the grid must give other bits somewhere. Sums of 4-byte
// integers and of floats below the streaming range launch last_block there instead (the counted
// word, or the ticket and flagged slots, in a slot the graph owns: one launch), same grid and
// storage size; floats fold the partials in the same order, so the same bits; integer sums' bits
// are CUB's whatever the order.
template <class T>
void automatic_inside_capture_keeps_grid_and_bits() {
  using C = Case<T, T, Op::sum>;
  constexpr bool kCounted = std::is_integral_v<T> && sizeof(T) == 4;
  constexpr bool kFlaggedFloat = std::is_same_v<T, float>;  // graph-owned flagged slots
  int device = 0, l2 = 0, cooperative = 0;
  CUDA_OK(cudaGetDevice(&device));
  CUDA_OK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  CUDA_OK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  int switched = 0, other_grid_differs = 0;
  const std::int64_t streaming_n = std::int64_t(l2) / 2 / std::int64_t(sizeof(T)) + 5;
  for (std::int64_t n : {std::int64_t(1000), std::int64_t(1) << 16, std::int64_t(1) << 20,
                         (std::int64_t(1) << 22) + 3, streaming_n}) {
    const std::uint64_t seed = fresh_seed();
    DeviceBuffer<T> in{std::size_t(n)}, out{1}, ref{1};
    CUDA_OK(fill_random(in.get(), n, seed, Fill::random));
    CUDA_OK(C::cub(in.get(), ref.get(), n));
    SCOPED_TRACE(C::name() + " n " + std::to_string(n) + " seed " + std::to_string(seed));
    LaunchPlan outside, inside;
    const cudaError_t planned_outside = DeviceReduce::PlanSum<T, T>(outside, in.get(), n, Options{}, stream);
    ASSERT_EQ(planned_outside, cudaSuccess) << last_error_message();
    std::size_t bytes = 0;
    ASSERT_EQ(DeviceReduce::Sum(nullptr, bytes, in.get(), out.get(), n, stream), cudaSuccess);
    DeviceBuffer<unsigned char> temp(bytes);
    CUDA_OK(prepare_temp_storage(temp.get(), bytes, false));  // garbage: the default path's storage
    CUDA_OK(cudaMemset(out.get(), kPoisonByte, sizeof(T)));
    CUDA_OK(cudaDeviceSynchronize());
    ASSERT_EQ(DeviceReduce::Sum(temp.get(), bytes, in.get(), out.get(), n, stream), cudaSuccess);
    CUDA_OK(cudaStreamSynchronize(stream));
    const T uncaptured = copy_to_host(out.get());

    cudaGraph_t graph;
    CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    const cudaError_t planned = DeviceReduce::PlanSum<T, T>(inside, in.get(), n, Options{}, stream);
    const cudaError_t captured = DeviceReduce::Sum(temp.get(), bytes, in.get(), out.get(), n, stream);
    CUDA_OK(cudaStreamEndCapture(stream, &graph));
    ASSERT_EQ(planned, cudaSuccess) << last_error_message();
    ASSERT_EQ(captured, cudaSuccess) << last_error_message();
    if (outside.grid_blocks > 1) {
      // Outside: the stream's state below the streaming range, grid_sync (cooperative) in it.
      const bool streaming = n == streaming_n;
      EXPECT_EQ(outside.pipeline, streaming ? (cooperative ? Pipeline::grid_sync : Pipeline::last_block)
                                            : Pipeline::last_block) << outside.rationale;
      const bool graph_owned = (kCounted || kFlaggedFloat) && !streaming;
      EXPECT_EQ(inside.pipeline, graph_owned ? Pipeline::last_block : Pipeline::two_kernel);
      EXPECT_EQ(inside.launches, graph_owned ? 1 : 2);
      ++switched;
    } else {
      EXPECT_EQ(inside.pipeline, outside.pipeline);
    }
    EXPECT_EQ(inside.grid_blocks, outside.grid_blocks);
    EXPECT_EQ(inside.block_threads, outside.block_threads);
    EXPECT_EQ(inside.temp_storage_bytes, outside.temp_storage_bytes);
    expect_graph_runs_the_plan<T>(graph, inside);
    // Replayed on garbage storage twice: what must be zero the graph zeroes itself (its zeroing
    // kernel, where there is one) or owns (the state of captured integer and float sums).
    replay_on_garbage(graph, stream, temp.get(), bytes, out.get(), uncaptured,
                      kCounted ? ref.get() : nullptr);
    if (::testing::Test::HasFatalFailure()) return;
    CUDA_OK(cudaGraphDestroy(graph));

    if (!kCounted && outside.grid_blocks > 1) {
      const Options half{Strategy::vectorized, outside.pipeline, outside.block_threads,
                         outside.grid_blocks / 2};
      T other{};
      ASSERT_TRUE(run_gpureduce<C>(in.get(), n, half, other, stream));
      other_grid_differs += !same_bits(other, uncaptured);
    }
  }
  EXPECT_GT(switched, 0) << "no size planned more than one block: nothing was tested";
  if (!kCounted)
    EXPECT_GT(other_grid_differs, 0) << "no size's bits depend on the grid: same bits would prove nothing";
  CUDA_OK(cudaStreamDestroy(stream));
}

TEST(Graphs, AutomaticInsideCaptureKeepsGridAndBits) {
  REQUIRE_GPU();
  automatic_inside_capture_keeps_grid_and_bits<float>();
}
TEST(Graphs, AutomaticInsideCaptureKeepsGridAndBitsInt32) {
  REQUIRE_GPU();
  automatic_inside_capture_keeps_grid_and_bits<std::int32_t>();
}
TEST(Graphs, AutomaticInsideCaptureKeepsGridAndBitsUint32) {
  REQUIRE_GPU();
  automatic_inside_capture_keeps_grid_and_bits<std::uint32_t>();
}

// Captured sums of 4-byte integers keep their counted word, and float sums their ticket and
// flagged slots, in a slot the graph owns (graph_owned_state.hpp): zero when handed out, left zero
// by each reduction, so every replay starts from zero without a zeroing kernel; each captured call has a slot of its own (two
// reductions in one graph here, sharing one garbage temp storage, which the plan does not read);
// the slots go back when the graph and its executable are destroyed, and a second capture (whose
// slots come from that pool) works as the first. Fresh random inputs before every replay, each
// answer bitwise CUB's (floats: small integers, so every partial sum is exact): state that was not
// zero, or shared, would shift or mix the sums, or leave an output unwritten (a stale ticket).
template <class T>
void captured_sums_own_their_state(Fill fill) {
  using C = Case<T, T, Op::sum>;
  const std::int64_t n = std::int64_t(1) << 20;
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  DeviceBuffer<T> in[2] = {DeviceBuffer<T>{std::size_t(n)}, DeviceBuffer<T>{std::size_t(n)}};
  DeviceBuffer<T> out{2}, ref{2};
  std::size_t bytes = 0;
  ASSERT_EQ(DeviceReduce::Sum(nullptr, bytes, in[0].get(), out.get(), n, stream), cudaSuccess);
  DeviceBuffer<unsigned char> temp(bytes);
  CUDA_OK(prepare_temp_storage(temp.get(), bytes, false));  // garbage
  CUDA_OK(cudaDeviceSynchronize());
  const std::size_t before = detail::graph_owned_slots_in_use();

  for (int capture = 0; capture < 2; ++capture) {
    SCOPED_TRACE("capture " + std::to_string(capture));
    cudaGraph_t graph;
    LaunchPlan plan;
    CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));  // global: the strict mode
    const cudaError_t planned = DeviceReduce::PlanSum<T, T>(plan, in[0].get(), n, Options{}, stream);
    const cudaError_t first = DeviceReduce::Sum(temp.get(), bytes, in[0].get(), out.get(), n, stream);
    const cudaError_t second = DeviceReduce::Sum(temp.get(), bytes, in[1].get(), out.get() + 1, n, stream);
    CUDA_OK(cudaStreamEndCapture(stream, &graph));
    ASSERT_EQ(planned, cudaSuccess) << last_error_message();
    ASSERT_EQ(first, cudaSuccess) << last_error_message();
    ASSERT_EQ(second, cudaSuccess) << last_error_message();
    ASSERT_EQ(plan.pipeline, Pipeline::last_block) << plan.rationale;
    ASSERT_GT(plan.grid_blocks, 1);
    EXPECT_EQ(plan.launches, 1);
    EXPECT_EQ(detail::graph_owned_slots_in_use(), before + 2) << "a slot per captured call";
    std::size_t nodes = 0;
    CUDA_OK(cudaGraphGetNodes(graph, nullptr, &nodes));
    EXPECT_EQ(nodes, 2u) << "one kernel per reduction, no zeroing kernel or memset";

    cudaGraphExec_t exec;
    CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
    for (int replay = 0; replay < 3; ++replay) {
      std::uint64_t seeds[2];
      for (int r = 0; r < 2; ++r) {
        seeds[r] = fresh_seed();
        CUDA_OK(fill_random(in[r].get(), n, seeds[r], fill));
        CUDA_OK(C::cub(in[r].get(), ref.get() + r, n));
      }
      CUDA_OK(cudaDeviceSynchronize());  // the inputs, written on the legacy stream
      CUDA_OK(cudaMemsetAsync(temp.get(), kPoisonByte, bytes, stream));
      CUDA_OK(cudaMemsetAsync(out.get(), kPoisonByte, 2 * sizeof(T), stream));
      CUDA_OK(cudaGraphLaunch(exec, stream));
      CUDA_OK(cudaStreamSynchronize(stream));
      for (int r = 0; r < 2; ++r)
        EXPECT_TRUE(same_bits(copy_to_host(out.get() + r), copy_to_host(ref.get() + r)))
            << "replay " << replay << " reduction " << r << " seed " << seeds[r];
    }
    CUDA_OK(cudaGraphExecDestroy(exec));
    CUDA_OK(cudaGraphDestroy(graph));
    // The user objects are released on CUDA's own thread, after the destroys return.
    for (int wait = 0; wait < 1000 && detail::graph_owned_slots_in_use() != before; ++wait)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(detail::graph_owned_slots_in_use(), before) << "the graph gave its slots back";
  }
  CUDA_OK(cudaStreamDestroy(stream));
}
TEST(Graphs, CapturedIntegerSumsOwnTheirCountedWord) {
  REQUIRE_GPU();
  captured_sums_own_their_state<std::int32_t>(Fill::random);
}
TEST(Graphs, CapturedFloatSumsOwnTheirFlaggedSlots) {
  REQUIRE_GPU();
  captured_sums_own_their_state<float>(Fill::small_integers);
}

TEST(Streams, TwoStreamsWithSeparateTempStorage) {
  REQUIRE_GPU();
  constexpr int kStreams = 2;
  const std::int64_t n = 2'000'003;
  for (Pipeline pipeline : kAllPipelines) {
    for (Strategy strategy : {Strategy::vectorized, Strategy::cub_block, Strategy::sequential}) {
      const Options options{strategy, pipeline};
      SCOPED_TRACE(describe(options, n, 0, 0));
      cudaStream_t streams[kStreams];
      DeviceBuffer<std::int64_t> in[kStreams], out[kStreams];
      DeviceBuffer<unsigned char> temp[kStreams];
      std::uint64_t seeds[kStreams];
      std::size_t bytes = 0;
      for (int s = 0; s < kStreams; ++s) {
        CUDA_OK(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking));
        in[s].resize(std::size_t(n));
        out[s].resize(50);
        seeds[s] = fresh_seed();
        CUDA_OK(fill_random(in[s].get(), n, seeds[s], Fill::small_integers));
        ASSERT_EQ(DeviceReduce::Sum(nullptr, bytes, in[s].get(), out[s].get(), n, streams[s], options), cudaSuccess);
        temp[s].resize(bytes);
        CUDA_OK(cudaMemset(out[s].get(), kPoisonByte, 50 * sizeof(std::int64_t)));
      }
      CUDA_OK(cudaDeviceSynchronize());
      // 50 rounds interleaved on both streams, no host synchronisation in between.
      for (int round = 0; round < 50; ++round)
        for (int s = 0; s < kStreams; ++s)
          ASSERT_EQ(DeviceReduce::Sum(temp[s].get(), bytes, in[s].get(), out[s].get() + round, n, streams[s], options), cudaSuccess)
              << last_error_message();
      CUDA_OK(cudaDeviceSynchronize());
      for (int s = 0; s < kStreams; ++s) {
        const std::int64_t expected = host_sum(seeds[s], n);
        std::vector<std::int64_t> results(50);
        CUDA_OK(cudaMemcpy(results.data(), out[s].get(), 50 * sizeof(std::int64_t), cudaMemcpyDeviceToHost));
        for (int round = 0; round < 50; ++round) EXPECT_EQ(results[round], expected) << "stream " << s << " round " << round;
        CUDA_OK(cudaStreamDestroy(streams[s]));
      }
    }
  }
}

// ---- Programmatic dependent launch (launch.cuh) ----------------------------------------------
// Our kernels may start before the previous kernel in the stream has finished (PDL), so they must
// wait for it before reading anything. The harshest predecessor: a kernel that lets dependents
// launch at once (griddepcontrol.launch_dependents first), then sleeps, then writes the input. A
// reduction that skipped its wait would read the old input. Then the other direction: a PDL
// successor that waits (as the contract says) must see our final result, although our kernels
// release their dependents early.
__global__ void late_writer(std::int32_t* data, std::int64_t n, std::int32_t value) {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
  for (int i = 0; i < 20; ++i) __nanosleep(1000);  // ~20 us: long after a dependent could start
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    data[i] = value + std::int32_t(i % 3);
}

__global__ void waiting_reader(const std::int32_t* result, std::int32_t* copies, int round) {
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
  copies[round] = *result;
}

TEST(ProgrammaticLaunch, ReductionsWaitForTheirPredecessorAndSuccessorsSeeTheResult) {
  REQUIRE_GPU();
  constexpr int kRounds = 16;
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (std::int64_t n : {std::int64_t(1000), std::int64_t(65537), std::int64_t(3'000'017)}) {
    for (Pipeline pipeline : kAllPipelines) {
      for (bool zeroed : {false, true}) {
        Options options{Strategy::automatic, pipeline};
        options.temp_storage_zeroed = zeroed;
        SCOPED_TRACE(describe(options, n, 0, 0));
        DeviceBuffer<std::int32_t> in{std::size_t(n)}, out{1}, copies{kRounds};
        std::size_t bytes = 0;
        ASSERT_EQ(DeviceReduce::Sum(nullptr, bytes, in.get(), out.get(), n, stream, options), cudaSuccess);
        DeviceBuffer<unsigned char> temp(bytes);
        CUDA_OK(prepare_temp_storage(temp.get(), bytes, zeroed));
        CUDA_OK(cudaMemset(in.get(), 0, n * sizeof(std::int32_t)));
        CUDA_OK(cudaDeviceSynchronize());
        for (int round = 0; round < kRounds; ++round) {
          late_writer<<<64, 256, 0, stream>>>(in.get(), n, round + 1);
          CUDA_OK(cudaGetLastError());
          ASSERT_EQ(DeviceReduce::Sum(temp.get(), bytes, in.get(), out.get(), n, stream, options), cudaSuccess)
              << last_error_message();
          cudaLaunchAttribute pdl{};
          pdl.id = cudaLaunchAttributeProgrammaticStreamSerialization;
          pdl.val.programmaticStreamSerializationAllowed = 1;
          cudaLaunchConfig_t config{};
          config.gridDim = dim3(1);
          config.blockDim = dim3(1);
          config.stream = stream;
          config.attrs = &pdl;
          config.numAttrs = 1;
          CUDA_OK(cudaLaunchKernelEx(&config, waiting_reader, static_cast<const std::int32_t*>(out.get()),
                                     copies.get(), round));
        }
        std::vector<std::int32_t> seen(kRounds);
        CUDA_OK(cudaMemcpyAsync(seen.data(), copies.get(), sizeof(std::int32_t) * kRounds,
                                cudaMemcpyDeviceToHost, stream));
        CUDA_OK(cudaStreamSynchronize(stream));
        const std::int64_t ramp = (n / 3) * 3 + (n % 3 == 2 ? 1 : 0);  // sum of i % 3 over [0, n)
        for (int round = 0; round < kRounds; ++round)
          EXPECT_EQ(std::int64_t(seen[round]), std::int64_t(round + 1) * n + ramp) << "round " << round;
      }
    }
  }
  CUDA_OK(cudaStreamDestroy(stream));
}

}  // namespace
}  // namespace gpureduce::testing
