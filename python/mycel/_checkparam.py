"""Argument checks that MindSpore programs (and Python-declared primitives) import as
``from mindspore import _checkparam as validator``: MindSpore 2.x's ``_checkparam`` names.

Each check returns the value when it holds and raises otherwise: TypeError for a value of
the wrong type (a bool is not an int here unless bool is listed), ValueError for a value out
of range; the message names the argument and, when given, the primitive.
"""
import numbers
import re

# Relations of check_int / check_number and the interval kinds of the range checks.
EQ, NE, LT, LE, GT, GE = "==", "!=", "<", "<=", ">", ">="
INC_NEITHER, INC_LEFT, INC_RIGHT, INC_BOTH = "INC_NEITHER", "INC_LEFT", "INC_RIGHT", "INC_BOTH"

_COMPARE = {EQ: lambda a, b: a == b, NE: lambda a, b: a != b, LT: lambda a, b: a < b,
            LE: lambda a, b: a <= b, GT: lambda a, b: a > b, GE: lambda a, b: a >= b}
_INTERVAL = {INC_NEITHER: ("(", ")", lambda lo, v, hi: lo < v < hi),
             INC_LEFT: ("[", ")", lambda lo, v, hi: lo <= v < hi),
             INC_RIGHT: ("(", "]", lambda lo, v, hi: lo < v <= hi),
             INC_BOTH: ("[", "]", lambda lo, v, hi: lo <= v <= hi)}


def _where(arg_name, prim_name):
    head = f"For '{prim_name}', the " if prim_name else "The "
    return head + (f"'{arg_name}'" if arg_name else "input value")


def _type_name(v):
    return type(v).__name__


def check_value_type(arg_name, arg_value, valid_types, prim_name=None):
    """arg_value if it is an instance of one of valid_types (a type, or a list/tuple of
    them), else TypeError. A bool passes only where bool (not just int) is listed."""
    types = tuple(valid_types) if isinstance(valid_types, (list, tuple)) else (valid_types,)
    ok = isinstance(arg_value, types) and (not isinstance(arg_value, bool) or bool in types)
    if not ok:
        names = [getattr(t, "__name__", str(t)) for t in types]
        raise TypeError(f"{_where(arg_name, prim_name)} must be of type {names}, but got "
                        f"{_type_name(arg_value)}.")
    return arg_value


def _check_kind(arg_value, arg_name, prim_name, kind, what):
    """arg_value if it is an instance of kind (never a bool), else TypeError."""
    if isinstance(arg_value, bool) or not isinstance(arg_value, kind):
        raise TypeError(f"{_where(arg_name, prim_name)} must be {what}, but got "
                        f"{_type_name(arg_value)}.")
    return arg_value


def _check_int_value(arg_value, arg_name, prim_name):
    return _check_kind(arg_value, arg_name, prim_name, int, "an int")


def check_is_int(arg_value, arg_name=None, prim_name=None):
    """arg_value if it is an int (not a bool), else TypeError."""
    return _check_int_value(arg_value, arg_name, prim_name)


def _signed_int(arg_value, arg_name, prim_name, holds, what):
    _check_int_value(arg_value, arg_name, prim_name)
    if not holds(arg_value):
        raise ValueError(f"{_where(arg_name, prim_name)} must be {what} int, but got "
                         f"{arg_value}.")
    return arg_value


def check_positive_int(arg_value, arg_name=None, prim_name=None):
    """An int > 0 (TypeError for a non-int, ValueError otherwise)."""
    return _signed_int(arg_value, arg_name, prim_name, lambda v: v > 0, "a positive")


def check_negative_int(arg_value, arg_name=None, prim_name=None):
    """An int < 0."""
    return _signed_int(arg_value, arg_name, prim_name, lambda v: v < 0, "a negative")


def check_non_positive_int(arg_value, arg_name=None, prim_name=None):
    """An int <= 0."""
    return _signed_int(arg_value, arg_name, prim_name, lambda v: v <= 0, "a non-positive")


def check_non_negative_int(arg_value, arg_name=None, prim_name=None):
    """An int >= 0."""
    return _signed_int(arg_value, arg_name, prim_name, lambda v: v >= 0, "a non-negative")


def _check_float_value(arg_value, arg_name, prim_name):
    return _check_kind(arg_value, arg_name, prim_name, float, "a float")


def check_is_float(arg_value, arg_name=None, prim_name=None):
    """arg_value if it is a float, else TypeError."""
    return _check_float_value(arg_value, arg_name, prim_name)


def check_positive_float(arg_value, arg_name=None, prim_name=None):
    """A float > 0."""
    _check_float_value(arg_value, arg_name, prim_name)
    if not arg_value > 0:
        raise ValueError(f"{_where(arg_name, prim_name)} must be a positive float, but got "
                         f"{arg_value}.")
    return arg_value


def check_non_negative_float(arg_value, arg_name=None, prim_name=None):
    """A float >= 0."""
    _check_float_value(arg_value, arg_name, prim_name)
    if not arg_value >= 0:
        raise ValueError(f"{_where(arg_name, prim_name)} must be a non-negative float, but "
                         f"got {arg_value}.")
    return arg_value


def check_bool(arg_value, arg_name=None, prim_name=None):
    """arg_value if it is a bool, else TypeError."""
    if not isinstance(arg_value, bool):
        raise TypeError(f"{_where(arg_name, prim_name)} must be a bool, but got "
                        f"{_type_name(arg_value)}.")
    return arg_value


