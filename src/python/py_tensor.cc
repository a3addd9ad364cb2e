// mycel.Tensor: construction, numpy interop, properties, operators and indexing. Further
// methods (sum, reshape, ...) are added in Python (mycel/common/tensor.py) on top of ops.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <forward_list>
#include <string>

#include "frontend/py_convert.h"
#include "python/module.h"
#include "runtime/eager.h"
#include "runtime/eager_index.h"
#include "runtime/record.h"

namespace pyb = pybind11;

namespace mycel::py {

namespace {

const Attrs& no_attrs() {
  static const Attrs* a = new Attrs();
  return *a;
}

Tensor run2(OpId id, const Tensor& a, const Tensor& b) {
  const Tensor ins[2] = {a, b};
  return run_op1(op_def(id), ins, no_attrs());
}
Tensor run1(OpId id, const Tensor& a) {
  const Tensor ins[1] = {a};
  return run_op1(op_def(id), ins, no_attrs());
}

// An operand whose class sets __mycel_reflected__ (the sparse tensors of
// common/sparse_tensor.py: dense * csr is a CSRTensor) computes the operation itself:
// NotImplemented lets Python call its reflected method.
bool defers(pyb::handle b) {
  return !is_tensor(b) && PyObject_HasAttrString(reinterpret_cast<PyObject*>(Py_TYPE(b.ptr())),
                                                 "__mycel_reflected__");
}
template <OpId id>
pyb::object binop(pyb::handle self, pyb::handle b) {
  if (defers(b)) return pyb::reinterpret_borrow<pyb::object>(Py_NotImplemented);
  const Tensor& a = tensor_of(self);
  return pyb::cast(run2(id, a, operand(b, &a)));
}
template <OpId id>
pyb::object rbinop(pyb::handle self, pyb::handle b) {
  if (defers(b)) return pyb::reinterpret_borrow<pyb::object>(Py_NotImplemented);
  const Tensor& a = tensor_of(self);
  return pyb::cast(run2(id, operand(b, &a), a));
}
// Comparisons with things that are not numbers (None, strings) are NotImplemented, so that
// Python falls back to identity for == and raises TypeError for <.
template <OpId id>
pyb::object cmpop(const Tensor& a, pyb::handle b) {
  Scalar s;
  if (!is_tensor(b) && !as_scalar(b, &s) && !pyb::isinstance<pyb::array>(b) &&
      !pyb::isinstance<pyb::list>(b) && !pyb::isinstance<pyb::tuple>(b))
    return pyb::reinterpret_borrow<pyb::object>(Py_NotImplemented);
  return pyb::cast(run2(id, a, operand(b, &a)));
}

Tensor logical_operand(const Tensor& a, pyb::handle b, const char* op) {
  Tensor t = operand(b, &a);
  MC_CHECK(a.dtype() == DType::Bool && t.dtype() == DType::Bool, Type, "For '", op,
           "', both operands must be bool tensors, but got ", a.dtype(), " and ", t.dtype(), ".");
  return t;
}

// ---- indexing: the Python items of x[idx], for the lowering (ops/indexing.h) --------------

using IndexItems = InlineVector<IndexItem, 4>;

// A Python or numpy bool used as an index item.
bool is_bool_index(pyb::handle it) {
  PyObject* o = it.ptr();
  if (PyBool_Check(o)) return true;
  if (PyLong_Check(o) || PySlice_Check(o) || o == Py_None || o == Py_Ellipsis || is_tensor(it))
    return false;
  return pyb::isinstance(it, numpy_module().attr("bool_"));
}

using IndexTensors = InlineVector<Tensor, 2>;

// One item. A tensor item (a Tensor, or a list or array made one) is appended to *indices;
// `big` keeps the text of ints beyond int64.
IndexItem index_item(pyb::handle it, IndexTensors* indices, std::forward_list<std::string>& big) {
  using Kind = IndexItem::Kind;
  IndexItem r;
  PyObject* o = it.ptr();
  if (o == Py_None) {
    r.kind = Kind::NewAxis;
  } else if (is_bool_index(it)) {
    // numpy: True adds an axis of size 1 (as None), False one of size 0. (A Python bool
    // is an int: without this, x[True] would be x[1].)
    r.kind = Kind::Bool;
    r.value = pyb::cast<bool>(it) ? 1 : 0;
  } else if (o == Py_Ellipsis) {
    r.kind = Kind::Ellipsis;
  } else if (PySlice_Check(o)) {
    Py_ssize_t start, stop, step;
    // Python's own error: a TypeError for a non-integer bound, a ValueError for step 0 (as
    // GRAPH mode's make_slice says for a float bound).
    if (PySlice_Unpack(o, &start, &stop, &step) != 0) throw pyb::error_already_set();
    const auto* s = reinterpret_cast<const PySliceObject*>(o);
    r.kind = Kind::Slice;
    r.start = start;
    r.stop = stop;
    r.step = step;
    r.has_start = s->start != Py_None;
    r.has_stop = s->stop != Py_None;
  } else if (PyLong_Check(o) || pyb::isinstance(it, numpy_module().attr("integer"))) {
    pyb::int_ as_int(pyb::reinterpret_borrow<pyb::object>(it));  // numpy integers too
    int overflow = 0;
    r.kind = Kind::Int;
    r.value = PyLong_AsLongLongAndOverflow(as_int.ptr(), &overflow);
    if (overflow) r.text = big.emplace_front(pyb::str(it));
  } else {
    Tensor ix = is_tensor(it) ? tensor_of(it) : tensor_from_object(it, nullptr);
    r.kind = Kind::Tensor;
    r.dtype = ix.dtype();
    r.shape = ix.shape();
    indices->push_back(std::move(ix));
  }
  return r;
}

// x[idx] lowered: its plan, and its tensor items in *indices.
IndexPlan plan_index(const Tensor& self, pyb::handle idx, IndexTensors* indices) {
  IndexItems items;
  std::forward_list<std::string> big;
  if (PyTuple_Check(idx.ptr())) {
    for (pyb::handle it : pyb::reinterpret_borrow<pyb::tuple>(idx))
      items.push_back(index_item(it, indices, big));
  } else {
    items.push_back(index_item(idx, indices, big));
  }
  return lower_index(self.shape(), items);
}

Tensor getitem(const Tensor& self, pyb::handle idx) {
  IndexTensors indices;
  IndexPlan p = plan_index(self, idx, &indices);
  return index_get(self, p, indices);
}

void setitem(const Tensor& self, pyb::handle idx, pyb::handle value) {
  IndexTensors indices;
  IndexPlan p = plan_index(self, idx, &indices);
  Tensor v = operand(value, &self);
  // The write is not an op a PYNATIVE gradient records: through it, the gradient would be
  // silently wrong (the written positions still passing the old value's, the value's lost).
  MC_CHECK(!record::holds(self) && !record::holds(v), Type,
           "assigning into a tensor (x[i] = v) inside a gradient computation is not "
           "differentiated (x or v depends on what is differentiated): build the result "
           "without an in-place write (ops.select, ops.tensor_scatter_update, ops.concat).");
  index_set(self, p, indices, v);
}

// A cast (or copy) through the Cast op, which a PYNATIVE grad recording sees.
Tensor recorded_cast(const Tensor& t, DType to) {
  Attrs a;
  a.set("dtype", to);
  return run_op1(op_def(OpId::Cast), std::span<const Tensor>(&t, 1),
                 make_attrs(op_def(OpId::Cast), a));
}

// An integer scalar of t as a Python int (a uint64 Scalar holds its value's bits in i).
pyb::object py_int(const Tensor& t, const Scalar& s) {
  if (t.dtype() == DType::UInt64) return pyb::int_(static_cast<uint64_t>(s.i));
  return pyb::int_(s.i);
}

// The mycel.ops function or primitive whose Python code runs a failing conversion, from
// mycel.ops._caller ("" outside ops code, or when it cannot be found).
std::string calling_op() {
  try {
    pyb::object name = pyb::module_::import("mycel.ops._caller").attr("calling_op")();
    if (!name.is_none()) return name.cast<std::string>();
  } catch (const pyb::error_already_set&) {
  }
  return "";
}

// f(), whose mycel::Error (a conversion of a tensor to a Python value, or of a value to a
// tensor, that failed) gets "For '<op>', " in front when ops code called it: the messages
// ("the truth value of a tensor with 6 elements is ambiguous") then name the op the user
// called (found by tests/python/test_bad_input_sweep.py).
template <class F>
auto naming_op(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    const std::string msg = e.what();
    if (msg.rfind("For '", 0) == 0) throw;
    const std::string op = calling_op();
    if (op.empty()) throw;
    throw Error(e.kind(), "For '" + op + "', " + msg);
  }
}

// The one value of a complex tensor, as a Python complex.
pyb::object py_complex_item(const Tensor& t) {
  MC_CHECK(t.numel() == 1, Value,
           "only a tensor with one element can be converted to a scalar, but got shape ", t.shape(),
           ".");
  const Tensor c = t.cpu().cast(DType::Complex128).contiguous();
  const complex128 v = *c.data<complex128>();
  return pyb::reinterpret_steal<pyb::object>(PyComplex_FromDoubles(v.real(), v.imag()));
}

pyb::object py_item(const Tensor& t) {
  if (is_complex(t.dtype())) return py_complex_item(t);
  Scalar s = t.item();
  if (s.kind == ScalarKind::Bool) return pyb::bool_(s.i != 0);
  if (s.kind == ScalarKind::Int) return py_int(t, s);
  return pyb::float_(s.f);
}

// Construction and the read-only properties.
void bind_tensor_properties(pyb::class_<Tensor>& cls) {
  // const_arg (MindSpore: compile the tensor's values into a graph as a constant) is accepted
  // and changes nothing: mycel passes every tensor argument as a run-time value, with the
  // same results.
  cls.def(pyb::init([](pyb::object data, pyb::object dtype, pyb::object shape, pyb::object init,
                       bool /*const_arg*/) {
            std::optional<DType> dt;
            if (!dtype.is_none()) dt = to_dtype(dtype);
            if (!init.is_none()) {
              // MindSpore's Tensor(shape=..., dtype=..., init=One()): filled at once by
              // mycel.common.initializer.initializer (MindSpore defers it to init_data()).
              MC_CHECK(data.is_none() && !shape.is_none(), Type,
                       "Tensor(init=...) needs a shape (and dtype) and no input_data.");
              pyb::object made = pyb::module_::import("mycel.common.initializer")
                                     .attr("initializer")(init, shape, dtype);
              return made.cast<Tensor>();
            }
            if (data.is_none()) {
              MC_CHECK(!shape.is_none(), Type,
                       "Tensor() needs input_data, or a shape (and dtype) for an empty tensor.");
              AttrValue sv = to_attr(shape);
              auto* dims = std::get_if<std::vector<int64_t>>(&sv);
              MC_CHECK(dims != nullptr, Type, "Tensor(shape=...) must be a tuple of ints.");
              return Tensor::zeros(Shape(dims->begin(), dims->end()), dt.value_or(DType::Float32));
            }
            return naming_op([&] { return tensor_from_object(data, dt ? &*dt : nullptr); });
          }),
          pyb::arg("input_data") = pyb::none(), pyb::arg("dtype") = pyb::none(),
          pyb::arg("shape") = pyb::none(), pyb::arg("init") = pyb::none(), pyb::kw_only(),
          pyb::arg("const_arg") = false)
      .def_property_readonly("shape",
                             [](const Tensor& t) {
                               pyb::tuple s(t.ndim());
                               for (int64_t i = 0; i < t.ndim(); ++i) s[i] = pyb::int_(t.dim(i));
                               return s;
                             })
      .def_property_readonly("dtype", [](const Tensor& t) { return dtype_object(t.dtype()); })
      .def_property_readonly("ndim", &Tensor::ndim)
      .def_property_readonly("size", &Tensor::numel)
      .def_property_readonly("itemsize", [](const Tensor& t) { return t.itemsize(); })
      .def_property_readonly("nbytes", [](const Tensor& t) { return t.nbytes(); })
      .def_property_readonly("strides",
                             [](const Tensor& t) {
                               pyb::tuple s(t.ndim());
                               for (int64_t i = 0; i < t.ndim(); ++i)
                                 s[i] =
                                     pyb::int_(t.strides()[i] * static_cast<int64_t>(t.itemsize()));
                               return s;
                             })
      .def_property_readonly(
          "device", [](const Tensor& t) { return device_name(t.device()); },
          "Where the tensor's memory is: 'CPU' or 'GPU:<index>'.")
      .def_property_readonly(
          "_storage_offset", [](const Tensor& t) { return t.offset(); },
          "Where the first element sits in the storage, in elements (Tensor.storage_offset).");
}

// Conversions to numpy, Python scalars, strings, other dtypes and devices.
void bind_tensor_conversions(pyb::class_<Tensor>& cls) {
  cls.def("asnumpy", &tensor_to_numpy,
          "A numpy array sharing this tensor's memory (a copy, for a tensor on a GPU).")
      .def(
          "move_to",
          [](const Tensor& t, const std::string& to, bool blocking) {
            Device cur = default_device();
            Device d = parse_device(to, to == "GPU" && !cur.is_cpu() ? cur.index : 0);
            Tensor r = t.to(d);
            if (blocking && !d.is_cpu()) backend_for(d).synchronize(d.index);
            return r;
          },
          pyb::arg("to"), pyb::arg("blocking") = true,
          "A copy of this tensor on 'CPU' or 'GPU' (this tensor if already there).")
      .def("numpy", &tensor_to_numpy)
      .def(
          "__array__",
          [](const Tensor& t, pyb::object dtype) {
            pyb::array a = tensor_to_numpy(t);
            return dtype.is_none() ? a : pyb::array(a.attr("astype")(dtype));
          },
          pyb::arg("dtype") = pyb::none())
      .def("is_contiguous", &Tensor::is_contiguous)
      .def("contiguous", &Tensor::contiguous)
      .def("copy",
           [](const Tensor& t) {
             return record::active() ? recorded_cast(t, t.dtype()) : t.clone();
           })
      .def("astype",
           [](const Tensor& t, pyb::handle dt) {
             DType to = naming_op([&] { return to_dtype(dt); });  // "For 'sum', unknown dtype"
             return record::active() && to != t.dtype() ? recorded_cast(t, to) : t.cast(to);
           })
      .def("item", [](const Tensor& t) { return naming_op([&] { return py_item(t); }); })
      // int() of a float tensor is Python's int() of its value, as in graph code (the
      // executor's int builtin): truncation, ValueError for NaN, OverflowError for inf.
      .def("__int__",
           [](const Tensor& t) -> pyb::object {
             Scalar s = naming_op([&] { return t.item(); });
             if (s.kind != ScalarKind::Float) return py_int(t, s);
             PyObject* r = PyLong_FromDouble(s.f);
             if (r == nullptr) throw pyb::error_already_set();
             return pyb::reinterpret_steal<pyb::object>(r);
           })
      .def("__complex__",
           [](const Tensor& t) {
             return naming_op([&] { return py_complex_item(t.cast(DType::Complex128)); });
           })
      .def("__float__",
           [](const Tensor& t) {
             Scalar s = naming_op([&] {
               MC_CHECK(!is_complex(t.dtype()), Type, "float() of a ", t.dtype(),
                        " tensor: take .real or abs() first, or use complex().");
               return t.item();
             });
             return t.dtype() == DType::UInt64 ? static_cast<double>(static_cast<uint64_t>(s.i))
                                               : s.to_double();
           })
      .def("__index__",
           [](const Tensor& t) {
             return naming_op([&] {
               MC_CHECK(is_integral(t.dtype()) || is_bool(t.dtype()), Type,
                        "only integer tensors can be used as an index, but got ", t.dtype(), ".");
               return t.item().to_int();
             });
           })
      .def("__bool__",
           [](const Tensor& t) {
             return naming_op([&] {
               MC_CHECK(t.numel() == 1, Value, "the truth value of a tensor with ", t.numel(),
                        " elements is ambiguous.");
               if (is_complex(t.dtype())) return t.cast(DType::Bool).item().i != 0;
               return t.item().to_double() != 0;
             });
           })
      .def("__len__",
           [](const Tensor& t) {
             MC_CHECK(t.ndim() > 0, Type, "len() of a 0-d tensor.");
             return t.dim(0);
           })
      // Rows t[0], t[1], ... Without it Python iterated by __getitem__ until an IndexError,
      // so tuple() of a 0-d tensor was () (ops.pad took it as no padding); now a TypeError,
      // as numpy, PyTorch and graph mode.
      .def("__iter__",
           [](pyb::object self) {
             const Tensor& t = self.cast<const Tensor&>();
             naming_op([&] {
               MC_CHECK(t.ndim() > 0, Type, "iteration over a 0-d tensor.");
               return 0;
             });
             pyb::object rows =
                 pyb::module_::import("builtins")
                     .attr("map")(self.attr("__getitem__"),
                                  pyb::module_::import("builtins").attr("range")(t.dim(0)));
             return pyb::iter(rows);
           })
      .def("__str__", &Tensor::to_string)
      .def("__repr__", &Tensor::repr)
      .def("__hash__", [](pyb::handle self) { return reinterpret_cast<intptr_t>(self.ptr()) >> 4; })
      .def(
          "_same", [](const Tensor& t, const Tensor& o) { return t.impl() == o.impl(); },
          "Whether o is this very tensor (two Python objects may wrap one tensor).");
}

// Indexing and Python's operators.
void bind_tensor_operators(pyb::class_<Tensor>& cls) {
  cls.def("__getitem__", &getitem)
      .def("__setitem__", &setitem)
      .def("__add__", &binop<OpId::Add>)
      .def("__radd__", &rbinop<OpId::Add>)
      .def("__sub__", &binop<OpId::Sub>)
      // MindSpore's x.__sub__(other, alpha=a): Tensor.sub's form (common/tensor.py); the
      // plain operator keeps the overload above.
      .def(
          "__sub__",
          [](pyb::handle self, pyb::handle other, pyb::handle alpha) {
            return pyb::reinterpret_borrow<pyb::object>(self).attr("sub")(
                other, pyb::arg("alpha") = alpha);
          },
          pyb::arg("other"), pyb::kw_only(), pyb::arg("alpha"))
      .def("__rsub__", &rbinop<OpId::Sub>)
      .def("__mul__", &binop<OpId::Mul>)
      .def("__rmul__", &rbinop<OpId::Mul>)
      .def("__truediv__", &binop<OpId::Div>)
      .def("__rtruediv__", &rbinop<OpId::Div>)
      .def("__floordiv__", &binop<OpId::FloorDiv>)
      .def("__rfloordiv__", &rbinop<OpId::FloorDiv>)
      .def("__mod__", &binop<OpId::FloorMod>)
      .def("__rmod__", &rbinop<OpId::FloorMod>)
      .def("__pow__", &binop<OpId::Pow>)
      .def("__rpow__", &rbinop<OpId::Pow>)
      .def("__matmul__",
           [](const Tensor& a, pyb::handle b) {
             Tensor bb = operand(b, &a);
             const Tensor ins[2] = {a, bb};
             OpId id = a.ndim() == 2 && bb.ndim() == 2 ? OpId::MatMul : OpId::BatchMatMul;
             return run_op1(op_def(id), ins, make_attrs(op_def(id), {}));
           })
      .def("__neg__", [](const Tensor& a) { return run1(OpId::Neg, a); })
      .def("__pos__", [](const Tensor& a) { return a; })
      .def("__abs__", [](const Tensor& a) { return run1(OpId::Abs, a); })
      .def("__invert__",
           [](const Tensor& a) {
             // Bool: logical not; integers: bitwise not, -a - 1 (wrapping: exact in every
             // width, uint8 included).
             if (a.dtype() == DType::Bool) return run1(OpId::LogicalNot, a);
             MC_CHECK(is_integral(a.dtype()), Type,
                      "For 'Invert', the operand of ~ must be a bool or integer tensor, but got ",
                      a.dtype(), ".");
             const Tensor neg = run1(OpId::Neg, a);
             return run2(OpId::Sub, neg, operand(pyb::int_(1), &neg));
           })
      .def("__and__",
           [](const Tensor& a, pyb::handle b) {
             return run2(OpId::LogicalAnd, a, logical_operand(a, b, "LogicalAnd"));
           })
      .def("__rand__",
           [](const Tensor& a, pyb::handle b) {
             return run2(OpId::LogicalAnd, logical_operand(a, b, "LogicalAnd"), a);
           })
      .def("__or__",
           [](const Tensor& a, pyb::handle b) {
             return run2(OpId::LogicalOr, a, logical_operand(a, b, "LogicalOr"));
           })
      .def("__ror__",
           [](const Tensor& a, pyb::handle b) {
             return run2(OpId::LogicalOr, logical_operand(a, b, "LogicalOr"), a);
           })
      .def("__eq__", &cmpop<OpId::Equal>)
      .def("__ne__", &cmpop<OpId::NotEqual>)
      .def("__lt__", &cmpop<OpId::Less>)
      .def("__le__", &cmpop<OpId::LessEqual>)
      .def("__gt__", &cmpop<OpId::Greater>)
      .def("__ge__", &cmpop<OpId::GreaterEqual>);
}

// Tensor(shape=[None, ...], dtype=...) without data (None, -1 or a Symbol among the
// dimensions) is MindSpore's placeholder of a dynamic shape, Tensor(shape=None, dtype=...) one of a
// dynamic rank: an instance of mycel.common.tensor._DynamicTensor, which that module registers
// (_set_placeholder_type). Tensor's tp_new sends such calls there and every other to
// pybind11's, at the cost of a pointer compare when data is given.
PyTypeObject* g_tensor_type = nullptr;
PyTypeObject* g_placeholder_type = nullptr;
newfunc g_tensor_new = nullptr;

// A dimension that is None, -1 or not an integer at all (a mycel.Symbol; anything else the
// placeholder's __init__ rejects with a TypeError naming the shape).
bool has_dynamic_dim(PyObject* shape) {
  if (shape == nullptr || !(PyList_Check(shape) || PyTuple_Check(shape))) return false;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(shape);
  PyObject** items = PySequence_Fast_ITEMS(shape);
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (items[i] == Py_None || !PyIndex_Check(items[i])) return true;
    if (PyLong_Check(items[i]) && PyLong_AsLongLong(items[i]) == -1 && !PyErr_Occurred())
      return true;
    PyErr_Clear();
  }
  return false;
}

