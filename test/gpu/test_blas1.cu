// Blas1 (Dot, SumSquares, Norm2, SumAbs, ArgMaxAbs) against exact sums from MPFR and against cuBLAS
// (device pointer mode, the _64 calls), beyond test_level1_core.cu's checks:
//   - float under every strategy x pipeline (and automatic, and zeroed temp storage); double, half
//     and bfloat16 under a dozen plans; n in {0, 1, 31, 32, 33, 255, 256, 257, 4095, 4097, 65537,
//     2^20 + 7, 1000003}, x and y aligned and at x + 1, y + 3, a guard of 1024 just outside each
//     array (reading it breaks every check), a fresh seed per size, outputs poisoned before every
//     call. Two inputs: small nonzero integers in [-3, 3], and values spread over 2^-5..2^4 of
//     random sign. The atomic pipeline runs Dot and SumAbs and refuses the others;
//   - cuBLAS on the same inputs, against the same references: cublasSdot/Ddot, and cublasDotEx for
//     half and bfloat16 (inputs CUDA_R_16F / CUDA_R_16BF, result and execution CUDA_R_32F);
//     Snrm2/Dnrm2, Sasum/Dasum, Isamax/Idamax (1-based) for float and double;
//   - NaN and infinities, ours against IEEE arithmetic and against cuBLAS (Blas1Special);
//   - SumAbs of 2^31 + 17 floats against cublasSasum_64 and an exact host sum (Blas1Large).
//
// The bounds. u is the unit roundoff of the type summed in (2^-24 float, 2^-53 double) and
// gamma_k = k u / (1 - k u) (Higham): k roundings of relative error at most u each stay within
// gamma_k of 1. A sum along any binary tree passes each term through at most n - 1 additions, so
// these hold for every order, the engine's trees and the atomic pipeline's included (an addition
// of the zero init is exact):
//   - SumAbs: |x| is exact (and exact in float for half and bfloat16): |r - S| <= gamma_{n-1} S|x|.
//   - Dot of float and double: each product rounds once more: |r - S| <= gamma_n S|x y|. Of half
//     and bfloat16: products are exact in float (11 + 11 and 8 + 8 significant bits, and these
//     inputs keep them normal): gamma_{n-1} S|x y| with u = 2^-24.
//   - SumSquares, Norm2 of the float family: squares are exact in double and summed there, so the
//     double sum lies within gamma_{n-1} (u = 2^-53) of S relatively (all terms >= 0); Norm2 takes
//     its correctly rounded square root (within 2^-53 more); one rounding to float follows, and
//     rounding is monotonic: the result lies in [fl(lo), fl(hi)] for the ends lo, hi of that
//     range (2^-50 more on each end covers the double arithmetic that computes them). For n up to
//     2^27 the range is under 2^-25 of S wide, so [fl(lo), fl(hi)] is the correctly rounded float
//     (from MPFR) and at most its neighbour: within one ulp of it, and equal to it unless S lies
//     within that range of a rounding boundary. The test checks this premise on every input.
//   - SumSquares, Norm2 of doubles (Blue's sums; these inputs lie in its middle range, where it adds
//     plain squares): each square rounds once: |r - S| <= gamma_n S; Norm2 rounds sqrt once more:
//     |r - sqrt S| <= gamma_{n+1} sqrt S (|sqrt(1 + t) - 1| <= |t|).
//   - Small integers: every term is an integer and the sum of their magnitudes is at most 9 n <=
//     2^24 (checked), so every partial sum in any order is an integer exact in float: the bound
//     on Dot and SumAbs is 0, bit for bit, for ours and for cuBLAS. Any element lost, read twice
//     or read from outside the arrays changes these results.
//   - cuBLAS's Snrm2/Dnrm2 algorithm is not documented: it is held to gamma_{4n+8} (each term
//     scaled, squared, added and rescaled, with slack), a check that cuBLAS and the reference agree
//     rather than a claim about cuBLAS.
#include <cublas_v2.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/mpfr_oracle.hpp"
#include "gpu/common.cuh"
#include "gpu/level1_calls.cuh"
#include "gpureduce/blas.hpp"

