// Facts about the Python interpreter that the front end and the bindings share: the Python
// face of a DType, the numpy module, Python's main thread and the Ctrl-C chaining done before
// a graph runs without the GIL. Declared here, below the bindings (src/python), so that the
// front end does not include the binding layer (scripts/check_layers.sh).
#pragma once

#include <pybind11/pybind11.h>

#include "tensor/dtype.h"

namespace mycel::py {

// The Python face of a DType: mycel.float32 and friends are the ten instances.
struct DTypeObj {
  DType t;
};

// numpy, imported once (gil_once.h: no deadlock when threads race to it).
pybind11::module_& numpy_module();

// Records the calling thread as Python's main thread; the extension calls it at import.
void set_main_thread();
// Whether this is Python's main thread, the only one on which Python runs signal handlers.
bool on_main_thread();
// Call with the GIL held before a graph runs without it: on the main thread, chains mycel's
// SIGINT handler in front of Python's when it may have changed (base/interrupt.h), so
// Ctrl-C reaches the executor.
void before_graph_run();

}  // namespace mycel::py
