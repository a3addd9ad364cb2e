"""Shared harness of the graph-mode corpus: run one program in every mode and compare.

    from graph_harness import check_all_modes, graph_ir, assert_same

    out = check_all_modes(fn, x, y)                # plain function
    out = check_all_modes(MyNet, x)                # a Cell class: a fresh instance per mode
    out = check_all_modes(MyNet(4), x)             # a Cell instance: the same one in every mode
    out = check_all_modes(lambda: MyNet(4), x, factory=True)   # a zero-argument factory
    out = check_all_modes(fn, x, rtol=1e-6)        # where a pass may reorder float math

check_all_modes runs the program (1) in PYNATIVE mode, as plain Python; (2) under
mycel.jit in PYNATIVE mode (for a Cell: jit of its bound construct); (3) in GRAPH mode (a
Cell is called, so Cell.__call__ compiles construct; a function runs under jit). It compares
(2) and (3) with (1) structurally -- tuples/lists element by element, tensors by dtype,
shape and values (bit-identical unless rtol/atol are given), Python scalars by type and
value -- and returns the PYNATIVE result so a test can also compare it with an oracle. The
context mode is restored afterwards whatever happens.
"""
import math

import numpy as np

import mycel
from mycel import context
from mycel.nn import Cell

__all__ = ["check_all_modes", "assert_same", "graph_ir", "run_mode", "run_numpy", "MODES"]

MODES = ("pynative", "jit", "graph")


def _instance(target, factory):
    """The callable for one mode: a fresh Cell for a Cell class or factory."""
    if isinstance(target, type) and issubclass(target, Cell):
        return target()
    if factory:
        return target()
    return target


def run_mode(target, mode, *args, factory=False):
    """Runs `target` on args in one of MODES ("pynative", "jit", "graph") and returns the
    result; the context mode is restored afterwards."""
    saved = context._context["mode"]
    try:
        obj = _instance(target, factory)
        if mode == "pynative":
            context.set_context(mode=context.PYNATIVE_MODE)
            return obj(*args)
        if mode == "jit":
            context.set_context(mode=context.PYNATIVE_MODE)
            fn = obj.construct if isinstance(obj, Cell) else obj
            return mycel.jit(fn)(*args)
        if mode == "graph":
            context.set_context(mode=context.GRAPH_MODE)
            if isinstance(obj, Cell):
                return obj(*args)
            return mycel.jit(obj)(*args)
        raise ValueError(f"unknown mode {mode!r}")
    finally:
        context.set_context(mode=saved)


def run_numpy(target, mode, *arrays):
    """run_mode on the numpy arrays as tensors; the result (a tensor or a tuple of them) as
    numpy arrays."""
    out = run_mode(target, mode, *[mycel.Tensor(a) for a in arrays])
    return tuple(o.asnumpy() for o in out) if isinstance(out, tuple) else out.asnumpy()


def _fail(path, msg):
    raise AssertionError(f"at result{path}: {msg}")


def assert_same(expected, actual, rtol=None, atol=0.0, path=""):
    """Structural comparison: bit-identical by default, within rtol/atol if given."""
    if isinstance(expected, mycel.Tensor):
        if not isinstance(actual, mycel.Tensor):
            _fail(path, f"expected a Tensor, got {type(actual).__name__}: {actual!r}")
        e, a = expected.asnumpy(), actual.asnumpy()
        if e.dtype != a.dtype:
            _fail(path, f"dtype {a.dtype} != expected {e.dtype}")
        if e.shape != a.shape:
            _fail(path, f"shape {a.shape} != expected {e.shape}")
        if rtol is None and not atol:
            # Bit-identical, with NaNs equal to NaNs.
            if e.dtype.kind == "f":
                if not np.array_equal(e.view(f"u{e.itemsize}"), a.view(f"u{a.itemsize}")):
                    _fail(path, f"values differ (bitwise):\n{a!r}\n!= expected\n{e!r}")
            elif not np.array_equal(e, a):
                _fail(path, f"values differ:\n{a}\n!= expected\n{e}")
        else:
            if e.dtype.kind in "fc":
                np.testing.assert_allclose(a, e, rtol=rtol or 0.0, atol=atol,
                                           err_msg=f"at result{path}", equal_nan=True)
            elif not np.array_equal(e, a):
                _fail(path, f"values differ:\n{a}\n!= expected\n{e}")
        return
    if isinstance(expected, (tuple, list)):
        if type(actual) is not type(expected):
            _fail(path, f"expected a {type(expected).__name__}, got "
                  f"{type(actual).__name__}: {actual!r}")
        if len(actual) != len(expected):
            _fail(path, f"length {len(actual)} != expected {len(expected)}")
        for i, (e, a) in enumerate(zip(expected, actual)):
            assert_same(e, a, rtol, atol, f"{path}[{i}]")
        return
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            _fail(path, f"expected a dict, got {type(actual).__name__}: {actual!r}")
        if list(expected.keys()) != list(actual.keys()):
            _fail(path, f"keys {list(actual.keys())} != expected {list(expected.keys())}")
        for k in expected:
            assert_same(expected[k], actual[k], rtol, atol, f"{path}[{k!r}]")
        return
    if isinstance(expected, (bool, int, float, str)) or expected is None:
        if type(actual) is not type(expected):
            _fail(path, f"expected {type(expected).__name__} {expected!r}, got "
                  f"{type(actual).__name__} {actual!r}")
        if isinstance(expected, float) and (rtol is not None or atol):
            if not math.isclose(actual, expected, rel_tol=rtol or 0.0, abs_tol=atol):
                _fail(path, f"{actual!r} != expected {expected!r}")
        elif isinstance(expected, float) and math.isnan(expected):
            if not math.isnan(actual):
                _fail(path, f"{actual!r} != expected nan")
        elif actual != expected:
            _fail(path, f"{actual!r} != expected {expected!r}")
        return
    if actual != expected:
        _fail(path, f"{actual!r} != expected {expected!r}")


def check_all_modes(target, *args, rtol=None, atol=0.0, factory=False, modes=MODES):
    """Runs target(*args) in each of `modes` and checks every result equals the first
    (PYNATIVE) one; returns that result. target: a function, a Cell instance, a Cell class
    (instantiated with no arguments per mode: its initial state must be deterministic) or,
    with factory=True, a zero-argument callable returning a fresh Cell or function per
    mode."""
    results = []
    for mode in modes:
        try:
            results.append(run_mode(target, mode, *args, factory=factory))
        except Exception as exc:
            raise AssertionError(f"mode {mode!r} raised {type(exc).__name__}: {exc}") from exc
    for mode, res in zip(modes[1:], results[1:]):
        try:
            assert_same(results[0], res, rtol=rtol, atol=atol)
        except AssertionError as exc:
            raise AssertionError(f"mode {mode!r} differs from {modes[0]!r}: {exc}") from None
    return results[0]


def graph_ir(target, *args, factory=False):
    """The optimised IR text of target (function or Cell, as check_all_modes) for args."""
    obj = _instance(target, factory)
    fn = obj.construct if isinstance(obj, Cell) else obj
    return mycel.jit(fn).ir(*args)
