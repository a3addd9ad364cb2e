// Conversions between Python objects and mycel values (dtypes, tensors, scalars, attributes),
// shared by the front end (py_value.cc, py_host.cc) and the binding files.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "ops/attrs.h"
#include "tensor/tensor.h"

namespace mycel::py {

namespace pyb = pybind11;

// The DType of a Python dtype object (mycel.float32, a numpy dtype, np.float32, a string), or
// a TypeError.
DType to_dtype(pyb::handle h);
pyb::object dtype_object(DType t);  // the mycel.<dtype> singleton
// Makes `obj` the singleton of t: the extension, once per DType at import (python/py_dtype.cc).
void set_dtype_object(DType t, pyb::object obj);

// numpy dtype for t (bfloat16 has none: asnumpy converts it to float32).
pyb::dtype numpy_dtype(DType t);
bool dtype_from_numpy(const pyb::dtype& d, DType* out);

// Tensor from a numpy array, list, tuple, Python scalar or Tensor; a copy. With no dtype,
// Python floats (and lists of them) become float32, ints int64, bools bool; numpy arrays keep
// theirs.
Tensor tensor_from_object(pyb::handle obj, const DType* dtype);
// Zero-copy when the array is C-contiguous, aligned and of a supported dtype.
Tensor tensor_from_numpy_shared(pyb::array arr);
// A numpy array sharing the tensor's memory (bfloat16: a float32 copy).
pyb::array tensor_to_numpy(const Tensor& t);

// An operand for an op beside `like`: Tensors pass through, Python scalars become 0-d tensors
// whose dtype follows the scalar-promotion rule, anything else goes through
// tensor_from_object.
Tensor operand(pyb::handle obj, const Tensor* like);
// Fast paths for the hottest checks: the Tensor Python type is looked up once at binding time
// (register_tensor_type), then an isinstance is a pointer compare and a Tensor& is read
// straight out of the pybind11 instance.
void register_tensor_type(pyb::handle cls);
bool is_tensor(pyb::handle h);
const Tensor& tensor_of(pyb::handle h);      // h must be a Tensor (is_tensor)
bool as_scalar(pyb::handle h, Scalar* out);  // Python bool/int/float or numpy scalar

// A Python int or numpy integer as int64: a TypeError for anything else (a float such as 2.5
// is never truncated, a bool is not a size), a ValueError for an int beyond int64 (never
// pybind11's "Unable to cast" message). Callers prefix the op or argument.
int64_t int64_of(pyb::handle h);
AttrValue to_attr(pyb::handle h);  // bool, int, float, str, dtype, tuple/list of int
pyb::object attr_to_py(const AttrValue& v);

}  // namespace mycel::py
