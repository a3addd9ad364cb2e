// The bounding-box transforms of mindspore.dataset.vision (declared in transforms_vision_aug.h):
// the image goes through the plain transform (crop, flip, resize), the boxes follow it as
// MindSpore's BoundingBox helpers compute them, in float32.
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "data/transforms_vision_aug.h"

namespace mycel::data {

namespace {

constexpr float kEps = 1e-4f;

// Boxes <N, D> (D >= 4) as float32 values, row-major.
struct Boxes {
  int64_t n = 0, d = 4;
  std::vector<float> v;
  float& at(int64_t i, int k) { return v[static_cast<size_t>(i * d + k)]; }
  Array to_array() const {
    Array out = Array::empty(DataType::Float32, Shape{n, d});
    if (!v.empty()) std::memcpy(out.mutable_raw(), v.data(), v.size() * sizeof(float));
    return out;
  }
};

// MindSpore's ValidateBoundingBoxes: two columns, a decoded image, boxes <N, >= 4> inside it.
Boxes read_boxes(const std::vector<Array>& in, std::string_view op) {
  MC_CHECK(in.size() == 2, Runtime, op,
           ": BoundingBox: invalid input, size of input data should be 2 (including image and "
           "bounding box), but got: ",
           in.size());
  const Array &img = in[0], &box = in[1];
  MC_CHECK(box.ndim() >= 2, Runtime, op,
           ": BoundingBox: bounding boxes should have to be two-dimensional matrix at least, but "
           "got ",
           box.ndim(), " dimension.");
  MC_CHECK(img.ndim() >= 2 && img.dtype() != DataType::String, Runtime, op,
           ": Invalid data, input image hasn't been decoded, you may need to perform Decode "
           "first (got ",
           describe(img), ").");
  MC_CHECK(box.shape()[1] >= 4, Runtime, op,
           ": BoundingBox: bounding boxes should be have at least 4 features, but got: ",
           box.shape()[1]);
  Boxes b;
  b.n = box.shape()[0];
  b.d = box.numel() / std::max<int64_t>(b.n, 1);
  if (b.n == 0) b.d = box.shape()[1];
  b.v.resize(static_cast<size_t>(box.numel()));
  dispatch_data(box.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = box.data<T>();
    for (size_t i = 0; i < b.v.size(); ++i) b.v[i] = static_cast<float>(p[i]);
  });
  auto img_h = static_cast<float>(img.shape()[0]), img_w = static_cast<float>(img.shape()[1]);
  for (int64_t i = 0; i < b.n; ++i) {
    float x = b.at(i, 0), y = b.at(i, 1), w = b.at(i, 2), h = b.at(i, 3);
    MC_CHECK(!(x + w - img_w > kEps || y + h - img_h > kEps), Runtime, op,
             ": BoundingBox: bounding boxes is out of bounds of the image, as image width: ", img_w,
             ", bbox width coordinate: ", x + w, ", and image height: ", img_h,
             ", bbox height coordinate: ", y + h);
    MC_CHECK(!(x < -kEps || y < -kEps), Runtime, op,
             ": BoundingBox: the coordinates of the bounding boxes has negative value, got: (", x,
             ",", y, ").");
  }
  return b;
}

// MindSpore's UpdateBBoxesForCrop: boxes overlapping the window [x0, x1] x [y0, y1] cut to it
// and moved to its origin; the others dropped.
Boxes crop_boxes(Boxes b, float x0, float y0, float x1, float y1) {
  Boxes out;
  out.d = b.d;
  for (int64_t i = 0; i < b.n; ++i) {
    float bx = b.at(i, 0), by = b.at(i, 1), bx1 = bx + b.at(i, 2), by1 = by + b.at(i, 3);
    if (bx > x1 || by > y1 || bx1 < x0 || by1 < y0) continue;
    float nx0 = std::max(0.f, std::max(bx, x0) - x0), ny0 = std::max(0.f, std::max(by, y0) - y0);
    float nx1 = std::min(std::min(bx1, x1) - x0, x1 - x0);
    float ny1 = std::min(std::min(by1, y1) - y0, y1 - y0);
    size_t at = out.v.size();
    out.v.insert(out.v.end(), b.v.begin() + i * b.d, b.v.begin() + (i + 1) * b.d);
    out.v[at] = nx0;
    out.v[at + 1] = ny0;
    out.v[at + 2] = nx1 - nx0;
    out.v[at + 3] = ny1 - ny0;
    ++out.n;
  }
  return out;
}

// MindSpore's UpdateBBoxesForResize.
void scale_boxes(Boxes& b, float sx, float sy) {
  for (int64_t i = 0; i < b.n; ++i) {
    b.at(i, 0) *= sx;
    b.at(i, 1) *= sy;
    b.at(i, 2) *= sx;
    b.at(i, 3) *= sy;
  }
}

// The window [y, y + h) x [x, x + w) of an <H, W[, C]> image (inside it), a copy.
Array crop(const Array& img, int64_t x, int64_t y, int64_t w, int64_t h) {
  Shape shape = img.shape();
  shape[0] = h;
  shape[1] = w;
  Array out = Array::empty(img.dtype(), shape);
  size_t px =
      data_type_size(img.dtype()) *
      static_cast<size_t>(img.numel() / std::max<int64_t>(1, img.shape()[0] * img.shape()[1]));
  const auto* src = static_cast<const char*>(img.raw());
  auto* dst = static_cast<char*>(out.mutable_raw());
  int64_t img_w = img.shape()[1];
  for (int64_t r = 0; r < h; ++r) {
    std::memcpy(dst + static_cast<size_t>(r * w) * px,
                src + static_cast<size_t>((y + r) * img_w + x) * px, static_cast<size_t>(w) * px);
  }
  return out;
}

// img's window at (x, y) overwritten by patch (same dtype, channels, and inside img).
void paste(Array& img, const Array& patch, int64_t x, int64_t y) {
  size_t px =
      data_type_size(img.dtype()) *
      static_cast<size_t>(img.numel() / std::max<int64_t>(1, img.shape()[0] * img.shape()[1]));
  int64_t img_w = img.shape()[1], h = patch.shape()[0], w = patch.shape()[1];
  const auto* src = static_cast<const char*>(patch.raw());
  auto* dst = static_cast<char*>(img.mutable_raw());
  for (int64_t r = 0; r < h; ++r) {
    std::memcpy(dst + static_cast<size_t>((y + r) * img_w + x) * px,
                src + static_cast<size_t>(r * w) * px, static_cast<size_t>(w) * px);
  }
}

// A mirrored copy (left-right when horizontal, else top-bottom).
Array flip(const Array& img, bool horizontal) {
  Array out = Array::empty(img.dtype(), img.shape());
  int64_t h = img.shape()[0], w = img.shape()[1];
  size_t px =
      data_type_size(img.dtype()) * static_cast<size_t>(img.numel() / std::max<int64_t>(1, h * w));
  const auto* src = static_cast<const char*>(img.raw());
  auto* dst = static_cast<char*>(out.mutable_raw());
  for (int64_t r = 0; r < h; ++r) {
    if (!horizontal) {
      std::memcpy(dst + static_cast<size_t>(r * w) * px,
                  src + static_cast<size_t>((h - 1 - r) * w) * px, static_cast<size_t>(w) * px);
      continue;
    }
    for (int64_t c = 0; c < w; ++c) {
      std::memcpy(dst + static_cast<size_t>(r * w + c) * px,
                  src + static_cast<size_t>(r * w + (w - 1 - c)) * px, px);
    }
  }
  return out;
}

void check_image(const Array& img, std::string_view op) {
  MC_CHECK(img.ndim() == 2 || img.ndim() == 3, Runtime, op,
           ": the image must be <H, W> or <H, W, C>, but got shape ", shape_str(img.shape()), ".");
}

class RandomCropWithBBox final : public Transform {
 public:
  RandomCropWithBBox(int64_t h, int64_t w, std::array<int64_t, 4> padding, bool pad_if_needed,
                     std::vector<double> fill, BorderMode mode)
      : h_(h), w_(w), pad_(padding), pad_if_needed_(pad_if_needed), fill_(fill), mode_(mode) {
    MC_CHECK(h > 0 && w > 0, Value, "RandomCropWithBBox: the size must be positive, but got (", h,
             ", ", w, ").");
  }
  std::string_view name() const override { return "RandomCropWithBBox"; }
  bool random() const override { return true; }

