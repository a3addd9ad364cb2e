// RandomPoisson's draw of one count from a stream of uniforms, defined once for the CPU kernel
// (kernels/cpu/random_format.h) and the CUDA kernel (kernels/cuda/random.cu), so that both
// draw the same counts bit for bit (stream format: kernels/cpu/random_format.h).
//
// The sampler: for lam < 10, Knuth's method (multiply uniforms until the product falls to
// exp(-lam) or below; the count is the number of factors before that one); from 10 on,
// Hoermann's transformed rejection with squeeze (PTRS; "The transformed rejection method for
// generating Poisson random variables", 1993), two uniforms a try, about 1.1 tries.
//
// Bit-identical on both sides: everything is +, -, *, / and sqrt in double (correctly
// rounded on the host and on the device), floor/fabs, and integer bit work, never libm's exp,
// log or lgamma (their host and device versions differ in the last bits). Products and sums go
// through mul/add/sub, which on the device are __dmul_rn/__dadd_rn/__dsub_rn: nvcc never
// contracts those into an FMA (it would contract a * b + c by default); the host build
// targets baseline x86-64, which has no FMA to contract into. The functions:
//   exp_hd(x), |x| <= 700: x = k ln2 + r (Cody-Waite, |r| <= ln2 / 2), e^r by its Taylor
//     polynomial to r^13 (error < 1e-17), times 2^k built from bits;
//   log_hd(x), x >= 0 finite (0 gives -inf): x = m 2^e with m in [sqrt(1/2), sqrt(2)),
//     ln m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172, by its odd series to s^23;
//   log_factorial(k) = ln k!: below 16 the sum of ln i, else Stirling's series for
//     ln Gamma(n), n = k + 1 >= 17, to the n^-11 term (error < 1e-18).
// Each is within a few 1e-16 (relative) of glibc's, so the sampler is the same Poisson
// sampler as with libm; only draws that fall within that of an acceptance boundary differ.
#pragma once

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/host_device.h"

