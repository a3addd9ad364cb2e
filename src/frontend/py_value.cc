// Python objects as IR values, and back (see py_value.h).
#include "frontend/py_value.h"

#include <climits>

#include "base/error.h"
#include "frontend/gil_once.h"
#include "frontend/py_convert.h"
#include "frontend/py_runtime.h"
#include "ir/depth.h"

namespace mycel::frontend {

namespace {

// mycel.common.parameter.Parameter, looked up once (a Parameter stays a host object so that
// specialisation can make it a weight input). Leaked on purpose: no Python object may be
// released after the interpreter is gone.
py::handle parameter_class() {
  static mycel::py::GilOnce<py::object*> once;  // frontend/gil_once.h: no deadlock on first use
  return *once.get([] {
    return new py::object(py::module_::import("mycel.common.parameter").attr("Parameter"));
  });
}

bool is_parameter(py::handle h) {
  int r = PyObject_IsInstance(h.ptr(), parameter_class().ptr());
  if (r < 0) throw py::error_already_set();
  return r == 1;
}

}  // namespace

PyHostObject::~PyHostObject() {
  if (!Py_IsInitialized()) {
    obj_.release();  // the interpreter is gone: nothing left to drop
    return;
  }
  py::gil_scoped_acquire gil;
  obj_ = py::object();
}

std::string PyHostObject::repr() const {
  py::gil_scoped_acquire gil;
  try {
    return py::repr(obj_).cast<std::string>();
  } catch (const py::error_already_set&) {
    return str(Py_TYPE(obj_.ptr())->tp_name, " object");
  }
}

size_t PyHostObject::hash() const { return std::hash<const void*>()(obj_.ptr()); }

bool PyHostObject::same(const ir::HostObject& other) const {
  auto* o = dynamic_cast<const PyHostObject*>(&other);
  return o != nullptr && o->obj_.ptr() == obj_.ptr();
}

ir::Value wrap_host(py::handle obj) {
  return ir::Value::host(std::make_shared<PyHostObject>(py::reinterpret_borrow<py::object>(obj)));
}

py::object unwrap_host(const ir::Value& v) {
  MC_ASSERT(v.is(ir::ValueKind::PyObj), "not a host object: ", v.to_string());
  auto* h = dynamic_cast<const PyHostObject*>(v.as_host().get());
  MC_ASSERT(h != nullptr, "a host object that is not a Python object");
  return h->object();
}

ir::Value to_value(py::handle obj) {
  // Containers nest: bound their depth, so that every later walk of the value (hashing,
  // printing, abstracts, destruction) is bounded too.
  thread_local int depth = 0;
  ir::DepthGuard guard(depth);
  if (guard.too_deep(ir::kMaxNesting))
    ir::throw_too_deep("a constant of nested tuples, lists, dicts or slices", ir::kMaxNesting);
  PyObject* p = obj.ptr();
  if (p == Py_None) return ir::Value::none();
  if (PyBool_Check(p)) return ir::Value::boolean(p == Py_True);
  // mycel.mutable's numbers and containers (common/api.py: int, float, tuple, list and dict
  // subclasses marked __ms_mutable__) are their plain values here.
  const bool marked = !PyLong_CheckExact(p) && !PyFloat_CheckExact(p) && !PyTuple_CheckExact(p) &&
                      !PyList_CheckExact(p) && !PyDict_CheckExact(p) &&
                      (PyLong_Check(p) || PyFloat_Check(p) || PyTuple_Check(p) || PyList_Check(p) ||
                       PyDict_Check(p)) &&
                      py::hasattr(obj, "__ms_mutable__");
  if (PyLong_CheckExact(p) || (marked && PyLong_Check(p))) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(p, &overflow);
    if (overflow != 0) return wrap_host(obj);  // beyond int64: stays a Python int
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    return ir::Value::integer(v);
  }
  if (PyFloat_CheckExact(p) || (marked && PyFloat_Check(p)))
    return ir::Value::real(PyFloat_AsDouble(p));
  if (PyComplex_CheckExact(p)) {
    // A complex literal is a 0-d tensor: complex64 when its parts are exact in float32 (so
    // float32 * 1j stays complex64, as in PYNATIVE, where a Python complex is weak), else
    // complex128.
    const Py_complex c = PyComplex_AsCComplex(p);
    const bool narrow = static_cast<double>(static_cast<float>(c.real)) == c.real &&
                        static_cast<double>(static_cast<float>(c.imag)) == c.imag;
    Tensor t = Tensor::empty({}, DType::Complex128);
    *t.data<complex128>() = complex128(c.real, c.imag);
    return ir::Value::tensor(narrow ? t.cast(DType::Complex64) : t);
  }
  if (PyUnicode_CheckExact(p)) return ir::Value::string(obj.cast<std::string>());
  if (p == Py_Ellipsis) return ir::Value::ellipsis();
  if (py::isinstance<mycel::py::DTypeObj>(obj))
    return ir::Value::dtype(obj.cast<const mycel::py::DTypeObj&>().t);
  if (mycel::py::is_tensor(obj)) {
    if (is_parameter(obj)) return wrap_host(obj);
    return ir::Value::tensor(mycel::py::tensor_of(obj));
  }
  if (PySlice_Check(p)) {
    auto* s = reinterpret_cast<PySliceObject*>(p);
    return ir::Value::slice(to_value(s->start), to_value(s->stop), to_value(s->step));
  }
  // A struct: an instance of a class whose metaclass sets __mycel_graph_struct__ (its field
  // names: the sparse tensors of common/sparse_tensor.py) is the tuple (class, fields...);
  // to_python makes the object again.
  if (!PyType_Check(p) && py::hasattr(py::type::of(obj), "__mycel_graph_struct__")) {
    py::handle cls = py::type::of(obj);
    std::vector<ir::Value> items{wrap_host(cls)};
    for (py::handle f : cls.attr("__mycel_graph_struct__")) items.push_back(to_value(obj.attr(f)));
    return ir::Value::tuple(std::move(items));
  }
  // Exact containers only: a namedtuple or a dict subclass keeps its Python behaviour; a
  // tuple subclass marked __mycel_graph_tuple__ (ParameterTuple) is its items.
  const bool graph_tuple =
      !PyTuple_CheckExact(p) && PyTuple_Check(p) && py::hasattr(obj, "__mycel_graph_tuple__");
  if (PyTuple_CheckExact(p) || PyList_CheckExact(p) || graph_tuple ||
      (marked && (PyTuple_Check(p) || PyList_Check(p)))) {
    std::vector<ir::Value> items;
    items.reserve(static_cast<size_t>(PySequence_Fast_GET_SIZE(p)));
    for (py::handle e : obj) items.push_back(to_value(e));
    return PyTuple_Check(p) ? ir::Value::tuple(std::move(items))
                            : ir::Value::list(std::move(items));
  }
  if (PyDict_CheckExact(p) || (marked && PyDict_Check(p))) {
    std::vector<ir::Value> keys, values;
    for (auto [k, v] : py::reinterpret_borrow<py::dict>(obj)) {
      ir::Value key = to_value(k);
      // IR dict keys are strings or ints; anything else keeps the dict a Python object.
      if (!key.is(ir::ValueKind::Str) && !key.is(ir::ValueKind::Int)) return wrap_host(obj);
      keys.push_back(std::move(key));
      values.push_back(to_value(v));
    }
    return ir::Value::dict(std::move(keys), std::move(values));
  }
  return wrap_host(obj);
}

