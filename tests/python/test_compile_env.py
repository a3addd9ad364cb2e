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
    # One program: its files share the prefix "001_<its name>_".
    first = {"graph": "001_f_00_input.ir", "export": "001_f_for_export_00_input.ir",
             "pynative": "001_a_PYNATIVE_backward_graph_"}[path]
    assert names[0].startswith(first) and names[0].endswith("_00_input.ir"), names
    prefix = names[0][:-len("00_input.ir")]
    assert all(n.startswith(prefix) for n in names), names
    assert names[-1].endswith("_order_updates.ir"), names


TWO_PROGRAMS = textwrap.dedent('''
    import numpy as np
    import mycel as ms

    def double(x):
        return x * 2.0

    def negate(x):
        return -x

    ms.set_context(mode=ms.GRAPH_MODE)
    x = ms.Tensor(np.ones((2,), np.float32))
    ms.jit(double)(x)
    ms.jit(negate)(x)
    ms.jit(double)(ms.Tensor(np.ones((3,), np.float32)))  # a new signature: a new program
    print("ok")
''')


def test_dump_ir_gives_each_program_its_own_files(tmp_path):
    """Each program compiled with MYCEL_DUMP_IR gets the next number as its files' prefix,
    in one process and across processes, so no program overwrites another's dumps."""
    script = tmp_path / "two.py"
    script.write_text(TWO_PROGRAMS)
    dump = tmp_path / "ir"
    for run in range(2):
        run_child(str(script), "graph", MYCEL_DUMP_IR=str(dump))
        names = sorted(os.listdir(dump))
        inputs = [n for n in names if n.endswith("_00_input.ir")]
        want = ["double", "negate", "double"] * (run + 1)
        assert inputs == [f"{i + 1:03d}_{w}_00_input.ir" for i, w in enumerate(want)], names
        for i, w in enumerate(want):
            prefix = f"{i + 1:03d}_{w}_"
            files = [n for n in names if n.startswith(prefix)]
            assert files[-1].endswith("_order_updates.ir"), files
            text = (dump / files[0]).read_text()
            assert ("Mul(" in text) == (w == "double") and ("Neg(" in text) == (w == "negate"), \
                (files[0], text)
        # Every file belongs to one of the programs.
        assert all(n[:3].isdigit() and 1 <= int(n[:3]) <= len(want) for n in names), names
