// Graph mode: many calls captured back to back into one CUDA graph and replayed with one
// cudaGraphLaunch. It takes the host's launch overhead and the gaps between launches out of the
// time, which is how a pipeline of many small reductions runs in an application that uses graphs.
#pragma once

#include <cuda_runtime_api.h>

#include <exception>
#include <string>

#include "cuda_check.hpp"

namespace gpureduce_bench {

// A stream created for one benchmark. Non-blocking: it never synchronises implicitly with the
// legacy default stream, which the benchmark's set-up (cudaMemset, cudaMemcpy, CUB's reference run)
// uses, so nothing outside the capture can join or invalidate it.
class CudaStream {
 public:
  CudaStream() { BENCH_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~CudaStream() {
    if (stream_) cudaStreamDestroy(stream_);  // no check: destructors must not throw
  }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// `count` calls of enqueue(stream) captured into one graph and instantiated once.
//
// A failure while capturing (a call that returns an error, e.g. an operation that cannot be
// captured, or a capture the driver invalidated) throws CudaFailure with the CUDA error text, but
// only after cudaStreamEndCapture has taken the stream out of capture mode and the partial graph is
// destroyed: a stream left capturing would make every later benchmark on this thread fail too.
class CapturedGraph {
 public:
  template <class Enqueue>
  CapturedGraph(cudaStream_t stream, int count, Enqueue&& enqueue) : stream_(stream) {
    // ThreadLocal: only this thread's unsafe calls (e.g. a synchronous cudaMemcpy) are refused
    // during the capture; other threads of the process are not affected.
    BENCH_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    std::string failure;
    std::exception_ptr other;  // anything that is not a std::exception, rethrown as it is
    try {
      for (int i = 0; i < count; ++i) enqueue(stream_);
    } catch (const std::exception& e) {
      failure = e.what();
    } catch (...) {
      other = std::current_exception();
    }
    cudaGraph_t graph = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(stream_, &graph);  // always, even after a failure
    if (!failure.empty() || other || ended != cudaSuccess) {
      if (graph) cudaGraphDestroy(graph);
      cudaGetLastError();  // the capture's error is reported below; don't leave it for the next call
      if (other) std::rethrow_exception(other);
      std::string why = "CUDA graph capture failed";
      if (!failure.empty()) why += ": " + failure;
      if (ended != cudaSuccess)
        why += std::string("; cudaStreamEndCapture: ") + cudaGetErrorName(ended) + " (" +
               cudaGetErrorString(ended) + ")";
      throw CudaFailure(why);
    }
    const cudaError_t instantiated = cudaGraphInstantiate(&exec_, graph, 0);
    cudaGraphDestroy(graph);  // the executable graph does not need it
    check_cuda(instantiated, "cudaGraphInstantiate", __FILE__, __LINE__);
  }
  ~CapturedGraph() {
    if (exec_) cudaGraphExecDestroy(exec_);
  }
  CapturedGraph(const CapturedGraph&) = delete;
  CapturedGraph& operator=(const CapturedGraph&) = delete;

  // Asynchronous on the stream it was captured on.
  void launch() { BENCH_CUDA_CHECK(cudaGraphLaunch(exec_, stream_)); }

 private:
  cudaStream_t stream_;
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace gpureduce_bench
