"""JIT fallback: what graph mode does not model runs in Python, at compile time on constants
and otherwise at run time with a one-line warning naming the user's file:line."""
import inspect
import warnings

import numpy as np
import pytest

import mycel as ms
from mycel.ops.primitive import constexpr


def _line_of(fn, marker):
    src, first = inspect.getsourcelines(fn)
    for i, text in enumerate(src):
        if marker in text:
            return first + i
    raise AssertionError(marker)


def host_sum(x):
    y = x * 2
    s = np.linalg.norm(y)  # <- runtime fallback
    return y, s


def test_host_call_on_a_tensor_runs_at_run_time_with_a_warning():
    x = ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    f = ms.jit(host_sum)
    with pytest.warns(UserWarning) as rec:
        y, s = f(x)
    line = _line_of(host_sum, "<- runtime fallback")
    msgs = [str(w.message) for w in rec]
    assert any(f"test_graph_fallback.py:{line}" in m and "run time" in m for m in msgs), msgs
    np.testing.assert_array_equal(y.asnumpy(), [2.0, 4.0, 6.0])
    assert float(s) == pytest.approx(np.sqrt(56.0))
    # Cached: the second call compiles nothing and warns nothing.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y2, s2 = f(x)
    assert float(s2) == pytest.approx(np.sqrt(56.0))


def constant_numpy(x):
    scale = np.sqrt(4.0) + float(np.prod((1, 2, 3)))  # evaluated while compiling
    names = [str(i) for i in range(3)]  # a comprehension: fallback on constants
    return x * scale, len(names)


def test_host_code_on_constants_folds_at_compile_time_without_warning():
    x = ms.Tensor(np.array([1.0, 2.0], np.float32))
    f = ms.jit(constant_numpy)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y, n = f(x)
    np.testing.assert_array_equal(y.asnumpy(), [8.0, 16.0])
    assert n == 3
    assert "py_execute" not in f.ir(x)


def test_grad_of_a_function_without_source_runs_in_pynative_mode_with_a_warning():
    # A lambda in `python -c` has no readable source: GRAPH mode cannot compile it, and the
    # gradient comes from the PYNATIVE path (it raised a misleading "returns any" TypeError).
    import os
    import subprocess
    import sys
    code = ("import numpy as np, mycel as ms\n"
            "ms.set_context(mode=ms.GRAPH_MODE)\n"
            "v, g = ms.value_and_grad(lambda s: (s * s).sum())(ms.Tensor(np.arange(3.0)))\n"
            "print(float(v), g.asnumpy().tolist())\n")
    root = os.path.join(os.path.dirname(__file__), "..", "..", "python")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120, env=dict(os.environ, PYTHONPATH=root))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "5.0 [0.0, 2.0, 4.0]"
    assert "cannot be read, so GRAPH mode cannot compile its gradient" in r.stderr


_CALLS = []


@constexpr
def _check_positive(x):
    """A check run in Python (a @constexpr helper given a tensor: a JIT fallback at run
    time, as ops.flip's _norm_dims): raises or records."""
    _CALLS.append(1)
    if float(x.asnumpy().min()) <= 0:
        raise ValueError("all values must be positive")
    return x


def checked_twice(x):
    _check_positive(x)  # <- result unused
    return x * 2


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_a_fallback_call_whose_result_is_unused_still_runs(mode):
    # It ran only if something read its result: a check that raises in PYNATIVE let graph
    # code return (ops.flip of a 0-d tensor with tensor dims returned the input).
    f = checked_twice if mode == "pynative" else ms.jit(checked_twice)
    _CALLS.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = f(ms.Tensor(np.array([1.0, 2.0], np.float32)))
        np.testing.assert_array_equal(y.asnumpy(), [2.0, 4.0])
        assert len(_CALLS) == 1
        with pytest.raises(ValueError, match="must be positive"):
            f(ms.Tensor(np.array([1.0, -2.0], np.float32)))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_flip_of_a_0d_tensor_with_tensor_dims_raises_in_both_modes(mode):
    x = ms.Tensor(np.array(3.0, np.float32))
    d = ms.Tensor(np.array([0], np.int64))
    old = ms.get_context("mode")
    ms.set_context(mode=mode)
    try:
        f = ms.ops.flip if mode == ms.PYNATIVE_MODE else ms.jit(lambda a, b: ms.ops.flip(a, b))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(TypeError, match="For 'flip', the 'dims' must hold ints"):
                f(x, d)
    finally:
        ms.set_context(mode=old)
