// Vectorisable float32 math for the elementwise kernels.
//
// Every function here is inline, branch-free straight-line code on one float: arithmetic,
// comparisons, selects through bit masks, and bit casts. A plain loop that calls one of
// them auto-vectorises at -O3 (to AVX-512 in the x86-64-v4 clone of a target_clones function),
// where a call to libm's expf/logf/... would keep the loop scalar.
//
// Accuracy, measured against double precision on a sweep of every 97th float: exp, log,
// log1p, sigmoid, tanh, erf, softplus, silu within 3.3 ulp (max relative error 2.3e-7);
// gelu (erf) within 7 ulp (4.5e-7); gelu (tanh) likewise except in its negative tail, where
// the rounding of its exp argument (a cubic in x) lets results below 1e-4 in magnitude reach
// 26 ulp (4e-6); sin and cos within 1e-11 absolute for |x| <= 8192.
// Special values follow C: exp(+-inf) = inf / 0, log(0) = -inf, log(<0) = nan, overflow
// gives inf and underflow a correctly scaled subnormal or zero; nan in gives nan out. silu
// and gelu give their limit 0 at -inf (x * 0 would be nan).
//
// sin and cos reduce their argument with a three-part pi/2 (Cody-Waite), exact for
// |x| <= kTrigMaxArg; callers recompute larger (and non-finite) arguments in double, see
// trig_needs_fixup().
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>

// Always inlined: GCC does not inline a plain function into a clone with another -march.
#define MC_VMATH_INLINE [[gnu::always_inline]] inline

