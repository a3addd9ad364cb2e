// Shared declarations of the _mycel extension module. The bindings are thin: they convert
// arguments and call the C++ core; no op logic lives here.
#pragma once

#include <pybind11/pybind11.h>

#include "tensor/dtype.h"

namespace mycel::py {

// The Python face of a DType: mycel.float32 and friends are the ten instances.
struct DTypeObj {
  DType t;
};

pybind11::module_& numpy_module();

// Whether this is Python's main thread, the only one on which Python runs signal handlers.
bool on_main_thread();
// Call with the GIL held before a graph runs without it: on the main thread, chains mycel's
// SIGINT handler in front of Python's when it may have changed (base/interrupt.h), so
// Ctrl-C reaches the executor.
void before_graph_run();

void bind_dtype(pybind11::module_& m);
void bind_tensor(pybind11::module_& m);
void bind_ops(pybind11::module_& m);
void bind_runtime(pybind11::module_& m);
void bind_host_debug(pybind11::module_& m);  // py_host_debug.cc: _host_* test hooks
void bind_frontend(pybind11::module_& m);    // py_frontend.cc: _parse_ir debug hooks
void bind_graph(pybind11::module_& m);       // py_graph.cc: GraphFunction (compile and run)
void bind_grad(pybind11::module_& m);        // py_grad.cc: OpRecorder (PYNATIVE grad)
void bind_export(pybind11::module_& m);      // py_export.cc: MINDIR export and load
void bind_checkpoint(pybind11::module_& m);  // py_checkpoint.cc: the checkpoint reader
void bind_data(pybind11::module_& m);        // py_data*.cc: the data engine, as _mycel._data

}  // namespace mycel::py