  std::vector<Array> apply(std::vector<Array> in, int, RowRandom* rng) const override {
    Boxes b = read_boxes(in, name());
    Array img = in[0];
    check_image(img, name());
    auto [left, top, right, bottom] = pad_;
    int64_t ih = img.shape()[0], iw = img.shape()[1];
    MC_CHECK(top < 3 * ih && bottom < 3 * ih && left < 3 * iw && right < 3 * iw, Runtime,
             "RandomCropWithBBox: padding size is three times bigger than the image size, padding "
             "top: ",
             top, ", padding bottom: ", bottom, ", padding left: ", left,
             ", padding right: ", right, ", image shape: ", ih, ", ", iw);
    int64_t ph = ih + top + bottom, pw = iw + left + right;
    if (pad_if_needed_ && ph < h_) {  // the shortfall on both sides
      top += h_ - ph;
      bottom += h_ - ph;
      ph += 2 * (h_ - ph);
    }
    if (pad_if_needed_ && pw < w_) {
      left += w_ - pw;
      right += w_ - pw;
      pw += 2 * (w_ - pw);
    }
    if (left || top || right || bottom) {
      img = make_pad({left, top, right, bottom}, fill_, mode_)->apply({img}, 0, nullptr)[0];
      for (int64_t i = 0; i < b.n; ++i) {
        b.at(i, 0) += static_cast<float>(left);
        b.at(i, 1) += static_cast<float>(top);
      }
    }
    if (ph == h_ && pw == w_) return {img, b.to_array()};
    MC_CHECK(ph >= h_ && pw >= w_, Runtime,
             "RandomCropWithBBox: invalid crop size, crop size is bigger than the image "
             "dimensions, got crop height: ",
             h_, ", crop width: ", w_, " (the padded image is ", ph, " x ", pw, ").");
    int64_t x = rng->randint(0, pw - w_), y = rng->randint(0, ph - h_);
    b = crop_boxes(std::move(b), static_cast<float>(x), static_cast<float>(y),
                   static_cast<float>(x + w_), static_cast<float>(y + h_));
    return {crop(img, x, y, w_, h_), b.to_array()};
  }

