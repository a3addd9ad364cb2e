// Optimised StandardNormal and UniformReal, and RandomPoisson.
//
// Stream format (kernels/cpu/random_format.h): each Philox4x32-10 call, keyed by the op's
// stream and counted from its offset, yields 2 normals (Box-Muller on two 53-bit uniforms,
// in double) or 4 uniforms (2 for Float64). Element i depends only on counter offset + i / P,
// so the output is the same whatever the thread count, and equals the scalar reference.
//
// The work goes in blocks of 256 counters: Philox for the whole block in structure-of-arrays
// form (the 10 rounds vectorise: 32x32->64-bit multiplies are vpmuludq), then the transform
// over the block. ln and sin/cos are polynomial here so that they vectorise too:
//   ln t (t in [2^-53, 1]): t = m 2^e with m in [sqrt(1/2), sqrt(2)); ln m = 2 atanh(s),
//     s = (m - 1) / (m + 1), |s| < 0.172, by its odd series to s^23 (error < 1e-17).
//   sin/cos of 2 pi u (u in [0, 1)): x = 4u quarter turns, k = round(x), f = x - k exactly,
//     a = f pi/2 in [-pi/4, pi/4], Taylor polynomials to a^15 / a^16 (error < 1e-16), then
//     the quadrant k mod 4 rotates (sin a, cos a).
//   sqrt: Newton steps on 1/sqrt from the bit-trick estimate (std::sqrt keeps errno, whose
//     branch stops the vectoriser).
// All are within a few 1e-16 of glibc's, far below float32 resolution; the threads split
// blocks, not elements. (The multiversioned clones may contract to FMA, so a Float64 normal can
// differ in its last bits between CPU generations; on one machine it never varies.)
#include <cmath>
#include <cstring>
#include <vector>

#include "base/parallel.h"
#include "kernels/cpu/random_format.h"
#include "ops/op_table.h"
#include "tensor/random.h"

#define MC_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))

