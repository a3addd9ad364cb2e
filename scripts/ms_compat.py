#!/usr/bin/env python3
"""Run MindSpore's own tests, unchanged, against mycel under a ``mindspore -> mycel`` alias.

    scripts/ms_compat.py --tests /work/ms_tests/tests/st/ops/cpu [--tests DIR ...]
                         [--report out.json] [--timeout 120] [--jobs 1] [--only PATTERN]
                         [--mycel PYTHON_DIR] [--every K] [--stub-vm-impl] [--cwd DIR]

The tests stay outside the repository (they are MindSpore's, never committed). The script
makes a temporary directory holding:

- ``mindspore/__init__.py``: installs an import hook that answers ``mindspore`` and every
  ``mindspore.a.b`` with the module ``mycel.a.b`` itself (the same object, so
  ``mindspore.ops is mycel.ops``). A submodule mycel lacks is a ModuleNotFoundError naming
  ``mindspore.a.b``, so the test that imports it fails, as it should;
- ``ms_compat_plugin.py``: a pytest plugin that selects the tests MindSpore's CPU runs take:
  in a file with platform marks, those marked ``platform_x86_cpu`` / ``cpu_linux`` (its
  unmarked ``test_*`` functions are helpers its CI never runs); in a file without any (the
  unit tests), all. It writes one JSON line per test outcome with the failure's exception.

MindSpore's unit tests (tests/ut/python) all import tests/vm_impl, scaffolding for MindSpore's
internal debug VM that needs its C extension; ``--stub-vm-impl`` replaces that one module by an
empty one (the tests themselves still run unchanged). Reports say whether it was used.

Each test file runs in its own pytest subprocess (Debian's /usr/bin/python3) with a timeout,
with DEVICE_TARGET=CPU in its environment unless set (MindSpore's CPU CI sets it; its
tests/device_utils.set_device() reads it),
in the folder holding MindSpore's ``tests`` package, or in ``--cwd DIR``: MindSpore's unit
tests run from ``tests/ut/python`` (its dataset tests read ``../data/dataset/...`` relative to
it), and many tests write files into their working folder, so point both at a private copy of
the test tree when the tree is shared.
A file whose import fails counts all of its CPU tests as failed with that error; their
number is read from the file's source (test functions times their ``parametrize`` cases).
The summary prints the pass rate per folder and the failure reasons grouped, most tests
first; ``--report`` writes everything as JSON.
"""
import argparse
import ast
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHON = "/usr/bin/python3"

# Markers MindSpore's CI uses to pick a test's platforms; a CPU run takes these.
CPU_MARKS = {"platform_x86_cpu", "cpu_linux"}
PLATFORM_MARKS = CPU_MARKS | {"platform_arm_cpu", "cpu_windows", "cpu_macos", "platform_gpu",
                              "platform_x86_gpu_training", "platform_x86_ascend_training",
                              "platform_arm_ascend_training", "platform_arm_ascend910b_training",
                              "platform_ascend", "platform_ascend910b", "platform_ascend310p",
                              "env_onecard", "platform_x86_gpu"}

ALIAS_INIT = '''"""mindspore -> mycel: each mindspore.a.b is the module mycel.a.b (ms_compat.py)."""
import importlib
import importlib.abc
import importlib.util
import sys


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname != "mindspore" and not fullname.startswith("mindspore."):
            return None
        real = "mycel" + fullname[len("mindspore"):]
        try:
            module = importlib.import_module(real)
        except ModuleNotFoundError as e:
            if e.name is not None and (real == e.name or real.startswith(e.name + ".")):
                return None  # mycel lacks it: "No module named 'mindspore....'"
            raise
        spec = importlib.util.spec_from_loader(fullname, self,
                                               is_package=hasattr(module, "__path__"))
        spec._mycel_module = module
        return spec

    def create_module(self, spec):
        module = spec._mycel_module
        spec._saved = (module.__spec__, getattr(module, "__path__", None))
        return module

    def exec_module(self, module):
        # the import machinery set __spec__ to the alias's; give the module its own back
        saved_spec, saved_path = module.__spec__._saved
        module.__spec__ = saved_spec
        if saved_path is not None:
            module.__path__ = saved_path


sys.modules.pop("mindspore", None)
sys.meta_path.insert(0, _Alias())
sys.modules["mindspore"] = importlib.import_module("mycel")
'''