 private:
  int64_t h_, w_;
  std::array<int64_t, 4> pad_;
  bool pad_if_needed_;
  std::vector<double> fill_;
  BorderMode mode_;
};

class RandomFlipWithBBox final : public Transform {
 public:
  RandomFlipWithBBox(double prob, bool horizontal) : prob_(prob), horizontal_(horizontal) {}
  std::string_view name() const override {
    return horizontal_ ? "RandomHorizontalFlipWithBBox" : "RandomVerticalFlipWithBBox";
  }
  bool random() const override { return true; }

  std::vector<Array> apply(std::vector<Array> in, int, RowRandom* rng) const override {
    Boxes b = read_boxes(in, name());
    check_image(in[0], name());
    if (!rng->bernoulli(prob_)) return {in[0], b.to_array()};
    auto size = static_cast<float>(in[0].shape()[horizontal_ ? 1 : 0]);
    int k = horizontal_ ? 0 : 1;
    for (int64_t i = 0; i < b.n; ++i) b.at(i, k) = size - b.at(i, k) - b.at(i, k + 2);
    return {flip(in[0], horizontal_), b.to_array()};
  }

 private:
  double prob_;
  bool horizontal_;
};

// Resize of the image and the boxes (ResizeWithBBox; RandomResizeWithBBox with a random
// interpolation).
std::vector<Array> resize_with_boxes(const std::vector<Array>& in, int64_t h, int64_t w,
                                     Interp interp, std::string_view op) {
  Boxes b = read_boxes(in, op);
  check_image(in[0], op);
  Array out = make_resize(h, w, interp)->apply({in[0]}, 0, nullptr)[0];
  scale_boxes(b, static_cast<float>(out.shape()[1]) / static_cast<float>(in[0].shape()[1]),
              static_cast<float>(out.shape()[0]) / static_cast<float>(in[0].shape()[0]));
  return {out, b.to_array()};
}

class ResizeWithBBox final : public Transform {
 public:
  ResizeWithBBox(int64_t h, int64_t w, Interp interp) : h_(h), w_(w), interp_(interp) {}
  std::string_view name() const override { return "ResizeWithBBox"; }
  std::vector<Array> apply(std::vector<Array> in, int, RowRandom*) const override {
    return resize_with_boxes(in, h_, w_, interp_, name());
  }