namespace mycel::vmath {

inline constexpr float kInf = std::numeric_limits<float>::infinity();
inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
inline constexpr float kTrigMaxArg = 8192.0f;

MC_VMATH_INLINE float as_float(uint32_t u) { return std::bit_cast<float>(u); }
MC_VMATH_INLINE uint32_t as_bits(float f) { return std::bit_cast<uint32_t>(f); }
MC_VMATH_INLINE float fabs(float x) { return as_float(as_bits(x) & 0x7fffffffu); }
// c ? a : b as bit operations. GCC if-converts a few float ?: per loop, but gives up on
// longer chains ("control flow in loop"); masks always vectorise.
MC_VMATH_INLINE float select(bool c, float a, float b) {
  uint32_t m = 0u - static_cast<uint32_t>(c);
  return as_float((as_bits(a) & m) | (as_bits(b) & ~m));
}
// Round to nearest integer (ties to even) for |x| < 2^22: the sum's rounding does the work.
MC_VMATH_INLINE float round_small(float x) { return (x + 12582912.0f) - 12582912.0f; }
// 2^n for an integer n in [-126, 127].
MC_VMATH_INLINE float pow2i(int32_t n) { return as_float(static_cast<uint32_t>(n + 127) << 23); }
// The polynomial c0 x^n + c1 x^(n-1) + ... + cn by Horner's rule, p = p * x + c per
// coefficient: the polynomials below are their coefficient lists, highest power first.
template <class... Cs>
requires(std::is_same_v<Cs, float>&&...) MC_VMATH_INLINE float horner(float x, float c0, Cs... cs) {
  float p = c0;
  ((p = p * x + cs), ...);
  return p;
}

// 2^n exp(r) for an integer-valued n in [-150, 129] and |r| <= ln2/2 (Cephes expf
// polynomial). The scale is applied as two powers of two so that results near overflow and
// subnormal results are exact up to the final rounding.
MC_VMATH_INLINE float exp_scaled(float n, float r) {
  float p = horner(r, 1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f, 4.1665795894e-2f,
                   1.6666665459e-1f, 5.0000001201e-1f);
  p = p * (r * r) + r + 1.0f;
  int32_t ni = static_cast<int32_t>(n);
  int32_t n1 = ni >> 1;
  return p * pow2i(n1) * pow2i(ni - n1);
}

inline constexpr float kLog2e = 1.44269504088896341f;
inline constexpr float kLn2Hi = 0.693359375f;  // 9 bits: n * kLn2Hi is exact
inline constexpr float kLn2Lo = -2.12194440e-4f;

// exp(x) = 2^n exp(r), r = x - n ln2.
MC_VMATH_INLINE float exp(float x) {
  float xc = select(x < 88.8f, x, 88.8f);  // nan becomes 88.8 here and is restored at the end
  xc = select(xc > -104.0f, xc, -104.0f);
  float n = round_small(xc * kLog2e);
  float r = xc - n * kLn2Hi;
  r = r - n * kLn2Lo;
  return select(x == x, exp_scaled(n, r), x);
}

// log(x) = e ln2 + log(m), m in [sqrt(1/2), sqrt(2)) (Cephes logf polynomial).
MC_VMATH_INLINE float log(float x) {
  bool sub = x < 1.17549435e-38f;  // subnormal (or zero/negative): scale into normal range
  float xs = select(sub, x * 8388608.0f, x);
  uint32_t b = as_bits(xs);
  int32_t e = static_cast<int32_t>((b >> 23) & 0xffu) - 126 - (sub ? 23 : 0);
  float m = as_float((b & 0x007fffffu) | 0x3f000000u);  // [0.5, 1)
  bool lo = m < 0.707106781186547524f;
  e -= lo ? 1 : 0;
  float f = select(lo, m + m, m) - 1.0f;
  float z = f * f;
  float p = horner(f, 7.0376836292e-2f, -1.1514610310e-1f, 1.1676998740e-1f, -1.2420140846e-1f,
                   1.4249322787e-1f, -1.6668057665e-1f, 2.0000714765e-1f, -2.4999993993e-1f,
                   3.3333331174e-1f);
  float fe = static_cast<float>(e);
  float y = p * f * z;
  y = y + fe * kLn2Lo;
  y = y - 0.5f * z;
  y = f + y;
  y = y + fe * kLn2Hi;
  y = select(x == kInf, kInf, y);
  y = select(x == 0.0f, -kInf, y);
  y = select(x < 0.0f, kNaN, y);
  return select(x == x, y, x);
}

// log1p(x) = log(u) + (x - (u - 1)) / u with u = 1 + x: the second term corrects the
// rounding of u, so small x keep full relative accuracy.
MC_VMATH_INLINE float log1p(float x) {
  float u = 1.0f + x;
  float y = log(u) + (x - (u - 1.0f)) / u;
  y = select(x == kInf, kInf, y);
  y = select(x == -1.0f, -kInf, y);
  return y;
}

// 1 / (1 + exp(-x)) from e = exp(-|x|), so neither side overflows and tiny results keep
// their relative accuracy.
MC_VMATH_INLINE float sigmoid(float x) {
  float e = exp(-fabs(x));
  float r = 1.0f / (1.0f + e);
  return select(x >= 0.0f, r, e * r);
}

// Odd polynomial for |x| <= 0.625 (Cephes tanhf), 1 - 2 / (exp(2|x|) + 1) beyond.
MC_VMATH_INLINE float tanh(float x) {
  float a = fabs(x);
  float z = x * x;
  float p = horner(z, -5.70498872745e-3f, 2.06390887954e-2f, -5.37397155531e-2f, 1.33314422036e-1f,
                   -3.33332819422e-1f);
  float small = p * z * x + x;
  float big = 1.0f - 2.0f / (exp(a + a) + 1.0f);
  big = select(x < 0.0f, -big, big);
  return select(a > 0.625f, big, small);
}

// x * x as hi + lo: x's top 12 significant bits square exactly, the rest is a small
// correction. Keeps exp(-x^2) accurate where x^2 is large and its rounding would not be.
MC_VMATH_INLINE void square_split(float x, float& hi, float& lo) {
  float xh = as_float(as_bits(x) & 0xfffff000u);
  float xl = x - xh;
  hi = xh * xh;
  lo = (xh + xh + xl) * xl;
}

// erfc(z) for 0 <= z <= 10 with z^2 = z2hi + z2lo (z2hi exact with at most 24 bits):
// Numerical Recipes' Chebyshev fit t exp(P(t) - z^2), relative error below 1.2e-7 (in exact
// arithmetic). The exponent, up to -101, is reduced as (-z2hi - n ln2_hi) + P - z2lo - n
// ln2_lo, whose first difference is exact, so its rounding does not grow with z^2.
MC_VMATH_INLINE float erfc_nonneg(float z, float z2hi, float z2lo) {
  float t = 1.0f / (1.0f + 0.5f * z);
  float p = horner(t, 0.17087277f, -0.82215223f, 1.48851587f, -1.13520398f, 0.27886807f,
                   -0.18628806f, 0.09678418f, 0.37409196f, 1.00002368f, -1.26551223f);
  float n = round_small(((p - z2hi) - z2lo) * kLog2e);
  float r = -z2hi - n * kLn2Hi;
  r = r + p;
  r = r - z2lo;
  r = r - n * kLn2Lo;
  return t * exp_scaled(n, r);
}
MC_VMATH_INLINE float erfc_nonneg(float z) {
  float hi, lo;
  square_split(z, hi, lo);
  return erfc_nonneg(z, hi, lo);
}

// erf(x) / x for |x| < 1 as a polynomial in x^2 (Cephes erff).
MC_VMATH_INLINE float erf_small_ratio(float z) {
  return horner(z, 7.853861353153693e-5f, -8.010193625184903e-4f, 5.188327685732524e-3f,
                -2.685381193529856e-2f, 1.128358514861418e-1f, -3.761262582423300e-1f,
                1.128379165726710e0f);
}

// erf(x): x P(x^2) for |x| < 1, 1 - erfc(|x|) with its sign beyond.
MC_VMATH_INLINE float erf(float x) {
  float a = fabs(x);
  float small = x * erf_small_ratio(x * x);
  float ac = select(a < 4.0f, a, 4.0f);  // erf rounds to 1 from 3.92 on; also maps nan to 4
  float big = 1.0f - erfc_nonneg(ac);
  big = select(x < 0.0f, -big, big);
  float y = select(a < 1.0f, small, big);
  return select(x == x, y, x);
}

MC_VMATH_INLINE float silu(float x) {
  float y = x * sigmoid(x);
  return select(x == -kInf, 0.0f, y);
}

// log(1 + exp(x)) = max(x, 0) + log1p(exp(-|x|)).
MC_VMATH_INLINE float softplus(float x) {
  float m = select(x > 0.0f, x, 0.0f);
  float y = m + log1p(exp(-fabs(x)));
  return select(x == x, y, x);
}

// 0.5 x (1 + tanh(u)) = x sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3): no cancellation
// for negative x.
MC_VMATH_INLINE float gelu_tanh(float x) {
  float u = 0.7978845608028654f * (x + 0.044715f * x * x * x);
  float y = x * sigmoid(u + u);
  return select(x == -kInf, 0.0f, y);
}

// 0.5 x (1 + erf(s)), s = x / sqrt2, from one erfc: 1 + erf(s) is erfc(-s) for s < 0 (no
// cancellation, so small results keep their relative accuracy) and 2 - erfc(s) for s >= 0.
// s^2 is taken as x^2 / 2 from the exact split of x, not from the rounded s. erfc(|s|) is 0
// in float from |s| = 10.06 on; the clamp keeps inf out of the split.
MC_VMATH_INLINE float gelu_erf(float x) {
  float s = x * 0.7071067811865476f;
  bool tail = fabs(s) < 10.0f;
  float xc = select(tail, x, 0.0f);
  float hi, lo;
  square_split(xc, hi, lo);
  float ec = erfc_nonneg(fabs(xc * 0.7071067811865476f), 0.5f * hi, 0.5f * lo);
  ec = select(tail, ec, 0.0f);
  float y = 0.5f * x * select(s < 0.0f, ec, 2.0f - ec);  // nan: ec = 0, y = nan
  return select(x == -kInf, 0.0f, y);
}

// sin and cos on r in [-pi/4, pi/4] (Cephes sinf/cosf polynomials).
MC_VMATH_INLINE float sin_poly(float r, float z) {
  float p = horner(z, -1.9515295891e-4f, 8.3321608736e-3f, -1.6666654611e-1f);
  return p * z * r + r;
}
MC_VMATH_INLINE float cos_poly(float z) {
  float p = horner(z, 2.443315711809948e-5f, -1.388731625493765e-3f, 4.166664568298827e-2f);
  return p * z * z - 0.5f * z + 1.0f;
}

// x = n pi/2 + r; quadrant q = (n + shift) mod 4 picks +-sin(r) or +-cos(r). shift is 0 for
// sin and 1 for cos. Arguments beyond kTrigMaxArg (and inf/nan) give 0 here: see
// trig_needs_fixup.
MC_VMATH_INLINE float sincos_quadrant(float x, int32_t shift) {
  float xr = select(fabs(x) <= kTrigMaxArg, x, 0.0f);
  float n = round_small(xr * 0.63661977236758134f);
  float r = xr - n * 1.5703125f;
  r = r - n * 4.837512969970703125e-4f;
  r = r - n * 7.54978995489188216e-8f;
  float z = r * r;
  float s = sin_poly(r, z);
  float c = cos_poly(z);
  int32_t q = static_cast<int32_t>(n) + shift;
  float v = select((q & 1) != 0, c, s);
  return select((q & 2) != 0, -v, v);
}
MC_VMATH_INLINE float sin(float x) { return sincos_quadrant(x, 0); }
MC_VMATH_INLINE float cos(float x) { return sincos_quadrant(x, 1); }
MC_VMATH_INLINE bool trig_needs_fixup(float x) { return !(fabs(x) <= kTrigMaxArg); }

}  // namespace mycel::vmath
