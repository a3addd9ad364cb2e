"""Checks and conversions shared by the distributions (MindSpore's
``nn.probability.distribution._utils.utils``).

The functions that take Python values (``cast_to_tensor``, ``check_*``, ``set_param_type``)
run when a distribution is built, in Python. ``raise_*`` are ``constexpr`` helpers: inside a
Cell compiled in GRAPH mode they raise at compile time. ``CheckTensor`` / ``CheckTuple`` are
small Cells, so a distribution method calling them compiles in both modes.
"""
import numpy as np

from mycel.common import dtype as mstype
from mycel.common.tensor import Tensor
from mycel.common.parameter import Parameter
from mycel.nn.cell import Cell
from mycel.ops.primitive import constexpr

_INT_NAMES = ("Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64")


def is_int_type(t):
    """Whether dtype `t` is an integer type (signed or not)."""
    return t is not None and str(t) in _INT_NAMES


def cast_to_tensor(t, hint_type=mstype.float32):
    """`t` (a number, list, numpy array or Tensor) as a Tensor of `hint_type`; a Parameter
    is returned as it is. A bool is a TypeError, None a ValueError."""
    if t is None:
        raise ValueError("Input cannot be None in cast_to_tensor")
    if isinstance(t, Parameter):
        return t
    if isinstance(t, bool):
        raise TypeError("Input cannot be Type Bool")
    if isinstance(t, Tensor):
        return Tensor(t.asnumpy(), dtype=hint_type)
    if isinstance(t, (np.ndarray, list, int, float)):
        return Tensor(np.asarray(t), dtype=hint_type)
    raise TypeError(f"Unable to convert input of type {type(t)} to a Tensor of type "
                    f"{hint_type}")


def cast_type_for_device(dtype):
    """The dtype a distribution computes in on this device (the CPU keeps every dtype)."""
    return dtype


def _as_numpy(value):
    if isinstance(value, Parameter):
        return None  # trainable: checked by the caller's ops, not at build time
    if isinstance(value, Tensor):
        return value.asnumpy()
    return np.asarray(value)


def check_greater_equal_zero(value, name):
    """ValueError unless every element of `value` is >= 0."""
    v = _as_numpy(value)
    if v is not None and np.any(v < 0):
        raise ValueError(f"{name} should be greater than or equal to zero.")


def check_greater_zero(value, name):
    """ValueError unless every element of `value` is > 0."""
    if value is None:
        raise ValueError("input value cannot be None in check_greater_zero")
    v = _as_numpy(value)
    if v is not None and not np.all(v > 0):
        raise ValueError(f"{name} should be greater than zero.")


def check_greater(a, b, name_a, name_b):
    """ValueError unless `a < b` everywhere."""
    if a is None or b is None:
        raise ValueError("input value cannot be None in check_greater")
    va, vb = _as_numpy(a), _as_numpy(b)
    if va is not None and vb is not None and not np.all(va < vb):
        raise ValueError(f"{name_a} should be less than {name_b}")


def check_prob(p):
    """ValueError unless every element of `p` lies strictly between 0 and 1."""
    if p is None:
        raise ValueError("input value cannot be None in check_prob")
    v = _as_numpy(p)
    if v is None:
        return
    if not np.all(v > 0):
        raise ValueError("Probabilities should be greater than zero")
    if not np.all(v < 1):
        raise ValueError("Probabilities should be less than one")


def check_sum_equal_one(probs):
    """ValueError unless the probabilities along the last axis sum to one."""
    v = _as_numpy(probs)
    if v is None:
        return
    s = np.sum(v, axis=-1)
    eps = np.finfo(s.dtype).eps if s.dtype.kind == "f" else np.finfo(np.float32).eps
    if not np.allclose(s, 1.0, rtol=eps * 10, atol=eps):
        raise ValueError("Probabilities for each category should sum to one for Categorical "
                         "distribution.")


