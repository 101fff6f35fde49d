// Probe run 31 (2026-11-22o): probe 30's dedicated collector again (grid = data grid + 1, the extra
// block polls the flagged slots and folds them), with a reader that re-polls every missing word of
// a slot together. The library's FlaggedPartialsReader loads both words of an 8-byte slot, then
// spins on the first and only then on the second, so a collector that finds the first word missing
// pays a second round trip for a second word it read stale: the suspect for the f64 rows of probe
// 30. Also grids of half the rule's size at the 8 MiB inputs, where the rule's 256 blocks leave no
// SM free for the collector. Zeroed storage, library kernel bodies, placement controlled as in
// probes 26-30. Library at ea23ff2. Build from the repository root:
//   nvcc -std=c++17 -O3 -arch=sm_90 -Iinclude -Ibenchmark/probes -o probe31
//     benchmark/probes/h200-2026-11-22o-probe-31.cu <build dir>/libgpureduce.a
#include "h200-2026-11-22d-graph-probe-harness.cuh"

namespace d = gpureduce::detail;
template <class T> using PT = d::Problem<T, T, T, d::sum_op_t<T, T>, T>;
using VR = d::VectorizedRung;

// FlaggedPartialsReader with every missing word re-polled at once: one round trip per poll.
template <class Accum>
struct ReaderAllWords {
  using value_type = Accum;
  static constexpr bool kContiguousInput = false;
  static constexpr int W = d::kWordsPerSlot<Accum>;
  std::uint64_t* slots;
  __device__ __forceinline__ Accum operator()(std::int64_t i) const {
    std::uint64_t* slot = slots + i * W;
    std::uint64_t words[W];
#pragma unroll
    for (int j = 0; j < W; ++j) words[j] = d::load_word_relaxed(slot + j);
    bool missing = false;
#pragma unroll
    for (int j = 0; j < W; ++j) missing |= (words[j] & d::kSlotWritten) == 0;
    while (missing) {
      missing = false;
#pragma unroll
      for (int j = 0; j < W; ++j)
        if ((words[j] & d::kSlotWritten) == 0) words[j] = d::load_word_relaxed(slot + j);
#pragma unroll
      for (int j = 0; j < W; ++j) missing |= (words[j] & d::kSlotWritten) == 0;
    }
    std::uint32_t halves[W];
#pragma unroll
    for (int j = 0; j < W; ++j) { halves[j] = std::uint32_t(words[j]); slot[j] = 0; }
    Accum value;
    memcpy(&value, halves, sizeof(Accum));
    return value;
  }
};

// reduce_shaped_grid<VectorizedRung, 256, P, last_block> on zeroed storage (flagged), reader chosen.
template <class T, bool kAllWords> __global__ void __launch_bounds__(256) k_lb(d::KernelArgs<PT<T>> a) {
  d::wait_for_previous_kernel_then_release_next();
  T* shared = d::dynamic_shared<PT<T>>();
  const T partial = VR::reduce<256, T>(d::InputReader<T, T>{a.d_in}, a.num_items, std::int64_t(blockIdx.x),
                                       std::int64_t(gridDim.x), a.op, shared, static_cast<T*>(nullptr));
  if constexpr (!kAllWords) { d::last_block_epilogue<VR, 256>(a, partial, shared); return; }
  if (!d::publish_flagged_and_take_ticket(a, partial)) return;
  const T total = d::fold_partials_from<VR, 256>(ReaderAllWords<T>{a.flagged_slots()}, a, gridDim.x, shared);
  d::write_result_and_rearm(a, total);
}

template <class T, bool kAllWords> __global__ void __launch_bounds__(256) k_coll(d::KernelArgs<PT<T>> a) {
  d::wait_for_previous_kernel_then_release_next();
  const unsigned data_grid = gridDim.x - 1;
  T* shared = d::dynamic_shared<PT<T>>();
  if (blockIdx.x < data_grid) {
    const T partial = VR::reduce<256, T>(d::InputReader<T, T>{a.d_in}, a.num_items, std::int64_t(blockIdx.x),
                                         std::int64_t(data_grid), a.op, shared, static_cast<T*>(nullptr));
    if (threadIdx.x == 0) d::publish_flagged(a.flagged_slots(), blockIdx.x, partial);
    return;
  }
  T total;
  if constexpr (kAllWords) total = d::fold_partials_from<VR, 256>(ReaderAllWords<T>{a.flagged_slots()}, a, std::int64_t(data_grid), shared);
  else total = d::fold_partials_from<VR, 256>(d::FlaggedPartialsReader<T>{a.flagged_slots()}, a, std::int64_t(data_grid), shared);
  if (threadIdx.x == 0) d::write_result(a, total);
}

