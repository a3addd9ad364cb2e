// Affine, Rotate and Perspective warps and their random flavours (transforms_vision_ext.h).
//
// The warp follows OpenCV's warpAffine / warpPerspective, which MindSpore calls: the forward
// matrix is inverted, each output pixel's source position is computed in fixed point (1/1024
// pixel for affine maps, then quantised to 1/32 pixel for interpolation; nearest rounds to the
// closest pixel) and the pixel is interpolated from a table of weights per 1/32 offset (15-bit
// integers for uint8, floats otherwise). Source pixels outside the image read the fill value
// (OpenCV's BORDER_CONSTANT).
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>

#include "data/transforms_vision_ext.h"
#include "tensor/size.h"

namespace mycel::data {

namespace {

constexpr int kInterBits = 5, kTab = 1 << kInterBits;  // 1/32 pixel
constexpr int kAbBits = 10, kAbScale = 1 << kAbBits;   // affine fixed point
constexpr int kCoefBits = 15, kCoefScale = 1 << kCoefBits;

enum class Kind : uint8_t { Nearest, Linear, Cubic };

Kind warp_kind(Interp interp, std::string_view op) {
  switch (interp) {
    case Interp::Nearest:
      return Kind::Nearest;
    case Interp::Linear:
    case Interp::Area:  // OpenCV's warps sample INTER_AREA bilinearly
      return Kind::Linear;
    case Interp::Cubic:
      return Kind::Cubic;
    default:
      MC_THROW(Value, op, ": Invalid InterpolationMode, only NEAREST, BILINEAR, BICUBIC and AREA ",
               "are supported.");
  }
}

// OpenCV's saturate_cast<int>(double): round half to even, clamped.
int64_t cv_round(double v) {
  if (!(v > INT_MIN)) return INT_MIN;
  if (v > INT_MAX) return INT_MAX;
  return static_cast<int64_t>(std::nearbyint(v));
}

// The per-offset weight tables: 32 x 32 offsets, ksize x ksize taps, as float and as 15-bit
// integers summing to 2^15 (OpenCV's initInterTab2D, its sum correction included).
struct Tables {
  int ksize = 0;
  std::vector<float> f;
  std::vector<int32_t> i;
};

void coeffs_1d(Kind kind, float x, float* c) {
  if (kind == Kind::Linear) {
    c[0] = 1.f - x;
    c[1] = x;
    return;
  }
  const float A = -0.75f;
  c[0] = ((A * (x + 1) - 5 * A) * (x + 1) + 8 * A) * (x + 1) - 4 * A;
  c[1] = ((A + 2) * x - (A + 3)) * x * x + 1;
  c[2] = ((A + 2) * (1 - x) - (A + 3)) * (1 - x) * (1 - x) + 1;
  c[3] = 1.f - c[0] - c[1] - c[2];
}

const Tables& tables(Kind kind) {
  auto build = [](Kind k) {
    Tables t;
    t.ksize = k == Kind::Linear ? 2 : 4;
    const int ks = t.ksize, n = ks * ks;
    std::vector<float> one(static_cast<size_t>(kTab * ks));
    for (int j = 0; j < kTab; ++j) coeffs_1d(k, static_cast<float>(j) * (1.f / kTab), &one[j * ks]);
    t.f.resize(static_cast<size_t>(kTab * kTab * n));
    t.i.resize(t.f.size());
    for (int iy = 0; iy < kTab; ++iy) {
      for (int ix = 0; ix < kTab; ++ix) {
        float* tf = &t.f[(iy * kTab + ix) * n];
        int32_t* ti = &t.i[(iy * kTab + ix) * n];
        int sum = 0;
        for (int k1 = 0; k1 < ks; ++k1) {
          for (int k2 = 0; k2 < ks; ++k2) {
            float v = one[iy * ks + k1] * one[ix * ks + k2];
            tf[k1 * ks + k2] = v;
            ti[k1 * ks + k2] = static_cast<int32_t>(
                std::clamp<int64_t>(cv_round(v * kCoefScale), SHRT_MIN, SHRT_MAX));
            sum += ti[k1 * ks + k2];
          }
        }
        if (sum != kCoefScale) {  // put the rounding error on a central tap, as OpenCV
          int diff = sum - kCoefScale, k0 = ks / 2;
          int mk1 = k0, mk2 = k0, Mk1 = k0, Mk2 = k0;
          for (int k1 = k0; k1 < std::min(k0 + 2, ks); ++k1) {
            for (int k2 = k0; k2 < std::min(k0 + 2, ks); ++k2) {
              if (ti[k1 * ks + k2] < ti[mk1 * ks + mk2]) {
                mk1 = k1, mk2 = k2;
              } else if (ti[k1 * ks + k2] > ti[Mk1 * ks + Mk2]) {
                Mk1 = k1, Mk2 = k2;
              }
            }
          }
          if (diff < 0) {
            ti[Mk1 * ks + Mk2] -= diff;
          } else {
            ti[mk1 * ks + mk2] -= diff;
          }
        }
      }
    }
    return t;
  };
  static const Tables lin = build(Kind::Linear), cub = build(Kind::Cubic);
  return kind == Kind::Linear ? lin : cub;
}

// A 3x3 forward matrix (row-major; affine: last row 0 0 1) and its inverse.
using Mat3 = std::array<double, 9>;

Mat3 invert3(const Mat3& m, std::string_view op) {
  const double a = m[0], b = m[1], c = m[2], d = m[3], e = m[4], f = m[5], g = m[6], h = m[7],
               i = m[8];
  double A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
  double det = a * A + b * B + c * C;
  MC_CHECK(det != 0 && std::isfinite(det), Value, op,
           ": the transformation is not invertible (its matrix is singular).");
  double r = 1.0 / det;
  return Mat3{A * r, -(b * i - c * h) * r, (b * f - c * e) * r,
              B * r, (a * i - c * g) * r,  -(a * f - c * d) * r,
              C * r, -(a * h - b * g) * r, (a * e - b * d) * r};
}

// Source positions of output row y: nearest gives whole pixels, the others 1/32 pixels.
// Affine maps (inv[6..7] == 0) use OpenCV's integer steps, perspective ones double.
void map_row(const Mat3& inv, bool affine, Kind kind, int64_t y, int64_t w,
             const std::vector<int64_t>& adelta, const std::vector<int64_t>& bdelta, int64_t* X,
             int64_t* Y) {
  const bool nearest = kind == Kind::Nearest;
  if (affine) {
    const int64_t round_delta = nearest ? kAbScale / 2 : kAbScale / kTab / 2;
    const int shift = nearest ? kAbBits : kAbBits - kInterBits;
    const int64_t X0 = cv_round((inv[1] * y + inv[2]) * kAbScale) + round_delta;
    const int64_t Y0 = cv_round((inv[4] * y + inv[5]) * kAbScale) + round_delta;
    for (int64_t x = 0; x < w; ++x) {
      X[x] = (X0 + adelta[x]) >> shift;
      Y[x] = (Y0 + bdelta[x]) >> shift;
    }
    return;
  }
  const double X0 = inv[1] * y + inv[2], Y0 = inv[4] * y + inv[5], W0 = inv[7] * y + inv[8];
  for (int64_t x = 0; x < w; ++x) {
    double W = W0 + inv[6] * x;
    W = W != 0 ? (nearest ? 1.0 : static_cast<double>(kTab)) / W : 0.0;
    double fx = std::max<double>(INT_MIN, std::min<double>(INT_MAX, (X0 + inv[0] * x) * W));
    double fy = std::max<double>(INT_MIN, std::min<double>(INT_MAX, (Y0 + inv[3] * x) * W));
    X[x] = cv_round(fx);
    Y[x] = cv_round(fy);
  }
}

template <class T>
T cast_out(double v) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    return static_cast<uint8_t>(std::clamp<int64_t>(cv_round(v), 0, 255));
  } else {
    return static_cast<T>(v);
  }
}

