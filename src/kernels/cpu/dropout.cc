// Dropout: element i draws word i % 4 of Philox block (offset + i / 4) of the op's stream and
// is kept iff that word as a uniform float is below keep_prob. Each block is computed where it
// is needed, so the result is the same whatever the thread count, and the reference (a scalar
// loop over the same stream) reproduces it exactly.
//
// Speed: Philox's ten rounds are the cost (two 32x32->64 multiplies per round and block), so
// blocks are drawn kLanes at a time, in AVX-512 registers where the CPU has them (GCC does not
// vectorise the rounds by itself), and the keep test is an integer compare: for v = word >> 8,
// v * 2^-24 < keep  <=>  v < ceil(keep * 2^24) (both sides exact in double).
#include <immintrin.h>

#include <algorithm>
#include <cmath>

#include "base/parallel.h"
#include "kernels/cpu/elementwise.h"
#include "ops/op_table.h"
#include "tensor/random.h"

namespace mycel {

namespace {

constexpr int kLanes = 16;  // Philox blocks per group: 64 elements

// The high words of the 32x32-bit products a * m, lane by lane. (The zero-masked forms with
// every lane selected: GCC 12's plain ones start from an "undefined" vector that
// -Wuninitialized reports.)
[[gnu::always_inline]] __attribute__((target("avx512f"))) inline __m512i mulhi(__m512i a,
                                                                               __m512i m) {
  const __mmask8 all = 0xFF;
  __m512i even = _mm512_maskz_srli_epi64(all, _mm512_maskz_mul_epu32(all, a, m), 32);
  __m512i odd = _mm512_maskz_mul_epu32(all, _mm512_maskz_srli_epi64(all, a, 32), m);
  return _mm512_mask_blend_epi32(0xAAAA, even, odd);
}

// The ten Philox rounds of blocks first .. first + 15 in registers: c[j] lane l is word j of
// block first + l (the counters' low words carry into their high words lane by lane).
[[gnu::always_inline]] __attribute__((target("avx512f"))) inline void philox_rounds_avx512(
    uint64_t key, uint64_t first, __m512i c[4]) {
  const __m512i lanes = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  // Counters first + l: the low words wrap into the high ones lane by lane.
  const uint32_t f_lo = static_cast<uint32_t>(first), f_hi = static_cast<uint32_t>(first >> 32);
  __m512i c0 = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(f_lo)), lanes);
  __mmask16 carry = _mm512_cmplt_epu32_mask(c0, _mm512_set1_epi32(static_cast<int>(f_lo)));
  __m512i c1 =
      _mm512_mask_add_epi32(_mm512_set1_epi32(static_cast<int>(f_hi)), carry,
                            _mm512_set1_epi32(static_cast<int>(f_hi)), _mm512_set1_epi32(1));
  __m512i c2 = _mm512_setzero_si512(), c3 = _mm512_setzero_si512();
  const __m512i m0 = _mm512_set1_epi32(static_cast<int>(0xD2511F53u));
  const __m512i m1 = _mm512_set1_epi32(static_cast<int>(0xCD9E8D57u));
  uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
  for (int r = 0; r < 10; ++r) {
    __m512i h0 = mulhi(c0, m0), h1 = mulhi(c2, m1);
    __m512i l0 = _mm512_mullo_epi32(c0, m0), l1 = _mm512_mullo_epi32(c2, m1);
    __m512i n0 =
        _mm512_xor_si512(_mm512_xor_si512(h1, c1), _mm512_set1_epi32(static_cast<int>(k0)));
    __m512i n2 =
        _mm512_xor_si512(_mm512_xor_si512(h0, c3), _mm512_set1_epi32(static_cast<int>(k1)));
    c1 = l1;
    c3 = l0;
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  c[0] = c0;
  c[1] = c1;
  c[2] = c2;
  c[3] = c3;
}

// The words of blocks first .. first + kLanes - 1 of `key` (counter high word 0), element
// order: words[4 * lane + j] is word j of block first + lane. Same rounds as philox():
// sixteen blocks in the sixteen 32-bit lanes of AVX-512 registers where the CPU has them
// (mulhilo from vpmuludq on the even and odd lanes), else one block at a time.
__attribute__((target("avx512f"))) void philox_group_avx512(uint64_t key, uint64_t first,
                                                            uint32_t* words) {
  __m512i c[4];
  philox_rounds_avx512(key, first, c);
  alignas(64) uint32_t w[4][kLanes];
  for (int j = 0; j < 4; ++j) _mm512_store_si512(w[j], c[j]);
  for (int l = 0; l < kLanes; ++l)
    for (int j = 0; j < 4; ++j) words[4 * l + j] = w[j][l];
}

// The keep bits of one group of 64 elements: bit 4l + j is lane l of word j's compare,
// interleaved into one 64-bit mask (pdep).
[[gnu::always_inline]] __attribute__((target("avx512f,bmi2"))) inline uint64_t keep_bits(
    uint64_t key, uint64_t first, uint32_t threshold) {
  __m512i c[4];
  philox_rounds_avx512(key, first, c);
  const __m512i thr = _mm512_set1_epi32(static_cast<int>(threshold));
  uint64_t keep = 0;
  for (int j = 0; j < 4; ++j) {
    __mmask16 k = _mm512_cmplt_epu32_mask(_mm512_maskz_srli_epi32(0xFFFF, c[j], 8), thr);
    keep |= _pdep_u64(k, 0x1111111111111111ull << j);
  }
  return keep;
}

// One group of float elements (m <= 64) in vector registers: the keep bits, then per 16
// elements y = x * (keep ? scale : 0) and mask = keep ? 1 : 0, as keep_or_drop computes them
// (x * 0, not a zeroed lane, so an inf or NaN dropped gives NaN as there).
__attribute__((target("avx512f,bmi2"))) void dropout_group_avx512(uint64_t key, uint64_t first,
                                                                  const float* x, float* y,
                                                                  float* mask, int64_t m,
                                                                  uint32_t threshold, float scale) {
  const uint64_t keep = keep_bits(key, first, threshold);
  const __m512 sv = _mm512_set1_ps(scale), one = _mm512_set1_ps(1.0f);
  for (int64_t i = 0; i < m; i += 16) {
    const __mmask16 lanes = m - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (m - i)) - 1);
    const __mmask16 k = static_cast<__mmask16>(keep >> i);
    __m512 xv = _mm512_maskz_loadu_ps(lanes, x + i);
    _mm512_mask_storeu_ps(y + i, lanes, _mm512_mul_ps(xv, _mm512_maskz_mov_ps(k, sv)));
    _mm512_mask_storeu_ps(mask + i, lanes, _mm512_maskz_mov_ps(k, one));
  }
}