namespace gpureduce::testing {
namespace {

// ---- Types -----------------------------------------------------------------------------------------

template <class T>
using out_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

constexpr double kDoubleRoundoff = 0x1p-53;
template <class T>
constexpr double unit_roundoff() {
  return std::is_same_v<out_t<T>, double> ? kDoubleRoundoff : 0x1p-24;
}
// Half and bfloat16 themselves (cuBLAS's half/bfloat16 Dot rounds its result to them).
template <class T>
constexpr double narrow_roundoff() {
  return std::is_same_v<T, __half> ? 0x1p-11 : 0x1p-8;
}

template <class T>
constexpr cudaDataType cuda_type() {
  if constexpr (std::is_same_v<T, float>) return CUDA_R_32F;
  else if constexpr (std::is_same_v<T, double>) return CUDA_R_64F;
  else if constexpr (std::is_same_v<T, __half>) return CUDA_R_16F;
  else return CUDA_R_16BF;
}

template <class T>
const char* type_name() {
  return Case<T, T, Op::sum>::template type_name<T>();
}

template <class T>
T from_double(double v) {
  if constexpr (detail::is_half_like_v<T>) return T(float(v));
  else return T(v);
}

// |v| as the library computes it for a number: the sign bit cleared (-0 gives +0).
template <class T>
T magnitude(T v) {
  using Bits = std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                  std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>;
  Bits bits;
  std::memcpy(&bits, &v, sizeof bits);
  bits = Bits(bits & ~(Bits(1) << (8 * sizeof(T) - 1)));
  std::memcpy(static_cast<void*>(&v), &bits, sizeof bits);
  return v;
}

std::string text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g (%a)", v, v);
  return buf;
}

// ---- Bounds ----------------------------------------------------------------------------------------

double gamma_k(std::int64_t k, double u) {
  if (k <= 0) return 0.0;
  const double ku = double(k) * u;
  return ku < 1 ? ku / (1 - ku) : std::numeric_limits<double>::infinity();
}

// gamma_k times the sum of magnitudes, 2^-50 higher for the double arithmetic that computes it.
double sum_bound(std::int64_t k, double u, double abs_sum) {
  return gamma_k(k, u) * abs_sum * (1 + 0x1p-50);
}

// ---- Exact sums (MPFR) -----------------------------------------------------------------------------

// Products of two floats (half and bfloat16 are floats too) are multiples of 2^-298 below 2^256, of
// two doubles multiples of 2^-2148 below 2^2048: with 40 bits for the count, a sum of up to 2^40 of
// them fits these precisions exactly.
template <class T>
constexpr mpfr_prec_t exact_bits() {
  return std::is_same_v<T, double> ? 2148 + 2048 + 40 : 298 + 256 + 40;
}

// A sum of products of doubles, exact: every MPFR operation's ternary value says whether it
// rounded, and exact() says that none did.
class ExactSum {
 public:
  explicit ExactSum(mpfr_prec_t bits) {
    mpfr_init2(sum_, bits);
    mpfr_init2(term_, 128);  // a product of two doubles has at most 106 significant bits
    mpfr_set_zero(sum_, 1);
  }
  ~ExactSum() {
    mpfr_clear(sum_);
    mpfr_clear(term_);
  }
  ExactSum(const ExactSum&) = delete;
  ExactSum& operator=(const ExactSum&) = delete;

  void add_product(double a, double b) {
    rounded_ |= mpfr_set_d(term_, a, MPFR_RNDN) != 0;
    rounded_ |= mpfr_mul_d(term_, term_, b, MPFR_RNDN) != 0;
    rounded_ |= mpfr_add(sum_, sum_, term_, MPFR_RNDN) != 0;
  }
  bool exact() const { return !rounded_; }
  double nearest() const { return mpfr_get_d(sum_, MPFR_RNDN); }
  double upper() const { return mpfr_get_d(sum_, MPFR_RNDU); }
  float nearest_float() const { return mpfr_get_flt(sum_, MPFR_RNDN); }
  // The square root, correctly rounded to float (24 bits, then exactly to float).
  float root_float() const {
    mpfr_t r;
    mpfr_init2(r, 24);
    mpfr_sqrt(r, sum_, MPFR_RNDN);
    const float v = mpfr_get_flt(r, MPFR_RNDN);
    mpfr_clear(r);
    return v;
  }
  // |got - sum| (root: |got - sqrt(sum)|, the root to 256 bits, far below any bound here), rounded
  // toward zero.
  double distance(double got, bool root = false) const {
    mpfr_t value, d;
    mpfr_init2(value, root ? 256 : mpfr_get_prec(sum_));
    mpfr_init2(d, 64);
    if (root) mpfr_sqrt(value, sum_, MPFR_RNDN);
    else mpfr_set(value, sum_, MPFR_RNDN);
    mpfr_d_sub(d, got, value, MPFR_RNDZ);
    const double out = std::fabs(mpfr_get_d(d, MPFR_RNDZ));
    mpfr_clear(value);
    mpfr_clear(d);
    return out;
  }

 private:
  mpfr_t sum_, term_;
  bool rounded_ = false;
};

// ---- Inputs ----------------------------------------------------------------------------------------

enum class Values {
  small_integers,  // nonzero integers in [-3, 3]: every partial sum exact (see the top)
  spread,          // +-m 2^e, m in [0.5, 1) at the type's precision, e in [-4, 4]: never zero
};
const char* to_string(Values v) { return v == Values::small_integers ? "small_integers" : "spread"; }

template <class T>
T make_input(Values kind, std::uint64_t seed, std::int64_t i) {
  const std::uint64_t h = mix64(seed ^ mix64(std::uint64_t(i)));
  const double sign = (h >> 63) ? -1.0 : 1.0;
  if (kind == Values::small_integers) return from_double<T>(sign * double(1 + h % 3));
  const double mantissa = 0.5 + double(h & ((std::uint64_t(1) << 52) - 1)) * 0x1p-53;
  return from_double<T>(sign * std::ldexp(mantissa, int(mix64(h) % 9) - 4));
}

template <class T>
struct Input {
  std::vector<T> x, y;
};

template <class T>
Input<T> make_inputs(Values kind, std::uint64_t seed, std::int64_t n) {
  Input<T> in;
  for (std::int64_t i = 0; i < n; ++i) {
    in.x.push_back(make_input<T>(kind, seed, i));
    in.y.push_back(make_input<T>(kind, ~seed, i));
  }
  return in;
}

// Above every input's magnitude (16) and exact in every type: read by mistake, it changes every
// sum and wins ArgMaxAbs.
constexpr double kGuard = 1024.0;

// `host` at `at` = buffer + offset, the guard in every other element of the buffer (just before
// `at` where offset > 0, and just after the last element).
template <class T>
struct OnDevice {
  DeviceBuffer<T> buffer;
  T* at = nullptr;
  OnDevice(const std::vector<T>& host, int offset) : buffer(host.size() + std::size_t(offset) + 1) {
    std::vector<T> staged(host.size() + std::size_t(offset) + 1, from_double<T>(kGuard));
    std::copy(host.begin(), host.end(), staged.begin() + offset);
    if (buffer.ok() && cudaMemcpy(buffer.get(), staged.data(), staged.size() * sizeof(T),
                                  cudaMemcpyHostToDevice) == cudaSuccess)
      at = buffer.get() + offset;
  }
};

// x at x + x_offset, y at y + y_offset: Dot's two arrays aligned alike or not.
template <class T>
struct Placed {
  OnDevice<T> x, y;
  int x_offset, y_offset;
  Placed(const std::vector<T>& hx, const std::vector<T>& hy, int xo, int yo)
      : x(hx, xo), y(hy, yo), x_offset(xo), y_offset(yo) {}
  bool ok() const { return x.at != nullptr && y.at != nullptr; }
};

// The exact sums of one input and ArgMaxAbs's answer.
template <class T>
struct Reference {
  ExactSum dot{exact_bits<T>()}, dot_abs{exact_bits<T>()}, squares{exact_bits<T>()}, abs{exact_bits<T>()};
  std::int64_t first_largest = -1;  // the first index of the largest |x| (-1 for n = 0)

