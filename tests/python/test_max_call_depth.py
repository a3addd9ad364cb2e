"""set_context(max_call_depth=N), MindSpore's older name of set_recursion_limit(N): the limit on
calls GRAPH mode's compiler specialises inside one another (default 1000; past it a
RecursionError, a RuntimeError, naming the limit and how to raise it). At run time (a
recursion on tensor values) nested graph calls are limited to 200000, or to N when larger:
past it a RuntimeError, never a crash."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, nn

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Rec(nn.Cell):
    """f(x, n) = f(x, n - 1) + 1 until n is 0: n nested calls at run time (n a tensor)."""

    def f(self, x, n):
        if n > 0:
            return self.f(x, n - 1) + 1.0
        return x

    def construct(self, x, n):
        return self.f(x, n)


@pytest.fixture
def graph():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE, max_call_depth=1000)


def test_default_and_get_context():
    assert ms.get_context("max_call_depth") == 1000
    try:
        ms.set_context(max_call_depth=77)
        assert ms.get_context("max_call_depth") == 77
        ms.set_recursion_limit(88)  # the same limit
        assert ms.get_context("max_call_depth") == 88
    finally:
        ms.set_context(max_call_depth=1000)
    for bad, err in ((0, ValueError), (-3, ValueError), (2.5, TypeError), (True, TypeError),
                     ("9", TypeError)):
        with pytest.raises(err, match="max_call_depth"):
            ms.set_context(max_call_depth=bad)
    assert ms.get_context("max_call_depth") == 1000


def test_run_time_recursion_below_and_above_the_limit(graph):
    x = Tensor(np.zeros(3, np.float32))
    # deeper than the compile-time default: run-time recursion has its own, larger limit
    np.testing.assert_array_equal(Rec()(x, Tensor(4000, ms.int32)).asnumpy(), [4000.0] * 3)
    with pytest.raises(RuntimeError, match=r"more than 200000 nested graph calls.*"
                                           r"set_context\(max_call_depth=N\)"):
        Rec()(x, Tensor(250000, ms.int32))
    ms.set_context(max_call_depth=300000)  # the same compiled graph, the raised limit
    np.testing.assert_array_equal(Rec()(x, Tensor(250000, ms.int32)).asnumpy(), [250000.0] * 3)
    with pytest.raises(RuntimeError, match="more than 300000 nested graph calls"):
        Rec()(x, Tensor(300001, ms.int32))


class Nest(nn.Cell):
    """Recursion in construct on a Python int: the calls nest at compile time."""

    def f(self, x, k):
        if k == 0:
            return x
        return self.f(x, k - 1) + 1.0

    def construct(self, x):
        return self.f(x, 30)


def test_recursive_construct_below_and_above_the_limit(graph):
    x = Tensor(np.zeros(2, np.float32))
    ms.set_context(max_call_depth=20)
    with pytest.raises(RuntimeError, match=r"limit is 20 nested calls.*max_call_depth=N"):
        Nest()(x)
    ms.set_context(max_call_depth=200)
    np.testing.assert_array_equal(Nest()(x).asnumpy(), [30.0, 30.0])


def _nest(k):
    if k == 0:
        return 0.0
    return _nest(k - 1) + 1.0


def test_compile_time_nesting_below_and_above_the_limit(graph):
    @ms.jit
    def f(x):
        return x + _nest(30)  # 31 calls specialised inside one another

    x = Tensor(np.zeros(2, np.float32))
    ms.set_context(max_call_depth=20)
    with pytest.raises(RuntimeError, match=r"limit is 20.*max_call_depth"):
        f(x)
    ms.set_context(max_call_depth=200)
    np.testing.assert_array_equal(f(x).asnumpy(), [30.0, 30.0])


def test_runaway_recursion_is_an_error_not_a_crash(tmp_path):
    # Without a limit set, an unbounded recursion on a tensor stops at the run-time limit with
    # the error; compile-time nesting past a max_call_depth set stops with its error; in a
    # subprocess (a crash would show as a signal exit code).
    code = textwrap.dedent("""
        import numpy as np
        import mycel as ms
        from mycel import Tensor, nn
        ms.set_context(mode=ms.GRAPH_MODE)

        class Runaway(nn.Cell):
            def f(self, x, n):
                if n != 0:  # never 0 for a negative n
                    return self.f(x, n - 1) * 1.0 + 1.0
                return x

            def construct(self, x, n):
                return self.f(x, n)

        try:
            Runaway()(Tensor(np.zeros(2, np.float32)), Tensor(-1, ms.int32))
        except RuntimeError as e:
            print("ERROR:", e)

        def nest(k):
            if k == 0:
                return 0.0
            return nest(k - 1) + 1.0

        @ms.jit
        def deep(x):
            return x + nest(30)

        ms.set_context(max_call_depth=20)
        try:
            deep(Tensor(np.zeros(2, np.float32)))
        except RuntimeError as e:
            print("COMPILE:", type(e).__name__, e)
    """)
    script = tmp_path / "runaway.py"  # graph mode compiles from source: a file, not -c
    script.write_text(code)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       timeout=300, env=env)
    assert p.returncode == 0, (p.returncode, p.stderr[-2000:])
    assert "ERROR: maximum recursion depth exceeded: more than 200000 nested graph calls" in \
        p.stdout, p.stdout
    assert "COMPILE: RecursionError" in p.stdout and "the limit is 20" in p.stdout, p.stdout
    assert p.stdout.count("set_context(max_call_depth=N)") == 2, p.stdout
