"""load_mindir / save_mindir (train/mindir_proto.py): a MINDIR file as its ModelProto, edited
and written back to a file mycel.load runs; bad files are ValueErrors."""
import os

import numpy as np
import pytest

import mycel as ms
from mycel import nn


class _Dense(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)

    def construct(self, x):
        return self.fc(x)


def _export(tmp_path):
    net = _Dense()
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    base = str(tmp_path / "net")
    ms.export(net, x, file_name=base, file_format="MINDIR")
    return net, x, base + ".mindir"


def test_load_edit_save_runs(tmp_path):
    net, x, path = _export(tmp_path)
    model = ms.load_mindir(path)
    assert model.producer_name == "mycel"
    names = [p.name for p in model.graph.parameter]
    assert any("weight" in n for n in names) and any("bias" in n for n in names)
    assert len(model.graph.node) > 0
    # double the weight: the saved model's output is x @ (2 W).T + b
    w = next(p for p in model.graph.parameter if "weight" in p.name)
    values = np.frombuffer(w.raw_data, np.float32) * 2
    w.raw_data = values.astype(np.float32).tobytes()
    out_path = str(tmp_path / "edited")
    ms.save_mindir(model, out_path)
    assert os.path.exists(out_path + ".mindir")
    got = nn.GraphCell(ms.load(out_path + ".mindir"))(x).asnumpy()
    weight = net.fc.weight.asnumpy()
    bias = net.fc.bias.asnumpy()
    np.testing.assert_allclose(got, x.asnumpy() @ (2 * weight).T + bias, rtol=1e-6, atol=1e-6)
    # an unedited round trip gives the exported file's bytes back
    ms.save_mindir(ms.load_mindir(path), str(tmp_path / "same.mindir"))
    with open(path, "rb") as a, open(tmp_path / "same.mindir", "rb") as b:
        assert a.read() == b.read()


def test_bad_files(tmp_path):
    _, _, path = _export(tmp_path)
    data = open(path, "rb").read()
    with pytest.raises(ValueError, match="load_mindir.*does not exist"):
        ms.load_mindir(str(tmp_path / "missing.mindir"))
    with pytest.raises(ValueError, match="load_mindir.*'.mindir'"):
        ms.load_mindir(str(tmp_path / "net.txt"))
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0x01
    bad = tmp_path / "flipped.mindir"
    bad.write_bytes(bytes(flipped))
    with pytest.raises(ValueError, match="load_mindir"):
        ms.load_mindir(str(bad))
    bad.write_bytes(b"\xff\xff\xff\xff not a proto")
    with pytest.raises(ValueError, match="load_mindir"):
        ms.load_mindir(str(bad))
    with pytest.raises(TypeError, match="save_mindir"):
        ms.save_mindir(b"bytes", str(tmp_path / "x"))
    with pytest.raises(ValueError, match="save_mindir"):
        ms.save_mindir(ms.load_mindir(path), str(tmp_path / "no" / "x"))


def test_encrypted_file_is_refused(tmp_path):
    net = _Dense()
    x = ms.Tensor(np.ones((1, 3), np.float32))
    base = str(tmp_path / "enc")
    ms.export(net, x, file_name=base, file_format="MINDIR", enc_key=b"0123456789abcdef")
    with pytest.raises(ValueError, match="encrypted"):
        ms.load_mindir(base + ".mindir")


def _varint(data, i):
    n, shift = 0, 0
    while True:
        b = data[i]
        n, i, shift = n | (b & 0x7F) << shift, i + 1, shift + 7
        if b < 0x80:
            return n, i


def _top_level_field_starts(data):
    """The offsets where the message's top-level fields start (protobuf's wire format)."""
    starts, i = [], 0
    while i < len(data):
        starts.append(i)
        tag, i = _varint(data, i)
        kind = tag & 7
        if kind == 0:
            _, i = _varint(data, i)
        elif kind == 2:
            n, i = _varint(data, i)
            i += n
        else:
            i += {1: 8, 5: 4}[kind]
    return starts


@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_a_stray_end_group_tag_is_refused(tmp_path, where):
    # protobuf stops at an end-group tag (field 1, wire type 4: byte 0x0c) with only a
    # RuntimeWarning and keeps what it read: the file loaded as a prefix of the model, its
    # checksum never reached (found by test_fuzz_python_readers.py::test_mindir_model_proto).
    _, _, path = _export(tmp_path)
    data = open(path, "rb").read()
    starts = _top_level_field_starts(data)
    assert len(starts) > 3
    k = {"first": 0, "middle": starts[len(starts) // 2], "last": starts[-1]}[where]
    bad = tmp_path / "stray.mindir"
    bad.write_bytes(data[:k] + b"\x0c" + data[k:])
    with pytest.raises(ValueError, match="load_mindir.*end-group tag"):
        ms.load_mindir(str(bad))
