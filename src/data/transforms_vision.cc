// mindspore.dataset.vision's transforms on HWC images. Geometric ops are gathers of whole
// pixels (rows by memcpy where they are contiguous, pixels by fixed-size copies otherwise),
// so they work on any dtype and keep it. Resize's separable kernels are in resize.cc; its
// nearest mode is a gather, here.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "data/clones.h"
#include "data/image_codec.h"
#include "data/resize.h"
#include "data/transforms.h"
#include "data/transforms_vision_aug.h"
#include "tensor/size.h"

namespace mycel::data {

Interp interp_from_name(std::string_view name, std::string_view op) {
  if (name == "nearest") return Interp::Nearest;
  if (name == "bilinear" || name == "linear") return Interp::Linear;
  if (name == "bicubic" || name == "cubic") return Interp::Cubic;
  if (name == "area") return Interp::Area;
  if (name == "antialias") return Interp::Antialias;
  if (name == "pilcubic") return Interp::PilCubic;
  MC_THROW(Value, op, ": interpolation must be Inter.NEAREST, Inter.LINEAR (BILINEAR), ",
           "Inter.CUBIC (BICUBIC), Inter.AREA, Inter.ANTIALIAS or Inter.PILCUBIC, but got '", name,
           "'.");
}

BorderMode border_from_name(std::string_view name, std::string_view op) {
  if (name == "constant") return BorderMode::Constant;
  if (name == "edge") return BorderMode::Edge;
  if (name == "reflect") return BorderMode::Reflect;
  if (name == "symmetric") return BorderMode::Symmetric;
  MC_THROW(Value, op, ": padding_mode must be Border.CONSTANT, Border.EDGE, Border.REFLECT ",
           "or Border.SYMMETRIC, but got '", name, "'.");
}

namespace {

// ----- images -----

struct Image {
  int64_t h, w, c;
  bool rank2;   // <H, W>: the output is <H', W'> too
  size_t px;    // bytes per pixel
  size_t elem;  // bytes per element
};

// The image's geometry after `lead` batch axes; a ValueError naming op for another rank.
Image image_of(const Array& x, int lead, std::string_view op) {
  MC_CHECK(x.dtype() != DataType::String, Type, op,
           ": the image must be a numeric array, but got a string array ", describe(x), ".");
  int64_t rank = x.ndim() - lead;
  Shape s(x.shape().begin() + lead, x.shape().end());
  MC_CHECK(rank == 2 || rank == 3, Value, op, ": the image must be <H, W> or <H, W, C>, ",
           "but got shape ", shape_str(s), ".");
  int64_t c = rank == 3 ? s[2] : 1;
  size_t elem = data_type_size(x.dtype());
  return Image{s[0], s[1], c, rank == 2, static_cast<size_t>(c) * elem, elem};
}

Shape image_shape(const Image& im, int64_t h, int64_t w) {
  return im.rank2 ? Shape{h, w} : Shape{h, w, im.c};
}

// Integer division rounding down (CenterCrop's offsets may be negative).
int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// Where padded index i (of an axis of n pixels) reads from: a pixel, or -1 for the fill.
int64_t border_index(int64_t i, int64_t n, BorderMode mode) {
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case BorderMode::Constant:
      return -1;
    case BorderMode::Edge:
      return i < 0 ? 0 : n - 1;
    case BorderMode::Reflect: {
      if (n == 1) return 0;
      int64_t period = 2 * (n - 1), k = ((i % period) + period) % period;
      return k < n ? k : period - k;
    }
    case BorderMode::Symmetric: {
      int64_t period = 2 * n, k = ((i % period) + period) % period;
      return k < n ? k : period - 1 - k;
    }
  }
  return -1;
}

// The fill pixel's bytes: channel k gets fill[k] (k < 3) or 0; one value fills every channel.
std::vector<uint8_t> fill_pixel(const Array& x, const Image& im, const std::vector<double>& fill,
                                std::string_view op) {
  std::vector<uint8_t> out(im.px);
  dispatch_data(x.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t k = 0; k < im.c; ++k) {
      double v = fill.empty() ? 0.0 : fill.size() == 1 ? fill[0] : k < 3 ? fill[k] : 0.0;
      T t = static_cast<T>(v);
      std::memcpy(&out[k * im.elem], &t, im.elem);
    }
  });
  return out;
}

// The pixel sizes (bytes) that get copies compiled for their size.
using FixedPixelSizes = std::index_sequence<1, 2, 3, 4, 6, 8, 12, 16>;

// Calls f(p) with p the pixel size px: a std::integral_constant for the sizes in
// FixedPixelSizes, so that each memcpy of one pixel compiles to a fixed-size move, else px.
template <class F>
void with_pixel_size(size_t px, F&& f) {
  bool fixed = [&]<size_t... Ps>(std::index_sequence<Ps...>) {
    return ((px == Ps && (f(std::integral_constant<size_t, Ps>{}), true)) || ...);
  }
  (FixedPixelSizes{});
  if (!fixed) f(px);
}

