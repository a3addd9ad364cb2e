// The random erasers and mixers of mindspore.dataset.vision: CutOut, RandomLighting,
// MixUpBatch, CutMixBatch, UniformAugment (declared in transforms_vision_aug.h).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <utility>

#include "data/transforms_vision_aug.h"

namespace mycel::data {

namespace {

// A fresh contiguous copy of a numeric array (the transforms below write into their output).
Array copy_of(const Array& x) {
  Array out = Array::empty(x.dtype(), x.shape());
  if (x.nbytes() > 0) std::memcpy(out.mutable_raw(), x.raw(), x.nbytes());
  return out;
}

// N(0, 1) by Box-Muller (one of the pair; the stream is per row, so nothing is cached).
double normal(RowRandom* rng) {
  double u1 = rng->uniform(), u2 = rng->uniform();
  return std::sqrt(-2.0 * std::log1p(-u1)) * std::cos(2.0 * M_PI * u2);
}

// Gamma(alpha, 1) by Marsaglia and Tsang (alpha < 1 through Gamma(alpha + 1) * U^(1/alpha)).
double gamma(double alpha, RowRandom* rng) {
  if (alpha < 1.0) {
    double u = rng->uniform();
    return gamma(alpha + 1.0, rng) * std::pow(1.0 - u, 1.0 / alpha);
  }
  double d = alpha - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double z = normal(rng), v = 1.0 + c * z;
    if (v <= 0) continue;
    v = v * v * v;
    double u = 1.0 - rng->uniform();
    if (std::log(u) < 0.5 * z * z + d - d * v + d * std::log(v)) return d * v;
  }
}

// x1 / (x1 + x2) with x1, x2 ~ Gamma(alpha, 1): a Beta(alpha, alpha) draw.
double beta_lambda(double alpha, RowRandom* rng) {
  for (;;) {
    double x1 = gamma(alpha, rng), x2 = gamma(alpha, rng);
    if (x1 + x2 > 0) return x1 / (x1 + x2);
  }
}

// v converted to T: integers rounded to nearest (ties to even, as OpenCV) and saturated.
template <class T>
T saturate(double v) {
  if constexpr (std::is_integral_v<T>) {
    if constexpr (std::is_same_v<T, bool>) {
      return v != 0;
    } else {
      double r = std::nearbyint(v);
      r = std::clamp(r, static_cast<double>(std::numeric_limits<T>::lowest()),
                     static_cast<double>(std::numeric_limits<T>::max()));
      return static_cast<T>(r);
    }
  } else {
    return static_cast<T>(v);
  }
}

// A random permutation of 0..n-1 (Fisher-Yates on the row's stream).
std::vector<int64_t> permutation(int64_t n, RowRandom* rng) {
  std::vector<int64_t> p(static_cast<size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  for (int64_t i = n - 1; i > 0; --i) std::swap(p[i], p[rng->randint(0, i)]);
  return p;
}

class CutOut final : public UnaryTransform {
 public:
  CutOut(int64_t length, int64_t patches, bool hwc) : len_(length), patches_(patches), hwc_(hwc) {
    MC_CHECK(length > 0 && patches > 0, Value,
             "CutOut: length and num_patches must be positive, but got ", length, " and ", patches,
             ".");
  }
  std::string_view name() const override { return "CutOut"; }
  bool random() const override { return true; }

 protected:
  Array apply1(const Array& x, int, RowRandom* rng) const override {
    MC_CHECK(x.dtype() != DataType::String, Type, "CutOut: the image must be numeric, but got ",
             describe(x), ".");
    MC_CHECK(x.ndim() == 3, Runtime, "CutOut: image shape is not ", hwc_ ? "<H,W,C>" : "<C,H,W>",
             ", but got rank: ", x.ndim(), " (shape ", shape_str(x.shape()), ").");
    const Shape& s = x.shape();
    int64_t h = hwc_ ? s[0] : s[1], w = hwc_ ? s[1] : s[2], c = hwc_ ? s[2] : s[0];
    MC_CHECK(len_ <= h && len_ <= w, Runtime,
             "CutOut: box size is too large for image erase, got box height: ", len_,
             " box width: ", len_, ", and image height: ", h, ", image width: ", w, ".");
    Array out = copy_of(x);
    size_t elem = data_type_size(x.dtype());
    auto* base = static_cast<char*>(out.mutable_raw());
    for (int64_t p = 0; p < patches_; ++p) {
      int64_t y0 = rng->randint(0, h + len_) - len_, x0 = rng->randint(0, w + len_) - len_;
      int64_t y1 = std::min(h, y0 + len_), x1 = std::min(w, x0 + len_);
      y0 = std::max<int64_t>(0, y0);
      x0 = std::max<int64_t>(0, x0);
      if (y0 >= y1 || x0 >= x1) continue;
      for (int64_t plane = 0; plane < (hwc_ ? 1 : c); ++plane) {
        int64_t px = hwc_ ? c : 1;  // elements per pixel
        for (int64_t y = y0; y < y1; ++y) {
          size_t at = static_cast<size_t>(((plane * h + y) * w + x0) * px) * elem;
          std::memset(base + at, 0, static_cast<size_t>((x1 - x0) * px) * elem);
        }
      }
    }
    return out;
  }

 private:
  int64_t len_, patches_;
  bool hwc_;
};

class RandomLighting final : public UnaryTransform {
 public:
  explicit RandomLighting(double alpha) : alpha_(alpha) {
    MC_CHECK(alpha >= 0, Value, "RandomLighting: alpha must be non-negative, but got ", alpha, ".");
  }
  std::string_view name() const override { return "RandomLighting"; }
  bool random() const override { return true; }

 protected:
  Array apply1(const Array& x, int, RowRandom* rng) const override {
    MC_CHECK(x.ndim() == 3 && x.shape()[2] == 3, Runtime,
             "RandomLighting: input tensor is not in shape of <H,W,C> or channel is not 3, got "
             "shape ",
             shape_str(x.shape()), ".");
    DataType t = x.dtype();
    MC_CHECK(t != DataType::UInt32 && t != DataType::UInt64 && t != DataType::Int64 &&
                 t != DataType::String && t != DataType::Bool,
             Runtime, "RandomLighting: invalid tensor type of uint32, int64, uint64, bool, string ",
             "or bytes, got ", describe(x), ".");
    // ImageNet's RGB eigenvalues times eigenvectors (AlexNet's PCA lighting noise).
    static constexpr double kEig[3][3] = {{55.46 * -0.5675, 4.794 * 0.7192, 1.148 * 0.4009},
                                          {55.46 * -0.5808, 4.794 * -0.0045, 1.148 * -0.8140},
                                          {55.46 * -0.5836, 4.794 * -0.6948, 1.148 * 0.4203}};
    double a[3];
    for (double& v : a) v = alpha_ * normal(rng);
    double pca[3];
    for (int k = 0; k < 3; ++k) {
      // float, as MindSpore computes the offsets
      pca[k] = static_cast<float>(kEig[k][0] * a[0] + kEig[k][1] * a[1] + kEig[k][2] * a[2]);
    }
    Array out = Array::empty(t, x.shape());
    dispatch_data(t, name(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* src = x.data<T>();
      T* dst = out.mutable_data<T>();
      for (int64_t i = 0, n = x.numel(); i < n; ++i) {
        dst[i] = saturate<T>(static_cast<double>(src[i]) + pca[i % 3]);
      }
    });
    return out;
  }

 private:
  double alpha_;
};

// The label checks MixUpBatch and CutMixBatch share: numeric, <N, K> or <N, L, K>, N images.
void check_labels(const Array& label, int64_t n, std::string_view op) {
  MC_CHECK(label.dtype() != DataType::String, Runtime, op,
           ": invalid label type, label must be in a numeric type, but got: ", describe(label),
           ". You may need to perform OneHot first.");
  MC_CHECK(label.ndim() == 2 || label.ndim() == 3, Runtime, op,
           ": input label is not in shape of <Batch,Class> or <Batch,Row,Class>, but got "
           "dimension: ",
           label.ndim(), ". You may need to perform OneHot and Batch first.");
  MC_CHECK(label.shape()[0] == n, Runtime, op,
           ": batch sizes of image and label must be the same, but got image size: ", n,
           " and label size: ", label.shape()[0], ".");
}

// Labels as float32.
std::vector<float> labels_f32(const Array& label, std::string_view op) {
  std::vector<float> v(static_cast<size_t>(label.numel()));
  dispatch_data(label.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = label.data<T>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(p[i]);
  });
  return v;
}

Array f32_array(const std::vector<float>& v, const Shape& shape) {
  Array out = Array::empty(DataType::Float32, shape);
  std::memcpy(out.mutable_raw(), v.data(), v.size() * sizeof(float));
  return out;
}

class MixUpBatch final : public Transform {
 public:
  explicit MixUpBatch(double alpha) : alpha_(alpha) {
    MC_CHECK(alpha > 0, Value, "MixUpBatch: alpha must be positive, but got ", alpha, ".");
  }
  std::string_view name() const override { return "MixUpBatch"; }
  bool random() const override { return true; }

