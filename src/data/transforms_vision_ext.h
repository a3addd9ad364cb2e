// More transforms of mindspore.dataset.vision, as factories (the first ones are in
// transforms.h): the geometric warps (transforms_vision_geometry.cc) and the colour
// adjustments (transforms_vision_color.cc). Arguments are validated by the Python classes
// (python/mycel/dataset/vision_geometry.py, vision_color.py); the factories check them again.
//
// MindSpore computes these with OpenCV (warpAffine, warpPerspective, cvtColor, equalizeHist,
// addWeighted); the kernels here follow OpenCV's arithmetic (fixed-point source coordinates in
// 1/32 pixel, 15-bit integer interpolation weights for uint8, rounding to nearest even) so
// that uint8 results equal MindSpore's.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "data/transforms.h"

namespace mycel::data {

// ----- geometry (uint8, float32 or float64 images, <H, W> or <H, W, C>) -----
// Interpolation: Nearest, Linear and Cubic (OpenCV's, a = -0.75); Area samples as Linear (as
// OpenCV's warps do). Antialias and PilCubic are a ValueError naming the transform. Pixels
// mapped from outside the image take `fill` (1 value for every channel, or 3 for R, G, B;
// further channels 0).

// Affine(degrees, translate, scale, shear, resample, fill_value): rotation by `degrees`
// (clockwise), shears shear[0] (x) and shear[1] (y) in degrees, scaling about the image centre
// ((w - 1) / 2, (h - 1) / 2), and translation (tx * w, ty * h): fractions of the size, as
// MindSpore 2.x.
TransformPtr make_affine(double degrees, std::array<double, 2> translate, double scale,
                         std::array<double, 2> shear, Interp interp, std::vector<double> fill);
// RandomAffine: degrees uniform in degrees[0..1]; translation (fractions of the width and
// height) uniform in translate = (x_min, x_max, y_min, y_max); scale uniform in scale; shears
// uniform in shear = (x_min, x_max, y_min, y_max).
TransformPtr make_random_affine(std::array<double, 2> degrees, std::array<double, 4> translate,
                                std::array<double, 2> scale, std::array<double, 4> shear,
                                Interp interp, std::vector<double> fill);
// Rotate(degrees, resample, expand, center, fill_value): counter-clockwise about center (x, y;
// empty: the image centre). expand grows the output to hold the whole rotated image. As
// MindSpore's kernel, the fill's three values go to the channels in reverse order (OpenCV's
// Scalar(b, g, r) on an RGB image).
TransformPtr make_rotate(double degrees, Interp interp, bool expand, std::vector<double> center,
                         std::vector<double> fill);
// RandomRotation: degrees uniform in degrees[0..1], then as Rotate.
TransformPtr make_random_rotation(std::array<double, 2> degrees, Interp interp, bool expand,
                                  std::vector<double> center, std::vector<double> fill);
// Perspective(start_points, end_points, interpolation): the homography taking the four start
// points (x, y; top-left, top-right, bottom-right, bottom-left) to the end points; the output
// keeps the image's size, outside pixels are 0.
TransformPtr make_perspective(std::array<std::array<double, 2>, 4> start,
                              std::array<std::array<double, 2>, 4> end, Interp interp);
// RandomPerspective(distortion_scale, prob, interpolation): with probability prob, moves each
// corner inwards by up to distortion_scale times half the width / height (uniform integers,
// torchvision's draw) and warps the image so.
TransformPtr make_random_perspective(double distortion_scale, double prob, Interp interp);

// ----- colour (uint8 RGB images <H, W, 3> unless said otherwise) -----
// Brightness: x * f. Contrast: the blend f * x + (1 - f) * mean(gray) (the mean rounded to an
// integer). Saturation: f * x + (1 - f) * gray(x). Hue: the hue channel of OpenCV's 8-bit full
// range HSV shifted by int(f * 255). Gray is OpenCV's RGB2GRAY. Brightness, contrast and
// saturation also take uint16 and float32 images (no rounding for float32).
enum class ColorAdjust : uint8_t { Brightness, Contrast, Saturation, Hue, Sharpness };
Array adjust_color(const Array& img, ColorAdjust kind, double factor, std::string_view op);
// Adjust{Brightness,Contrast,Saturation,Hue,Sharpness}(factor). Sharpness is PIL's
// ImageEnhance.Sharpness: a blend with the image smoothed by [[1,1,1],[1,5,1],[1,1,1]] / 13,
// border pixels kept; on <H, W> or <H, W, 1|3> uint8 images.
TransformPtr make_adjust_color(ColorAdjust kind, double factor);
// RandomColorAdjust(brightness, contrast, saturation, hue): each (min, max); the four adjusts
// in a random order, each with a factor uniform in its range (an identity range is skipped).
TransformPtr make_random_color_adjust(std::array<double, 2> brightness,
                                      std::array<double, 2> contrast,
                                      std::array<double, 2> saturation, std::array<double, 2> hue);
// RandomSharpness(degrees) (kind Sharpness) and RandomColor(degrees) (kind Saturation): the
// adjust with a factor uniform in degrees; `name` names the transform.
TransformPtr make_random_adjust(ColorAdjust kind, std::array<double, 2> degrees, std::string name);
// AdjustGamma(gamma, gain): uint8 through MindSpore's table floor(min(255, (i / 255)^gamma *
// (256 - 1e-3) * gain)); float32 as clip((x * gain)^gamma, 0, 1). <..., H, W[, C]>, C 1 or 3.
TransformPtr make_adjust_gamma(double gamma, double gain);
// AutoContrast(cutoff, ignore): per channel, the histogram (ignored values dropped) cut by
// cutoff percent at each end, then [lo, hi] stretched to [0, 255]. <H, W> or <H, W, 1|3> uint8.
TransformPtr make_auto_contrast(double cutoff, std::vector<int64_t> ignore);
// Equalize(): OpenCV's equalizeHist per channel. <H, W> or <H, W, 1|3> uint8.
TransformPtr make_equalize();
// Posterize(bits): keeps the top `bits` bits (0 to 8) of each uint8 value.
TransformPtr make_posterize(int bits);
// RandomPosterize(bits): bits uniform integer in [bits[0], bits[1]].
TransformPtr make_random_posterize(std::array<int64_t, 2> bits);
// Solarize(threshold): uint8 values in [lo, hi] (v >= lo when lo == hi) become 255 - v.
TransformPtr make_solarize(std::array<double, 2> threshold);
// RandomSolarize(threshold): a threshold pair drawn as two uniform integers in [lo, hi],
// sorted, then Solarize.
TransformPtr make_random_solarize(std::array<double, 2> threshold);
// Invert(): 255 - v for uint8 images (the random flavour is make_random_apply).
TransformPtr make_invert();
// With probability prob applies inner, else passes the image through (RandomEqualize,
// RandomInvert, RandomAutoContrast, RandomAdjustSharpness). `name` is the transform's name.
TransformPtr make_random_apply(TransformPtr inner, double prob, std::string name);

}  // namespace mycel::data