// Warps an <H, W, C> image (rows of w * c elements) to out_h x out_w by the inverse map inv.
template <class T>
void warp_image(const T* src, int64_t h, int64_t w, int64_t c, const Mat3& inv, bool affine,
                Kind kind, const std::vector<T>& fill, int64_t out_h, int64_t out_w, T* dst) {
  std::vector<int64_t> adelta, bdelta;
  if (affine) {
    adelta.resize(static_cast<size_t>(out_w));
    bdelta.resize(static_cast<size_t>(out_w));
    for (int64_t x = 0; x < out_w; ++x) {
      adelta[x] = cv_round(inv[0] * x * kAbScale);
      bdelta[x] = cv_round(inv[3] * x * kAbScale);
    }
  }
  const Tables* tab = kind == Kind::Nearest ? nullptr : &tables(kind);
  const int ks = tab ? tab->ksize : 1, back = ks == 4 ? 1 : 0;
  std::vector<int64_t> X(static_cast<size_t>(out_w)), Y(static_cast<size_t>(out_w));
  std::vector<const T*> taps(static_cast<size_t>(ks * ks));
  constexpr bool kInt = std::is_same_v<T, uint8_t>;
  using Acc = std::conditional_t<kInt, int64_t,
                                 std::conditional_t<std::is_same_v<T, double>, double, float>>;
  for (int64_t y = 0; y < out_h; ++y) {
    map_row(inv, affine, kind, y, out_w, adelta, bdelta, X.data(), Y.data());
    T* d = dst + y * out_w * c;
    for (int64_t x = 0; x < out_w; ++x, d += c) {
      if (kind == Kind::Nearest) {
        int64_t sx = X[x], sy = Y[x];
        const T* s =
            (sx >= 0 && sx < w && sy >= 0 && sy < h) ? src + (sy * w + sx) * c : fill.data();
        std::memcpy(d, s, static_cast<size_t>(c) * sizeof(T));
        continue;
      }
      int64_t sx = (X[x] >> kInterBits) - back, sy = (Y[x] >> kInterBits) - back;
      int alpha = static_cast<int>((Y[x] & (kTab - 1)) * kTab + (X[x] & (kTab - 1)));
      if (sx >= w || sx + ks <= 0 || sy >= h || sy + ks <= 0) {  // every tap outside
        std::memcpy(d, fill.data(), static_cast<size_t>(c) * sizeof(T));
        continue;
      }
      for (int k1 = 0; k1 < ks; ++k1) {
        int64_t yy = sy + k1;
        for (int k2 = 0; k2 < ks; ++k2) {
          int64_t xx = sx + k2;
          taps[k1 * ks + k2] =
              (xx >= 0 && xx < w && yy >= 0 && yy < h) ? src + (yy * w + xx) * c : fill.data();
        }
      }
      const int n = ks * ks;
      for (int64_t ch = 0; ch < c; ++ch) {
        Acc sum = 0;
        if constexpr (kInt) {
          const int32_t* wt = &tab->i[static_cast<size_t>(alpha) * n];
          for (int k = 0; k < n; ++k) sum += static_cast<int64_t>(taps[k][ch]) * wt[k];
          d[ch] = static_cast<T>(
              std::clamp<int64_t>((sum + (1 << (kCoefBits - 1))) >> kCoefBits, 0, 255));
        } else {
          const float* wt = &tab->f[static_cast<size_t>(alpha) * n];
          for (int k = 0; k < n; ++k) sum += static_cast<Acc>(taps[k][ch]) * wt[k];
          d[ch] = static_cast<T>(sum);
        }
      }
    }
  }
}

