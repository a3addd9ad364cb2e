// Python bindings of PYNATIVE automatic differentiation (compiler/ad/pynative.h):
// _C.OpRecorder and _C.BackwardCache, used by mycel.ops.composite, and the grad API's rules
// (compiler/grad_spec.h) as _C._grad_* for its PYNATIVE path.
#include <pybind11/stl.h>

#include <memory>
#include <vector>

#include "compiler/ad/pynative.h"
#include "compiler/grad_spec.h"
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

// A function's output (tensors in tuples), or with `none_ok` a sensitivity for it, where
// None seeds an output that takes no gradient (an integer tensor), as GRAPH mode seeds it.
ir::Value tensor_tree(pyb::handle h, bool none_ok = false) {
  if (is_tensor(h)) return ir::Value::tensor(tensor_of(h));
  if (none_ok && h.is_none()) return ir::Value::none();
  if (pyb::isinstance<pyb::tuple>(h) || pyb::isinstance<pyb::list>(h)) {
    std::vector<ir::Value> items;
    for (pyb::handle e : h) items.push_back(tensor_tree(e, none_ok));
    return ir::Value::tuple(std::move(items));
  }
  throw Error(ErrorKind::Type,
              str("grad: the function must return a Tensor or a tuple of Tensors, but it returns ",
                  pyb::str(pyb::type::of(h).attr("__name__")).cast<std::string>()));
}

// OpRecorder.backward's on_ready: a Python callable told (index, gradient) as each gradient
// is computed, called through the runtime host, which takes the GIL and turns a Python
// exception into the mycel error that ends the backward run.
class ReadyCallback final : public vm::ResultObserver {
 public:
  ReadyCallback(vm::RuntimeHost* host, pyb::handle fn)
      : host_(host), fn_(fn.is_none() ? ir::Value() : frontend::wrap_host(fn)) {}
  void ready(size_t index, const ir::Value& item) override {
    host_->call(fn_, {ir::Value::integer(static_cast<int64_t>(index)), item});
  }

 private:
  vm::RuntimeHost* host_;
  ir::Value fn_;
};

// A gradient function's rules, its options (composite._GradFunction._mycel_grad[1]) parsed
// once: _C._GradRules, which the PYNATIVE path asks at each call.
struct GradRules {
  compiler::GradSpec spec;
};

// Tells Parameters (Host::weight) and names types for the rules' errors.
ir::Host& py_host() {
  static ir::Host* host = frontend::make_py_host().release();  // lives until exit
  return *host;
}

void bind_grad_rules(pyb::module_& m) {
  using frontend::to_python;
  using frontend::to_value;
  m.def(
      "_grad_options",
      [](bool value_and_grad, pyb::handle positions, pyb::handle weights, pyb::handle has_aux) {
        return to_python(compiler::grad_options(value_and_grad, to_value(positions),
                                                to_value(weights), to_value(has_aux)));
      },
      "The options of grad/value_and_grad(fn, positions, weights, has_aux), checked.");
  m.def(
      "_grad_operation_options",
      [](bool get_all, bool get_by_list, bool sens_param, pyb::handle weights) {
        return to_python(
            compiler::grad_operation_options(get_all, get_by_list, sens_param, to_value(weights)));
      },
      "The options of GradOperation(get_all, get_by_list, sens_param)(fn, weights), checked.");
  pyb::class_<GradRules>(m, "_GradRules", "A gradient function's rules (compiler/grad_spec.h).")
      .def(pyb::init([](pyb::handle options) {
        return GradRules{compiler::GradSpec::parse(to_value(options))};
      }))
      .def(
          "call",
          [](const GradRules& r, const pyb::tuple& args, bool check) {
            compiler::GradCall call;
            if (check) {
              std::vector<ir::AbsPtr> abs;
              for (pyb::handle a : args) abs.push_back(arg_abstract(to_value(a), py_host()));
              call = compiler::check_grad_call(r.spec, abs, py_host());
            } else {
              call = compiler::grad_positions(r.spec, args.size());
            }
            return call.positions;
          },
          pyb::arg("args"), pyb::arg("check"),
          "The positions of a call's wanted inputs; with check, the call is checked first.")
      .def(
          "target",
          [](const GradRules& r, pyb::handle out) {
            compiler::grad_target(r.spec, arg_abstract(to_value(out), py_host()));
            if (!r.spec.has_aux) return pyb::reinterpret_borrow<pyb::object>(out);
            return pyb::reinterpret_borrow<pyb::object>(PyTuple_GET_ITEM(out.ptr(), 0));
          },
          "The output to differentiate (checked): out, or out[0] with has_aux.")
      .def(
          "result",
          [](const GradRules& r, const std::vector<pyb::object>& input_grads,
             const std::vector<pyb::object>& weight_grads, pyb::object out) {
            std::vector<pyb::object> items;
            if (r.spec.has_aux)
              for (pyb::handle h : out) items.push_back(pyb::reinterpret_borrow<pyb::object>(h));
            auto tuple = [](const std::vector<pyb::object>& xs) {
              pyb::tuple t(xs.size());
              for (size_t i = 0; i < xs.size(); ++i) t[i] = xs[i];
              return pyb::object(t);
            };
            return compiler::grad_result(r.spec, compiler::grad_positions(r.spec, 0), input_grads,
                                         weight_grads, out, items, tuple);
          },
          "What the gradient function returns, from the gradients of its positions and weights.");
}

}  // namespace

