// Probe (2026-11-30, stop 64, H200): whether the correctly rounded sum keeps its speed on data
// other than the benchmark's. gpureduce_bench times it on integers in [-16, 16] (exact in every
// order, so contenders can be checked by equality), which every fast path of the exact engine
// takes: a block's or a batch's window holds them all. Real data spans more exponent fields, and
// a span past a window sends the work to a slower path (one_block_sum.cuh's integer pass,
// grid_window_thread.cuh's input-by-input batch, the general body). Each row times
// cub::DeviceReduce::Sum, the default Sum and the correctly rounded Sum (exact_probe_calls.cuh:
// call, graph, host) on one distribution:
//   integer   integers in [-16, 16] without 0 (the benchmark's)
//   uniform   uniform in [-1, 1)
//   normal    N(0, 1)
//   wideK     sign x (1 + u) x 2^k, k a uniform integer in [-K, K] (K = 20, 60)
// Cases are "f32:N" / "f64:N" / "b16:N" (bfloat16 -> float: the floats rounded to bfloat16) after
// the label; distributions by PROBE_DATA (comma-separated, default all).
//   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude benchmark/probes/cr_data_probe.cu build/libgpureduce.a
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>

#include "exact_probe_calls.cuh"

enum Data { kInteger, kUniform, kNormal, kWide20, kWide60 };
const char* const kDataNames[] = {"integer", "uniform", "normal", "wide20", "wide60"};

__device__ double unit(unsigned long long h) { return double(h >> 11) / double(1ull << 53); }

__global__ void fill(double* xd, float* xf, long long n, int data, unsigned seed) {
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += gridDim.x * 256ll) {
    const unsigned long long h = mix(i * 0x9e3779b97f4a7c15ull + seed), h2 = mix(h);
    double v;
    if (data == kInteger) {
      const int k = int(h2 % 32);  // 0..31 -> -16..-1, 1..16
      v = k < 16 ? double(k - 16) : double(k - 15);
    } else if (data == kUniform) {
      v = unit(h) * 2.0 - 1.0;
    } else if (data == kNormal) {
      const double r = sqrt(-2.0 * log(1.0 - unit(h))), t = 6.283185307179586 * unit(h2);
      v = r * cos(t);
    } else {
      const int K = data == kWide20 ? 20 : 60;
      const int k = int(h2 % unsigned(2 * K + 1)) - K;
      v = ldexp(1.0 + unit(h), k) * ((h2 >> 40) & 1 ? -1.0 : 1.0);
    }
    xd[i] = v;
    xf[i] = float(v);
  }
}

__global__ void to_bfloat16(const float* xf, __nv_bfloat16* xb, long long n) {
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += gridDim.x * 256ll)
    xb[i] = __float2bfloat16(xf[i]);
}

enum Type { kF32, kF64, kB16 };

int main(int argc, char** argv) {
  const char* label = argc > 1 ? argv[1] : "?";
  std::vector<std::pair<Type, int>> cases;  // (type, n)
  for (int a = 2; a < argc; ++a) {
    const std::string s = argv[a];
    const std::string t = s.substr(0, 4);
    if (s.size() < 5 || (t != "f32:" && t != "f64:" && t != "b16:")) {
      std::fprintf(stderr, "usage: %s LABEL f32:N | f64:N | b16:N ...\n", argv[0]);
      return 2;
    }
    cases.push_back({t == "f32:" ? kF32 : t == "f64:" ? kF64 : kB16, std::stoi(s.substr(4))});
  }
  std::vector<int> datas;
  const char* env = std::getenv("PROBE_DATA");
  std::stringstream list(env != nullptr ? env : "integer,uniform,normal,wide20,wide60");
  for (std::string name; std::getline(list, name, ',');)
    for (int d = 0; d < 5; ++d)
      if (name == kDataNames[d]) datas.push_back(d);
  int largest = 1;
  for (const auto& c : cases) largest = c.second > largest ? c.second : largest;
  const ProbeBuffers b(largest);
  print_header(label);
  for (const auto& c : cases)
    for (int d : datas) {
      fill<<<1024, 256>>>(b.xd, b.xf, c.second, d, 7u + unsigned(c.second));
      CHECK(cudaGetLastError());
      if (c.first == kB16) {
        to_bfloat16<<<1024, 256>>>(b.xf, b.xb, c.second);
        CHECK(cudaGetLastError());
      }
      CHECK(cudaDeviceSynchronize());
      if (c.first == kB16) time_and_print_bf16(label, kDataNames[d], c.second, b);
      else time_and_print(label, kDataNames[d], c.second, c.first == kF64, b);
    }
  return 0;
}
