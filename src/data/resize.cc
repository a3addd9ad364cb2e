// Separable resize: the taps of each axis (OpenCV's modes and PIL's filters), the horizontal
// and vertical passes, and the two kernels that combine them (OpenCV's order and PIL's).
#include "data/resize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>
#include <type_traits>
#include <vector>

#include "data/clones.h"

namespace mycel::data {
namespace {

// The taps of one axis: output position o reads source positions index[o * n + k] (inside
// the window, clamped) with weight[o * n + k].
struct AxisTaps {
  int n = 0;
  std::vector<int32_t> index;
  std::vector<float> weight;
};

// PIL's filters, on the distance x from the output pixel's centre in source pixels.
double pil_filter(Interp interp, double x) {
  x = std::abs(x);
  if (interp == Interp::PilCubic) {
    constexpr double A = -0.5;
    if (x < 1) return ((A + 2) * x - (A + 3)) * x * x + 1;
    return x < 2 ? (((x - 5) * x + 8) * x - 4) * A : 0.0;
  }
  auto sinc = [](double v) { return v == 0 ? 1.0 : std::sin(v * M_PI) / (v * M_PI); };
  return x < 3 ? sinc(x) * sinc(x / 3) : 0.0;  // Lanczos, a = 3
}

// PIL's taps (ImagingResample's precompute_coeffs): output pixel o has its centre at source
// position c = (o + 0.5) * scale and reads the pixels within support * max(scale, 1) of it,
// weighted by the filter squeezed by max(scale, 1) and normalised to sum 1.
AxisTaps pil_axis_taps(int64_t in, int64_t out, Interp interp) {
  AxisTaps t;
  double scale = static_cast<double>(in) / static_cast<double>(out);
  double filter_scale = std::max(scale, 1.0);
  double support = (interp == Interp::PilCubic ? 2.0 : 3.0) * filter_scale;
  auto window = [&](int64_t o) {
    double centre = (o + 0.5) * scale;
    int64_t lo = std::max<int64_t>(static_cast<int64_t>(centre - support + 0.5), 0);
    int64_t hi = std::min<int64_t>(static_cast<int64_t>(centre + support + 0.5), in);
    return std::make_tuple(centre, lo, hi);
  };
  t.n = 1;  // the widest window (at most 2 * ceil(support) + 1 pixels)
  for (int64_t o = 0; o < out; ++o) {
    auto [centre, lo, hi] = window(o);
    t.n = std::max<int>(t.n, static_cast<int>(hi - lo));
  }
  t.index.assign(out * t.n, 0);
  t.weight.assign(out * t.n, 0.0f);
  std::vector<double> w(t.n);
  for (int64_t o = 0; o < out; ++o) {
    auto [centre, lo, hi] = window(o);
    int64_t taps = hi - lo;
    double sum = 0;
    for (int64_t k = 0; k < taps; ++k) {
      w[k] = pil_filter(interp, (lo + k - centre + 0.5) / filter_scale);
      sum += w[k];
    }
    for (int64_t k = 0; k < t.n; ++k) {  // taps past the window: the last pixel, weight 0
      t.index[o * t.n + k] = static_cast<int32_t>(std::min(lo + k, hi - 1));
      t.weight[o * t.n + k] = k < taps && sum != 0 ? static_cast<float>(w[k] / sum) : 0.0f;
    }
  }
  return t;
}

AxisTaps axis_taps(int64_t in, int64_t out, Interp interp) {
  if (interp == Interp::Antialias || interp == Interp::PilCubic) {
    return pil_axis_taps(in, out, interp);
  }
  AxisTaps t;
  double scale = static_cast<double>(in) / static_cast<double>(out);
  auto clamp = [in](int64_t i) { return static_cast<int32_t>(std::clamp<int64_t>(i, 0, in - 1)); };
  auto linear = [&](int64_t o, int64_t s, double f) {
    if (s < 0 || s >= in - 1) {  // OpenCV's border rule: the edge pixel alone
      s = s < 0 ? 0 : in - 1;
      f = 0;
    }
    t.index[o * 2] = clamp(s);
    t.index[o * 2 + 1] = clamp(s + 1);
    t.weight[o * 2] = static_cast<float>(1.0 - f);
    t.weight[o * 2 + 1] = static_cast<float>(f);
  };
  if (interp == Interp::Area && in > out) {
    // Each output pixel averages the source pixels under it, weighted by overlap.
    t.n = static_cast<int>(std::ceil(scale)) + 1;
    t.index.assign(out * t.n, 0);
    t.weight.assign(out * t.n, 0.0f);
    for (int64_t o = 0; o < out; ++o) {
      double a = o * scale, b = std::min(a + scale, static_cast<double>(in));
      int64_t first = static_cast<int64_t>(std::floor(a));
      for (int k = 0; k < t.n; ++k) {
        int64_t p = first + k;
        double overlap = std::min(b, p + 1.0) - std::max(a, static_cast<double>(p));
        t.index[o * t.n + k] = clamp(p);
        t.weight[o * t.n + k] = overlap > 0 ? static_cast<float>(overlap / (b - a)) : 0.0f;
      }
    }
    return t;
  }
  t.n = interp == Interp::Cubic ? 4 : 2;
  t.index.assign(out * t.n, 0);
  t.weight.assign(out * t.n, 0.0f);
  for (int64_t o = 0; o < out; ++o) {
    if (interp == Interp::Area) {  // enlarging: OpenCV's INTER_AREA coefficients
      int64_t s = static_cast<int64_t>(std::floor(o * scale));
      double f = (o + 1) - (s + 1) / scale;
      linear(o, s, f <= 0 ? 0.0 : f - std::floor(f));
      continue;
    }
    double f = (o + 0.5) * scale - 0.5;
    int64_t s = static_cast<int64_t>(std::floor(f));
    f -= static_cast<double>(s);
    if (interp == Interp::Linear) {
      linear(o, s, f);
      continue;
    }
    constexpr double A = -0.75;  // OpenCV's and torch's bicubic
    double w0 = ((A * (f + 1) - 5 * A) * (f + 1) + 8 * A) * (f + 1) - 4 * A;
    double w1 = ((A + 2) * f - (A + 3)) * f * f + 1;
    double w2 = ((A + 2) * (1 - f) - (A + 3)) * (1 - f) * (1 - f) + 1;
    double w[4] = {w0, w1, w2, 1 - w0 - w1 - w2};
    for (int k = 0; k < 4; ++k) {
      t.index[o * 4 + k] = clamp(s - 1 + k);
      t.weight[o * 4 + k] = static_cast<float>(w[k]);
    }
  }
  return t;
}

// Rounds an accumulated value to T (integers: to nearest, halves away from zero, saturating).
// Branch-free so that the store loops vectorise.
template <class T, class W>
MC_DATA_INLINE T to_pixel(W v) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v);
  } else {
    constexpr W lo = static_cast<W>(std::numeric_limits<T>::min());
    constexpr W hi = static_cast<W>(std::numeric_limits<T>::max());
    W r = std::is_unsigned_v<T> ? v + W(0.5) : v + (v < 0 ? W(-0.5) : W(0.5));
    r = r > lo ? r : lo;  // ternaries, not std::min/max: GCC vectorises these
    r = r < hi ? r : hi;
    return static_cast<T>(static_cast<int32_t>(r));
  }
}