def check_rank(probs):
    """ValueError if `probs` is a scalar (Categorical needs rank >= 1)."""
    v = _as_numpy(probs)
    if v is not None and v.ndim == 0:
        raise ValueError("probs for Categorical distribution must have rank >= 1.")


def check_type(value, types, name, owner):
    """TypeError unless `value` is an instance of `types` (bools are not ints)."""
    if isinstance(value, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
        raise TypeError(f"For '{owner}', '{name}' should be {types}, but got bool.")
    if not isinstance(value, types):
        raise TypeError(f"For '{owner}', '{name}' should be {types}, but got "
                        f"{type(value).__name__}.")


def check_dtype(dtype, allowed, owner):
    """TypeError unless `dtype` is one of the `allowed` kinds: 'float', 'number'."""
    name = str(dtype)
    ok = name.startswith("Float") or name == "BFloat16"
    if allowed == "number":
        ok = ok or name in _INT_NAMES
    if not ok:
        kinds = "a float type" if allowed == "float" else "an int or float type"
        raise TypeError(f"For '{owner}', dtype should be {kinds}, but got {dtype}.")


def set_param_type(args, hint_type):
    """The dtype the parameters `args` (name -> value) are computed in: their common dtype
    (a TypeError when Tensors or arrays disagree), float32 for integers and float64, else
    `hint_type` (float32 for an integer hint)."""
    if hint_type is None or is_int_type(hint_type):
        hint_type = mstype.float32
    common = None
    for name, arg in args.items():
        if isinstance(arg, np.ndarray):
            cur = mstype.pytype_to_dtype(arg.dtype)
        elif isinstance(arg, Tensor):
            cur = arg.dtype
        else:
            continue
        if common is None:
            common = cur
        elif cur != common:
            raise TypeError(f"{name} should have the same dtype as other arguments.")
    if common is not None and (is_int_type(common) or common == mstype.float64):
        return mstype.float32
    return hint_type if common is None else common


@constexpr
def raise_none_error(name):
    raise TypeError(f"the type {name} should be subclass of Tensor. It should not be None "
                    "since it is not specified during initialization.")


@constexpr
def raise_probs_logits_error():
    raise TypeError("Either 'probs' or 'logits' must be specified, but not both.")


@constexpr
def raise_broadcast_error(shape_a, shape_b):
    raise ValueError(f"Shape {shape_a} and {shape_b} is not broadcastable.")


@constexpr
def raise_not_impl_error(name):
    raise ValueError(f"{name} function should be implemented for non-linear transformation")


@constexpr
def raise_not_implemented_util(func_name, obj, *args, **kwargs):
    raise NotImplementedError(f"{func_name} is not implemented for {obj} distribution.")


@constexpr
def raise_type_error(name, cur_type, required_type):
    raise TypeError(f"For {name} , the type should be or be subclass of {required_type}, "
                    f"but got {cur_type}")


@constexpr
def raise_not_defined(func_name, obj, *args, **kwargs):
    raise ValueError(f"{func_name} is undefined for {obj} distribution.")


@constexpr
def check_distribution_name(name, expected_name):
    if name is None:
        raise ValueError("Input dist should be a constant which is not None.")
    if name != expected_name:
        raise ValueError(f"Expected dist input is {expected_name}, but got {name}.")


class CheckTuple(Cell):
    """Returns its input when it is a tuple, else a TypeError naming `name`."""

    def construct(self, x, name):
        if isinstance(x, tuple):
            return x
        raise TypeError(f"For {name}, input type should be a tuple.")


class CheckTensor(Cell):
    """Returns its input when it is a Tensor (or Parameter), else a TypeError naming `name`."""

    def construct(self, x, name):
        if isinstance(x, Tensor):
            return x
        raise TypeError(f"For {name}, input type should be a Tensor or Parameter.")


def check_tensor(x, name):
    """The function form of CheckTensor, for distribution methods."""
    if isinstance(x, Tensor):
        return x
    raise TypeError(f"For {name}, input type should be a Tensor or Parameter.")
