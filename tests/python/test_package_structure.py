"""The structure of the Python package: no import circle (scripts/check_import_cycles.py),
and the checker does find a planted one."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECK = os.path.join(ROOT, "scripts", "check_import_cycles.py")


def run_check(root, package):
    return subprocess.run([sys.executable, CHECK, root, package], capture_output=True,
                          text=True, timeout=60)


def test_no_import_circle_in_mycel():
    r = run_check(os.path.join(ROOT, "python"), "mycel")
    assert r.returncode == 0, r.stdout + r.stderr


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def test_a_planted_circle_is_found_even_through_a_deferred_import(tmp_path):
    pkg = tmp_path / "pkg"
    write(str(pkg / "__init__.py"), "from pkg import a\n")
    write(str(pkg / "a.py"), "from pkg.sub.b import f\n")
    write(str(pkg / "sub" / "__init__.py"), "")
    write(str(pkg / "sub" / "b.py"), "def f():\n    from ..a import g  # deferred\n")
    write(str(pkg / "c.py"), "import pkg.a\n")  # depends on the circle, not part of it
    r = run_check(str(tmp_path), "pkg")
    assert r.returncode == 1
    assert "import circle: pkg.a, pkg.sub.b" in r.stdout
    assert "pkg.c" not in r.stdout
    os.remove(str(pkg / "sub" / "b.py"))
    write(str(pkg / "sub" / "b.py"), "def f():\n    return 1\n")
    assert run_check(str(tmp_path), "pkg").returncode == 0