PLUGIN = '''"""pytest plugin of ms_compat.py: CPU selection and one JSON line per outcome."""
import json
import os

import pytest

if os.environ.get("MS_COMPAT_STUB_VM_IMPL"):
    # --stub-vm-impl: MindSpore's unit tests (tests/ut/python/__init__.py) import tests/vm_impl,
    # which registers Python kernels with MindSpore's internal debug VM (through
    # mindspore._c_expression and ops.auto_generate); an empty module stands in for it.
    import sys
    import types
    _stub = types.ModuleType("tests.vm_impl")
    _stub.vm = None
    sys.modules["tests.vm_impl"] = _stub

CPU_MARKS = set(%(cpu)r)
PLATFORM_MARKS = set(%(platform)r)
_OUT = os.environ["MS_COMPAT_OUT"]


def _write(rec):
    with open(_OUT, "a") as f:
        f.write(json.dumps(rec) + "\\n")


def pytest_configure(config):
    for m in PLATFORM_MARKS | {"level0", "level1", "level2", "level3", "level4", "onecard",
                               "allcards", "essential", "unessential", "env_single"}:
        config.addinivalue_line("markers", m)


def pytest_collection_modifyitems(config, items):
    # A file whose tests carry platform marks (MindSpore's system tests) runs the ones marked
    # for CPU; its unmarked test_* functions are helpers MindSpore's CI never runs. A file
    # without any (the unit tests) runs all of them.
    marks = {id(i): {m.name for m in i.iter_markers()} & PLATFORM_MARKS for i in items}
    marked_files = {str(i.fspath) for i in items if marks[id(i)]}
    keep, drop = [], []
    for item in items:
        m = marks[id(item)]
        run = m & CPU_MARKS if str(item.fspath) in marked_files else True
        (keep if run else drop).append(item)
    items[:] = keep
    if drop:
        config.hook.pytest_deselected(items=drop)
    _write({"collected": len(keep), "deselected": len(drop)})


def _reason(excinfo):
    text = str(excinfo.value).strip().splitlines()
    return "%%s: %%s" %% (excinfo.type.__name__, text[0][:300] if text else "")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if rep.when == "call" or rep.failed or rep.skipped:
        if rep.when != "call" and rep.passed:
            return
        rec = {"test": item.nodeid, "when": rep.when,
               "outcome": "skipped" if rep.skipped else rep.outcome}
        if rep.failed and call.excinfo is not None:
            rec["reason"] = _reason(call.excinfo)
        _write(rec)


def pytest_collectreport(report):
    if report.failed:
        lines = [l[4:].strip() for l in str(report.longrepr).splitlines()
                 if l.startswith("E   ")]
        _write({"collect_error": report.nodeid, "reason": (lines[-1] if lines else
                str(report.longrepr).strip().splitlines()[-1])[:300]})
'''


def _literal_len(node):
    """The number of cases of a parametrize argument, when it is a literal list/tuple."""
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return len(node.elts)
    return 1


def _marks_and_cases(decorators):
    marks, cases = set(), 1
    for d in decorators:
        text = ast.unparse(d)
        for m in re.findall(r"[A-Za-z_0-9]+", text):
            if m in PLATFORM_MARKS:
                marks.add(m)
        if isinstance(d, ast.Call) and "parametrize" in ast.unparse(d.func):
            if len(d.args) >= 2:
                cases *= _literal_len(d.args[1])
    return marks, cases


def static_count(path):
    """CPU tests a file would run, read from its source (for files that fail to import)."""
    try:
        tree = ast.parse(open(path, encoding="utf-8", errors="replace").read())
    except SyntaxError:
        return 1
    found = []  # (platform marks, cases) per test function

    def visit(body, outer_marks=frozenset(), outer_cases=1):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                    node.name.startswith("test"):
                marks, cases = _marks_and_cases(node.decorator_list)
                found.append((marks | outer_marks, cases * outer_cases))
            elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
                marks, cases = _marks_and_cases(node.decorator_list)
                visit(node.body, outer_marks | marks, outer_cases * cases)
    visit(tree.body)
    # the plugin's rule: in a file with platform marks, only the CPU-marked tests run
    any_marks = any(m for m, _ in found)
    total = sum(c for m, c in found if (m & CPU_MARKS if any_marks else True))
    return max(total, 1)