// Warps img (<H, W> or <H, W, C>; uint8, float32 or float64) by the forward matrix m into an
// out_h x out_w image. fill: 1 value for every channel, or one per channel (missing ones 0).
Array warp(const Array& img, const Mat3& m, int64_t out_h, int64_t out_w, Interp interp,
           const std::vector<double>& fill, std::string_view op) {
  MC_CHECK(img.dtype() != DataType::String && (img.ndim() == 2 || img.ndim() == 3), Value, op,
           ": the image must be <H, W> or <H, W, C>, but got ", describe(img), ".");
  const Kind kind = warp_kind(interp, op);
  const int64_t h = img.shape()[0], w = img.shape()[1], c = img.ndim() == 3 ? img.shape()[2] : 1;
  MC_CHECK(h > 0 && w > 0 && c > 0, Value, op, ": the image must not be empty, but got shape ",
           shape_str(img.shape()), ".");
  MC_CHECK(out_h > 0 && out_w > 0 && out_h <= INT32_MAX && out_w <= INT32_MAX, Value, op,
           ": the output size (", out_h, ", ", out_w, ") is invalid.");
  const bool affine = m[6] == 0 && m[7] == 0 && m[8] == 1;
  const Mat3 inv = invert3(m, op);
  Shape shape = img.ndim() == 3 ? Shape{out_h, out_w, c} : Shape{out_h, out_w};
  checked_nbytes(shape, data_type_size(img.dtype()), op);
  Array out = Array::empty(img.dtype(), shape);
  auto run = [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::vector<T> px(static_cast<size_t>(c));
    for (int64_t k = 0; k < c; ++k) {
      double v = fill.empty()                            ? 0.0
                 : fill.size() == 1                      ? fill[0]
                 : k < static_cast<int64_t>(fill.size()) ? fill[k]
                                                         : 0.0;
      px[k] = cast_out<T>(v);
    }
    warp_image<T>(img.data<T>(), h, w, c, inv, affine, kind, px, out_h, out_w,
                  out.mutable_data<T>());
  };
  switch (img.dtype()) {
    case DataType::UInt8:
      run(DataTag<uint8_t>{});
      break;
    case DataType::Float32:
      run(DataTag<float>{});
      break;
    case DataType::Float64:
      run(DataTag<double>{});
      break;
    default:
      MC_THROW(Type, op, ": the image must be uint8, float32 or float64, but got ", describe(img),
               ".");
  }
  return out;
}

