#include "frontend/py_runtime.h"

#include "base/interrupt.h"
#include "frontend/gil_once.h"

namespace pyb = pybind11;

namespace mycel::py {

pyb::module_& numpy_module() {
  static GilOnce<pyb::module_*> once;  // constant-initialised: no guard of its own
  return *once.get([] { return new pyb::module_(pyb::module_::import("numpy")); });
}

namespace {
unsigned long g_main_thread = 0;  // NOLINT: Python's main thread, set at import
}

void set_main_thread() {
  g_main_thread =
      pyb::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();
}

bool on_main_thread() { return PyThread_get_thread_ident() == g_main_thread; }

void before_graph_run() {
  if (on_main_thread()) chain_sigint_handler_if_changed();
}

}  // namespace mycel::py
