#include "frontend/py_convert.h"

#include <array>
#include <cstring>

#include "frontend/py_runtime.h"
#include "tensor/size.h"

namespace mycel::py {

bool dtype_from_numpy(const pyb::dtype& d, DType* out) {
  char kind = d.kind();
  size_t sz = static_cast<size_t>(d.itemsize());
  switch (kind) {
    case 'b':
      *out = DType::Bool;
      return true;
    case 'f':
      if (sz == 2)
        *out = DType::Float16;
      else if (sz == 4)
        *out = DType::Float32;
      else if (sz == 8)
        *out = DType::Float64;
      else
        return false;
      return true;
    case 'i':
      if (sz == 1)
        *out = DType::Int8;
      else if (sz == 2)
        *out = DType::Int16;
      else if (sz == 4)
        *out = DType::Int32;
      else if (sz == 8)
        *out = DType::Int64;
      else
        return false;
      return true;
    case 'c':
      if (sz == 8)
        *out = DType::Complex64;
      else if (sz == 16)
        *out = DType::Complex128;
      else
        return false;
      return true;
    case 'u':
      if (sz == 1)
        *out = DType::UInt8;
      else if (sz == 2)
        *out = DType::UInt16;
      else if (sz == 4)
        *out = DType::UInt32;
      else if (sz == 8)
        *out = DType::UInt64;
      else
        return false;
      return true;
    default:
      return false;
  }
}

pyb::dtype numpy_dtype(DType t) {
  if (t == DType::BFloat16) return pyb::dtype("float32");
  return pyb::dtype(std::string(dtype_numpy_name(t)));
}

DType to_dtype(pyb::handle h) {
  if (pyb::isinstance<DTypeObj>(h)) return h.cast<const DTypeObj&>().t;
  if (pyb::isinstance<pyb::str>(h)) {
    DType t;
    std::string s = h.cast<std::string>();
    MC_CHECK(dtype_from_name(s, &t), Type, "unknown dtype '", s, "'.");
    return t;
  }
  // numpy dtypes and scalar types (np.float32).
  try {
    pyb::dtype d = pyb::dtype::from_args(pyb::reinterpret_borrow<pyb::object>(h));
    DType t;
    if (dtype_from_numpy(d, &t)) return t;
  } catch (const pyb::error_already_set&) {
  }
  MC_THROW(Type, "expected a mycel dtype such as mycel.float32, but got ",
           std::string(pyb::str(pyb::repr(h))), ".");
}

namespace {
std::array<pyb::object, kNumDTypes>& dtype_objects() {
  static auto* a = new std::array<pyb::object, kNumDTypes>();  // never destroyed
  return *a;
}
}  // namespace

pyb::object dtype_object(DType t) { return dtype_objects()[static_cast<size_t>(t)]; }

void set_dtype_object(DType t, pyb::object obj) {
  dtype_objects()[static_cast<size_t>(t)] = std::move(obj);
}

namespace {
PyTypeObject* g_tensor_type = nullptr;
const pyb::detail::type_info* g_tensor_info = nullptr;
}  // namespace

void register_tensor_type(pyb::handle cls) {
  g_tensor_type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  g_tensor_info = pyb::detail::get_type_info(typeid(Tensor));
  MC_ASSERT(g_tensor_info != nullptr);
}

bool is_tensor(pyb::handle h) {
  return Py_TYPE(h.ptr()) == g_tensor_type || PyObject_TypeCheck(h.ptr(), g_tensor_type);
}

const Tensor& tensor_of(pyb::handle h) {
  auto* inst = reinterpret_cast<pyb::detail::instance*>(h.ptr());
  return *static_cast<const Tensor*>(inst->get_value_and_holder(g_tensor_info).value_ptr());
}

bool as_scalar(pyb::handle h, Scalar* out) {
  if (PyBool_Check(h.ptr())) {
    *out = Scalar::from_bool(h.ptr() == Py_True);
    return true;
  }
  if (PyLong_Check(h.ptr())) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
    MC_CHECK(!overflow, Value, "the integer ", std::string(pyb::str(h)), " does not fit in int64.");
    *out = Scalar::from_int(v);
    return true;
  }
  if (PyFloat_Check(h.ptr())) {
    *out = Scalar::from_float(PyFloat_AS_DOUBLE(h.ptr()));
    return true;
  }
  if (pyb::isinstance<pyb::array>(h)) return false;
  // numpy scalars
  pyb::module_ np = numpy_module();
  if (pyb::isinstance(h, np.attr("bool_"))) {
    *out = Scalar::from_bool(h.cast<bool>());
    return true;
  }
  if (pyb::isinstance(h, np.attr("integer"))) {
    *out = Scalar::from_int(int64_of(h));
    return true;
  }
  if (pyb::isinstance(h, np.attr("floating"))) {
    *out = Scalar::from_float(h.cast<double>());
    return true;
  }
  return false;
}

