"""mycel.export / mycel.load / nn.GraphCell: a compiled network written to a MINDIR file and
run back without its Python source, in both modes. The oracle is the original network (the
same kernels run, so outputs are bit-identical in GRAPH mode) and numpy for control flow;
corrupted files, bad inputs and unexportable networks give clear errors."""
import inspect
import os
import re
import shutil
import subprocess

import numpy as np
import pytest
import torch

import mycel as ms
from mycel import nn, ops
from lenet import LeNet5  # examples/lenet.py
import protowire  # tests/python/protowire.py

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
PROTO_DIR = os.path.join(ROOT, "src", "serialize")
MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


@pytest.fixture(params=MODES, ids=["pynative", "graph"])
def mode(request):
    old = ms.get_context("mode")
    ms.set_context(mode=request.param)
    yield request.param
    ms.set_context(mode=old)


def _rand(*shape, seed=0):
    return ms.Tensor(np.random.RandomState(seed).randn(*shape).astype(np.float32))


def _roundtrip(net, *inputs, path):
    ms.export(net, *inputs, file_name=str(path))
    return nn.GraphCell(ms.load(str(path) + ".mindir"))


def _same(a, b, mode):
    """Outputs of the loaded graph equal the original's: bit-identical when the original ran
    the same compiled graph (GRAPH mode), to float rounding when it ran eagerly."""
    if isinstance(a, (tuple, list)):
        assert isinstance(b, (tuple, list)) and len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y, mode)
        return
    assert a.dtype == b.dtype and a.shape == b.shape
    if mode == ms.GRAPH_MODE:
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    else:
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6, atol=1e-6)


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 16)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(16, 3)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


class ConvBN(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.relu(self.bn(self.conv(x)))


class TupleNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 2)

    def construct(self, x):
        y = self.fc(x)
        return y, (ops.relu(y), x.sum())


def loop(x, n):
    s = x
    i = 0
    while i < n:
        if x.sum() > 0:
            s = s * 2 + x
        else:
            s = s - 1
        i += 1
    return s


def loop_oracle(x, n):
    s = x.copy()
    for _ in range(n):
        s = s * 2 + x if x.sum() > 0 else s - 1
    return s