// MindSpore's message for a 1-D input (undecoded bytes, often).
void check_rank(const Array& x, std::string_view op) {
  MC_CHECK(x.ndim() >= 2, Runtime, op,
           ": the image tensor should have at least two dimensions. You may need to perform "
           "Decode first. Got ",
           describe(x), ".");
}

void check_cubic_channels(const Array& x, Interp interp, std::string_view op) {
  MC_CHECK(!(interp == Interp::Cubic && x.ndim() == 3 && x.shape()[2] > 4), Runtime, op,
           ": interpolation can not be CUBIC when image channel is greater than 4, but got ",
           describe(x), ".");
}

// A warp of one image or of a stack of them (per_image, transforms.h).
template <class F>
Array warp_images(const Array& x, std::string_view op, F&& one) {
  check_rank(x, op);
  return x.ndim() <= 3 ? one(x) : per_image(x, op, one);
}

// MindSpore's AffineOp matrix (computed in float, as its kernel): rotation by `degrees`
// clockwise, shear, scale about the centre, then the translation.
Mat3 affine_matrix(double degrees, double tx, double ty, double scale, double shx, double shy,
                   int64_t h, int64_t w) {
  const double kRad = M_PI / 180.0;
  const float a = static_cast<float>(degrees * kRad), sx = static_cast<float>(shx * kRad),
              sy = static_cast<float>(-shy * kRad);
  const float cx = static_cast<float>((w - 1) / 2.0), cy = static_cast<float>((h - 1) / 2.0);
  const double ad = a, sxd = sx, syd = sy;
  float m0 = static_cast<float>(scale * std::cos(ad + syd) / std::cos(syd));
  float m1 = static_cast<float>(
      scale * (-std::cos(ad + syd) * std::tan(sxd) / std::cos(syd) - std::sin(ad)));
  float m3 = static_cast<float>(scale * std::sin(ad + syd) / std::cos(syd));
  float m4 = static_cast<float>(
      scale * (-std::sin(ad + syd) * std::tan(sxd) / std::cos(syd) + std::cos(ad)));
  float m2 = (1 - m0) * cx - m1 * cy + static_cast<float>(tx);
  float m5 = (1 - m4) * cy - m3 * cx + static_cast<float>(ty);
  return Mat3{m0, m1, m2, m3, m4, m5, 0, 0, 1};
}