// mycel._no_grad's switch: PYNATIVE recording off on this thread between enter() and exit()
// (record::Paused); pairs nest.
class RecordingPause {
 public:
  void enter() { paused_.emplace_back(std::make_unique<record::Paused>()); }
  void exit() {
    MC_CHECK(!paused_.empty(), Value, "_no_grad: exit() without enter()");
    paused_.pop_back();
  }

 private:
  std::vector<std::unique_ptr<record::Paused>> paused_;
};

void bind_grad(pyb::module_& m) {
  bind_grad_rules(m);
  pyb::class_<RecordingPause>(m, "_RecordingPause",
                              "PYNATIVE grad recording off on this thread between enter() and "
                              "exit() (mycel._no_grad).")
      .def(pyb::init<>())
      .def("enter", &RecordingPause::enter)
      .def("exit", &RecordingPause::exit);
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
      "_hook_recorded",
      [](pyb::handle x, pyb::object bprop) {
        MC_CHECK(is_tensor(x), Type, "For 'register_hook', the hooked object must be a Tensor");
        return record::emit_hook(frontend::wrap_host(bprop), tensor_of(x));
      },
      "In a PYNATIVE grad recording, routes the gradient of the recorded tensor x through "
      "bprop(x, out, dout) -> (d_x,) (Tensor.register_hook); False where no recording took "
      "it (x is a recording's own input or weight, or nothing records).");
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
          [](ad::OpRecorder& r, ad::BackwardCache& cache, pyb::handle out, pyb::handle sens,
             pyb::object on_ready) {
            std::vector<ir::Value> g;
            ir::Value o = tensor_tree(out), s = tensor_tree(sens, true);
            static std::unique_ptr<vm::RuntimeHost> host = frontend::make_py_runtime_host();
            before_graph_run();
            ReadyCallback ready(host.get(), on_ready);
            {
              pyb::gil_scoped_release nogil;
              g = r.backward(cache, o, s, host.get(), on_ready.is_none() ? nullptr : &ready);
            }
            pyb::tuple t(g.size());
            for (size_t i = 0; i < g.size(); ++i) t[i] = frontend::to_python(g[i]);
            return t;
          },
          pyb::arg("cache"), pyb::arg("out"), pyb::arg("sens"), pyb::arg("on_ready") = pyb::none(),
          "The gradients (inputs', then weights'); on_ready(index, gradient), when given, is "
          "called with each one as soon as the backward pass has computed it, while the rest "
          "of the backward runs (vm::ResultObserver).");
}

}  // namespace mycel::py