namespace {

DType scalar_dtype(const Scalar& s) {
  switch (s.kind) {
    case ScalarKind::Bool:
      return DType::Bool;
    case ScalarKind::Int:
      return DType::Int64;
    case ScalarKind::Float:
      return DType::Float32;
  }
  return DType::Float32;
}

// A numpy array whose bytes are not in the machine's order (dtype('>f4') on x86): its values
// are read through numpy's byte swap, never as raw bytes (which read 1.0 as 4.6e-41).
bool native_order(const pyb::array& arr) { return arr.dtype().attr("isnative").cast<bool>(); }

Tensor copy_numpy(pyb::array arr, DType t) {
  Shape shape(arr.shape(), arr.shape() + arr.ndim());
  if (!native_order(arr)) arr = arr.attr("astype")(arr.dtype().attr("newbyteorder")("="));
  // ensure() returns a null array (the error cleared) when numpy cannot make the copy, e.g. a
  // broadcast view of 2**62 elements: reading its shape crashed.
  arr = pyb::array::ensure(arr, pyb::array::c_style);
  MC_CHECK(arr, Runtime, "cannot convert a numpy array of shape ", shape,
           " to a Tensor: numpy could not make a contiguous copy of it (",
           checked_nbytes(shape, dtype_size(t), "Tensor"), " bytes; out of memory).");
  Tensor out = Tensor::empty(shape, t);
  std::memcpy(out.raw_data(), arr.data(), out.nbytes());
  return out;
}

}  // namespace

Tensor tensor_from_object(pyb::handle obj, const DType* dtype) {
  if (is_tensor(obj)) {
    const Tensor& t = tensor_of(obj);
    return dtype && *dtype != t.dtype() ? t.cast(*dtype) : t.clone();
  }
  pyb::module_ np = numpy_module();
  // numpy scalars keep their dtype (np.float16(1.5) -> Float16), as numpy arrays do.
  bool numpy_value = pyb::isinstance<pyb::array>(obj) || pyb::isinstance(obj, np.attr("generic"));
  Scalar s;
  if (!numpy_value && as_scalar(obj, &s)) {
    DType t = dtype ? *dtype : scalar_dtype(s);
    return Tensor::scalar(s, t);
  }
  bool from_python = !numpy_value;
  pyb::array arr;
  try {
    // Python ints for uint64 are read as uint64: numpy's own choice for a list mixing
    // small and above-int64 values is float64, which would round them.
    bool got = false;
    if (from_python && dtype && *dtype == DType::UInt64) {
      try {
        arr = np.attr("asarray")(obj, "uint64");
        got = true;
      } catch (const pyb::error_already_set&) {
      }
    }
    if (!got) arr = np.attr("asarray")(obj);
  } catch (const pyb::error_already_set& e) {
    MC_THROW(Type, "cannot convert an object of type ",
             std::string(pyb::str(obj.get_type().attr("__name__"))), " to a Tensor: ", e.what());
  }
  DType src;
  MC_CHECK(dtype_from_numpy(arr.dtype(), &src), Type, "cannot convert data of numpy dtype ",
           std::string(pyb::str(arr.dtype())), " to a Tensor.");
  Tensor t = copy_numpy(arr, src);
  // Python float literals are float32 in mycel, as in MindSpore; numpy arrays keep theirs.
  DType want = dtype ? *dtype : (from_python && src == DType::Float64 ? DType::Float32 : src);
  return t.cast(want);
}

