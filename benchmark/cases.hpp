// The cases the benchmark programs measure: element type x operation, with the C++ types behind
// them, parsed from and printed as the short names used in benchmark names, the CSV and the ladder.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>
#include <string>
#include <type_traits>

namespace gpureduce_bench {

enum class ElemType { f32, i32, f64, f16 };
enum class OpKind { sum, min, max };

inline const char* to_string(ElemType t) {
  switch (t) {
    case ElemType::f32: return "f32";
    case ElemType::i32: return "i32";
    case ElemType::f64: return "f64";
    case ElemType::f16: return "f16";
  }
  return "?";
}
inline const char* to_string(OpKind op) {
  switch (op) {
    case OpKind::sum: return "sum";
    case OpKind::min: return "min";
    case OpKind::max: return "max";
  }
  return "?";
}
inline bool parse(const std::string& s, ElemType& t) {
  for (ElemType c : {ElemType::f32, ElemType::i32, ElemType::f64, ElemType::f16})
    if (s == to_string(c)) return t = c, true;
  return false;
}
inline bool parse(const std::string& s, OpKind& op) {
  for (OpKind c : {OpKind::sum, OpKind::min, OpKind::max})
    if (s == to_string(c)) return op = c, true;
  return false;
}

// Sums accumulate halves in float (as gpureduce ships Sum<__half, float> and CUB's Sum does with a
// float output); Min and Max return the input type.
template <class In> struct SumOut { using type = In; };
template <> struct SumOut<__half> { using type = float; };
template <class In, OpKind Op>
using out_t = std::conditional_t<Op == OpKind::sum, typename SumOut<In>::type, In>;

// The ElemType of a C++ input type (the inverse of with_elem_type).
template <class In>
constexpr ElemType elem_type_of() {
  if constexpr (std::is_same_v<In, double>) return ElemType::f64;
  else if constexpr (std::is_same_v<In, __half>) return ElemType::f16;
  else if constexpr (std::is_same_v<In, std::int32_t>) return ElemType::i32;
  else return ElemType::f32;
}

// Calls f(In{} as a tag) with the C++ type behind `t`: one switch, so adding a type is one line.
template <class F>
decltype(auto) with_elem_type(ElemType t, F&& f) {
  switch (t) {
    case ElemType::i32: return f(std::int32_t{});
    case ElemType::f64: return f(double{});
    case ElemType::f16: return f(__half{});
    case ElemType::f32: break;
  }
  return f(float{});
}

}  // namespace gpureduce_bench