template <class K, class... A> cudaError_t launch_pdl(K k, int g, int b, size_t smem, A... a) {
  cudaLaunchConfig_t cfg{}; cfg.gridDim = g; cfg.blockDim = b; cfg.stream = S; cfg.dynamicSmemBytes = smem;
  cudaLaunchAttribute at; at.id = cudaLaunchAttributeProgrammaticStreamSerialization; at.val.programmaticStreamSerializationAllowed = 1; cfg.attrs = &at; cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, k, a...);
}

template <class T> void size_rows(const char* tname, long long n) {
  gpureduce::Options z; z.temp_storage_zeroed = true;
  printf("\n== graph %s n=%lld (us per reduction, better of two graphs)\n", tname, n);
  for (size_t skew : {size_t(256), size_t(5) << 20, size_t(23) << 20}) {
    void* spacer; CK(cudaMalloc(&spacer, skew));
    T *in, *out; unsigned char* temp; void* ct; size_t ctb = 0;
    CK(cudaMalloc(&in, n * sizeof(T))); CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&temp, 1 << 20)); CK(cudaMemset(temp, 0, 1 << 20));
    std::vector<T> h(n); std::mt19937_64 r(31 + skew); for (T& x : h) { int v = int(r() % 32) - 16; x = T(v >= 0 ? v + 1 : v); }
    CK(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    CK(cub::DeviceReduce::Sum(nullptr, ctb, in, out, n, S)); CK(cudaMalloc(&ct, ctb));
    Call cub = [=] { size_t x = ctb; return cub::DeviceReduce::Sum(ct, x, in, out, n, S); };
    CK(cub()); CK(cudaStreamSynchronize(S)); T ref; CK(cudaMemcpy(&ref, out, sizeof(T), cudaMemcpyDeviceToHost));
    gpureduce::LaunchPlan plan; CK(gpureduce::DeviceReduce::PlanSum<T, T>(plan, in, n, z, S));
    const int g = plan.grid_blocks;
    const d::KernelArgs<PT<T>> a{in, out, n, temp, T{}, {}, true, std::uint8_t(gpureduce::Pipeline::last_block), true};
    const size_t smem = VR::shared_bytes(256, sizeof(T));
    struct Row { std::string name; Call f; };
    std::vector<Row> rows;
    for (int grid : {g, g / 2}) {
      if (grid == g / 2 && g < 256) continue;
      const std::string G = " " + std::to_string(grid);
      rows.push_back({"last_block (library)" + G, [=] { return launch_pdl(k_lb<T, false>, grid, 256, smem, a); }});
      rows.push_back({"last_block, all-words reader" + G, [=] { return launch_pdl(k_lb<T, true>, grid, 256, smem, a); }});
      rows.push_back({"collector (library reader)" + G + "+1", [=] { return launch_pdl(k_coll<T, false>, grid + 1, 256, smem, a); }});
      rows.push_back({"collector, all-words reader" + G + "+1", [=] { return launch_pdl(k_coll<T, true>, grid + 1, 256, smem, a); }});
    }
    bool ok = true;
    auto check = [&](const char* when) { for (auto& row : rows) { CK(cudaMemset(out, 0x7f, 64)); CK(row.f()); CK(cudaStreamSynchronize(S)); T got; CK(cudaMemcpy(&got, out, sizeof(T), cudaMemcpyDeviceToHost)); if (!(got == ref)) { ok = false; printf("  WRONG %s: %s\n", when, row.name.c_str()); } } };
    check("before graphs");
    std::vector<double> best(rows.size(), 1e9);
    const double gc = graph_us(cub);
    for (int pass = 0; pass < 2; ++pass)
      for (size_t i = 0; i < rows.size(); ++i) best[i] = std::min(best[i], graph_us(rows[i].f));
    check("after graphs");
    printf("  skew %8zu B, rule's grid %d: CUB %.3f%s\n", skew, g, gc, ok ? "" : "  (WRONG above)");
    for (size_t i = 0; i < rows.size(); ++i) printf("    %-38s %6.3f us  %.3fx CUB\n", rows[i].name.c_str(), best[i], best[i] / gc);
    cudaFree(ct); cudaFree(temp); cudaFree(out); cudaFree(in); cudaFree(spacer);
  }
}

int main() {
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking)); cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("%s\n", prop.name);
  size_rows<float>("f32", 1 << 16); size_rows<float>("f32", 1 << 20); size_rows<float>("f32", 1 << 21);
  size_rows<double>("f64", 1 << 16); size_rows<double>("f64", 1 << 18); size_rows<double>("f64", 1 << 20);
  printf("done\n");
}
