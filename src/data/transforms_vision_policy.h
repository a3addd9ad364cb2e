// Transforms that choose among other transforms, and MindSpore's augmentation policies
// (transforms_vision_policy.cc; GaussianBlur in transforms_vision_blur.cc):
//
// - transforms.RandomApply / RandomChoice / RandomOrder and vision.RandomSelectSubpolicy run
//   chains (Compose-like lists) of other transforms, picked with the row's random stream;
// - vision.AutoAugment, RandAugment and TrivialAugmentWide apply MindSpore's augmentation ops
//   (ShearX, ShearY, TranslateX, TranslateY, Rotate, Brightness, Color, Contrast, Sharpness,
//   Posterize, Solarize, AutoContrast, Equalize, Invert, Identity) on uint8 RGB <H, W, 3>
//   images, with MindSpore's magnitude tables (its auto_augment / rand_augment /
//   trivial_augment_wide ops, which follow torchvision's) and its draw order;
// - vision.GaussianBlur: OpenCV's GaussianBlur (bit-exact fixed point for uint8).
//
// Arguments are validated by the Python classes (python/mycel/dataset/vision_policy.py,
// transforms_random.py); the factories check them again. Random draws come from the row's
// stream (RowRandom), so a result depends on the seed and the row, not on the worker count;
// MindSpore's std::mt19937 draws are not reproduced.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "data/transforms.h"

namespace mycel::data {

using Chain = std::vector<TransformPtr>;

// RandomApply(transforms, prob): with probability prob the chain runs on the row, else the
// row passes unchanged.
TransformPtr make_random_apply_chain(Chain ops, double prob);
// RandomChoice(transforms): one of the chains, uniformly.
TransformPtr make_random_choice(std::vector<Chain> ops);
// RandomOrder(transforms): every chain, in a uniformly random order.
TransformPtr make_random_order(std::vector<Chain> ops);
// RandomSelectSubpolicy(policy): one sub-policy uniformly; each of its (chain, prob) steps
// then runs, in order, with probability prob.
TransformPtr make_random_select_subpolicy(
    std::vector<std::vector<std::pair<Chain, double>>> policy);

enum class AutoAugmentPolicy : uint8_t { ImageNet, Cifar10, Svhn };

// One augmentation op on a uint8 <H, W, 3> image, as MindSpore's ApplyAugment: ShearX/Y by
// magnitude radians' worth of degrees (Affine's shear = magnitude * 180 / pi), TranslateX/Y by
// int(magnitude) pixels, Rotate by magnitude degrees (counter-clockwise), Brightness, Color
// (saturation), Contrast and Sharpness with factor 1 + magnitude, Posterize to int(magnitude)
// bits, Solarize above magnitude, AutoContrast, Equalize, Invert, Identity. fill (R, G, B)
// fills the pixels the warps bring in from outside. `op` names the policy in messages.
Array apply_augment(const Array& img, std::string_view aug, float magnitude, Interp interp,
                    const std::vector<double>& fill, std::string_view op);

// AutoAugment(policy, interpolation, fill_value): one of the policy's 25 sub-policies
// uniformly; each of its two ops with its probability, a signed op negated with
// probability 1/2, magnitudes from 10 bins.
TransformPtr make_auto_augment(AutoAugmentPolicy policy, Interp interp, std::vector<double> fill);
// RandAugment(num_ops, magnitude, num_magnitude_bins, interpolation, fill_value): num_ops
// ops drawn uniformly (with replacement) from the 14 (no Invert), each at bin `magnitude`.
TransformPtr make_rand_augment(int64_t num_ops, int64_t magnitude, int64_t num_bins, Interp interp,
                               std::vector<double> fill);
// TrivialAugmentWide(num_magnitude_bins, interpolation, fill_value): one op uniformly from
// the 14, at a uniformly drawn bin, with TrivialAugment's wide ranges.
TransformPtr make_trivial_augment_wide(int64_t num_bins, Interp interp, std::vector<double> fill);

// GaussianBlur(kernel_size, sigma): OpenCV's cv::GaussianBlur with kernel (kx, ky) (odd,
// in [1, 4095]) and sigmas (sx, sy), sy <= 0 taking sx, a sigma <= 0 taking OpenCV's
// 0.3 * ((k - 1) * 0.5 - 1) + 0.8; borders mirrored without the edge pixel (BORDER_REFLECT_101).
// uint8 images go through OpenCV's bit-exact fixed-point path (kernel in 8-bit fixed point by
// error diffusion, rows then columns, rounded once), so results equal OpenCV's; other numeric
// types compute in double and round (integers) to their type. <H, W>, <H, W, C> or
// <..., H, W, C>.
TransformPtr make_gaussian_blur(int64_t kx, int64_t ky, double sx, double sy);

// ConvertColor(mode): OpenCV's cvtColor for MindSpore's ConvertMode values 0..11 (BGR2BGRA,
// BGRA2BGR, BGR2RGBA, RGBA2BGR, BGR2RGB, BGRA2RGBA, BGR2GRAY, RGB2GRAY, GRAY2BGR, GRAY2BGRA,
// BGRA2GRAY, RGBA2GRAY; the RGB / BGR twins of a conversion share its value): channel
// reorders, an opaque alpha added (the type's maximum, 1.0 for floats) or dropped, and gray
// by RGB2GRAY (15-bit integer weights, rounded, for uint8; 0.299 R + 0.587 G + 0.114 B
// otherwise), given as <H, W> as cv2 gives it. <H, W, C> images (<H, W> for the GRAY2 modes)
// of uint8, uint16 or float32 (transforms_vision_convert.cc).
TransformPtr make_convert_color(int mode);

}  // namespace mycel::data
