// Python binding of the TFRecord-framed record writer (base/record_io.h), used by
// mycel.train.summary to write summary event files:
//
//   _C._RecordWriter(path, who, append=False)   opens (truncates, or extends) the file
//       .write(data: bytes)   one framed record: length, its masked CRC-32C, data, data CRC
//       .flush()  .close()  .closed  .path  .bytes
//   _C._crc32c(data: bytes) -> int, _C._masked_crc32c(data: bytes) -> int
//
// Errors (cannot open, write after close) are RuntimeErrors naming `who` and the path. The
// writes run without the GIL.
#include <pybind11/pybind11.h>

#include <string>

#include "base/record_io.h"
#include "python/module.h"

namespace pyb = pybind11;

namespace mycel::py {

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