PyObject* tensor_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  if (type == g_tensor_type && g_placeholder_type != nullptr) {
    const Py_ssize_t n = args != nullptr ? PyTuple_GET_SIZE(args) : 0;
    auto arg = [&](Py_ssize_t i, const char* name) -> PyObject* {
      if (i < n) return PyTuple_GET_ITEM(args, i);
      return kwargs != nullptr ? PyDict_GetItemString(kwargs, name) : nullptr;
    };
    PyObject* data = arg(0, "input_data");
    PyObject* shape = arg(2, "shape");
    PyObject* dtype = arg(1, "dtype");
    // Tensor(shape=None, dtype=t): MindSpore's placeholder of a dynamic rank.
    const bool any_rank =
        (shape == nullptr || shape == Py_None) && dtype != nullptr && dtype != Py_None;
    if ((data == nullptr || data == Py_None) && (any_rank || has_dynamic_dim(shape)))
      type = g_placeholder_type;
  }
  return g_tensor_new(type, args, kwargs);
}

}  // namespace

void bind_tensor(pyb::module_& m) {
  pyb::class_<Tensor> cls(m, "Tensor", "A multi-dimensional array on the CPU.");
  g_tensor_type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  g_tensor_new = g_tensor_type->tp_new;
  g_tensor_type->tp_new = tensor_new;
  m.def(
      "_set_placeholder_type",
      [](pyb::object t) {
        MC_CHECK(PyType_Check(t.ptr()) &&
                     PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(t.ptr()), g_tensor_type),
                 Type, "_set_placeholder_type needs a subclass of Tensor");
        Py_XDECREF(g_placeholder_type);
        g_placeholder_type = reinterpret_cast<PyTypeObject*>(t.release().ptr());
      },
      "Registers the class of Tensor(shape=[None, ...]) placeholders (mycel.common.tensor).");
  bind_tensor_properties(cls);
  bind_tensor_conversions(cls);
  bind_tensor_operators(cls);
  cls.attr("__array_ufunc__") = pyb::none();  // numpy defers `array + tensor` to Tensor
  register_tensor_type(cls);

  m.def("from_numpy", &tensor_from_numpy_shared,
        "A Tensor sharing the numpy array's memory when it is C-contiguous and aligned.");
}

}  // namespace mycel::py