// Copies n pixels of px bytes: dst[j] = src[cols[j]] (a negative col: the fill pixel).
void gather_pixels(uint8_t* dst, const uint8_t* src, const int64_t* cols, int64_t n,
                   const uint8_t* fill, size_t px) {
  with_pixel_size(px, [&](auto p) {
    for (int64_t j = 0; j < n; ++j) {
      std::memcpy(dst + j * p, cols[j] >= 0 ? src + cols[j] * p : fill, p);
    }
  });
}

// out[i, j] = x[rows[i], cols[j]], or the fill pixel where a row or col is negative. Runs of
// consecutive columns are copied with one memcpy per row.
Array gather(const Array& x, const Image& im, const std::vector<int64_t>& rows,
             const std::vector<int64_t>& cols, const std::vector<uint8_t>& fill) {
  int64_t oh = static_cast<int64_t>(rows.size()), ow = static_cast<int64_t>(cols.size());
  Array out = Array::empty(x.dtype(), image_shape(im, oh, ow));
  auto* dst = static_cast<uint8_t*>(out.mutable_raw());
  const auto* src = static_cast<const uint8_t*>(x.raw());
  size_t px = im.px, row_bytes = static_cast<size_t>(ow) * px;
  bool zero_fill = std::all_of(fill.begin(), fill.end(), [](uint8_t b) { return b == 0; });
  // Segments of the output row: [start, end) copies from cols[start] on when run, else gathers.
  struct Segment {
    int64_t start, end;
    bool run;
  };
  std::vector<Segment> segs;
  for (int64_t j = 0; j < ow;) {
    int64_t k = j + 1;
    if (cols[j] >= 0) {
      while (k < ow && cols[k] == cols[k - 1] + 1) ++k;
    }
    bool run = cols[j] >= 0 && k - j > 1;
    if (!run && !segs.empty() && !segs.back().run) {
      segs.back().end = k;
    } else {
      segs.push_back({j, k, run});
    }
    j = k;
  }
  std::vector<int64_t> none;  // a row of fill pixels
  for (int64_t i = 0; i < oh; ++i) {
    uint8_t* d = dst + i * row_bytes;
    if (rows[i] < 0) {
      if (zero_fill) {
        std::memset(d, 0, row_bytes);
      } else {
        none.resize(static_cast<size_t>(ow), -1);
        gather_pixels(d, nullptr, none.data(), ow, fill.data(), px);
      }
      continue;
    }
    const uint8_t* s = src + rows[i] * im.w * px;
    for (const Segment& g : segs) {
      if (g.run) {
        std::memcpy(d + g.start * px, s + cols[g.start] * px, (g.end - g.start) * px);
      } else {
        gather_pixels(d + g.start * px, s, cols.data() + g.start, g.end - g.start, fill.data(), px);
      }
    }
  }
  return out;
}

// The [h, w] window at (y0, x0) of the image padded by (top, left) and mode: a gather.
Array crop_padded(const Array& x, const Image& im, int64_t y0, int64_t x0, int64_t h, int64_t w,
                  BorderMode mode, const std::vector<uint8_t>& fill, std::string_view op) {
  if (y0 == 0 && x0 == 0 && h == im.h && w == im.w) return x;
  // The output's size must fit before the index tables are made (a padded 2**32 x 2**32
  // image wrapped around).
  checked_nbytes(Shape{h, w}, im.px, op);
  std::vector<int64_t> rows(h), cols(w);
  for (int64_t i = 0; i < h; ++i) rows[i] = border_index(y0 + i, im.h, mode);
  for (int64_t j = 0; j < w; ++j) cols[j] = border_index(x0 + j, im.w, mode);
  return gather(x, im, rows, cols, fill);
}

Array flip(const Array& x, const Image& im, bool horizontal) {
  Array out = Array::empty(x.dtype(), x.shape());
  auto* dst = static_cast<uint8_t*>(out.mutable_raw());
  const auto* src = static_cast<const uint8_t*>(x.raw());
  size_t row_bytes = static_cast<size_t>(im.w) * im.px;
  for (int64_t i = 0; i < im.h; ++i) {
    uint8_t* d = dst + i * row_bytes;
    if (!horizontal) {
      std::memcpy(d, src + (im.h - 1 - i) * row_bytes, row_bytes);
      continue;
    }
    const uint8_t* s = src + i * row_bytes;
    with_pixel_size(im.px, [&](auto p) {
      for (int64_t j = 0; j < im.w; ++j) std::memcpy(d + j * p, s + (im.w - 1 - j) * p, p);
    });
  }
  return out;
}

