"""Compile time grows about linearly with the number of sequential `if`s.

The code after an `if` is a join graph called from both branches, and the branches of the next
`if` are nested in it; the inline pass once copied every join into both branches of the `if`
before it, so n sequential ifs compiled in time 2^n (n=14 took 20 s). The inline policy now
bounds what a callee used more than once may copy, counted as it is copied (inline.cc).

Each program of the table is written to a .py file and run in a fresh interpreter (a
subprocess with a generous timeout, never a tight timing): the plain function in PYNATIVE
mode is the oracle, the jit-compiled one in GRAPH mode must give the same result.
"""
import json
import os
import subprocess
import sys
import textwrap

import pytest

PY = sys.executable
HERE = os.path.dirname(os.path.abspath(__file__))
PYTHONPATH = os.path.join(os.path.dirname(os.path.dirname(HERE)), "python")
N = 60
TIMEOUT = 60

CHILD = textwrap.dedent("""
    import importlib.util, json, sys, time
    import mycel as ms
    spec = importlib.util.spec_from_file_location("scaling_prog", sys.argv[1])
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    def plain(v):
        if isinstance(v, tuple):
            return [plain(e) for e in v]
        return v.asnumpy().tolist() if isinstance(v, ms.Tensor) else v
    ms.set_context(mode=ms.PYNATIVE_MODE)
    out = {"pynative": plain(mod.f(*mod.ARGS()))}
    ms.set_context(mode=ms.GRAPH_MODE)
    t = time.time()
    out["graph"] = plain(ms.jit(mod.f)(*mod.ARGS()))
    out["seconds"] = time.time() - t
    print(json.dumps(out))
""")

HEADER = ("import mycel as ms\nimport numpy as np\n\n"
          "def ARGS():\n    return (ms.Tensor(np.ones(3, np.float32) * 5), 30)\n\n")


def tensor_ifs(n):
    body = "".join(f"    if x.sum() > {i}:\n        x = x - 1\n" for i in range(n))
    return "def f(x, k):\n" + body + "    return x\n"


def if_else(n):
    body = "".join(f"    if x.sum() > {i % 7}:\n        x = x - 0.5\n"
                   f"    else:\n        x = x + 1\n" for i in range(n))
    return "def f(x, k):\n" + body + "    return x\n"


def two_carried(n):
    body = "".join(f"    if (x * y).sum() > {i}:\n        x = x - 1\n"
                   f"    else:\n        y = y + x\n" for i in range(n))
    return "def f(x, k):\n    y = x * 2\n" + body + "    return x, y\n"


def const_ifs(n):
    body = "".join(f"    if k > {i}:\n        x = x - 1\n" for i in range(n))
    return "def f(x, k):\n" + body + "    return x\n"


def mixed_ifs(n):
    body = "".join((f"    if k > {i}:\n" if i % 2 else f"    if x.sum() > {-i}:\n") +
                   "        x = x * 0.9\n" for i in range(n))
    return "def f(x, k):\n" + body + "    return x\n"


def elif_chain(n):
    src = ["def f(x, k):\n    s = x.sum()\n", f"    if s > {n}:\n        x = x + 1\n"]
    src += [f"    elif s > {n - i}:\n        x = x - {i}\n" for i in range(1, n)]
    src.append("    else:\n        x = x * 2\n    return x\n")
    return "".join(src)


def ifs_in_while(n):
    body = "".join(f"        if x.sum() > {i}:\n            x = x + 0.25\n" for i in range(n))
    return ("def f(x, k):\n    while x.sum() < 400:\n" + body +
            "        x = x + 1\n    return x\n")


def ifs_with_return(n):
    body = "".join(f"    if x.sum() < {-i}:\n        return x * {i}\n    x = x - 0.1\n"
                   for i in range(n))
    return "def f(x, k):\n" + body + "    return x\n"


def ifs_returning_late(n):
    # Conditions that hold late: the returns sit deep in the chain of joins.
    body = "".join(f"    if x.sum() < {15 - i * 0.5}:\n        return x + {i}\n"
                   "    x = x - 0.1\n" for i in range(n))
    return "def f(x, k):\n" + body + "    return x\n"


def ifs_in_helper(n):
    body = "".join(f"    if x.sum() > {i}:\n        x = x - 0.5\n" for i in range(n // 4))
    calls = "".join("    x = g(x)\n" for _ in range(4))
    return "def g(x):\n" + body + "    return x\n\ndef f(x, k):\n" + calls + "    return x\n"


PROGRAMS = {f.__name__: f for f in [
    tensor_ifs, if_else, two_carried, const_ifs, mixed_ifs, elif_chain, ifs_in_while,
    ifs_with_return, ifs_returning_late, ifs_in_helper]}


def _run(tmp_path, name, n):
    prog = tmp_path / f"{name}_{n}.py"
    prog.write_text(HEADER + PROGRAMS[name](n))
    child = tmp_path / "child.py"
    child.write_text(CHILD)
    env = dict(os.environ, PYTHONPATH=PYTHONPATH)
    p = subprocess.run([PY, str(child), str(prog)], capture_output=True, text=True,
                       timeout=TIMEOUT, env=env)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


def _close(a, b):
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_close, a, b))
    return abs(a - b) <= 1e-4 * max(1.0, abs(a))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_sequential_ifs_compile_and_agree(tmp_path, name):
    out = _run(tmp_path, name, N)
    assert _close(out["graph"], out["pynative"]), out


def test_two_hundred_ifs(tmp_path):
    out = _run(tmp_path, "tensor_ifs", 200)
    assert out["graph"] == out["pynative"] == [1.0, 1.0, 1.0]
