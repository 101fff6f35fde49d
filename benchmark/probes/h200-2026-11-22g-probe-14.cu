// Probe run 14 (2026-11-22g): (A) where a 4K-item call's host time goes: the library's Sum against
// the same dispatch compiled here (cuda::std::plus, so no kernel instance is shared with the
// library), a direct launch of the one-block kernel, and the CUDA calls dispatch makes; host
// enqueue time per call and paired per-call GPU time against CUB. (B) inside graphs: the flagged
// last block loading its slots speculatively, before its ticket comes back (minimal probe kernel,
// with and without the preload). It builds KernelArgs itself, so it builds against the headers it
// ran with (928ea2b): KernelArgs changed after it (pipeline/problem.cuh).
#include "h200-2026-11-22d-graph-probe-harness.cuh"

namespace d = gpureduce::detail;
using gpureduce::Options;
template <class T> using PT = d::Problem<T, T, T, ::cuda::std::plus<T>, T>;

// Host time per call of f, enqueued in batches of 50 (then synchronised, untimed): the median batch.
double enqueue_us(const Call& f, int batches = 300) {
  std::vector<double> t;
  for (int b = 0; b < batches; ++b) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 50; ++i) CK(f());
    auto t1 = std::chrono::steady_clock::now();
    CK(cudaStreamSynchronize(S));
    t.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / 50);
  }
  return med(t);
}
template <class F> double host_us(F f, int n = 200000) {
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) f();
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / n;
}

__global__ void k_empty_plain(float* out) { if (out == nullptr) *out = 0; }