void check_positive_size(int64_t h, int64_t w, std::string_view op) {
  MC_CHECK(h > 0 && w > 0 && h <= INT32_MAX && w <= INT32_MAX, Value, op,
           ": size must be positive (at most 2147483647), but got (", h, ", ", w, ").");
}

void check_lead0(int lead, std::string_view op) {
  MC_ASSERT(lead == 0, op, " is not batchable but got lead ", lead);
}

// ----- element-wise loops -----

// dst[j] = (src[j] - m) / s for j < n.
template <class T>
MC_DATA_CLONES void normalize_run(const T* src, int64_t n, float m, float s, float* dst) {
  for (int64_t j = 0; j < n; ++j) dst[j] = (static_cast<float>(src[j]) - m) / s;
}

// dst[j] = (src[j] - m[j % block]) / s[j % block] for j < n (HWC pixels: m and s hold whole
// pixels' values, repeated over the block).
template <class T>
MC_DATA_CLONES void normalize_blocks(const T* src, int64_t n, const float* m, const float* s,
                                     int64_t block, float* dst) {
  for (int64_t start = 0; start < n; start += block) {
    int64_t len = std::min(block, n - start);
    const T* a = src + start;
    float* d = dst + start;
    for (int64_t j = 0; j < len; ++j) d[j] = (static_cast<float>(a[j]) - m[j]) / s[j];
  }
}

// batch images of hw pixels of c elements (U: an unsigned type of the element's size), HWC
// to CHW.
template <class U>
MC_DATA_CLONES void hwc_to_chw(const U* src, int64_t batch, int64_t hw, int64_t c, U* dst) {
  for (int64_t b = 0; b < batch; ++b, src += hw * c, dst += hw * c) {
    if (c == 3) {  // RGB: one pass over the pixels, writing the three planes
      for (int64_t p = 0; p < hw; ++p) {
        dst[p] = src[p * 3];
        dst[hw + p] = src[p * 3 + 1];
        dst[2 * hw + p] = src[p * 3 + 2];
      }
      continue;
    }
    for (int64_t ch = 0; ch < c; ++ch) {
      U* d = dst + ch * hw;
      for (int64_t p = 0; p < hw; ++p) d[p] = src[p * c + ch];
    }
  }
}

// dst[j] = src[j] * r + s for j < n: two roundings, as numpy's float32 multiply and add.
template <class T>
MC_DATA_CLONES void rescale_loop(const T* src, int64_t n, float r, float s, float* dst) {
  for (int64_t j = 0; j < n; ++j) dst[j] = static_cast<float>(src[j]) * r + s;
}

// ----- transforms -----

class Decode final : public UnaryTransform {
 public:
  std::string_view name() const override { return "Decode"; }

 protected:
  Array apply1(const Array& x, int lead, RowRandom*) const override {
    check_lead0(lead, name());
    if (x.dtype() == DataType::String && x.bytes() && x.numel() == 1) {  // a bytes column
      const std::string& b = x.str()[0];
      return decode_image(reinterpret_cast<const uint8_t*>(b.data()), b.size(),
                          str("the input (", b.size(), " bytes)"));
    }
    MC_CHECK(x.dtype() == DataType::UInt8 && x.ndim() == 1, Type,
             "Decode: the input must be a 1-D uint8 array of encoded image bytes, but got ",
             describe(x), ".");
    return decode_image(x.data<uint8_t>(), static_cast<size_t>(x.numel()),
                        str("the input (", x.numel(), " bytes)"));
  }
};

class Resize final : public UnaryTransform {
 public:
  Resize(int64_t h, int64_t w, Interp interp) : h_(h), w_(w), interp_(interp) {
    check_positive_size(h, w == 0 ? h : w, "Resize");
  }
  std::string_view name() const override { return "Resize"; }

 protected:
  Array apply1(const Array& x, int lead, RowRandom*) const override {
    check_lead0(lead, name());
    if (x.ndim() > 3) {
      return per_image(x, name(), [&](const Array& one) { return apply1(one, 0, nullptr); });
    }
    Image im = image_of(x, 0, name());
    int64_t oh = h_, ow = w_;
    if (w_ == 0) {  // the shorter side becomes h_, as MindSpore 2.x computes it: in float,
                    // rounded down (1.x rounded to nearest; torchvision also truncates)
      MC_CHECK(im.h > 0 && im.w > 0, Value, "Resize: the image must not be empty, but got shape ",
               shape_str(x.shape()), ".");
      if (im.h < im.w) {
        ow = static_cast<int64_t>(
            std::floor(static_cast<float>(im.w) / im.h * static_cast<float>(h_)));
      } else {
        ow = h_;
        oh = static_cast<int64_t>(
            std::floor(static_cast<float>(im.h) / im.w * static_cast<float>(h_)));
      }
    }
    return resize_window(x, 0, 0, im.h, im.w, oh, ow, interp_, name());
  }

