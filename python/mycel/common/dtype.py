"""Tensor element types (MindSpore's ``mindspore.common.dtype``, imported as ``mstype``), and
the type objects of non-tensor values (list_, tuple_, type_none, number, uint, Int, QuantDtype)."""
import enum

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


class _TypeObject:
    """One of MindSpore's non-tensor types (``mstype.list_``, ``tuple_``, ``type_none``) or
    abstract number kinds (``number``, ``uint``): what type inference reports for such a
    value. ``dtype_to_pytype`` maps the first three to list, tuple and NoneType."""

    def __init__(self, name, pytype=None):
        self.name = name
        self._pytype = pytype

    def __repr__(self):
        return self.name

    __str__ = __repr__


list_ = _TypeObject("List", list)
tuple_ = _TypeObject("Tuple", tuple)
type_none = _TypeObject("NoneType", type(None))
number = _TypeObject("Number")
uint = _TypeObject("UInt")

_INT_BITS = {8: int8, 16: int16, 32: int32, 64: int64}


def Int(nbits):  # noqa: N802 (MindSpore's name)
    """MindSpore's ``mstype.Int(nbits)``: the signed integer dtype of that width."""
    if nbits not in _INT_BITS:
        raise ValueError(f"For 'Int', the number of bits must be 8, 16, 32 or 64, but got "
                         f"{nbits!r}.")
    return _INT_BITS[nbits]


class QuantDtype(enum.Enum):
    """MindSpore's quantization data types: INT2 .. INT16 and UINT2 .. UINT16, each with
    ``num_bits`` and ``is_signed`` (its value is the type's name)."""
    INT2 = "INT2"
    INT3 = "INT3"
    INT4 = "INT4"
    INT5 = "INT5"
    INT6 = "INT6"
    INT7 = "INT7"
    INT8 = "INT8"
    INT16 = "INT16"
    UINT2 = "UINT2"
    UINT3 = "UINT3"
    UINT4 = "UINT4"
    UINT5 = "UINT5"
    UINT6 = "UINT6"
    UINT7 = "UINT7"
    UINT8 = "UINT8"
    UINT16 = "UINT16"

    @property
    def num_bits(self):
        """The width in bits."""
        return int(self.value.lstrip("UINT"))

    @property
    def is_signed(self):
        """Whether the type is signed (INTn)."""
        return not self.value.startswith("U")

    def __str__(self):
        return self.value


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
    """The Python type of a dtype's values: bool, int, float or complex; list, tuple,
    NoneType and str for list_, tuple_, type_none and string."""
    if isinstance(type_, _TypeObject) and type_._pytype is not None:
        return type_._pytype
    if type_ is string:
        return str
    if type_ == bool_:
        return bool
    if type_ in complex_type:
        return complex
    return float if type_.is_floating_point else int


def get_py_obj_dtype(obj):
    """The dtype of a Python value or type, as MindSpore's: a Tensor's own; bool -> bool_,
    int -> int64, float -> float64, complex -> complex128; numpy types their own; list,
    tuple, None -> list_, tuple_, type_none; a NotImplementedError for other types."""
    if isinstance(obj, _C.Tensor):
        return obj.dtype
    t = obj if isinstance(obj, type) else type(obj)
    for tobj in (list_, tuple_, type_none):
        if t is tobj._pytype:
            return tobj
    if t is float:
        return float64
    try:
        return pytype_to_dtype(t)
    except TypeError:
        # MindSpore's error for a type with no dtype (a class, `type` itself)
        raise NotImplementedError(f"For 'get_py_obj_dtype', the Python type {t.__name__} has "
                                  f"no mindspore type.") from None


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
