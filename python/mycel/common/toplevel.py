"""Top-level functions of MindSpore 2.x's ``mindspore`` module that sit on other parts of
mycel: the random-state functions (``manual_seed``, ``seed``, ``initial_seed``,
``get_rng_state``, ``set_rng_state``), ``set_device``, ``get_current_device``,
``set_recursion_limit``, dtype queries (``dtype_to_pytype``,
``get_py_obj_dtype``), ``run_check`` and ``ms_memory_recycle``.

The random-state functions act on ``mindspore.default_generator``, the global generator (the
one ``set_seed`` seeds and every random op without its own seed draws from): they are
defined in common/generator.py with ``Generator``. ``get_rng_state`` gives the state as a
uint64 Tensor ([seed, counter, n, then n (primitive, position) pairs]) that ``set_rng_state``
takes back, so a block of random ops can be replayed exactly."""
import collections

import numpy as np

from mycel import _mycel as _C
from mycel.common.generator import (manual_seed, seed, initial_seed,  # noqa: F401
                                    get_rng_state, set_rng_state)


def set_device(device_target, device_id=None):
    """Selects the device ops run on: 'CPU' or 'GPU' (and which GPU), as
    ``set_context(device_target=..., device_id=...)``."""
    from mycel.context import set_context
    if device_id is None:
        set_context(device_target=device_target)
    else:
        set_context(device_target=device_target, device_id=device_id)


class DeviceInfo(collections.namedtuple("DeviceInfo", ["device_target", "device_id"])):
    """What ``get_current_device`` returns: a (device_target, device_id) pair."""
    __slots__ = ()


def get_current_device():
    """The device ops run on, as ``DeviceInfo(device_target, device_id)`` (set with
    ``set_device`` or ``set_context``)."""
    from mycel.context import get_context
    return DeviceInfo(get_context("device_target"), get_context("device_id"))


def set_recursion_limit(recursion_limit=1000):
    """Sets how many calls GRAPH mode's compiler specialises inside one another (nested
    helper calls, recursion on compile-time constants) before it raises a RecursionError;
    1000 by default (``set_context(max_call_depth=N)`` is its older name). It applies to
    compiles that start afterwards. A larger limit stays safe: the compiler also stops
    before the thread's stack runs out (src/ir/depth.h). At run time (a recursion on tensor
    values) nested graph calls are limited to 200000, or to this limit when larger (the
    executor's frames live on the heap; src/runtime/vm.h); past it, a RuntimeError."""
    if isinstance(recursion_limit, bool) or not isinstance(recursion_limit, (int, np.integer)):
        raise TypeError(f"For 'set_recursion_limit', the recursion_limit must be an int, but "
                        f"got {type(recursion_limit).__name__}.")
    if not 0 < int(recursion_limit) < 2**31:
        raise ValueError(f"For 'set_recursion_limit', the recursion_limit must be a positive "
                         f"int below 2**31, but got {recursion_limit}.")
    _C._set_recursion_limit(int(recursion_limit))


def set_deterministic(deterministic):
    """Deterministic mode (MindSpore's): with True every op gives the same bits on every run.
    mycel's CPU kernels always do (reductions split the work the same way whatever the
    thread count); on a GPU the kernels that sum floats with atomics, whose order varies
    (GatherDGrad, UnsortedSegmentSum, ScatterNd), then run on the host with copies
    (kernels/kernel_table.h), and CUDA Graph captures made afterwards leave them out.
    ``get_context("deterministic")`` is "ON" or "OFF"."""
    from mycel.context import _context
    if not isinstance(deterministic, bool):
        raise TypeError(f"For 'set_deterministic', the deterministic must be a bool, but got "
                        f"{type(deterministic).__name__}.")
    _C._set_deterministic(deterministic)
    _context["deterministic"] = "ON" if deterministic else "OFF"


def dtype_to_pytype(type_):
    """The Python type of a dtype's values: bool, int, float or complex; list, tuple,
    NoneType and str for list_, tuple_, type_none and string."""
    from mycel.common import dtype as _dt
    if type_ is _dt.string or isinstance(type_, _dt._TypeObject):  # pylint: disable=W0212
        return _dt.dtype_to_pytype(type_)
    if type_ == _C.bool:
        return bool
    if not isinstance(type_, _C.DType):
        raise TypeError(f"For 'dtype_to_pytype', the argument must be a dtype, but got "
                        f"{type(type_).__name__}.")
    return _dt.dtype_to_pytype(type_)


def get_py_obj_dtype(obj):
    """The dtype of a Python object: a Tensor's dtype, a type's (pytype_to_dtype) or a Python
    scalar's (bool, int64, float32)."""
    from mycel.common.dtype import pytype_to_dtype
    if isinstance(obj, _C.Tensor):
        return obj.dtype
    if isinstance(obj, _C.DType):
        return obj
    from mycel.common.dtype import list_, tuple_, type_none
    for tobj, pytype in ((list_, list), (tuple_, tuple), (type_none, type(None))):
        if obj is pytype or type(obj) is pytype:
            return tobj
    if isinstance(obj, type):
        return pytype_to_dtype(obj)
    if isinstance(obj, (bool, int, float, np.generic)):
        return pytype_to_dtype(type(obj))
    raise TypeError(f"For 'get_py_obj_dtype', the object must be a Tensor, a dtype, a type or "
                    f"a Python scalar, but got {type(obj).__name__}.")


def run_check():
    """Checks the installation: runs one addition on the current device target and compares
    it with numpy; prints the version and the result."""
    from mycel.context import get_context
    from mycel.version import __version__
    print(f"mycel version: {__version__}")
    a = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    got = (_C.Tensor(a) + _C.Tensor(a)).asnumpy()
    if not np.array_equal(got, a + a):
        raise RuntimeError(f"run_check: 1 + 1 on {get_context('device_target')} gave {got}, "
                           f"expected {a + a}: the installation is broken.")
    print(f"The result of the addition is correct: mycel runs on "
          f"{get_context('device_target')}.")


def ms_memory_recycle():
    """Returns the allocator's cached free blocks to the system (what MindSpore's memory
    recycling does between graphs); tensors in use are untouched."""
    _C.empty_cache()
