// StandardNormal's transform of four Philox words into two normals, defined once for the CPU
// kernel (kernels/cpu/random.cc) and the CUDA kernel (kernels/cuda/random.cu), so that both
// draw the same numbers (stream format: kernels/cpu/random_format.h). Box-Muller on two
// 53-bit uniforms: u1 from words 0-1, u2 from words 2-3, r = sqrt(-2 ln(1 - u1)),
// z0 = r cos(2 pi u2), z1 = r sin(2 pi u2), all in double.
//
// ln, sqrt and sin/cos are polynomials and bit tricks here, not libm's (whose device and host
// versions differ, and whose errno branches stop the CPU's vectoriser):
//   ln t (t in [2^-53, 1]): t = m 2^e with m in [sqrt(1/2), sqrt(2)); ln m = 2 atanh(s),
//     s = (m - 1) / (m + 1), |s| < 0.172, by its odd series to s^23 (error < 1e-17).
//   sqrt v (v in {0} u [2^-53, 80]): Newton steps on 1/sqrt from the bit-trick estimate, then
//     one residual correction.
//   sin/cos of 2 pi u (u in [0, 1)): x = 4u quarter turns, k = round(x), f = x - k exactly,
//     a = f pi/2 in [-pi/4, pi/4], Taylor polynomials to a^15 / a^16 (error < 1e-16), then
//     the quadrant k mod 4 rotates (sin a, cos a) by arithmetic (no selects, which would stop
//     the vectoriser).
// All are within a few 1e-16 of glibc's. The one freedom left is where a compiler contracts
// a * b + c into an FMA (nvcc by default; GCC in the CPU's x86-64-v3/v4 clones): the doubles
// agree to a few 1e-16, so narrower outputs are equal except within that of a rounding
// boundary of the dtype.
#pragma once

#include <stdint.h>
#include <string.h>

#include "base/host_device.h"

namespace mycel::philox_normal {

// A uniform double in [0, 1) from 53 bits of (hi, lo) (tensor/random.h's uniform_double,
// through int64 so that the conversion vectorises).
MC_HOST_DEVICE inline double uniform53(uint32_t hi, uint32_t lo) {
  return static_cast<double>(static_cast<int64_t>(((uint64_t{hi} << 32) | lo) >> 11)) * 0x1p-53;
}

// ln t for t in [2^-53, 1].
MC_HOST_DEVICE inline double log_unit(double t) {
  uint64_t bits;
  memcpy(&bits, &t, 8);
  double e = static_cast<double>(static_cast<int64_t>(bits >> 52) - 1023);
  bits = (bits & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull;
  double m;
  memcpy(&m, &bits, 8);
  const bool big = m > 1.4142135623730951;
  m = big ? m * 0.5 : m;
  e = big ? e + 1.0 : e;
  const double s = (m - 1.0) / (m + 1.0);
  const double s2 = s * s;
  double p = 1.0 / 23;
  p = p * s2 + 1.0 / 21;
  p = p * s2 + 1.0 / 19;
  p = p * s2 + 1.0 / 17;
  p = p * s2 + 1.0 / 15;
  p = p * s2 + 1.0 / 13;
  p = p * s2 + 1.0 / 11;
  p = p * s2 + 1.0 / 9;
  p = p * s2 + 1.0 / 7;
  p = p * s2 + 1.0 / 5;
  p = p * s2 + 1.0 / 3;
  p = p * s2 + 1.0;
  constexpr double kLn2Hi = 6.93147180369123816490e-01, kLn2Lo = 1.90821492927058770002e-10;
  return e * kLn2Hi + (2.0 * s * p + e * kLn2Lo);
}

// sqrt v for v in {0} u [2^-53, 80].
MC_HOST_DEVICE inline double sqrt_small(double v) {
  uint64_t bits;
  memcpy(&bits, &v, 8);
  bits = 0x5FE6EB50C7B537A9ull - (bits >> 1);
  double y;
  memcpy(&y, &bits, 8);
  for (int i = 0; i < 4; ++i) y = y * (1.5 - 0.5 * v * y * y);
  double s = v * y;
  s += 0.5 * y * (v - s * s);
  return v > 0.0 ? s : 0.0;
}

// sin and cos of 2 pi u for u in [0, 1).
MC_HOST_DEVICE inline void sincos_turn(double u, double* sn, double* cs) {
  const double x = 4.0 * u;
  const double k = (x + 0x1.8p52) - 0x1.8p52;  // round to nearest, x < 4
  const double a = (x - k) * 1.5707963267948966;
  const double a2 = a * a;
  double sp = -1.0 / 1307674368000.0;
  sp = sp * a2 + 1.0 / 6227020800.0;
  sp = sp * a2 - 1.0 / 39916800.0;
  sp = sp * a2 + 1.0 / 362880.0;
  sp = sp * a2 - 1.0 / 5040.0;
  sp = sp * a2 + 1.0 / 120.0;
  sp = sp * a2 - 1.0 / 6.0;
  const double s = a + a * a2 * sp;
  double cp = 1.0 / 20922789888000.0;
  cp = cp * a2 - 1.0 / 87178291200.0;
  cp = cp * a2 + 1.0 / 479001600.0;
  cp = cp * a2 - 1.0 / 3628800.0;
  cp = cp * a2 + 1.0 / 40320.0;
  cp = cp * a2 - 1.0 / 720.0;
  cp = cp * a2 + 1.0 / 24.0;
  cp = cp * a2 - 0.5;
  const double c = 1.0 + a2 * cp;
  // Quadrant q = k mod 4 as arithmetic on doubles.
  const double q = k - (k >= 4.0 ? 4.0 : 0.0);
  const double h = q >= 2.0 ? 1.0 : 0.0;  // q in {2, 3}: both signs flip once
  const double odd = q - 2.0 * h;         // q in {1, 3}: sin and cos swap
  const double s1 = odd * c + (1.0 - odd) * s;
  const double c1 = odd * s + (1.0 - odd) * c;
  *sn = (1.0 - 2.0 * h) * s1;
  *cs = (h + odd == 1.0 ? -1.0 : 1.0) * c1;
}

// The two normals of one Philox call's words w0 .. w3: *z0 = r cos t, *z1 = r sin t.
MC_HOST_DEVICE inline void box_muller(uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3,
                                      double* z0, double* z1) {
  const double u1 = uniform53(w0, w1);
  const double u2 = uniform53(w2, w3);
  const double r = sqrt_small(-2.0 * log_unit(1.0 - u1));
  double s, c;
  sincos_turn(u2, &s, &c);
  *z0 = r * c;
  *z1 = r * s;
}

}  // namespace mycel::philox_normal
