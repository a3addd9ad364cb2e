// Bindings of the image codecs and the built-in transforms (src/data/transforms.h): factories
// returning _data.Transform objects for mycel.dataset.vision / .transforms, and
// decode_image / encode_jpeg / encode_png. Arguments arrive validated by the Python classes;
// enum arguments come as MindSpore's lower-case names ("bilinear", "reflect").
#include <pybind11/stl.h>

#include "data/image_codec.h"
#include "data/transforms.h"
#include "python/py_data.h"

namespace mycel::py {

namespace {

pyb::bytes to_bytes(const std::vector<uint8_t>& v) {
  return pyb::bytes(reinterpret_cast<const char*>(v.data()), v.size());
}

// The numeric DataType a numpy dtype name names; a TypeError naming op and arg otherwise.
data::DataType numeric_type(const std::string& name, std::string_view op, std::string_view arg) {
  data::DataType t;
  MC_CHECK(data::data_type_from_name(name, &t), Type, op, ": ", arg,
           " must be a numeric numpy type name, but got '", name, "'.");
  return t;
}

}  // namespace

void bind_data_vision_ext(pyb::module_& m);
void bind_data_vision_aug(pyb::module_& m);
void bind_data_vision_policy(pyb::module_& m);  // py_data_vision_policy.cc

void bind_data_vision(pyb::module_& m) {
  using namespace pybind11::literals;
  namespace d = data;

  m.def(
      "decode_image",
      [](const pyb::buffer& data) {
        pyb::buffer_info info = data.request();
        MC_CHECK(info.ndim == 1 && info.itemsize == 1 && info.strides[0] == 1, Type,
                 "decode_image: expected bytes or a contiguous 1-D uint8 array, but got a buffer "
                 "of ",
                 info.ndim, " dimension(s) and ", info.itemsize, "-byte items.");
        auto* ptr = static_cast<const uint8_t*>(info.ptr);
        size_t size = static_cast<size_t>(info.size);
        d::Array out;
        {
          pyb::gil_scoped_release nogil;
          out = d::decode_image(ptr, size, str("the input (", size, " bytes)"));
        }
        return data_array_to_numpy(out);
      },
      "data"_a, "Decodes JPEG or PNG bytes to an RGB uint8 array [H, W, 3].");
  m.def(
      "encode_jpeg",
      [](const pyb::handle& image, int quality) {
        d::Array a = data_array_from_py(image, "encode_jpeg");
        std::vector<uint8_t> out;
        {
          pyb::gil_scoped_release nogil;
          out = d::encode_jpeg(a, quality);
        }
        return to_bytes(out);
      },
      "image"_a, "quality"_a = 95, "Encodes a uint8 [H, W] or [H, W, 1|3] image as JPEG bytes.");
  m.def(
      "encode_png",
      [](const pyb::handle& image) {
        d::Array a = data_array_from_py(image, "encode_png");
        std::vector<uint8_t> out;
        {
          pyb::gil_scoped_release nogil;
          out = d::encode_png(a);
        }
        return to_bytes(out);
      },
      "image"_a, "Encodes a uint8 [H, W] or [H, W, 1..4] image as PNG bytes.");

  m.def("Decode", &d::make_decode);
  m.def(
      "Resize",
      [](int64_t h, int64_t w, const std::string& interp) {
        return d::make_resize(h, w, d::interp_from_name(interp, "Resize"));
      },
      "h"_a, "w"_a, "interpolation"_a, "Resize to [h, w]; w = 0 keeps the aspect ratio.");
  m.def("CenterCrop", &d::make_center_crop, "h"_a, "w"_a);
  m.def(
      "RandomCrop",
      [](int64_t h, int64_t w, std::array<int64_t, 4> padding, bool pad_if_needed,
         std::vector<double> fill, const std::string& mode) {
        return d::make_random_crop(h, w, padding, pad_if_needed, std::move(fill),
                                   d::border_from_name(mode, "RandomCrop"));
      },
      "h"_a, "w"_a, "padding"_a, "pad_if_needed"_a, "fill_value"_a, "padding_mode"_a,
      "padding is (left, top, right, bottom).");
  m.def("RandomHorizontalFlip", &d::make_random_horizontal_flip, "prob"_a);
  m.def("RandomVerticalFlip", &d::make_random_vertical_flip, "prob"_a);
  m.def(
      "RandomResizedCrop",
      [](int64_t h, int64_t w, std::array<double, 2> scale, std::array<double, 2> ratio,
         const std::string& interp, int max_attempts) {
        return d::make_random_resized_crop(
            h, w, scale, ratio, d::interp_from_name(interp, "RandomResizedCrop"), max_attempts);
      },
      "h"_a, "w"_a, "scale"_a, "ratio"_a, "interpolation"_a, "max_attempts"_a);
  m.def("Normalize", &d::make_normalize, "mean"_a, "std"_a, "is_hwc"_a);
  m.def("HWC2CHW", &d::make_hwc2chw);
  m.def("Rescale", &d::make_rescale, "rescale"_a, "shift"_a);
  m.def(
      "ToTensor",
      [](const std::string& dtype) {
        return d::make_to_tensor(numeric_type(dtype, "ToTensor", "output_type"));
      },
      "output_type"_a, "HWC values / 255 to CHW of output_type ('float32').");
  m.def(
      "Pad",
      [](std::array<int64_t, 4> padding, std::vector<double> fill, const std::string& mode) {
        return d::make_pad(padding, std::move(fill), d::border_from_name(mode, "Pad"));
      },
      "padding"_a, "fill_value"_a, "padding_mode"_a, "padding is (left, top, right, bottom).");
  m.def(
      "TypeCast",
      [](const std::string& dtype) {
        return d::make_type_cast(numeric_type(dtype, "TypeCast", "data_type"));
      },
      "data_type"_a, "Casts to a numpy dtype given by name ('int32').");
  m.def("OneHot", &d::make_one_hot, "num_classes"_a, "smoothing_rate"_a);
  bind_data_vision_ext(m);  // the warps and colour adjustments (py_data_vision_ext.cc)
  bind_data_vision_aug(m);  // erasers, mixers, bounding boxes (py_data_vision_aug.cc)
  // random choices, policies, GaussianBlur, read modes (py_data_vision_policy.cc)
  bind_data_vision_policy(m);
}

}  // namespace mycel::py