 private:
  int64_t h_, w_;
  Interp interp_;
};

class CenterCrop final : public UnaryTransform {
 public:
  CenterCrop(int64_t h, int64_t w) : h_(h), w_(w) { check_positive_size(h, w, "CenterCrop"); }
  std::string_view name() const override { return "CenterCrop"; }

 protected:
  Array apply1(const Array& x, int lead, RowRandom*) const override {
    check_lead0(lead, name());
    if (x.ndim() > 3) {
      return per_image(x, name(), [&](const Array& one) { return apply1(one, 0, nullptr); });
    }
    Image im = image_of(x, 0, name());
    // As MindSpore: padding beyond 3 times the image is refused (not a huge allocation).
    MC_CHECK(h_ <= 3 * im.h && w_ <= 3 * im.w, Runtime, name(), ": the crop size [", h_, ", ", w_,
             "] is larger than 3 times the image [", im.h, ", ", im.w,
             "]: Padding size cannot be more than 3 times of the original image size.");
    // As MindSpore: a smaller side is padded with zeros (the extra pixel on top / left), then
    // the window starts at (size - crop) / 2 rounded down.
    return crop_padded(x, im, floor_div(im.h - h_, 2), floor_div(im.w - w_, 2), h_, w_,
                       BorderMode::Constant, std::vector<uint8_t>(im.px, 0), name());
  }

 private:
  int64_t h_, w_;
};

// One window for the whole row: every input column (MindSpore crops several columns alike;
// their first two axes must agree) and every image of a stack <..., H, W, C>.
class RandomCrop final : public Transform {
 public:
  RandomCrop(int64_t h, int64_t w, std::array<int64_t, 4> padding, bool pad_if_needed,
             std::vector<double> fill, BorderMode mode)
      : h_(h),
        w_(w),
        pad_(padding),
        pad_if_needed_(pad_if_needed),
        fill_(std::move(fill)),
        mode_(mode) {
    check_positive_size(h, w, "RandomCrop");
    for (int64_t p : pad_) {
      MC_CHECK(p >= 0, Value, "RandomCrop: padding must be non-negative, but got ", p, ".");
    }
    MC_CHECK(fill_.size() == 1 || fill_.size() == 3, Value,
             "RandomCrop: fill_value must have 1 or 3 values, but got ", fill_.size(), ".");
  }
  std::string_view name() const override { return "RandomCrop"; }
  bool random() const override { return true; }

  std::vector<Array> apply(std::vector<Array> in, int lead, RowRandom* rng) const override {
    check_lead0(lead, name());
    MC_CHECK(!in.empty(), Type, "RandomCrop: expects at least one input column.");
    for (size_t i = 1; i < in.size(); ++i) {
      MC_CHECK(in[i].ndim() >= 2 && in[0].ndim() >= 2 && in[i].shape()[0] == in[0].shape()[0] &&
                   in[i].shape()[1] == in[0].shape()[1],
               Runtime,
               "RandomCrop: Input images in different column must have the same shape, check the "
               "output shape in specified 'input_columns' before call this operation (got ",
               shape_str(in[0].shape()), " and ", shape_str(in[i].shape()), ").");
    }
    const Array& first = in[0];
    Image im = image_of(first, first.ndim() > 3 ? static_cast<int>(first.ndim() - 3) : 0, name());
    auto [left, top, right, bottom] = pad_;
    int64_t ph = im.h + top + bottom, pw = im.w + left + right;
    if (pad_if_needed_ && ph < h_) {  // as MindSpore and torchvision: the shortfall on both sides
      top += h_ - ph;
      ph += 2 * (h_ - ph);
    }
    if (pad_if_needed_ && pw < w_) {
      left += w_ - pw;
      pw += 2 * (w_ - pw);
    }
    MC_CHECK(ph >= h_ && pw >= w_, Value, "RandomCrop: the crop size (", h_, ", ", w_,
             ") is bigger than the ", (pad_[0] || pad_[1] || pad_[2] || pad_[3]) ? "padded " : "",
             "image (", ph, ", ", pw, ") of shape ", shape_str(first.shape()),
             "; use pad_if_needed=True to pad it.");
    int64_t y = 0, x0 = 0;
    if (ph != h_ || pw != w_) {  // MindSpore draws x first
      x0 = rng->randint(0, pw - w_);
      y = rng->randint(0, ph - h_);
    }
    auto crop_one = [&](const Array& x) {
      Image one = image_of(x, 0, name());
      return crop_padded(x, one, y - top, x0 - left, h_, w_, mode_,
                         fill_pixel(x, one, fill_, name()), name());
    };
    for (Array& x : in) x = x.ndim() > 3 ? per_image(x, name(), crop_one) : crop_one(x);
    return in;
  }

