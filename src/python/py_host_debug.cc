// Test hooks into the compiler's Python host (frontend/py_host.h), as _mycel._host_*:
// each builds a fresh Module and host, runs one Host method and returns the IR value's
// text (Value::to_string) so tests can check conversions without a compiler. Also
// _tensor_assign, the primitive under mycel.Parameter (sharing and set_data).
#include <pybind11/stl.h>

#include "frontend/py_convert.h"
#include "frontend/py_host.h"
#include "frontend/py_value.h"
#include "ir/anf.h"
#include "python/module.h"

namespace pyb = pybind11;

namespace mycel::py {

namespace {

using frontend::to_python;
using frontend::to_value;
using frontend::wrap_host;

template <class F>
auto with_host(F f) {
  ir::Module m;
  std::unique_ptr<ir::Host> host = frontend::make_py_host();
  return f(m, *host);
}

}  // namespace

void bind_host_debug(pyb::module_& m) {
  m.def("_host_convert", [](pyb::handle obj) {
    return with_host(
        [&](ir::Module& mod, ir::Host& h) { return h.convert(mod, wrap_host(obj)).to_string(); });
  });
  // Converts every object of `objs` with one host into one module: the graphs the module
  // then holds (a function converted twice is parsed once).
  m.def("_host_module_graphs", [](const pyb::list& objs) {
    return with_host([&](ir::Module& mod, ir::Host& h) {
      for (pyb::handle o : objs) h.convert(mod, wrap_host(o));
      return mod.graphs().size();
    });
  });
  m.def("_host_to_value", [](pyb::handle obj) { return to_value(obj).to_string(); });
  m.def("_host_roundtrip", [](pyb::handle obj) { return to_python(to_value(obj)); });
  m.def("_host_getattr", [](pyb::handle obj, const std::string& name) {
    return with_host([&](ir::Module& mod, ir::Host& h) {
      return h.getattr(mod, wrap_host(obj), name).to_string();
    });
  });
  m.def("_host_callable", [](pyb::handle obj) {
    return with_host(
        [&](ir::Module& mod, ir::Host& h) { return h.callable(mod, wrap_host(obj)).to_string(); });
  });
  // Calls fn at "compile time": the arguments go through to_value first, as constants.
  m.def("_host_call", [](pyb::handle fn, const pyb::args& args, const pyb::kwargs& kwargs) {
    return with_host([&](ir::Module& mod, ir::Host& h) {
      std::vector<ir::Value> a;
      for (pyb::handle x : args) a.push_back(to_value(x));
      ir::Kwargs k;
      for (auto [key, v] : kwargs) k.emplace_back(key.cast<std::string>(), to_value(v));
      return h.call(mod, wrap_host(fn), a, k).to_string();
    });
  });
  m.def("_host_builtin_name", [](pyb::handle obj) {
    return with_host([&](ir::Module&, ir::Host& h) { return h.builtin_name(wrap_host(obj)); });
  });
  m.def("_host_weight", [](pyb::handle obj) -> pyb::object {
    auto w = with_host([&](ir::Module&, ir::Host& h) { return h.weight(wrap_host(obj)); });
    if (!w) return pyb::none();
    return pyb::cast(*w);
  });
  // isinstance(x, cls) on the abstract of x: its constant abstract, or with known=False the
  // broadened one (a tensor or scalar of unknown value).
  m.def(
      "_host_isinstance",
      [](pyb::handle x, pyb::handle cls, bool known) -> pyb::object {
        ir::AbsPtr a = ir::Abstract::constant(to_value(x));
        if (!known) a = ir::broaden(a);
        ir::Value c = to_value(cls);
        auto r = with_host([&](ir::Module&, ir::Host& h) { return h.isinstance(a, c); });
        if (!r) return pyb::none();
        return pyb::bool_(*r);
      },
      pyb::arg("x"), pyb::arg("cls"), pyb::arg("known") = true);
  m.def("_host_tensor_method", [](const std::string& name) {
    return with_host(
        [&](ir::Module& mod, ir::Host& h) { return h.tensor_method(mod, name).to_string(); });
  });
  m.def("_host_type_name", [](pyb::handle obj) {
    return with_host([&](ir::Module&, ir::Host& h) { return h.type_name(to_value(obj)); });
  });
  // dst (a Tensor or subclass instance) now refers to src's data: no copy.
  m.def("_tensor_assign", [](pyb::handle dst, pyb::handle src) {
    MC_CHECK(is_tensor(dst) && is_tensor(src), Type, "_tensor_assign takes two tensors.");
    pyb::cast<Tensor&>(dst) = tensor_of(src);
  });
}

}  // namespace mycel::py