template <class T> void per_call(const char* name, long long n) {
  T *in, *out; void *ct, *temp; size_t ctb = 0; const size_t kTemp = 1 << 20;
  CK(cudaMalloc(&in, n * sizeof(T))); CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&temp, kTemp)); CK(cudaMemset(temp, 0, kTemp));
  std::vector<T> h(n); std::mt19937_64 r(7); for (T& x : h) { int v = int(r() % 32) - 16; x = T(v >= 0 ? v + 1 : v); }
  CK(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  CK(cub::DeviceReduce::Sum(nullptr, ctb, in, out, n, S)); CK(cudaMalloc(&ct, ctb));
  auto result = [&] { T v; CK(cudaStreamSynchronize(S)); CK(cudaMemcpy(&v, out, sizeof(T), cudaMemcpyDeviceToHost)); return v; };
  Call cub = [=] { size_t b = ctb; return cub::DeviceReduce::Sum(ct, b, in, out, n, S); };
  CK(cub()); const T ref = result();
  Options zeroed; zeroed.temp_storage_zeroed = true;
  Call lib = [=] { size_t b = kTemp; return gpureduce::DeviceReduce::Sum<T, T>(temp, b, in, out, n, S, Options{}); };
  Call lib_z = [=] { size_t b = kTemp; return gpureduce::DeviceReduce::Sum<T, T>(temp, b, in, out, n, S, zeroed); };
  Call here = [=] { size_t b = kTemp; return gpureduce::Reduce(temp, b, in, out, n, ::cuda::std::plus<T>{}, T{}, S, Options{}); };
  Call here_z = [=] { size_t b = kTemp; return gpureduce::Reduce(temp, b, in, out, n, ::cuda::std::plus<T>{}, T{}, S, zeroed); };
  gpureduce::LaunchPlan plan;
  CK(gpureduce::DeviceReduce::PlanSum<T, T>(plan, in, n, Options{}, S));
  const int bt = plan.block_threads;
  d::KernelArgs<PT<T>> args{in, out, n, {}, T{}, true, gpureduce::Pipeline::grid_sync, (T*)temp, nullptr, (d::ControlBlock*)temp, nullptr};
  const size_t smem = d::VectorizedRung::shared_bytes(bt, sizeof(T));
  auto k = d::shape_kernel_for<d::VectorizedRung, PT<T>>(d::ShapeKernel::one_block, bt);
  Call direct = [=] { return d::launch_kernel(k, d::LaunchShape{1u, unsigned(bt), smem, S, false, true, 0u}, args); };
  Call direct_nopdl = [=] { return d::launch_kernel(k, d::LaunchShape{1u, unsigned(bt), smem, S, false, false, 0u}, args); };
  Call chevron = [=] { k<<<1, bt, smem, S>>>(args); return cudaGetLastError(); };
  Call empty = [=] { k_empty_plain<<<1, 32, 0, S>>>((float*)out); return cudaSuccess; };
  printf("\n== per call %s n=%lld: plan %s %dx%d\n", name, n, gpureduce::to_string(plan.pipeline), plan.grid_blocks, bt);
  struct Row { const char* what; Call f; bool check; };
  std::vector<Row> rows = {{"library Sum, default Options", lib, true},   {"library Sum, zeroed", lib_z, true},
                           {"Reduce compiled here, default", here, true}, {"Reduce compiled here, zeroed", here_z, true},
                           {"direct launch_kernel, PDL", direct, true},   {"direct launch_kernel, no PDL", direct_nopdl, true},
                           {"direct <<<>>>", chevron, true},             {"empty kernel <<<>>>", empty, false},
                           {"cub", cub, true}};
  for (int rep = 0; rep < 2; ++rep)
    for (auto& row : rows) {
      CK(cudaMemset(out, 0x7f, 64)); CK(row.f()); const T got = result();
      const double host = enqueue_us(row.f);
      const Pair p = paired(row.f, cub, 3000);
      printf("  %-32s enqueue %6.3f us  | paired GPU %6.2f vs CUB %6.2f  ratio %.3f  host in pair %5.2f vs %5.2f %s\n", row.what, host, p.a, p.b, p.r, p.ha, p.hb,
             !row.check ? "" : (got == ref ? "ok" : "WRONG"));
    }
  int dev = 0; d::DeviceFacts facts; int value = 0;
  const void* kp = reinterpret_cast<const void*>(k);
  cudaStream_t legacy = nullptr;
  printf("  host only: cudaGetDevice %.3f  cudaGetLastError %.3f  cudaStreamIsCapturing(S) %.3f  (legacy) %.3f  device_facts %.3f  resident_blocks_per_sm %.3f  kernel_ptx_version %.3f  PlanSum %.3f  PlanSum zeroed %.3f us\n",
         host_us([&] { cudaGetDevice(&dev); }), host_us([&] { (void)cudaGetLastError(); }),
         host_us([&] { cudaStreamCaptureStatus s; cudaStreamIsCapturing(S, &s); }),
         host_us([&] { cudaStreamCaptureStatus s; cudaStreamIsCapturing(legacy, &s); }),
         host_us([&] { d::device_facts(0, facts); }), host_us([&] { d::resident_blocks_per_sm(0, kp, bt, smem, value); }),
         host_us([&] { d::kernel_ptx_version(0, kp, value); }),
         host_us([&] { gpureduce::DeviceReduce::PlanSum<T, T>(plan, in, n, Options{}, S); }),
         host_us([&] { gpureduce::DeviceReduce::PlanSum<T, T>(plan, in, n, zeroed, S); }));
  cudaFree(in); cudaFree(out); cudaFree(ct); cudaFree(temp);
}

