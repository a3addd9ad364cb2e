// Python objects as IR values, and back.
//
// A Python object inside the IR is a host object (ValueKind::PyObj) holding a reference,
// compared by identity. to_value() converts data (None, bool, int, float, str, tuples,
// lists, dicts of them, mycel Tensors, mycel dtypes, Ellipsis, slices) into plain Values and
// wraps everything else; to_python() is its inverse (host objects unwrap to themselves,
// Graph and Closure values have no Python form and raise).
#pragma once

#include <pybind11/pybind11.h>

#include "ir/value.h"

namespace mycel::frontend {

namespace py = pybind11;

class PyHostObject final : public ir::HostObject {
 public:
  explicit PyHostObject(py::object obj) : obj_(std::move(obj)) {}
  ~PyHostObject() override;  // takes the GIL to drop the reference
  std::string repr() const override;
  size_t hash() const override;
  bool same(const ir::HostObject& other) const override;
  const py::object& object() const { return obj_; }

 private:
  py::object obj_;
};

ir::Value wrap_host(py::handle obj);         // always a host object
py::object unwrap_host(const ir::Value& v);  // the Python object of a host object value
ir::Value to_value(py::handle obj);
py::object to_python(const ir::Value& v);

}  // namespace mycel::frontend