  explicit Reference(const Input<T>& in) {
    double largest = -1;
    for (std::size_t i = 0; i < in.x.size(); ++i) {
      const double a = as_double_exactly(in.x[i]), b = as_double_exactly(in.y[i]);
      dot.add_product(a, b);
      dot_abs.add_product(std::fabs(a), std::fabs(b));
      squares.add_product(a, a);
      abs.add_product(std::fabs(a), 1.0);
      if (std::fabs(a) > largest) {
        largest = std::fabs(a);
        first_largest = std::int64_t(i);
      }
    }
  }
  bool exact() const { return dot.exact() && dot_abs.exact() && squares.exact() && abs.exact(); }
};

template <class T>
struct Problem {
  Values kind;
  std::uint64_t seed;
  std::int64_t n;
  Input<T> in;
  Reference<T> ref;
  Problem(Values k, std::uint64_t s, std::int64_t count)
      : kind(k), seed(s), n(count), in(make_inputs<T>(k, s, count)), ref(in) {}
};

// ---- The checks ------------------------------------------------------------------------------------

::testing::AssertionResult within(double got, const ExactSum& exact, double bound, bool root = false) {
  if (!std::isfinite(got)) return ::testing::AssertionFailure() << "got " << got << ", not a finite number";
  const double error = exact.distance(got, root);
  if (error <= bound) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << text(got) << ", exact " << (root ? "sqrt of " : "")
                                       << text(exact.nearest()) << ": |error| " << error << " > bound " << bound;
}

// SumSquares (root false) and Norm2 of the float family: [fl(lo), fl(hi)] (the top of the file).
::testing::AssertionResult float_squares_in_range(float got, const ExactSum& squares, std::int64_t n, bool root) {
  const double g = gamma_k(n - 1, kDoubleRoundoff) + 0x1p-50;
  double lo = squares.nearest() * (1 - g), hi = squares.nearest() * (1 + g);
  if (root) {
    lo = std::sqrt(lo) * (1 - 0x1p-50);
    hi = std::sqrt(hi) * (1 + 0x1p-50);
  }
  const float lo_f = float(lo), hi_f = float(hi);
  const float correct = root ? squares.root_float() : squares.nearest_float();
  if (!(lo_f <= correct && correct <= hi_f && hi_f <= std::nextafter(lo_f, INFINITY)))
    return ::testing::AssertionFailure() << "test error: [" << text(lo_f) << ", " << text(hi_f)
                                         << "] is not one ulp around " << text(correct);
  if (lo_f <= got && got <= hi_f) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << text(got) << ", correctly rounded " << text(correct)
                                       << ", allowed [" << text(lo_f) << ", " << text(hi_f) << "]";
}

// SumSquares and Norm2 of doubles (Blue's sums in their middle range).
::testing::AssertionResult double_squares_within(double got, const ExactSum& squares, std::int64_t n, bool root) {
  if (!root) return within(got, squares, sum_bound(n, kDoubleRoundoff, squares.upper()));
  return within(got, squares, sum_bound(n + 1, kDoubleRoundoff, std::sqrt(squares.upper()) * (1 + 0x1p-50)), true);
}

enum class Blas1Op { dot, sum_squares, norm2, sum_abs };
constexpr Blas1Op kSumOps[] = {Blas1Op::dot, Blas1Op::sum_squares, Blas1Op::norm2, Blas1Op::sum_abs};
const char* op_name(Blas1Op op) {
  switch (op) {
    case Blas1Op::dot: return "Dot";
    case Blas1Op::sum_squares: return "SumSquares";
    case Blas1Op::norm2: return "Norm2";
    default: return "SumAbs";
  }
}
// Dot and SumAbs are sums of a native type, which the atomic pipeline serves; SumSquares and Norm2
// sum structs (and ArgMaxAbs pairs), which it refuses.
bool atomic_serves(Blas1Op op) { return op == Blas1Op::dot || op == Blas1Op::sum_abs; }

// Products of float or double round once more than half and bfloat16 products (exact in float).
template <class T>
std::int64_t dot_roundings(std::int64_t n) {
  return detail::is_half_like_v<T> ? n - 1 : n;
}

// Whether `got` is what `op` may give on this problem (the bounds at the top of the file).
template <class T>
::testing::AssertionResult acceptable(Blas1Op op, out_t<T> got, const Problem<T>& p) {
  const Reference<T>& ref = p.ref;
  const bool exact_sums = p.kind == Values::small_integers;
  const double u = unit_roundoff<T>();
  if (op == Blas1Op::dot)
    return within(got, ref.dot, exact_sums ? 0.0 : sum_bound(dot_roundings<T>(p.n), u, ref.dot_abs.upper()));
  if (op == Blas1Op::sum_abs) return within(got, ref.abs, exact_sums ? 0.0 : sum_bound(p.n - 1, u, ref.abs.upper()));
  if constexpr (std::is_same_v<T, double>) return double_squares_within(got, ref.squares, p.n, op == Blas1Op::norm2);
  else return float_squares_in_range(got, ref.squares, p.n, op == Blas1Op::norm2);
}

template <class T>
::testing::AssertionResult right_arg(const IndexedValue<T>& got, const Input<T>& in, std::int64_t want_index) {
  const T want_value = want_index < 0 ? T(0.0f) : magnitude(in.x[std::size_t(want_index)]);
  if (got.index == want_index && same_bits(got.value, want_value)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got {" << got.index << ", " << show(got.value) << "}, want {"
                                       << want_index << ", " << show(want_value) << "}";
}

// ---- Our calls -------------------------------------------------------------------------------------

template <class T>
cudaError_t ours(Blas1Op op, void* temp, std::size_t& bytes, const T* x, const T* y, out_t<T>* out,
                 std::int64_t n, const Options& o) {
  switch (op) {
    case Blas1Op::dot: return Blas1::Dot(temp, bytes, x, y, out, n, nullptr, o);
    case Blas1Op::sum_squares: return Blas1::SumSquares(temp, bytes, x, out, n, nullptr, o);
    case Blas1Op::norm2: return Blas1::Norm2(temp, bytes, x, out, n, nullptr, o);
    default: return Blas1::SumAbs(temp, bytes, x, out, n, nullptr, o);
  }
}

template <class T>
struct Outputs {
  DeviceBuffer<out_t<T>> value{1};
  DeviceBuffer<IndexedValue<T>> arg{1};
  Scratch temp;
};

template <class T>
::testing::AssertionResult run_ours(Blas1Op op, const T* x, const T* y, std::int64_t n, const Options& o,
                                    Outputs<T>& out, out_t<T>& got) {
  return run_call([&](void* t, std::size_t& b) { return ours(op, t, b, x, y, out.value.get(), n, o); },
                  out.value.get(), got, o.temp_storage_zeroed, out.temp);
}

template <class T>
::testing::AssertionResult run_arg_max_abs(const T* x, std::int64_t n, const Options& o, Outputs<T>& out,
                                           IndexedValue<T>& got) {
  return run_call([&](void* t, std::size_t& b) { return Blas1::ArgMaxAbs(t, b, x, out.arg.get(), n, nullptr, o); },
                  out.arg.get(), got, o.temp_storage_zeroed, out.temp);
}

// Every call under `options` against the reference, or refused where the pipeline is atomic.
template <class T>
void check_plan(const Options& options, const Placed<T>& at, const Problem<T>& p, Outputs<T>& out) {
  const bool atomic = options.pipeline == Pipeline::atomic;
  for (Blas1Op op : kSumOps) {
    if (atomic && !atomic_serves(op)) {
      const auto call = [&](void* t, std::size_t& b, const Options& o) {
        return ours(op, t, b, at.x.at, at.y.at, out.value.get(), p.n, o);
      };
      EXPECT_TRUE(atomic_refuses(call, options, out.value.get(), out.temp)) << op_name(op);
      continue;
    }
    out_t<T> got{};
    ASSERT_TRUE(run_ours(op, at.x.at, at.y.at, p.n, options, out, got)) << op_name(op);
    EXPECT_TRUE(acceptable(op, got, p)) << op_name(op);
  }
  if (atomic) {
    const auto call = [&](void* t, std::size_t& b, const Options& o) {
      return Blas1::ArgMaxAbs(t, b, at.x.at, out.arg.get(), p.n, nullptr, o);
    };
    EXPECT_TRUE(atomic_refuses(call, options, out.arg.get(), out.temp)) << "ArgMaxAbs";
    return;
  }
  IndexedValue<T> arg{};
  ASSERT_TRUE(run_arg_max_abs(at.x.at, p.n, options, out, arg)) << "ArgMaxAbs";
  EXPECT_TRUE(right_arg(arg, p.in, p.ref.first_largest)) << "ArgMaxAbs";
}

// ---- cuBLAS ----------------------------------------------------------------------------------------

// One handle in device pointer mode; each call's result poisoned before, read back after.
class Cublas {
 public:
  Cublas() {
    if (cublasCreate(&handle_) != CUBLAS_STATUS_SUCCESS) handle_ = nullptr;
    if (handle_ && cublasSetPointerMode(handle_, CUBLAS_POINTER_MODE_DEVICE) != CUBLAS_STATUS_SUCCESS) {
      cublasDestroy(handle_);
      handle_ = nullptr;
    }
  }
  ~Cublas() {
    if (handle_) cublasDestroy(handle_);
  }
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;
  bool ok() const { return handle_ != nullptr && value_.ok() && index_.ok(); }

  template <class T>
  cublasStatus_t dot(const T* x, const T* y, std::int64_t n, out_t<T>& result) {
    auto* r = poisoned<out_t<T>>();
    if constexpr (std::is_same_v<T, float>) return finish(cublasSdot_64(handle_, n, x, 1, y, 1, r), r, result);
    else if constexpr (std::is_same_v<T, double>) return finish(cublasDdot_64(handle_, n, x, 1, y, 1, r), r, result);
    else static_assert(sizeof(T) == 0, "half and bfloat16: dot_narrow");
  }
  // Half and bfloat16: cublasDotEx takes them with a result of the same type only (CUDA_R_32F is
  // refused, CUBLAS_STATUS_NOT_SUPPORTED on an H100), accumulated in float.
  template <class T>
  cublasStatus_t dot_narrow(const T* x, const T* y, std::int64_t n, T& result) {
    auto* r = poisoned<T>();
    return finish(cublasDotEx_64(handle_, n, x, cuda_type<T>(), 1, y, cuda_type<T>(), 1, r, cuda_type<T>(), CUDA_R_32F),
                  r, result);
  }
  template <class T>  // float, double
  cublasStatus_t nrm2(const T* x, std::int64_t n, T& result) {
    auto* r = poisoned<T>();
    if constexpr (std::is_same_v<T, float>) return finish(cublasSnrm2_64(handle_, n, x, 1, r), r, result);
    else return finish(cublasDnrm2_64(handle_, n, x, 1, r), r, result);
  }
  template <class T>  // float, double
  cublasStatus_t asum(const T* x, std::int64_t n, T& result) {
    auto* r = poisoned<T>();
    if constexpr (std::is_same_v<T, float>) return finish(cublasSasum_64(handle_, n, x, 1, r), r, result);
    else return finish(cublasDasum_64(handle_, n, x, 1, r), r, result);
  }
  template <class T>  // float, double; the 1-based index
  cublasStatus_t iamax(const T* x, std::int64_t n, std::int64_t& result) {
    std::int64_t* r = index_.get();
    if (cudaMemset(r, kPoisonByte, sizeof *r) != cudaSuccess) return CUBLAS_STATUS_EXECUTION_FAILED;
    if constexpr (std::is_same_v<T, float>) return finish(cublasIsamax_64(handle_, n, x, 1, r), r, result);
    else return finish(cublasIdamax_64(handle_, n, x, 1, r), r, result);
  }

 private:
  template <class R>
  R* poisoned() {
    R* r = reinterpret_cast<R*>(value_.get());
    return cudaMemset(r, kPoisonByte, sizeof(R)) == cudaSuccess ? r : nullptr;
  }
  template <class R>
  cublasStatus_t finish(cublasStatus_t status, const R* d_result, R& result) {
    if (status != CUBLAS_STATUS_SUCCESS) return status;
    if (cudaDeviceSynchronize() != cudaSuccess ||
        cudaMemcpy(&result, d_result, sizeof(R), cudaMemcpyDeviceToHost) != cudaSuccess)
      return CUBLAS_STATUS_EXECUTION_FAILED;
    return CUBLAS_STATUS_SUCCESS;
  }
  cublasHandle_t handle_ = nullptr;
  DeviceBuffer<double> value_{1};
  DeviceBuffer<std::int64_t> index_{1};
};

// cuBLAS on the same input against the same references (n > 0: for n <= 0 cuBLAS writes its
// conventions, not a sum).
template <class T>
void check_cublas(Cublas& blas, const Placed<T>& at, const Problem<T>& p) {
  if (p.n == 0) return;
  if constexpr (detail::is_half_like_v<T>) {
    // cuBLAS's float sum, rounded once more to T: our bound plus half an ulp of T at the result.
    T narrow{};
    ASSERT_EQ(blas.dot_narrow(at.x.at, at.y.at, p.n, narrow), CUBLAS_STATUS_SUCCESS);
    const double got = double(float(narrow));
    const double ours = sum_bound(dot_roundings<T>(p.n), unit_roundoff<T>(), p.ref.dot_abs.upper());
    const double rounding = (std::fabs(p.ref.dot.nearest()) + ours) * narrow_roundoff<T>();
    const double largest = double(float(detail::value_traits<T>::max()));
    if (std::fabs(p.ref.dot.nearest()) + ours + rounding < largest)  // else T holds no such result
      EXPECT_TRUE(within(got, p.ref.dot, ours + rounding)) << "cuBLAS DotEx (result in " << type_name<T>() << ")";
  } else {
    out_t<T> dot{};
    ASSERT_EQ(blas.dot(at.x.at, at.y.at, p.n, dot), CUBLAS_STATUS_SUCCESS);
    EXPECT_TRUE(acceptable(Blas1Op::dot, dot, p)) << "cuBLAS dot";
    T asum{}, nrm2{};
    std::int64_t index = 0;
    ASSERT_EQ(blas.asum(at.x.at, p.n, asum), CUBLAS_STATUS_SUCCESS);
    ASSERT_EQ(blas.nrm2(at.x.at, p.n, nrm2), CUBLAS_STATUS_SUCCESS);
    ASSERT_EQ(blas.iamax(at.x.at, p.n, index), CUBLAS_STATUS_SUCCESS);
    EXPECT_TRUE(acceptable(Blas1Op::sum_abs, asum, p)) << "cuBLAS asum";
    const double u = unit_roundoff<T>();
    EXPECT_TRUE(within(nrm2, p.ref.squares, sum_bound(4 * p.n + 8, u, std::sqrt(p.ref.squares.upper())), true))
        << "cuBLAS nrm2";
    EXPECT_EQ(index - 1, p.ref.first_largest) << "cuBLAS iamax (1-based)";
  }
}

// ---- Sizes, plans, the driver ----------------------------------------------------------------------

std::vector<std::int64_t> blas_sizes() {
  return capped({0, 1, 31, 32, 33, 255, 256, 257, 4095, 4097, 65537, (1 << 20) + 7, 1000003});
}

Options zeroed_automatic() {
  Options o;
  o.temp_storage_zeroed = true;
  return o;
}

std::vector<Options> every_plan_and_zeroed() {
  std::vector<Options> plans = every_plan();
  plans.push_back(zeroed_automatic());
  return plans;
}

// Automatic with every pipeline, a few strategies with one pipeline each, zeroed storage.
std::vector<Options> some_plans() {
  std::vector<Options> plans{Options{}, zeroed_automatic()};
  for (Pipeline p : kAllPipelines) plans.push_back(Options{Strategy::automatic, p});
  plans.insert(plans.end(), {Options{Strategy::global_memory, Pipeline::two_kernel},
                             Options{Strategy::sequential, Pipeline::last_block},
                             Options{Strategy::multi_element, Pipeline::cluster},
                             Options{Strategy::warp_shuffle, Pipeline::grid_sync},
                             Options{Strategy::vectorized, Pipeline::atomic},
                             Options{Strategy::cub_block, Pipeline::last_block}});
  return plans;
}

template <class T>
void check_sizes(Values kind, const std::vector<Options>& plans) {
  Cublas blas;
  ASSERT_TRUE(blas.ok()) << "cuBLAS handle";
  Outputs<T> out;
  ASSERT_TRUE(out.value.ok() && out.arg.ok());
  for (std::int64_t n : blas_sizes()) {
    const Problem<T> p(kind, fresh_seed(), n);
    ASSERT_TRUE(p.ref.exact()) << "MPFR rounded: the reference is not exact";
    if (kind == Values::small_integers)  // the premise of the zero bound
      ASSERT_LE(p.ref.dot_abs.upper(), 1 / unit_roundoff<T>()) << "n = " << n;
    for (const auto& [x_offset, y_offset] : {std::pair{0, 0}, std::pair{1, 3}}) {
      const Placed<T> at(p.in.x, p.in.y, x_offset, y_offset);
      ASSERT_TRUE(at.ok());
      const std::string what = std::string(type_name<T>()) + " " + to_string(kind) + " y_offset=" +
                               std::to_string(y_offset) + " ";
      {
        SCOPED_TRACE(what + "cuBLAS " + describe(Options{}, n, x_offset, p.seed));
        check_cublas(blas, at, p);
      }
      for (const Options& options : plans) {
        SCOPED_TRACE(what + describe(options, n, x_offset, p.seed));
        check_plan(options, at, p, out);
      }
    }
  }
}

TEST(Blas1Float, SmallIntegersEveryPlan) { REQUIRE_GPU(); check_sizes<float>(Values::small_integers, every_plan_and_zeroed()); }
TEST(Blas1Float, SpreadValuesEveryPlan) { REQUIRE_GPU(); check_sizes<float>(Values::spread, every_plan_and_zeroed()); }
TEST(Blas1Double, SmallIntegers) { REQUIRE_GPU(); check_sizes<double>(Values::small_integers, some_plans()); }
TEST(Blas1Double, SpreadValues) { REQUIRE_GPU(); check_sizes<double>(Values::spread, some_plans()); }
TEST(Blas1Half, SmallIntegers) { REQUIRE_GPU(); check_sizes<__half>(Values::small_integers, some_plans()); }
TEST(Blas1Half, SpreadValues) { REQUIRE_GPU(); check_sizes<__half>(Values::spread, some_plans()); }
TEST(Blas1Bfloat16, SmallIntegers) { REQUIRE_GPU(); check_sizes<__nv_bfloat16>(Values::small_integers, some_plans()); }
TEST(Blas1Bfloat16, SpreadValues) { REQUIRE_GPU(); check_sizes<__nv_bfloat16>(Values::spread, some_plans()); }

// ---- NaN and infinities ----------------------------------------------------------------------------

// Float inputs with NaN or infinities planted. Ours must give what IEEE arithmetic gives (NaN
// anywhere: NaN; an infinity: itself, or NaN where it meets another of the other sign or a zero);
// ArgMaxAbs: the first NaN, else the first largest |x|, an infinity's included. cuBLAS is checked
// where IEEE arithmetic or BLAS fixes its answer, and otherwise its answer is printed where it
// differs from ours (docs/level1.md): Isamax with a NaN (reference BLAS skips a NaN unless it comes
// first; ours takes the first NaN, as oneMKL and LAPACK's icamax do) and Snrm2 with a NaN beside an
// infinity, or with two infinities (the classic scaled algorithm computes inf / inf there).
struct Special {
  std::string what;
  Input<float> in;
  bool nrm2_fixed, iamax_fixed;  // whether cuBLAS's Snrm2 / Isamax answer is determined
};

std::vector<Special> special_cases(std::int64_t n, std::uint64_t seed) {
  const Input<float> base = make_inputs<float>(Values::spread, seed, n);
  const std::int64_t p = 1 + std::int64_t(mix64(seed + 1) % std::uint64_t(n / 2 - 1));       // [1, n/2)
  const std::int64_t q = n / 2 + std::int64_t(mix64(seed + 2) % std::uint64_t(n / 2 - 1));  // [n/2, n-1)
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const auto planted = [&](std::string what, std::vector<std::pair<std::int64_t, float>> xs, bool nrm2_fixed,
                           bool iamax_fixed, std::int64_t zero_y_at = -1) {
    Special s{what + " (p=" + std::to_string(p) + ", q=" + std::to_string(q) + ")", base, nrm2_fixed, iamax_fixed};
    for (const auto& [i, v] : xs) s.in.x[std::size_t(i)] = v;
    if (zero_y_at >= 0) s.in.y[std::size_t(zero_y_at)] = 0.0f;
    return s;
  };
  return {planted("NaN at p, -NaN at q", {{p, nan}, {q, -nan}}, true, false),
          planted("NaN first and last", {{0, nan}, {n - 1, nan}}, true, false),
          planted("+inf at p, NaN at q", {{p, inf}, {q, nan}}, false, false),
          planted("+inf at p", {{p, inf}}, true, true),
          planted("-inf at p, +inf at q", {{p, -inf}, {q, inf}}, false, true),
          planted("+inf at p times y[p] = 0", {{p, inf}}, true, true, p)};
}

// What IEEE arithmetic makes of an input (in double: the finite parts are far from overflow, so the
// specials alone decide each answer's class).
struct Expected {
  double dot = 0, squares = 0, abs = 0, largest = -1;  // largest: ArgMaxAbs's value
  std::int64_t index = -1;
  double of(Blas1Op op) const {
    return op == Blas1Op::dot ? dot : op == Blas1Op::sum_squares ? squares : op == Blas1Op::norm2 ? std::sqrt(squares) : abs;
  }
};

Expected ieee_expectations(const Input<float>& in) {
  Expected e;
  for (std::size_t i = 0; i < in.x.size(); ++i) {
    const double a = in.x[i];
    e.dot += a * in.y[i];
    e.squares += a * a;
    e.abs += std::fabs(a);
    if (std::isnan(e.largest)) continue;  // the first NaN has won
    if (std::isnan(a) || std::fabs(a) > e.largest) {
      e.largest = std::fabs(a);
      e.index = std::int64_t(i);
    }
  }
  return e;
}

::testing::AssertionResult same_special(double got, double want) {
  if (std::isfinite(want)) return ::testing::AssertionFailure() << "test error: want " << want << " is finite";
  if (std::isnan(want) ? std::isnan(got) : got == want) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << got << ", want " << want;
}

void report_if_cublas_differs(const std::string& what, double ours, double cublas) {
  if (std::isnan(ours) ? std::isnan(cublas) : ours == cublas) return;
  std::printf("[ cuBLAS   ] %s: ours %g, cuBLAS %g\n", what.c_str(), ours, cublas);
  static int count = 0;  // one XML property each (a key must be a plain name)
  ::testing::Test::RecordProperty("cublas_differs_" + std::to_string(++count),
                                  what + ": ours " + std::to_string(ours) + ", cuBLAS " + std::to_string(cublas));
}

void check_cublas_special(const Special& s, const Placed<float>& at, const Expected& want, Cublas& blas) {
  const std::int64_t n = std::int64_t(s.in.x.size());
  float dot = 0, asum = 0, nrm2 = 0;
  std::int64_t index = 0;
  ASSERT_EQ(blas.dot(at.x.at, at.y.at, n, dot), CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(blas.asum(at.x.at, n, asum), CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(blas.nrm2(at.x.at, n, nrm2), CUBLAS_STATUS_SUCCESS);
  ASSERT_EQ(blas.iamax(at.x.at, n, index), CUBLAS_STATUS_SUCCESS);
  EXPECT_TRUE(same_special(dot, want.dot)) << "cublasSdot";
  EXPECT_TRUE(same_special(asum, want.abs)) << "cublasSasum";
  if (s.nrm2_fixed) EXPECT_TRUE(same_special(nrm2, std::sqrt(want.squares))) << "cublasSnrm2";
  else report_if_cublas_differs("cublasSnrm2, " + s.what, std::sqrt(want.squares), nrm2);
  if (s.iamax_fixed) EXPECT_EQ(index - 1, want.index) << "cublasIsamax (1-based)";
  else report_if_cublas_differs("cublasIsamax - 1, " + s.what, double(want.index), double(index - 1));
}

void check_special(const Special& s, std::uint64_t seed, Cublas& blas, Outputs<float>& out) {
  const std::int64_t n = std::int64_t(s.in.x.size());
  const Placed<float> at(s.in.x, s.in.y, 1, 3);
  ASSERT_TRUE(at.ok());
  const Expected want = ieee_expectations(s.in);
  for (const Options& o : some_plans()) {
    SCOPED_TRACE(s.what + " " + describe(o, n, 1, seed) + " y_offset=3");
    for (Blas1Op op : kSumOps) {
      if (o.pipeline == Pipeline::atomic && !atomic_serves(op)) continue;  // refusals: check_plan
      float got = 0;
      ASSERT_TRUE(run_ours(op, at.x.at, at.y.at, n, o, out, got)) << op_name(op);
      EXPECT_TRUE(same_special(got, want.of(op))) << op_name(op);
    }
    if (o.pipeline == Pipeline::atomic) continue;
    IndexedValue<float> arg{};
    ASSERT_TRUE(run_arg_max_abs(at.x.at, n, o, out, arg));
    EXPECT_EQ(arg.index, want.index) << "ArgMaxAbs";
    EXPECT_TRUE(same_special(arg.value, want.largest)) << "ArgMaxAbs value";
  }
  SCOPED_TRACE(s.what + " cuBLAS " + describe(Options{}, n, 1, seed));
  check_cublas_special(s, at, want, blas);
}

TEST(Blas1Special, NaNAndInfinitiesAgainstIeeeAndCublas) {
  REQUIRE_GPU();
  Cublas blas;
  ASSERT_TRUE(blas.ok()) << "cuBLAS handle";
  Outputs<float> out;
  for (std::int64_t n : capped({33, 4097, 65537, (1 << 20) + 7})) {
    const std::uint64_t seed = fresh_seed();
    for (const Special& s : special_cases(n, seed)) check_special(s, seed, blas, out);
  }
}

// ---- Beyond 2^31 items -----------------------------------------------------------------------------

// Nonzero only at every 509th index: integers of magnitude 1..3, so that over 2^31 + 17 items the
// magnitudes add up to about 1.3e7 < 2^24 and every partial sum in any order is exact in float.
// The exact sum is then known on the host, and every plan (and cuBLAS) must give it bit for bit.
constexpr std::int64_t kSparseStride = 509;

__host__ __device__ float sparse_value(std::uint64_t seed, std::int64_t i) {
  if (i % kSparseStride != 0) return 0.0f;
  const std::uint64_t h = mix64(seed ^ mix64(std::uint64_t(i)));
  return float(1 + int(h % 3)) * ((h >> 63) ? -1.0f : 1.0f);
}

__global__ void fill_sparse(float* x, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    x[i] = sparse_value(seed, i);
}

// Values planted on both sides of 2^31 and at the end, so that an index that wraps at 2^31 or a
// lost tail shows.
std::vector<std::pair<std::int64_t, float>> sparse_plants(std::int64_t n) {
  const std::int64_t k = std::int64_t(1) << 31;
  return {{k - 1, -5.0f}, {k, 6.0f}, {k + 1, -7.0f}, {n - 1, 8.0f}};
}

double sparse_abs_sum(std::uint64_t seed, std::int64_t n, const std::vector<std::pair<std::int64_t, float>>& plants) {
  std::int64_t total = 0;
  const auto planted = [&](std::int64_t i) {
    for (const auto& pv : plants)
      if (pv.first == i) return true;
    return false;
  };
  for (std::int64_t i = 0; i < n; i += kSparseStride)
    if (!planted(i)) total += std::int64_t(std::fabs(sparse_value(seed, i)));
  for (const auto& pv : plants) total += std::int64_t(std::fabs(pv.second));
  return double(total);
}

template <class T>
cudaError_t plant(T* d, std::int64_t i, T value) {
  return cudaMemcpy(d + i, &value, sizeof value, cudaMemcpyHostToDevice);
}

// Automatic (plain and zeroed), every strategy with the two partials pipelines, the single-launch
// ones and atomic (which SumAbs takes).
std::vector<Options> large_plans() {
  std::vector<Options> plans{Options{}, zeroed_automatic()};
  for (Strategy s : kAllStrategies) {
    plans.push_back(Options{s, Pipeline::two_kernel});
    plans.push_back(Options{s, Pipeline::last_block});
  }
  plans.insert(plans.end(), {Options{Strategy::vectorized, Pipeline::grid_sync},
                             Options{Strategy::cub_block, Pipeline::grid_sync},
                             Options{Strategy::vectorized, Pipeline::cluster},
                             Options{Strategy::automatic, Pipeline::atomic},
                             Options{Strategy::vectorized, Pipeline::atomic}});
  return plans;
}

// 2^31 + 17 floats (8.6 GB) at x + 1, a guard of 2^20 on each side (still inside the exact range).
TEST(Blas1Large, FloatSumAbsBeyond2To31Items) {
  REQUIRE_GPU();
  const std::int64_t n = (std::int64_t(1) << 31) + 17;
  DeviceBuffer<float> buffer;
  if (const std::string why = allocate_large(buffer, n, std::size_t(n + 2)); !why.empty()) GTEST_SKIP() << why;
  const std::uint64_t seed = fresh_seed();
  float* x = buffer.get() + 1;
  fill_sparse<<<4096, 256>>>(x, n, seed);
  CUDA_OK(cudaGetLastError());
  const auto plants = sparse_plants(n);
  for (const auto& [i, v] : plants) CUDA_OK(plant(x, i, v));
  const float guard = 0x1p20f;
  CUDA_OK(plant(buffer.get(), 0, guard));
  CUDA_OK(plant(buffer.get(), n + 1, guard));
  const double exact = sparse_abs_sum(seed, n, plants);
  ASSERT_LT(exact + 2 * guard, 0x1p24) << "premise: every partial sum, the guards' included, is exact in float";

  Cublas blas;
  ASSERT_TRUE(blas.ok()) << "cuBLAS handle";
  float cublas = 0;
  ASSERT_EQ(blas.asum(x, n, cublas), CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(double(cublas), exact) << "cublasSasum_64 seed=" << seed;

  Outputs<float> out;
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_OK(cudaMemGetInfo(&free_bytes, &total_bytes));
  for (const Options& options : large_plans()) {
    SCOPED_TRACE(describe(options, n, 1, seed));
    std::size_t bytes = 0;
    ASSERT_EQ(Blas1::SumAbs(nullptr, bytes, x, out.value.get(), n, nullptr, options), cudaSuccess) << last_error_message();
    if (bytes + (std::size_t(1) << 30) > free_bytes) {  // global_memory's scratch copy is another 8.6 GB
      std::printf("[ skipped  ] %s: %zu bytes of temp storage, %zu free\n", describe(options, n, 1, seed).c_str(),
                  bytes, free_bytes);
      continue;
    }
    float got = 0;
    ASSERT_TRUE(run_ours(Blas1Op::sum_abs, static_cast<const float*>(x), static_cast<const float*>(nullptr), n,
                         options, out, got));
    EXPECT_EQ(double(got), exact);
  }
}

}  // namespace
}  // namespace gpureduce::testing
