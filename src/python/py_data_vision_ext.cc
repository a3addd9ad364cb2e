// Bindings of the transforms in src/data/transforms_vision_ext.h (geometric warps and colour
// adjustments) for mycel.dataset.vision. Arguments arrive validated by the Python classes
// (vision_geometry.py, vision_color.py); interpolation comes as MindSpore's lower-case name.
#include <pybind11/stl.h>

#include "data/transforms_vision_ext.h"
#include "python/py_data.h"

namespace mycel::py {

void bind_data_vision_ext(pyb::module_& m) {
  using namespace pybind11::literals;
  namespace d = data;
  using Points = std::array<std::array<double, 2>, 4>;

  m.def(
      "Affine",
      [](double degrees, std::array<double, 2> translate, double scale, std::array<double, 2> shear,
         const std::string& interp, std::vector<double> fill) {
        return d::make_affine(degrees, translate, scale, shear,
                              d::interp_from_name(interp, "Affine"), std::move(fill));
      },
      "degrees"_a, "translate"_a, "scale"_a, "shear"_a, "interpolation"_a, "fill_value"_a);
  m.def(
      "RandomAffine",
      [](std::array<double, 2> degrees, std::array<double, 4> translate,
         std::array<double, 2> scale, std::array<double, 4> shear, const std::string& interp,
         std::vector<double> fill) {
        return d::make_random_affine(degrees, translate, scale, shear,
                                     d::interp_from_name(interp, "RandomAffine"), std::move(fill));
      },
      "degrees"_a, "translate"_a, "scale"_a, "shear"_a, "interpolation"_a, "fill_value"_a);
  m.def(
      "Rotate",
      [](double degrees, const std::string& interp, bool expand, std::vector<double> center,
         std::vector<double> fill) {
        return d::make_rotate(degrees, d::interp_from_name(interp, "Rotate"), expand,
                              std::move(center), std::move(fill));
      },
      "degrees"_a, "interpolation"_a, "expand"_a, "center"_a, "fill_value"_a);
  m.def(
      "RandomRotation",
      [](std::array<double, 2> degrees, const std::string& interp, bool expand,
         std::vector<double> center, std::vector<double> fill) {
        return d::make_random_rotation(degrees, d::interp_from_name(interp, "RandomRotation"),
                                       expand, std::move(center), std::move(fill));
      },
      "degrees"_a, "interpolation"_a, "expand"_a, "center"_a, "fill_value"_a);
  m.def(
      "Perspective",
      [](Points start, Points end, const std::string& interp) {
        return d::make_perspective(start, end, d::interp_from_name(interp, "Perspective"));
      },
      "start_points"_a, "end_points"_a, "interpolation"_a);
  m.def(
      "RandomPerspective",
      [](double distortion, double prob, const std::string& interp) {
        return d::make_random_perspective(distortion, prob,
                                          d::interp_from_name(interp, "RandomPerspective"));
      },
      "distortion_scale"_a, "prob"_a, "interpolation"_a);

  auto kind_of = [](const std::string& k) {
    if (k == "brightness") return d::ColorAdjust::Brightness;
    if (k == "contrast") return d::ColorAdjust::Contrast;
    if (k == "saturation") return d::ColorAdjust::Saturation;
    if (k == "hue") return d::ColorAdjust::Hue;
    MC_CHECK(k == "sharpness", Value, "unknown colour adjustment '", k, "'.");
    return d::ColorAdjust::Sharpness;
  };
  m.def(
      "AdjustColor",
      [kind_of](const std::string& kind, double factor) {
        return d::make_adjust_color(kind_of(kind), factor);
      },
      "kind"_a, "factor"_a, "kind: brightness, contrast, saturation, hue or sharpness.");
  m.def(
      "RandomAdjust",
      [kind_of](const std::string& kind, std::array<double, 2> degrees, std::string name) {
        return d::make_random_adjust(kind_of(kind), degrees, std::move(name));
      },
      "kind"_a, "degrees"_a, "name"_a);
  m.def("RandomColorAdjust", &d::make_random_color_adjust, "brightness"_a, "contrast"_a,
        "saturation"_a, "hue"_a);
  m.def("AdjustGamma", &d::make_adjust_gamma, "gamma"_a, "gain"_a);
  m.def("AutoContrast", &d::make_auto_contrast, "cutoff"_a, "ignore"_a);
  m.def("Equalize", &d::make_equalize);
  m.def("Posterize", &d::make_posterize, "bits"_a);
  m.def("RandomPosterize", &d::make_random_posterize, "bits"_a);
  m.def("Solarize", &d::make_solarize, "threshold"_a);
  m.def("RandomSolarize", &d::make_random_solarize, "threshold"_a);
  m.def("Invert", &d::make_invert);
  m.def("RandomApply", &d::make_random_apply, "inner"_a, "prob"_a, "name"_a);
}

}  // namespace mycel::py
