// Python bindings of PYNATIVE automatic differentiation (compiler/ad/pynative.h):
// _C.OpRecorder and _C.BackwardCache, used by mycel.ops.composite.
#include <pybind11/stl.h>

#include "compiler/ad/pynative.h"
#include "frontend/py_convert.h"
#include "frontend/py_host.h"
#include "frontend/py_value.h"
#include "python/module.h"

namespace pyb = pybind11;

namespace mycel::py {

namespace {

std::vector<Tensor> tensors(const pyb::sequence& s, const char* what) {
  std::vector<Tensor> r;
  for (pyb::handle h : s) {
    MC_CHECK(is_tensor(h), Type, "grad: ", what, " must be Tensors, but one is ",
             pyb::str(pyb::type::of(h).attr("__name__")).cast<std::string>());
    r.push_back(tensor_of(h));
  }
  return r;
}

ir::Value tensor_tree(pyb::handle h) {
  if (is_tensor(h)) return ir::Value::tensor(tensor_of(h));
  if (pyb::isinstance<pyb::tuple>(h) || pyb::isinstance<pyb::list>(h)) {
    std::vector<ir::Value> items;
    for (pyb::handle e : h) items.push_back(tensor_tree(e));
    return ir::Value::tuple(std::move(items));
  }
  throw Error(ErrorKind::Type,
              str("grad: the function must return a Tensor or a tuple of Tensors, but it returns ",
                  pyb::str(pyb::type::of(h).attr("__name__")).cast<std::string>()));
}

}  // namespace

void bind_grad(pyb::module_& m) {
  m.def(
      "_recording", [] { return record::active(); },
      "Whether a PYNATIVE grad records the ops run on this thread.");
  m.def(
      "_call_custom_bprop",
      [](pyb::function construct, pyb::object bprop, const pyb::sequence& inputs) {
        pyb::object out;
        {
          record::Paused paused;
          out = construct();
        }
        MC_CHECK(is_tensor(out), Type,
                 "in PYNATIVE grad, a Cell with its own bprop must return one Tensor");
        std::vector<Tensor> in = tensors(inputs, "inputs");
        record::emit_custom(frontend::wrap_host(bprop), in, tensor_of(out));
        return out;
      },
      "Calls construct() unrecorded and records one call whose gradient is bprop.");
  m.def(
      "_detached",
      [](pyb::handle t) {
        MC_CHECK(is_tensor(t), Type, "stop_gradient expects a Tensor");
        const Tensor& x = tensor_of(t);
        return x.view(x.shape());  // a new tensor sharing the data, unknown to recorders
      },
      "x as a new tensor sharing its data, outside any PYNATIVE grad recording.");
  pyb::class_<ad::BackwardCache>(m, "BackwardCache",
                                 "The compiled backward graphs of one gradient function.")
      .def(pyb::init<>())
      .def("__len__", &ad::BackwardCache::size);
  pyb::class_<ad::OpRecorder>(m, "OpRecorder",
                              "Records the ops run on this thread into IR for PYNATIVE grad.")
      .def(pyb::init([](const pyb::sequence& inputs, const pyb::sequence& weights) {
             return std::make_unique<ad::OpRecorder>(tensors(inputs, "inputs"),
                                                     tensors(weights, "weights"));
           }),
           pyb::arg("inputs"), pyb::arg("weights"))
      .def("stop", &ad::OpRecorder::stop)
      .def_property_readonly("num_ops", &ad::OpRecorder::num_ops)
      .def(
          "backward",
          [](ad::OpRecorder& r, ad::BackwardCache& cache, pyb::handle out, pyb::handle sens) {
            std::vector<ir::Value> g;
            ir::Value o = tensor_tree(out), s = tensor_tree(sens);
            static std::unique_ptr<vm::RuntimeHost> host = frontend::make_py_runtime_host();
            before_graph_run();
            {
              pyb::gil_scoped_release nogil;
              g = r.backward(cache, o, s, host.get());
            }
            pyb::tuple t(g.size());
            for (size_t i = 0; i < g.size(); ++i) t[i] = frontend::to_python(g[i]);
            return t;
          },
          pyb::arg("cache"), pyb::arg("out"), pyb::arg("sens"));
}

}  // namespace mycel::py
