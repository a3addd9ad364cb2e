// The built-in transforms of mindspore.dataset.vision (transforms_vision.cc) and
// mindspore.dataset.transforms (transforms_basic.cc), as factories. Arguments are validated by
// the Python classes; the factories check them again (ValueError naming the transform).
//
// Images are HWC: <H, W> or <H, W, C>, any numeric dtype for the geometric ops (crops, flips,
// pads copy elements), uint8 / uint16 / int16 / float32 / float64 for Resize (the output keeps
// the input's dtype, as OpenCV's resize in MindSpore). Normalize and Rescale give float32.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "data/transform.h"

namespace mycel::data {

// MindSpore's vision.Inter. Nearest, Linear, Cubic (a = -0.75) and Area are OpenCV's: a fixed
// number of taps whatever the scale. Antialias (Lanczos, a = 3: PIL's ANTIALIAS) and PilCubic
// (PIL's BICUBIC, a = -0.5) are PIL's resampling: when shrinking, the filter is stretched by
// the scale so every source pixel contributes, and integer images pass through a rounded,
// clipped intermediate after the horizontal pass, as PIL computes them.
enum class Interp : uint8_t { Nearest, Linear, Cubic, Area, Antialias, PilCubic };
// MindSpore's vision.Border: CONSTANT fills, EDGE repeats the last pixel, REFLECT mirrors
// without repeating it (OpenCV's BORDER_REFLECT_101), SYMMETRIC mirrors with it.
enum class BorderMode : uint8_t { Constant, Edge, Reflect, Symmetric };

// Names as MindSpore's enums print them in lower case: "nearest", "bilinear" (or "linear"),
// "bicubic" (or "cubic"), "area", "antialias", "pilcubic"; "constant", "edge", "reflect",
// "symmetric". A ValueError
// naming op for anything else.
Interp interp_from_name(std::string_view name, std::string_view op);
BorderMode border_from_name(std::string_view name, std::string_view op);

// ----- vision -----

// Decode(): a 1-D uint8 array of JPEG or PNG bytes -> uint8 [H, W, 3] RGB.
TransformPtr make_decode();
// Resize(size, interpolation): to [h, w]; w == 0 keeps the aspect ratio with the shorter side
// resized to h (MindSpore's Resize(int)).
TransformPtr make_resize(int64_t h, int64_t w, Interp interp);
// CenterCrop(size): the central [h, w] window; a smaller image is padded with zeros first.
TransformPtr make_center_crop(int64_t h, int64_t w);
// RandomCrop(size, padding, pad_if_needed, fill_value, padding_mode): padding is (left, top,
// right, bottom); fill has 1 value (every channel) or 3 (R, G, B; further channels get 0).
TransformPtr make_random_crop(int64_t h, int64_t w, std::array<int64_t, 4> padding,
                              bool pad_if_needed, std::vector<double> fill, BorderMode mode);
TransformPtr make_random_horizontal_flip(double prob);
TransformPtr make_random_vertical_flip(double prob);
// RandomResizedCrop(size, scale, ratio, interpolation, max_attempts).
TransformPtr make_random_resized_crop(int64_t h, int64_t w, std::array<double, 2> scale,
                                      std::array<double, 2> ratio, Interp interp, int max_attempts);
// Normalize(mean, std, is_hwc): (x - mean) / std per channel in float32; one value applies to
// every channel.
TransformPtr make_normalize(std::vector<float> mean, std::vector<float> std, bool is_hwc);
TransformPtr make_hwc2chw();
// Rescale(rescale, shift): x * rescale + shift in float32.
TransformPtr make_rescale(float rescale, float shift);
// ToTensor(output_type): <H, W[, C]> values / 255 in float32, to <C, H, W>, cast to
// output_type (any numeric type, as TypeCast: an integer type truncates). uint32, int64 and
// uint64 images are a RuntimeError, as MindSpore.
TransformPtr make_to_tensor(DataType output_type);
// Pad(padding, fill_value, padding_mode): padding is (left, top, right, bottom); fill as
// RandomCrop's.
TransformPtr make_pad(std::array<int64_t, 4> padding, std::vector<double> fill, BorderMode mode);

// Resizes the window [y0, y0 + h) x [x0, x0 + w) of an <H, W> or <H, W, C> image to
// [out_h, out_w] (half-pixel centres, as OpenCV and torch's align_corners=False). The
// kernel of Resize and RandomResizedCrop, exposed for tests.
Array resize_window(const Array& img, int64_t y0, int64_t x0, int64_t h, int64_t w, int64_t out_h,
                    int64_t out_w, Interp interp, std::string_view op);

// Applies `one` to each <H, W, C> image of an array with more axes in front (<..., H, W, C>:
// video frames or a batch, which MindSpore's Resize, CenterCrop and deterministic warps take)
// and stacks the results under those axes. A ValueError naming `op` when there is no image.
Array per_image(const Array& x, std::string_view op, const std::function<Array(const Array&)>& one);

// ----- transforms -----

// TypeCast(data_type): numpy's astype, except that float -> int saturates (NaN -> 0) where
// numpy's result is undefined.
TransformPtr make_type_cast(DataType to);
// OneHot(num_classes, smoothing_rate): a scalar (or one-element) label -> [num_classes], a
// [k] label -> [k, num_classes] (size-1 axes squeezed); the label's dtype, or float32
// (1 - s) * onehot + s / num_classes when smoothing_rate s > 0.
TransformPtr make_one_hot(int64_t num_classes, double smoothing_rate);

}  // namespace mycel::data