  std::vector<Array> apply(std::vector<Array> in, int, RowRandom* rng) const override {
    MC_CHECK(in.size() == 2, Runtime,
             "MixUpBatch: size of input data should be 2 (including images or labels), but got: ",
             in.size(), ", check 'input_columns' when call this operator.");
    const Array &img = in[0], &label = in[1];
    MC_CHECK(img.ndim() == 4, Runtime,
             "MixUpBatch: rank of image shape should be: 4, but got: ", img.ndim(),
             ", make sure image shape are <H,W,C> or <C,H,W> and batched before ",
             "calling MixUpBatch.");
    int64_t n = img.shape()[0];
    check_labels(label, n, name());
    const Shape& s = img.shape();
    MC_CHECK(s[1] == 1 || s[1] == 3 || s[3] == 1 || s[3] == 3, Runtime,
             "MixUpBatch: images shape should in <N,H,W,C> or <N,C,H,W>, got shape:", shape_str(s));
    double lam = beta_lambda(alpha_, rng);
    std::vector<int64_t> p = permutation(n, rng);
    std::vector<float> lab = labels_f32(label, name()), mixed(lab.size());
    int64_t per_label = n ? label.numel() / n : 0;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < per_label; ++j) {
        mixed[i * per_label + j] = static_cast<float>(lam * lab[i * per_label + j] +
                                                      (1 - lam) * lab[p[i] * per_label + j]);
      }
    }
    Array out = Array::empty(img.dtype(), s);
    int64_t per_img = n ? img.numel() / n : 0;
    dispatch_data(img.dtype(), name(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* src = img.data<T>();
      T* dst = out.mutable_data<T>();
      for (int64_t i = 0; i < n; ++i) {
        const T *a = src + i * per_img, *b = src + p[i] * per_img;
        for (int64_t j = 0; j < per_img; ++j) {
          dst[i * per_img + j] =
              saturate<T>(lam * static_cast<double>(a[j]) + (1 - lam) * static_cast<double>(b[j]));
        }
      }
    });
    return {out, f32_array(mixed, label.shape())};
  }

 private:
  double alpha_;
};