 private:
  int64_t h_, w_;
  std::array<int64_t, 4> pad_;  // left, top, right, bottom
  bool pad_if_needed_;
  std::vector<double> fill_;
  BorderMode mode_;
};

class RandomFlip final : public Transform {
 public:
  RandomFlip(double prob, bool horizontal) : prob_(prob), horizontal_(horizontal) {
    MC_CHECK(prob >= 0 && prob <= 1, Value, name(), ": prob must be in [0, 1], but got ", prob,
             ".");
  }
  std::string_view name() const override {
    return horizontal_ ? "RandomHorizontalFlip" : "RandomVerticalFlip";
  }
  bool random() const override { return true; }

  // Every input column flips on one draw (MindSpore's multi-column form); <..., H, W, C>
  // (video frames, a batch) flips every image.
  std::vector<Array> apply(std::vector<Array> in, int lead, RowRandom* rng) const override {
    check_lead0(lead, name());
    MC_CHECK(!in.empty(), Type, name(), ": expects at least one input column.");
    for (const Array& x : in) check(x);
    if (!rng->bernoulli(prob_)) return in;
    for (Array& x : in) {
      if (x.ndim() > 3) {
        x = per_image(x, name(), [&](const Array& one) {
          return flip(one, image_of(one, 0, name()), horizontal_);
        });
      } else {
        x = flip(x, image_of(x, 0, name()), horizontal_);
      }
    }
    return in;
  }

 private:
  // MindSpore's checks (RuntimeErrors, each flip with its own wording).
  void check(const Array& x) const {
    MC_CHECK(x.dtype() != DataType::String, Runtime, name(),
             horizontal_ ? ": the data type of image tensor does not match the requirement of "
                           "operator. But got "
                         : ": Currently unsupported data type: [uint32, int64, uint64, string], "
                           "but got ",
             describe(x), ".");
    MC_CHECK(x.ndim() >= 2, Runtime, name(),
             horizontal_ ? ": the image tensor should have at least two dimensions. You may need "
                           "to perform Decode first. But got shape "
                         : ": input tensor is not in shape of <H,W> or <H,W,C>, but got shape ",
             shape_str(x.shape()), ".");
  }

  double prob_;
  bool horizontal_;
};

}  // namespace

std::array<int64_t, 4> random_resized_crop_box(int64_t img_h, int64_t img_w,
                                               std::array<double, 2> scale,
                                               std::array<double, 2> ratio, int max_attempts,
                                               RowRandom* rng) {
  // MindSpore's crop box: up to max_attempts draws of an area fraction and a log-uniform
  // aspect ratio, else the whole image clipped to the ratio range, centred.
  double area = static_cast<double>(img_h) * static_cast<double>(img_w);
  double log_lo = std::log(ratio[0]), log_hi = std::log(ratio[1]);
  for (int i = 0; i < max_attempts; ++i) {
    double s = scale[0] + (scale[1] - scale[0]) * rng->uniform();
    double aspect = std::exp(log_lo + (log_hi - log_lo) * rng->uniform());
    int64_t cw = std::max<int64_t>(1, std::llround(std::sqrt(area * s * aspect)));
    int64_t ch = std::max<int64_t>(1, std::llround(static_cast<double>(cw) / aspect));
    if (cw <= img_w && ch <= img_h) {
      int64_t x0 = rng->randint(0, img_w - cw), y0 = rng->randint(0, img_h - ch);
      return {x0, y0, cw, ch};
    }
  }
  double img_aspect = static_cast<double>(img_w) / static_cast<double>(img_h);
  int64_t cw = img_w, ch = img_h;
  if (img_aspect < ratio[0]) {
    ch = std::llround(static_cast<double>(cw) / ratio[0]);
  } else if (img_aspect > ratio[1]) {
    cw = std::llround(static_cast<double>(ch) * ratio[1]);
  }
  cw = std::clamp<int64_t>(cw, 1, img_w);
  ch = std::clamp<int64_t>(ch, 1, img_h);
  return {std::llround((img_w - cw) / 2.0), std::llround((img_h - ch) / 2.0), cw, ch};
}

namespace {

class RandomResizedCrop final : public UnaryTransform {
 public:
  RandomResizedCrop(int64_t h, int64_t w, std::array<double, 2> scale, std::array<double, 2> ratio,
                    Interp interp, int max_attempts)
      : h_(h), w_(w), scale_(scale), ratio_(ratio), interp_(interp), attempts_(max_attempts) {
    check_positive_size(h, w, "RandomResizedCrop");
    MC_CHECK(scale[0] >= 0 && scale[0] <= scale[1], Value,
             "RandomResizedCrop: scale must be (min, max) with 0 <= min <= max, but got (",
             scale[0], ", ", scale[1], ").");
    MC_CHECK(ratio[0] > 0 && ratio[0] <= ratio[1], Value,
             "RandomResizedCrop: ratio must be (min, max) with 0 < min <= max, but got (", ratio[0],
             ", ", ratio[1], ").");
    MC_CHECK(max_attempts >= 1, Value, "RandomResizedCrop: max_attempts must be positive, but got ",
             max_attempts, ".");
  }
  std::string_view name() const override { return "RandomResizedCrop"; }
  bool random() const override { return true; }

