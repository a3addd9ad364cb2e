"""Tensor element types (MindSpore's ``mindspore.common.dtype``, imported as ``mstype``)."""
from mycel import _mycel as _C
from mycel._mycel import (int8, uint8, int16, int32, int64, float16, bfloat16,  # noqa: F401
                          float32, float64, DType as Type, promote_types)
from mycel._mycel import uint16, uint32, uint64  # noqa: F401
from mycel._mycel import complex64, complex128  # noqa: F401

bool_ = getattr(_C, "bool")
float_ = float32
int_ = int32
half, single, double = float16, float32, float64
number_type = (int8, uint8, int16, int32, int64, uint16, uint32, uint64, float16, bfloat16,
               float32, float64, complex64, complex128)
complex_type = (complex64, complex128)
float_type = (float16, bfloat16, float32, float64)
int_type = (int8, int16, int32, int64)
uint_type = (uint8, uint16, uint32, uint64)
# MindSpore's C-style aliases.
byte, short, intc, intp = int8, int16, int32, int64
ubyte, ushort, uintc, uintp = uint8, uint16, uint32, uint64


def pytype_to_dtype(obj):
    """The dtype of a Python type or numpy dtype."""
    import numpy as np
    if obj is bool:
        return bool_
    if obj is int:
        return int64
    if obj is float:
        return float32
    if obj is complex:
        return complex128
    return _C.dtype_from_name(np.dtype(obj).name)


def dtype_to_pytype(type_):
    """The Python type of a dtype's values: bool, int, float or complex."""
    if type_ == bool_:
        return bool
    if type_ in complex_type:
        return complex
    return float if type_.is_floating_point else int


def get_py_obj_dtype(obj):
    """The dtype of a Python value or type, as MindSpore's: a Tensor's own; bool -> bool_,
    int -> int64, float -> float64, complex -> complex128; numpy types their own."""
    if isinstance(obj, _C.Tensor):
        return obj.dtype
    t = obj if isinstance(obj, type) else type(obj)
    if t is float:
        return float64
    return pytype_to_dtype(t)


def dtype_to_nptype(type_):
    """The numpy type of a dtype (bfloat16 maps to float32: numpy has no bfloat16)."""
    import numpy as np
    return np.float32 if type_ == bfloat16 else np.dtype(type_.name).type


class TensorType:
    """The type of a Tensor value as MindSpore's type inference reports it (``mstype.TensorType``,
    what ``ops.operations._inner_ops.TopTypeof()(x)`` returns for a Tensor): its element type
    is ``element_type()``."""

    def __init__(self, element_type=None):
        self._element = element_type

    def element_type(self):
        """The dtype of the elements (None when not given)."""
        return self._element

    def __eq__(self, other):
        return isinstance(other, TensorType) and other._element == self._element

    def __hash__(self):
        return hash(("TensorType", self._element))

    def __repr__(self):
        return "Tensor" if self._element is None else f"Tensor[{self._element}]"


class _StringType:
    """MindSpore's ``mstype.string``: the element type of string columns in datasets (a
    dataset Schema's or TypeCast's type; mycel Tensors hold no strings)."""

    name = "String"

    def __repr__(self):
        return "String"

    __str__ = __repr__


string = _StringType()