namespace mycel::poisson {

MC_HOST_DEVICE inline double mul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
MC_HOST_DEVICE inline double add(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
MC_HOST_DEVICE inline double sub(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}

// ln 2 split for Cody-Waite: kLn2Hi has its low 32 bits zero, so k * kLn2Hi is exact for
// |k| < 2^20.
constexpr double kLn2Hi = 0x1.62e42fee00000p-1;
constexpr double kLn2Lo = 0x1.a39ef35793c76p-33;

// e^x for |x| <= 700.
MC_HOST_DEVICE inline double exp_hd(double x) {
  const double k = floor(add(mul(x, 0x1.71547652b82fep+0), 0.5));  // round(x / ln 2)
  const double r = sub(sub(x, mul(k, kLn2Hi)), mul(k, kLn2Lo));
  // 1 / j! for j = 13 down to 2.
  const double c[12] = {0x1.6124613a86d09p-33, 0x1.1eed8eff8d898p-29, 0x1.ae64567f544e4p-26,
                        0x1.27e4fb7789f5cp-22, 0x1.71de3a556c734p-19, 0x1.a01a01a01a01ap-16,
                        0x1.a01a01a01a01ap-13, 0x1.6c16c16c16c17p-10, 0x1.1111111111111p-7,
                        0x1.5555555555555p-5,  0x1.5555555555555p-3,  0x1.0000000000000p-1};
  double p = c[0];
  for (int j = 1; j < 12; ++j) p = add(mul(p, r), c[j]);
  p = add(mul(p, r), 1.0);
  p = add(mul(p, r), 1.0);
  const uint64_t bits = static_cast<uint64_t>(static_cast<int64_t>(k) + 1023) << 52;
  double scale;
  memcpy(&scale, &bits, 8);
  return mul(p, scale);
}

// ln x for x >= 0 finite (ln 0 = -inf).
MC_HOST_DEVICE inline double log_hd(double x) {
  if (x == 0.0) return -HUGE_VAL;
  double e0 = 0.0;
  if (x < 0x1p-1022) {  // subnormal: scaled into the normal range
    x = mul(x, 0x1p54);
    e0 = -54.0;
  }
  uint64_t bits;
  memcpy(&bits, &x, 8);
  double e = add(static_cast<double>(static_cast<int64_t>(bits >> 52) - 1023), e0);
  bits = (bits & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull;
  double m;
  memcpy(&m, &bits, 8);
  if (m > 1.4142135623730951) {
    m = mul(m, 0.5);
    e = add(e, 1.0);
  }
  const double s = sub(m, 1.0) / add(m, 1.0);
  const double s2 = mul(s, s);
  // 1 / j for odd j = 23 down to 3.
  const double c[11] = {0x1.642c8590b2164p-5, 0x1.8618618618618p-5, 0x1.af286bca1af28p-5,
                        0x1.e1e1e1e1e1e1ep-5, 0x1.1111111111111p-4, 0x1.3b13b13b13b14p-4,
                        0x1.745d1745d1746p-4, 0x1.c71c71c71c71cp-4, 0x1.2492492492492p-3,
                        0x1.999999999999ap-3, 0x1.5555555555555p-2};
  double q = c[0];
  for (int j = 1; j < 11; ++j) q = add(mul(q, s2), c[j]);
  q = mul(q, s2);                                             // s^2 / 3 + s^4 / 5 + ...
  const double ln_m = add(mul(2.0, s), mul(mul(2.0, s), q));  // 2 atanh(s)
  return add(mul(e, kLn2Hi), add(mul(e, kLn2Lo), ln_m));
}

// ln k! for an integer-valued k >= 0.
MC_HOST_DEVICE inline double log_factorial(double k) {
  if (k < 16.0) {
    double s = 0.0;
    for (double i = 2.0; i <= k; i = add(i, 1.0)) s = add(s, log_hd(i));
    return s;
  }
  const double n = add(k, 1.0), z = 1.0 / n, z2 = mul(z, z);
  // Stirling: (n - 1/2) ln n - n + ln(2 pi) / 2 + 1/(12 n) - 1/(360 n^3) + 1/(1260 n^5)
  //   - 1/(1680 n^7) + 1/(1188 n^9) - 691/(360360 n^11).
  double t = -0x1.f6ab0d9993c7dp-10;
  t = add(mul(t, z2), 0x1.b951e2b18ff23p-11);
  t = add(mul(t, z2), -0x1.3813813813814p-11);
  t = add(mul(t, z2), 0x1.a01a01a01a01ap-11);
  t = add(mul(t, z2), -0x1.6c16c16c16c17p-9);
  t = add(mul(t, z2), 0x1.5555555555555p-4);
  t = mul(t, z);
  const double body = sub(mul(sub(n, 0.5), log_hd(n)), n);
  return add(add(body, 0x1.d67f1c864beb4p-1), t);
}

// What the sampler needs of a rate, computed once per rate (prepare): the CPU kernel prepares
// each distinct rate once, the CUDA kernel per element. Only lam is set for a rate that is
// not finite and >= 0 (it has no count: random_format.h's poisson_count).
struct Rate {
  double lam = 0.0;
  double limit = 0.0;                                                     // lam < 10: e^-lam
  double loglam = 0.0, a = 0.0, b = 0.0, v_r = 0.0, log_inv_alpha = 0.0;  // lam >= 10 (PTRS)
};

MC_HOST_DEVICE inline Rate prepare(double lam) {
  Rate r;
  r.lam = lam;
  if (!(lam >= 0.0 && lam <= 1.7976931348623157e308)) return r;
  if (lam < 10.0) {
    r.limit = exp_hd(-lam);
    return r;
  }
  r.loglam = log_hd(lam);
  r.b = add(0.931, mul(2.53, sqrt(lam)));
  r.a = add(-0.059, mul(0.02483, r.b));
  const double inv_alpha = add(1.1239, 1.1328 / sub(r.b, 3.4));
  r.v_r = sub(0.9277, 3.6224 / sub(r.b, 2.0));
  r.log_inv_alpha = log_hd(inv_alpha);
  return r;
}

// A Poisson count for a prepared finite rate >= 0; u.next() gives the next uniform in [0, 1).
template <class Uniforms>
MC_HOST_DEVICE inline double draw(const Rate& r, Uniforms& u) {
  const double lam = r.lam;
  if (lam == 0.0) return 0.0;
  if (lam < 10.0) {
    double prod = 1.0, k = 0.0;
    for (;;) {
      prod = mul(prod, u.next());
      if (prod <= r.limit) return k;
      k = add(k, 1.0);
    }
  }
  for (;;) {
    const double U = sub(u.next(), 0.5);
    const double V = u.next();
    const double us = sub(0.5, fabs(U));
    const double k = floor(add(add(mul(add(mul(2.0, r.a) / us, r.b), U), lam), 0.43));
    if (us >= 0.07 && V <= r.v_r) return k;
    if (k < 0.0 || (us < 0.013 && V > us)) continue;
    const double lhs = sub(add(log_hd(V), r.log_inv_alpha), log_hd(add(r.a / mul(us, us), r.b)));
    const double rhs = sub(add(-lam, mul(k, r.loglam)), log_factorial(k));
    if (lhs <= rhs) return k;
  }
}

// draw of prepare(lam), for a finite lam >= 0.
template <class Uniforms>
MC_HOST_DEVICE inline double draw(double lam, Uniforms& u) {
  return draw(prepare(lam), u);
}

}  // namespace mycel::poisson