 protected:
  Array apply1(const Array& x, int lead, RowRandom* rng) const override {
    check_lead0(lead, name());
    Image im = image_of(x, 0, name());
    MC_CHECK(im.h > 0 && im.w > 0, Value,
             "RandomResizedCrop: the image must not be empty, but got shape ", shape_str(x.shape()),
             ".");
    auto [x0, y0, cw, ch] = random_resized_crop_box(im.h, im.w, scale_, ratio_, attempts_, rng);
    return resize_window(x, y0, x0, ch, cw, h_, w_, interp_, name());
  }

 private:
  int64_t h_, w_;
  std::array<double, 2> scale_, ratio_;
  Interp interp_;
  int attempts_;
};

// Per-channel values repeat along the flat data: every element for HWC images, every plane
// for CHW ones; whole blocks are computed against a repeated copy of the values.
class Normalize final : public UnaryTransform {
 public:
  Normalize(std::vector<float> mean, std::vector<float> std, bool is_hwc)
      : mean_(std::move(mean)), std_(std::move(std)), hwc_(is_hwc) {
    MC_CHECK(!mean_.empty() && mean_.size() == std_.size(), Value,
             "Normalize: mean and std must have the same non-zero length, but got ", mean_.size(),
             " and ", std_.size(), ".");
    for (float s : std_) {
      MC_CHECK(s > 0, Value, "Normalize: std values must be positive, but got ", s, ".");
    }
  }
  std::string_view name() const override { return "Normalize"; }
  bool batchable() const override { return true; }

 protected:
  Array apply1(const Array& x, int lead, RowRandom*) const override {
    // Images under leading axes (<..., H, W, C>, MindSpore's video input) are a batch.
    if (lead == 0 && x.ndim() > 3) lead = static_cast<int>(x.ndim() - 3);
    Image im = image_of(x, lead, name());
    Shape sample(x.shape().begin() + lead, x.shape().end());
    int64_t channels = im.rank2 ? 1 : hwc_ ? sample[2] : sample[0];
    int64_t k = static_cast<int64_t>(mean_.size());
    // A RuntimeError in MindSpore's words (its eager Normalize raises one).
    MC_CHECK(k == 1 || k == channels, Runtime,
             "Normalize: number of channels does not match the size of mean and std vectors: "
             "the image has ",
             channels, " channels but mean and std have ", k, " values (shape ", shape_str(sample),
             ").");
    Array out = Array::empty(DataType::Float32, x.shape());
    float* dst = out.mutable_data<float>();
    int64_t n = x.numel(), plane = im.rank2 || hwc_ ? 1 : sample[1] * sample[2];
    int64_t period = k == 1 ? 1 : channels;  // elements (or planes) per channel cycle
    dispatch_data(x.dtype(), name(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* src = x.data<T>();
      if (k == 1 || plane > 1) {
        // One value, or CHW planes: each run of `plane` elements shares mean and std.
        int64_t run = k == 1 ? n : plane;
        for (int64_t start = 0, c = 0; start < n; start += run, c = (c + 1) % period) {
          normalize_run<T>(src + start, run, mean_[c], std_[c], dst + start);
        }
        return;
      }
      // HWC: a block of whole pixels against a block of repeated per-channel values.
      constexpr int64_t kPixels = 64;
      std::vector<float> m(kPixels * period), s(kPixels * period);
      for (int64_t j = 0; j < kPixels * period; ++j) {
        m[j] = mean_[j % period];
        s[j] = std_[j % period];
      }
      normalize_blocks<T>(src, n, m.data(), s.data(), kPixels * period, dst);
    });
    return out;
  }

 private:
  std::vector<float> mean_, std_;
  bool hwc_;
};

class HWC2CHW final : public UnaryTransform {
 public:
  std::string_view name() const override { return "HWC2CHW"; }
  bool batchable() const override { return true; }

