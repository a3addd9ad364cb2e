"""Modules and names MindSpore's own tests import from where MindSpore defines them (found
by scripts/ms_compat.py runs of tests/ut/python): ``mindspore.common.mutable`` (a module
whose ``mutable`` is the function, while ``mindspore.common.mutable`` as an attribute stays
the function) and ``mindspore.ops.functional.depend``; each checked to be the one object
mycel defines, and used."""
import numpy as np

import mycel
from mycel import Tensor, ops


def test_common_mutable_module_and_function():
    import importlib
    module = importlib.import_module("mycel.common.mutable")
    from mycel.common.mutable import mutable
    from mycel.common import mutable as from_package
    assert mutable is mycel.mutable and from_package is mycel.mutable
    assert module.mutable is mycel.mutable and module.__name__ == "mycel.common.mutable"
    t = mutable((1, 2.5))
    assert tuple(t) == (1, 2.5) and getattr(t, "__ms_mutable__", False)


def test_functional_depend():
    from mycel.ops.functional import depend
    assert depend is ops.depend
    x = Tensor(np.array([1.0, 2.0], np.float32))
    np.testing.assert_array_equal(depend(x, x * 2).asnumpy(), [1.0, 2.0])


def test_primexpr_runs_on_constants_at_compile_time():
    from mycel.ops.primitive import _primexpr
    calls = []

    @_primexpr
    def count_odd(shape):
        calls.append(shape)
        return sum(1 for d in shape if d % 2)

    @mycel.jit
    def f(x):
        return x * count_odd(x.shape)

    x = Tensor(np.ones((3, 4, 5), np.float32))
    np.testing.assert_array_equal(f(x).asnumpy(), np.full((3, 4, 5), 2.0, np.float32))
    np.testing.assert_array_equal(f(x).asnumpy(), np.full((3, 4, 5), 2.0, np.float32))
    assert calls == [(3, 4, 5)]  # once, while compiling; the second call reuses the graph
