// Probe (2026-11-29, stop 54, H200): where automatic's correctly rounded sums should leave the
// cluster window (cluster_window.cuh, one cluster up to 256 KiB) for the grid window
// (grid_window.cuh): the cluster range was set before the grid window existed, against the
// general grid. Built once per variant of the library's cluster limit
// (GPUREDUCE_PROBE_CLUSTER_MAX_KIB in a copy of dispatch.cuh; 16 = no cluster: the grid window
// from one block up; the archive's exact_float_float and exact_double_double members replaced),
// each binary timing cub::DeviceReduce::Sum, the default Sum and the correctly rounded Sum of
// floats at 8K-64K items and doubles at 4K-32K (32-256 KiB), or the cases given after the label
// ("f32:N", "f64:N"), as exact_one_block_probe.cu does:
//   call   between CUDA events on an idle GPU, contenders alternated (the paired harness's way);
//   graph  20 calls captured into a graph, replayed: µs a call;
//   host   wall time of the call's return while the GPU is busy.
// Inputs: random integers in [-16, 16] without 0 (the benchmark's), and uniform in [-1, 1).
// Medians of 31.
//   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -c benchmark/probes/exact_cluster_range_probe.cu -o p.o
//   nvcc -arch=sm_90 p.o exact_float_float_K.o exact_double_double_K.o libgpureduce_without.a -o probe_K
#include <string>

#include "exact_probe_calls.cuh"

// integers: random in [-16, 16] without 0; else uniform in [-1, 1).
__global__ void fill(double* xd, float* xf, int n, int integers, unsigned seed) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const unsigned long long h = mix(i * 0x9e3779b97f4a7c15ull + seed);
    double v = double(h >> 11) / double(1ull << 53) * 2.0 - 1.0;
    if (integers) {
      const int k = int(mix(h) % 32);  // 0..31 -> -16..-1, 1..16
      v = k < 16 ? double(k - 16) : double(k - 15);
    }
    xd[i] = v;
    xf[i] = float(v);
  }
}

// The cases: "f32:N" and "f64:N" from the command line after the label, else the cluster range's.
struct Case {
  int is_double, n;
};
std::vector<Case> cases_from(int argc, char** argv) {
  std::vector<Case> cases;
  for (int a = 2; a < argc; ++a) {
    const std::string s = argv[a];
    if (s.size() < 5 || (s.rfind("f32:", 0) != 0 && s.rfind("f64:", 0) != 0)) {
      std::fprintf(stderr, "usage: %s LABEL [f32:N | f64:N ...]\n", argv[0]);
      std::exit(2);
    }
    cases.push_back({s[1] == '6', std::stoi(s.substr(4))});
  }
  if (!cases.empty()) return cases;
  for (int is_double = 1; is_double >= 0; --is_double)
    for (int n : {1 << 12, 1 << 13, 3 << 12, 1 << 14, 3 << 13, 1 << 15, 3 << 14, 1 << 16}) {
      const int bytes = n * (is_double ? 8 : 4);
      if (bytes >= (32 << 10) && bytes <= (256 << 10)) cases.push_back({is_double, n});
    }
  return cases;
}

int main(int argc, char** argv) {
  const char* label = argc > 1 ? argv[1] : "?";
  const std::vector<Case> cases = cases_from(argc, argv);
  int largest = 1;
  for (const Case& c : cases) largest = c.n > largest ? c.n : largest;
  const ProbeBuffers b(largest);
  print_header(label);
  for (int integers = 1; integers >= 0; --integers)
    for (const Case& c : cases) {
      fill<<<64, 256>>>(b.xd, b.xf, c.n, integers, 7u + c.n);
      CHECK(cudaDeviceSynchronize());
      time_and_print(label, integers ? "integer" : "uniform", c.n, c.is_double, b);
    }
  return 0;
}