 protected:
  Array apply1(const Array& x, int lead, RowRandom*) const override {
    Image im = image_of(x, lead, name());
    if (im.rank2) return x;
    Shape shape(x.shape().begin(), x.shape().begin() + lead);
    for (int64_t d : {im.c, im.h, im.w}) shape.push_back(d);
    if (im.c == 1) return x.reshaped(shape);  // the same elements in the same order
    Array out = Array::empty(x.dtype(), shape);
    int64_t batch = lead ? x.shape()[0] : 1, hw = im.h * im.w, c = im.c;
    auto run = [&](auto tag) {
      using U = typename decltype(tag)::type;  // an unsigned type of the element's size
      hwc_to_chw<U>(static_cast<const U*>(x.raw()), batch, hw, c,
                    static_cast<U*>(out.mutable_raw()));
    };
    switch (im.elem) {
      case 1:
        run(DataTag<uint8_t>{});
        break;
      case 2:
        run(DataTag<uint16_t>{});
        break;
      case 4:
        run(DataTag<uint32_t>{});
        break;
      default:
        run(DataTag<uint64_t>{});
        break;
    }
    return out;
  }
};

// ToTensor: each value divided by 255 in float32 (as MindSpore), HWC to CHW (an <H, W> image
// becomes <1, H, W>), then cast to the output dtype.
class ToTensor final : public UnaryTransform {
 public:
  explicit ToTensor(DataType out)
      : hwc2chw_(make_hwc2chw()), cast_(out == DataType::Float32 ? nullptr : make_type_cast(out)) {
    MC_CHECK(out != DataType::String, Type, "ToTensor: output_type must be a numeric type.");
  }
  std::string_view name() const override { return "ToTensor"; }

 protected:
  Array apply1(const Array& x, int lead, RowRandom*) const override {
    check_lead0(lead, name());
    DataType t = x.dtype();
    MC_CHECK(t != DataType::UInt32 && t != DataType::Int64 && t != DataType::UInt64 &&
                 t != DataType::String,
             Runtime,
             "ToTensor: Input includes unsupported data type in [uint32, int64, uint64, string, "
             "bytes]. Got ",
             describe(x), ".");
    Image im = image_of(x, 0, name());
    Array f = Array::empty(DataType::Float32, x.shape());
    float* dst = f.mutable_data<float>();
    dispatch_data(x.dtype(), name(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* src = x.data<T>();
      for (int64_t i = 0, n = x.numel(); i < n; ++i) dst[i] = static_cast<float>(src[i]) / 255.0f;
    });
    std::vector<Array> out;
    if (im.rank2) {
      out.push_back(f.reshaped(Shape{1, im.h, im.w}));
    } else {
      out = hwc2chw_->apply({std::move(f)}, 0, nullptr);
    }
    if (cast_) out = cast_->apply(std::move(out), 0, nullptr);
    return std::move(out[0]);
  }

 private:
  TransformPtr hwc2chw_, cast_;
};

// Pad: (left, top, right, bottom) pixels added with a fill value or a border mode.
class Pad final : public UnaryTransform {
 public:
  Pad(std::array<int64_t, 4> padding, std::vector<double> fill, BorderMode mode)
      : pad_(padding), fill_(std::move(fill)), mode_(mode) {
    for (int64_t p : pad_) {
      MC_CHECK(p >= 0, Value, "Pad: padding must be non-negative, but got ", p, ".");
    }
    MC_CHECK(fill_.size() == 1 || fill_.size() == 3, Value,
             "Pad: fill_value must have 1 or 3 values, but got ", fill_.size(), ".");
  }
  std::string_view name() const override { return "Pad"; }

 protected:
  Array apply1(const Array& x, int lead, RowRandom*) const override {
    check_lead0(lead, name());
    Image im = image_of(x, 0, name());
    auto [left, top, right, bottom] = pad_;
    return crop_padded(x, im, -top, -left, im.h + top + bottom, im.w + left + right, mode_,
                       fill_pixel(x, im, fill_, name()), name());
  }

 private:
  std::array<int64_t, 4> pad_;
  std::vector<double> fill_;
  BorderMode mode_;
};

class Rescale final : public UnaryTransform {
 public:
  Rescale(float rescale, float shift) : rescale_(rescale), shift_(shift) {}
  std::string_view name() const override { return "Rescale"; }
  bool batchable() const override { return true; }

 protected:
  Array apply1(const Array& x, int lead, RowRandom*) const override {
    Array out = Array::empty(DataType::Float32, x.shape());
    float* dst = out.mutable_data<float>();
    int64_t n = x.numel();
    float r = rescale_, s = shift_;
    dispatch_data(x.dtype(), name(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      rescale_loop<T>(x.data<T>(), n, r, s, dst);
    });
    return out;
  }

 private:
  float rescale_, shift_;
};

}  // namespace

