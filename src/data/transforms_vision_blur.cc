// GaussianBlur (declared in transforms_vision_policy.h): OpenCV's separable Gaussian filter.
// uint8 follows OpenCV's bit-exact path (GaussianBlurFixedPoint): the kernel computed in
// double, turned into 8-bit fixed point by error diffusion so that it sums to exactly 256, a
// horizontal pass into 8.8 fixed point, a vertical pass into 16.16, one rounding at the end.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "data/transforms_vision_policy.h"

namespace mycel::data {

namespace {

// OpenCV's getGaussianKernelBitExact: small kernels with sigma <= 0 are binomial; otherwise
// exp(-x^2 / (2 sigma^2)) normalised, sigma <= 0 meaning 0.15 * n + 0.35.
std::vector<double> gaussian_kernel(int64_t n, double sigma) {
  if (sigma <= 0) {
    if (n == 1) return {1.0};
    if (n == 3) return {0.25, 0.5, 0.25};
    if (n == 5) return {0.0625, 0.25, 0.375, 0.25, 0.0625};
    if (n == 7) return {0.03125, 0.109375, 0.21875, 0.28125, 0.21875, 0.109375, 0.03125};
  }
  double s = sigma > 0 ? sigma : static_cast<double>(n) * 0.15 + 0.35;
  double scale = -0.125 / (s * s);
  int64_t half = (n - 1) / 2;
  std::vector<double> values(static_cast<size_t>(half));
  double sum = 0;
  for (int64_t i = 0, x = 1 - n; i < half; ++i, x += 2) {
    values[static_cast<size_t>(i)] = std::exp(static_cast<double>(x * x) * scale);
    sum += values[static_cast<size_t>(i)];
  }
  sum = sum * 2 + 1;
  double mul = 1.0 / sum;
  std::vector<double> k(static_cast<size_t>(n));
  for (int64_t i = 0; i < half; ++i) {
    k[static_cast<size_t>(i)] = k[static_cast<size_t>(n - 1 - i)] =
        values[static_cast<size_t>(i)] * mul;
  }
  k[static_cast<size_t>(half)] = mul;
  return k;
}

// OpenCV's getGaussianKernelFixedPoint_ED with 8 fraction bits: the outer taps rounded with
// the rounding error carried inwards, the centre taking what makes the sum 256.
std::vector<uint32_t> fixed_kernel(const std::vector<double>& k) {
  size_t n = k.size(), half = n / 2;
  std::vector<uint32_t> out(n);
  double err = 0;
  int64_t sum = 0;
  for (size_t i = 0; i < half; ++i) {
    double adj = k[i] * 256.0 + err;
    auto v = static_cast<int64_t>(std::nearbyint(adj));
    err = adj - static_cast<double>(v);
    out[i] = out[n - 1 - i] = static_cast<uint32_t>(v);
    sum += v;
  }
  out[half] = static_cast<uint32_t>(256 - 2 * sum);
  return out;
}

// BORDER_REFLECT_101 index (gfedcb|abcdefgh|gfedcba); a single pixel repeats.
int64_t reflect101(int64_t i, int64_t n) {
  if (n == 1) return 0;
  while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;
  return i;
}

// The taps of one axis: for each output position, the source indices of the kernel's taps.
std::vector<int64_t> tap_index(int64_t n, int64_t k) {
  std::vector<int64_t> idx(static_cast<size_t>(n * k));
  int64_t r = k / 2;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t t = 0; t < k; ++t) idx[static_cast<size_t>(i * k + t)] = reflect101(i + t - r, n);
  }
  return idx;
}

Array blur_u8(const Array& x, int64_t h, int64_t w, int64_t c, const std::vector<uint32_t>& kx,
              const std::vector<uint32_t>& ky) {
  auto nx = static_cast<int64_t>(kx.size()), ny = static_cast<int64_t>(ky.size());
  std::vector<int64_t> ix = tap_index(w, nx), iy = tap_index(h, ny);
  const uint8_t* src = x.data<uint8_t>();
  std::vector<uint16_t> rows(static_cast<size_t>(h * w * c));  // 8.8 fixed point
  for (int64_t y = 0; y < h; ++y) {
    const uint8_t* line = src + y * w * c;
    for (int64_t xx = 0; xx < w; ++xx) {
      for (int64_t ch = 0; ch < c; ++ch) {
        uint32_t acc = 0;
        for (int64_t t = 0; t < nx; ++t) acc += kx[t] * line[ix[xx * nx + t] * c + ch];
        rows[static_cast<size_t>((y * w + xx) * c + ch)] =
            static_cast<uint16_t>(std::min<uint32_t>(acc, 0xffff));
      }
    }
  }
  Array out = Array::empty(DataType::UInt8, x.shape());
  uint8_t* dst = out.mutable_data<uint8_t>();
  for (int64_t y = 0; y < h; ++y) {
    for (int64_t i = 0; i < w * c; ++i) {
      uint64_t acc = 0;  // 16.16 fixed point
      for (int64_t t = 0; t < ny; ++t) {
        acc += static_cast<uint64_t>(ky[t]) * rows[static_cast<size_t>(iy[y * ny + t] * w * c + i)];
      }
      dst[y * w * c + i] = static_cast<uint8_t>(std::min<uint64_t>((acc + (1u << 15)) >> 16, 255));
    }
  }
  return out;
}

