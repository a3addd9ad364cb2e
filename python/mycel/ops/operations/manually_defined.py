"""MindSpore's ``mindspore.ops.operations.manually_defined``: the functions over shapes and
Python scalars its programs reach there (``rank``, ``shape_``, ``scalar_add`` ...). Each is
plain Python over scalars or a mycel op, so both modes compile it as graph code."""
from mycel.ops.function.array_func import rank, shape as shape_  # noqa: F401

__all__ = ["rank", "shape_", "scalar_add", "scalar_sub", "scalar_mul", "scalar_div",
           "scalar_mod", "scalar_floordiv", "scalar_pow", "scalar_eq", "scalar_ge", "scalar_gt",
           "scalar_le", "scalar_lt"]


def scalar_add(x, y):
    """x + y of two Python numbers."""
    return x + y


def scalar_sub(x, y):
    """x - y of two Python numbers."""
    return x - y


def scalar_mul(x, y):
    """x * y of two Python numbers."""
    return x * y


def scalar_div(x, y):
    """x / y (true division: a float) of two Python numbers."""
    return x / y


def scalar_mod(x, y):
    """x % y of two Python numbers (Python's sign rule: the divisor's)."""
    return x % y


def scalar_floordiv(x, y):
    """x // y of two Python numbers."""
    return x // y


def scalar_pow(x, y):
    """x ** y of two Python numbers."""
    return x ** y


def scalar_eq(x, y):
    """x == y of two Python numbers."""
    return x == y


def scalar_ge(x, y):
    """x >= y of two Python numbers."""
    return x >= y


def scalar_gt(x, y):
    """x > y of two Python numbers."""
    return x > y


def scalar_le(x, y):
    """x <= y of two Python numbers."""
    return x <= y


def scalar_lt(x, y):
    """x < y of two Python numbers."""
    return x < y