// out[j] = sum_k w[k] * rows[k][j] for j < len (contiguous: vectorised).
template <class S, class W>
MC_DATA_INLINE void vblend(const S* const* rows, const float* w, int n, int64_t len, W* out) {
  if (n == 2) {
    const S *a = rows[0], *b = rows[1];
    W wa = w[0], wb = w[1];
    for (int64_t j = 0; j < len; ++j)
      out[j] = wa * static_cast<W>(a[j]) + wb * static_cast<W>(b[j]);
    return;
  }
  for (int64_t j = 0; j < len; ++j) out[j] = W(w[0]) * static_cast<W>(rows[0][j]);
  for (int k = 1; k < n; ++k) {
    const S* r = rows[k];
    W wk = w[k];
    for (int64_t j = 0; j < len; ++j) out[j] += wk * static_cast<W>(r[j]);
  }
}

template <class T, class W>
MC_DATA_INLINE void store(const W* in, int64_t len, T* out) {
  for (int64_t j = 0; j < len; ++j) out[j] = to_pixel<T, W>(in[j]);
}

// One row (window start `src`) resized horizontally: dst[o * C + ch] for o < out_w.
template <class S, class W, int N, int C>
MC_DATA_INLINE void hpass_fixed(const S* src, const AxisTaps& tx, int64_t out_w, W* dst) {
  const int32_t* idx = tx.index.data();
  const float* wt = tx.weight.data();
  for (int64_t o = 0; o < out_w; ++o, idx += N, wt += N, dst += C) {
    for (int ch = 0; ch < C; ++ch) {
      W acc = 0;
      for (int k = 0; k < N; ++k)
        acc += static_cast<W>(wt[k]) * static_cast<W>(src[idx[k] * C + ch]);
      dst[ch] = acc;
    }
  }
}

