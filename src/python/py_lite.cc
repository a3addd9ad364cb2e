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
#include "lite/train.h"
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
  pyb::list predict(const std::vector<FloatArray>& arrays);
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

// Float32 arrays as the model's input tensors (shapes checked against the model's).
std::vector<lite::Tensor> to_inputs(std::vector<lite::Tensor> inputs,
                                    const std::vector<FloatArray>& arrays, const char* api,
                                    const char* hint = "") {
  MC_CHECK(arrays.size() == inputs.size(), Value, "For '", api, "', the model has ", inputs.size(),
           " input(s), but got ", arrays.size(), ".");
  for (size_t i = 0; i < arrays.size(); ++i) {
    lite::Dims shape(arrays[i].shape(), arrays[i].shape() + arrays[i].ndim());
    MC_CHECK(shape == inputs[i].Shape(), Value, "For '", api, "', input '", inputs[i].Name(),
             "' must have shape ", lite::dims_str(inputs[i].Shape()), ", but got ",
             lite::dims_str(shape), hint, ".");
    if (inputs[i].DataSize())
      std::memcpy(inputs[i].MutableData(), arrays[i].data(), inputs[i].DataSize());
  }
  return inputs;
}

pyb::list to_list(const std::vector<lite::Tensor>& outputs) {
  pyb::list out;
  for (const lite::Tensor& o : outputs) {
    FloatArray arr(std::vector<pyb::ssize_t>(o.Shape().begin(), o.Shape().end()));
    if (o.DataSize()) std::memcpy(arr.mutable_data(), o.Data(), o.DataSize());
    out.append(pyb::make_tuple(o.Name(), arr));
  }
  return out;
}

pyb::list LiteModel::predict(const std::vector<FloatArray>& arrays) {
  std::vector<lite::Tensor> inputs = to_inputs(model_.GetInputs(), arrays, "Model.predict",
                                               " (resize the model for other shapes)");
  std::vector<lite::Tensor> outputs;
  {
    pyb::gil_scoped_release nogil;
    model_.Predict(inputs, &outputs);
  }
  return to_list(outputs);
}

// A training model (lite/train.h).
class LiteTrainModel {
 public:
  void build(const std::string& path, int thread_num, bool verify_checksum,
             const lite::TrainCfg& cfg) {
    lite::Context ctx;
    ctx.thread_num = thread_num;
    ctx.verify_checksum = verify_checksum;
    pyb::gil_scoped_release nogil;
    model_.Build(path, ctx, cfg);
  }
  pyb::list inputs() const { return specs(model_.graph(), model_.graph().inputs); }
  pyb::list outputs() const { return specs(model_.graph(), model_.graph().outputs); }
  float train_step(const std::vector<FloatArray>& arrays,
                   const pyb::array_t<int32_t, pyb::array::c_style | pyb::array::forcecast>& y) {
    std::vector<lite::Tensor> in = to_inputs(model_.GetInputs(), arrays, "Model.train_step");
    lite::Tensor labels("labels", lite::DType::Int32, lite::Dims(y.shape(), y.shape() + y.ndim()));
    if (labels.DataSize()) std::memcpy(labels.MutableData(), y.data(), labels.DataSize());
    pyb::gil_scoped_release nogil;
    return model_.TrainStep(in, labels);
  }
  pyb::list predict(const std::vector<FloatArray>& arrays) {
    std::vector<lite::Tensor> in = to_inputs(model_.GetInputs(), arrays, "Model.predict"), out;
    {
      pyb::gil_scoped_release nogil;
      model_.Predict(in, &out);
    }
    return to_list(out);
  }
  void export_to(const std::string& path) const { model_.Export(path); }
  std::vector<std::string> trainable() const { return model_.TrainableNames(); }

 private:
  lite::TrainModel model_;
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
  pyb::class_<lite::TrainCfg>(m, "TrainCfg", "On-device training's settings (lite/train.h).")
      .def(pyb::init<>())
      .def_readwrite("optimizer", &lite::TrainCfg::optimizer)
      .def_readwrite("learning_rate", &lite::TrainCfg::learning_rate)
      .def_readwrite("momentum", &lite::TrainCfg::momentum)
      .def_readwrite("dampening", &lite::TrainCfg::dampening)
      .def_readwrite("nesterov", &lite::TrainCfg::nesterov)
      .def_readwrite("beta1", &lite::TrainCfg::beta1)
      .def_readwrite("beta2", &lite::TrainCfg::beta2)
      .def_readwrite("eps", &lite::TrainCfg::eps)
      .def_readwrite("weight_decay", &lite::TrainCfg::weight_decay)
      .def_readwrite("trainable", &lite::TrainCfg::trainable);
  pyb::class_<LiteTrainModel>(m, "LiteTrainModel", "A lite training model (lite/train.h).")
      .def(pyb::init<>())
      .def("build", &LiteTrainModel::build, pyb::arg("path"), pyb::arg("thread_num"),
           pyb::arg("verify_checksum"), pyb::arg("cfg"), "Reads a --trainModel=true .ms file.")
      .def("inputs", &LiteTrainModel::inputs, "(name, shape) of each input.")
      .def("outputs", &LiteTrainModel::outputs, "(name, shape) of each output.")
      .def("train_step", &LiteTrainModel::train_step, pyb::arg("inputs"), pyb::arg("labels"),
           "One optimizer step on a batch; returns the loss before it.")
      .def("predict", &LiteTrainModel::predict, pyb::arg("inputs"),
           "The forward pass with the current weights: (name, array) per output.")
      .def("export", &LiteTrainModel::export_to, pyb::arg("path"),
           "Writes the model with its current weights as a .ms file.")
      .def("trainable", &LiteTrainModel::trainable, "The names of the weights being trained.");
  m.def("convert_main", &tool_main<converter::convert_main>, pyb::arg("args"),
        "mycel_convert's command line: (exit status, report).");
  m.def("benchmark_main", &tool_main<lite::benchmark_main>, pyb::arg("args"),
        "mycel_benchmark's command line: (exit status, report).");
}

}  // namespace mycel::py
