// _mycel: the extension module. Python sees mycel::Error as ValueError, TypeError,
// IndexError or RuntimeError; internal errors are RuntimeErrors that say "internal error".
// An index out of range is mycel.IndexError, a subclass of both IndexError and RuntimeError:
// Python code catches it as an IndexError, MindSpore programs (whose CPU kernels raise
// RuntimeError for it) as a RuntimeError.
#include "python/module.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "base/error.h"
#include "base/interrupt.h"
#include "base/parallel.h"
#include "ir/depth.h"
#include "kernels/kernel_table.h"
#include "runtime/op_profile.h"
#include "tensor/allocator.h"
#include "tensor/random.h"

namespace pyb = pybind11;

namespace mycel::py {

void bind_runtime(pyb::module_& m) {
  m.def("set_seed", [](int64_t seed) {
    MC_CHECK(seed >= 0, Value, "set_seed: the seed must be non-negative, but got ", seed, ".");
    set_global_seed(static_cast<uint64_t>(seed));
  });
  m.def("get_seed", []() { return static_cast<int64_t>(global_seed()); });
  pyb::class_<RandomState>(m, "_RandomState", "A snapshot of the random generators' state.")
      .def(pyb::init<>())
      .def_readwrite("seed", &RandomState::seed)
      .def_readwrite("offset", &RandomState::offset)
      .def_readwrite("instances", &RandomState::instances);
  m.def(
      "_random_state", []() { return random_state(); },
      "The random generators' state: the global seed and counter, each seeded primitive's "
      "position.");
  m.def(
      "_set_random_state", [](const RandomState& s) { set_random_state(s); },
      "Sets the random generators' state, as _random_state gave it.");
  m.def(
      "_set_recursion_limit", [](int limit) { ir::set_max_call_depth(limit); },
      "Sets how many calls GRAPH mode's compiler specialises inside one another.");
  m.def("_get_recursion_limit", []() { return ir::max_call_depth(); });
  m.def(
      "_set_deterministic", [](bool on) { set_deterministic(on); },
      "Deterministic mode: device kernels that accumulate with atomics run on the host.");
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
  m.def(
      "_sigint_handler_changed", []() { sigint_handler_changed(); },
      "Called by mycel's wrapper of signal.signal: chain the SIGINT handler again.");
  m.def("empty_cache", []() { empty_cache(); });
  // The op profiler (runtime/op_profile.h), read by mycel.Profiler.
  m.def(
      "_profiler_start", [](bool keep) { OpProfile::start(keep); }, pyb::arg("keep") = false);
  m.def("_profiler_stop", []() { OpProfile::stop(); });
  m.def("_profiler_active", []() { return OpProfile::active() != nullptr; });
  m.def(
      "_profiler_rows",
      [](bool typed) {
        pyb::list out;
        for (const ProfileRow& r : OpProfile::rows(typed))
          out.append(pyb::make_tuple(r.name, r.calls, r.wall_s, r.cpu_s));
        return out;
      },
      pyb::arg("typed") = false,
      "(name, calls, wall seconds, CPU seconds) per op (typed: per op and result type), most "
      "CPU time first.");
  m.def(
      "_profiler_events",
      []() {
        int64_t dropped = 0;
        pyb::list out;
        for (const ProfileEvent& e : OpProfile::events(&dropped))
          out.append(pyb::make_tuple(e.name, e.start_us, e.dur_us, e.thread));
        return pyb::make_tuple(out, dropped);
      },
      "([(name, start us, duration us, thread)], calls past the timeline's bound).");
}

}  // namespace mycel::py

namespace mycel::py {
// py_summary.cc: the record writer of summary event files (declared here, not in module.h,
// which every binding file includes).
void bind_summary(pybind11::module_& m);
}  // namespace mycel::py

