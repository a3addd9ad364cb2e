// mycel.float32 and the other dtype objects.
#include <pybind11/pybind11.h>

#include "frontend/py_convert.h"
#include "python/module.h"

namespace pyb = pybind11;

namespace mycel::py {

void bind_dtype(pyb::module_& m) {
  pyb::class_<DTypeObj>(m, "DType", "A tensor element type, such as mycel.float32.")
      .def("__repr__", [](const DTypeObj& d) { return std::string(dtype_name(d.t)); })
      .def("__str__", [](const DTypeObj& d) { return std::string(dtype_name(d.t)); })
      .def("__eq__",
           [](const DTypeObj& a, pyb::handle b) {
             return pyb::isinstance<DTypeObj>(b) && b.cast<const DTypeObj&>().t == a.t;
           })
      .def("__hash__", [](const DTypeObj& d) { return static_cast<int>(d.t); })
      .def("__reduce__",  // pickles as the mycel.<name> singleton
           [](const DTypeObj& d) {
             return pyb::make_tuple(pyb::module_::import("mycel").attr("dtype_from_name"),
                                    pyb::make_tuple(std::string(dtype_numpy_name(d.t))));
           })
      .def_property_readonly("itemsize", [](const DTypeObj& d) { return dtype_size(d.t); })
      .def_property_readonly("is_floating_point",
                             [](const DTypeObj& d) { return is_floating(d.t); })
      .def_property_readonly("name",
                             [](const DTypeObj& d) { return std::string(dtype_numpy_name(d.t)); });
#define MC_X(e, ty, n, np)                                   \
  set_dtype_object(DType::e, pyb::cast(DTypeObj{DType::e})); \
  m.attr(np) = dtype_object(DType::e);
  MYCEL_DTYPES(MC_X)
#undef MC_X
  m.def("dtype_from_name", [](const std::string& s) {
    DType t;
    MC_CHECK(dtype_from_name(s, &t), Type, "unknown dtype '", s, "'.");
    return dtype_object(t);
  });
  m.def("promote_types", [](pyb::handle a, pyb::handle b) {
    return dtype_object(promote_types(to_dtype(a), to_dtype(b)));
  });
  // The dtype a binary op computes in for operands a and b (tensors or Python numbers, which
  // are weak: they never widen a tensor within its kind).
  m.def("result_type", [](pyb::handle a, pyb::handle b) {
    const Tensor* like = is_tensor(a) ? &tensor_of(a) : is_tensor(b) ? &tensor_of(b) : nullptr;
    return dtype_object(promote_types(operand(a, like).dtype(), operand(b, like).dtype()));
  });
}

}  // namespace mycel::py