def make_env(tmp):
    pkg = os.path.join(tmp, "mindspore")
    os.makedirs(pkg)
    with open(os.path.join(pkg, "__init__.py"), "w") as f:
        f.write(ALIAS_INIT)
    with open(os.path.join(tmp, "ms_compat_plugin.py"), "w") as f:
        f.write(PLUGIN % {"cpu": sorted(CPU_MARKS), "platform": sorted(PLATFORM_MARKS)})


def run_file(path, tmp, timeout, rootdir, mycel_path, stub_vm_impl=False, cwd=None):
    out = os.path.join(tmp, "out_%d_%s.jsonl" % (os.getpid(), abs(hash(path))))
    if os.path.exists(out):
        os.remove(out)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([tmp, mycel_path, rootdir])
    env["MS_COMPAT_OUT"] = out
    env.setdefault("OMP_NUM_THREADS", "1")
    # MindSpore's CPU CI sets it; tests/device_utils.set_device() passes it to set_device
    env.setdefault("DEVICE_TARGET", "CPU")
    if stub_vm_impl:
        env["MS_COMPAT_STUB_VM_IMPL"] = "1"
    cmd = [PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "ms_compat_plugin",
           "--rootdir", rootdir, "-o", "addopts=", "--continue-on-collection-errors",
           "--tb=no", path]
    t0 = time.time()
    timed_out = False
    try:
        subprocess.run(cmd, env=env, cwd=cwd or rootdir, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
    recs = []
    if os.path.exists(out):
        with open(out) as f:
            recs = [json.loads(line) for line in f if line.strip()]
        os.remove(out)
    return summarize_file(path, recs, timed_out, time.time() - t0)


def summarize_file(path, recs, timed_out, seconds):
    res = {"file": path, "seconds": round(seconds, 1), "passed": 0, "failed": 0,
           "skipped": 0, "reasons": []}
    collected = sum(r.get("collected", 0) for r in recs)
    errors = [r for r in recs if "collect_error" in r]
    outcomes = {}
    for r in recs:
        if "test" in r:
            # a test reports once for its call and maybe again for a failed teardown
            prev = outcomes.get(r["test"])
            if prev is None or r["outcome"] == "failed":
                outcomes[r["test"]] = r
    if errors and not outcomes:
        n = static_count(path)
        res["failed"] = n
        res["reasons"] = [(errors[0]["reason"], n)]
        return res
    for r in outcomes.values():
        res[r["outcome"]] += 1
        if r["outcome"] == "failed":
            res["reasons"].append((r.get("reason", "failed"), 1))
    missing = collected - len(outcomes)
    if missing > 0:  # killed by the timeout or a crash before these ran
        res["failed"] += missing
        res["reasons"].append(("timeout" if timed_out else "crashed (process died)", missing))
    if not recs:
        n = static_count(path)
        res["failed"] = n
        res["reasons"] = [("timeout" if timed_out else "crashed (no report)", n)]
    return res


_GROUPS = [
    (r"No module named '([\w.]+)'", "missing module {0}"),
    (r"cannot import name '(\w+)' from '([\w.]+)'", "missing name {1}.{0}"),
    (r"module '([\w.]+)' has no attribute '(\w+)'", "missing attribute {0}.{1}"),
    (r"type object '(\w+)' has no attribute '(\w+)'", "missing attribute {0}.{1}"),
    (r"'(\w+)' object has no attribute '(\w+)'", "missing attribute {0}.{1}"),
    (r"got an unexpected keyword argument '(\w+)'", "unexpected keyword argument {0}"),
    (r"^AssertionError", "wrong value (assertion)"),
]


def group(reason):
    """The failure's group: a missing name, an unsupported op, a wrong value, an error."""
    for pat, fmt in _GROUPS:
        m = re.search(pat, reason)
        if m:
            return fmt.format(*m.groups())
    kind, _, msg = reason.partition(": ")
    msg = re.sub(r"\[[^\]]*\]|\([^)]*\)|\d+", "#", msg)[:90]
    return "%s: %s" % (kind, msg)


def collect_files(dirs, only):
    files = []
    for d in dirs:
        if os.path.isfile(d):
            files.append(os.path.abspath(d))
            continue
        for root, _, names in os.walk(d):
            for n in names:
                if n.startswith("test") and n.endswith(".py") and (not only or only in n):
                    files.append(os.path.abspath(os.path.join(root, n)))
    return sorted(files)


def find_rootdir(path):
    """The directory holding MindSpore's ``tests`` package (its tests import
    ``tests.mark_utils``): the nearest one above the file, else the file's own folder."""
    d = os.path.dirname(os.path.abspath(path))
    while True:
        if os.path.exists(os.path.join(d, "tests", "__init__.py")):
            return d
        up = os.path.dirname(d)
        if up == d:
            return os.path.dirname(os.path.abspath(path))
        d = up


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tests", action="append", required=True,
                    help="a folder (or file) of MindSpore tests; may repeat")
    ap.add_argument("--report", help="write the per-file results and groups as JSON")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per test file")
    ap.add_argument("--jobs", type=int, default=1, help="test files run at once")
    ap.add_argument("--only", help="only files whose name contains this")
    ap.add_argument("--every", type=int, default=1,
                    help="a sample: every k-th file of the sorted list (1: all)")
    ap.add_argument("--stub-vm-impl", action="store_true",
                    help="stand an empty module in for MindSpore's tests/vm_impl (its debug-VM "
                         "kernels, which every unit test under tests/ut/python imports)")
    ap.add_argument("--cwd", help="the tests' working folder (default: the folder holding "
                                   "MindSpore's tests package); tests write files there")
    ap.add_argument("--top", type=int, default=40, help="failure groups printed")
    ap.add_argument("--mycel", default=os.path.join(REPO, "python"),
                    help="the folder holding the mycel package (default: this checkout's)")
    args = ap.parse_args(argv)
    files = collect_files(args.tests, args.only)[::max(1, args.every)]
    if not files:
        sys.exit("no test files under %s" % args.tests)
    with tempfile.TemporaryDirectory(prefix="ms_compat_") as tmp:
        make_env(tmp)
        rootdir = find_rootdir(files[0])
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            results = list(pool.map(
                lambda p: run_file(p, tmp, args.timeout, rootdir, os.path.abspath(args.mycel),
                                   args.stub_vm_impl, args.cwd and os.path.abspath(args.cwd)),
                files))
    print_summary(results, args.top, rootdir)
    if args.report:
        with open(args.report, "w") as f:
            json.dump({"rootdir": rootdir, "stub_vm_impl": args.stub_vm_impl, "cwd": args.cwd,
                       "files": results}, f, indent=1)


