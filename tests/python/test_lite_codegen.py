"""mycel lite's C code generation (``mycel_convert --codegen=c``): networks exported by
mycel.export in each mode, converted to a folder of C99, compiled with ``cc -O2 -std=c99
-Wall -Werror`` and run as ``prog input.bin output.bin``. The oracles: the lite runtime on the
same network's .ms file (1e-5 relative) and the network's own forward (1e-4). Also: the
generated code's only external symbols (no heap, no runtime library), every unsupported
operator in one error, bad input files, and the command lines."""
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import mycel as ms
import mycel.lite as mslite
from mycel import nn, ops
from test_lite import MLP as LiteMLP
from test_lite import _rand, mode  # noqa: F401 (mode: the fixture, both modes)
from lenet import LeNet5  # examples/lenet.py

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.path.join(ROOT, "build")
CC = shutil.which("cc") or "cc"  # Debian's gcc (build-essential), as the build needs
CFLAGS = ["-O2", "-std=c99", "-Wall", "-Werror"]


def _export(net, xs, base):
    net.set_train(False)
    ms.export(net, *[ms.Tensor(x) for x in xs], file_name=str(base), file_format="MINDIR")
    return str(base) + ".mindir"


def _convert_main(args):
    status, report = ms._mycel._lite.convert_main(args)
    assert status == 0
    return report


def _runtime(mindir, base):
    """The lite runtime's model of the same network (oracle)."""
    mslite.Converter().convert(fmk_type=mslite.FmkType.MINDIR, model_file=mindir,
                               output_file=str(base))
    model = mslite.Model()
    model.build_from_file(str(base) + ".ms", mslite.ModelType.MINDIR_LITE, mslite.Context())
    return model