class Affine final : public UnaryTransform {
 public:
  Affine(double degrees, std::array<double, 2> translate, double scale, std::array<double, 2> shear,
         Interp interp, std::vector<double> fill)
      : degrees_(degrees),
        translate_(translate),
        scale_(scale),
        shear_(shear),
        interp_(interp),
        fill_(std::move(fill)) {
    warp_kind(interp, "Affine");
    MC_CHECK(scale > 0, Value, "Affine: scale must be positive, but got ", scale, ".");
  }
  std::string_view name() const override { return "Affine"; }

 protected:
  Array apply1(const Array& x, int lead, RowRandom*) const override {
    MC_ASSERT(lead == 0, "Affine is not batchable");
    if (x.ndim() > 3)
      return warp_images(x, name(), [&](const Array& one) { return apply1(one, 0, nullptr); });
    check_rank(x, name());
    MC_CHECK(x.ndim() == 2 || x.ndim() == 3, Value, name(),
             ": the image must be <H, W> or <H, W, C>, but got ", describe(x), ".");
    // translate is a fraction of the width and height (MindSpore 2.x, computed in float)
    const float tx = static_cast<float>(translate_[0]) * static_cast<float>(x.shape()[1]);
    const float ty = static_cast<float>(translate_[1]) * static_cast<float>(x.shape()[0]);
    return warp_affine(x, degrees_, tx, ty, scale_, shear_[0], shear_[1], interp_, fill_, name());
  }

 public:
  static Array warp_affine(const Array& x, double degrees, double tx, double ty, double scale,
                           double shx, double shy, Interp interp, const std::vector<double>& fill,
                           std::string_view op) {
    check_rank(x, op);
    MC_CHECK(x.ndim() == 2 || x.ndim() == 3, Value, op,
             ": the image must be <H, W> or <H, W, C>, but got ", describe(x), ".");
    check_cubic_channels(x, interp, op);
    const int64_t h = x.shape()[0], w = x.shape()[1];
    // As MindSpore's kernel: OpenCV's Scalar(fill[0], fill[1], fill[2]) on the image.
    return warp(x, affine_matrix(degrees, tx, ty, scale, shx, shy, h, w), h, w, interp, fill, op);
  }

 private:
  double degrees_;
  std::array<double, 2> translate_;
  double scale_;
  std::array<double, 2> shear_;
  Interp interp_;
  std::vector<double> fill_;
};

// A float uniform in [lo, hi] (hi when the range is empty).
double uniform(RowRandom* rng, double lo, double hi) {
  return lo == hi ? lo : lo + (hi - lo) * rng->uniform();
}

class RandomAffine final : public UnaryTransform {
 public:
  RandomAffine(std::array<double, 2> degrees, std::array<double, 4> translate,
               std::array<double, 2> scale, std::array<double, 4> shear, Interp interp,
               std::vector<double> fill)
      : degrees_(degrees),
        translate_(translate),
        scale_(scale),
        shear_(shear),
        interp_(interp),
        fill_(std::move(fill)) {
    warp_kind(interp, "RandomAffine");
    MC_CHECK(degrees[0] <= degrees[1] && scale[0] > 0 && scale[0] <= scale[1], Value,
             "RandomAffine: degrees and scale must be (min, max) ranges, scale positive.");
  }
  std::string_view name() const override { return "RandomAffine"; }
  bool random() const override { return true; }