 private:
  int64_t h_, w_;
  Interp interp_;
};

class RandomResizeWithBBox final : public Transform {
 public:
  RandomResizeWithBBox(int64_t h, int64_t w) : h_(h), w_(w) {}
  std::string_view name() const override { return "RandomResizeWithBBox"; }
  bool random() const override { return true; }
  std::vector<Array> apply(std::vector<Array> in, int, RowRandom* rng) const override {
    static constexpr Interp kModes[] = {Interp::Linear, Interp::Nearest, Interp::Cubic,
                                        Interp::Area};
    return resize_with_boxes(in, h_, w_, kModes[rng->randint(0, 3)], name());
  }

 private:
  int64_t h_, w_;
};

class RandomResizedCropWithBBox final : public Transform {
 public:
  RandomResizedCropWithBBox(int64_t h, int64_t w, std::array<double, 2> scale,
                            std::array<double, 2> ratio, Interp interp, int attempts)
      : h_(h), w_(w), scale_(scale), ratio_(ratio), interp_(interp), attempts_(attempts) {
    MC_CHECK(ratio[0] > 0 && ratio[0] <= ratio[1] && scale[0] >= 0 && scale[0] <= scale[1] &&
                 attempts >= 1,
             Value, "RandomResizedCropWithBBox: invalid scale, ratio or max_attempts.");
  }
  std::string_view name() const override { return "RandomResizedCropWithBBox"; }
  bool random() const override { return true; }
  std::vector<Array> apply(std::vector<Array> in, int, RowRandom* rng) const override {
    Boxes b = read_boxes(in, name());
    check_image(in[0], name());
    int64_t ih = in[0].shape()[0], iw = in[0].shape()[1];
    MC_CHECK(ih > 0 && iw > 0, Runtime, name(), ": the image must not be empty.");
    auto [x, y, cw, ch] = random_resized_crop_box(ih, iw, scale_, ratio_, attempts_, rng);
    b = crop_boxes(std::move(b), static_cast<float>(x), static_cast<float>(y),
                   static_cast<float>(x + cw), static_cast<float>(y + ch));
    Array out = resize_window(in[0], y, x, ch, cw, h_, w_, interp_, name());
    scale_boxes(b, static_cast<float>(w_) / static_cast<float>(cw),
                static_cast<float>(h_) / static_cast<float>(ch));
    return {out, b.to_array()};
  }