class CutMixBatch final : public Transform {
 public:
  CutMixBatch(bool nchw, double alpha, double prob) : nchw_(nchw), alpha_(alpha), prob_(prob) {
    MC_CHECK(alpha > 0 && prob >= 0 && prob <= 1, Value,
             "CutMixBatch: alpha must be positive and prob in [0, 1], but got ", alpha, " and ",
             prob, ".");
  }
  std::string_view name() const override { return "CutMixBatch"; }
  bool random() const override { return true; }

  std::vector<Array> apply(std::vector<Array> in, int, RowRandom* rng) const override {
    MC_CHECK(in.size() == 2, Runtime,
             "CutMixBatch: invalid input size, input should have 2 columns (image and label), but "
             "got: ",
             in.size());
    const Array &img = in[0], &label = in[1];
    MC_CHECK(img.ndim() == 4, Runtime,
             "CutMixBatch: input image is not in shape of <B,H,W,C> or <B,C,H,W>, but got "
             "dimension: ",
             img.ndim(), img.ndim() == 3 ? ". You may need to perform Batch first." : ".");
    MC_CHECK(img.dtype() != DataType::String, Runtime, "CutMixBatch: the images must be numeric.");
    const Shape& s = img.shape();
    int64_t n = s[0], c = nchw_ ? s[1] : s[3], h = nchw_ ? s[2] : s[1], w = nchw_ ? s[3] : s[2];
    MC_CHECK(c == 1 || c == 3, Runtime,
             "CutMixBatch: input image is not in channel of 1 or 3, but got channel: ", c);
    check_labels(label, n, name());
    std::vector<int64_t> p = permutation(n, rng);
    std::vector<float> lab = labels_f32(label, name()), mixed = lab;
    int64_t per_label = n ? label.numel() / n : 0;
    Array out = copy_of(img);
    size_t elem = data_type_size(img.dtype());
    size_t per_img = static_cast<size_t>(c * h * w) * elem;
    const auto* src = static_cast<const char*>(img.raw());
    auto* dst = static_cast<char*>(out.mutable_raw());
    for (int64_t i = 0; i < n; ++i) {
      double lam = beta_lambda(alpha_, rng);
      if (!(rng->uniform() < prob_)) continue;
      // MindSpore's box: sides sqrt(1 - lam) times the image's, the centre uniform, clipped.
      double cut = std::sqrt(1.0 - lam);
      auto cut_w = static_cast<int64_t>(static_cast<float>(w) * static_cast<float>(cut));
      auto cut_h = static_cast<int64_t>(static_cast<float>(h) * static_cast<float>(cut));
      int64_t cx = rng->randint(0, w), cy = rng->randint(0, h);
      int64_t x0 = std::clamp<int64_t>(cx - cut_w / 2, 0, w - 1);
      int64_t y0 = std::clamp<int64_t>(cy - cut_h / 2, 0, h - 1);
      int64_t x1 = std::clamp<int64_t>(cx + cut_w / 2, 0, w - 1);
      int64_t y1 = std::clamp<int64_t>(cy + cut_h / 2, 0, h - 1);
      int64_t bw = std::clamp<int64_t>(x1 - x0, 1, std::max<int64_t>(w - 1, 1));
      int64_t bh = std::clamp<int64_t>(y1 - y0, 1, std::max<int64_t>(h - 1, 1));
      bw = std::min(bw, w - x0);
      bh = std::min(bh, h - y0);
      const char* from = src + static_cast<size_t>(p[i]) * per_img;
      char* to = dst + static_cast<size_t>(i) * per_img;
      for (int64_t plane = 0; plane < (nchw_ ? c : 1); ++plane) {
        int64_t px = nchw_ ? 1 : c;
        for (int64_t y = y0; y < y0 + bh; ++y) {
          size_t at = static_cast<size_t>(((plane * h + y) * w + x0) * px) * elem;
          std::memcpy(to + at, from + at, static_cast<size_t>(bw * px) * elem);
        }
      }
      double label_lam = 1.0 - static_cast<double>(bw * bh) / static_cast<double>(h * w);
      for (int64_t j = 0; j < per_label; ++j) {
        mixed[i * per_label + j] = static_cast<float>(label_lam * lab[i * per_label + j] +
                                                      (1 - label_lam) * lab[p[i] * per_label + j]);
      }
    }
    return {out, f32_array(mixed, label.shape())};
  }