// (B) the flagged epilogue, plain (as the library's) and with each thread's slot loaded before the
// ticket comes back: a slot whose flag is already set then costs no round trip after the ticket.
__device__ __forceinline__ float probe_thread_sum(const float4* v, long long nv) {
  float s = 0; const long long stride = (long long)gridDim.x * 256; long long i = blockIdx.x * 256ll + threadIdx.x;
  for (; i + 3 * stride < nv; i += 4 * stride) { float4 a = __ldg(v + i), b = __ldg(v + i + stride), c = __ldg(v + i + 2 * stride), e = __ldg(v + i + 3 * stride); s += ((a.x + a.y) + (a.z + a.w)) + ((b.x + b.y) + (b.z + b.w)) + ((c.x + c.y) + (c.z + c.w)) + ((e.x + e.y) + (e.z + e.w)); }
  for (; i < nv; i += stride) { float4 a = __ldg(v + i); s += (a.x + a.y) + (a.z + a.w); }
  return s;
}
template <bool kPreload>
__global__ void __launch_bounds__(256) k_flagged(const float* in, long long n, unsigned long long* slots, unsigned* counter, float* out, unsigned* hits) {
  pdl();
  float s = block_sum<256>(probe_thread_sum(reinterpret_cast<const float4*>(in), n / 4));
  __shared__ bool last;
  unsigned long long w = 0;
  if (threadIdx.x == 0) st_relaxed(slots + blockIdx.x, (1ull << 32) | __float_as_uint(s));
  if (kPreload && threadIdx.x < gridDim.x) w = ld_relaxed(slots + threadIdx.x);
  if (threadIdx.x == 0) { cuda::atomic_ref<unsigned, cuda::thread_scope_device> c(*counter);
    last = c.fetch_add(1, cuda::memory_order_relaxed) == gridDim.x - 1; }
  __syncthreads();
  if (!last) return;
  float t = 0;
  unsigned missed = 0;
  for (int i = threadIdx.x; i < gridDim.x; i += 256) {
    if (!kPreload || i != threadIdx.x) w = ld_relaxed(slots + i);
    if ((w >> 32) == 0) ++missed;
    while ((w >> 32) == 0) w = ld_relaxed(slots + i);
    t += __uint_as_float(unsigned(w)); slots[i] = 0;
  }
  if (hits != nullptr && missed) atomicAdd(hits, missed);
  t = block_sum<256>(t);
  if (threadIdx.x == 0) { *out = t; *counter = 0; }
}
void graph_preload(long long n, int g) {
  float *in, *out; void* ct; size_t ctb = 0; unsigned char* temp; unsigned* hits;
  CK(cudaMalloc(&in, n * sizeof(float))); CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&temp, 1 << 20)); CK(cudaMemset(temp, 0, 1 << 20));
  CK(cudaMalloc(&hits, 4)); CK(cudaMemset(hits, 0, 4));
  std::vector<float> h(n); std::mt19937_64 r(7); for (float& x : h) { int v = int(r() % 32) - 16; x = float(v >= 0 ? v + 1 : v); }
  CK(cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CK(cub::DeviceReduce::Sum(nullptr, ctb, in, out, n, S)); CK(cudaMalloc(&ct, ctb));
  Call cub = [=] { size_t b = ctb; return cub::DeviceReduce::Sum(ct, b, in, out, n, S); };
  CK(cub()); float ref; CK(cudaStreamSynchronize(S)); CK(cudaMemcpy(&ref, out, 4, cudaMemcpyDeviceToHost));
  const double gc = graph_us(cub);
  auto* slots = reinterpret_cast<unsigned long long*>(temp + 256); auto* counter = reinterpret_cast<unsigned*>(temp);
  Options zeroed; zeroed.temp_storage_zeroed = true;
  void* lt; size_t ltb = 0; CK(gpureduce::DeviceReduce::Sum<float, float>(nullptr, ltb, in, out, n, S, zeroed)); CK(cudaMalloc(&lt, ltb)); CK(cudaMemset(lt, 0, ltb));
  printf("\n== graph f32 n=%lld, %dx256: CUB %.3f us\n", n, g, gc);
  auto row = [&](const char* what, const Call& f, bool count) {
    CK(cudaMemset(out, 0x7f, 64)); CK(f()); float got; CK(cudaStreamSynchronize(S)); CK(cudaMemcpy(&got, out, 4, cudaMemcpyDeviceToHost));
    CK(cudaMemset(hits, 0, 4));
    const double a = graph_us(f), b = graph_us(f);
    unsigned missed = 0; CK(cudaMemcpy(&missed, hits, 4, cudaMemcpyDeviceToHost));
    printf("  %-36s %7.3f %7.3f us  %.3fx CUB  %s", what, a, b, std::min(a, b) / gc, got == ref ? "ok" : "WRONG");
    if (count) printf("  slots not yet flagged when first read: %.2f per reduction", missed / (2.0 * 28 * 100));
    printf("\n");
  };
  for (int rep = 0; rep < 2; ++rep) {
    row("library automatic+zeroed", [=] { size_t b = ltb; return gpureduce::DeviceReduce::Sum<float, float>(lt, b, in, out, n, S, zeroed); }, false);
    row("probe flagged", [=] { return ex(k_flagged<false>, g, 256, (const float*)in, n, slots, counter, out, hits); }, true);
    row("probe flagged, slot preloaded", [=] { return ex(k_flagged<true>, g, 256, (const float*)in, n, slots, counter, out, hits); }, true);
  }
  cudaFree(in); cudaFree(out); cudaFree(ct); cudaFree(temp); cudaFree(lt); cudaFree(hits);
}