// The bfloat16 bits of 16 float lanes as tensor/half.h rounds them: to nearest, ties to even,
// a NaN quieted ((bits >> 16) | 0x40).
[[gnu::always_inline]] __attribute__((target("avx512f"))) inline __m256i to_bf16_bits(__m512 v) {
  const __mmask16 all = 0xFFFF;  // the zero-masked forms (see mulhi)
  const __m512i u = _mm512_castps_si512(v);
  const __m512i lsb = _mm512_and_si512(_mm512_maskz_srli_epi32(all, u, 16), _mm512_set1_epi32(1));
  const __m512i rounded = _mm512_maskz_srli_epi32(
      all, _mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7FFF)), lsb), 16);
  const __m512i quiet =
      _mm512_or_si512(_mm512_maskz_srli_epi32(all, u, 16), _mm512_set1_epi32(0x40));
  const __mmask16 nan = _mm512_cmpgt_epu32_mask(_mm512_and_si512(u, _mm512_set1_epi32(0x7FFFFFFF)),
                                                _mm512_set1_epi32(0x7F800000));
  return _mm512_maskz_cvtepi32_epi16(all, _mm512_mask_blend_epi32(nan, rounded, quiet));
}

// The bfloat16 group in one pass in registers: x widened lane by lane, y = x * (keep ? scale :
// 0) in float and rounded once, mask 1 or 0 as bfloat16 bits: the values of the float group
// between the converters, without their three passes through buffers (which made bfloat16
// Dropout no faster than float32's).
__attribute__((target("avx512f,avx512bw,avx512vl,bmi2"))) void dropout_group_avx512_bf16(
    uint64_t key, uint64_t first, const bfloat16* x, bfloat16* y, bfloat16* mask, int64_t m,
    uint32_t threshold, float scale) {
  const uint64_t keep = keep_bits(key, first, threshold);
  const __m512 sv = _mm512_set1_ps(scale);
  const __m256i one = _mm256_set1_epi16(0x3F80);  // bfloat16(1.0f)
  const __mmask16 all = 0xFFFF;
  for (int64_t i = 0; i < m; i += 16) {
    const __mmask16 lanes = m - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (m - i)) - 1);
    const __mmask16 k = static_cast<__mmask16>(keep >> i);
    const __m256i xb = _mm256_maskz_loadu_epi16(lanes, x + i);
    const __m512 xv =
        _mm512_castsi512_ps(_mm512_maskz_slli_epi32(all, _mm512_maskz_cvtepu16_epi32(all, xb), 16));
    _mm256_mask_storeu_epi16(y + i, lanes,
                             to_bf16_bits(_mm512_mul_ps(xv, _mm512_maskz_mov_ps(k, sv))));
    _mm256_mask_storeu_epi16(mask + i, lanes, _mm256_maskz_mov_epi16(k, one));
  }
}

