// Bindings of src/data/transforms_vision_policy.h (RandomApply, RandomChoice, RandomOrder,
// RandomSelectSubpolicy, AutoAugment, RandAugment, TrivialAugmentWide, GaussianBlur) and
// src/data/image_codec_io.h (read modes, PNG compression levels) for mycel.dataset.
// Arguments arrive validated by the Python classes (vision_policy.py, transforms_random.py);
// interpolation modes come as MindSpore's lower-case names.
#include <pybind11/stl.h>

#include "data/image_codec_io.h"
#include "data/transforms_vision_policy.h"
#include "python/py_data.h"

namespace mycel::py {

void bind_data_vision_policy(pyb::module_& m) {
  using namespace pybind11::literals;
  namespace d = data;

  m.def("RandomApplyChain", &d::make_random_apply_chain, "ops"_a, "prob"_a,
        "ops: a chain (list) of transforms run with probability prob.");
  m.def("RandomChoice", &d::make_random_choice, "ops"_a, "ops: a list of chains of transforms.");
  m.def("RandomOrder", &d::make_random_order, "ops"_a, "ops: a list of chains of transforms.");
  m.def("RandomSelectSubpolicy", &d::make_random_select_subpolicy, "policy"_a,
        "policy: a list of sub-policies, each a list of (chain, prob).");
  m.def(
      "AutoAugment",
      [](const std::string& policy, const std::string& interp, std::vector<double> fill) {
        d::AutoAugmentPolicy p = d::AutoAugmentPolicy::ImageNet;
        if (policy == "cifar10") {
          p = d::AutoAugmentPolicy::Cifar10;
        } else if (policy == "svhn") {
          p = d::AutoAugmentPolicy::Svhn;
        } else {
          MC_CHECK(policy == "imagenet", Value,
                   "AutoAugment: policy must be 'imagenet', 'cifar10' or 'svhn', but got '", policy,
                   "'.");
        }
        return d::make_auto_augment(p, d::interp_from_name(interp, "AutoAugment"), std::move(fill));
      },
      "policy"_a, "interpolation"_a, "fill_value"_a);
  m.def(
      "RandAugment",
      [](int64_t num_ops, int64_t magnitude, int64_t bins, const std::string& interp,
         std::vector<double> fill) {
        return d::make_rand_augment(num_ops, magnitude, bins,
                                    d::interp_from_name(interp, "RandAugment"), std::move(fill));
      },
      "num_ops"_a, "magnitude"_a, "num_magnitude_bins"_a, "interpolation"_a, "fill_value"_a);
  m.def(
      "TrivialAugmentWide",
      [](int64_t bins, const std::string& interp, std::vector<double> fill) {
        return d::make_trivial_augment_wide(bins, d::interp_from_name(interp, "TrivialAugmentWide"),
                                            std::move(fill));
      },
      "num_magnitude_bins"_a, "interpolation"_a, "fill_value"_a);
  m.def(
      "apply_augment",
      [](const pyb::handle& image, const std::string& aug, float magnitude,
         const std::string& interp, std::vector<double> fill) {
        d::Array a = data_array_from_py(image, "apply_augment");
        MC_CHECK(a.dtype() == d::DataType::UInt8 && a.ndim() == 3 && a.shape()[2] == 3, Type,
                 "apply_augment: the image must be uint8 <H, W, 3>, but got ", d::describe(a), ".");
        d::Array out;
        {
          pyb::gil_scoped_release nogil;
          out = d::apply_augment(a, aug, magnitude, d::interp_from_name(interp, "apply_augment"),
                                 fill, "apply_augment");
        }
        return data_array_to_numpy(out);
      },
      "image"_a, "op"_a, "magnitude"_a, "interpolation"_a, "fill_value"_a,
      "One augmentation op of the policies, by name, at a magnitude (for tests).");
  m.def("ConvertColor", &d::make_convert_color, "mode"_a, "mode: a vision.ConvertMode value.");
  m.def("GaussianBlur", &d::make_gaussian_blur, "kx"_a, "ky"_a, "sigma_x"_a, "sigma_y"_a);
  m.def(
      "decode_image_mode",
      [](const pyb::buffer& data, int mode) {
        pyb::buffer_info info = data.request();
        MC_CHECK(info.ndim == 1 && info.itemsize == 1 && info.strides[0] == 1, Type,
                 "decode_image: expected bytes or a contiguous 1-D uint8 array.");
        MC_CHECK(mode >= 0 && mode <= 2, Value, "decode_image: mode must be 0, 1 or 2, but got ",
                 mode, ".");
        auto* ptr = static_cast<const uint8_t*>(info.ptr);
        auto size = static_cast<size_t>(info.size);
        d::Array out;
        {
          pyb::gil_scoped_release nogil;
          out = d::decode_image_mode(ptr, size, static_cast<d::ReadMode>(mode),
                                     str("the input (", size, " bytes)"));
        }
        return data_array_to_numpy(out);
      },
      "data"_a, "mode"_a, "mode: 0 unchanged, 1 grayscale, 2 color (ImageReadMode's values).");
  m.def(
      "encode_png_level",
      [](const pyb::handle& image, int level) {
        d::Array a = data_array_from_py(image, "encode_png");
        std::vector<uint8_t> out;
        {
          pyb::gil_scoped_release nogil;
          out = d::encode_png_level(a, level);
        }
        return pyb::bytes(reinterpret_cast<const char*>(out.data()), out.size());
      },
      "image"_a, "compression_level"_a);
}

}  // namespace mycel::py
