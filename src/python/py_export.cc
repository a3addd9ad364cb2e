// Python bindings of MINDIR export and load (serialize/mindir.h), used by
// mycel.train.export and nn.GraphCell:
//
//   _C._export_mindir(fn, inputs, version) -> bytes
//       compiles fn (a function or a Cell's bound construct) for the example inputs' dtypes
//       and shapes as GRAPH mode does (compiler::compile up to the passes, options from the
//       environment) and serialises the result;
//   _C._load_mindir(data, file_name) -> MindIRGraph
//       rebuilds, checks and compiles a file's graph; MindIRGraph.run(inputs, weights)
//       checks the inputs against the exported dtypes and shapes and runs the graph
//       without the GIL.
#include <pybind11/stl.h>

#include "compiler/compile.h"
#include "frontend/py_convert.h"
#include "frontend/py_host.h"
#include "frontend/py_value.h"
#include "python/module.h"
#include "serialize/mindir.h"

namespace pyb = pybind11;

namespace mycel::py {

namespace {

using ir::AbsPtr;
using ir::Abstract;
using ir::Value;

std::string type_name(pyb::handle h) {
  return pyb::str(pyb::type::of(h).attr("__name__")).cast<std::string>();
}

std::string meta_str(DType dt, const Shape& shape) {
  std::string s = str(dtype_name(dt), "[");
  for (size_t i = 0; i < shape.size(); ++i) s += str(i ? ", " : "", shape[i]);
  return s + "]";
}

pyb::bytes export_mindir(pyb::object fn, const pyb::sequence& inputs, const std::string& version) {
  std::vector<AbsPtr> sig;
  for (size_t i = 0; i < inputs.size(); ++i) {
    pyb::handle h = inputs[i];
    MC_CHECK(is_tensor(h), Type, "For 'export', the inputs must be Tensors, but input ", i,
             " is a ", type_name(h), ".");
    const Tensor& t = tensor_of(h);
    sig.push_back(Abstract::tensor(t.dtype(), t.shape()));
  }
  std::unique_ptr<ir::Host> host = frontend::make_py_host();
  ir::Module src, out;
  // As GRAPH mode compiles, without the executable.
  compiler::CompileResult r =
      compiler::compile(*host, src, out, frontend::wrap_host(fn), sig, compile_options(),
                        str("'", qualname(fn), "' for export"), compiler::Stage::Optimize);
  serialize::ExportSpec spec;
  spec.entry = r.entry;
  spec.num_inputs = sig.size();
  spec.producer_version = version;
  for (const Value& w : r.weights) {
    spec.weight_names.push_back(pyb::str(frontend::unwrap_host(w).attr("name")));
    spec.weights.push_back(*host->weight(w));
  }
  return pyb::bytes(serialize::export_mindir(spec));
}

// A loaded MINDIR file: what mycel.load returns and nn.GraphCell runs.
class MindIRGraph {
 public:
  MindIRGraph(serialize::LoadedModel m, std::string file)
      : m_(std::move(m)), file_(std::move(file)) {}

  pyb::object run(const pyb::sequence& inputs, const pyb::sequence& weights) const {
    MC_CHECK(inputs.size() == m_.inputs.size(), Type, "For 'GraphCell', the graph loaded from '",
             file_, "' takes ", m_.inputs.size(), " input(s), but got ", inputs.size(), ".");
    MC_ASSERT(weights.size() == m_.weights.size(), "GraphCell: ", weights.size(), " weights for ",
              m_.weights.size());
    std::vector<Value> args;
    for (size_t i = 0; i < inputs.size(); ++i) {
      pyb::handle h = inputs[i];
      MC_CHECK(is_tensor(h), Type, "For 'GraphCell', input ", i, " must be a Tensor, but got a ",
               type_name(h), ".");
      check(tensor_of(h), m_.inputs[i], str("input ", i, " ('", m_.input_names[i], "')"));
      args.push_back(Value::tensor(tensor_of(h)));
    }
    for (size_t i = 0; i < weights.size(); ++i) {
      pyb::handle h = weights[i];
      MC_CHECK(is_tensor(h), Type, "For 'GraphCell', weight '", m_.weight_names[i],
               "' must be a Tensor, but got a ", type_name(h), ".");
      check(tensor_of(h), m_.entry->param(m_.inputs.size() + i)->abstract(),
            str("weight '", m_.weight_names[i], "'"));
      args.push_back(Value::tensor(tensor_of(h)));
    }
    Value out;
    {
      pyb::gil_scoped_release nogil;
      out = m_.exe->run(args, nullptr);
    }
    return frontend::to_python(out);
  }

