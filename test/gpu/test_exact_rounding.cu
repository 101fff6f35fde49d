// The device's final rounding of correctly rounded sums (write_rounded_by_warp: a limb a lane,
// warp_round.cuh, or lane 0 for ranges wider than the warp) on random exact states, against MPFR
// rounding the same value built from the limbs. States: ranges of 1 to 40 limbs anywhere in the
// family (subnormal results to overflow), limbs of every sign up to 2^62, carries left unnormalised
// (a multiple of 2^32 moved between neighbours), values one unit either side of a tie, exact zeros,
// and the counts' NaN and infinities. And the windows' last step, round_integer, on the device.
#include <mpfr.h>

#include <random>
#include <vector>

#include "common/integer_rounding.hpp"
#include "common/mpfr_oracle.hpp"
#include "gpu/common.cuh"
#include "gpureduce/detail/exact/epilogues.cuh"

namespace gpureduce::testing {
namespace {

using detail::exact::DoubleFamily;
using detail::exact::ExactState;
using detail::exact::FloatFamily;

// Copies `cases` to the device, poisons the outputs, launches `kernel` over them (`per_block`
// cases a block of 256 threads) and copies its results into `got`.
template <class Case, class Out>
void run_on_device(const std::vector<Case>& cases, void (*kernel)(const Case*, Out*, int),
                   int per_block, std::vector<Out>& got) {
  const int count = int(cases.size());
  DeviceBuffer<Case> d_cases(cases.size());
  DeviceBuffer<Out> d_out(cases.size());
  ASSERT_TRUE(d_cases.ok() && d_out.ok());
  ASSERT_EQ(cudaMemcpy(d_cases.get(), cases.data(), cases.size() * sizeof(Case),
                       cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemset(d_out.get(), 0x5a, cases.size() * sizeof(Out)), cudaSuccess);  // poison
  kernel<<<(count + per_block - 1) / per_block, 256>>>(d_cases.get(), d_out.get(), count);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  got.resize(cases.size());
  ASSERT_EQ(cudaMemcpy(got.data(), d_out.get(), got.size() * sizeof(Out), cudaMemcpyDeviceToHost),
            cudaSuccess);
}

// A warp per state.
template <class Family, class Out>
__global__ void round_states(const ExactState<Family>* states, Out* out, int count) {
  const int s = int(blockIdx.x) * int(blockDim.x / 32) + int(threadIdx.x / 32);
  // the rounding clobbers its state: this one is the device's copy, read by nothing else
  if (s < count) detail::exact::write_rounded_by_warp(out + s, const_cast<ExactState<Family>&>(states[s]));
}

template <class Family>
ExactState<Family> random_state(std::mt19937_64& rng, int trial) {
  constexpr int L = Family::kLimbs;
  ExactState<Family> state{};
  state.count[detail::exact::kItems] = 1 + trial % 5;
  state.count[detail::exact::kNotNegativeZero] = trial % 7 != 0;
  const int widths[] = {1, 2, 4, 8, 16, 31, 32, 40};  // the warp takes 31
  const int width = std::min(L, widths[rng() % 8]);
  const int lowest = int(rng() % (L - width + 1));
  for (int i = lowest; i < lowest + width; ++i) {
    const int kind = int(rng() % 5);
    std::int64_t v = kind == 0   ? std::int64_t(rng() >> 33)
                     : kind == 1 ? -std::int64_t(rng() >> 33)
                     : kind == 2 ? std::int64_t(rng() >> 2) >> int(rng() % 40)
                     : kind == 3 ? -(std::int64_t(rng() >> 2) >> int(rng() % 40))
                                 : 0;
    if (i == L - 1) v >>= 24;  // the top limb stays clear of the family's overflow
    state.limb[i] = v;
  }
  // Unnormalised carries: the same value with 2^32 r moved from limb i + 1 down into limb i.
  for (int k = 0; k < 3; ++k) {
    const int i = lowest + int(rng() % width);
    if (i + 1 >= L) continue;
    const std::int64_t r = std::int64_t(rng() % (1u << 26)) - (1 << 25);
    state.limb[i] += r * (std::int64_t(1) << 32);
    state.limb[i + 1] -= r;
  }
  if (trial % 13 == 0) {  // a tie of a float or a double: (2M + 1) 2^(q - 1) units, +-1 unit or not
    std::fill(std::begin(state.limb), std::end(state.limb), 0);
    const int precision = trial % 2 == 0 ? 24 : 53;
    const std::int64_t m = std::int64_t((rng() >> (64 - precision)) | (std::uint64_t(1) << (precision - 1)));
    const int q = 1 + int(rng() % std::uint64_t(32 * (L - 1) - 60));
    detail::exact::add_scaled(state.limb, (2 * m + 1) * (trial % 4 == 1 ? -1 : 1), q - 1);
  }
  if (trial % 3 == 0) state.limb[0] += int(rng() % 3) - 1;  // one unit off
  if (trial % 11 == 0) state.limb[lowest] = 0;                    // ranges that shrink
  if (trial % 97 == 0) std::fill(std::begin(state.limb), std::end(state.limb), 0);  // exact zero
  if (trial % 89 == 0) state.count[detail::exact::kNaNs] = 1;
  if (trial % 83 == 0) state.count[detail::exact::kPositiveInfinities] = 1;
  if (trial % 79 == 0) state.count[detail::exact::kNegativeInfinities] = 1;
  return state;
}

// MPFR's answer for a state: NaN and infinities by IEEE's rules, else the limbs' value rounded
// once; an exact zero is -0 only where there were items and all were -0.
template <class Family, class Out>
Out oracle(const ExactState<Family>& state, mpfr_t exact, mpfr_t term) {
  using namespace detail::exact;
  const bool plus = state.count[kPositiveInfinities] != 0, minus = state.count[kNegativeInfinities] != 0;
  if (state.count[kNaNs] != 0 || (plus && minus)) return std::numeric_limits<Out>::quiet_NaN();
  if (plus || minus) return plus ? std::numeric_limits<Out>::infinity() : -std::numeric_limits<Out>::infinity();
  mpfr_set_zero(exact, 1);
  for (int i = 0; i < Family::kLimbs; ++i) {
    mpfr_set_si_2exp(term, long(state.limb[i]), 32 * i + Family::kLsbExponent, MPFR_RNDN);
    mpfr_add(exact, exact, term, MPFR_RNDN);  // exact at this precision
  }
  if (mpfr_zero_p(exact)) return state.count[kNotNegativeZero] == 0 ? Out(-0.0) : Out(0);
  return round_once<Out>(exact);
}

template <class Family, class Out>
void rounds_like_mpfr(int count) {
  std::mt19937_64 rng(20261127);
  std::vector<ExactState<Family>> states;
  for (int trial = 0; trial < count; ++trial) states.push_back(random_state<Family>(rng, trial));
  std::vector<Out> got;
  run_on_device(states, round_states<Family, Out>, 8, got);
  if (::testing::Test::HasFatalFailure()) return;
  mpfr_t exact, term;
  mpfr_init2(exact, 32 * (Family::kLimbs + 4));
  mpfr_init2(term, 64);
  int wrong = 0;
  for (int s = 0; s < count && wrong < 5; ++s) {
    const Out want = oracle<Family, Out>(states[s], exact, term);
    const bool same = std::isnan(want) ? std::isnan(got[s]) && same_bits(got[s], std::numeric_limits<Out>::quiet_NaN())
                                       : same_bits(got[s], want);
    EXPECT_TRUE(same) << "state " << s << ": got " << got[s] << ", MPFR " << want;
    wrong += !same;
  }
  mpfr_clear(term);
  mpfr_clear(exact);
}

TEST(ExactRoundingOnGpu, FloatFamilyToFloat) { REQUIRE_GPU(); rounds_like_mpfr<FloatFamily, float>(200000); }
TEST(ExactRoundingOnGpu, FloatFamilyToDouble) { REQUIRE_GPU(); rounds_like_mpfr<FloatFamily, double>(200000); }
TEST(ExactRoundingOnGpu, DoubleFamily) { REQUIRE_GPU(); rounds_like_mpfr<DoubleFamily, double>(200000); }

template <class Out>
__global__ void round_integer_cases(const IntegerCase* cases, Out* out, int count) {
  const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < count) out[i] = rounded_at_width<Out>(cases[i], i % 2 == 0 ? 64 : 128);
}

// round_integer (every window's last step) on the device against MPFR: the host test's cases
// (common/integer_rounding.hpp), a thread each, 64- and 128-bit in turn.
template <class Out>
void rounds_integers_like_mpfr(int count) {
  std::mt19937_64 rng(20261129);
  std::vector<IntegerCase> cases;
  for (int i = 0; i < count; ++i) cases.push_back(random_integer_case<Out>(rng, i, i % 2 == 0 ? 64 : 128));
  std::vector<Out> got;
  run_on_device(cases, round_integer_cases<Out>, 256, got);
  if (::testing::Test::HasFatalFailure()) return;
  int wrong = 0;
  for (int i = 0; i < count && wrong < 5; ++i) {
    const Out want = mpfr_rounded_integer<Out>(cases[i]);
    EXPECT_TRUE(same_bits(got[i], want)) << "case " << i << ": got " << got[i] << ", MPFR " << want;
    wrong += !same_bits(got[i], want);
  }
}

TEST(ExactRoundingOnGpu, IntegersToFloat) { REQUIRE_GPU(); rounds_integers_like_mpfr<float>(200000); }
TEST(ExactRoundingOnGpu, IntegersToDouble) { REQUIRE_GPU(); rounds_integers_like_mpfr<double>(200000); }

}  // namespace
}  // namespace gpureduce::testing
