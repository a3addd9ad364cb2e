// Python binding of ONNX import (serialize/onnx_import.h), used by mycel.lite.load_onnx:
//
//   _C._load_onnx(data, file_name, input_shape, const_inputs) -> MindIRGraph
//       translates, checks and compiles an ONNX model's bytes; input_shape ({name: shape})
//       sizes symbolic input dimensions, const_inputs ({name: Tensor}) freezes inputs to
//       constants. Constant expressions fold through the eager dispatcher. The result is
//       what mycel.load returns: nn.GraphCell runs it.
#include <pybind11/stl.h>

#include "frontend/py_convert.h"
#include "python/module.h"
#include "serialize/onnx_import.h"

namespace pyb = pybind11;

namespace mycel::py {

namespace {

pyb::object load_onnx(const pyb::bytes& data, const std::string& file_name,
                      const std::map<std::string, std::vector<int64_t>>& input_shape,
                      const pyb::dict& const_inputs) {
  serialize::OnnxOptions opts;
  for (const auto& [name, dims] : input_shape)
    opts.input_shapes[name] = Shape(dims.begin(), dims.end());
  for (const auto& [k, v] : const_inputs) {
    MC_CHECK(pyb::isinstance<pyb::str>(k) && is_tensor(v), Type,
             "For 'load_onnx', const_inputs must map input names to Tensors.");
    opts.const_inputs[k.cast<std::string>()] = tensor_of(v);
  }
  opts.fold = &serialize::eager_fold;
  std::string_view bytes(data);
  serialize::LoadedModel m;
  {
    pyb::gil_scoped_release nogil;
    m = serialize::import_onnx(bytes, file_name, opts);
  }
  return make_mindir_graph(std::move(m), file_name);
}

}  // namespace

void bind_onnx(pyb::module_& m) {
  m.def("_load_onnx", &load_onnx, pyb::arg("data"), pyb::arg("file_name"), pyb::arg("input_shape"),
        pyb::arg("const_inputs"),
        "Translates, checks and compiles an ONNX model's bytes into a MindIRGraph.");
  m.def(
      "_onnx_supported_ops",
      [] {
        std::vector<std::string> out;
        for (std::string_view s : serialize::onnx_supported_ops()) out.emplace_back(s);
        return out;
      },
      "The ONNX op types load_onnx translates, sorted.");
}

}  // namespace mycel::py
