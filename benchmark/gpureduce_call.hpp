// gpureduce's Sum/Min/Max and PlanSum/PlanMin/PlanMax selected by an OpKind, through the host-only
// public header: the benchmark programs are plain C++ users of libgpureduce.a.
#pragma once

#include <gpureduce/gpureduce.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "cases.hpp"

namespace gpureduce_bench {

template <class In, OpKind Op>
cudaError_t gpureduce_reduce(void* d_temp, std::size_t& temp_bytes, const In* d_in,
                             out_t<In, Op>* d_out, std::int64_t n, cudaStream_t stream,
                             const gpureduce::Options& options) {
  using gpureduce::DeviceReduce;
  if constexpr (Op == OpKind::sum)
    return DeviceReduce::Sum<In, out_t<In, Op>>(d_temp, temp_bytes, d_in, d_out, n, stream, options);
  else if constexpr (Op == OpKind::min)
    return DeviceReduce::Min<In>(d_temp, temp_bytes, d_in, d_out, n, stream, options);
  else
    return DeviceReduce::Max<In>(d_temp, temp_bytes, d_in, d_out, n, stream, options);
}

template <class In, OpKind Op>
cudaError_t gpureduce_plan(gpureduce::LaunchPlan& plan, const In* d_in, std::int64_t n,
                           const gpureduce::Options& options, cudaStream_t stream = nullptr) {
  using gpureduce::DeviceReduce;
  if constexpr (Op == OpKind::sum)
    return DeviceReduce::PlanSum<In, out_t<In, Op>>(plan, d_in, n, options, stream);
  else if constexpr (Op == OpKind::min)
    return DeviceReduce::PlanMin<In>(plan, d_in, n, options, stream);
  else
    return DeviceReduce::PlanMax<In>(plan, d_in, n, options, stream);
}

// Calls f(std::integral_constant<OpKind, op>{}) so runtime choices reach the templates above.
template <class F>
decltype(auto) with_op(OpKind op, F&& f) {
  switch (op) {
    case OpKind::min: return f(std::integral_constant<OpKind, OpKind::min>{});
    case OpKind::max: return f(std::integral_constant<OpKind, OpKind::max>{});
    case OpKind::sum: break;
  }
  return f(std::integral_constant<OpKind, OpKind::sum>{});
}

}  // namespace gpureduce_bench