namespace {
void release_pyobject(void* ctx) {
  pyb::gil_scoped_acquire gil;
  Py_DECREF(static_cast<PyObject*>(ctx));
}
}  // namespace

Tensor tensor_from_numpy_shared(pyb::array arr) {
  DType t;
  MC_CHECK(dtype_from_numpy(arr.dtype(), &t), Type, "cannot convert data of numpy dtype ",
           std::string(pyb::str(arr.dtype())), " to a Tensor.");
  bool ok = native_order(arr) && (arr.flags() & pyb::array::c_style) &&
            (reinterpret_cast<uintptr_t>(arr.data()) % dtype_size(t) == 0) && arr.writeable();
  if (!ok) return copy_numpy(arr, t);
  Shape shape(arr.shape(), arr.shape() + arr.ndim());
  PyObject* owner = arr.ptr();
  Py_INCREF(owner);
  auto storage = Storage::wrap(arr.mutable_data(), static_cast<size_t>(arr.nbytes()),
                               &release_pyobject, owner);
  return Tensor::make_view(std::move(storage), t, shape, contiguous_strides(shape), 0);
}

pyb::array tensor_to_numpy(const Tensor& t) {
  if (!t.device().is_cpu()) return tensor_to_numpy(t.cpu());  // waits for the device
  if (t.dtype() == DType::BFloat16) return tensor_to_numpy(t.cast(DType::Float32));
  std::vector<pyb::ssize_t> shape(t.shape().begin(), t.shape().end());
  std::vector<pyb::ssize_t> strides;
  for (int64_t s : t.strides()) strides.push_back(s * static_cast<int64_t>(t.itemsize()));
  // The capsule keeps the storage alive as long as the array lives.
  auto* keep = new std::shared_ptr<Storage>(t.storage());
  pyb::capsule base(keep, [](void* p) { delete static_cast<std::shared_ptr<Storage>*>(p); });
  try {
    return pyb::array(numpy_dtype(t.dtype()), shape, strides, t.numel() ? t.raw_data() : nullptr,
                      base);
  } catch (const pyb::error_already_set& e) {
    // numpy refuses shapes whose dimensions multiply past its limit even with a 0 among them
    // ([0, 2**62]: mycel's empty tensor); its "array is too big" named no tensor
    MC_THROW(Value, "Tensor.asnumpy: numpy cannot make an array of shape ", t.shape(),
             " and dtype ", t.dtype(), " (", e.what(), ").");
  }
}

Tensor operand(pyb::handle obj, const Tensor* like) {
  if (is_tensor(obj)) return tensor_of(obj);
  if (PyComplex_Check(obj.ptr()) && like) {
    // A Python complex with a tensor is weak, as a float is: complex64 unless the tensor holds
    // float64 or complex128 parts (PyTorch's rule).
    const DType lt = like->dtype();
    const DType t = is_complex(lt)         ? lt
                    : lt == DType::Float64 ? DType::Complex128
                                           : DType::Complex64;
    const Py_complex c = PyComplex_AsCComplex(obj.ptr());
    Tensor out = Tensor::empty({}, DType::Complex128);
    *out.data<complex128>() = complex128(c.real, c.imag);
    return out.cast(t);
  }
  Scalar s;
  if (as_scalar(obj, &s)) {
    DType t = like ? promote_with_scalar(like->dtype(), s.kind) : scalar_dtype(s);
    return Tensor::scalar(s, t);
  }
  return tensor_from_object(obj, nullptr);
}