 protected:
  Array apply1(const Array& x, int lead, RowRandom* rng) const override {
    MC_ASSERT(lead == 0, "RandomAffine is not batchable");
    check_rank(x, name());
    MC_CHECK(x.ndim() == 2 || x.ndim() == 3, Value, name(),
             ": the image must be <H, W> or <H, W, C>, but got ", describe(x), ".");
    const double h = static_cast<double>(x.shape()[0]), w = static_cast<double>(x.shape()[1]);
    double deg = uniform(rng, degrees_[0], degrees_[1]);
    double tx = uniform(rng, translate_[0] * w, translate_[1] * w);
    double ty = uniform(rng, translate_[2] * h, translate_[3] * h);
    double s = uniform(rng, scale_[0], scale_[1]);
    double shx = uniform(rng, shear_[0], shear_[1]);
    double shy = uniform(rng, shear_[2], shear_[3]);
    return Affine::warp_affine(x, std::fmod(deg, 360.0), tx, ty, s, shx, shy, interp_, fill_,
                               name());
  }

 private:
  std::array<double, 2> degrees_;
  std::array<double, 4> translate_;
  std::array<double, 2> scale_;
  std::array<double, 4> shear_;
  Interp interp_;
  std::vector<double> fill_;
};

// OpenCV's rotation (getRotationMatrix2D about a float centre; with expand, the output is the
// rotated rectangle's bounding box, its size rounded, and the map shifted to its centre).
Array rotate(const Array& x, double degrees, Interp interp, bool expand,
             const std::vector<double>& center, const std::vector<double>& fill,
             std::string_view op) {
  check_rank(x, op);
  MC_CHECK(x.ndim() == 2 || x.ndim() == 3, Value, op,
           ": the image must be <H, W> or <H, W, C>, but got ", describe(x), ".");
  check_cubic_channels(x, interp, op);
  const int64_t h = x.shape()[0], w = x.shape()[1];
  const float fx =
      center.empty() ? static_cast<float>((w - 1) * 0.5) : static_cast<float>(center[0]);
  const float fy =
      center.empty() ? static_cast<float>((h - 1) * 0.5) : static_cast<float>(center[1]);
  const float deg = static_cast<float>(degrees);
  const double a = static_cast<double>(deg) * M_PI / 180.0;
  const double alpha = std::cos(a), beta = std::sin(a);
  Mat3 m{alpha, beta, (1 - alpha) * fx - beta * fy, -beta, alpha, beta * fx + (1 - alpha) * fy, 0,
         0,     1};
  int64_t oh = h, ow = w;
  if (expand) {  // cv::RotatedRect(centre, size, angle).boundingRect2f(), in float
    const float b2 = static_cast<float>(std::cos(a)) * 0.5f,
                a2 = static_cast<float>(std::sin(a)) * 0.5f;
    const float W = static_cast<float>(w), H = static_cast<float>(h);
    float p0x = fx - a2 * H - b2 * W, p0y = fy + b2 * H - a2 * W;
    float p1x = fx + a2 * H - b2 * W, p1y = fy - b2 * H - a2 * W;
    float p2x = 2 * fx - p0x, p2y = 2 * fy - p0y, p3x = 2 * fx - p1x, p3y = 2 * fy - p1y;
    float bw = std::max({p0x, p1x, p2x, p3x}) - std::min({p0x, p1x, p2x, p3x});
    float bh = std::max({p0y, p1y, p2y, p3y}) - std::min({p0y, p1y, p2y, p3y});
    m[2] += bw / 2.0 - w / 2.0;
    m[5] += bh / 2.0 - h / 2.0;
    ow = cv_round(bw);
    oh = cv_round(bh);
  }
  // MindSpore's kernel passes OpenCV Scalar(fill_b, fill_g, fill_r): the values reversed.
  std::vector<double> f = fill;
  if (f.size() == 3) std::reverse(f.begin(), f.end());
  return warp(x, m, oh, ow, interp, f, op);
}