 private:
  int64_t h_, w_;
  std::array<double, 2> scale_, ratio_;
  Interp interp_;
  int attempts_;
};

class BoundingBoxAugment final : public Transform {
 public:
  BoundingBoxAugment(std::vector<TransformPtr> ops, double ratio)
      : ops_(std::move(ops)), ratio_(ratio) {
    MC_CHECK(!ops_.empty() && ratio >= 0 && ratio <= 1, Value,
             "BoundingBoxAugment: needs a transform and a ratio in [0, 1].");
  }
  std::string_view name() const override { return "BoundingBoxAugment"; }
  bool random() const override { return true; }
  std::vector<Array> apply(std::vector<Array> in, int, RowRandom* rng) const override {
    Boxes b = read_boxes(in, name());
    check_image(in[0], name());
    Array img = in[0];
    bool copied = false;
    for (int64_t i = 0; i < b.n; ++i) {
      if (!(rng->uniform() < ratio_)) continue;
      auto x = static_cast<int64_t>(b.at(i, 0)), y = static_cast<int64_t>(b.at(i, 1));
      auto w = static_cast<int64_t>(b.at(i, 2)), h = static_cast<int64_t>(b.at(i, 3));
      w = std::min(w, img.shape()[1] - x);  // a box reaching the edge within the tolerance
      h = std::min(h, img.shape()[0] - y);
      MC_CHECK(w > 0 && h > 0, Runtime, name(), ": the box (", b.at(i, 0), ", ", b.at(i, 1), ", ",
               b.at(i, 2), ", ", b.at(i, 3), ") is empty in whole pixels; Crop needs a positive ",
               "size.");
      std::vector<Array> part{crop(img, x, y, w, h)};
      for (const auto& t : ops_) part = t->apply(std::move(part), 0, rng);
      MC_CHECK(part.size() == 1, Runtime, name(), ": the transform must give one image, but gave ",
               part.size(), ".");
      Array res = part[0];
      if (res.ndim() < 2 || res.shape()[0] != h || res.shape()[1] != w) {
        res = make_resize(h, w, Interp::Linear)->apply({res}, 0, nullptr)[0];
      }
      MC_CHECK(res.dtype() == img.dtype() &&
                   res.numel() == w * h * (img.numel() / (img.shape()[0] * img.shape()[1])),
               Runtime, name(), ": the transform changed the image's dtype or channels (",
               describe(res), " for a ", describe(img), " image).");
      if (!copied) {
        Array c = Array::empty(img.dtype(), img.shape());
        std::memcpy(c.mutable_raw(), img.raw(), img.nbytes());
        img = c;
        copied = true;
      }
      paste(img, res, x, y);
    }
    return {img, b.to_array()};
  }

 private:
  std::vector<TransformPtr> ops_;
  double ratio_;
};

}  // namespace

TransformPtr make_random_crop_with_bbox(int64_t h, int64_t w, std::array<int64_t, 4> padding,
                                        bool pad_if_needed, std::vector<double> fill,
                                        BorderMode mode) {
  return std::make_shared<RandomCropWithBBox>(h, w, padding, pad_if_needed, std::move(fill), mode);
}
TransformPtr make_random_flip_with_bbox(double prob, bool horizontal) {
  return std::make_shared<RandomFlipWithBBox>(prob, horizontal);
}
TransformPtr make_resize_with_bbox(int64_t h, int64_t w, Interp interp) {
  return std::make_shared<ResizeWithBBox>(h, w, interp);
}
TransformPtr make_random_resize_with_bbox(int64_t h, int64_t w) {
  return std::make_shared<RandomResizeWithBBox>(h, w);
}
TransformPtr make_random_resized_crop_with_bbox(int64_t h, int64_t w, std::array<double, 2> scale,
                                                std::array<double, 2> ratio, Interp interp,
                                                int max_attempts) {
  return std::make_shared<RandomResizedCropWithBBox>(h, w, scale, ratio, interp, max_attempts);
}
TransformPtr make_bounding_box_augment(std::vector<TransformPtr> ops, double ratio) {
  return std::make_shared<BoundingBoxAugment>(std::move(ops), ratio);
}

}  // namespace mycel::data
