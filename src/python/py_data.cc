#include <pybind11/stl.h>

#include <cstring>

#include "data/source.h"
#include "data/transform.h"
#include "python/module.h"
#include "python/py_data.h"
#include "python/py_data_object.h"

namespace mycel::py {

using data::Array;
using data::DataType;

data::Array data_array_from_py(pyb::handle obj, std::string_view op) {
  if (is_row_object(obj)) return object_array_from_py(obj);  // a Python dict in a row
  pyb::module_& np = numpy_module();
  pyb::array arr = np.attr("asarray")(obj, pyb::arg("order") = "C");  // keeps 0-d arrays 0-d
  pyb::dtype dt = arr.dtype();
  char kind = dt.kind();
  Shape shape;
  for (pyb::ssize_t i = 0; i < arr.ndim(); ++i) shape.push_back(arr.shape(i));
  if (kind == 'U' || kind == 'S') {
    std::vector<std::string> values;
    values.reserve(static_cast<size_t>(arr.size()));
    pyb::list flat = arr.attr("reshape")(-1).attr("tolist")();
    for (pyb::handle v : flat) {
      if (kind == 'S') {
        values.push_back(
            pyb::cast<std::string>(pyb::bytes(pyb::reinterpret_borrow<pyb::object>(v))));
      } else {
        values.push_back(pyb::cast<std::string>(v));
      }
    }
    return Array::strings(std::move(values), shape, kind == 'S');
  }
  DataType t;
  std::string name = pyb::cast<std::string>(pyb::str(dt));
  MC_CHECK(kind != 'O' && kind != 'V' && data::data_type_from_name(name, &t), Type, op,
           ": cannot hold a numpy array of dtype ", name, " (shape ", shape_str(shape),
           "); use a bool, int, uint, float or str array.");
  Array a = Array::empty(t, shape);
  if (a.nbytes() > 0) std::memcpy(a.mutable_raw(), arr.data(), a.nbytes());
  return a;
}

pyb::object data_array_to_numpy(const data::Array& a, bool readonly) {
  if (a.dtype() == DataType::Object) return object_array_to_py(a, true);
  pyb::module_& np = numpy_module();
  std::vector<pyb::ssize_t> shape(a.shape().begin(), a.shape().end());
  if (a.dtype() == DataType::String && a.bytes()) {  // numpy bytes, as they came in
    pyb::list values;
    for (const std::string& s : a.str()) values.append(pyb::bytes(s));
    pyb::object out = np.attr("array")(values, "S");
    return out.attr("reshape")(pyb::cast(shape));
  }
  if (a.dtype() == DataType::String) {
    pyb::list values;
    for (const std::string& s : a.str()) {
      PyObject* u = PyUnicode_DecodeUTF8(s.data(), static_cast<pyb::ssize_t>(s.size()), nullptr);
      if (!u) {  // a ValueError with the bytes, not a bare UnicodeDecodeError
        PyErr_Clear();
        pyb::bytes raw(s.size() > 64 ? s.substr(0, 64) : s);
        MC_THROW(Value,
                 "a string value is not valid UTF-8 text: ", std::string(pyb::str(pyb::repr(raw))),
                 s.size() > 64 ? "..." : "", ".");
      }
      values.append(pyb::reinterpret_steal<pyb::object>(u));
    }
    pyb::object out = np.attr("array")(values, "str");
    return out.attr("reshape")(pyb::cast(shape));
  }
  pyb::dtype dt(std::string(data::data_type_name(a.dtype())));
  std::vector<pyb::ssize_t> strides(shape.size());
  pyb::ssize_t step = static_cast<pyb::ssize_t>(data::data_type_size(a.dtype()));
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = step;
    step *= shape[i];
  }
  pyb::capsule owner(new std::shared_ptr<Storage>(a.storage()),
                     [](void* p) { delete static_cast<std::shared_ptr<Storage>*>(p); });
  pyb::array out(dt, shape, strides, a.raw(), owner);
  if (readonly) out.attr("flags").attr("writeable") = false;
  return out;
}

void bind_data(pyb::module_& parent) {
  pyb::module_ m = parent.def_submodule("_data", "mycel's data engine (mycel.dataset internals)");

  pyb::class_<data::RandomAccessSource, data::SourcePtr>(m, "Source")
      .def_property_readonly(
          "name", [](const data::RandomAccessSource& s) { return std::string(s.name()); })
      .def("__len__", &data::RandomAccessSource::size)
      .def("columns", &data::RandomAccessSource::columns)
      .def("file_of_rows", &data::RandomAccessSource::file_of_rows)
      .def(
          "read",
          [](const data::RandomAccessSource& s, int64_t i) {
            MC_CHECK(i >= 0 && i < s.size(), Index, s.name(), ": row ", i, " is out of range for ",
                     s.size(), " rows.");
            data::Row row;
            if (s.needs_gil()) {
              row = s.read(i);
            } else {
              pyb::gil_scoped_release nogil;
              row = s.read(i);
            }
            pyb::list out;
            for (const Array& a : row) out.append(data_array_to_numpy(a, true));
            return pyb::tuple(out);
          },
          "Row i as a tuple of numpy arrays (for tests and eager use).");

  pyb::class_<data::Transform, data::TransformPtr>(m, "Transform")
      .def_property_readonly("name", [](const data::Transform& t) { return std::string(t.name()); })
      .def_property_readonly("batchable", &data::Transform::batchable)
      .def_property_readonly("random", &data::Transform::random)
      .def(
          "apply",
          [](const data::Transform& t, const pyb::list& inputs, int lead, uint64_t seed) {
            std::vector<Array> in;
            for (pyb::handle h : inputs) {
              in.push_back(data_array_from_py(h, t.name()));
              MC_CHECK(t.takes_objects() || in.back().dtype() != DataType::Object, Type, t.name(),
                       ": got a ", data::describe(in.back()), ", but it takes arrays.");
            }
            std::vector<Array> out;
            {
              pyb::gil_scoped_release nogil;
              data::RowRandom rng(seed, 0, 0, 0);
              out = t.apply(std::move(in), lead, &rng);
            }
            pyb::list res;
            for (const Array& a : out) res.append(data_array_to_numpy(a));
            return res;
          },
          pyb::arg("inputs"), pyb::arg("lead") = 0, pyb::arg("seed") = 0,
          "Applies the transform to numpy inputs (lead batch axes); random transforms draw "
          "from a stream of `seed`. Returns a list of numpy arrays.");

  bind_data_sources(m);
  bind_data_vision(m);
  bind_data_mindrecord(m);
  bind_data_engine(m);
  bind_data_audio(m);
  bind_data_text(m);
  bind_data_sources_vision(m);
  bind_data_video(m);
  bind_data_sources_more(m);
  bind_data_samplers_py(m);
  bind_data_cifar100(m);
}

}  // namespace mycel::py