class Rotate final : public UnaryTransform {
 public:
  Rotate(double degrees, Interp interp, bool expand, std::vector<double> center,
         std::vector<double> fill, bool random, std::array<double, 2> range)
      : degrees_(degrees),
        interp_(interp),
        expand_(expand),
        center_(std::move(center)),
        fill_(std::move(fill)),
        random_(random),
        range_(range) {
    warp_kind(interp, name());
    MC_CHECK(center_.empty() || center_.size() == 2, Value, name(),
             ": center must be (x, y), but got ", center_.size(), " values.");
  }
  std::string_view name() const override { return random_ ? "RandomRotation" : "Rotate"; }
  bool random() const override { return random_; }

 protected:
  Array apply1(const Array& x, int lead, RowRandom* rng) const override {
    MC_ASSERT(lead == 0, name(), " is not batchable");
    double deg = degrees_;
    if (random_) deg = std::fmod(uniform(rng, range_[0], range_[1]), 360.0);
    // <..., H, W, C>: every image turned by the same angle.
    return warp_images(x, name(), [&](const Array& one) {
      return rotate(one, deg, interp_, expand_, center_, fill_, name());
    });
  }

 private:
  double degrees_;
  Interp interp_;
  bool expand_;
  std::vector<double> center_, fill_;
  bool random_;
  std::array<double, 2> range_;
};

// OpenCV's getPerspectiveTransform: the 8 unknowns of the homography from 4 point pairs,
// solved by Gaussian elimination with partial pivoting.
Mat3 perspective_matrix(const std::array<std::array<double, 2>, 4>& src,
                        const std::array<std::array<double, 2>, 4>& dst, std::string_view op) {
  double a[8][9] = {};
  for (int i = 0; i < 4; ++i) {
    const double x = static_cast<float>(src[i][0]), y = static_cast<float>(src[i][1]);
    const double u = static_cast<float>(dst[i][0]), v = static_cast<float>(dst[i][1]);
    double r1[9] = {x, y, 1, 0, 0, 0, -x * u, -y * u, u};
    double r2[9] = {0, 0, 0, x, y, 1, -x * v, -y * v, v};
    std::copy(r1, r1 + 9, a[i]);
    std::copy(r2, r2 + 9, a[i + 4]);
  }
  for (int col = 0; col < 8; ++col) {
    int piv = col;
    for (int r = col + 1; r < 8; ++r) {
      if (std::abs(a[r][col]) > std::abs(a[piv][col])) piv = r;
    }
    MC_CHECK(std::abs(a[piv][col]) > 1e-12, Value, op,
             ": the points give no perspective transform (three of them are collinear).");
    if (piv != col) std::swap(a[piv], a[col]);
    for (int r = col + 1; r < 8; ++r) {
      double f = a[r][col] / a[col][col];
      for (int k = col; k < 9; ++k) a[r][k] -= f * a[col][k];
    }
  }
  double sol[8];
  for (int r = 7; r >= 0; --r) {
    double s = a[r][8];
    for (int k = r + 1; k < 8; ++k) s -= a[r][k] * sol[k];
    sol[r] = s / a[r][r];
  }
  return Mat3{sol[0], sol[1], sol[2], sol[3], sol[4], sol[5], sol[6], sol[7], 1.0};
}

Array perspective(const Array& x, const std::array<std::array<double, 2>, 4>& start,
                  const std::array<std::array<double, 2>, 4>& end, Interp interp,
                  std::string_view op) {
  check_rank(x, op);
  MC_CHECK(x.ndim() == 2 || x.ndim() == 3, Value, op,
           ": the image must be <H, W> or <H, W, C>, but got ", describe(x), ".");
  check_cubic_channels(x, interp, op);
  return warp(x, perspective_matrix(start, end, op), x.shape()[0], x.shape()[1], interp, {0.0}, op);
}

class Perspective final : public UnaryTransform {
 public:
  Perspective(std::array<std::array<double, 2>, 4> start, std::array<std::array<double, 2>, 4> end,
              Interp interp)
      : start_(start), end_(end), interp_(interp) {
    warp_kind(interp, "Perspective");
    perspective_matrix(start, end, "Perspective");  // refuses degenerate points now
  }
  std::string_view name() const override { return "Perspective"; }

