"""The structure of the code: no import circle in the Python package
(scripts/check_import_cycles.py) and no C++ include pointing up a layer
(scripts/check_layers.sh); each checker is also shown to fail on a planted violation."""
import os
import shutil
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


# ---- the C++ layers: scripts/check_layers.sh ---------------------------------------------

CHECK_LAYERS = os.path.join(ROOT, "scripts", "check_layers.sh")


def run_layers(tree):
    return subprocess.run(["bash", CHECK_LAYERS, tree], capture_output=True, text=True,
                          timeout=120)


def test_no_include_points_up_a_layer():
    r = run_layers(ROOT)
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_planted_upward_include_fails_the_layer_check(tmp_path):
    shutil.copytree(os.path.join(ROOT, "src"), str(tmp_path / "src"))
    assert run_layers(str(tmp_path)).returncode == 0
    target = tmp_path / "src" / "tensor" / "shape.cc"
    with open(str(target), "a") as f:
        f.write('#include "compiler/pipeline.h"\n')
    r = run_layers(str(tmp_path))
    assert r.returncode == 1
    assert "src/tensor/shape.cc" in r.stdout and "compiler/pipeline.h" in r.stdout, r.stdout
    # a new folder under src/ must be given a rank before it can hold code
    os.remove(str(target))
    shutil.copyfile(os.path.join(ROOT, "src", "tensor", "shape.cc"), str(target))
    os.makedirs(str(tmp_path / "src" / "newlayer"))
    r = run_layers(str(tmp_path))
    assert r.returncode == 1 and "src/newlayer/: not a known layer" in r.stdout, r.stdout