template <class T>
Array blur_real(const Array& x, int64_t h, int64_t w, int64_t c, const std::vector<double>& kx,
                const std::vector<double>& ky) {
  auto nx = static_cast<int64_t>(kx.size()), ny = static_cast<int64_t>(ky.size());
  std::vector<int64_t> ix = tap_index(w, nx), iy = tap_index(h, ny);
  const T* src = x.data<T>();
  std::vector<double> rows(static_cast<size_t>(h * w * c));
  for (int64_t y = 0; y < h; ++y) {
    for (int64_t xx = 0; xx < w; ++xx) {
      for (int64_t ch = 0; ch < c; ++ch) {
        double acc = 0;
        for (int64_t t = 0; t < nx; ++t) {
          acc += kx[t] * static_cast<double>(src[(y * w + ix[xx * nx + t]) * c + ch]);
        }
        rows[static_cast<size_t>((y * w + xx) * c + ch)] = acc;
      }
    }
  }
  Array out = Array::empty(x.dtype(), x.shape());
  T* dst = out.mutable_data<T>();
  for (int64_t y = 0; y < h; ++y) {
    for (int64_t i = 0; i < w * c; ++i) {
      double acc = 0;
      for (int64_t t = 0; t < ny; ++t)
        acc += ky[t] * rows[static_cast<size_t>(iy[y * ny + t] * w * c + i)];
      if constexpr (std::is_integral_v<T>) {
        acc = std::clamp(std::nearbyint(acc), static_cast<double>(std::numeric_limits<T>::lowest()),
                         static_cast<double>(std::numeric_limits<T>::max()));
      }
      dst[y * w * c + i] = static_cast<T>(acc);
    }
  }
  return out;
}

class GaussianBlur final : public UnaryTransform {
 public:
  static constexpr int64_t kMaxKernel = 4095;
  GaussianBlur(int64_t kx, int64_t ky, double sx, double sy) : kx_(kx), ky_(ky), sx_(sx), sy_(sy) {
    MC_CHECK(kx > 0 && ky > 0 && kx % 2 == 1 && ky % 2 == 1, Value,
             "GaussianBlur: kernel_size must be positive and odd, but got (", kx, ", ", ky, ").");
    // Every tap costs a multiply per pixel: a kernel of millions of taps would run for hours.
    MC_CHECK(kx <= kMaxKernel && ky <= kMaxKernel, Value,
             "GaussianBlur: kernel_size must be at most ", kMaxKernel, ", but got (", kx, ", ", ky,
             ").");
    MC_CHECK(sx >= 0 && sy >= 0, Value, "GaussianBlur: sigma must not be negative, but got (", sx,
             ", ", sy, ").");
    if (sy_ <= 0) sy_ = sx_;
  }
  std::string_view name() const override { return "GaussianBlur"; }

 protected:
  Array apply1(const Array& x, int lead, RowRandom* /*rng*/) const override {
    MC_CHECK(lead == 0, Value, "GaussianBlur cannot run on a batch.");
    MC_CHECK(x.dtype() != DataType::String, Runtime,
             "GaussianBlur: the data type of image tensor does not match the requirement of "
             "operator. But got ",
             describe(x), ".");
    MC_CHECK(x.ndim() >= 2, Runtime,
             "GaussianBlur: the image tensor should have at least two dimensions. You may need "
             "to perform Decode first. But got shape ",
             shape_str(x.shape()), ".");
    if (x.ndim() > 3) return per_image(x, name(), [&](const Array& one) { return blur(one); });
    return blur(x);
  }

 private:
  Array blur(const Array& x) const {
    int64_t h = x.shape()[0], w = x.shape()[1], c = x.ndim() == 3 ? x.shape()[2] : 1;
    std::vector<double> kx = gaussian_kernel(kx_, sx_), ky = gaussian_kernel(ky_, sy_);
    switch (x.dtype()) {
      case DataType::UInt8:
        return blur_u8(x, h, w, c, fixed_kernel(kx), fixed_kernel(ky));
      case DataType::UInt16:
        return blur_real<uint16_t>(x, h, w, c, kx, ky);
      case DataType::Int16:
        return blur_real<int16_t>(x, h, w, c, kx, ky);
      case DataType::Float32:
        return blur_real<float>(x, h, w, c, kx, ky);
      case DataType::Float64:
        return blur_real<double>(x, h, w, c, kx, ky);
      default:
        MC_THROW(Runtime,
                 "GaussianBlur: the data type of image tensor does not match the requirement of "
                 "operator. Expecting tensor in type of (uint8, uint16, int16, float32, "
                 "float64). But got ",
                 describe(x), ".");
    }
  }

  int64_t kx_, ky_;
  double sx_, sy_;
};

}  // namespace

TransformPtr make_gaussian_blur(int64_t kx, int64_t ky, double sx, double sy) {
  return std::make_shared<GaussianBlur>(kx, ky, sx, sy);
}

}  // namespace mycel::data