void philox_group_scalar(uint64_t key, uint64_t first, uint32_t* words) {
  for (int l = 0; l < kLanes; ++l) {
    Philox4 r = philox(key, 0, first + static_cast<uint64_t>(l));
    for (int j = 0; j < 4; ++j) words[4 * l + j] = r[static_cast<size_t>(j)];
  }
}

// One group's elements in the compute type: y = x * mask / keep.
template <class C, class T>
inline void keep_or_drop(const T* x, T* y, T* mask, int64_t m, const uint32_t* words,
                         uint32_t threshold, C scale) {
  for (int64_t k = 0; k < m; ++k) {
    C mk = (words[k] >> 8) < threshold ? C(1) : C(0);
    mask[k] = static_cast<T>(mk);
    y[k] = static_cast<T>(static_cast<C>(x[k]) * (mk * scale));
  }
}

constexpr int64_t kGroup = 4 * kLanes;

template <class T>
void dropout(const T* x, T* y, T* mask, int64_t n, double keep, RandomStream rs) {
  using C = compute_t<T>;
  const C scale = static_cast<C>(1.0 / keep);
  const uint32_t threshold = static_cast<uint32_t>(std::ceil(keep * 0x1p24));
  // Chunks start on multiples of a group, so every Philox block is drawn once.
  int64_t groups = (n + kGroup - 1) / kGroup;
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  auto group = avx512 ? philox_group_avx512 : philox_group_scalar;
  // float32 and bfloat16 (computing in float) on AVX-512 with BMI2: the whole group in
  // registers (dropout_group_avx512); this was 4/5 of the op's time as scalar code.
  static const bool vec = avx512 && __builtin_cpu_supports("bmi2");
  static const bool vec_bw =
      vec && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  parallel_for(0, groups, 512, [&](int64_t b, int64_t e) {
    uint32_t words[kGroup];
    for (int64_t g = b; g < e; ++g) {
      const uint64_t first = rs.offset + static_cast<uint64_t>(g * kLanes);
      int64_t base = g * kGroup;
      int64_t m = std::min<int64_t>(kGroup, n - base);
      if constexpr (std::is_same_v<T, float>) {
        if (vec) {
          dropout_group_avx512(rs.key, first, x + base, y + base, mask + base, m, threshold, scale);
          continue;
        }
      }
      if constexpr (std::is_same_v<T, bfloat16>) {
        if (vec_bw) {
          dropout_group_avx512_bf16(rs.key, first, x + base, y + base, mask + base, m, threshold,
                                    scale);
          continue;
        }
        // Through float with the vectorised converters (the same rounding), not per element.
        alignas(64) float xf[kGroup], yf[kGroup], mf[kGroup];
        ew::bf16_to_f32(x + base, 1, xf, m);
        if (vec) {
          dropout_group_avx512(rs.key, first, xf, yf, mf, m, threshold, scale);
        } else {
          group(rs.key, first, words);
          keep_or_drop<float>(xf, yf, mf, m, words, threshold, scale);
        }
        ew::f32_to_bf16(yf, y + base, 1, m);
        ew::f32_to_bf16(mf, mask + base, 1, m);
      } else {
        group(rs.key, first, words);
        keep_or_drop<C>(x + base, y + base, mask + base, m, words, threshold, scale);
      }
    }
  });
}

}  // namespace

void cpu_dropout(const KernelContext& ctx) {
  int64_t n = ctx.in[0].numel();
  double keep = ctx.attrs.get_float("keep_prob");
  RandomStream rs = op_random_stream(ctx, "Seed0", "Seed1", static_cast<uint64_t>((n + 3) / 4));
  dispatch_float(ctx.in[0].dtype(), ctx.op.name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    dropout(ctx.in[0].data<T>(), ctx.out[0].data<T>(), ctx.out[1].data<T>(), n, keep, rs);
  });
}

}  // namespace mycel
