// _mycel: the extension module. Python sees mycel::Error as ValueError, TypeError,
// IndexError or RuntimeError; internal errors are RuntimeErrors that say "internal error".
#include "python/module.h"

#include <pybind11/numpy.h>

#include "base/error.h"
#include "base/parallel.h"
#include "tensor/allocator.h"
#include "tensor/random.h"

namespace pyb = pybind11;

namespace mycel::py {

pyb::module_& numpy_module() {
  static pyb::module_* np = new pyb::module_(pyb::module_::import("numpy"));
  return *np;
}

void bind_runtime(pyb::module_& m) {
  m.def("set_seed", [](int64_t seed) {
    MC_CHECK(seed >= 0, Value, "set_seed: the seed must be non-negative, but got ", seed, ".");
    set_global_seed(static_cast<uint64_t>(seed));
  });
  m.def("get_seed", []() { return static_cast<int64_t>(global_seed()); });
  m.def("set_num_threads", [](int n) { set_num_threads(n); });
  m.def("get_num_threads", []() { return num_threads(); });
  m.def("memory_stats", []() {
    AllocatorStats s = allocator_stats();
    pyb::dict d;
    d["in_use"] = s.in_use;
    d["peak_in_use"] = s.peak_in_use;
    d["cached"] = s.cached;
    return d;
  });
  m.def("reset_peak_memory", []() { reset_peak_memory(); });
  m.def("empty_cache", []() { empty_cache(); });
}

}  // namespace mycel::py

PYBIND11_MODULE(_mycel, m) {
  m.doc() = "mycel's C++ core. Use the mycel package, not this module.";
  pyb::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const mycel::Error& e) {
      PyObject* type = PyExc_RuntimeError;
      switch (e.kind()) {
        case mycel::ErrorKind::Value:
          type = PyExc_ValueError;
          break;
        case mycel::ErrorKind::Type:
          type = PyExc_TypeError;
          break;
        case mycel::ErrorKind::Index:
          type = PyExc_IndexError;
          break;
        case mycel::ErrorKind::Recursion:
          type = PyExc_RecursionError;
          break;
        case mycel::ErrorKind::Runtime:
        case mycel::ErrorKind::Internal:
          type = PyExc_RuntimeError;
          break;
      }
      PyErr_SetString(type, e.what());
    }
  });
  mycel::py::bind_dtype(m);
  mycel::py::bind_tensor(m);
  mycel::py::bind_ops(m);
  mycel::py::bind_runtime(m);
  mycel::py::bind_host_debug(m);
  mycel::py::bind_frontend(m);
  mycel::py::bind_graph(m);
  mycel::py::bind_grad(m);
  mycel::py::bind_export(m);
  mycel::py::bind_data(m);
}
