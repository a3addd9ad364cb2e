// mycel.Tensor: construction, numpy interop, properties, operators and indexing. Further
// methods (sum, reshape, ...) are added in Python (mycel/common/tensor.py) on top of ops.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "frontend/py_convert.h"
#include "python/module.h"
#include "runtime/eager.h"
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

template <OpId id>
Tensor binop(pyb::handle self, pyb::handle b) {
  const Tensor& a = tensor_of(self);
  return run2(id, a, operand(b, &a));
}
template <OpId id>
Tensor rbinop(pyb::handle self, pyb::handle b) {
  const Tensor& a = tensor_of(self);
  return run2(id, operand(b, &a), a);
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

// ---- indexing ----------------------------------------------------------------------------

struct IndexPlan {
  Tensor view;            // after the basic (int, slice, None, ...) items
  int64_t adv_axis = -1;  // axis of `view` that an integer tensor index selects along
  Tensor adv_index;       // that index
  Tensor mask;            // a bool mask over the leading dims of `view`
  // The basic items as one StridedSlice of self (begin, end, strides per axis; end_mask bits
  // where a negative step runs past axis 0), then a reshape to view's shape: how a PYNATIVE
  // grad recording sees the view (runtime/record.h).
  std::vector<int64_t> begin, end, strides;
  int64_t end_mask = 0;
  bool basic = false;  // some basic item (int, slice, None, bool) was applied
  bool empty = false;  // a False item: the view has no elements
};

// A Python or numpy bool used as an index item.
bool is_bool_index(pyb::handle it) {
  PyObject* o = it.ptr();
  if (PyBool_Check(o)) return true;
  if (PyLong_Check(o) || PySlice_Check(o) || o == Py_None || o == Py_Ellipsis || is_tensor(it))
    return false;
  return pyb::isinstance(it, numpy_module().attr("bool_"));
}

IndexPlan plan_index(const Tensor& self, pyb::handle idx_in) {
  pyb::tuple items = pyb::isinstance<pyb::tuple>(idx_in)
                         ? pyb::reinterpret_borrow<pyb::tuple>(idx_in)
                         : pyb::make_tuple(idx_in);
  // Count the items that consume a dimension, to expand the ellipsis.
  int64_t consumed = 0;
  bool has_ellipsis = false;
  for (pyb::handle it : items) {
    if (it.is_none() || is_bool_index(it)) continue;
    if (it.ptr() == Py_Ellipsis) {
      MC_CHECK(!has_ellipsis, Index, "an index can only have a single ellipsis ('...').");
      has_ellipsis = true;
      continue;
    }
    if (is_tensor(it) && tensor_of(it).dtype() == DType::Bool) {
      consumed += tensor_of(it).ndim();
      continue;
    }
    ++consumed;
  }
  MC_CHECK(consumed <= self.ndim(), Index, "too many indices for a tensor of dimension ",
           self.ndim(), ": got ", consumed, ".");
  IndexPlan plan;
  for (int64_t k = 0; k < self.ndim(); ++k) {
    plan.begin.push_back(0);
    plan.end.push_back(self.dim(k));
    plan.strides.push_back(1);
  }
  Tensor t = self;
  int64_t d = 0;    // current axis of t
  int64_t src = 0;  // the axis of self that the current item indexes (for messages)
  for (pyb::handle it : items) {
    if (it.is_none()) {
      t = t.unsqueeze(d);
      ++d;
      plan.basic = true;
    } else if (is_bool_index(it)) {
      // numpy: True adds an axis of size 1 (as None), False one of size 0. (A Python bool
      // is an int: without this, x[True] would be x[1].)
      t = t.unsqueeze(d);
      if (!pyb::cast<bool>(it)) {
        t = t.slice(d, 0, 0, 1);
        plan.empty = true;
      }
      ++d;
      plan.basic = true;
    } else if (it.ptr() == Py_Ellipsis) {
      d += self.ndim() - consumed;
      src += self.ndim() - consumed;
    } else if (PySlice_Check(it.ptr())) {
      Py_ssize_t start, stop, step;
      MC_CHECK(PySlice_Unpack(it.ptr(), &start, &stop, &step) == 0, Value, "invalid slice.");
      PySlice_AdjustIndices(t.dim(d), &start, &stop, step);
      t = t.slice(d, start, stop, step);
      auto k = static_cast<size_t>(src);
      plan.begin[k] = start;
      plan.end[k] = stop;
      plan.strides[k] = step;
      if (stop < 0) plan.end_mask |= int64_t{1} << src;
      plan.basic = true;
      ++d;
      ++src;
    } else if (PyLong_Check(it.ptr()) || pyb::isinstance(it, numpy_module().attr("integer"))) {
      const int64_t n = t.dim(d);
      pyb::int_ as_int(pyb::reinterpret_borrow<pyb::object>(it));  // numpy integers too
      int overflow = 0;
      int64_t i = PyLong_AsLongLongAndOverflow(as_int.ptr(), &overflow);
      MC_CHECK(!overflow, Index, "index ", std::string(pyb::str(it)),
               " is out of bounds for dimension ", src, " with size ", n, ".");
      MC_CHECK(i >= -n && i < n, Index, "index ", i, " is out of bounds for dimension ", src,
               " with size ", n, ".");
      t = t.select(d, i < 0 ? i + n : i);
      auto k = static_cast<size_t>(src);
      plan.begin[k] = i < 0 ? i + n : i;
      plan.end[k] = plan.begin[k] + 1;
      plan.basic = true;
      ++src;
    } else {
      Tensor ix = is_tensor(it) ? tensor_of(it) : tensor_from_object(it, nullptr);
      if (ix.dtype() == DType::Bool) {
        MC_CHECK(!plan.mask.defined() && plan.adv_axis < 0, Index,
                 "only one tensor index per indexing expression is supported.");
        MC_CHECK(d == 0, Index,
                 "a bool mask index must come first (it masks the leading "
                 "dimensions).");
        for (int64_t k = 0; k < ix.ndim(); ++k) {
          MC_CHECK(ix.dim(k) == t.dim(k), Index, "the mask of shape ", ix.shape(),
                   " does not match the indexed tensor of shape ", t.shape(), ".");
        }
        plan.mask = ix;
        d += ix.ndim();
        src += ix.ndim();
      } else {
        MC_CHECK(is_integral(ix.dtype()), Index,
                 "tensors used as indices must be integer or "
                 "bool tensors, but got ",
                 ix.dtype(), ".");
        MC_CHECK(!plan.mask.defined() && plan.adv_axis < 0, Index,
                 "only one tensor index per indexing expression is supported.");
        plan.adv_axis = d;
        plan.adv_index = ix;
        ++d;
        ++src;
      }
    }
  }
  plan.view = t;
  return plan;
}

// Flat positions of the true entries of a bool mask, as int64.
Tensor mask_positions(const Tensor& mask) {
  Tensor m = mask.cpu().contiguous();
  const bool* p = m.data<bool>();
  std::vector<int64_t> pos;
  for (int64_t i = 0; i < m.numel(); ++i) {
    if (p[i]) pos.push_back(i);
  }
  Tensor out = Tensor::empty({static_cast<int64_t>(pos.size())}, DType::Int64);
  std::copy(pos.begin(), pos.end(), out.data<int64_t>());
  return out;
}

Tensor gather(const Tensor& x, const Tensor& idx, int64_t axis) {
  Attrs a;
  a.set("axis", axis);
  const OpDef& op = op_def(OpId::Gather);
  const Tensor ins[2] = {x, idx};
  return run_op1(op, ins, make_attrs(op, a));
}

// The mask's leading dims flattened into one, so the positions index it.
Tensor flatten_leading(const Tensor& t, int64_t k) {
  Shape sh;
  sh.push_back(-1);
  for (int64_t i = k; i < t.ndim(); ++i) sh.push_back(t.dim(i));
  return t.reshape(sh);
}

// A cast (or copy) through the Cast op, which a PYNATIVE grad recording sees.
Tensor recorded_cast(const Tensor& t, DType to) {
  Attrs a;
  a.set("dtype", to);
  return run_op1(op_def(OpId::Cast), std::span<const Tensor>(&t, 1),
                 make_attrs(op_def(OpId::Cast), a));
}

Tensor getitem(const Tensor& self, pyb::handle idx) {
  IndexPlan p = plan_index(self, idx);
  if (p.basic && !p.empty && record::active()) {
    // The same view through recorded ops, so that a PYNATIVE grad differentiates it.
    Attrs a;
    a.set("begin", p.begin);
    a.set("end", p.end);
    a.set("strides", p.strides);
    a.set("end_mask", p.end_mask);
    Tensor s = run_op1(op_def(OpId::StridedSlice), std::span<const Tensor>(&self, 1),
                       make_attrs(op_def(OpId::StridedSlice), a));
    if (s.shape() != p.view.shape()) {
      Attrs r;
      r.set("shape", std::vector<int64_t>(p.view.shape().begin(), p.view.shape().end()));
      s = run_op1(op_def(OpId::Reshape), std::span<const Tensor>(&s, 1),
                  make_attrs(op_def(OpId::Reshape), r));
    }
    p.view = s;
  }
  if (p.adv_axis >= 0) return gather(p.view, p.adv_index, p.adv_axis);
  if (p.mask.defined())
    return gather(flatten_leading(p.view, p.mask.ndim()), mask_positions(p.mask), 0);
  return p.view;
}

void setitem(const Tensor& self, pyb::handle idx, pyb::handle value) {
  IndexPlan p = plan_index(self, idx);
  Tensor v = operand(value, &self);
  if (p.adv_axis < 0 && !p.mask.defined()) {
    p.view.copy_from(v.cast(self.dtype()));
    return;
  }
  // Tensor indices: write through the rows they select, one row at a time. Each row of the
  // leading (flattened mask or indexed) axis is a view, so this writes into self.
  const Tensor& target = p.view;
  Tensor positions;
  int64_t axis = 0;
  if (p.mask.defined()) {
    positions = mask_positions(p.mask);
  } else {
    positions = p.adv_index.cpu().cast(DType::Int64).contiguous().reshape({-1});
    axis = p.adv_axis;
  }
  const int64_t* pos = positions.data<int64_t>();
  int64_t count = positions.numel();
  // The value broadcasts against the indexed result: the mask's dims flattened into one
  // leading dim of size count, or the indexed axis replaced by count (numpy's layout).
  Shape full;
  int64_t value_axis = 0;
  if (p.mask.defined()) {
    full.push_back(count);
    for (int64_t i = p.mask.ndim(); i < p.view.ndim(); ++i) full.push_back(p.view.dim(i));
  } else {
    full = p.view.shape();
    full[axis] = count;
    value_axis = axis;
  }
  Tensor vb = v.cast(self.dtype()).expand(full, "setitem");
  for (int64_t k = 0; k < count; ++k) {
    Tensor row;
    if (p.mask.defined()) {
      row = target;
      int64_t flat = pos[k];
      // Multi-index of `flat` over the mask's dims, applied from the first dim.
      SmallVector<int64_t, 6> mi(static_cast<size_t>(p.mask.ndim()));
      for (int64_t dd = p.mask.ndim(); dd-- > 0;) {
        mi[dd] = flat % p.mask.dim(dd);
        flat /= p.mask.dim(dd);
      }
      for (int64_t dd = 0; dd < p.mask.ndim(); ++dd) row = row.select(0, mi[dd]);
    } else {
      int64_t n = target.dim(axis), i = pos[k];
      MC_CHECK(i >= -n && i < n, Index, "index ", i, " is out of bounds for dimension ", axis,
               " with size ", n, ".");
      row = target.select(axis, i < 0 ? i + n : i);
    }
    row.copy_from(vb.select(value_axis, k));
  }
}

pyb::object py_item(const Tensor& t) {
  Scalar s = t.item();
  if (s.kind == ScalarKind::Bool) return pyb::bool_(s.i != 0);
  if (s.kind == ScalarKind::Int) return pyb::int_(s.i);
  return pyb::float_(s.f);
}

}  // namespace