 protected:
  Array apply1(const Array& x, int lead, RowRandom*) const override {
    MC_ASSERT(lead == 0, "Perspective is not batchable");
    return warp_images(x, name(), [&](const Array& one) {
      return perspective(one, start_, end_, interp_, name());
    });
  }

 private:
  std::array<std::array<double, 2>, 4> start_, end_;
  Interp interp_;
};

class RandomPerspective final : public UnaryTransform {
 public:
  RandomPerspective(double distortion, double prob, Interp interp)
      : distortion_(distortion), prob_(prob), interp_(interp) {
    warp_kind(interp, "RandomPerspective");
    MC_CHECK(distortion >= 0 && distortion <= 1 && prob >= 0 && prob <= 1, Value,
             "RandomPerspective: distortion_scale and prob must be in [0, 1], but got ", distortion,
             " and ", prob, ".");
  }
  std::string_view name() const override { return "RandomPerspective"; }
  bool random() const override { return true; }

 protected:
  Array apply1(const Array& x, int lead, RowRandom* rng) const override {
    MC_ASSERT(lead == 0, "RandomPerspective is not batchable");
    check_rank(x, name());
    MC_CHECK(x.ndim() == 2 || x.ndim() == 3, Value, name(),
             ": the image must be <H, W> or <H, W, C>, but got ", describe(x), ".");
    if (!rng->bernoulli(prob_)) return x;
    const int64_t h = x.shape()[0], w = x.shape()[1], hh = h / 2, hw = w / 2;
    const int64_t dx = static_cast<int64_t>(distortion_ * hw),
                  dy = static_cast<int64_t>(distortion_ * hh);
    auto draw = [&](int64_t lo, int64_t hi) { return static_cast<double>(rng->randint(lo, hi)); };
    std::array<std::array<double, 2>, 4> start{
        {{0, 0}, {double(w - 1), 0}, {double(w - 1), double(h - 1)}, {0, double(h - 1)}}};
    std::array<std::array<double, 2>, 4> end;
    end[0] = {draw(0, dx), draw(0, dy)};
    end[1] = {draw(w - 1 - dx, w - 1), draw(0, dy)};
    end[2] = {draw(w - 1 - dx, w - 1), draw(h - 1 - dy, h - 1)};
    end[3] = {draw(0, dx), draw(h - 1 - dy, h - 1)};
    return perspective(x, start, end, interp_, name());
  }

 private:
  double distortion_, prob_;
  Interp interp_;
};

}  // namespace

TransformPtr make_affine(double degrees, std::array<double, 2> translate, double scale,
                         std::array<double, 2> shear, Interp interp, std::vector<double> fill) {
  return std::make_shared<Affine>(degrees, translate, scale, shear, interp, std::move(fill));
}
TransformPtr make_random_affine(std::array<double, 2> degrees, std::array<double, 4> translate,
                                std::array<double, 2> scale, std::array<double, 4> shear,
                                Interp interp, std::vector<double> fill) {
  return std::make_shared<RandomAffine>(degrees, translate, scale, shear, interp, std::move(fill));
}
TransformPtr make_rotate(double degrees, Interp interp, bool expand, std::vector<double> center,
                         std::vector<double> fill) {
  return std::make_shared<Rotate>(degrees, interp, expand, std::move(center), std::move(fill),
                                  false, std::array<double, 2>{0, 0});
}
TransformPtr make_random_rotation(std::array<double, 2> degrees, Interp interp, bool expand,
                                  std::vector<double> center, std::vector<double> fill) {
  return std::make_shared<Rotate>(0.0, interp, expand, std::move(center), std::move(fill), true,
                                  degrees);
}
TransformPtr make_perspective(std::array<std::array<double, 2>, 4> start,
                              std::array<std::array<double, 2>, 4> end, Interp interp) {
  return std::make_shared<Perspective>(start, end, interp);
}
TransformPtr make_random_perspective(double distortion_scale, double prob, Interp interp) {
  return std::make_shared<RandomPerspective>(distortion_scale, prob, interp);
}

}  // namespace mycel::data