namespace {

py::object attrs_dict(const Attrs& attrs) {
  py::dict d;
  for (const auto& [k, v] : attrs.items()) d[py::str(k)] = mycel::py::attr_to_py(v);
  return d;
}

py::object python_sequence(const std::vector<ir::Value>& items, bool tuple) {
  if (tuple) {
    py::tuple t(items.size());
    for (size_t i = 0; i < items.size(); ++i) t[i] = to_python(items[i]);
    return t;
  }
  py::list l(items.size());
  for (size_t i = 0; i < items.size(); ++i) l[i] = to_python(items[i]);
  return l;
}

}  // namespace

py::object to_python(const ir::Value& v) {
  using ir::ValueKind;
  switch (v.kind()) {
    case ValueKind::None:
      return py::none();
    case ValueKind::Bool:
      return py::bool_(v.as_bool());
    case ValueKind::Int:
      return py::int_(v.as_int());
    case ValueKind::Float:
      return py::float_(v.as_float());
    case ValueKind::Str:
      return py::str(v.as_str());
    case ValueKind::Tensor:
      return py::cast(v.as_tensor());
    case ValueKind::DType:
      return mycel::py::dtype_object(v.as_dtype());
    case ValueKind::Ellipsis:
      return py::ellipsis();
    case ValueKind::Tuple: {
      // A struct (to_value): the object made again from its fields.
      const std::vector<ir::Value>& it = v.items();
      if (!it.empty() && it[0].is(ValueKind::PyObj)) {
        py::object k = unwrap_host(it[0]);
        if (PyType_Check(k.ptr()) && py::hasattr(k, "__mycel_graph_struct__")) {
          py::tuple fields(it.size() - 1);
          for (size_t i = 1; i < it.size(); ++i) fields[i - 1] = to_python(it[i]);
          return k(*fields);
        }
      }
      return python_sequence(it, true);
    }
    case ValueKind::List:
      return python_sequence(v.items(), false);
    case ValueKind::Dict: {
      py::dict d;
      const ir::DictData& dd = v.as_dict();
      for (size_t i = 0; i < dd.keys.size(); ++i)
        d[to_python(dd.keys[i])] = to_python(dd.values[i]);
      return d;
    }
    case ValueKind::Slice: {
      const ir::SliceData& s = v.as_slice();
      py::object a = to_python(s.start), b = to_python(s.stop), c = to_python(s.step);
      return py::reinterpret_steal<py::object>(PySlice_New(a.ptr(), b.ptr(), c.ptr()));
    }
    case ValueKind::Prim: {
      // An op handle with these attributes: what mycel.ops calls eagerly.
      py::object handle_cls = py::module_::import("mycel._mycel").attr("OpHandle");
      return handle_cls(std::string(v.as_prim().op->name), attrs_dict(v.as_prim().attrs));
    }
    case ValueKind::PyObj:
      return unwrap_host(v);
    case ValueKind::Builtin:
    case ValueKind::Graph:
    case ValueKind::Closure:
      break;
  }
  MC_THROW(Type, "the graph value ", v.to_string(), " (a ", ir::value_kind_name(v.kind()),
           ") has no Python form; it cannot be passed to Python code.");
}

}  // namespace mycel::frontend