namespace mycel {

namespace {

constexpr int64_t kBlock = 256;  // counters per block

struct Words {
  uint32_t w[4][kBlock];
};

MC_CLONES void philox_block(uint64_t key, uint64_t counter, int64_t n, Words* out) {
  for (int64_t j = 0; j < n; ++j) {
    const Philox4 r = philox(key, 0, counter + static_cast<uint64_t>(j));
    out->w[0][j] = r[0];
    out->w[1][j] = r[1];
    out->w[2][j] = r[2];
    out->w[3][j] = r[3];
  }
}

inline double bits53(uint32_t hi, uint32_t lo) {
  return static_cast<double>(static_cast<int64_t>(((uint64_t{hi} << 32) | lo) >> 11)) * 0x1p-53;
}

// ln t for t in [2^-53, 1].
inline double log_unit(double t) {
  uint64_t bits;
  std::memcpy(&bits, &t, 8);
  double e = static_cast<double>(static_cast<int64_t>(bits >> 52) - 1023);
  bits = (bits & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull;
  double m;
  std::memcpy(&m, &bits, 8);
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

// sqrt v for v in {0} u [2^-53, 80]: Newton on 1/sqrt from the bit-trick estimate, then one
// residual correction (std::sqrt keeps errno, a branch that stops the vectoriser).
inline double sqrt_small(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  bits = 0x5FE6EB50C7B537A9ull - (bits >> 1);
  double y;
  std::memcpy(&y, &bits, 8);
  for (int i = 0; i < 4; ++i) y = y * (1.5 - 0.5 * v * y * y);
  double s = v * y;
  s += 0.5 * y * (v - s * s);
  return v > 0.0 ? s : 0.0;
}

// sin and cos of 2 pi u for u in [0, 1).
inline void sincos_turn(double u, double* sn, double* cs) {
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
  // Quadrant q = k mod 4 as arithmetic on doubles (selects on it would stop the vectoriser).
  const double q = k - (k >= 4.0 ? 4.0 : 0.0);
  const double h = q >= 2.0 ? 1.0 : 0.0;  // q in {2, 3}: both signs flip once
  const double odd = q - 2.0 * h;         // q in {1, 3}: sin and cos swap
  const double s1 = odd * c + (1.0 - odd) * s;
  const double c1 = odd * s + (1.0 - odd) * c;
  *sn = (1.0 - 2.0 * h) * s1;
  *cs = (h + odd == 1.0 ? -1.0 : 1.0) * c1;
}

MC_CLONES void box_muller_block(int64_t n, const Words* in, double* z0, double* z1) {
  for (int64_t j = 0; j < n; ++j) {
    const double u1 = bits53(in->w[0][j], in->w[1][j]);
    const double u2 = bits53(in->w[2][j], in->w[3][j]);
    const double r = sqrt_small(-2.0 * log_unit(1.0 - u1));
    double s, c;
    sincos_turn(u2, &s, &c);
    z0[j] = r * c;
    z1[j] = r * s;
  }
}

// Runs fn(first_counter, count, block) over the op's counters, a block at a time.
template <class F>
void for_blocks(int64_t calls, int64_t elems_per_call, const F& fn) {
  const int64_t blocks = (calls + kBlock - 1) / kBlock;
  const int64_t grain = std::max<int64_t>(1, 16384 / (kBlock * elems_per_call));
  parallel_for(0, blocks, grain, [&](int64_t b, int64_t e) {
    Words words;
    for (int64_t blk = b; blk < e; ++blk) {
      const int64_t c0 = blk * kBlock;
      fn(c0, std::min(kBlock, calls - c0), &words);
    }
  });
}

template <class T>
T from_double(double v) {
  if constexpr (std::is_same_v<T, double>)
    return v;
  else
    return T(static_cast<float>(v));
}

}  // namespace

void cpu_standard_normal(const KernelContext& ctx) {
  const Tensor& y = ctx.out[0];
  const int64_t n = y.numel();
  const int64_t calls = (n + 1) / 2;
  const RandomStream st = op_random_stream(ctx, "seed", "seed2", static_cast<uint64_t>(calls));
  dispatch_float(y.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = y.data<T>();
    for_blocks(calls, 2, [&](int64_t c0, int64_t m, Words* words) {
      philox_block(st.key, st.offset + static_cast<uint64_t>(c0), m, words);
      double z0[kBlock], z1[kBlock];
      box_muller_block(m, words, z0, z1);
      T* dst = out + 2 * c0;
      const int64_t left = n - 2 * c0;
      for (int64_t j = 0; j < m; ++j) {
        dst[2 * j] = from_double<T>(z0[j]);
        if (2 * j + 1 < left) dst[2 * j + 1] = from_double<T>(z1[j]);
      }
    });
  });
}

void cpu_uniform_real(const KernelContext& ctx) {
  const Tensor& y = ctx.out[0];
  const int64_t n = y.numel();
  const int64_t per = random_format::per_call(false, y.dtype());
  const int64_t calls = (n + per - 1) / per;
  const RandomStream st = op_random_stream(ctx, "seed", "seed2", static_cast<uint64_t>(calls));
  dispatch_float(y.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = y.data<T>();
    for_blocks(calls, per, [&](int64_t c0, int64_t m, Words* words) {
      philox_block(st.key, st.offset + static_cast<uint64_t>(c0), m, words);
      const int64_t base = c0 * per;
      const int64_t cnt = std::min(m * per, n - base);
      constexpr int64_t P = std::is_same_v<T, double> ? 2 : 4;
      T* dst = out + base;
      for (int64_t j = 0; j < m; ++j) {
        for (int64_t k = 0; k < P && j * P + k < cnt; ++k) {
          T& d = dst[j * P + k];
          if constexpr (std::is_same_v<T, double>) {
            d = bits53(words->w[2 * k][j], words->w[2 * k + 1][j]);
          } else if constexpr (std::is_same_v<T, float>) {
            d = random_format::uniform_f32(words->w[k][j]);
          } else if constexpr (std::is_same_v<T, float16>) {
            d = T(random_format::uniform_f16(words->w[k][j]));
          } else {
            d = T(random_format::uniform_bf16(words->w[k][j]));
          }
        }
      }
    });
  });
}

// Element i: poisson_draw of rate[i mod rate.numel()] from its own counter (random_format.h).
void cpu_random_poisson(const KernelContext& ctx) {
  const Tensor& rate = ctx.in[0];
  const Tensor& y = ctx.out[0];
  const int64_t n = y.numel(), nr = rate.numel();
  const RandomStream st = op_random_stream(ctx, "seed", "seed2", static_cast<uint64_t>(n));
  if (n == 0) return;
  std::vector<double> lam(static_cast<size_t>(nr));
  dispatch_number(rate.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < nr; ++i)
      lam[static_cast<size_t>(i)] =
          static_cast<double>(static_cast<compute_t<T>>(rate.data<T>()[i]));
  });
  dispatch_number(y.dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = y.data<T>();
    parallel_for(0, n, 1024, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        random_format::ElementUniforms u(st.key, st.offset + static_cast<uint64_t>(i));
        out[i] = random_format::poisson_count<T>(lam[static_cast<size_t>(i % nr)], u);
      }
    });
  });
}

}  // namespace mycel