Array per_image(const Array& x, std::string_view op,
                const std::function<Array(const Array&)>& one) {
  const Shape front(x.shape().begin(), x.shape().end() - 3);
  const int64_t n = mycel::numel(front);
  MC_CHECK(n > 0, Value, op, ": the images of shape ", shape_str(x.shape()), " are empty.");
  Shape flat{n};
  for (auto it = x.shape().end() - 3; it != x.shape().end(); ++it) flat.push_back(*it);
  const Array all = x.reshaped(flat);
  std::vector<Array> outs;
  for (int64_t i = 0; i < n; ++i) outs.push_back(one(all.row(i)));
  Shape shape = front;
  for (int64_t d : outs[0].shape()) shape.push_back(d);
  Array out = Array::empty(outs[0].dtype(), shape);
  const size_t bytes = outs[0].nbytes();
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(static_cast<char*>(out.mutable_raw()) + static_cast<size_t>(i) * bytes,
                outs[static_cast<size_t>(i)].raw(), bytes);
  }
  return out;
}

Array resize_window(const Array& img, int64_t y0, int64_t x0, int64_t h, int64_t w, int64_t out_h,
                    int64_t out_w, Interp interp, std::string_view op) {
  Image im = image_of(img, 0, op);
  MC_CHECK(h > 0 && w > 0, Value, op, ": the image must not be empty, but got shape ",
           shape_str(img.shape()), ".");
  MC_ASSERT(y0 >= 0 && x0 >= 0 && y0 + h <= im.h && x0 + w <= im.w, "resize window out of image");
  check_positive_size(out_h, out_w, op);
  checked_nbytes(Shape{out_h, out_w}, im.px, op);  // before any per-row or per-column table
  if (h == out_h && w == out_w) {
    return crop_padded(img, im, y0, x0, h, w, BorderMode::Edge, {}, op);
  }
  if (interp == Interp::Nearest) {  // a gather: source = floor(dst * in / out), exactly
    std::vector<int64_t> rows(out_h), cols(out_w);
    for (int64_t i = 0; i < out_h; ++i) rows[i] = y0 + std::min(i * h / out_h, h - 1);
    for (int64_t j = 0; j < out_w; ++j) cols[j] = x0 + std::min(j * w / out_w, w - 1);
    return gather(img, im, rows, cols, {});
  }
  Array out = Array::empty(img.dtype(), image_shape(im, out_h, out_w));
  auto run = [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = img.data<T>() + (y0 * im.w + x0) * im.c;
    resize_separable<T>(src, im.w * im.c, im.c, h, w, out_h, out_w, interp, out.mutable_data<T>());
  };
  switch (img.dtype()) {
    case DataType::UInt8:
      run(DataTag<uint8_t>{});
      break;
    case DataType::UInt16:
      run(DataTag<uint16_t>{});
      break;
    case DataType::Int16:
      run(DataTag<int16_t>{});
      break;
    case DataType::Float32:
      run(DataTag<float>{});
      break;
    case DataType::Float64:
      run(DataTag<double>{});
      break;
    default:
      MC_THROW(Type, op,
               ": the image must be uint8, uint16, int16, float32 or float64 to be "
               "resized, but got ",
               describe(img), ".");
  }
  return out;
}

TransformPtr make_decode() { return std::make_shared<Decode>(); }
TransformPtr make_resize(int64_t h, int64_t w, Interp interp) {
  return std::make_shared<Resize>(h, w, interp);
}
TransformPtr make_center_crop(int64_t h, int64_t w) { return std::make_shared<CenterCrop>(h, w); }
TransformPtr make_random_crop(int64_t h, int64_t w, std::array<int64_t, 4> padding,
                              bool pad_if_needed, std::vector<double> fill, BorderMode mode) {
  return std::make_shared<RandomCrop>(h, w, padding, pad_if_needed, std::move(fill), mode);
}
TransformPtr make_random_horizontal_flip(double prob) {
  return std::make_shared<RandomFlip>(prob, true);
}
TransformPtr make_random_vertical_flip(double prob) {
  return std::make_shared<RandomFlip>(prob, false);
}
TransformPtr make_random_resized_crop(int64_t h, int64_t w, std::array<double, 2> scale,
                                      std::array<double, 2> ratio, Interp interp,
                                      int max_attempts) {
  return std::make_shared<RandomResizedCrop>(h, w, scale, ratio, interp, max_attempts);
}
TransformPtr make_normalize(std::vector<float> mean, std::vector<float> std, bool is_hwc) {
  return std::make_shared<Normalize>(std::move(mean), std::move(std), is_hwc);
}
TransformPtr make_hwc2chw() { return std::make_shared<HWC2CHW>(); }
TransformPtr make_rescale(float rescale, float shift) {
  return std::make_shared<Rescale>(rescale, shift);
}
TransformPtr make_to_tensor(DataType output_type) {
  return std::make_shared<ToTensor>(output_type);
}
TransformPtr make_pad(std::array<int64_t, 4> padding, std::vector<double> fill, BorderMode mode) {
  return std::make_shared<Pad>(padding, std::move(fill), mode);
}

}  // namespace mycel::data