def test_mlp(tmp_path, mode):
    net = MLP()
    x = _rand(5, 4)
    cell = _roundtrip(net, x, path=tmp_path / "mlp")
    _same(cell(x), net(x), mode)
    _same(cell(_rand(5, 4, seed=1)), net(_rand(5, 4, seed=1)), mode)
    assert [n for n, _ in cell.parameters_and_names()] == [
        "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]


def test_lenet(tmp_path, mode):
    net = LeNet5()
    x = _rand(2, 1, 28, 28)
    cell = _roundtrip(net, x, path=tmp_path / "lenet")
    _same(cell(x), net(x), mode)


def test_batchnorm_exports_inference_mode(tmp_path, mode):
    net = ConvBN()
    net.bn.moving_mean.set_data(ms.Tensor(np.linspace(-1, 1, 4).astype(np.float32)))
    net.bn.moving_variance.set_data(ms.Tensor(np.linspace(0.5, 2, 4).astype(np.float32)))
    net.set_train(True)
    x = _rand(2, 3, 6, 6)
    cell = _roundtrip(net, x, path=tmp_path / "bn")
    assert net.training and net.bn.training  # restored after export
    got = cell(x)
    net.set_train(False)
    _same(got, net(x), mode)
    # The moving statistics were used, not the batch's: a torch oracle of the same layers.
    conv = torch.nn.functional.conv2d(torch.tensor(x.asnumpy()),
                                      torch.tensor(net.conv.weight.asnumpy()), padding=1)
    bn = torch.nn.functional.batch_norm(conv, torch.tensor(net.bn.moving_mean.asnumpy()),
                                        torch.tensor(net.bn.moving_variance.asnumpy()),
                                        torch.tensor(net.bn.gamma.asnumpy()),
                                        torch.tensor(net.bn.beta.asnumpy()), False, 0.1, 1e-5)
    np.testing.assert_allclose(got.asnumpy(), torch.relu(bn).numpy(), rtol=1e-5, atol=1e-5)


def test_control_flow_runs_any_trip_count(tmp_path, mode):
    x = _rand(2, 3)
    cell = _roundtrip(loop, x, ms.Tensor(3), path=tmp_path / "loop")
    for n, data in [(0, x), (3, x), (7, x), (4, -ms.ops.abs(x))]:
        got = cell(data, ms.Tensor(n))
        np.testing.assert_allclose(got.asnumpy(), loop_oracle(data.asnumpy(), n), rtol=1e-6)
    assert "switch" in cell.graph.ir()  # the loop and the branch stay graphs


def test_tuple_outputs(tmp_path, mode):
    net = TupleNet()
    x = _rand(3, 4)
    cell = _roundtrip(net, x, path=tmp_path / "tuple")
    got = cell(x)
    assert isinstance(got, tuple) and isinstance(got[1], tuple)
    _same(got, net(x), mode)


def test_jit_function_and_suffix(tmp_path):
    f = ms.jit(lambda a, b: ops.matmul(a, b) + 1)
    a, b = _rand(2, 3), _rand(3, 2, seed=1)
    ms.export(f, a, b, file_name=str(tmp_path / "f.mindir"))  # the suffix is not doubled
    assert os.listdir(tmp_path) == ["f.mindir"]
    cell = nn.GraphCell(ms.load(str(tmp_path / "f.mindir")))
    np.testing.assert_array_equal(cell(a, b).asnumpy(), f(a, b).asnumpy())


def test_params_init_and_weights_are_read_per_call(tmp_path):
    net = MLP()
    x = _rand(5, 4)
    cell = _roundtrip(net, x, path=tmp_path / "mlp")
    w = ms.Tensor(np.full((3, 16), 0.5, np.float32))
    cell2 = nn.GraphCell(ms.load(str(tmp_path / "mlp.mindir")), params_init={"fc2.weight": w})
    net.fc2.weight.set_data(w)
    np.testing.assert_array_equal(cell2(x).asnumpy(), ms.jit(net.construct)(x).asnumpy())
    cell.parameters_dict()["fc2.weight"].set_data(w)
    np.testing.assert_array_equal(cell(x).asnumpy(), cell2(x).asnumpy())
    with pytest.raises(ValueError, match="'nope', which is not a weight"):
        nn.GraphCell(ms.load(str(tmp_path / "mlp.mindir")), params_init={"nope": w})


# ---- the file ----------------------------------------------------------------------------

_fields = protowire.fields


def test_file_is_protobuf_model_proto(tmp_path):
    import zlib
    net = MLP()
    ms.export(net, _rand(5, 4), file_name=str(tmp_path / "mlp"))
    data = (tmp_path / "mlp.mindir").read_bytes()
    fields = _fields(data)
    names = {num: val for num, _, val in fields}
    assert names[2] == b"mycel" and names[13] == 1 and names[10] == 1
    assert fields[-1][:2] == (1001, 5) and fields[-1][2] == zlib.crc32(data[:-6])
    graph = {num: val for num, _, val in _fields(names[7])}
    assert graph[2] and graph[5]  # GraphProto.name, one input
    params = [_fields(v) for num, _, v in _fields(names[7]) if num == 3]
    w = {n: v for n, _, v in params[0]}
    assert w[7] == b"fc1.weight" and len(w[9]) == 16 * 4 * 4  # name, raw_data
    np.testing.assert_array_equal(np.frombuffer(w[9], np.float32).reshape(16, 4),
                                  net.fc1.weight.asnumpy())
    assert shutil.which("protoc"), "protoc (protobuf-compiler) is a build dependency"
    raw = subprocess.run(["protoc", "--decode_raw"], input=data, capture_output=True, check=True)
    assert raw.stdout.startswith(b'1: "1"\n') and b"\n7 {\n" in raw.stdout
    assert raw.stdout.endswith(f"1001: 0x{zlib.crc32(data[:-6]):08x}\n".encode())
    text = _decode(data)
    assert 'producer_name: "mycel"' in text and 'op_type: "MatMul"' in text
    assert 'name: "transpose_b"' in text and "mycel_crc32" in text


# ---- errors ------------------------------------------------------------------------------

def _decode(data):
    return subprocess.run(
        ["protoc", f"-I{PROTO_DIR}", "--decode=mind_ir.ModelProto", "mind_ir.proto"],
        input=data, capture_output=True, check=True).stdout.decode()


def _encode(text):
    """A file from edited text: the protobuf, with a fresh checksum at the end."""
    import zlib
    body = subprocess.run(
        ["protoc", f"-I{PROTO_DIR}", "--encode=mind_ir.ModelProto", "mind_ir.proto"],
        input=re.sub(r"mycel_crc32: \d+\n", "", text).encode(), capture_output=True,
        check=True).stdout
    return body + b"\xcd\x3e" + zlib.crc32(body).to_bytes(4, "little")


@pytest.fixture
def mlp_file(tmp_path):
    ms.export(MLP(), _rand(5, 4), file_name=str(tmp_path / "mlp"))
    return tmp_path / "mlp.mindir"


def test_truncated_file(mlp_file, tmp_path):
    data = mlp_file.read_bytes()
    for n in [0, 3, 10, len(data) // 2, len(data) - 7, len(data) - 1]:
        bad = tmp_path / f"t{n}.mindir"
        bad.write_bytes(data[:n])
        with pytest.raises(ValueError, match=f"load: '.*t{n}.mindir': .*(truncated|corrupted)"):
            ms.load(str(bad))


def test_flipped_byte(mlp_file, tmp_path):
    data = mlp_file.read_bytes()
    weight_at = data.index(b"fc1.weight") + 40
    for pos in [5, len(data) // 3, weight_at, len(data) - 8, len(data) - 2]:
        bad = bytearray(data)
        bad[pos] ^= 0x10
        path = tmp_path / "flip.mindir"
        path.write_bytes(bytes(bad))
        with pytest.raises(ValueError, match=r"flip.mindir': .*(checksum|corrupted)"):
            ms.load(str(path))


def test_missing_file_and_bad_names(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        ms.load(str(tmp_path / "none.mindir"))
    with pytest.raises(ValueError, match="must end with '.mindir'"):
        ms.load(str(tmp_path / "none.onnx"))
    with pytest.raises(ValueError, match="file_format must be 'MINDIR'"):
        ms.export(MLP(), _rand(5, 4), file_name=str(tmp_path / "x"), file_format="ONNX")
    with pytest.raises(TypeError, match="inputs must be Tensors, but input 0 is a ndarray"):
        ms.export(MLP(), np.zeros((5, 4), np.float32), file_name=str(tmp_path / "x"))
    with pytest.raises(TypeError, match="must be what mycel.load returns"):
        nn.GraphCell("mlp.mindir")


@pytest.mark.parametrize("edit, message", [
    (lambda t: t.replace('op_type: "MatMul"', 'op_type: "MatMulX"', 1),
     r"node '.*' \(MatMulX\): unknown op 'MatMulX'"),
    (lambda t: t.replace('name: "transpose_b"', 'name: "transpose_z"', 1),
     "MatMul has no attribute 'transpose_z'"),
    (lambda t: re.sub(r'input: "[^"]*"(\n\s*output: .*\n\s*name: .*\n\s*op_type: "ReLU")',
                      r'input: "nope"\1', t, count=1),
     r"\(ReLU\): uses 'nope', which is not defined before it"),
    (lambda t: re.sub(r'(op_type: "ReLU"\n(?:.*\n)*?\s*dims: )16', r'\g<1>17', t, count=1),
     r"\(ReLU\): the file says it returns f32\[5, 17\], but its inputs give Float32\[5, 16\]"),
    (lambda t: t.replace('producer_name: "mycel"', 'producer_name: "MindSpore"'),
     "written by 'MindSpore': mycel reads only"),
])
def test_bad_content_is_reported_with_the_node(mlp_file, tmp_path, edit, message):
    text = _decode(mlp_file.read_bytes())
    edited = edit(text)
    assert edited != text
    bad = tmp_path / "bad.mindir"
    bad.write_bytes(_encode(edited))
    with pytest.raises(ValueError, match=r"load: '.*bad.mindir': .*" + message):
        ms.load(str(bad))


def test_weight_bytes_must_match_its_shape(mlp_file, tmp_path):
    text = _decode(mlp_file.read_bytes())
    # fc2.bias holds 3 floats; claim 4.
    edited = re.sub(r'(parameter \{\n\s*dims: )3(\n\s*data_type: 1\n\s*name: "fc2.bias")',
                    r"\g<1>4\2", text)
    assert edited != text
    bad = tmp_path / "bad.mindir"
    bad.write_bytes(_encode(edited))
    with pytest.raises(ValueError, match=r"weight 'fc2.bias': tensor 'fc2.bias' holds 12 bytes, "
                                         r"but Float32\[4\] needs 16"):
        ms.load(str(bad))


def test_graph_cell_checks_inputs(mlp_file):
    cell = nn.GraphCell(ms.load(str(mlp_file)))
    with pytest.raises(ValueError, match=r"input 0 \('.*'\) must be Float32\[5, 4\] as exported "
                                         r"to '.*mlp.mindir', but got Float32\[3, 4\]"):
        cell(_rand(3, 4))
    with pytest.raises(TypeError, match=r"must be Float32\[5, 4\] .*but got Float64\[5, 4\]"):
        cell(ms.Tensor(np.zeros((5, 4))))
    with pytest.raises(TypeError, match=r"takes 1 input\(s\), but got 2"):
        cell(_rand(5, 4), _rand(5, 4))
    with pytest.raises(TypeError, match="input 0 must be a Tensor, but got a list"):
        cell([1.0])


def host_norm(x):
    y = x * 2
    return y, np.linalg.norm(y)  # <- fallback


def with_print(x):
    y = x + 1
    print(y)  # <- print
    return y


def _line_of(fn, marker):
    src, first = inspect.getsourcelines(fn)
    return first + next(i for i, t in enumerate(src) if marker in t)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("fn, marker, what", [
    (host_norm, "<- fallback", "the Python fallback py_execute"),
    (with_print, "<- print", "print"),
])
def test_unexportable_network_names_the_line(tmp_path, fn, marker, what):
    line = _line_of(fn, marker)
    with pytest.raises(ValueError, match=rf"export: the network uses {what}.* "
                                         rf"\(at .*test_export.py:{line}\)(.|\n)*{marker}"):
        ms.export(fn, _rand(3), file_name=str(tmp_path / "bad"))
    assert not os.listdir(tmp_path)
