"""calling_op(): the name of the mycel.ops function or primitive whose Python code is running,
for error messages raised where the op is not known.

A tensor's generic conversions (``int(t)``, ``float(t)``, ``bool(t)``, ``t`` as an index,
``Tensor(x)``) fail with messages that name no op ("only a tensor with one element can be
converted to a scalar"). When one fails inside an op's Python code (a wrapper reading an axis
or a count from an argument), the Tensor binding (src/python/py_tensor.cc) asks this module
which op the user called and puts "For '<op>', " in front. Only the failing path calls it.
So does ``constexpr`` for the bare TypeError / ValueError / IndexError of a helper
("'float' object is not iterable" from a shape plan given a float).
"""
import os
import sys

__all__ = ["calling_op"]

_OPS_DIR = os.path.dirname(os.path.realpath(__file__)) + os.sep


def _in_ops(code):
    # co_filename as the module was imported: "tests/python/../../python/mycel/ops/..." when
    # the path was added with ".." (the tests do)
    return os.path.realpath(code.co_filename).startswith(_OPS_DIR)


def name_error(err, depth):
    """err (a TypeError, ValueError or IndexError with one message) with "For '<op>', " in
    front when ops code `depth` frames up called the code that raised it and the message does
    not start with "For '" already. Returns err."""
    if type(err) in (TypeError, ValueError, IndexError) and len(err.args) == 1 and \
            isinstance(err.args[0], str) and not err.args[0].startswith("For '"):
        op = calling_op(depth + 1)
        if op is not None:
            err.args = (f"For '{op}', {err.args[0]}",)
    return err


def _name(code):
    parts = [p for p in code.co_qualname.split(".") if p != "<locals>"]
    if len(parts) > 1 and parts[-1].startswith("__"):  # Primitive.__call__ -> Primitive
        return parts[-2]
    return parts[-1]


def calling_op(depth=1):
    """The op whose code called the running conversion: the outermost frame of the run of
    mycel.ops frames that starts at the caller (`depth` frames up), or None when the caller
    is not ops code (user code, even when an ops transform such as grad called it)."""
    frame = sys._getframe(depth)  # pylint: disable=protected-access
    name = None
    while frame is not None and _in_ops(frame.f_code):
        name = _name(frame.f_code)
        frame = frame.f_back
    return name