// hpass for 3-channel rows of W with one element of slack after both src and dst: each tap
// reads a whole pixel as 4 lanes (the 4th belongs to the next pixel, or is the slack) and each
// output pixel is stored as 4 lanes that the next pixel overwrites. The lanes are independent,
// so the compiler keeps a pixel in vector registers instead of gathering channel by channel;
// the sums are the same as hpass_fixed's, in the same order.
// N == 0: tx.n taps, known at run time.
template <class W, int N>
MC_DATA_INLINE void hpass_rgb(const W* src, const AxisTaps& tx, int64_t out_w, W* dst) {
  const int32_t* idx = tx.index.data();
  const float* wt = tx.weight.data();
  const int n = N > 0 ? N : tx.n;
  for (int64_t o = 0; o < out_w; ++o, idx += n, wt += n, dst += 3) {
    W acc[4] = {0, 0, 0, 0};
    for (int k = 0; k < n; ++k) {
      W p[4];
      std::memcpy(p, src + idx[k] * 3, sizeof p);
      W w = wt[k];
      for (int l = 0; l < 4; ++l) acc[l] += w * p[l];
    }
    std::memcpy(dst, acc, sizeof acc);
  }
}

template <class S, class W>
MC_DATA_INLINE void hpass(const S* src, int64_t c, const AxisTaps& tx, int64_t out_w, W* dst) {
  if (tx.n == 2 && c == 1) return hpass_fixed<S, W, 2, 1>(src, tx, out_w, dst);
  if (tx.n == 2 && c == 4) return hpass_fixed<S, W, 2, 4>(src, tx, out_w, dst);
  if (tx.n == 4 && c == 1) return hpass_fixed<S, W, 4, 1>(src, tx, out_w, dst);
  const int32_t* idx = tx.index.data();
  const float* wt = tx.weight.data();
  for (int64_t o = 0; o < out_w; ++o, idx += tx.n, wt += tx.n, dst += c) {
    for (int64_t ch = 0; ch < c; ++ch) {
      W acc = 0;
      for (int k = 0; k < tx.n; ++k)
        acc += static_cast<W>(wt[k]) * static_cast<W>(src[idx[k] * c + ch]);
      dst[ch] = acc;
    }
  }
}

// hpass on a row of W with one element of slack, into a row with one element of slack.
template <class W>
MC_DATA_INLINE void hpass_slack(const W* src, int64_t c, const AxisTaps& tx, int64_t out_w,
                                W* dst) {
  if (c == 3 && tx.n == 2) return hpass_rgb<W, 2>(src, tx, out_w, dst);
  if (c == 3 && tx.n == 4) return hpass_rgb<W, 4>(src, tx, out_w, dst);
  if (c == 3) return hpass_rgb<W, 0>(src, tx, out_w, dst);
  hpass<W, W>(src, c, tx, out_w, dst);
}

// Separable resize of an in_h x in_w window (rows src_stride elements apart). The horizontal
// pass gathers; the vertical blend and the store run over contiguous rows (vectorised).
// Shrinking vertically, blending the source rows first gathers only out_h rows; otherwise
// each source row that the vertical taps use is gathered once, then blended. Rows of W carry
// one element of slack for hpass_rgb, the 3-channel (RGB) horizontal pass.
template <class T, class W>
MC_DATA_CLONES void resize_kernel(const T* src, int64_t src_stride, int64_t c, int64_t in_h,
                                  int64_t in_w, int64_t out_h, int64_t out_w, Interp interp,
                                  T* dst) {
  AxisTaps tx = axis_taps(in_w, out_w, interp), ty = axis_taps(in_h, out_h, interp);
  int64_t row_len = out_w * c, in_len = in_w * c;
  std::vector<W> line(in_len + 1), acc(row_len + 1);
  if (out_h < in_h) {
    std::vector<const T*> rows(ty.n);
    for (int64_t o = 0; o < out_h; ++o) {
      for (int k = 0; k < ty.n; ++k) rows[k] = src + ty.index[o * ty.n + k] * src_stride;
      vblend<T, W>(rows.data(), &ty.weight[o * ty.n], ty.n, in_len, line.data());
      hpass_slack<W>(line.data(), c, tx, out_w, acc.data());
      store<T, W>(acc.data(), row_len, dst + o * row_len);
    }
    return;
  }
  std::vector<int32_t> slot(in_h, -1);
  int32_t used = 0;
  for (int32_t r : ty.index) {
    if (slot[r] < 0) slot[r] = used++;
  }
  int64_t stride = row_len + 1;
  std::vector<W> hrows(static_cast<size_t>(used) * stride);
  bool rgb = c == 3 && (tx.n == 2 || tx.n == 4);
  for (int64_t r = 0; r < in_h; ++r) {
    if (slot[r] < 0) continue;
    const T* s = src + r * src_stride;
    if (rgb) {  // converted to W first, for hpass_rgb
      for (int64_t j = 0; j < in_len; ++j) line[j] = static_cast<W>(s[j]);
      hpass_slack<W>(line.data(), c, tx, out_w, &hrows[slot[r] * stride]);
    } else {
      hpass<T, W>(s, c, tx, out_w, &hrows[slot[r] * stride]);
    }
  }
  std::vector<const W*> rows(ty.n);
  for (int64_t o = 0; o < out_h; ++o) {
    for (int k = 0; k < ty.n; ++k) rows[k] = &hrows[slot[ty.index[o * ty.n + k]] * stride];
    vblend<W, W>(rows.data(), &ty.weight[o * ty.n], ty.n, row_len, acc.data());
    store<T, W>(acc.data(), row_len, dst + o * row_len);
  }
}