  const std::vector<std::string>& weight_names() const { return m_.weight_names; }
  const std::vector<Tensor>& weights() const { return m_.weights; }
  const std::string& file_name() const { return file_; }

  // (shape, dtype) per input, as exported.
  pyb::list input_specs() const {
    pyb::list out;
    for (const AbsPtr& a : m_.inputs)
      out.append(pyb::make_tuple(
          pyb::tuple(pyb::cast(std::vector<int64_t>(a->shape.begin(), a->shape.end()))),
          dtype_object(a->dtype)));
    return out;
  }

  std::string ir() const { return ir::print_graph(m_.entry); }

 private:
  void check(const Tensor& t, const AbsPtr& want, const std::string& what) const {
    if (!want || !want->is_tensor()) return;
    MC_CHECK(t.dtype() == want->dtype, Type, "For 'GraphCell', ", what, " must be ",
             meta_str(want->dtype, want->shape), " as exported to '", file_, "', but got ",
             meta_str(t.dtype(), t.shape()), ".");
    MC_CHECK(t.shape() == want->shape, Value, "For 'GraphCell', ", what, " must be ",
             meta_str(want->dtype, want->shape), " as exported to '", file_, "', but got ",
             meta_str(t.dtype(), t.shape()), ".");
  }

  serialize::LoadedModel m_;
  std::string file_;
};

}  // namespace

pyb::object make_mindir_graph(serialize::LoadedModel&& m, const std::string& file) {
  return pyb::cast(MindIRGraph(std::move(m), file));
}

void bind_export(pyb::module_& m) {
  m.def("_export_mindir", &export_mindir, pyb::arg("fn"), pyb::arg("inputs"),
        pyb::arg("version") = "",
        "Compiles fn for the example inputs and returns the MINDIR file's bytes.");
  m.def(
      "_load_mindir",
      [](const pyb::bytes& data, const std::string& file_name) {
        std::string_view bytes(data);
        return MindIRGraph(serialize::import_mindir(bytes, file_name), file_name);
      },
      pyb::arg("data"), pyb::arg("file_name"),
      "Rebuilds, checks and compiles the graph of a MINDIR file's bytes.");
  pyb::class_<MindIRGraph>(m, "MindIRGraph",
                           "A graph loaded from a MINDIR file (mycel.load); nn.GraphCell runs it.")
      .def("run", &MindIRGraph::run, pyb::arg("inputs"), pyb::arg("weights"),
           "Runs the graph on the inputs and the weights (Tensors, in weight_names order).")
      .def_property_readonly("weight_names", &MindIRGraph::weight_names,
                             "The names of the stored weights, in order.")
      .def_property_readonly("weights", &MindIRGraph::weights,
                             "The stored weights (Tensors), in weight_names order.")
      .def_property_readonly("input_specs", &MindIRGraph::input_specs,
                             "(shape, dtype) of each input, as exported.")
      .def_property_readonly("file_name", &MindIRGraph::file_name, "The file it was loaded from.")
      .def("ir", &MindIRGraph::ir, "The loaded graph in the IR text form.")
      .def("__repr__", [](const MindIRGraph& g) {
        return str("MindIRGraph('", g.file_name(), "', ", g.input_specs().size(), " input(s), ",
                   g.weights().size(), " weight(s))");
      });
}

}  // namespace mycel::py