 private:
  bool nchw_;
  double alpha_, prob_;
};

class UniformAugment final : public Transform {
 public:
  UniformAugment(std::vector<std::vector<TransformPtr>> ops, int64_t num_ops)
      : ops_(std::move(ops)), num_ops_(num_ops) {
    MC_CHECK(num_ops > 0 && num_ops <= static_cast<int64_t>(ops_.size()), Value,
             "UniformAugment: num_ops must be in [1, ", ops_.size(), "], but got ", num_ops, ".");
  }
  std::string_view name() const override { return "UniformAugment"; }
  bool random() const override { return true; }

  std::vector<Array> apply(std::vector<Array> in, int lead, RowRandom* rng) const override {
    // Selection sampling: num_ops of the operations, kept in list order (as std::sample).
    int64_t need = num_ops_, left = static_cast<int64_t>(ops_.size());
    for (const auto& chain : ops_) {
      bool take = rng->randint(0, left - 1) < need;
      --left;
      if (!take) continue;
      --need;
      if (rng->randint(0, 1) != 0) continue;  // each chosen one applied with probability 1/2
      for (const auto& t : chain) in = t->apply(std::move(in), lead, rng);
    }
    return in;
  }

 private:
  std::vector<std::vector<TransformPtr>> ops_;
  int64_t num_ops_;
};

// MindSpore's ValidateImage for PadToSize: rank 2 or 3, 1 or 3 channels, no 64-bit integers.
void check_pad_to_size_image(const Array& x) {
  DataType t = x.dtype();
  MC_CHECK(t != DataType::String && t != DataType::Int64 && t != DataType::UInt64 &&
               t != DataType::UInt32,
           Runtime,
           "PadToSize: the data type of image tensor does not match the requirement of operator. "
           "Expecting tensor in type of (bool, int8, uint8, int16, uint16, int32, float16, "
           "float32, float64). But got ",
           describe(x), ".");
  MC_CHECK(x.ndim() == 2 || x.ndim() == 3, Runtime,
           "PadToSize: the dimension of image tensor does not match the requirement of operator. "
           "Expecting tensor in dimension of (2, 3). But got dimension ",
           x.ndim(), ".");
  MC_CHECK(x.ndim() == 2 || x.shape()[2] == 1 || x.shape()[2] == 3, Runtime,
           "PadToSize: the channel of image tensor does not match the requirement of operator. "
           "Expecting tensor in channel of (1, 3). But got channel ",
           x.shape()[2], ".");
}