// PIL's order for its filters: each source row that the vertical taps use is resized
// horizontally and stored as T (rounded and clipped, for integer images), then the vertical
// pass blends those rows.
template <class T, class W>
MC_DATA_CLONES void resize_pil_kernel(const T* src, int64_t src_stride, int64_t c, int64_t in_h,
                                      int64_t in_w, int64_t out_h, int64_t out_w, Interp interp,
                                      T* dst) {
  AxisTaps tx = axis_taps(in_w, out_w, interp), ty = axis_taps(in_h, out_h, interp);
  int64_t row_len = out_w * c;
  auto [first, last] = std::minmax_element(ty.index.begin(), ty.index.end());
  int64_t y0 = *first, used = *last - *first + 1;
  std::vector<T> hrows(static_cast<size_t>(used) * row_len);
  std::vector<W> line(in_w * c + 1), acc(row_len + 1);  // one element of slack for hpass_rgb
  for (int64_t r = 0; r < used; ++r) {
    const T* s = src + (y0 + r) * src_stride;
    if (c == 3) {
      for (int64_t j = 0; j < in_w * c; ++j) line[j] = static_cast<W>(s[j]);
      hpass_slack<W>(line.data(), c, tx, out_w, acc.data());
    } else {
      hpass<T, W>(s, c, tx, out_w, acc.data());
    }
    store<T, W>(acc.data(), row_len, &hrows[r * row_len]);
  }
  std::vector<const T*> rows(ty.n);
  for (int64_t o = 0; o < out_h; ++o) {
    for (int k = 0; k < ty.n; ++k) rows[k] = &hrows[(ty.index[o * ty.n + k] - y0) * row_len];
    vblend<T, W>(rows.data(), &ty.weight[o * ty.n], ty.n, row_len, acc.data());
    store<T, W>(acc.data(), row_len, dst + o * row_len);
  }
}

// OpenCV's INTER_LINEAR on uint8 (cv::resize's fixed-point path, which MindSpore's Resize runs):
// weights rounded to 1/2048 (cvRound of float products), the horizontal pass in int32, the
// vertical blend as OpenCV's SIMD code computes it: ((b0 * (r0 >> 4)) >> 16) + ((b1 * (r1 >>
// 4)) >> 16), then (+ 2) >> 2, saturated. Vertical source rows are clamped but their weights
// are not (OpenCV's rule), so an edge row can be split over two equal taps.
struct FixedTaps {
  std::vector<int32_t> index;  // two per output position
  std::vector<int32_t> weight;
};

FixedTaps fixed_linear_taps(int64_t in, int64_t out, bool clamp_weights) {
  FixedTaps t;
  t.index.resize(out * 2);
  t.weight.resize(out * 2);
  double scale = 1.0 / (static_cast<double>(out) / static_cast<double>(in));
  for (int64_t o = 0; o < out; ++o) {
    auto f = static_cast<float>((static_cast<double>(o) + 0.5) * scale - 0.5);
    auto s = static_cast<int64_t>(std::floor(f));
    f -= static_cast<float>(s);
    if (clamp_weights && s < 0) {
      s = 0;
      f = 0;
    }
    if (clamp_weights && s >= in - 1) {
      s = in - 1;
      f = 0;
    }
    t.index[o * 2] = static_cast<int32_t>(std::clamp<int64_t>(s, 0, in - 1));
    t.index[o * 2 + 1] = static_cast<int32_t>(std::clamp<int64_t>(s + 1, 0, in - 1));
    t.weight[o * 2] = static_cast<int32_t>(std::lrint((1.f - f) * 2048.f));
    t.weight[o * 2 + 1] = static_cast<int32_t>(std::lrint(f * 2048.f));
  }
  return t;
}