void bind_tensor(pyb::module_& m) {
  pyb::class_<Tensor> cls(m, "Tensor", "A multi-dimensional array on the CPU.");
  cls.def(pyb::init([](pyb::object data, pyb::object dtype, pyb::object shape) {
            std::optional<DType> dt;
            if (!dtype.is_none()) dt = to_dtype(dtype);
            if (data.is_none()) {
              MC_CHECK(!shape.is_none(), Type,
                       "Tensor() needs input_data, or a shape (and dtype) for an empty tensor.");
              AttrValue sv = to_attr(shape);
              auto* dims = std::get_if<std::vector<int64_t>>(&sv);
              MC_CHECK(dims != nullptr, Type, "Tensor(shape=...) must be a tuple of ints.");
              return Tensor::zeros(Shape(dims->begin(), dims->end()), dt.value_or(DType::Float32));
            }
            return tensor_from_object(data, dt ? &*dt : nullptr);
          }),
          pyb::arg("input_data") = pyb::none(), pyb::arg("dtype") = pyb::none(),
          pyb::arg("shape") = pyb::none())
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
      .def("asnumpy", &tensor_to_numpy,
           "A numpy array sharing this tensor's memory (a copy, for a tensor on a GPU).")
      .def_property_readonly(
          "device", [](const Tensor& t) { return device_name(t.device()); },
          "Where the tensor's memory is: 'CPU' or 'GPU:<index>'.")
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
             DType to = to_dtype(dt);
             return record::active() && to != t.dtype() ? recorded_cast(t, to) : t.cast(to);
           })
      .def("item", &py_item)
      // int() of a float tensor is Python's int() of its value, as in graph code (the
      // executor's int builtin): truncation, ValueError for NaN, OverflowError for inf.
      .def("__int__",
           [](const Tensor& t) -> pyb::object {
             Scalar s = t.item();
             if (s.kind != ScalarKind::Float) return pyb::int_(s.i);
             PyObject* r = PyLong_FromDouble(s.f);
             if (r == nullptr) throw pyb::error_already_set();
             return pyb::reinterpret_steal<pyb::object>(r);
           })
      .def("__float__", [](const Tensor& t) { return t.item().to_double(); })
      .def("__index__",
           [](const Tensor& t) {
             MC_CHECK(is_integral(t.dtype()) || is_bool(t.dtype()), Type,
                      "only integer tensors can be used as an index, but got ", t.dtype(), ".");
             return t.item().to_int();
           })
      .def("__bool__",
           [](const Tensor& t) {
             MC_CHECK(t.numel() == 1, Value, "the truth value of a tensor with ", t.numel(),
                      " elements is ambiguous.");
             return t.item().to_double() != 0;
           })
      .def("__len__",
           [](const Tensor& t) {
             MC_CHECK(t.ndim() > 0, Type, "len() of a 0-d tensor.");
             return t.dim(0);
           })
      .def("__str__", &Tensor::to_string)
      .def("__repr__", &Tensor::repr)
      .def("__hash__", [](pyb::handle self) { return reinterpret_cast<intptr_t>(self.ptr()) >> 4; })
      .def("__getitem__", &getitem)
      .def("__setitem__", &setitem)
      .def("__add__", &binop<OpId::Add>)
      .def("__radd__", &rbinop<OpId::Add>)
      .def("__sub__", &binop<OpId::Sub>)
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
             MC_CHECK(a.dtype() == DType::Bool, Type,
                      "For 'LogicalNot', the operand of ~ must be a bool tensor, but got ",
                      a.dtype(), ".");
             return run1(OpId::LogicalNot, a);
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
  cls.attr("__array_ufunc__") = pyb::none();  // numpy defers `array + tensor` to Tensor
  register_tensor_type(cls);

  m.def("from_numpy", &tensor_from_numpy_shared,
        "A Tensor sharing the numpy array's memory when it is C-contiguous and aligned.");
}

}  // namespace mycel::py
