// ConvertColor (declared in transforms_vision_policy.h): OpenCV's cvtColor conversions between
// gray, RGB / BGR and their alpha forms.
#include <array>
#include <cmath>
#include <limits>
#include <type_traits>

#include "data/transforms_vision_policy.h"

namespace mycel::data {

namespace {

struct ColorMode {
  const char* name;
  int in_channels;            // 1: <H, W> or <H, W, 1>
  int out_channels;           // 1: <H, W> (gray)
  std::array<int, 4> source;  // per output channel: the input channel, -1 for opaque alpha
  std::array<int, 3> rgb;     // gray: the input channels of R, G and B
};

constexpr std::array<ColorMode, 12> kModes = {{
    {"COLOR_BGR2BGRA", 3, 4, {0, 1, 2, -1}, {}},
    {"COLOR_BGRA2BGR", 4, 3, {0, 1, 2, 0}, {}},
    {"COLOR_BGR2RGBA", 3, 4, {2, 1, 0, -1}, {}},
    {"COLOR_RGBA2BGR", 4, 3, {2, 1, 0, 0}, {}},
    {"COLOR_BGR2RGB", 3, 3, {2, 1, 0, 0}, {}},
    {"COLOR_BGRA2RGBA", 4, 4, {2, 1, 0, 3}, {}},
    {"COLOR_BGR2GRAY", 3, 1, {}, {2, 1, 0}},
    {"COLOR_RGB2GRAY", 3, 1, {}, {0, 1, 2}},
    {"COLOR_GRAY2BGR", 1, 3, {0, 0, 0, 0}, {}},
    {"COLOR_GRAY2BGRA", 1, 4, {0, 0, 0, -1}, {}},
    {"COLOR_BGRA2GRAY", 4, 1, {}, {2, 1, 0}},
    {"COLOR_RGBA2GRAY", 4, 1, {}, {0, 1, 2}},
}};

template <class T>
T opaque() {
  if constexpr (std::is_floating_point_v<T>) {
    return T(1);
  } else {
    return std::numeric_limits<T>::max();
  }
}

template <class T>
T gray_of(T r, T g, T b) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    return static_cast<T>((r * 9798 + g * 19235 + b * 3735 + 16384) >> 15);
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(0.299f * r + 0.587f * g + 0.114f * b);
  } else {
    return static_cast<T>(std::lround(0.299 * r + 0.587 * g + 0.114 * b));
  }
}

template <class T>
Array convert(const Array& x, const ColorMode& m, int64_t h, int64_t w) {
  Shape shape = m.out_channels == 1 ? Shape{h, w} : Shape{h, w, m.out_channels};
  Array out = Array::empty(x.dtype(), shape);
  const T* src = x.data<T>();
  T* dst = out.mutable_data<T>();
  const int ci = m.in_channels, co = m.out_channels;
  for (int64_t p = 0; p < h * w; ++p) {
    const T* s = src + p * ci;
    T* d = dst + p * co;
    if (co == 1) {
      d[0] = gray_of<T>(s[m.rgb[0]], s[m.rgb[1]], s[m.rgb[2]]);
      continue;
    }
    for (int k = 0; k < co; ++k) d[k] = m.source[k] < 0 ? opaque<T>() : s[m.source[k]];
  }
  return out;
}

class ConvertColor final : public UnaryTransform {
 public:
  explicit ConvertColor(int mode) : mode_(mode) {
    MC_CHECK(mode >= 0 && mode < static_cast<int>(kModes.size()), Value,
             "ConvertColor: mode must be a vision.ConvertMode (0 to 11), but got ", mode, ".");
  }
  std::string_view name() const override { return "ConvertColor"; }

 protected:
  Array apply1(const Array& x, int lead, RowRandom* /*rng*/) const override {
    MC_CHECK(lead == 0, Value, "ConvertColor cannot run on a batch.");
    const ColorMode& m = kModes[static_cast<size_t>(mode_)];
    DataType t = x.dtype();
    MC_CHECK(t == DataType::UInt8 || t == DataType::UInt16 || t == DataType::Float32, Runtime,
             "ConvertColor: the data type of image tensor does not match the requirement of "
             "operator. Expecting tensor in type of (uint8, uint16, float32). But got ",
             describe(x), ".");
    int64_t c = x.ndim() == 3 ? x.shape()[2] : (x.ndim() == 2 ? 1 : -1);
    MC_CHECK(x.ndim() == 2 || x.ndim() == 3, Runtime,
             "ConvertColor: the dimension of image tensor does not match the requirement of "
             "operator. Expecting tensor in dimension of (2, 3). But got shape ",
             shape_str(x.shape()), ".");
    MC_CHECK(c == m.in_channels, Runtime, "ConvertColor: ", m.name, " takes images with ",
             m.in_channels, " channel(s), but got shape ", shape_str(x.shape()), ".");
    int64_t h = x.shape()[0], w = x.shape()[1];
    if (t == DataType::UInt8) return convert<uint8_t>(x, m, h, w);
    if (t == DataType::UInt16) return convert<uint16_t>(x, m, h, w);
    return convert<float>(x, m, h, w);
  }

 private:
  int mode_;
};

}  // namespace

TransformPtr make_convert_color(int mode) { return std::make_shared<ConvertColor>(mode); }

}  // namespace mycel::data