int64_t int64_of(pyb::handle h) {
  if (!PyLong_Check(h.ptr()) || PyBool_Check(h.ptr())) {
    MC_CHECK(!PyBool_Check(h.ptr()) && pyb::isinstance(h, numpy_module().attr("integer")), Type,
             "expected an int, but got ", std::string(pyb::str(pyb::repr(h))), " of type ",
             std::string(pyb::str(pyb::type::handle_of(h).attr("__name__"))), ".");
    return int64_of(pyb::int_(pyb::reinterpret_borrow<pyb::object>(h)));  // numpy: exact
  }
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
  MC_CHECK(!overflow, Value, "the integer ", std::string(pyb::str(h)),
           " does not fit in int64 (a shape or size must be in [-2**63, 2**63)).");
  return v;
}

AttrValue to_attr(pyb::handle h) {
  if (h.is_none()) return std::monostate{};
  if (PyBool_Check(h.ptr())) return h.ptr() == Py_True;
  if (PyLong_Check(h.ptr())) return int64_of(h);
  if (PyFloat_Check(h.ptr())) return h.cast<double>();
  if (pyb::isinstance<pyb::str>(h)) return h.cast<std::string>();
  if (pyb::isinstance<DTypeObj>(h)) return h.cast<const DTypeObj&>().t;
  if (pyb::isinstance<pyb::tuple>(h) || pyb::isinstance<pyb::list>(h)) {
    std::vector<int64_t> v;
    for (pyb::handle e : h) {
      // Nested pairs (Pad's ((1, 2), (3, 4))) flatten.
      if (pyb::isinstance<pyb::tuple>(e) || pyb::isinstance<pyb::list>(e)) {
        for (pyb::handle x : e) v.push_back(int64_of(x));
      } else {
        MC_CHECK(PyLong_Check(e.ptr()) || pyb::isinstance(e, numpy_module().attr("integer")), Type,
                 "expected a tuple of ints, but it holds ", std::string(pyb::str(pyb::repr(e))),
                 ".");
        v.push_back(int64_of(e));
      }
    }
    return v;
  }
  Scalar s;
  if (as_scalar(h, &s)) {
    if (s.kind == ScalarKind::Float) return s.f;
    if (s.kind == ScalarKind::Bool) return s.i != 0;
    return s.i;
  }
  if (is_tensor(h)) {  // a 0-d or 1-d tensor given where a value is expected
    const Tensor& t = tensor_of(h);
    if (t.numel() == 1 && t.ndim() == 0) {
      Scalar v = t.item();
      if (v.kind == ScalarKind::Float) return v.f;
      if (v.kind == ScalarKind::Bool) return v.i != 0;
      return v.i;
    }
    MC_CHECK(is_integral(t.dtype()) && t.ndim() == 1, Type,
             "expected a scalar or a 1-d integer tensor as an attribute value, but got a tensor of "
             "shape ",
             t.shape(), " and dtype ", t.dtype(), ".");
    std::vector<int64_t> v;
    for (int64_t i = 0; i < t.numel(); ++i)
      v.push_back(static_cast<int64_t>(t.element_as_double(i)));
    return v;
  }
  try {
    return to_dtype(h);
  } catch (const Error&) {
  }
  MC_THROW(Type, "unsupported attribute value ", std::string(pyb::str(pyb::repr(h))), ".");
}

pyb::object attr_to_py(const AttrValue& v) {
  return std::visit(
      [](const auto& x) -> pyb::object {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>)
          return pyb::none();
        else if constexpr (std::is_same_v<T, DType>)
          return dtype_object(x);
        else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          pyb::tuple t(x.size());
          for (size_t i = 0; i < x.size(); ++i) t[i] = pyb::int_(x[i]);
          return t;
        } else
          return pyb::cast(x);
      },
      v);
}

}  // namespace mycel::py
