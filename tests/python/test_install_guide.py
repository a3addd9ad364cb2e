"""The verification programs of MindSpore's install guide, in PYNATIVE and GRAPH mode."""
import subprocess
import sys
import tempfile
import textwrap
import os

import numpy as np

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def run_program(src):
    """Runs src as a script file (graph mode reads the source of construct from it)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "python") + os.pathsep + env.get("PYTHONPATH", "")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "program.py")
        with open(path, "w") as f:
            f.write(textwrap.dedent(src))
        out = subprocess.run([sys.executable, path], capture_output=True, text=True, env=env,
                             timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


import pytest


@pytest.mark.parametrize("mode", ["PYNATIVE_MODE", "GRAPH_MODE"])
def test_mul_cell_prints_like_mindspore(mode):
    out = run_program("""
        import numpy as np
        import mycel.context as context
        import mycel.nn as nn
        from mycel import Tensor
        from mycel.ops import operations as P

        context.set_context(mode=context.MODE, device_target="CPU")

        class Mul(nn.Cell):
            def __init__(self):
                super(Mul, self).__init__()
                self.mul = P.Mul()

            def construct(self, x, y):
                return self.mul(x, y)

        x = Tensor(np.array([1.0, 2.0, 3.0]).astype(np.float32))
        y = Tensor(np.array([4.0, 5.0, 6.0]).astype(np.float32))
        mul = Mul()
        print(mul(x, y))
    """.replace("MODE", mode))
    assert out == "[ 4. 10. 18.]\n"


def test_tensor_add_of_ones_gives_twos():
    out = run_program("""
        import numpy as np
        from mycel import Tensor
        import mycel.ops.functional as F
        import mycel.context as context

        context.set_context(device_target="CPU")
        x = Tensor(np.ones([1, 3, 3, 4]).astype(np.float32))
        y = Tensor(np.ones([1, 3, 3, 4]).astype(np.float32))
        print(F.tensor_add(x, y))
    """)
    expected = str(np.full([1, 3, 3, 4], 2.0, dtype=np.float32)) + "\n"
    assert out == expected
    assert "[[[[2. 2. 2. 2.]" in out


def test_ops_add_2x_version():
    import mycel as ms
    from mycel import ops
    x = ms.Tensor(np.ones([1, 3, 3, 4]).astype(np.float32))
    out = ops.add(x, x)
    assert out.shape == (1, 3, 3, 4) and out.dtype == ms.float32
    np.testing.assert_array_equal(out.asnumpy(), np.full([1, 3, 3, 4], 2.0, np.float32))
