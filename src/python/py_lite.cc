// _mycel._lite: the bindings of the lite runtime (lite/model.h), the converter
// (converter/converter.h) and the benchmark (lite/benchmark.h), for python/mycel/lite.
// Argument conversion only: numpy float32 arrays in and out, the C++ errors as Python's.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <sstream>

#include "base/error.h"
#include "converter/converter.h"
#include "lite/benchmark.h"
#include "lite/model.h"
#include "python/module.h"

namespace pyb = pybind11;

namespace mycel::py {

namespace {

using FloatArray = pyb::array_t<float, pyb::array::c_style | pyb::array::forcecast>;

pyb::list specs(const lite::Graph& g, const std::vector<int>& which) {
  pyb::list out;
  for (int t : which)
    out.append(pyb::make_tuple(g.tensors[t].name, pyb::tuple(pyb::cast(g.tensors[t].shape))));
  return out;
}

class LiteModel {
 public:
  void build(const std::string& path, int thread_num, bool verify_checksum, bool reference,
             bool bf16) {
    lite::Context ctx;
    ctx.precision = bf16 ? lite::Precision::BFloat16 : lite::Precision::Float32;
    ctx.thread_num = thread_num;
    ctx.verify_checksum = verify_checksum;
    ctx.reference = reference;
    pyb::gil_scoped_release nogil;
    model_.Build(path, ctx);
  }
  pyb::list inputs() const { return specs(model_.graph(), model_.graph().inputs); }
  pyb::list outputs() const { return specs(model_.graph(), model_.graph().outputs); }
  void resize(const std::vector<std::vector<int64_t>>& shapes) {
    model_.Resize(model_.GetInputs(), std::vector<lite::Dims>(shapes.begin(), shapes.end()));
  }
  pyb::list predict(const std::vector<FloatArray>& arrays) {
    std::vector<lite::Tensor> inputs = model_.GetInputs();
    MC_CHECK(arrays.size() == inputs.size(), Value, "For 'Model.predict', the model has ",
             inputs.size(), " input(s), but got ", arrays.size(), ".");
    for (size_t i = 0; i < arrays.size(); ++i) {
      const FloatArray& a = arrays[i];
      lite::Dims shape(a.shape(), a.shape() + a.ndim());
      MC_CHECK(shape == inputs[i].Shape(), Value, "For 'Model.predict', input '", inputs[i].Name(),
               "' must have shape ", lite::dims_str(inputs[i].Shape()), ", but got ",
               lite::dims_str(shape), " (resize the model for other shapes).");
      if (inputs[i].DataSize())
        std::memcpy(inputs[i].MutableData(), a.data(), inputs[i].DataSize());
    }
    std::vector<lite::Tensor> outputs;
    {
      pyb::gil_scoped_release nogil;
      model_.Predict(inputs, &outputs);
    }
    pyb::list out;
    for (const lite::Tensor& o : outputs) {
      FloatArray arr(std::vector<pyb::ssize_t>(o.Shape().begin(), o.Shape().end()));
      if (o.DataSize()) std::memcpy(arr.mutable_data(), o.Data(), o.DataSize());
      out.append(pyb::make_tuple(o.Name(), arr));
    }
    return out;
  }
  size_t arena_bytes() const { return model_.arena_bytes(); }
  // (node name, op, fused activation) per node: what the converter's passes left.
  pyb::list ops() const {
    static const char* acts[] = {"", "ReLU", "ReLU6", "Sigmoid", "Tanh"};
    pyb::list out;
    for (const lite::NodeDesc& n : model_.graph().nodes)
      out.append(
          pyb::make_tuple(n.name, lite::op_type_name(n.op), acts[static_cast<int>(n.a.act)]));
    return out;
  }

 private:
  lite::Model model_;
};

// A tool's command line run without the GIL: (exit status, what it printed).
template <int (*Main)(const std::vector<std::string>&, std::ostream&)>
pyb::tuple tool_main(const std::vector<std::string>& args) {
  std::ostringstream out;
  int status;
  {
    pyb::gil_scoped_release nogil;
    status = Main(args, out);
  }
  return pyb::make_tuple(status, out.str());
}

}  // namespace

void bind_lite(pyb::module_& parent) {
  pyb::module_ m = parent.def_submodule("_lite", "The lite runtime, converter and benchmark.");
  pyb::class_<LiteModel>(m, "LiteModel", "A lite model (lite/model.h).")
      .def(pyb::init<>())
      .def("build", &LiteModel::build, pyb::arg("path"), pyb::arg("thread_num") = 0,
           pyb::arg("verify_checksum") = true, pyb::arg("reference") = false,
           pyb::arg("bf16") = false, "Maps, checks and prepares a .ms file.")
      .def("inputs", &LiteModel::inputs, "(name, shape) of each input.")
      .def("outputs", &LiteModel::outputs, "(name, shape) of each output.")
      .def("resize", &LiteModel::resize, pyb::arg("shapes"), "New shapes for the inputs.")
      .def("predict", &LiteModel::predict, pyb::arg("inputs"),
           "Runs on float32 arrays; returns (name, array) per output.")
      .def("ops", &LiteModel::ops, "(node name, op, fused activation) per node.")
      .def_property_readonly("arena_bytes", &LiteModel::arena_bytes,
                             "The planned activation arena's size in bytes.");
  m.def("convert_main", &tool_main<converter::convert_main>, pyb::arg("args"),
        "mycel_convert's command line: (exit status, report).");
  m.def("benchmark_main", &tool_main<lite::benchmark_main>, pyb::arg("args"),
        "mycel_benchmark's command line: (exit status, report).");
}

}  // namespace mycel::py