def _generate_and_compile(mindir, base):
    """--codegen=c into folder `base`, compiled; returns the program's path."""
    report = _convert_main(["--fmk=MINDIR", f"--modelFile={mindir}", f"--outputFile={base}",
                            "--codegen=c"])
    assert "Generated C" in report and "Accuracy" in report
    assert sorted(os.listdir(base)) == ["main.c", "model.c", "model.h", "weights.c"]
    assert not os.path.exists(str(base) + ".ms")
    prog = os.path.join(str(base), "prog")
    srcs = [os.path.join(str(base), f) for f in ("main.c", "model.c", "weights.c")]
    r = subprocess.run([CC, *CFLAGS, *srcs, "-lm", "-o", prog], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    return prog


def _run_c(prog, xs, out_shapes, tmp_path):
    """Runs the generated program on inputs xs (raw little-endian float32, concatenated)."""
    inp, out = tmp_path / "in.bin", tmp_path / "out.bin"
    inp.write_bytes(b"".join(np.ascontiguousarray(x, "<f4").tobytes() for x in xs))
    r = subprocess.run([prog, str(inp), str(out)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    flat = np.fromfile(str(out), dtype="<f4")
    sizes = [int(np.prod(s)) for s in out_shapes]
    assert flat.size == sum(sizes)
    return [a.reshape(s) for a, s in zip(np.split(flat, np.cumsum(sizes)[:-1]), out_shapes)]


def _close(got, want, rtol):
    want = np.asarray(want)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * float(np.abs(want).max()))


def _check(net, input_sets, tmp_path):
    """C equals the runtime (1e-5) and the network (1e-4) on every input set."""
    mindir = _export(net, input_sets[0], tmp_path / "net")
    model = _runtime(mindir, tmp_path / "net")
    prog = _generate_and_compile(mindir, tmp_path / "net_c")
    for xs in input_sets:
        want = [t.get_data_to_numpy() for t in model.predict(list(xs))]
        got = _run_c(prog, xs, [w.shape for w in want], tmp_path)
        ref = net(*[ms.Tensor(x) for x in xs])
        ref = ref if isinstance(ref, tuple) else (ref,)
        for g, w, r in zip(got, want, ref):
            _close(g, w, 1e-5)
            _close(g, r.asnumpy(), 1e-4)
    return model


def test_lenet(mode, tmp_path):
    ms.set_seed(1)
    net = LeNet5()
    model = _check(net, [(_rand(1, 1, 28, 28, seed=s),) for s in range(4)], tmp_path)
    assert [op for _, op, _ in model._model.ops()] == [
        "Conv2D", "Pool", "Conv2D", "Pool", "Reshape", "FullyConnected", "FullyConnected",
        "FullyConnected"]


class MLP(LiteMLP):
    """test_lite's MLP (scalar Eltwise, Tanh, Sigmoid) with a softmax on top."""

    def construct(self, x):
        return ops.softmax(LiteMLP.construct(self, x), -1)


def test_mlp(mode, tmp_path):
    ms.set_seed(2)
    _check(MLP(), [(_rand(4, 20, seed=s),) for s in range(3)], tmp_path)


class Mixed(nn.Cell):
    """Two inputs, two outputs: grouped strided convolution with ReLU6, average pooling
    (padding counted), max pooling with "same" padding, MatMul of two activations, broadcast
    division, softmax over axis 1 of a 4-d tensor."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 6, 3, stride=2, pad_mode="pad", padding=1, group=2,
                              has_bias=True)
        self.avg = nn.AvgPool2d(3, 1, pad_mode="same")
        self.max = nn.MaxPool2d(2, 2, pad_mode="same")
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(6 * 3 * 3, 3)
        self.matmul = ops.MatMul(transpose_b=True)

    def construct(self, x, y):
        h = self.max(self.avg(ops.relu6(self.conv(x))))
        z = self.fc(self.flatten(h)) / (y * y + 1.0)
        return self.matmul(z, y), ops.softmax(h, 1)


def test_mixed_ops_two_inputs_two_outputs(mode, tmp_path):
    ms.set_seed(3)
    sets = [(_rand(2, 4, 9, 9, seed=s), _rand(2, 3, seed=s + 10)) for s in range(3)]
    model = _check(Mixed(), sets, tmp_path)
    kinds = {op for _, op, _ in model._model.ops()}
    assert {"Conv2D", "Pool", "MatMul", "Eltwise", "Softmax", "Reshape"} <= kinds


def test_only_memcpy_and_libm_outside(tmp_path):
    """No heap, no runtime library: the model's objects need memcpy and libm, nothing else."""
    mindir = _export(Mixed(), [_rand(2, 4, 9, 9), _rand(2, 3)], tmp_path / "m")
    _generate_and_compile(mindir, tmp_path / "m_c")
    undefined, defined = set(), set()
    for f in ("model.c", "weights.c"):
        obj = tmp_path / (f + ".o")
        subprocess.run([CC, *CFLAGS, "-c", str(tmp_path / "m_c" / f), "-o", str(obj)],
                       check=True, timeout=300)
        for flag, into in (("--undefined-only", undefined), ("--defined-only", defined)):
            nm = subprocess.run(["nm", flag, str(obj)], capture_output=True, text=True,
                                check=True)
            into |= {line.split()[-1] for line in nm.stdout.splitlines() if line.strip()}
    assert "mycel_model_run" in defined
    assert undefined - defined <= {"memcpy", "expf", "tanhf"}, undefined - defined
    assert not re.search(r"\b(malloc|calloc|realloc|free)\b",
                         (tmp_path / "m_c" / "model.c").read_text())


def test_bad_input_file_and_usage(tmp_path):
    mindir = _export(MLP(), [_rand(4, 20)], tmp_path / "m")
    prog = _generate_and_compile(mindir, tmp_path / "m_c")
    short = tmp_path / "short.bin"
    short.write_bytes(np.zeros(79, "<f4").tobytes())  # 80 floats needed
    r = subprocess.run([prog, str(short), str(tmp_path / "o.bin")], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 1 and "exactly 80 float32 values (320 bytes)" in r.stderr
    long_ = tmp_path / "long.bin"
    long_.write_bytes(np.zeros(81, "<f4").tobytes())
    r = subprocess.run([prog, str(long_), str(tmp_path / "o.bin")], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 1 and "exactly 80" in r.stderr
    r = subprocess.run([prog], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "usage" in r.stderr
    r = subprocess.run([prog, str(tmp_path / "missing.bin"), str(tmp_path / "o.bin")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "cannot open" in r.stderr


class NotForC(nn.Cell):
    """A transpose the passes keep and a BatchNorm with no layer to fold into."""

    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(3)

    def construct(self, x):
        return ops.transpose(self.bn(x), (0, 1, 3, 2))


def test_every_unsupported_operator_in_one_error(tmp_path):
    mindir = _export(NotForC(), [_rand(1, 3, 4, 5)], tmp_path / "u")
    with pytest.raises(ValueError) as e:
        _convert_main(["--fmk=MINDIR", f"--modelFile={mindir}", f"--outputFile={tmp_path / 'u'}",
                       "--codegen=c"])
    msg = str(e.value)
    assert "2 unsupported operator(s) for C code generation" in msg, msg
    assert re.search(r"BatchNorm \(node '[^']+'\)", msg), msg
    assert re.search(r"Transpose \(node '[^']+'\)", msg), msg
    assert not (tmp_path / "u").exists()


def test_command_lines(tmp_path):
    mindir = _export(MLP(), [_rand(2, 20)], tmp_path / "m")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    flags = ["--fmk=MINDIR", f"--modelFile={mindir}"]
    r = subprocess.run([os.path.join(BUILD, "mycel_convert"), *flags,
                        f"--outputFile={tmp_path / 'a'}", "--codegen=c"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    r2 = subprocess.run([sys.executable, "-m", "mycel.lite.convert", *flags,
                         f"--outputFile={tmp_path / 'b'}", "--codegen=c"],
                        capture_output=True, text=True, env=env, timeout=300)
    assert r2.returncode == 0, r2.stderr
    for f in ("model.h", "model.c", "weights.c", "main.c"):  # deterministic output
        assert (tmp_path / "a" / f).read_text().replace(str(tmp_path / "a"), "") == \
            (tmp_path / "b" / f).read_text().replace(str(tmp_path / "b"), "")
    r = subprocess.run([os.path.join(BUILD, "mycel_convert"), *flags,
                        f"--outputFile={tmp_path / 'c'}", "--codegen=cpp"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1 and "writes C only (--codegen=c)" in r.stderr
