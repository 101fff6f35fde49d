// Probe (2026-11-29, H200): why a small gpureduce call, per call on an idle GPU, takes about 1 µs
// longer than CUB's while its kernel alone (in a graph) is the shorter one and the host returns
// as soon. Each contender is timed between CUDA events on an idle GPU (the paired harness's way),
// alone (the same call 41 times) and alternated with CUB's call (as the harness alternates), and
// its host time (the call's return) is taken with the GPU idle. Contenders: empty kernels launched
// with <<<>>> and with cudaLaunchKernelEx + PDL, with and without griddepcontrol, with 8 KiB of
// dynamic shared memory; gpureduce's and CUB's float Sum at 4K (one block each) and 16K.
//   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude benchmark/probes/launch_latency_probe.cu \
//        build/libgpureduce.a -o launch_latency_probe
#include <cub/device/device_reduce.cuh>
#include <gpureduce/gpureduce.hpp>

#include <functional>
#include <string>
#include <vector>

#include "probe_timing.cuh"

__global__ void empty_kernel() {}
__global__ void pdl_kernel() {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;");
}
__global__ void shared_kernel(float* out) {
  extern __shared__ float s[];
  s[threadIdx.x] = float(threadIdx.x);
  __syncthreads();
  if (threadIdx.x == 0 && s[31] < 0) *out = s[0];
}

cudaEvent_t e[2];
double time_idle(const std::function<void()>& call) { return idle_call_us(call, e); }
double host_idle(const std::function<void()>& call) {
  CHECK(cudaDeviceSynchronize());
  return host_us(call);
}

int main() {
  const int n_max = 1 << 14;
  float *x, *out;
  void* temp;
  const std::size_t temp_bytes = std::size_t(1) << 20;
  CHECK(cudaMalloc(&x, n_max * 4));
  CHECK(cudaMalloc(&out, 64));
  CHECK(cudaMalloc(&temp, temp_bytes));
  std::vector<float> h(n_max);
  for (int i = 0; i < n_max; ++i) h[i] = float((i * 7919) % 1000) / 1000.0f - 0.5f;
  CHECK(cudaMemcpy(x, h.data(), n_max * 4, cudaMemcpyHostToDevice));
  for (auto& ev : e) CHECK(cudaEventCreate(&ev));
  cudaLaunchAttribute pdl{};
  pdl.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  pdl.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(1), config.blockDim = dim3(256), config.attrs = &pdl, config.numAttrs = 1;
  auto cub_sum = [=](int n) {
    return [=] {
      std::size_t b = temp_bytes;
      CHECK(cub::DeviceReduce::Sum(temp, b, x, out + 1, n));
    };
  };
  auto our_sum = [=](int n) {
    return [=] {
      std::size_t b = temp_bytes;
      CHECK(gpureduce::DeviceReduce::Sum(temp, b, x, out + 2, n));
    };
  };
  const struct {
    std::string name;
    std::function<void()> call;
  } contenders[] = {
      {"empty <<<>>>", [] { empty_kernel<<<1, 256>>>(); }},
      {"empty Ex+PDL", [&] { CHECK(cudaLaunchKernelEx(&config, empty_kernel)); }},
      {"griddepcontrol <<<>>>", [] { pdl_kernel<<<1, 256>>>(); }},
      {"griddepcontrol Ex+PDL", [&] { CHECK(cudaLaunchKernelEx(&config, pdl_kernel)); }},
      {"8 KiB dynamic smem <<<>>>", [=] { shared_kernel<<<1, 256, 8192>>>(out); }},
      {"gpureduce Sum 4K", our_sum(4096)},
      {"CUB Sum 4K", cub_sum(4096)},
      {"gpureduce Sum 16K", our_sum(16384)},
      {"CUB Sum 16K", cub_sum(16384)},
  };
  for (auto& c : contenders)
    for (int w = 0; w < 5; ++w) c.call();
  CHECK(cudaDeviceSynchronize());
  std::printf("%-28s %12s %16s %12s\n", "contender", "alone µs", "after CUB 4K µs", "host µs");
  for (int round = 0; round < 2; ++round)
    for (auto& c : contenders) {
      std::vector<double> alone, alternated, host;
      for (int i = 0; i < 41; ++i) alone.push_back(time_idle(c.call));
      const auto cub4k = cub_sum(4096);
      for (int i = 0; i < 41; ++i) {
        time_idle(cub4k);
        alternated.push_back(time_idle(c.call));
      }
      for (int i = 0; i < 41; ++i) host.push_back(host_idle(c.call));
      std::printf("%-28s %12.2f %16.2f %12.2f\n", c.name.c_str(), median(alone), median(alternated),
                  median(host));
    }
  return 0;
}
