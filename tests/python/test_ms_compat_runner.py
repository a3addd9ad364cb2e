"""scripts/ms_compat.py: the mindspore -> mycel alias, the CPU marker selection, the counting
of tests in files that fail to import, and the grouping of failure reasons, on small test
files written here (MindSpore's own tests are never in the repository)."""
import importlib.util
import json
import os
import re
import subprocess
import sys
import textwrap

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
SCRIPT = os.path.join(ROOT, "scripts", "ms_compat.py")


def _mod():
    spec = importlib.util.spec_from_file_location("ms_compat", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _write(folder, name, text):
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def test_alias_gives_mycels_modules_and_fails_missing_ones(tmp_path):
    ms_compat = _mod()
    ms_compat.make_env(str(tmp_path))
    code = textwrap.dedent("""
        import mindspore, mycel
        import mindspore.ops.operations as P
        from mindspore import nn, Tensor
        from mindspore.common import dtype as mstype
        assert mindspore is mycel
        assert P is mycel.ops.operations and nn is mycel.nn and Tensor is mycel.Tensor
        assert mstype is mycel.common.dtype
        assert mycel.ops.__name__ == "mycel.ops" and mycel.ops.__spec__.name == "mycel.ops"
        try:
            import mindspore.no_such_module
        except ModuleNotFoundError as e:
            print("missing:", e.name)
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path),
                                                       os.path.join(ROOT, "python")]))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "missing: mindspore.no_such_module" in out.stdout


def test_runner_selects_cpu_tests_and_groups_failures(tmp_path):
    tests = tmp_path / "suite"
    tests.mkdir()
    _write(tests, "test_one.py", """
        import numpy as np
        import pytest
        import mindspore as ms
        from mindspore import ops

        @pytest.mark.platform_x86_cpu
        @pytest.mark.parametrize("n", [1, 2, 3])
        def test_add(n):
            x = ms.Tensor(np.ones(n, np.float32))
            np.testing.assert_array_equal((x + x).asnumpy(), 2 * np.ones(n))

        @pytest.mark.platform_x86_gpu_training
        def test_gpu_only():
            raise AssertionError("must be deselected")

        @pytest.mark.platform_x86_cpu
        def test_wrong_value():
            assert ops.add(ms.Tensor(1.0), 1).asnumpy() == 3

        def test_helper_never_run_by_the_ci(nptype):
            raise AssertionError("an unmarked function in a marked file is deselected")

        @pytest.mark.platform_x86_cpu
        def test_missing_attribute():
            ops.no_such_function_anywhere(1)
    """)
    _write(tests, "test_two.py", """
        import pytest
        from mindspore.ops import no_such_name

        @pytest.mark.platform_x86_cpu
        @pytest.mark.parametrize("a", [1, 2])
        @pytest.mark.parametrize("b", [1, 2, 3])
        def test_x(a, b):
            pass

        @pytest.mark.platform_arm_ascend_training
        def test_ascend():
            pass

        def test_helper():
            pass
    """)
    _write(tests, "test_three.py", """
        import mindspore as ms

        def test_unit_style_file_runs_unmarked_tests():
            assert ms.Tensor(2.0).asnumpy() == 2.0
    """)
    report = tmp_path / "r.json"
    out = subprocess.run([sys.executable, SCRIPT, "--tests", str(tests), "--report",
                          str(report), "--timeout", "120"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    files = {os.path.basename(r["file"]): r for r in json.load(open(report))["files"]}
    one, two, three = files["test_one.py"], files["test_two.py"], files["test_three.py"]
    assert (one["passed"], one["failed"]) == (3, 2)  # GPU-only and helper tests not counted
    # the import fails: its 6 parametrized CPU tests count as failed, the others not
    assert (two["passed"], two["failed"]) == (0, 6)
    assert (three["passed"], three["failed"]) == (1, 0)
    # per-file: the mean of 3/5, 0/6 and 1/1
    assert re.search(r"TOTAL\s+4\s+12\s+33\.3%\s+3\s+1\s+53\.3%\n", out.stdout), out.stdout
    assert "missing attribute mycel.ops.no_such_function_anywhere" in out.stdout
    assert "missing name mycel.ops.no_such_name" in out.stdout
    assert "wrong value (assertion)" in out.stdout


def test_group_names_the_missing_piece():
    group = _mod().group
    assert group("AttributeError: module 'mycel.ops' has no attribute 'cummax'") == \
        "missing attribute mycel.ops.cummax"
    assert group("ModuleNotFoundError: No module named 'mindspore.runtime'") == \
        "missing module mindspore.runtime"
    assert group("AssertionError: arrays differ") == "wrong value (assertion)"
    assert group("ValueError: For 'Add', shapes [2, 3] and [4] differ") == \
        "ValueError: For 'Add', shapes # and # differ"


def test_stub_vm_impl_replaces_only_the_debug_vm_scaffolding(tmp_path):
    # MindSpore's unit-test package imports tests/vm_impl, which needs MindSpore's C extension;
    # --stub-vm-impl stands an empty module in for it and the tests run unchanged.
    root = tmp_path / "tests"
    (root / "vm_impl").mkdir(parents=True)
    (root / "ut").mkdir()
    _write(root, "__init__.py", "")
    _write(root / "vm_impl", "__init__.py", "from mindspore._c_expression import typing\n")
    _write(root / "ut", "__init__.py", "from ..vm_impl import vm\n")
    _write(root / "ut", "test_unit.py", """
        import mindspore as ms

        def test_a():
            assert ms.Tensor(3.0).asnumpy() == 3.0

        def test_b():
            assert ms.Tensor(1.0).asnumpy() == 2.0
    """)
    results = {}
    for flag in ([], ["--stub-vm-impl"]):
        report = tmp_path / ("r%d.json" % len(flag))
        out = subprocess.run([sys.executable, SCRIPT, "--tests", str(root / "ut"), "--report",
                              str(report), "--timeout", "120"] + flag,
                             capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        data = json.load(open(report))
        assert data["stub_vm_impl"] == bool(flag)
        (r,) = data["files"]
        results[bool(flag)] = (r["passed"], r["failed"])
    assert results[False] == (0, 2)  # the package import fails: both tests count as failed
    assert results[True] == (1, 1)
