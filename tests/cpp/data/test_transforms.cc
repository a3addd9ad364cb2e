// The built-in transforms against naive references written here: Resize by its per-pixel
// formula (bilinear, bicubic, nearest, area as a 2-D overlap integral), crops and pads by
// iterated reflection, flips, Normalize / Rescale / HWC2CHW / TypeCast / OneHot by loops, and
// the random ops' determinism per (seed, row).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <set>

#include "data/transforms.h"

namespace mycel::data {
namespace {

template <class T>
Array filled(const Shape& shape, uint32_t seed, double lo, double hi) {
  Array a = Array::empty(data_type_of<T>(), shape);
  T* p = a.mutable_data<T>();
  uint32_t s = seed;
  for (int64_t i = 0; i < a.numel(); ++i) {
    s = s * 1664525u + 1013904223u;
    p[i] = static_cast<T>(lo + (hi - lo) * (s >> 8) / double(1 << 24));
  }
  return a;
}

Array run(const TransformPtr& t, const Array& x, int lead = 0, uint64_t row = 0,
          uint64_t seed = 7) {
  RowRandom rng(seed, 0, 0, row);
  std::vector<Array> out = t->apply({x}, lead, &rng);
  EXPECT_EQ(out.size(), 1u);
  return out[0];
}

bool same(const Array& a, const Array& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

template <class F>
void expect_error(F fn, ErrorKind kind, const std::string& text) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected one containing: " << text;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

// Element (y, x, c) of an HWC image (rank 2: c = 0) as double.
double px(const Array& a, int64_t y, int64_t x, int64_t c) {
  int64_t w = a.shape()[1], cc = a.ndim() == 3 ? a.shape()[2] : 1;
  int64_t i = (y * w + x) * cc + c;
  return dispatch_data(a.dtype(), "px", [&](auto tag) -> double {
    using T = typename decltype(tag)::type;
    return static_cast<double>(static_cast<float>(a.data<T>()[i]));
  });
}

// The reference: out(y, x, c) = f(y, x, c) for every output element; uint8 outputs may differ
// by one from the rounded float reference (float accumulation), floats by 1e-4 relative.
void expect_image(const Array& out, const Shape& shape,
                  const std::function<double(int64_t, int64_t, int64_t)>& f) {
  ASSERT_EQ(out.shape(), shape);
  int64_t cc = shape.size() == 3 ? shape[2] : 1;
  bool integer = !is_float(out.dtype());
  for (int64_t y = 0; y < shape[0]; ++y) {
    for (int64_t x = 0; x < shape[1]; ++x) {
      for (int64_t c = 0; c < cc; ++c) {
        double want = f(y, x, c), got = px(out, y, x, c);
        if (integer) {
          want = std::clamp(std::round(want), 0.0, 255.0);
          ASSERT_LE(std::abs(got - want), 1.0) << "at " << y << "," << x << "," << c;
        } else {
          ASSERT_NEAR(got, want, 1e-4 * (1 + std::abs(want))) << "at " << y << "," << x << "," << c;
        }
      }
    }
  }
}

// ----- Resize -----

double bilinear_ref(const Array& img, int64_t oy, int64_t ox, int64_t c, int64_t oh, int64_t ow) {
  int64_t h = img.shape()[0], w = img.shape()[1];
  auto coord = [](int64_t o, int64_t in, int64_t out, int64_t* i0, int64_t* i1, double* t) {
    double f = (o + 0.5) * in / out - 0.5;
    f = std::max(f, 0.0);  // torch's align_corners=False rule
    *i0 = std::min<int64_t>(static_cast<int64_t>(f), in - 1);
    *i1 = std::min<int64_t>(*i0 + 1, in - 1);
    *t = f - *i0;
  };
  int64_t y0, y1, x0, x1;
  double ty, tx;
  coord(oy, h, oh, &y0, &y1, &ty);
  coord(ox, w, ow, &x0, &x1, &tx);
  return (1 - ty) * ((1 - tx) * px(img, y0, x0, c) + tx * px(img, y0, x1, c)) +
         ty * ((1 - tx) * px(img, y1, x0, c) + tx * px(img, y1, x1, c));
}

double cubic_ref(const Array& img, int64_t oy, int64_t ox, int64_t c, int64_t oh, int64_t ow) {
  int64_t h = img.shape()[0], w = img.shape()[1];
  auto kernel = [](double d) {  // Keys' cubic with a = -0.75
    const double a = -0.75;
    d = std::abs(d);
    if (d <= 1) return ((a + 2) * d - (a + 3)) * d * d + 1;
    if (d < 2) return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
    return 0.0;
  };
  double fy = (oy + 0.5) * h / oh - 0.5, fx = (ox + 0.5) * w / ow - 0.5;
  int64_t sy = static_cast<int64_t>(std::floor(fy)), sx = static_cast<int64_t>(std::floor(fx));
  double sum = 0;
  for (int64_t i = sy - 1; i <= sy + 2; ++i) {
    for (int64_t j = sx - 1; j <= sx + 2; ++j) {
      double v = px(img, std::clamp<int64_t>(i, 0, h - 1), std::clamp<int64_t>(j, 0, w - 1), c);
      sum += kernel(fy - i) * kernel(fx - j) * v;
    }
  }
  return sum;
}

// Area averaging as a 2-D integral: each source pixel weighted by its overlap with the output
// pixel's footprint.
double area_ref(const Array& img, int64_t oy, int64_t ox, int64_t c, int64_t oh, int64_t ow) {
  int64_t h = img.shape()[0], w = img.shape()[1];
  double sy = double(h) / oh, sx = double(w) / ow;
  double ya = oy * sy, yb = ya + sy, xa = ox * sx, xb = xa + sx, sum = 0;
  for (int64_t i = 0; i < h; ++i) {
    double oy_len = std::min(yb, i + 1.0) - std::max(ya, double(i));
    if (oy_len <= 0) continue;
    for (int64_t j = 0; j < w; ++j) {
      double ox_len = std::min(xb, j + 1.0) - std::max(xa, double(j));
      if (ox_len > 0) sum += oy_len * ox_len * px(img, i, j, c);
    }
  }
  return sum / (sy * sx);
}

struct ResizeCase {
  Shape in;
  int64_t oh, ow;
};

const ResizeCase kResizeCases[] = {
    {{13, 17, 3}, 7, 5},  {{6, 9, 3}, 20, 31}, {{10, 10}, 10, 23},  {{9, 11, 1}, 4, 4},
    {{5, 7, 4}, 11, 3},   {{1, 6, 3}, 4, 12},  {{40, 30, 3}, 7, 9}, {{8, 8, 2}, 3, 5},
    {{25, 26, 3}, 9, 10},  // AREA shrinking by 2.6-2.8: 4 taps per axis on RGB rows
};

TEST(DataTransforms, ResizeLinearAndCubicMatchTheirFormulas) {
  for (const ResizeCase& rc : kResizeCases) {
    Shape out_shape = rc.in;
    out_shape[0] = rc.oh;
    out_shape[1] = rc.ow;
    for (Interp interp : {Interp::Linear, Interp::Cubic}) {
      auto ref = interp == Interp::Linear ? bilinear_ref : cubic_ref;
      Array u8 = filled<uint8_t>(rc.in, 3, 0, 256);
      Array f32 = filled<float>(rc.in, 4, -1, 1);
      Array f64 = filled<double>(rc.in, 5, -1, 1);
      TransformPtr t = make_resize(rc.oh, rc.ow, interp);
      for (const Array* img : {&u8, &f32, &f64}) {
        SCOPED_TRACE(describe(*img) + (interp == Interp::Linear ? " linear" : " cubic"));
        Array out = run(t, *img);
        EXPECT_EQ(out.dtype(), img->dtype());
        expect_image(out, out_shape, [&](int64_t y, int64_t x, int64_t c) {
          return ref(*img, y, x, c, rc.oh, rc.ow);
        });
      }
    }
  }
}

TEST(DataTransforms, ResizeNearestAndAreaMatchTheirFormulas) {
  for (const ResizeCase& rc : kResizeCases) {
    Shape out_shape = rc.in;
    out_shape[0] = rc.oh;
    out_shape[1] = rc.ow;
    Array img = filled<uint8_t>(rc.in, 9, 0, 256);
    SCOPED_TRACE(describe(img));
    int64_t h = rc.in[0], w = rc.in[1];
    Array nearest = run(make_resize(rc.oh, rc.ow, Interp::Nearest), img);
    expect_image(nearest, out_shape, [&](int64_t y, int64_t x, int64_t c) {
      return px(img, y * h / rc.oh, x * w / rc.ow, c);
    });
    if (rc.oh <= h && rc.ow <= w) {  // shrinking: the overlap average
      Array f = filled<float>(rc.in, 10, 0, 1);
      expect_image(
          run(make_resize(rc.oh, rc.ow, Interp::Area), f), out_shape,
          [&](int64_t y, int64_t x, int64_t c) { return area_ref(f, y, x, c, rc.oh, rc.ow); });
    }
  }
  // Enlarging by an integer factor with AREA repeats pixels, as OpenCV's INTER_AREA.
  Array img = filled<uint8_t>({3, 4, 3}, 2, 0, 256);
  expect_image(run(make_resize(6, 12, Interp::Area), img), {6, 12, 3},
               [&](int64_t y, int64_t x, int64_t c) { return px(img, y / 2, x / 3, c); });
}

TEST(DataTransforms, ResizeKeepsAspectForOneSizeAndIdentityCopies) {
  Array img = filled<uint8_t>({30, 40, 3}, 1, 0, 256);
  // 40 / 30 * 20 = 26.67 rounds down, as MindSpore 2.x.
  EXPECT_EQ(run(make_resize(20, 0, Interp::Linear), img).shape(), (Shape{20, 26, 3}));
  Array tall = filled<uint8_t>({41, 30}, 1, 0, 256);
  EXPECT_EQ(run(make_resize(20, 0, Interp::Linear), tall).shape(), (Shape{27, 20}));
  for (Interp interp : {Interp::Nearest, Interp::Linear, Interp::Cubic, Interp::Area}) {
    EXPECT_TRUE(same(run(make_resize(30, 40, interp), img), img));
  }
}

TEST(DataTransforms, ResizeErrors) {
  TransformPtr t = make_resize(4, 4, Interp::Linear);
  expect_error([&] { run(t, filled<uint8_t>({5}, 1, 0, 1)); }, ErrorKind::Value,
               "Resize: the image must be <H, W> or <H, W, C>, but got shape [5]");
  expect_error(
      [&] {
        run(t, filled<int32_t>({5, 5}, 1, 0, 1));
      },
      ErrorKind::Type, "Resize: the image must be uint8, uint16, int16, float32 or float64");
  expect_error(
      [&] {
        run(t, filled<uint8_t>({0, 5, 3}, 1, 0, 1));
      },
      ErrorKind::Value, "Resize: the image must not be empty");
  expect_error([&] { make_resize(0, 3, Interp::Linear); }, ErrorKind::Value,
               "Resize: size must be positive");
  expect_error([&] { interp_from_name("lanczos", "Resize"); }, ErrorKind::Value,
               "Resize: interpolation must be");
}

// ----- crops, pads, flips -----

// Padded index i of an axis of n pixels, by iterated reflection (independent of the
// modular formula in the transform).
int64_t ref_border(int64_t i, int64_t n, BorderMode mode) {
  if (mode == BorderMode::Constant) return i >= 0 && i < n ? i : -1;
  if (mode == BorderMode::Edge) return std::clamp<int64_t>(i, 0, n - 1);
  while (i < 0 || i >= n) {
    if (mode == BorderMode::Reflect) {
      if (n == 1) return 0;
      i = i < 0 ? -i : 2 * (n - 1) - i;
    } else {
      i = i < 0 ? -i - 1 : 2 * n - 1 - i;
    }
  }
  return i;
}

TEST(DataTransforms, CenterCropCropsAndPadsAsMindSpore) {
  Array img = filled<uint8_t>({7, 10, 3}, 1, 1, 256);
  for (auto [ch, cw] : {std::pair<int64_t, int64_t>{3, 4}, {7, 10}, {10, 13}, {9, 5}, {2, 12}}) {
    Array out = run(make_center_crop(ch, cw), img);
    // MindSpore: pad (extra pixel on top / left) then crop from (size - crop) / 2.
    int64_t top = ch > 7 ? -((ch - 7 + 1) / 2) : (7 - ch) / 2;
    int64_t left = cw > 10 ? -((cw - 10 + 1) / 2) : (10 - cw) / 2;
    expect_image(out, {ch, cw, 3}, [&](int64_t y, int64_t x, int64_t c) {
      int64_t sy = y + top, sx = x + left;
      return sy < 0 || sy >= 7 || sx < 0 || sx >= 10 ? 0.0 : px(img, sy, sx, c);
    });
  }
}

TEST(DataTransforms, RandomCropIsAWindowOfThePaddedImage) {
  Array img = filled<uint8_t>({6, 5, 3}, 2, 0, 256);
  std::array<int64_t, 4> pad{3, 1, 2, 4};  // left, top, right, bottom
  for (BorderMode mode :
       {BorderMode::Constant, BorderMode::Edge, BorderMode::Reflect, BorderMode::Symmetric}) {
    TransformPtr t = make_random_crop(8, 7, pad, false, {10, 20, 30}, mode);
    std::set<std::pair<int64_t, int64_t>> offsets;
    for (uint64_t row = 0; row < 40; ++row) {
      Array out = run(t, img, 0, row);
      ASSERT_EQ(out.shape(), (Shape{8, 7, 3}));
      EXPECT_TRUE(same(out, run(t, img, 0, row)));  // the same (seed, row): the same crop
      int found = 0;
      for (int64_t oy = 0; oy <= 6 + 1 + 4 - 8; ++oy) {
        for (int64_t ox = 0; ox <= 5 + 3 + 2 - 7; ++ox) {
          bool match = true;
          for (int64_t y = 0; y < 8 && match; ++y) {
            for (int64_t x = 0; x < 7 && match; ++x) {
              int64_t sy = ref_border(oy + y - 1, 6, mode), sx = ref_border(ox + x - 3, 5, mode);
              for (int64_t c = 0; c < 3; ++c) {
                double want = sy < 0 || sx < 0 ? 10.0 * (c + 1) : px(img, sy, sx, c);
                match = match && px(out, y, x, c) == want;
              }
            }
          }
          if (match) {
            offsets.insert({oy, ox});
            ++found;
          }
        }
      }
      EXPECT_GE(found, 1) << "row " << row;
    }
    EXPECT_GT(offsets.size(), 5u);  // rows draw different windows
  }
}

TEST(DataTransforms, RandomCropPadIfNeededAndErrors) {
  Array img = filled<uint8_t>({3, 4}, 2, 1, 256);
  Array out = run(make_random_crop(5, 4, {0, 0, 0, 0}, true, {0}, BorderMode::Constant), img);
  ASSERT_EQ(out.shape(), (Shape{5, 4}));
  // Padded by 2 on top and bottom (7 rows): 3 image rows appear in order, zeros elsewhere.
  int image_rows = 0;
  for (int64_t y = 0; y < 5; ++y) image_rows += px(out, y, 0, 0) != 0;
  EXPECT_GE(image_rows, 1);
  expect_error(
      [&] {
        run(make_random_crop(5, 4, {0, 0, 0, 0}, false, {0}, BorderMode::Edge), img);
      },
      ErrorKind::Value, "RandomCrop: the crop size (5, 4) is bigger than the image (3, 4)");
  Array exact = run(make_random_crop(3, 4, {0, 0, 0, 0}, false, {0}, BorderMode::Edge), img);
  EXPECT_TRUE(same(exact, img));
}

TEST(DataTransforms, FlipsMirrorWithTheirProbability) {
  Array img = filled<float>({4, 5, 3}, 3, 0, 1);
  Array h = run(make_random_horizontal_flip(1.0), img);
  expect_image(h, {4, 5, 3}, [&](int64_t y, int64_t x, int64_t c) { return px(img, y, 4 - x, c); });
  Array v = run(make_random_vertical_flip(1.0), img);
  expect_image(v, {4, 5, 3}, [&](int64_t y, int64_t x, int64_t c) { return px(img, 3 - y, x, c); });
  EXPECT_TRUE(same(run(make_random_horizontal_flip(0.0), img), img));
  Array gray = filled<uint8_t>({3, 7}, 3, 0, 256);
  expect_image(run(make_random_horizontal_flip(1.0), gray), {3, 7},
               [&](int64_t y, int64_t x, int64_t) { return px(gray, y, 6 - x, 0); });
  int flipped = 0;
  TransformPtr half = make_random_horizontal_flip(0.5);
  for (uint64_t row = 0; row < 200; ++row) flipped += same(run(half, img, 0, row), h);
  EXPECT_GT(flipped, 70);
  EXPECT_LT(flipped, 130);
}

TEST(DataTransforms, RandomResizedCropResizesItsWindow) {
  Array img = filled<uint8_t>({20, 20, 3}, 4, 0, 256);
  // The whole image: scale 1 and ratio 1 on a square image.
  Array whole = run(make_random_resized_crop(9, 7, {1, 1}, {1, 1}, Interp::Linear, 10), img);
  EXPECT_TRUE(same(whole, run(make_resize(9, 7, Interp::Linear), img)));
  // No draw fits a 10 x 40 image with ratio 1 and scale 1: the centred 10 x 10 window.
  Array wide = filled<uint8_t>({10, 40, 3}, 5, 0, 256);
  Array fallback = run(make_random_resized_crop(5, 5, {1, 1}, {1, 1}, Interp::Linear, 3), wide);
  EXPECT_TRUE(same(fallback, resize_window(wide, 0, 15, 10, 10, 5, 5, Interp::Linear, "t")));
  TransformPtr t = make_random_resized_crop(8, 8, {0.08, 1.0}, {0.75, 4.0 / 3}, Interp::Linear, 10);
  int differ = 0;
  for (uint64_t row = 0; row < 10; ++row) {
    Array a = run(t, img, 0, row);
    EXPECT_EQ(a.shape(), (Shape{8, 8, 3}));
    EXPECT_TRUE(same(a, run(t, img, 0, row)));
    differ += !same(a, run(t, img, 0, row + 1));
  }
  EXPECT_GE(differ, 8);
}

// ----- Normalize, HWC2CHW, Rescale -----

TEST(DataTransforms, NormalizeRescaleHwc2chwMatchLoopsAndBatch) {
  Array img = filled<uint8_t>({5, 67, 3}, 6, 0, 256);  // more pixels than one HWC block
  Array out = run(make_normalize({10, 20, 30}, {2, 4, 8}, true), img);
  EXPECT_EQ(out.dtype(), DataType::Float32);
  const float mean[3] = {10, 20, 30}, stdv[3] = {2, 4, 8};
  expect_image(out, {5, 67, 3}, [&](int64_t y, int64_t x, int64_t c) {
    return (static_cast<float>(px(img, y, x, c)) - mean[c]) / stdv[c];
  });
  Array one = run(make_normalize({5}, {3}, true), img);
  expect_image(one, {5, 67, 3},
               [&](int64_t y, int64_t x, int64_t c) { return (px(img, y, x, c) - 5) / 3; });
  Array chw = run(make_hwc2chw(), img);
  ASSERT_EQ(chw.shape(), (Shape{3, 5, 67}));
  for (int64_t c = 0; c < 3; ++c) {
    for (int64_t p = 0; p < 5 * 67; ++p) {
      ASSERT_EQ(chw.data<uint8_t>()[c * 335 + p], img.data<uint8_t>()[p * 3 + c]);
    }
  }
  // One channel: the same elements under the CHW shape; RGB batches: each sample's planes.
  Array gray = filled<float>({4, 5, 1}, 3, -1, 1);
  Array gray_chw = run(make_hwc2chw(), gray);
  EXPECT_TRUE(same(gray_chw, gray.reshaped({1, 4, 5})));
  Array rgb = filled<float>({2, 4, 5, 3}, 4, -1, 1);
  Array rgb_chw = run(make_hwc2chw(), rgb, 1);
  ASSERT_EQ(rgb_chw.shape(), (Shape{2, 3, 4, 5}));
  for (int64_t i = 0; i < 2; ++i) {
    EXPECT_TRUE(same(rgb_chw.row(i), run(make_hwc2chw(), rgb.row(i))));
  }
  Array out_chw = run(make_normalize({10, 20, 30}, {2, 4, 8}, false), chw);
  EXPECT_TRUE(same(run(make_hwc2chw(), out), out_chw));
  Array r = run(make_rescale(0.5f, -1.0f), img);
  for (int64_t i = 0; i < img.numel(); ++i) {
    ASSERT_EQ(r.data<float>()[i], static_cast<float>(img.data<uint8_t>()[i]) * 0.5f - 1.0f);
  }
  // A batch (lead 1) gives the stacked per-sample results.
  Array batch = filled<int16_t>({3, 4, 6, 2}, 8, -100, 100);
  for (TransformPtr t : {make_normalize({1, 2}, {3, 4}, true), make_hwc2chw(),
                         make_rescale(0.25f, 3.0f), make_type_cast(DataType::Float64)}) {
    ASSERT_TRUE(t->batchable()) << t->name();
    Array all = run(t, batch, 1);
    for (int64_t i = 0; i < 3; ++i) {
      Array one_out = run(t, batch.row(i));
      ASSERT_EQ(all.row(i).shape(), one_out.shape()) << t->name();
      EXPECT_EQ(std::memcmp(all.row(i).raw(), one_out.raw(), one_out.nbytes()), 0) << t->name();
    }
  }
  expect_error(
      [&] {
        run(make_normalize({1, 2}, {1, 1}, true), img);
      },
      ErrorKind::Runtime,
      "Normalize: number of channels does not match the size of mean and std vectors: the "
      "image has 3 channels but mean and std have 2 values");
  expect_error(
      [&] {
        run(make_hwc2chw(), filled<float>({2, 2, 2, 2}, 1, 0, 1));
      },
      ErrorKind::Value, "HWC2CHW: the image must be <H, W> or <H, W, C>");
}

// ----- TypeCast, OneHot -----

TEST(DataTransforms, TypeCastFollowsAstypeAndSaturates) {
  Array f = Array::empty(DataType::Float32, {6});
  float vals[6] = {1.7f, -2.2f, 300.5f, -1e10f, std::numeric_limits<float>::quiet_NaN(), 0.0f};
  std::memcpy(f.mutable_raw(), vals, sizeof vals);
  Array i32 = run(make_type_cast(DataType::Int32), f);
  std::vector<int32_t> want32 = {1, -2, 300, INT32_MIN, 0, 0};
  EXPECT_EQ(std::vector<int32_t>(i32.data<int32_t>(), i32.data<int32_t>() + 6), want32);
  Array u8 = run(make_type_cast(DataType::UInt8), f);
  std::vector<uint8_t> want8 = {1, 0, 255, 0, 0, 0};
  EXPECT_EQ(std::vector<uint8_t>(u8.data<uint8_t>(), u8.data<uint8_t>() + 6), want8);
  Array b = run(make_type_cast(DataType::Bool), f);
  std::vector<bool> wantb = {true, true, true, true, true, false};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(b.data<bool>()[i], wantb[i]) << i;
  Array h = run(make_type_cast(DataType::Float16), f);
  EXPECT_EQ(static_cast<float>(h.data<float16>()[0]), static_cast<float>(float16(1.7f)));
  Array i64 = filled<int64_t>({4}, 3, -1000, 1000);
  Array wrapped = run(make_type_cast(DataType::Int8), i64);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(wrapped.data<int8_t>()[i], static_cast<int8_t>(i64.data<int64_t>()[i]));
  }
  EXPECT_TRUE(same(run(make_type_cast(DataType::Int64), i64), i64));
}

TEST(DataTransforms, OneHotShapesValuesAndErrors) {
  Array labels = Array::empty(DataType::Int32, {3});
  int32_t v[3] = {2, 0, 3};
  std::memcpy(labels.mutable_raw(), v, sizeof v);
  Array out = run(make_one_hot(4, 0.0), labels);
  ASSERT_EQ(out.shape(), (Shape{3, 4}));
  EXPECT_EQ(out.dtype(), DataType::Int32);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j) EXPECT_EQ(out.data<int32_t>()[i * 4 + j], v[i] == j);
  }
  Array smooth = run(make_one_hot(4, 0.2), Array::scalar<uint8_t>(1));
  ASSERT_EQ(smooth.shape(), (Shape{4}));
  EXPECT_EQ(smooth.dtype(), DataType::Float32);
  for (int j = 0; j < 4; ++j) {
    EXPECT_FLOAT_EQ(smooth.data<float>()[j], j == 1 ? 0.85f : 0.05f);
  }
  EXPECT_EQ(run(make_one_hot(4, 0.0), labels.reshaped({3, 1}), 1).shape(), (Shape{3, 4}));
  expect_error([&] { run(make_one_hot(3, 0.0), labels); }, ErrorKind::Value,
               "OneHot: label 3 is out of range [0, 3)");
  expect_error(
      [&] {
        run(make_one_hot(3, 0.0), filled<int32_t>({2, 2}, 1, 0, 2));
      },
      ErrorKind::Value, "OneHot: the label must be a scalar or 1-D, but got shape [2, 2]");
  expect_error([&] { run(make_one_hot(3, 0.0), filled<float>({2}, 1, 0, 2)); }, ErrorKind::Type,
               "OneHot: the label must be an integer type, but got float32");
}

}  // namespace
}  // namespace mycel::data
