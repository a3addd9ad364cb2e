// Colour adjustments of mindspore.dataset.vision (transforms_vision_ext.h): brightness,
// contrast, saturation, hue, sharpness, gamma, auto-contrast, equalize, posterize, solarize,
// invert, and their random flavours.
//
// uint8 results follow the OpenCV arithmetic MindSpore's kernels use: blends in float rounded
// half to even (addWeighted, convertTo), gray by RGB2GRAY's 15-bit integer weights, hue through
// the 8-bit full-range HSV conversion; sharpness follows PIL's ImageEnhance.Sharpness.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <numeric>
#include <string>
#include <utility>

#include "data/transforms_vision_ext.h"

namespace mycel::data {

namespace {

uint8_t sat8(float v) {  // OpenCV's saturate_cast<uchar>(float): round half to even, clamp
  return static_cast<uint8_t>(std::clamp(std::nearbyint(v), 0.0f, 255.0f));
}

// OpenCV 4's RGB2GRAY on integers (15-bit weights, rounded).
inline int gray_int(int r, int g, int b) { return (r * 9798 + g * 19235 + b * 3735 + 16384) >> 15; }

// MindSpore's image checks (its tests look for the wording): RuntimeErrors saying which of
// the dimension, channel or data type "does not match the requirement of operator".
std::string type_list(std::initializer_list<DataType> types) {
  std::string out;
  for (DataType t : types) out += (out.empty() ? "" : ", ") + std::string(data_type_name(t));
  return out;
}

void check_type(const Array& x, std::string_view op, std::initializer_list<DataType> types) {
  MC_CHECK(std::find(types.begin(), types.end(), x.dtype()) != types.end(), Runtime, op,
           ": the data type of image tensor does not match the requirement of operator. ",
           "Expecting tensor in type of (", type_list(types),
           "), but got type: ", data_type_name(x.dtype()), ".");
}

// rank 2 or 3 (when two_ok) or 3 only; channels 1 or 3 (when one_ok) or 3 only.
void check_image(const Array& x, std::string_view op, bool two_ok, bool one_ok) {
  MC_CHECK(x.ndim() == 3 || (two_ok && x.ndim() == 2), Runtime, op,
           ": the dimension of image tensor does not match the requirement of operator. ",
           "Expecting tensor in dimension of (", two_ok ? "2, 3" : "3",
           "), but got dimension: ", x.ndim(), ".");
  const int64_t c = x.ndim() == 3 ? x.shape()[2] : 1;
  MC_CHECK(c == 3 || (one_ok && c == 1), Runtime, op,
           ": the channel of image tensor does not match the requirement of operator. ",
           "Expecting tensor in channel of (", one_ok ? "1, 3" : "3", "), but got channel: ", c,
           ".");
}

void check_rgb(const Array& x, std::string_view op) { check_image(x, op, false, false); }

void check_uint8(const Array& x, std::string_view op) { check_type(x, op, {DataType::UInt8}); }

// <H, W> or <H, W, 1|3>: (pixels, channels).
std::pair<int64_t, int64_t> planes_of(const Array& x, std::string_view op) {
  check_image(x, op, true, true);
  return {x.shape()[0] * x.shape()[1], x.ndim() == 3 ? x.shape()[2] : 1};
}

// dst = a * wa + b * wb per element, as OpenCV's vectorised addWeighted computes it on FMA
// machines: fma(a, wa, fl(b * wb)) in float (exact in double first: a * wa has at most 32
// significant bits), rounded half to even for integers.
template <class T>
T blend(float a, float wa, float b, float wb) {
  float v = static_cast<float>(static_cast<double>(a) * wa + static_cast<double>(b * wb));
  if constexpr (std::is_same_v<T, uint8_t>) {
    return sat8(v);
  } else if constexpr (std::is_same_v<T, uint16_t>) {
    return static_cast<uint16_t>(std::clamp(std::nearbyint(v), 0.0f, 65535.0f));
  } else {
    return static_cast<T>(v);
  }
}

template <class T>
float gray_of(const T* p) {
  if constexpr (std::is_same_v<T, float>) {
    return 0.299f * p[0] + 0.587f * p[1] + 0.114f * p[2];
  } else {
    return static_cast<float>(gray_int(p[0], p[1], p[2]));
  }
}

// Brightness, contrast and saturation on uint8, uint16 or float32 RGB.
template <class T>
void adjust_bcs(const T* src, int64_t n, ColorAdjust kind, float f, T* dst) {
  if (kind == ColorAdjust::Brightness) {
    for (int64_t i = 0; i < n * 3; ++i) dst[i] = blend<T>(static_cast<float>(src[i]), f, 0, 0);
    return;
  }
  if (kind == ColorAdjust::Contrast) {
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += gray_of<T>(src + i * 3);
    float mean = n ? static_cast<float>(sum / static_cast<double>(n)) : 0.f;
    if constexpr (!std::is_same_v<T, float>)
      mean = static_cast<float>(static_cast<int>(mean + 0.5f));
    for (int64_t i = 0; i < n * 3; ++i) {
      dst[i] = blend<T>(mean, 1.f - f, static_cast<float>(src[i]), f);
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {  // saturation
    float g = gray_of<T>(src + i * 3);
    if constexpr (std::is_same_v<T, uint16_t>) g = static_cast<float>(std::min(g, 65535.f));
    for (int k = 0; k < 3; ++k)
      dst[i * 3 + k] = blend<T>(g, 1.f - f, static_cast<float>(src[i * 3 + k]), f);
  }
}

// OpenCV's 8-bit RGB -> HSV (full range: hue in [0, 256)) and back.
void rgb_to_hsv_full(const uint8_t* p, int* h, int* s, int* v) {
  constexpr int kShift = 12;
  const int r = p[0], g = p[1], b = p[2];
  int vmax = std::max({r, g, b}), vmin = std::min({r, g, b}), diff = vmax - vmin;
  int vr = vmax == r ? -1 : 0, vg = vmax == g ? -1 : 0;
  int sdiv = vmax ? static_cast<int>(std::nearbyint((255 << kShift) / (1. * vmax))) : 0;
  int hdiv = diff ? static_cast<int>(std::nearbyint((256 << kShift) / (6. * diff))) : 0;
  *s = (diff * sdiv + (1 << (kShift - 1))) >> kShift;
  int hh = (vr & (g - b)) + (~vr & ((vg & (b - r + 2 * diff)) + ((~vg) & (r - g + 4 * diff))));
  hh = (hh * hdiv + (1 << (kShift - 1))) >> kShift;
  hh += hh < 0 ? 256 : 0;
  *h = hh;
  *v = vmax;
}

// The way back is OpenCV's vectorised HSV2RGB_FULL for 8-bit images: hue scaled by 6 / 255
// (not 256: OpenCV's two directions differ), s and v by 1 / 255, the result times 255
// truncated. (OpenCV's scalar tail, for the last pixels of a row that fill no vector, rounds
// instead: those may differ by 1.)
void hsv_full_to_rgb(int hi, int si, int vi, uint8_t* out) {
  float h = static_cast<float>(hi), s = si * (1.f / 255.f), v = vi * (1.f / 255.f);
  float r, g, b;
  static const int kSector[6][3] = {{1, 3, 0}, {1, 0, 2}, {3, 0, 1},
                                    {0, 2, 1}, {0, 1, 3}, {2, 1, 0}};
  h *= 6.0f / 255;
  float pre = std::trunc(h);
  h -= pre;
  int sector = static_cast<int>(pre - 6.f * std::trunc(pre * (1.0f / 6.0f)));
  float tab[4] = {v, v * (1.f - s), v * (1.f - s * h), v * (1.f - s * (1.f - h))};
  b = tab[kSector[sector][0]];
  g = tab[kSector[sector][1]];
  r = tab[kSector[sector][2]];
  auto trunc8 = [](float x) {
    return static_cast<uint8_t>(std::clamp(static_cast<int>(x * 255.f), 0, 255));
  };
  out[0] = trunc8(r);
  out[1] = trunc8(g);
  out[2] = trunc8(b);
}

// PIL's ImageEnhance.Sharpness: blend(smooth(x), x, f), smooth = [[1,1,1],[1,5,1],[1,1,1]]/13
// with the border pixels kept, both in PIL's float arithmetic (truncating).
void sharpness(const uint8_t* src, int64_t h, int64_t w, int64_t c, float f, uint8_t* dst) {
  std::vector<uint8_t> smooth(src, src + h * w * c);
  const float k = 1.f / 13.f;
  for (int64_t y = 1; y + 1 < h; ++y) {
    for (int64_t x = 1; x + 1 < w; ++x) {
      for (int64_t ch = 0; ch < c; ++ch) {
        auto at = [&](int64_t yy, int64_t xx) {
          return static_cast<float>(src[(yy * w + xx) * c + ch]);
        };
        float ss = 0.5f;
        for (int64_t dy : {1, 0, -1}) {
          float kc = dy == 0 ? 5.f * k : k;
          ss += at(y + dy, x - 1) * k + at(y + dy, x) * kc + at(y + dy, x + 1) * k;
        }
        smooth[(y * w + x) * c + ch] = ss <= 0 ? 0 : ss >= 255 ? 255 : static_cast<uint8_t>(ss);
      }
    }
  }
  const int64_t n = h * w * c;
  for (int64_t i = 0; i < n; ++i) {
    if (f == 0.f) {
      dst[i] = smooth[i];
    } else if (f == 1.f) {
      dst[i] = src[i];
    } else {
      float t = static_cast<float>(smooth[i]) + f * static_cast<float>(src[i] - smooth[i]);
      dst[i] = t <= 0 ? 0 : t >= 255 ? 255 : static_cast<uint8_t>(t);
    }
  }
}

// Applies lut (one per channel) to a uint8 image of pixels x channels.
Array apply_luts(const Array& x, const std::vector<std::array<uint8_t, 256>>& luts) {
  Array out = Array::empty(DataType::UInt8, x.shape());
  const uint8_t* s = x.data<uint8_t>();
  uint8_t* d = out.mutable_data<uint8_t>();
  const int64_t c = static_cast<int64_t>(luts.size()), n = x.numel();
  for (int64_t i = 0; i < n; ++i) d[i] = luts[static_cast<size_t>(i % c)][s[i]];
  return out;
}

// Histograms of each channel of a uint8 image.
std::vector<std::array<int64_t, 256>> histograms(const Array& x, int64_t c) {
  std::vector<std::array<int64_t, 256>> hist(static_cast<size_t>(c));
  for (auto& h : hist) h.fill(0);
  const uint8_t* s = x.data<uint8_t>();
  for (int64_t i = 0, n = x.numel(); i < n; ++i) ++hist[static_cast<size_t>(i % c)][s[i]];
  return hist;
}

class AdjustColor final : public UnaryTransform {
 public:
  AdjustColor(ColorAdjust kind, double factor) : kind_(kind), factor_(factor) {
    MC_CHECK(std::isfinite(factor), Value, name(), ": the factor must be finite, but got ", factor,
             ".");
    if (kind == ColorAdjust::Hue) {
      MC_CHECK(factor >= -0.5 && factor <= 0.5, Value,
               "AdjustHue: hue_factor must be in [-0.5, 0.5], but got ", factor, ".");
    } else {
      MC_CHECK(factor >= 0, Value, name(), ": the factor must be non-negative, but got ", factor,
               ".");
    }
  }
  std::string_view name() const override {
    switch (kind_) {
      case ColorAdjust::Brightness:
        return "AdjustBrightness";
      case ColorAdjust::Contrast:
        return "AdjustContrast";
      case ColorAdjust::Saturation:
        return "AdjustSaturation";
      case ColorAdjust::Hue:
        return "AdjustHue";
      case ColorAdjust::Sharpness:
        return "AdjustSharpness";
    }
    return "Adjust";
  }

 protected:
  Array apply1(const Array& x, int lead, RowRandom*) const override {
    MC_ASSERT(lead == 0, name(), " is not batchable");
    return adjust_color(x, kind_, factor_, name());
  }

 private:
  ColorAdjust kind_;
  double factor_;
};

class RandomColorAdjust final : public UnaryTransform {
 public:
  RandomColorAdjust(std::array<double, 2> b, std::array<double, 2> c, std::array<double, 2> s,
                    std::array<double, 2> h)
      : ranges_{b, c, s, h} {
    for (int i = 0; i < 3; ++i) {
      MC_CHECK(ranges_[i][0] >= 0 && ranges_[i][0] <= ranges_[i][1], Value,
               "RandomColorAdjust: brightness, contrast and saturation must be (min, max) with "
               "0 <= min <= max.");
    }
    MC_CHECK(h[0] >= -0.5 && h[0] <= h[1] && h[1] <= 0.5, Value,
             "RandomColorAdjust: hue must be (min, max) with -0.5 <= min <= max <= 0.5.");
  }
  std::string_view name() const override { return "RandomColorAdjust"; }
  bool random() const override { return true; }

 protected:
  Array apply1(const Array& x, int lead, RowRandom* rng) const override {
    MC_ASSERT(lead == 0, "RandomColorAdjust is not batchable");
    check_type(x, name(), {DataType::UInt8, DataType::UInt16, DataType::Float32});
    check_rgb(x, name());
    std::array<int, 4> order{0, 1, 2, 3};
    for (int i = 3; i > 0; --i) std::swap(order[i], order[rng->randint(0, i)]);
    static const ColorAdjust kinds[4] = {ColorAdjust::Brightness, ColorAdjust::Contrast,
                                         ColorAdjust::Saturation, ColorAdjust::Hue};
    Array out = x;
    for (int i : order) {
      const auto& r = ranges_[i];
      const double identity = i == 3 ? 0.0 : 1.0;
      if (r[0] == identity && r[1] == identity) continue;
      double f = r[0] == r[1] ? r[0] : r[0] + (r[1] - r[0]) * rng->uniform();
      out = adjust_color(out, kinds[i], f, name());
    }
    return out;
  }

 private:
  std::array<std::array<double, 2>, 4> ranges_;
};

class RandomAdjust final : public UnaryTransform {
 public:
  RandomAdjust(ColorAdjust kind, std::array<double, 2> range, std::string name)
      : kind_(kind), range_(range), name_(std::move(name)) {
    MC_CHECK(range[0] >= 0 && range[0] <= range[1], Value, name_,
             ": degrees must be (min, max) with 0 <= min <= max, but got (", range[0], ", ",
             range[1], ").");
  }
  std::string_view name() const override { return name_; }
  bool random() const override { return true; }

 protected:
  Array apply1(const Array& x, int lead, RowRandom* rng) const override {
    MC_ASSERT(lead == 0, name_, " is not batchable");
    if (kind_ == ColorAdjust::Saturation) {  // RandomColor's own wording (its tests look for it)
      MC_CHECK(x.ndim() == 3 && x.shape()[2] == 3, Runtime, name_,
               ": image shape is not <H,W,C> or channel is not 3, got rank: ", x.ndim(),
               ", and channel: ", x.ndim() == 3 ? x.shape()[2] : 1, ".");
    }
    double f =
        range_[0] == range_[1] ? range_[0] : range_[0] + (range_[1] - range_[0]) * rng->uniform();
    return adjust_color(x, kind_, f, name_);
  }

 private:
  ColorAdjust kind_;
  std::array<double, 2> range_;
  std::string name_;
};

class AdjustGamma final : public UnaryTransform {
 public:
  AdjustGamma(double gamma, double gain) : gamma_(gamma), gain_(gain) {
    MC_CHECK(gamma >= 0, Value, "AdjustGamma: gamma must be non-negative, but got ", gamma, ".");
  }
  std::string_view name() const override { return "AdjustGamma"; }

 protected:
  Array apply1(const Array& x, int lead, RowRandom*) const override {
    MC_ASSERT(lead == 0, "AdjustGamma is not batchable");
    MC_CHECK(x.ndim() >= 2, Value,
             "AdjustGamma: the image must be <..., H, W, C> or <H, W>, but got ", describe(x), ".");
    int64_t c = x.ndim() > 2 ? x.shape().back() : 1;
    MC_CHECK(c == 1 || c == 3, Value, "AdjustGamma: the image must have 1 or 3 channels, but got ",
             describe(x), ".");
    if (x.dtype() == DataType::Float32) {
      Array out = Array::empty(DataType::Float32, x.shape());
      const float* s = x.data<float>();
      float* d = out.mutable_data<float>();
      const float gain = static_cast<float>(gain_), gamma = static_cast<float>(gamma_);
      for (int64_t i = 0, n = x.numel(); i < n; ++i) {
        d[i] = std::clamp(std::pow(s[i] * gain, gamma), 0.0f, 1.0f);
      }
      return out;
    }
    check_uint8(x, name());
    std::array<uint8_t, 256> lut;
    for (int i = 0; i < 256; ++i) {
      float f = std::pow(static_cast<float>(i / 255.0), static_cast<float>(gamma_));
      lut[i] = static_cast<uint8_t>(std::floor(std::min(f * (255.0 + 1 - 1e-3) * gain_, 255.0)));
    }
    return apply_luts(x, {lut});
  }

 private:
  double gamma_, gain_;
};

class AutoContrast final : public UnaryTransform {
 public:
  AutoContrast(double cutoff, std::vector<int64_t> ignore)
      : cutoff_(cutoff), ignore_(std::move(ignore)) {
    MC_CHECK(cutoff >= 0 && cutoff < 50, Value, "AutoContrast: cutoff must be in [0, 50), but got ",
             cutoff, ".");
    for (int64_t v : ignore_) {
      MC_CHECK(v >= 0 && v <= 255, Value,
               "AutoContrast: ignore values must be in [0, 255], but got ", v, ".");
    }
  }
  std::string_view name() const override { return "AutoContrast"; }

 protected:
  Array apply1(const Array& x, int lead, RowRandom*) const override {
    MC_ASSERT(lead == 0, "AutoContrast is not batchable");
    check_uint8(x, name());
    auto [n, c] = planes_of(x, name());
    (void)n;
    auto hists = histograms(x, c);
    std::vector<std::array<uint8_t, 256>> luts(static_cast<size_t>(c));
    for (int64_t ch = 0; ch < c; ++ch) {
      auto& hist = hists[static_cast<size_t>(ch)];
      for (int64_t v : ignore_) hist[static_cast<size_t>(v)] = 0;
      const int64_t total = std::accumulate(hist.begin(), hist.end(), int64_t{0});
      // The cutoff percent of the pixels removed from each end of the histogram.
      int64_t cut = static_cast<int64_t>(cutoff_ / 100.0 * static_cast<double>(total));
      for (int i = 0; i < 256 && cut > 0; ++i) {
        int64_t take = std::min(cut, hist[i]);
        hist[i] -= take;
        cut -= take;
      }
      cut = static_cast<int64_t>(cutoff_ / 100.0 * static_cast<double>(total));
      for (int i = 255; i >= 0 && cut > 0; --i) {
        int64_t take = std::min(cut, hist[i]);
        hist[i] -= take;
        cut -= take;
      }
      int lo = 0, hi = 255;
      while (lo < hi && hist[lo] == 0) ++lo;
      while (hi >= 0 && hist[hi] == 0) --hi;
      auto& lut = luts[static_cast<size_t>(ch)];
      if (hi <= lo) {
        for (int i = 0; i < 256; ++i) lut[i] = static_cast<uint8_t>(i);
        continue;
      }
      const float scale = 255.0f / static_cast<float>(hi - lo),
                  offset = -static_cast<float>(lo) * scale;
      for (int i = 0; i < 256; ++i) {
        int v = static_cast<int>(static_cast<float>(i) * scale + offset);
        lut[i] = static_cast<uint8_t>(std::clamp(v, 0, 255));
      }
    }
    return apply_luts(x, luts);
  }

 private:
  double cutoff_;
  std::vector<int64_t> ignore_;
};

class Equalize final : public UnaryTransform {
 public:
  std::string_view name() const override { return "Equalize"; }

 protected:
  Array apply1(const Array& x, int lead, RowRandom*) const override {
    MC_ASSERT(lead == 0, "Equalize is not batchable");
    check_uint8(x, name());
    auto [n, c] = planes_of(x, name());
    auto hists = histograms(x, c);
    std::vector<std::array<uint8_t, 256>> luts(static_cast<size_t>(c));
    for (int64_t ch = 0; ch < c; ++ch) {  // OpenCV's equalizeHist
      const auto& hist = hists[static_cast<size_t>(ch)];
      auto& lut = luts[static_cast<size_t>(ch)];
      lut.fill(0);
      int i = 0;
      while (i < 256 && hist[i] == 0) ++i;
      if (i == 256) continue;
      if (hist[i] == n) {
        lut.fill(static_cast<uint8_t>(i));
        continue;
      }
      const float scale = 255.f / static_cast<float>(n - hist[i]);
      int64_t sum = 0;
      for (++i; i < 256; ++i) {
        sum += hist[i];
        lut[i] = sat8(static_cast<float>(sum) * scale);
      }
    }
    return apply_luts(x, luts);
  }
};

class Posterize final : public UnaryTransform {
 public:
  Posterize(int64_t lo, int64_t hi, bool random) : lo_(lo), hi_(hi), random_(random) {
    MC_CHECK(lo >= (random ? 1 : 0) && lo <= hi && hi <= 8, Value, name(), ": bits must be in [",
             random ? 1 : 0, ", 8] (min <= max), but got (", lo, ", ", hi, ").");
  }
  std::string_view name() const override { return random_ ? "RandomPosterize" : "Posterize"; }
  bool random() const override { return random_; }

 protected:
  Array apply1(const Array& x, int lead, RowRandom* rng) const override {
    MC_ASSERT(lead == 0, name(), " is not batchable");
    check_uint8(x, name());
    MC_CHECK(x.ndim() >= 2, Value, name(), ": the image must be <H, W> or <H, W, C>, but got ",
             describe(x), ".");
    int64_t bits = random_ ? rng->randint(lo_, hi_) : lo_;
    std::array<uint8_t, 256> lut;
    const uint8_t mask = static_cast<uint8_t>(0xFF << (8 - bits));
    for (int i = 0; i < 256; ++i) lut[i] = static_cast<uint8_t>(i & mask);
    return apply_luts(x, {lut});
  }

 private:
  int64_t lo_, hi_;
  bool random_;
};

class Solarize final : public UnaryTransform {
 public:
  Solarize(std::array<double, 2> threshold, bool random) : t_(threshold), random_(random) {
    MC_CHECK(t_[0] >= 0 && t_[0] <= t_[1] && t_[1] <= 255, Value, name(),
             ": threshold must be (min, max) with 0 <= min <= max <= 255, but got (", t_[0], ", ",
             t_[1], ").");
  }
  std::string_view name() const override { return random_ ? "RandomSolarize" : "Solarize"; }
  bool random() const override { return random_; }

 protected:
  Array apply1(const Array& x, int lead, RowRandom* rng) const override {
    MC_ASSERT(lead == 0, name(), " is not batchable");
    check_type(x, name(),
               {DataType::Bool, DataType::Int8, DataType::UInt8, DataType::Int16, DataType::UInt16,
                DataType::Int32, DataType::Float32, DataType::Float64});
    check_image(x, name(), true, true);
    double lo = t_[0], hi = t_[1];
    if (random_) {
      lo = static_cast<double>(
          rng->randint(static_cast<int64_t>(t_[0]), static_cast<int64_t>(t_[1])));
      hi = static_cast<double>(
          rng->randint(static_cast<int64_t>(t_[0]), static_cast<int64_t>(t_[1])));
      if (lo > hi) std::swap(lo, hi);
    }
    if (x.dtype() != DataType::UInt8) {  // 255 - v saturated to the type, as OpenCV's
      Array out = Array::empty(x.dtype(), x.shape());
      dispatch_data(x.dtype(), name(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        const T* src = x.data<T>();
        T* dst = out.mutable_data<T>();
        for (int64_t i = 0, n = x.numel(); i < n; ++i) {
          const double v = static_cast<double>(src[i]);
          const bool in = lo == hi ? v >= lo : (v >= lo && v <= hi);
          double r = in ? 255.0 - v : v;
          if constexpr (std::is_integral_v<T>) {
            r = std::clamp(r, static_cast<double>(std::numeric_limits<T>::min()),
                           static_cast<double>(std::numeric_limits<T>::max()));
          }
          dst[i] = static_cast<T>(r);
        }
      });
      return out;
    }
    std::array<uint8_t, 256> lut;
    for (int i = 0; i < 256; ++i) {
      bool in = lo == hi ? i >= lo : (i >= lo && i <= hi);
      lut[i] = static_cast<uint8_t>(in ? 255 - i : i);
    }
    return apply_luts(x, {lut});
  }

 private:
  std::array<double, 2> t_;
  bool random_;
};

class Invert final : public UnaryTransform {
 public:
  std::string_view name() const override { return "Invert"; }

 protected:
  Array apply1(const Array& x, int lead, RowRandom*) const override {
    MC_ASSERT(lead == 0, "Invert is not batchable");
    check_uint8(x, name());
    MC_CHECK(x.ndim() >= 2, Value, "Invert: the image must be <H, W> or <..., H, W, C>, but got ",
             describe(x), ".");
    std::array<uint8_t, 256> lut;
    for (int i = 0; i < 256; ++i) lut[i] = static_cast<uint8_t>(255 - i);
    return apply_luts(x, {lut});
  }
};

class RandomApply final : public UnaryTransform {
 public:
  RandomApply(TransformPtr inner, double prob, std::string name)
      : inner_(std::move(inner)), prob_(prob), name_(std::move(name)) {
    MC_CHECK(prob >= 0 && prob <= 1, Value, name_, ": prob must be in [0, 1], but got ", prob, ".");
  }
  std::string_view name() const override { return name_; }
  bool random() const override { return true; }

 protected:
  Array apply1(const Array& x, int lead, RowRandom* rng) const override {
    MC_ASSERT(lead == 0, name_, " is not batchable");
    if (!rng->bernoulli(prob_)) return x;
    return std::move(inner_->apply({x}, 0, rng)[0]);
  }

 private:
  TransformPtr inner_;
  double prob_;
  std::string name_;
};

}  // namespace

Array adjust_color(const Array& img, ColorAdjust kind, double factor, std::string_view op) {
  if (kind == ColorAdjust::Sharpness) {
    check_uint8(img, op);
    planes_of(img, op);
    Array out = Array::empty(DataType::UInt8, img.shape());
    sharpness(img.data<uint8_t>(), img.shape()[0], img.shape()[1],
              img.ndim() == 3 ? img.shape()[2] : 1, static_cast<float>(factor),
              out.mutable_data<uint8_t>());
    return out;
  }
  check_rgb(img, op);
  const int64_t n = img.shape()[0] * img.shape()[1];
  Array out = Array::empty(img.dtype(), img.shape());
  const float f = static_cast<float>(factor);
  if (kind == ColorAdjust::Hue) {
    check_uint8(img, op);
    const uint8_t* s = img.data<uint8_t>();
    uint8_t* d = out.mutable_data<uint8_t>();
    // MindSpore adds static_cast<uint8_t>(hue * 255) to the 8-bit hue, wrapping around.
    const int shift = static_cast<int>(f * 255.f);
    for (int64_t i = 0; i < n; ++i) {
      int h, sat, v;
      rgb_to_hsv_full(s + i * 3, &h, &sat, &v);
      hsv_full_to_rgb((h + shift) & 0xFF, sat, v, d + i * 3);
    }
    return out;
  }
  switch (img.dtype()) {
    case DataType::UInt8:
      adjust_bcs<uint8_t>(img.data<uint8_t>(), n, kind, f, out.mutable_data<uint8_t>());
      break;
    case DataType::UInt16:
      adjust_bcs<uint16_t>(img.data<uint16_t>(), n, kind, f, out.mutable_data<uint16_t>());
      break;
    case DataType::Float32:
      adjust_bcs<float>(img.data<float>(), n, kind, f, out.mutable_data<float>());
      break;
    default:
      check_type(img, op, {DataType::UInt8, DataType::UInt16, DataType::Float32});
  }
  return out;
}

TransformPtr make_adjust_color(ColorAdjust kind, double factor) {
  return std::make_shared<AdjustColor>(kind, factor);
}
TransformPtr make_random_color_adjust(std::array<double, 2> brightness,
                                      std::array<double, 2> contrast,
                                      std::array<double, 2> saturation, std::array<double, 2> hue) {
  return std::make_shared<RandomColorAdjust>(brightness, contrast, saturation, hue);
}
TransformPtr make_random_adjust(ColorAdjust kind, std::array<double, 2> degrees, std::string name) {
  return std::make_shared<RandomAdjust>(kind, degrees, std::move(name));
}
TransformPtr make_adjust_gamma(double gamma, double gain) {
  return std::make_shared<AdjustGamma>(gamma, gain);
}
TransformPtr make_auto_contrast(double cutoff, std::vector<int64_t> ignore) {
  return std::make_shared<AutoContrast>(cutoff, std::move(ignore));
}
TransformPtr make_equalize() { return std::make_shared<Equalize>(); }
TransformPtr make_posterize(int bits) { return std::make_shared<Posterize>(bits, bits, false); }
TransformPtr make_random_posterize(std::array<int64_t, 2> bits) {
  return std::make_shared<Posterize>(bits[0], bits[1], true);
}
TransformPtr make_solarize(std::array<double, 2> threshold) {
  return std::make_shared<Solarize>(threshold, false);
}
TransformPtr make_random_solarize(std::array<double, 2> threshold) {
  return std::make_shared<Solarize>(threshold, true);
}
TransformPtr make_invert() { return std::make_shared<Invert>(); }
TransformPtr make_random_apply(TransformPtr inner, double prob, std::string name) {
  return std::make_shared<RandomApply>(std::move(inner), prob, std::move(name));
}

}  // namespace mycel::data
