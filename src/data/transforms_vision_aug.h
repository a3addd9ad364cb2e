// More transforms of mindspore.dataset.vision, as factories: the random erasers and mixers
// (transforms_vision_aug.cc: CutOut, RandomLighting, MixUpBatch, CutMixBatch, UniformAugment,
// with PadToSize and RandomResize)
// and the bounding-box family (transforms_vision_bbox.cc). Arguments are validated by the
// Python classes (python/mycel/dataset/vision_aug.py); the factories check them again.
//
// Random draws come from the row's stream (RowRandom), so a result depends on the seed and the
// row, never on the number of workers; MindSpore's std::mt19937 draws are not reproduced.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "data/transforms.h"

namespace mycel::data {

// ----- erasers and mixers -----

// CutOut(length, num_patches, is_hwc): num_patches times, a length x length window whose top
// left corner is uniform in [-length, H] x [-length, W] (MindSpore's unbounded draw) is set to
// 0, clipped to the image. <H, W, C> images (is_hwc) or <C, H, W>, any numeric dtype; a
// RuntimeError when length exceeds the image ("box size is too large for image erase").
TransformPtr make_cut_out(int64_t length, int64_t num_patches, bool is_hwc);
// RandomLighting(alpha): AlexNet's PCA noise: three N(0, alpha) draws weight the ImageNet
// eigenvectors, and the resulting (r, g, b) offsets are added to every pixel, saturated to the
// dtype (rounded to nearest for integer images). <H, W, 3> images of int8 to int32, float16 to
// float64.
TransformPtr make_random_lighting(double alpha);
// MixUpBatch(alpha): images <N, H, W, C> or <N, C, H, W> and one-hot labels <N, K> or
// <N, L, K>: one lambda = x1 / (x1 + x2) with x1, x2 ~ Gamma(alpha, 1) for the batch, a random
// permutation p; image i becomes lambda * image i + (1 - lambda) * image p(i) (integer images
// rounded to nearest, saturated) and the labels likewise in float32.
TransformPtr make_mix_up_batch(double alpha);
// CutMixBatch(nchw, alpha, prob): as MindSpore's CutMixBatch on a batch (NHWC, or NCHW when
// nchw): a random permutation p; for each image i, lambda from Gamma(alpha, 1) draws as
// MixUpBatch, and with probability prob a box of sides sqrt(1 - lambda) times the image's
// (centre uniform, clipped) is pasted from image p(i), the labels (float32) mixed by the
// box's area fraction.
TransformPtr make_cut_mix_batch(bool nchw, double alpha, double prob);
// PadToSize(size, offset, fill, mode): pads an <H, W[, C]> image (C 1 or 3) to size = (h, w):
// offset = (top, left), or (v) for both, or empty for centred (the odd pixel at the bottom /
// right); fill and mode as make_pad. RuntimeErrors as MindSpore's for a too-big image.
TransformPtr make_pad_to_size(std::array<int64_t, 2> size, std::vector<int64_t> offset,
                              std::vector<double> fill, BorderMode mode);
// RandomResize(size): Resize (as make_resize; w == 0 keeps the aspect ratio) with the
// interpolation drawn from Linear, Nearest, Cubic and Area.
TransformPtr make_random_resize(int64_t h, int64_t w);
// UniformAugment(ops, num_ops): num_ops of the operations chosen without replacement (in their
// list order), each then applied with probability 1/2, in order, to the row. Each operation is
// a chain of transforms (a Compose).
TransformPtr make_uniform_augment(std::vector<std::vector<TransformPtr>> ops, int64_t num_ops);

// ----- bounding boxes -----
// Inputs are two columns: an <H, W[, C]> image and float32 boxes <N, >= 4> whose first four
// values are (x, y, width, height) in pixels; further values (labels, ...) pass through.
// Boxes are checked as MindSpore does (inside the image within 1e-4, non-negative corners):
// a RuntimeError "BoundingBox: ..." otherwise.

// RandomCropWithBBox: RandomCrop (arguments as make_random_crop) with the boxes shifted by the
// padding, cut to the window (boxes outside it dropped).
TransformPtr make_random_crop_with_bbox(int64_t h, int64_t w, std::array<int64_t, 4> padding,
                                        bool pad_if_needed, std::vector<double> fill,
                                        BorderMode mode);
// Random{Horizontal,Vertical}FlipWithBBox(prob): the flip with the boxes mirrored.
TransformPtr make_random_flip_with_bbox(double prob, bool horizontal);
// ResizeWithBBox(size, interpolation): Resize (as make_resize) with the boxes scaled.
TransformPtr make_resize_with_bbox(int64_t h, int64_t w, Interp interp);
// RandomResizeWithBBox(size): ResizeWithBBox with the interpolation drawn from Linear,
// Nearest, Cubic and Area.
TransformPtr make_random_resize_with_bbox(int64_t h, int64_t w);
// RandomResizedCropWithBBox: RandomResizedCrop's window (random_resized_crop_box) with the
// boxes cut to it and scaled.
TransformPtr make_random_resized_crop_with_bbox(int64_t h, int64_t w, std::array<double, 2> scale,
                                                std::array<double, 2> ratio, Interp interp,
                                                int max_attempts);
// BoundingBoxAugment(ops, ratio): each box with probability ratio: the window of the box (its
// corner and size truncated to integers) goes through ops (a chain of one-image transforms),
// is resized back to the window's size when the ops changed it, and is pasted back.
TransformPtr make_bounding_box_augment(std::vector<TransformPtr> ops, double ratio);

// The window of RandomResizedCrop (defined in transforms_vision.cc): up to max_attempts draws
// of an area fraction in scale and a log-uniform aspect ratio in ratio, else the whole image
// clipped to the ratio range, centred. Returns {x, y, width, height}.
std::array<int64_t, 4> random_resized_crop_box(int64_t img_h, int64_t img_w,
                                               std::array<double, 2> scale,
                                               std::array<double, 2> ratio, int max_attempts,
                                               RowRandom* rng);

}  // namespace mycel::data