class PadToSize final : public UnaryTransform {
 public:
  PadToSize(std::array<int64_t, 2> size, std::vector<int64_t> offset, std::vector<double> fill,
            BorderMode mode)
      : size_(size), offset_(std::move(offset)), fill_(std::move(fill)), mode_(mode) {
    MC_CHECK(offset_.size() <= 2, Value, "PadToSize: offset must have 0, 1 or 2 values.");
  }
  std::string_view name() const override { return "PadToSize"; }

 protected:
  Array apply1(const Array& x, int, RowRandom*) const override {
    check_pad_to_size_image(x);
    int64_t h = x.shape()[0], w = x.shape()[1];
    MC_CHECK(h <= size_[0] && w <= size_[1], Runtime,
             "PadToSize: the target size to pad should be no less than the original image size, "
             "but got target size (",
             size_[0], ", ", size_[1], ") and original size (", h, ", ", w, ").");
    int64_t top, left;
    if (offset_.empty()) {  // centred, the odd pixel at the bottom / right
      top = static_cast<int64_t>(static_cast<float>(size_[0] - h) * 0.5f);
      left = static_cast<int64_t>(static_cast<float>(size_[1] - w) * 0.5f);
    } else {
      top = offset_[0];
      left = offset_.back();
    }
    int64_t bottom = size_[0] - h - top, right = size_[1] - w - left;
    MC_CHECK(bottom >= 0 && right >= 0, Runtime,
             "PadToSize: the sum of offset and original image size should be no more than the "
             "target size to pad, but got offset (",
             top, ", ", left, ") plus original size (", h, ", ", w, ") bigger than (", size_[0],
             ", ", size_[1], ")");
    if (top == 0 && left == 0 && bottom == 0 && right == 0) return x;
    return make_pad({left, top, right, bottom}, fill_, mode_)->apply({x}, 0, nullptr)[0];
  }

 private:
  std::array<int64_t, 2> size_;
  std::vector<int64_t> offset_;
  std::vector<double> fill_;
  BorderMode mode_;
};

class RandomResize final : public UnaryTransform {
 public:
  RandomResize(int64_t h, int64_t w) {
    for (Interp m : {Interp::Linear, Interp::Nearest, Interp::Cubic, Interp::Area}) {
      resizes_.push_back(make_resize(h, w, m));
    }
  }
  std::string_view name() const override { return "RandomResize"; }
  bool random() const override { return true; }

 protected:
  Array apply1(const Array& x, int, RowRandom* rng) const override {
    return resizes_[rng->randint(0, 3)]->apply({x}, 0, nullptr)[0];
  }

 private:
  std::vector<TransformPtr> resizes_;
};

}  // namespace

TransformPtr make_cut_out(int64_t length, int64_t num_patches, bool is_hwc) {
  return std::make_shared<CutOut>(length, num_patches, is_hwc);
}
TransformPtr make_random_lighting(double alpha) { return std::make_shared<RandomLighting>(alpha); }
TransformPtr make_mix_up_batch(double alpha) { return std::make_shared<MixUpBatch>(alpha); }
TransformPtr make_cut_mix_batch(bool nchw, double alpha, double prob) {
  return std::make_shared<CutMixBatch>(nchw, alpha, prob);
}
TransformPtr make_pad_to_size(std::array<int64_t, 2> size, std::vector<int64_t> offset,
                              std::vector<double> fill, BorderMode mode) {
  return std::make_shared<PadToSize>(size, std::move(offset), std::move(fill), mode);
}
TransformPtr make_random_resize(int64_t h, int64_t w) {
  return std::make_shared<RandomResize>(h, w);
}
TransformPtr make_uniform_augment(std::vector<std::vector<TransformPtr>> ops, int64_t num_ops) {
  return std::make_shared<UniformAugment>(std::move(ops), num_ops);
}

}  // namespace mycel::data