// One source row's horizontal pass: d[o * C + k] = p0[k] * a0 + p1[k] * a1 (C fixed, so the
// channel loop unrolls; C == 0 reads the channel count from c).
template <int C>
MC_DATA_INLINE void hpass_u8(const uint8_t* s, int64_t c, const FixedTaps& tx, int64_t out_w,
                             int32_t* d) {
  const int64_t n = C > 0 ? C : c;
  const int32_t* idx = tx.index.data();
  const int32_t* w = tx.weight.data();
  for (int64_t o = 0; o < out_w; ++o) {
    const uint8_t *p0 = s + idx[o * 2] * n, *p1 = s + idx[o * 2 + 1] * n;
    int32_t a0 = w[o * 2], a1 = w[o * 2 + 1];
    for (int64_t k = 0; k < n; ++k) d[o * n + k] = p0[k] * a0 + p1[k] * a1;
  }
}

MC_DATA_CLONES void resize_linear_u8(const uint8_t* src, int64_t src_stride, int64_t c,
                                     int64_t in_h, int64_t in_w, int64_t out_h, int64_t out_w,
                                     uint8_t* dst) {
  FixedTaps tx = fixed_linear_taps(in_w, out_w, true), ty = fixed_linear_taps(in_h, out_h, false);
  int64_t row_len = out_w * c;
  // the horizontal pass of each source row the vertical taps read, once
  std::vector<int32_t> slot(in_h, -1);
  int32_t used = 0;
  for (int32_t r : ty.index) {
    if (slot[r] < 0) slot[r] = used++;
  }
  std::vector<int32_t> hrows(static_cast<size_t>(used) * row_len);
  for (int64_t r = 0; r < in_h; ++r) {
    if (slot[r] < 0) continue;
    const uint8_t* s = src + r * src_stride;
    int32_t* d = &hrows[static_cast<size_t>(slot[r]) * row_len];
    if (c == 3) {
      hpass_u8<3>(s, c, tx, out_w, d);
    } else if (c == 1) {
      hpass_u8<1>(s, c, tx, out_w, d);
    } else {
      hpass_u8<0>(s, c, tx, out_w, d);
    }
  }
  for (int64_t o = 0; o < out_h; ++o) {
    const int32_t* r0 = &hrows[static_cast<size_t>(slot[ty.index[o * 2]]) * row_len];
    const int32_t* r1 = &hrows[static_cast<size_t>(slot[ty.index[o * 2 + 1]]) * row_len];
    int32_t b0 = ty.weight[o * 2], b1 = ty.weight[o * 2 + 1];
    uint8_t* d = dst + o * row_len;
    for (int64_t j = 0; j < row_len; ++j) {
      int32_t v = (((b0 * (r0[j] >> 4)) >> 16) + ((b1 * (r1[j] >> 4)) >> 16) + 2) >> 2;
      v = v < 0 ? 0 : v;
      d[j] = static_cast<uint8_t>(v > 255 ? 255 : v);
    }
  }
}
}  // namespace

template <class T>
void resize_separable(const T* src, int64_t src_stride, int64_t c, int64_t in_h, int64_t in_w,
                      int64_t out_h, int64_t out_w, Interp interp, T* dst) {
  MC_ASSERT(interp != Interp::Nearest, "resize_separable: Nearest is a gather");
  if constexpr (std::is_same_v<T, uint8_t>) {
    if (interp == Interp::Linear) {
      return resize_linear_u8(src, src_stride, c, in_h, in_w, out_h, out_w, dst);
    }
  }
  using W = std::conditional_t<std::is_same_v<T, double>, double, float>;
  auto kernel = interp == Interp::Antialias || interp == Interp::PilCubic ? resize_pil_kernel<T, W>
                                                                          : resize_kernel<T, W>;
  kernel(src, src_stride, c, in_h, in_w, out_h, out_w, interp, dst);
}

#define MC_RESIZE_INSTANCE(T)                                                              \
  template void resize_separable<T>(const T*, int64_t, int64_t, int64_t, int64_t, int64_t, \
                                    int64_t, Interp, T*);
MC_RESIZE_INSTANCE(uint8_t)
MC_RESIZE_INSTANCE(uint16_t)
MC_RESIZE_INSTANCE(int16_t)
MC_RESIZE_INSTANCE(float)
MC_RESIZE_INSTANCE(double)
#undef MC_RESIZE_INSTANCE

}  // namespace mycel::data
