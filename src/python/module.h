// Shared declarations of the _mycel extension module. The bindings are thin: they convert
// arguments and call the C++ core; no op logic lives here.
#pragma once

#include <pybind11/pybind11.h>

#include "compiler/compile.h"
#include "compiler/host.h"
#include "frontend/py_runtime.h"  // DTypeObj, numpy_module, the main thread
#include "tensor/device.h"

namespace mycel::serialize {
struct LoadedModel;  // serialize/mindir.h
}

namespace mycel::py {

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
void bind_device(pybind11::module_& m);      // py_device.cc: devices (set_context's GPU)
void bind_comm(pybind11::module_& m);        // py_comm.cc: process groups (mycel.communication)
void bind_parallel(pybind11::module_& m);    // py_parallel.cc: layouts, redistribution plans
void bind_onnx(pybind11::module_& m);        // py_onnx.cc: ONNX import (mycel.lite.load_onnx)
void bind_lite(pybind11::module_& m);        // py_lite.cc: mycel.lite (runtime, converter)
// The compile options the environment asks for (compiler::CompileOptions::from_env), with
// the compile log written to Python's sys.stderr; call and compile with the GIL held.
// py_graph.cc; used by GRAPH mode and MINDIR export.
compiler::CompileOptions compile_options();
// fn's __qualname__ ("Net.construct"), else its type's name: for logs and errors.
std::string qualname(pybind11::handle fn);
// The abstract of a call's argument: tensors (and Parameters) by dtype and shape, anything
// else by value. py_graph.cc; GRAPH mode's signatures and PYNATIVE grad's checks.
ir::AbsPtr arg_abstract(const ir::Value& v, ir::Host& host);
// A loaded model as the MindIRGraph that mycel.load returns and nn.GraphCell runs (py_export.cc);
// `file` names it in errors. For the importers of other formats (py_onnx.cc).
pybind11::object make_mindir_graph(serialize::LoadedModel&& m, const std::string& file);
// "CPU" or "GPU" (and a GPU index) as a Device; errors say what is missing (no CUDA in
// this build, no GPU, an index out of range). py_device.cc.
Device parse_device(const std::string& target, int index);

}  // namespace mycel::py
