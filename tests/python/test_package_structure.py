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


# ---- the layers as libraries: cmake/layers.cmake's link check -----------------------------
# The build links each layer of src/layers.txt alone with the layers below it and
# --no-undefined. A two-layer project (plus a pair of siblings) built with the same
# cmake/layers.cmake shows that a planted reference to a symbol of a layer above, or of a
# sibling, fails the build, although an ordinary static link of the program still succeeds.

PROBE_LAYERS = "# a probe's layers, lowest first\nlow\nleft right   # siblings\nhigh\n"
PROBE_SRC = {
    "src/low/low.cc": "int low_value() { return 1; }\n",
    "src/left/left.cc": "int low_value();\nint left_value() { return low_value() + 1; }\n",
    "src/right/right.cc": "int low_value();\nint right_value() { return low_value() + 2; }\n",
    "src/high/high.cc": ("int left_value();\nint right_value();\n"
                         "int high_value() { return left_value() + right_value(); }\n"),
    "main.cc": "int high_value();\nint main() { return high_value() == 5 ? 0 : 1; }\n",
}


def build_probe(root, target=None):
    cmd = ["cmake", "--build", root + "/build", "-j", "2"]
    if target:
        cmd += ["--target", target]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def test_an_upward_symbol_reference_fails_the_layer_link_check(tmp_path):
    root = str(tmp_path)
    write(os.path.join(root, "CMakeLists.txt"), f"""
cmake_minimum_required(VERSION 3.25)
project(layer_probe CXX)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
include({ROOT}/cmake/layers.cmake)
mycel_add_layers(${{CMAKE_SOURCE_DIR}}/src/layers.txt)
add_executable(app main.cc)
target_link_libraries(app PRIVATE mycel_high)
""")
    write(os.path.join(root, "src", "layers.txt"), PROBE_LAYERS)
    for path, text in PROBE_SRC.items():
        write(os.path.join(root, path), text)
    r = subprocess.run(["cmake", "-S", root, "-B", root + "/build", "-G", "Ninja"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    r = build_probe(root)
    assert r.returncode == 0, r.stdout + r.stderr
    assert subprocess.run([root + "/build/app"]).returncode == 0
    for name in ["low", "left", "right", "high"]:
        assert os.path.exists(f"{root}/build/layer_check/libmycel_{name}_check.so"), name

    # low calls up into high: the program still links statically, the layer check fails
    write(os.path.join(root, "src/low/low.cc"),
          "int high_value();\nint low_value() { return 1; }\n"
          "int low_twice() { return high_value() * 2; }\n")
    assert build_probe(root, "app").returncode == 0
    r = build_probe(root)
    assert r.returncode != 0
    assert "libmycel_low_check.so" in r.stdout and "high_value()" in r.stdout, r.stdout

    # a sibling is not below: right calls left
    write(os.path.join(root, "src/low/low.cc"), PROBE_SRC["src/low/low.cc"])
    write(os.path.join(root, "src/right/right.cc"),
          "int low_value();\nint left_value();\n"
          "int right_value() { return low_value() + 2 + 0 * left_value(); }\n")
    r = build_probe(root)
    assert r.returncode != 0
    assert "libmycel_right_check.so" in r.stdout and "left_value()" in r.stdout, r.stdout
    assert "FAILED: layer_check/libmycel_low_check.so" not in r.stdout, r.stdout

