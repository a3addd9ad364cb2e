// Python binding of the TFRecord-framed record writer (base/record_io.h), used by
// mycel.train.summary to write summary event files:
//
//   _C._RecordWriter(path, who, append=False)   opens (truncates, or extends) the file
//       .write(data: bytes)   one framed record: length, its masked CRC-32C, data, data CRC
//       .flush()  .close()  .closed  .path  .bytes
//   _C._crc32c(data: bytes) -> int, _C._masked_crc32c(data: bytes) -> int
//   _C._summary_graph(fn, inputs, name) -> bytes
//       compiles fn (a Cell's bound construct) for the example inputs as GRAPH mode does
//       (compiler::compile up to the passes) and returns the graph as a summary GraphProto
//       (serialize/summary_graph.h), for SummaryCollector's collect_graph.
//
// Errors (cannot open, write after close) are RuntimeErrors naming `who` and the path. The
// writes run without the GIL.
#include <pybind11/pybind11.h>

#include <string>

#include "base/record_io.h"
#include "compiler/compile.h"
#include "frontend/py_convert.h"
#include "frontend/py_host.h"
#include "frontend/py_value.h"
#include "python/module.h"
#include "serialize/summary_graph.h"

namespace pyb = pybind11;

namespace mycel::py {

namespace {

pyb::bytes summary_graph(pyb::object fn, const pyb::sequence& inputs, const std::string& name) {
  std::vector<ir::AbsPtr> sig;
  for (size_t i = 0; i < inputs.size(); ++i) {
    pyb::handle h = inputs[i];
    MC_CHECK(is_tensor(h), Type,
             "For 'SummaryCollector', the graph's inputs must be Tensors, "
             "but input ",
             i, " is a ", pyb::str(pyb::type::of(h).attr("__name__")).cast<std::string>(), ".");
    const Tensor& t = tensor_of(h);
    sig.push_back(ir::Abstract::tensor(t.dtype(), t.shape()));
  }
  std::unique_ptr<ir::Host> host = frontend::make_py_host();
  ir::Module src, out;
  compiler::CompileResult r = compiler::compile(
      *host, src, out, frontend::wrap_host(fn), sig, compile_options(),
      str("'", qualname(fn), "' for its summary graph"), compiler::Stage::Optimize);
  serialize::SummaryGraphSpec spec;
  spec.entry = r.entry;
  spec.num_inputs = sig.size();
  spec.name = name;
  for (const ir::Value& w : r.weights)
    spec.weight_names.push_back(pyb::str(frontend::unwrap_host(w).attr("name")));
  return pyb::bytes(serialize::summary_graph(spec));
}

}  // namespace

void bind_summary(pyb::module_& m) {
  pyb::class_<RecordWriter>(m, "_RecordWriter")
      .def(pyb::init<std::string, std::string, bool>(), pyb::arg("path"), pyb::arg("who"),
           pyb::arg("append") = false)
      .def("write",
           [](RecordWriter& w, const pyb::bytes& data) {
             std::string s = data;  // a copy: the bytes object is not read without the GIL
             pyb::gil_scoped_release nogil;
             w.write(s);
           })
      .def("flush",
           [](RecordWriter& w) {
             pyb::gil_scoped_release nogil;
             w.flush();
           })
      .def("close",
           [](RecordWriter& w) {
             pyb::gil_scoped_release nogil;
             w.close();
           })
      .def_property_readonly("closed", &RecordWriter::closed)
      .def_property_readonly("path", &RecordWriter::path)
      .def_property_readonly("bytes", &RecordWriter::bytes);
  m.def("_summary_graph", &summary_graph, pyb::arg("fn"), pyb::arg("inputs"), pyb::arg("name"),
        "Compiles fn for the example inputs; the graph as a summary GraphProto's bytes.");
  m.def("_crc32c", [](const pyb::bytes& data) {
    std::string s = data;
    return crc32c(s.data(), s.size());
  });
  m.def("_masked_crc32c", [](const pyb::bytes& data) {
    std::string s = data;
    return masked_crc32c(s.data(), s.size());
  });
}

}  // namespace mycel::py
