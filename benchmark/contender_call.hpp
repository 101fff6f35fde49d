// The contenders of gpureduce_bench (gpureduce with some Options, cub::DeviceReduce, thrust::reduce,
// `floor`, one empty kernel launch that computes nothing: the time no single-launch reduction
// can beat, and `read`, one launch that only reads the input) and one contender's call on one input, set up as a careful user sets it up: temp storage sized and
// allocated once, outside anything timed. Both benchmark families (stream and graph) use it.
#pragma once

#include <gpureduce/gpureduce.hpp>

#include <cstdint>
#include <memory>
#include <string>

#include "cases.hpp"
#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "floor_kernel.hpp"
#include "gpureduce_call.hpp"
#include "reference_reducers.hpp"

namespace gpureduce_bench {

struct Contender {
  // empty_launch: "floor"; read_input: "read"
  enum Kind { gpureduce, cub, thrust, empty_launch, read_input } kind = gpureduce;
  gpureduce::Options options;  // for kind == gpureduce
  std::string name;            // the last part of a benchmark's name
};

inline Contender gpureduce_contender(gpureduce::Strategy s, gpureduce::Pipeline p,
                                     bool zeroed = false) {
  Contender c;
  c.options.strategy = s;
  c.options.pipeline = p;
  c.options.temp_storage_zeroed = zeroed;
  c.name = std::string(gpureduce::to_string(s)) + "/" + gpureduce::to_string(p) +
           (zeroed ? "+zeroed" : "");
  return c;
}

// automatic with Options::accuracy = correctly_rounded (floating sums; on the benchmark's
// small-integer inputs every order is exact, so it is checked against CUB's bits like the rest).
inline Contender correctly_rounded_contender() {
  Contender c = gpureduce_contender(gpureduce::Strategy::automatic, gpureduce::Pipeline::automatic);
  c.options.accuracy = gpureduce::Accuracy::correctly_rounded;
  c.name = "automatic/automatic+correctly_rounded";
  return c;
}

inline Contender cub_contender() {
  Contender c;
  c.kind = Contender::cub;
  c.name = "cub";
  return c;
}

inline Contender thrust_contender() {
  Contender c;
  c.kind = Contender::thrust;
  c.name = "thrust";
  return c;
}

// Not a reduction: one launch of an empty kernel (1 block of 32 threads) per call. It reads nothing
// and writes nothing, so it has no result to validate; it is measured in the same run, loop and
// timing as the reductions so that report.py can put the floor next to them.
inline Contender floor_contender() {
  Contender c;
  c.kind = Contender::empty_launch;
  c.name = "floor";
  return c;
}

// Not a reduction either: one launch of a kernel that reads the input and reduces nothing
// (floor_kernel.hpp), as fast as we know how to read it. Where the time is bandwidth (large n) it
// is the floor that counts: what a read of these bytes takes on this machine, in this run.
inline Contender read_contender() {
  Contender c;
  c.kind = Contender::read_input;
  c.name = "read";
  return c;
}

template <class In, OpKind Op>
class ContenderCall {
 public:
  using Out = out_t<In, Op>;

  ContenderCall(const Contender& c, const In* d_in, std::int64_t n)
      : c_(c), d_in_(d_in), n_(n), d_out_(1) {
    switch (c_.kind) {
      case Contender::gpureduce:
        BENCH_GPUREDUCE_CHECK((gpureduce_reduce<In, Op>(nullptr, temp_bytes_, d_in_, d_out_.get(),
                                                        n_, nullptr, c_.options)));
        temp_ = DeviceBuffer<unsigned char>(temp_bytes_);
        if (c_.options.temp_storage_zeroed)
          BENCH_CUDA_CHECK(cudaMemset(temp_.get(), 0, temp_.bytes()));  // once; calls keep it zero
        break;
      case Contender::cub:
        cub_ = std::make_unique<CubReducer<In, Op>>(d_in_, d_out_.get(), n_);
        break;
      case Contender::thrust:
      case Contender::empty_launch:
      case Contender::read_input:
        break;
    }
  }

  // One reduction, asynchronous on `stream`, except Thrust's: as users call it, it allocates, runs
  // on the default stream and synchronises (so it cannot be captured into a graph), and that is
  // part of its time.
  void enqueue(cudaStream_t stream) {
    switch (c_.kind) {
      case Contender::gpureduce:
        BENCH_GPUREDUCE_CHECK((gpureduce_reduce<In, Op>(temp_.get(), temp_bytes_, d_in_,
                                                        d_out_.get(), n_, stream, c_.options)));
        break;
      case Contender::cub:
        cub_->enqueue(stream);
        break;
      case Contender::thrust:
        thrust_result_ = thrust_reduce<In, Op>(d_in_, n_);
        break;
      case Contender::empty_launch:
        BENCH_CUDA_CHECK(launch_empty_kernel(stream));
        break;
      case Contender::read_input:
        BENCH_CUDA_CHECK(launch_read_kernel(d_in_, std::size_t(n_) * sizeof(In), stream));
        break;
    }
  }

  // Fills the output with 0x7F bytes, a value no reduction of the benchmark's inputs gives (3.4e38
  // as a float, a NaN as a half, 2.1e9 as an int32, while sums of these inputs stay near
  // 10 sqrt(n)), so a call that writes nothing cannot pass validation with a correct answer that an
  // earlier benchmark left in the same recycled allocation.
  void poison_output(cudaStream_t stream) {
    BENCH_CUDA_CHECK(cudaMemsetAsync(d_out_.get(), 0x7F, sizeof(Out), stream));
  }

  // Whether the call computes a result that can be checked (every contender but floor and read).
  bool has_result() const {
    return c_.kind != Contender::empty_launch && c_.kind != Contender::read_input;
  }
  // Whether it reads the input (every contender but floor): then its bytes and GB/s are reported.
  bool reads_input() const { return c_.kind != Contender::empty_launch; }

  // Waits for `stream`, then reads the answer (meaningless for floor: see has_result).
  Out result(cudaStream_t stream) {
    if (c_.kind == Contender::thrust) return thrust_result_;
    BENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
    Out v{};
    BENCH_CUDA_CHECK(cudaMemcpy(&v, d_out_.get(), sizeof(Out), cudaMemcpyDeviceToHost));
    return v;
  }

 private:
  Contender c_;
  const In* d_in_;
  std::int64_t n_;
  DeviceBuffer<Out> d_out_;
  DeviceBuffer<unsigned char> temp_;
  std::size_t temp_bytes_ = 0;
  std::unique_ptr<CubReducer<In, Op>> cub_;
  Out thrust_result_{};
};

}  // namespace gpureduce_bench