def per_file_rate(results, folder, rootdir):
    """The mean over the files (of `folder`, or all) of each file's pass rate, in percent."""
    rates = [100.0 * r["passed"] / (r["passed"] + r["failed"]) for r in results
             if r["passed"] + r["failed"] > 0 and
             (folder is None or os.path.relpath(os.path.dirname(r["file"]), rootdir) == folder)]
    return sum(rates) / len(rates) if rates else 0.0


def print_summary(results, top, rootdir):
    folders = collections.OrderedDict()
    groups = collections.Counter()
    examples = {}
    for r in results:
        folder = os.path.relpath(os.path.dirname(r["file"]), rootdir)
        f = folders.setdefault(folder, [0, 0, 0, 0])
        f[0] += r["passed"]
        f[1] += r["passed"] + r["failed"]
        f[2] += 1
        f[3] += r["failed"] == 0 and r["passed"] > 0
        for reason, n in r["reasons"]:
            g = group(reason)
            groups[g] += n
            examples.setdefault(g, (os.path.basename(r["file"]), reason))
    tot_p = sum(f[0] for f in folders.values())
    tot_n = sum(f[1] for f in folders.values())
    # files: how many were run; clean: how many passed every test they ran; per-file: the mean
    # of the files' own pass rates, so that a file of thousands of cases cannot carry the rate
    print("%-40s %6s %6s %7s %5s %5s %8s" % ("folder", "passed", "tests", "rate", "files",
                                            "clean", "per-file"))
    for folder, (p, n, nf, ok) in folders.items():
        print("%-40s %6d %6d %6.1f%% %5d %5d %7.1f%%" % (folder, p, n, 100.0 * p / max(n, 1), nf,
                                                        ok, per_file_rate(results, folder,
                                                                          rootdir)))
    print("%-40s %6d %6d %6.1f%% %5d %5d %7.1f%%" % (
        "TOTAL", tot_p, tot_n, 100.0 * tot_p / max(tot_n, 1), len(results),
        sum(f[3] for f in folders.values()), per_file_rate(results, None, rootdir)))
    print("\nfailure groups (tests):")
    for g, n in groups.most_common(top):
        print("%5d  %s    [e.g. %s]" % (n, g, examples[g][0]))


if __name__ == "__main__":
    main()