PYBIND11_MODULE(_mycel, m) {
  m.doc() = "mycel's C++ core. Use the mycel package, not this module.";
  mycel::py::set_main_thread();
  static PyObject* index_error = [] {
    PyObject* bases = PyTuple_Pack(2, PyExc_IndexError, PyExc_RuntimeError);
    PyObject* t = PyErr_NewExceptionWithDoc(
        "mycel.IndexError",
        "An index out of range: an IndexError, and a RuntimeError as MindSpore raises.", bases,
        nullptr);
    Py_XDECREF(bases);
    return t;
  }();
  if (index_error == nullptr) throw pyb::error_already_set();
  m.attr("IndexError") = pyb::handle(index_error);
  // A failed assert in graph code (a RuntimeError whose message starts "AssertionError"): an
  // AssertionError, as Python's, and a RuntimeError, as mycel raised before.
  static PyObject* assertion_error = [] {
    PyObject* bases = PyTuple_Pack(2, PyExc_AssertionError, PyExc_RuntimeError);
    PyObject* t = PyErr_NewExceptionWithDoc(
        "mycel.AssertionError",
        "A failed assert in graph code: an AssertionError, and a RuntimeError.", bases, nullptr);
    Py_XDECREF(bases);
    return t;
  }();
  if (assertion_error == nullptr) throw pyb::error_already_set();
  m.attr("AssertionError") = pyb::handle(assertion_error);
  // A name graph code cannot resolve (a ValueError whose message starts "NameError" or
  // "UnboundLocalError", the parser's): Python's exception, and a ValueError as mycel raised
  // before.
  static PyObject* name_error = [] {
    PyObject* bases = PyTuple_Pack(2, PyExc_NameError, PyExc_ValueError);
    PyObject* t = PyErr_NewExceptionWithDoc(
        "mycel.NameError", "An unknown name in graph code: a NameError, and a ValueError.", bases,
        nullptr);
    Py_XDECREF(bases);
    return t;
  }();
  if (name_error == nullptr) throw pyb::error_already_set();
  m.attr("NameError") = pyb::handle(name_error);
  static PyObject* unbound_error = [] {
    PyObject* bases = PyTuple_Pack(2, PyExc_UnboundLocalError, PyExc_ValueError);
    PyObject* t = PyErr_NewExceptionWithDoc(
        "mycel.UnboundLocalError",
        "A local read before graph code assigned it: an UnboundLocalError, and a ValueError.",
        bases, nullptr);
    Py_XDECREF(bases);
    return t;
  }();
  if (unbound_error == nullptr) throw pyb::error_already_set();
  m.attr("UnboundLocalError") = pyb::handle(unbound_error);
  pyb::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const mycel::Error& e) {
      PyObject* type = PyExc_RuntimeError;
      switch (e.kind()) {
        case mycel::ErrorKind::Value:
          type = e.message().rfind("NameError: ", 0) == 0           ? name_error
                 : e.message().rfind("UnboundLocalError: ", 0) == 0 ? unbound_error
                                                                    : PyExc_ValueError;
          break;
        case mycel::ErrorKind::Type:
          type = PyExc_TypeError;
          break;
        case mycel::ErrorKind::Index:
          type = index_error;
          break;
        case mycel::ErrorKind::Recursion:
          type = PyExc_RecursionError;
          break;
        case mycel::ErrorKind::Overflow:
          type = PyExc_OverflowError;
          break;
        case mycel::ErrorKind::Runtime:
          type = e.message().rfind("AssertionError", 0) == 0 ? assertion_error : PyExc_RuntimeError;
          break;
        case mycel::ErrorKind::Internal:
          type = PyExc_RuntimeError;
          break;
      }
      // A NotImplementedError of Python code run at compile time, or raised by a graph,
      // is a Runtime error whose text names it: it is raised as NotImplementedError (a
      // RuntimeError subclass, so handlers of RuntimeError still catch it).
      static const std::string kNotImpl = "NotImplementedError: ";
      std::string text = e.message();
      if (e.kind() == mycel::ErrorKind::Runtime && text.rfind(kNotImpl, 0) == 0) {
        type = PyExc_NotImplementedError;
        text = text.substr(kNotImpl.size());
      }
      // Messages quote names and paths from files (a MINDIR node name, a MindRecord path) that
      // need not be UTF-8: bad bytes become \xNN escapes rather than an empty message.
      PyObject* msg = PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()),
                                           "backslashreplace");
      if (msg == nullptr) {
        PyErr_Clear();
        PyErr_SetString(type, "(an error message that could not be decoded)");
      } else {
        PyErr_SetObject(type, msg);
        Py_DECREF(msg);
      }
    }
  });
  mycel::py::bind_dtype(m);
  mycel::py::bind_tensor(m);
  mycel::py::bind_ops(m);
  mycel::py::bind_runtime(m);
  mycel::py::bind_device(m);
  mycel::py::bind_comm(m);
  mycel::py::bind_parallel(m);
  mycel::py::bind_federated(m);
  mycel::py::bind_host_debug(m);
  mycel::py::bind_frontend(m);
  mycel::py::bind_graph(m);
  mycel::py::bind_grad(m);
  mycel::py::bind_export(m);
  mycel::py::bind_onnx(m);
  mycel::py::bind_checkpoint(m);
  mycel::py::bind_data(m);
  mycel::py::bind_lite(m);
  mycel::py::bind_summary(m);
}
