"""The compile driver's environment variables (src/compiler/compile.h, base/env.h) follow one
rule in every compile path: unset, "", "0", "false", "off" are off, anything else is on.

Each case compiles in a fresh interpreter with the variable set, along each path that compiles:
a jit function in GRAPH mode, MINDIR export, and a PYNATIVE gradient (its backward graph)."""
import os
import subprocess
import sys
import textwrap

import pytest

PYTHON = sys.executable
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CHILD = textwrap.dedent("""
    import os, sys, tempfile
    import numpy as np
    import mycel as ms

    def f(x, y):
        return x * y + x

    x = ms.Tensor(np.ones((2, 3), np.float32))
    y = ms.Tensor(np.full((2, 3), 2, np.float32))
    path = sys.argv[1]
    if path == "graph":
        ms.set_context(mode=ms.GRAPH_MODE)
        out = ms.jit(f)(x, y)
    elif path == "export":
        ms.export(f, x, y, file_name=os.path.join(tempfile.mkdtemp(), "f"))
    else:
        ms.set_context(mode=ms.PYNATIVE_MODE)
        out = ms.grad(f)(x, y)
        assert np.allclose(out.asnumpy(), 3.0), out
    print("ok")
""")

PATHS = ["graph", "export", "pynative"]


@pytest.fixture(scope="module")
def script(tmp_path_factory):
    """The child program, in a file: the front end parses functions from their source."""
    path = tmp_path_factory.mktemp("compile_env") / "child.py"
    path.write_text(CHILD)
    return str(path)


def run_child(script, path, **env_vars):
    env = dict(os.environ)
    for k in ("MYCEL_LOG_COMPILE", "MYCEL_LOG_RECOMPILE", "MYCEL_DUMP_IR"):
        env.pop(k, None)
    env["PYTHONPATH"] = os.path.join(ROOT, "python") + os.pathsep + env.get("PYTHONPATH", "")
    env.update(env_vars)
    proc = subprocess.run([PYTHON, script, path], capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", (proc.stdout, proc.stderr)
    return proc.stderr


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("value", ["0", "false", "off", "OFF", ""])
def test_log_compile_off_values_log_nothing(script, path, value):
    err = run_child(script, path, MYCEL_LOG_COMPILE=value)
    assert "mycel: pass" not in err and "mycel: compiled" not in err, err


@pytest.mark.parametrize("path", PATHS)
def test_log_compile_unset_logs_nothing(script, path):
    err = run_child(script, path)
    assert "mycel: pass" not in err and "mycel: compiled" not in err, err


@pytest.mark.parametrize("path", PATHS)
def test_log_compile_on_logs_passes_and_stages(script, path):
    err = run_child(script, path, MYCEL_LOG_COMPILE="1")
    assert "mycel: pass switch_simplify" in err, err
    stages = {"graph": "parse+specialise", "export": "parse+specialise", "pynative": "passes"}
    assert "mycel: compiled " in err and stages[path] in err, err
    if path == "graph":
        assert "mycel: compiled 'f': parse+specialise" in err and " ms, executable " in err, err
    if path == "export":
        assert "mycel: compiled 'f' for export: parse+specialise" in err, err
        assert "executable" not in err, err


@pytest.mark.parametrize("path", PATHS)
def test_dump_ir_writes_the_passes(script, path, tmp_path):
    run_child(script, path, MYCEL_DUMP_IR=str(tmp_path))
    names = sorted(os.listdir(tmp_path))
    assert names[0] == "00_input.ir" and names[-1].endswith("_order_updates.ir"), names
