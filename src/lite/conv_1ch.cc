#include "lite/conv_1ch.h"

// GCC 12 reports -Wmaybe-uninitialized inside its own AVX-512 intrinsics (their
// `_mm512_undefined_*` sources, `__Y = __Y`) once they are inlined here: a false positive,
// silenced for this file only.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace mycel::lite {

namespace {

#define MC_1CH_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vnni")))

// Byte k of lane-group permutation g: lane j = k / 4 takes input byte j + 4 g + k % 4.
uint8_t gather_index(int64_t g, int64_t k) { return static_cast<uint8_t>(k / 4 + 4 * g + k % 4); }

MC_1CH_TARGET inline __mmask64 first_bytes(int64_t n) {
  return n >= 64 ? ~__mmask64{0} : (__mmask64{1} << n) - 1;
}

}  // namespace

bool Conv1ch::available() {
  static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vbmi") &&
                          __builtin_cpu_supports("avx512vnni");
  return yes;
}

bool Conv1ch::takes(int64_t in_channels, int64_t out_channels, int64_t kh, int64_t kw,
                    const int64_t stride[2], const int64_t dilation[2], int64_t group) {
  return in_channels == 1 && out_channels >= 1 && out_channels <= 8 && kh >= 1 && kh <= 8 &&
         kw >= 1 && kw <= 8 && stride[0] == 1 && stride[1] == 1 && dilation[0] == 1 &&
         dilation[1] == 1 && group == 1;
}

Conv1ch::Conv1ch(const int8_t* w, int64_t O_, int64_t KH_, int64_t KW_,
                 const std::vector<int64_t>& comp, const std::vector<float>& scale, int32_t zy_,
                 int32_t lo, int32_t hi)
    : O(O_), KH(KH_), KW(KW_), G((KW_ + 3) / 4) {
  const int64_t OP = (O + 3) / 4 * 4;
  wdw.assign(static_cast<size_t>(OP * KH * G), 0);
  comp_f.assign(static_cast<size_t>(OP), 0.f);
  scale_.assign(static_cast<size_t>(OP), 0.f);
  for (int64_t o = 0; o < O; ++o) {
    comp_f[o] = static_cast<float>(comp[o]);
    scale_[o] = scale[o];
    for (int64_t kh = 0; kh < KH; ++kh)
      for (int64_t g = 0; g < G; ++g) {
        uint8_t b[4] = {0, 0, 0, 0};
        for (int64_t t = 0; t < 4 && 4 * g + t < KW; ++t)
          b[t] = static_cast<uint8_t>(w[(o * KH + kh) * KW + 4 * g + t]);
        std::memcpy(&wdw[(o * KH + kh) * G + g], b, 4);
      }
  }
  // The byte permutations: [0, 128) lane-group gathers (gather_index), [128, 256) output
  // byte k (pixel k / O, channel k % O) from tmp[channel * 16 + pixel].
  perm_.resize(256);
  for (int64_t k = 0; k < 128; ++k) {
    perm_[k] = gather_index(k / 64, k % 64);
    perm_[128 + k] = static_cast<uint8_t>(k < 16 * O ? (k % O) * 16 + k / O : 0);
  }
  zy = static_cast<float>(zy_);
  lo_z = static_cast<float>(lo - zy_);
  hi_z = static_cast<float>(hi - zy_);
}

namespace {

// One output row: OW pixels from the KH input rows at x (stride Wp), 16 at a time.
template <int kChunks>
MC_1CH_TARGET void conv1ch_row(const uint8_t* x, int64_t Wp, int64_t OW, int64_t O, int64_t KH,
                               int64_t G, const uint8_t* perm, const int32_t* wdw,
                               const float* comp_f, const float* scale, float zy, float lo_z,
                               float hi_z, uint8_t* y) {
  constexpr int kAcc = 4 * kChunks;
  alignas(64) uint8_t tmp[128] = {};
  const __m512i p0 = _mm512_loadu_si512(perm), p1 = _mm512_loadu_si512(perm + 64);
  const __m512i q0 = _mm512_loadu_si512(perm + 128), q1 = _mm512_loadu_si512(perm + 192);
  const __m512 vz = _mm512_set1_ps(zy), vlo = _mm512_set1_ps(lo_z), vhi = _mm512_set1_ps(hi_z);
  for (int64_t ow0 = 0; ow0 < OW; ow0 += 16) {
    __m512i acc[kAcc];
    for (int q = 0; q < kAcc; ++q) acc[q] = _mm512_setzero_si512();
    for (int64_t kh = 0; kh < KH; ++kh) {
      const __m512i r = _mm512_loadu_si512(x + kh * Wp + ow0);
      for (int64_t g = 0; g < G; ++g) {
        const __m512i d = _mm512_permutexvar_epi8(g ? p1 : p0, r);
        for (int q = 0; q < kAcc; ++q)
          acc[q] = _mm512_dpbusd_epi32(acc[q], d, _mm512_set1_epi32(wdw[(q * KH + kh) * G + g]));
      }
    }
    for (int q = 0; q < kAcc; ++q) {  // requantize_code (lite/quant.h), lane by lane
      __m512 v = _mm512_add_ps(_mm512_cvtepi32_ps(acc[q]), _mm512_set1_ps(comp_f[q]));
      v = _mm512_mul_ps(v, _mm512_set1_ps(scale[q]));
      v = _mm512_add_ps(_mm512_min_ps(_mm512_max_ps(v, vlo), vhi), vz);
      _mm_store_si128(reinterpret_cast<__m128i*>(tmp + 16 * q),
                      _mm512_cvtusepi32_epi8(_mm512_cvtps_epi32(v)));
    }
    const __m512i t0 = _mm512_load_si512(tmp), t1 = _mm512_load_si512(tmp + 64);
    const int64_t bytes = std::min<int64_t>(16, OW - ow0) * O;
    uint8_t* yp = y + ow0 * O;
    _mm512_mask_storeu_epi8(yp, first_bytes(bytes), _mm512_permutex2var_epi8(t0, q0, t1));
    if (bytes > 64)
      _mm512_mask_storeu_epi8(yp + 64, first_bytes(bytes - 64),
                              _mm512_permutex2var_epi8(t0, q1, t1));
  }
}

}  // namespace

void Conv1ch::run(const uint8_t* x, int64_t N, int64_t Hp, int64_t Wp, uint8_t* y) const {
  const int64_t OH = Hp - KH + 1, OW = Wp - KW + 1;
  for (int64_t b = 0; b < N; ++b)
    for (int64_t oh = 0; oh < OH; ++oh) {
      const uint8_t* xr = x + (b * Hp + oh) * Wp;
      uint8_t* yr = y + (b * OH + oh) * OW * O;
      if (O <= 4)
        conv1ch_row<1>(xr, Wp, OW, O, KH, G, perm_.data(), wdw.data(), comp_f.data(), scale_.data(),
                       zy, lo_z, hi_z, yr);
      else
        conv1ch_row<2>(xr, Wp, OW, O, KH, G, perm_.data(), wdw.data(), comp_f.data(), scale_.data(),
                       zy, lo_z, hi_z, yr);
    }
}

}  // namespace mycel::lite
