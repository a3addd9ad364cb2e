"""Deep programs never overflow the C stack (issue #16, class 2).

Each program of the table is written to a .py file and compiled with mycel.jit in a fresh
interpreter (a subprocess with a timeout), so a crash or a hang is a test failure rather than
a dead pytest. The child prints either the result, compared here with the same function run
without jit, or the type and text of the error. Straight-line code of any length compiles;
nesting beyond the documented limits (docs/architecture.md, "Depth limits") gives a
RecursionError naming the user's file:line and the limit -- never a signal death.
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

# The child: imports the generated module, runs `f` without jit (the oracle; Python may
# itself refuse deep recursion) and under jit in GRAPH mode, optionally in a thread with a
# given stack size, and prints one JSON line.
CHILD = textwrap.dedent("""
    import importlib.util, json, sys, threading, traceback
    import numpy as np
    import mycel as ms
    path, stack_kb, reclimit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    if reclimit:
        sys.setrecursionlimit(reclimit)  # lets CPython parse deeper than its default
    spec = importlib.util.spec_from_file_location("deep_prog", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    args = mod.ARGS()
    def plain(v):
        return v.asnumpy().tolist() if isinstance(v, ms.Tensor) else v
    out = {}
    try:
        out["python"] = plain(mod.f(*args))
    except RecursionError:
        out["python"] = "RecursionError"
    def run():
        try:
            ms.set_context(mode=ms.GRAPH_MODE)
            out["jit"] = plain(ms.jit(mod.f)(*args))
        except BaseException as e:
            out["error"] = [type(e).__name__, str(e)]
    if stack_kb:
        threading.stack_size(stack_kb * 1024)
        t = threading.Thread(target=run)
        t.start()
        t.join()
    else:
        run()
    print(json.dumps(out))
""")

HEADER = "import mycel as ms\nimport numpy as np\n\n"
TENSOR_ARG = "def ARGS():\n    return (ms.Tensor(np.array([1.5, -2.0], np.float32)),)\n\n"


def straight_line(n):
    body = "".join(f"    x = x + {i % 7}\n" for i in range(n))
    return TENSOR_ARG + "def f(x):\n" + body + "    return x\n"


def nested_calls(n):
    src = [TENSOR_ARG]
    for i in range(n):
        src.append(f"def h{i}(x):\n    return h{i + 1}(x) + 1\n\n")
    src.append(f"def h{n}(x):\n    return x\n\n")
    src.append("def f(x):\n    return h0(x)\n")
    return "".join(src)


def plus_chain(n):
    return TENSOR_ARG + "def f(x):\n    return " + " + ".join(["x"] * n) + "\n"


def scalar_chain(n):
    # Constant operands: folded at compile time.
    return ("def ARGS():\n    return (3,)\n\n" + "def f(k):\n    return " +
            " + ".join(["k"] * n) + "\n")


def unary_chain(n):
    return TENSOR_ARG + "def f(x):\n    return " + "-" * n + "x\n"


def and_chain(n):
    # Flat in Python's ast (one BoolOp), nested graphs in mycel (short-circuit branches).
    return ("def ARGS():\n    return (3,)\n\n" + "def f(k):\n    return " +
            " and ".join(["k"] * n) + "\n")


def nested_ifs(n):
    # Indentation allows fewer than 100 levels (if is not a "block" to CPython's limit of 20).
    lines = ["def f(x):"]
    for i in range(n):
        lines.append("    " * (i + 1) + f"if x.sum() > {-100 - i}:")
        lines.append("    " * (i + 2) + "x = x + 1")
    lines.append("    return x")
    return TENSOR_ARG + "\n".join(lines) + "\n"


def elif_chain(n):
    lines = ["def f(x):", "    s = x.sum()", "    if s > 1000:", "        x = x * 2"]
    for i in range(n):
        lines.append(f"    elif s > {999 - i}:")
        lines.append(f"        x = x + {i}")
    lines += ["    else:", "        x = x - 1", "    return x"]
    return TENSOR_ARG + "\n".join(lines) + "\n"


def nested_whiles(n):
    lines = ["def f(x):", "    i0 = 0"]
    for i in range(n):
        ind = "    " * (i + 1)
        lines.append(ind + f"i{i} = 0")
        lines.append(ind + f"while i{i} < 1:")
        lines.append(ind + f"    i{i} += 1")
    lines.append("    " * (n + 1) + "x = x + 1")
    lines.append("    return x")
    return TENSOR_ARG + "\n".join(lines) + "\n"


def nested_tuple_const(n):
    return (TENSOR_ARG + "T = 1\nfor _ in range(" + str(n) + "):\n    T = (T,)\n\n" +
            "def f(x):\n    t = T\n    while isinstance(t, tuple):\n        t = t[0]\n"
            "    return x + t\n")


def recursive_const(n):
    return ("def ARGS():\n    return (ms.Tensor(np.array([2.0], np.float32)),)\n\n"
            "def tri(k):\n    if k == 0:\n        return 0\n    return k + tri(k - 1)\n\n"
            f"def f(x):\n    return x * tri({n})\n")


def run_program(tmp_path, name, source, stack_kb=0, reclimit=0, timeout=300):
    path = tmp_path / f"{name}.py"
    path.write_text(HEADER + source)
    env = dict(os.environ, PYTHONPATH=PYTHONPATH)
    res = subprocess.run([PY, "-c", CHILD, str(path), str(stack_kb), str(reclimit)],
                         capture_output=True, text=True, timeout=timeout, env=env)
    assert res.returncode == 0, (f"{name}: the child died (rc {res.returncode})\n"
                                 f"{res.stderr[-3000:]}")
    return path, json.loads(res.stdout.strip().splitlines()[-1])


def check(out, path, must_compile):
    """The jit result equals Python's; or, when allowed, a RecursionError that names the
    user's file and line and the limit."""
    if "jit" in out:
        assert out["python"] in ("RecursionError", out["jit"]), out
        return
    kind, msg = out["error"]
    assert not must_compile, f"expected a result, got {kind}: {msg[:2000]}"
    assert kind == "RecursionError", f"{kind}: {msg[:2000]}"
    assert "limit" in msg and str(path) in msg, msg[:2000]


# CPython 3.11 parses expressions and elif chains nested up to about 2988 levels (with the
# default recursion limit); mycel compiles what CPython parses up to its limits.
CASES = [
    # name, source, must compile, the child's recursion limit (0: default)
    ("straight_15000", straight_line(15000), True, 0),
    ("straight_50000", straight_line(50000), True, 0),
    ("plus_chain_1000", plus_chain(1000), True, 0),
    ("plus_chain_2900", plus_chain(2900), True, 0),
    ("scalar_chain_1000", scalar_chain(1000), True, 0),
    ("unary_chain_2900", unary_chain(2900), True, 0),
    ("plus_chain_10000", plus_chain(10000), False, 100000),
    ("and_chain_200", and_chain(200), True, 0),
    ("and_chain_5000", and_chain(5000), False, 0),
    ("nested_calls_200", nested_calls(200), True, 0),
    ("nested_calls_3000", nested_calls(3000), False, 0),
    ("nested_calls_20000", nested_calls(20000), False, 0),
    ("nested_ifs_90", nested_ifs(90), True, 0),
    ("nested_whiles_18", nested_whiles(18), True, 0),  # CPython allows 20 nested blocks
    ("elif_chain_300", elif_chain(300), True, 0),
    ("elif_chain_2900", elif_chain(2900), False, 0),
    ("nested_tuple_100", nested_tuple_const(100), True, 0),
    ("nested_tuple_100000", nested_tuple_const(100000), False, 0),
    ("recursive_const_50", recursive_const(50), True, 0),
    ("recursive_const_5000", recursive_const(5000), False, 0),
]


@pytest.mark.parametrize("name,source,must_compile,reclimit", CASES, ids=[c[0] for c in CASES])
def test_deep_program(tmp_path, name, source, must_compile, reclimit):
    path, out = run_program(tmp_path, name, source, reclimit=reclimit)
    check(out, path, must_compile)


# The limits hold in a thread with a small stack too: the guards measure the stack left.
THREAD_CASES = [
    ("thread_nested_calls_3000", nested_calls(3000), False),
    ("thread_plus_chain_2900", plus_chain(2900), False),
    ("thread_elif_chain_2900", elif_chain(2900), False),
    ("thread_straight_15000", straight_line(15000), True),
]


@pytest.mark.parametrize("name,source,must_compile", THREAD_CASES,
                         ids=[c[0] for c in THREAD_CASES])
def test_deep_program_small_thread_stack(tmp_path, name, source, must_compile):
    path, out = run_program(tmp_path, name, source, stack_kb=2048)
    check(out, path, must_compile)