def _check_range(arg_value, lower, upper, rel, arg_name, prim_name):
    if rel not in _INTERVAL:
        raise ValueError(f"Unknown interval kind {rel!r}: one of {list(_INTERVAL)}.")
    left, right, holds = _INTERVAL[rel]
    if not holds(lower, arg_value, upper):
        raise ValueError(f"{_where(arg_name, prim_name)} must be in {left}{lower}, {upper}"
                         f"{right}, but got {arg_value}.")
    return arg_value


def check_int_range(arg_value, lower_limit, upper_limit, rel, arg_name=None, prim_name=None):
    """An int in the interval of kind rel (INC_NEITHER, INC_LEFT, INC_RIGHT, INC_BOTH)."""
    _check_int_value(arg_value, arg_name, prim_name)
    return _check_range(arg_value, lower_limit, upper_limit, rel, arg_name, prim_name)


def check_float_range(arg_value, lower_limit, upper_limit, rel, arg_name=None, prim_name=None):
    """A float in the interval of kind rel."""
    _check_float_value(arg_value, arg_name, prim_name)
    return _check_range(arg_value, lower_limit, upper_limit, rel, arg_name, prim_name)


def check_number_range(arg_value, lower_limit, upper_limit, rel, value_type, arg_name=None,
                       prim_name=None):
    """A number of value_type (int or float) in the interval of kind rel."""
    check_value_type(arg_name, arg_value, [value_type], prim_name)
    return _check_range(arg_value, lower_limit, upper_limit, rel, arg_name, prim_name)


def check_int(arg_value, value, rel, arg_name=None, prim_name=None):
    """An int standing in relation rel (EQ, NE, LT, LE, GT, GE) to value."""
    _check_int_value(arg_value, arg_name, prim_name)
    if not _COMPARE[rel](arg_value, value):
        raise ValueError(f"{_where(arg_name, prim_name)} must be {rel} {value}, but got "
                         f"{arg_value}.")
    return arg_value


def check_equal_int(arg_value, value, arg_name=None, prim_name=None):
    """An int equal to value."""
    return check_int(arg_value, value, EQ, arg_name, prim_name)


def check_number(arg_value, value, rel, arg_name=None, prim_name=None):
    """A number standing in relation rel to value."""
    if isinstance(arg_value, bool) or not isinstance(arg_value, numbers.Real):
        raise TypeError(f"{_where(arg_name, prim_name)} must be a number, but got "
                        f"{_type_name(arg_value)}.")
    if not _COMPARE[rel](arg_value, value):
        raise ValueError(f"{_where(arg_name, prim_name)} must be {rel} {value}, but got "
                         f"{arg_value}.")
    return arg_value


def check_string(arg_value, valid_values, arg_name=None, prim_name=None):
    """A str among valid_values."""
    _check_kind(arg_value, arg_name, prim_name, str, "a str")
    if arg_value not in valid_values:
        raise ValueError(f"{_where(arg_name, prim_name)} must be one of {list(valid_values)}, "
                         f"but got {arg_value!r}.")
    return arg_value


def check_str_by_regular(target, reg=None, flag=re.ASCII, prim_name=None):
    """A str matching the regular expression reg (default: letters, digits, '_', '-', '/'
    and '.', starting with a letter, a digit or '_', as MindSpore's default)."""
    _check_kind(target, "target", prim_name, str, "a str")
    pattern = reg if reg is not None else r"^[A-Za-z0-9_][A-Za-z0-9_.\-/]*$"
    if re.match(pattern, target, flag) is None:
        raise ValueError(f"{_where('target', prim_name)} {target!r} does not match "
                         f"{pattern!r}.")
    return True


def _dtype_names(dtypes):
    return [str(d) for d in dtypes]


def check_tensor_dtype_valid(arg_name, arg_type, valid_dtypes, prim_name=None,
                             retrieve_tensor_type=True):
    """A dtype among valid_dtypes (TypeError otherwise); ``retrieve_tensor_type`` is
    accepted for MindSpore's signature (mycel passes dtypes, not tensor types)."""
    if arg_type not in valid_dtypes:
        raise TypeError(f"{_where(arg_name, prim_name)} must be one of "
                        f"{_dtype_names(valid_dtypes)}, but got {arg_type}.")
    return arg_type


def check_type_name(arg_name, arg_type, valid_types, prim_name=None):
    """A dtype among valid_types (TypeError otherwise)."""
    return check_tensor_dtype_valid(arg_name, arg_type, valid_types, prim_name)


def check_types_same_and_valid(args, valid_values, prim_name=None):
    """args: {name: dtype}; every dtype valid and all the same."""
    for k, v in args.items():
        check_tensor_dtype_valid(k, v, valid_values, prim_name)
    if len(set(args.values())) > 1:
        raise TypeError(f"For '{prim_name}', the dtypes of {list(args)} must be the same, but "
                        f"got {[str(v) for v in args.values()]}.")
    return next(iter(args.values()), None)


def check_scalar_or_tensor_types_same(args, valid_values, prim_name=None, allow_mix=False):
    """args: {name: dtype} of scalars or tensors; every dtype valid and (unless allow_mix)
    all the same. Returns the dtype."""
    if not allow_mix:
        return check_types_same_and_valid(args, valid_values, prim_name)
    for k, v in args.items():
        check_tensor_dtype_valid(k, v, valid_values, prim_name)
    return next(iter(args.values()), None)


def twice(arg_value):
    """(v, v) for an int v, or a pair of ints as it is; TypeError otherwise."""
    if isinstance(arg_value, int) and not isinstance(arg_value, bool):
        return (arg_value, arg_value)
    if isinstance(arg_value, tuple) and len(arg_value) == 2 and all(
            isinstance(v, int) and not isinstance(v, bool) for v in arg_value):
        return arg_value
    raise TypeError(f"The value must be an int or a tuple of two ints, but got {arg_value!r}.")
