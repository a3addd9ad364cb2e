"""set_context(max_call_depth=N) (MindSpore's older name of set_recursion_limit): one limit on
GRAPH mode's nested function calls, at compile time (calls specialised inside one another)
and at run time (nested graph calls of a recursion on tensor values); default 1000. Past it,
a RuntimeError naming the limit and how to raise it, never a crash."""
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
    ms.set_context(max_call_depth=50)
    np.testing.assert_array_equal(Rec()(x, Tensor(45, ms.int32)).asnumpy(), [45.0] * 3)
    with pytest.raises(RuntimeError, match=r"more than 50 nested graph calls.*max_call_depth"):
        Rec()(x, Tensor(60, ms.int32))
    ms.set_context(max_call_depth=100)  # the same compiled graph, the new limit
    np.testing.assert_array_equal(Rec()(x, Tensor(60, ms.int32)).asnumpy(), [60.0] * 3)
    ms.set_context(max_call_depth=5000)
    np.testing.assert_array_equal(Rec()(x, Tensor(4000, ms.int32)).asnumpy(), [4000.0] * 3)


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
    ms.set_context(max_call_depth=40)
    np.testing.assert_array_equal(f(x).asnumpy(), [30.0, 30.0])


def test_runaway_recursion_is_an_error_not_a_crash():
    # Without a limit set, an unbounded recursion on a tensor stops at the default limit with
    # the error, in a subprocess (a crash would show as a signal exit code).
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
        ms.set_context(max_call_depth=300000)  # deep: the frames are on the heap
        print("DEEP:", Runaway()(Tensor(np.zeros(2, np.float32)), Tensor(200000, ms.int32)))
    """)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=300, env=env)
    assert p.returncode == 0, (p.returncode, p.stderr[-2000:])
    assert "ERROR: maximum recursion depth exceeded: more than 1000 nested graph calls" in \
        p.stdout, p.stdout
    assert "set_context(max_call_depth=N)" in p.stdout
    assert "DEEP: [200000. 200000.]" in p.stdout, p.stdout
