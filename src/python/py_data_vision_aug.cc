// Bindings of the transforms in src/data/transforms_vision_aug.h (CutOut, RandomLighting, the
// batch mixers, UniformAugment and the bounding-box family) for mycel.dataset.vision. Arguments
// arrive validated by the Python classes (vision_aug.py); interpolation and padding modes come
// as MindSpore's lower-case names.
#include <pybind11/stl.h>

#include "data/transforms_vision_aug.h"
#include "python/py_data.h"

namespace mycel::py {

void bind_data_vision_aug(pyb::module_& m) {
  using namespace pybind11::literals;
  namespace d = data;

  m.def("CutOut", &d::make_cut_out, "length"_a, "num_patches"_a, "is_hwc"_a);
  m.def("RandomLighting", &d::make_random_lighting, "alpha"_a);
  m.def("MixUpBatch", &d::make_mix_up_batch, "alpha"_a);
  m.def("CutMixBatch", &d::make_cut_mix_batch, "nchw"_a, "alpha"_a, "prob"_a);
  m.def("UniformAugment", &d::make_uniform_augment, "ops"_a, "num_ops"_a,
        "ops: a list of chains (lists) of transforms.");
  m.def(
      "RandomCropWithBBox",
      [](int64_t h, int64_t w, std::array<int64_t, 4> padding, bool pad_if_needed,
         std::vector<double> fill, const std::string& mode) {
        return d::make_random_crop_with_bbox(h, w, padding, pad_if_needed, std::move(fill),
                                             d::border_from_name(mode, "RandomCropWithBBox"));
      },
      "h"_a, "w"_a, "padding"_a, "pad_if_needed"_a, "fill_value"_a, "padding_mode"_a);
  m.def("RandomFlipWithBBox", &d::make_random_flip_with_bbox, "prob"_a, "horizontal"_a);
  m.def(
      "ResizeWithBBox",
      [](int64_t h, int64_t w, const std::string& interp) {
        return d::make_resize_with_bbox(h, w, d::interp_from_name(interp, "ResizeWithBBox"));
      },
      "h"_a, "w"_a, "interpolation"_a, "w == 0 keeps the aspect ratio (shorter side to h).");
  m.def("RandomResizeWithBBox", &d::make_random_resize_with_bbox, "h"_a, "w"_a);
  m.def(
      "RandomResizedCropWithBBox",
      [](int64_t h, int64_t w, std::array<double, 2> scale, std::array<double, 2> ratio,
         const std::string& interp, int max_attempts) {
        return d::make_random_resized_crop_with_bbox(
            h, w, scale, ratio, d::interp_from_name(interp, "RandomResizedCropWithBBox"),
            max_attempts);
      },
      "h"_a, "w"_a, "scale"_a, "ratio"_a, "interpolation"_a, "max_attempts"_a);
  m.def(
      "PadToSize",
      [](std::array<int64_t, 2> size, std::vector<int64_t> offset, std::vector<double> fill,
         const std::string& mode) {
        return d::make_pad_to_size(size, std::move(offset), std::move(fill),
                                   d::border_from_name(mode, "PadToSize"));
      },
      "size"_a, "offset"_a, "fill_value"_a, "padding_mode"_a);
  m.def("RandomResize", &d::make_random_resize, "h"_a, "w"_a);
  m.def("BoundingBoxAugment", &d::make_bounding_box_augment, "ops"_a, "ratio"_a);
}

}  // namespace mycel::py