// (C) inside graphs: the library as built (libgpureduce.a, HEAD 928ea2b) against the working tree's
// dispatch compiled here (cuda::std::plus), which preloads the flagged slots.
template <class T> void graph_library_vs_here(const char* name, long long n) {
  T *in, *out; void *ct, *lt, *ht; size_t ctb = 0, ltb = 0, htb = 0;
  CK(cudaMalloc(&in, n * sizeof(T))); CK(cudaMalloc(&out, 64));
  std::vector<T> h(n); std::mt19937_64 r(11); for (T& x : h) { int v = int(r() % 32) - 16; x = T(v >= 0 ? v + 1 : v); }
  CK(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  Options zeroed; zeroed.temp_storage_zeroed = true;
  CK(cub::DeviceReduce::Sum(nullptr, ctb, in, out, n, S)); CK(cudaMalloc(&ct, ctb));
  CK(gpureduce::DeviceReduce::Sum<T, T>(nullptr, ltb, in, out, n, S, zeroed)); CK(cudaMalloc(&lt, ltb)); CK(cudaMemset(lt, 0, ltb));
  CK(gpureduce::Reduce(nullptr, htb, in, out, n, ::cuda::std::plus<T>{}, T{}, S, zeroed)); CK(cudaMalloc(&ht, htb)); CK(cudaMemset(ht, 0, htb));
  Call cub = [=] { size_t b = ctb; return cub::DeviceReduce::Sum(ct, b, in, out, n, S); };
  CK(cub()); T ref; CK(cudaStreamSynchronize(S)); CK(cudaMemcpy(&ref, out, sizeof(T), cudaMemcpyDeviceToHost));
  const double gc = graph_us(cub);
  gpureduce::LaunchPlan plan; CK(gpureduce::DeviceReduce::PlanSum<T, T>(plan, in, n, zeroed, S));
  printf("\n== graph %s n=%lld: CUB %.3f us; zeroed plan %s %dx%d\n", name, n, gc, gpureduce::to_string(plan.pipeline), plan.grid_blocks, plan.block_threads);
  auto row = [&](const char* what, const Call& f) {
    CK(cudaMemset(out, 0x7f, 64)); CK(f()); T got; CK(cudaStreamSynchronize(S)); CK(cudaMemcpy(&got, out, sizeof(T), cudaMemcpyDeviceToHost));
    const double a = graph_us(f), b = graph_us(f);
    printf("  %-36s %7.3f %7.3f us  %.3fx CUB  %s\n", what, a, b, std::min(a, b) / gc, got == ref ? "ok" : "WRONG");
  };
  for (int rep = 0; rep < 2; ++rep) {
    row("library zeroed (no preload)", [=] { size_t b = ltb; return gpureduce::DeviceReduce::Sum<T, T>(lt, b, in, out, n, S, zeroed); });
    row("here zeroed (slot preload)", [=] { size_t b = htb; return gpureduce::Reduce(ht, b, in, out, n, ::cuda::std::plus<T>{}, T{}, S, zeroed); });
    row("library default", [=] { size_t b = ltb; return gpureduce::DeviceReduce::Sum<T, T>(lt, b, in, out, n, S, Options{}); });
    row("here default", [=] { size_t b = htb; return gpureduce::Reduce(ht, b, in, out, n, ::cuda::std::plus<T>{}, T{}, S, Options{}); });
  }
  cudaFree(in); cudaFree(out); cudaFree(ct); cudaFree(lt); cudaFree(ht);
}

int main() {
  CK(cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking)); cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0)); printf("%s\n", prop.name);
  per_call<float>("f32", 4096); per_call<int>("i32", 4096); per_call<float>("f32", 1024);
  graph_preload(1 << 16, 32); graph_preload(1 << 18, 64); graph_preload(1 << 20, 128); graph_preload(1 << 22, 256);
  for (long long n : {1 << 16, 1 << 18, 1 << 20, 1 << 22}) { graph_library_vs_here<float>("f32", n); graph_library_vs_here<int>("i32", n); graph_library_vs_here<double>("f64", n); }
  printf("done\n");
}
