"""Checkpoints (mycel.save_checkpoint / load_checkpoint / load_param_into_net): round trips of
every dtype and of networks (PYNATIVE and GRAPH), the bytes on the wire checked by an
independent protobuf decoder, MindSpore-style files without mycel's footer, the filters and
return values, and the rejection of truncated, corrupted and malformed files; atomic writes."""
import os
import struct
import zlib

import numpy as np
import pytest

import mycel as ms
from mycel import nn
from mycel.train import serialization
import protowire  # tests/python/protowire.py

# ---- protobuf helpers (tests/python/protowire.py) ---------------------------------------------

pb_decode, pb_varint, pb_bytes = protowire.fields, protowire.varint, protowire.length_delimited


def pb_value(tag, dims, kind, content, packed=False):
    """A Checkpoint.value field as MindSpore's protobuf writes it (dims unpacked)."""
    if packed:
        dims_bytes = pb_bytes(1, b"".join(pb_varint(d) for d in dims)) if dims else b""
    else:
        dims_bytes = b"".join(pb_varint(1 << 3) + pb_varint(d) for d in dims)
    tensor = dims_bytes + pb_bytes(2, kind.encode()) + pb_bytes(3, content)
    return pb_bytes(1, pb_bytes(1, tag.encode()) + pb_bytes(2, tensor))


def with_mycel_frame(values):
    """Values wrapped in mycel's header and footer, as docs/checkpoint-format.md specifies."""
    body = pb_bytes(1001, b"MYCELCKP" + struct.pack("<I", 1)) + b"".join(values)
    footer = b"MYCELCKP" + struct.pack("<IQI", 1, len(values), zlib.crc32(body))
    return body + pb_bytes(1000, footer)


def decode_checkpoint(data):
    """[(tag, dims, tensor_type, content)] and the raw top-level fields of a checkpoint."""
    fields = pb_decode(data)
    entries = []
    for field, _, payload in fields:
        if field != 1:
            continue
        value = dict((f, v) for f, _, v in pb_decode(payload))
        tensor = pb_decode(value[2])
        dims = [v for f, _, v in tensor if f == 1]
        kind = [v for f, _, v in tensor if f == 2][0].decode()
        content = [v for f, _, v in tensor if f == 3][0]
        entries.append((value[1].decode(), dims, kind, content))
    return entries, fields


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


@pytest.fixture(params=[ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def mode(request):
    """Runs the test in one mode and restores PYNATIVE afterwards."""
    ms.set_context(mode=request.param)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


def rng(seed=0):
    return np.random.default_rng(seed)


# ---- round trips ------------------------------------------------------------------------------

DTYPES = [("Bool", ms.bool_, np.bool_), ("Int8", ms.int8, np.int8),
          ("UInt8", ms.uint8, np.uint8), ("Int16", ms.int16, np.int16),
          ("Int32", ms.int32, np.int32), ("Int64", ms.int64, np.int64),
          ("Float16", ms.float16, np.float16), ("BFloat16", ms.bfloat16, np.float32),
          ("Float32", ms.float32, np.float32), ("Float64", ms.float64, np.float64)]
SHAPES = [(), (0,), (5,), (2, 3, 4)]


def sample(np_type, shape, seed=0):
    if np_type is np.bool_:
        return rng(seed).random(shape) < 0.5
    if np.issubdtype(np_type, np.integer):
        info = np.iinfo(np_type)
        a = rng(seed).integers(info.min, info.max, size=shape, dtype=np_type, endpoint=True)
        if a.size >= 2:
            a.flat[:2] = [info.min, info.max]
        return a
    a = (rng(seed).standard_normal(shape) * 100).astype(np_type)
    if a.size >= 3:
        a.flat[:3] = [np.inf, -np.inf, np.nan]
    return a


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("kind,dtype,np_type", DTYPES, ids=[d[0] for d in DTYPES])
def test_roundtrip_every_dtype(tmp_path, kind, dtype, np_type, shape):
    x = ms.Tensor(sample(np_type, shape), dtype)
    ref = x.asnumpy().copy()  # bfloat16: the (exact) float32 widening
    path = str(tmp_path / "t.ckpt")
    ms.save_checkpoint({"x": ms.Parameter(x)}, path)
    p = ms.load_checkpoint(path)["x"]
    assert isinstance(p, ms.Parameter) and p.name == "x"
    assert p.dtype == dtype and tuple(p.shape) == shape
    np.testing.assert_array_equal(p.asnumpy(), ref)

    # On the wire: the MindSpore type name, the dims (none for 0-d), little-endian C order.
    [(tag, dims, wire_kind, content)], _ = decode_checkpoint(read(path))
    assert (tag, dims, wire_kind) == ("x", list(shape), kind)
    if kind == "BFloat16":
        expect = (ref.astype("<f4").view("<u4") >> 16).astype("<u2").tobytes()
    else:
        expect = np.ascontiguousarray(ref).astype(np.dtype(np_type).newbyteorder("<")).tobytes()
    assert content == expect


def test_wire_layout_header_footer_and_order(tmp_path):
    w = ms.Parameter(ms.Tensor(rng().standard_normal((3, 2)).astype(np.float32)), name="w")
    b = ms.Parameter(ms.Tensor(np.arange(3, dtype=np.int32)), name="b")
    path = str(tmp_path / "m.ckpt")
    ms.save_checkpoint([w, b], path)
    data = read(path)
    entries, fields = decode_checkpoint(data)
    assert [f for f, _, _ in fields] == [1001, 1, 1, 1000]
    assert fields[0][2] == b"MYCELCKP" + struct.pack("<I", 1)
    magic, version, count, crc = struct.unpack("<8sIQI", fields[-1][2])
    footer_len = len(pb_bytes(1000, fields[-1][2]))
    assert (magic, version, count) == (b"MYCELCKP", 1, 2)
    assert crc == zlib.crc32(data[:-footer_len])
    assert [(t, d, k) for t, d, k, _ in entries] == [("w", [3, 2], "Float32"),
                                                     ("b", [3], "Int32")]
    assert entries[0][3] == w.asnumpy().astype("<f4").tobytes()
    assert list(ms.load_checkpoint(path)) == ["w", "b"]


def test_protobuf_encoder_writes_the_bytes_of_the_format(tmp_path):
    """save_checkpoint encodes through protobuf's generated classes (C++); its bytes are those
    of the format as this file's own encoder spells them (pb_value, with_mycel_frame: the
    hand-written codec save_checkpoint had before), so old and new files are the same."""
    r = rng()
    cases = [("w", r.standard_normal((3, 2)).astype(np.float32), ms.float32, "Float32"),
             ("é/名", np.arange(5, dtype=np.int64) - 2, ms.int64, "Int64"),
             ("scalar", np.array(7, np.int32), ms.int32, "Int32"),
             ("empty", np.zeros((0, 4), np.float64), ms.float64, "Float64"),
             ("big", r.standard_normal((300, 129)).astype(np.float16), ms.float16, "Float16"),
             ("flags", np.array([True, False, True]), ms.bool_, "Bool"),
             ("bytes", np.arange(200, dtype=np.uint8), ms.uint8, "UInt8")]
    params = [ms.Parameter(ms.Tensor(a, dt), name=n) for n, a, dt, _ in cases]
    path = str(tmp_path / "p.ckpt")
    ms.save_checkpoint(params, path, append_dict={"epoch_num": 3, "note": "añ😀"})
    values = [pb_value(n, list(a.shape), k, np.ascontiguousarray(a).astype(
        a.dtype.newbyteorder("<")).tobytes()) for n, a, _, k in cases]
    values += [pb_value("epoch_num", [], "Int64", struct.pack("<q", 3)),
               pb_value("note", [0], "str", "añ😀".encode("utf-32-le"))]
    assert read(path) == with_mycel_frame(values)
    loaded = ms.load_checkpoint(path)
    for n, a, _, _ in cases:
        np.testing.assert_array_equal(loaded[n].asnumpy(), a)
    assert loaded["note"] == "añ😀"


def test_non_contiguous_parameter_is_saved_in_c_order(tmp_path):
    base = rng().standard_normal((2, 3)).astype(np.float32)
    p = ms.Parameter(ms.Tensor(base).T, name="t")
    path = str(tmp_path / "t.ckpt")
    ms.save_checkpoint([p], path)
    np.testing.assert_array_equal(ms.load_checkpoint(path)["t"].asnumpy(), base.T)


def make_net(seed):
    ms.set_seed(seed)
    return nn.SequentialCell(nn.Conv2d(1, 2, 3, pad_mode="valid", has_bias=True), nn.ReLU(),
                             nn.Flatten(), nn.Dense(2 * 4 * 4, 3))


def test_cell_roundtrip_into_fresh_twin(tmp_path, mode):
    net, twin = make_net(1), make_net(2)
    x = ms.Tensor(rng(3).standard_normal((2, 1, 6, 6)).astype(np.float32))
    want = net(x).asnumpy()
    assert not np.allclose(twin(x).asnumpy(), want)  # in GRAPH mode: compiled already
    path = str(tmp_path / "net.ckpt")
    ms.save_checkpoint(net, path)
    params = dict(twin.parameters_and_names())
    d = ms.load_checkpoint(path, net=twin)
    assert list(d) == ["0.weight", "0.bias", "3.weight", "3.bias"]
    assert all(p is params[n] for n, p in twin.parameters_and_names())  # same objects
    np.testing.assert_allclose(twin(x).asnumpy(), want, rtol=1e-6, atol=1e-6)
    for name, p in net.parameters_and_names():
        np.testing.assert_array_equal(params[name].asnumpy(), p.asnumpy())
    # The net got copies: writing into the loaded dict leaves it alone.
    d["3.bias"].asnumpy()[...] = 123.0
    np.testing.assert_allclose(twin(x).asnumpy(), want, rtol=1e-6, atol=1e-6)


def test_save_obj_forms_and_choice_func(tmp_path):
    net = make_net(0)
    path = str(tmp_path / "a")  # ".ckpt" is appended
    ms.save_checkpoint(net, path, choice_func=lambda n: n.endswith("weight"))
    assert list(ms.load_checkpoint(path + ".ckpt")) == ["0.weight", "3.weight"]

    ms.save_checkpoint(net.trainable_params(), path, choice_func=lambda n: n.startswith("3."))
    assert list(ms.load_checkpoint(path + ".ckpt")) == ["3.weight", "3.bias"]

    t = ms.Tensor(np.arange(4, dtype=np.float32))
    ms.save_checkpoint([{"name": "t", "data": t}, {"name": "p", "data": net[3].bias}], path)
    d = ms.load_checkpoint(path + ".ckpt")
    np.testing.assert_array_equal(d["t"].asnumpy(), t.asnumpy())
    np.testing.assert_array_equal(d["p"].asnumpy(), net[3].bias.asnumpy())

    ms.save_checkpoint(d, path)  # a load_checkpoint result saves back unchanged
    again = ms.load_checkpoint(path + ".ckpt")
    assert list(again) == ["t", "p"]
    np.testing.assert_array_equal(again["p"].asnumpy(), net[3].bias.asnumpy())


def test_append_dict(tmp_path):
    path = str(tmp_path / "a.ckpt")
    extra = {"epoch": 7, "lr": 0.125, "flag": True, "note": "héllo ✓", "empty": "",
             "big": -2**63, "step": ms.Tensor(np.array([1, 2], np.int32))}
    ms.save_checkpoint(make_net(0), path, append_dict=extra, choice_func=lambda n: False)
    d = ms.load_checkpoint(path)
    assert list(d) == list(extra)  # choice_func does not filter append_dict
    for name, dtype, value in [("epoch", ms.int64, 7), ("lr", ms.float32, 0.125),
                               ("flag", ms.bool_, True), ("big", ms.int64, -2**63)]:
        assert d[name].dtype == dtype and d[name].shape == () and d[name].item() == value
    assert d["note"] == "héllo ✓" and d["empty"] == ""
    np.testing.assert_array_equal(d["step"].asnumpy(), [1, 2])
    entries, _ = decode_checkpoint(read(path))
    note = [e for e in entries if e[0] == "note"][0]
    assert note[1:] == ([0], "str", "héllo ✓".encode("utf-32-le"))  # as MindSpore: numpy U


def test_load_filters(tmp_path):
    path = str(tmp_path / "f.ckpt")
    ms.save_checkpoint(make_net(0), path)
    assert list(ms.load_checkpoint(path, filter_prefix="0.")) == ["3.weight", "3.bias"]
    assert list(ms.load_checkpoint(path, specify_prefix=["3.", "0.b"])) == [
        "0.bias", "3.weight", "3.bias"]
    assert list(ms.load_checkpoint(path, specify_prefix="3.", filter_prefix=("3.b",))) == [
        "3.weight"]
    assert list(ms.load_checkpoint(path, choice_func=lambda n: "bias" in n)) == [
        "0.bias", "3.bias"]
    with pytest.raises(ValueError, match="nothing was loaded"):
        ms.load_checkpoint(path, specify_prefix="nope")
    with pytest.raises(TypeError, match="specify_prefix"):
        ms.load_checkpoint(path, specify_prefix=3)
    with pytest.raises(TypeError, match="filter_prefix"):
        ms.load_checkpoint(path, filter_prefix=["0.", 1])
    with pytest.raises(ValueError, match="filter_prefix"):
        ms.load_checkpoint(path, filter_prefix=[""])
    with pytest.raises(TypeError, match="choice_func"):
        ms.load_checkpoint(path, choice_func="0.")


# ---- load_param_into_net ----------------------------------------------------------------------

def test_load_param_into_net_returns_not_loaded_names(tmp_path):
    net = make_net(0)
    d = {k: v for k, v in make_net(1).parameters_dict().items() if k != "0.bias"}
    d["extra"] = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="extra")
    d["note"] = "text"
    param_not_load, ckpt_not_load = ms.load_param_into_net(net, d)
    assert param_not_load == ["0.bias"] and ckpt_not_load == ["extra", "note"]
    np.testing.assert_array_equal(net[0].weight.asnumpy(), d["0.weight"].asnumpy())


def test_load_param_into_net_prefix_fallback_and_strict(tmp_path):
    src = make_net(1)
    d = {"network." + k: v for k, v in src.parameters_dict().items()}
    d["network.10.weight"] = ms.Parameter(ms.Tensor(np.zeros(1, np.float32)))
    net = make_net(0)
    assert ms.load_param_into_net(net, d, strict_load=True) == (
        ["0.weight", "0.bias", "3.weight", "3.bias"], list(d))
    assert ms.load_param_into_net(net, d) == ([], ["network.10.weight"])
    np.testing.assert_array_equal(net[3].weight.asnumpy(), src[3].weight.asnumpy())
    # A whole dotted prefix only: "10.weight" never loads into "0.weight".
    net = make_net(0)
    only = {"10.weight": ms.Parameter(ms.Tensor(np.zeros((2, 1, 3, 3), np.float32)))}
    assert ms.load_param_into_net(net, only)[1] == ["10.weight"]


def test_load_param_into_net_dtype_cast(tmp_path):
    net = make_net(0)
    d = {k: ms.Parameter(v.astype(ms.float16), name=k) for k, v in
         make_net(1).parameters_dict().items()}
    with pytest.raises(RuntimeError, match=r"'0\.weight'.*Float32.*Float16"):
        ms.load_param_into_net(net, d, strict_load=True)
    assert ms.load_param_into_net(net, d) == ([], [])
    assert net[0].weight.dtype == ms.float32
    np.testing.assert_array_equal(net[0].weight.asnumpy(),
                                  d["0.weight"].asnumpy().astype(np.float32))
    d["0.weight"] = ms.Parameter(ms.Tensor(np.zeros((2, 1, 3, 3), np.int32)))
    with pytest.raises(RuntimeError, match=r"Float32.*Int32.*only float<->float"):
        ms.load_param_into_net(net, d)


def test_load_param_into_net_shape_mismatch_leaves_net_unchanged(tmp_path):
    net = make_net(0)
    before = {k: v.asnumpy().copy() for k, v in net.parameters_and_names()}
    d = make_net(1).parameters_dict()
    d["3.weight"] = ms.Parameter(ms.Tensor(np.zeros((3, 5), np.float32)), name="3.weight")
    path = str(tmp_path / "s.ckpt")
    ms.save_checkpoint(d, path)
    with pytest.raises(RuntimeError, match=r"'3\.weight'.*\(3, 32\).*\(3, 5\)"):
        ms.load_checkpoint(path, net=net)
    for k, v in net.parameters_and_names():
        np.testing.assert_array_equal(v.asnumpy(), before[k])


def test_load_param_into_net_argument_errors():
    net = make_net(0)
    with pytest.raises(TypeError, match="'net' must be a Cell"):
        ms.load_param_into_net({}, {})
    with pytest.raises(TypeError, match="'parameter_dict' must be a dict"):
        ms.load_param_into_net(net, [])
    with pytest.raises(TypeError, match=r"'0\.weight' -> Tensor"):
        ms.load_param_into_net(net, {"0.weight": ms.Tensor(np.zeros((2, 1, 3, 3), np.float32))})
    with pytest.raises(TypeError, match="strict_load"):
        ms.load_param_into_net(net, {}, strict_load=1)
    with pytest.raises(TypeError, match=r"parameter_dict\['0\.bias'\] must be a Parameter"):
        ms.load_param_into_net(net, {"0.bias": "text"})


# ---- files written elsewhere (MindSpore) -----------------------------------------------------

def test_reads_mindspore_style_file_without_footer(tmp_path):
    w = rng().standard_normal((4, 3)).astype("<f4")
    half = w.tobytes()[:24], w.tobytes()[24:]
    data = b"".join([
        pb_value("w", [4, 3], "Float32", half[0]),  # a tensor split in two chunks
        pb_value("w", [4, 3], "Float32", half[1]),
        pb_value("s", [0], "Float64", struct.pack("<d", 2.5)),  # MindSpore < 2.3's 0-d
        pb_value("e", [0], "Int32", b""),  # an empty 1-d tensor
        pb_value("p", [2], "Int16", np.array([-1, 7], "<i2").tobytes(), packed=True),
        pb_value("note", [0], "str", "ok".encode("utf-32-le")),
        pb_bytes(77, b"an unknown field is skipped"),
    ])
    path = str(tmp_path / "ms.ckpt")
    write(path, data)
    d = ms.load_checkpoint(path)
    np.testing.assert_array_equal(d["w"].asnumpy(), w)
    assert d["s"].shape == () and d["s"].dtype == ms.float64 and d["s"].item() == 2.5
    assert d["e"].shape == (0,) and d["e"].dtype == ms.int32
    np.testing.assert_array_equal(d["p"].asnumpy(), [-1, 7])
    assert d["note"] == "ok"


@pytest.mark.parametrize("values,match", [
    ([pb_value("w", [2], "Float8E4M3", bytes(2))], "tensor_type 'Float8E4M3', which is unknown"),
    ([pb_value("w", [2], "random_op", bytes(4))], "'random_op', which mycel does not support"),
    ([pb_value("w", [2, 3], "Float32", bytes(20))],
     r"20 bytes .* dims \[2, 3\] of Float32 need 24"),
    ([pb_value(n, [1], "Int8", b"\1") for n in "wvw"], "'w' occurs twice"),
    ([pb_bytes(1, pb_bytes(1, b"w"))], r"entry 0 \('w'\) has no tensor"),
    ([pb_bytes(1, pb_bytes(2, pb_bytes(2, b"Float32")))], "entry 0 has no tag"),
    ([pb_bytes(1, pb_bytes(1, b"w") + pb_bytes(2, pb_bytes(2, b"Int8")))], "no tensor_content"),
    ([pb_value("s", [0], "str", bytes(5))], "not a multiple of 4"),
    ([pb_value("\xff", [1], "Int8", b"\1").replace(b"\xc3\xbf", b"\xff\xfe")], "UTF-8"),
    ([pb_varint(1 << 3 | 3)], "unsupported wire type 3"),
])
@pytest.mark.parametrize("framed", [False, True], ids=["foreign", "mycel"])
def test_malformed_entries_are_rejected(tmp_path, values, match, framed):
    path = str(tmp_path / "bad.ckpt")
    write(path, with_mycel_frame(values) if framed else b"".join(values))
    with pytest.raises(ValueError, match=match) as info:
        ms.load_checkpoint(path)
    assert path in str(info.value)


def test_footer_must_be_last_and_match(tmp_path):
    good = with_mycel_frame([pb_value("w", [1], "Int8", b"\1")])
    path = str(tmp_path / "f.ckpt")
    write(path, good + pb_value("x", [1], "Int8", b"\1"))
    with pytest.raises(ValueError, match="data follows the footer"):
        ms.load_checkpoint(path)
    value = pb_value("w", [1], "Int8", b"\1")
    footer = b"MYCELCKP" + struct.pack("<IQI", 1, 1, zlib.crc32(value))
    write(path, value + pb_bytes(1000, footer))
    with pytest.raises(ValueError, match="footer but no header"):
        ms.load_checkpoint(path)
    write(path, good.replace(b"MYCELCKP" + struct.pack("<I", 1),
                             b"MYCELCKP" + struct.pack("<I", 2), 1))
    with pytest.raises(ValueError, match="format version 2"):
        ms.load_checkpoint(path)


# ---- corruption and truncation ---------------------------------------------------------------

@pytest.fixture
def small_file(tmp_path):
    path = str(tmp_path / "small.ckpt")
    ms.save_checkpoint({"a": ms.Parameter(ms.Tensor(np.array([1.5, -2.0], np.float32))),
                        "b": ms.Parameter(ms.Tensor(np.int8(3)))}, path,
                       append_dict={"note": "x"})
    return path


def test_every_truncation_is_rejected(small_file):
    data = read(small_file)
    for cut in range(len(data)):
        write(small_file, data[:cut])
        with pytest.raises(ValueError, match="not valid") as info:
            ms.load_checkpoint(small_file)
        assert small_file in str(info.value)
    write(small_file, b"")
    with pytest.raises(ValueError, match="the file is empty"):
        ms.load_checkpoint(small_file)
    write(small_file, data[:-1])
    with pytest.raises(ValueError, match="truncated"):
        ms.load_checkpoint(small_file)


def test_every_flipped_byte_is_rejected(small_file):
    data = read(small_file)
    for pos in range(len(data)):
        for mask in (0x01, 0x80, 0xFF):
            bad = bytearray(data)
            bad[pos] ^= mask
            write(small_file, bytes(bad))
            with pytest.raises(ValueError, match="not valid"):
                ms.load_checkpoint(small_file)
    write(small_file, data)
    assert list(ms.load_checkpoint(small_file)) == ["a", "b", "note"]


def test_crc_mismatch_message(small_file):
    data = bytearray(read(small_file))
    data[data.index(struct.pack("<f", 1.5))] ^= 0x01  # a bit of a float's content
    write(small_file, bytes(data))
    with pytest.raises(ValueError, match="CRC32 mismatch"):
        ms.load_checkpoint(small_file)


# ---- argument errors --------------------------------------------------------------------------

def test_save_argument_errors(tmp_path):
    path = str(tmp_path / "e.ckpt")
    p = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="p")
    with pytest.raises(TypeError, match="save_obj must be a Cell, a list or a dict, but got "
                                        "tuple"):
        ms.save_checkpoint((p,), path)
    with pytest.raises(TypeError, match=r"save_obj\['p'\] must be a Parameter or Tensor, but "
                                        r"got ndarray"):
        ms.save_checkpoint({"p": np.ones(2)}, path)
    with pytest.raises(TypeError, match=r"save_obj\[1\] must be a Parameter or a dict"):
        ms.save_checkpoint([p, ms.Tensor(np.ones(2, np.float32))], path)
    with pytest.raises(TypeError, match=r"save_obj\[0\] .*keys \['data', 'nm'\]"):
        ms.save_checkpoint([{"nm": "p", "data": p}], path)
    with pytest.raises(TypeError, match="names must be str"):
        ms.save_checkpoint({1: p}, path)
    with pytest.raises(TypeError, match="file name must be a str"):
        ms.save_checkpoint([p], 3)
    with pytest.raises(IsADirectoryError, match="is a directory"):
        ms.save_checkpoint([p], str(tmp_path))
    with pytest.raises(TypeError, match="async_save"):
        ms.save_checkpoint([p], path, async_save=1)
    with pytest.raises(TypeError, match=r"append_dict\['x'\] must be an int, float"):
        ms.save_checkpoint([p], path, append_dict={"x": [1]})
    with pytest.raises(TypeError, match="'append_dict' must be a dict"):
        ms.save_checkpoint([p], path, append_dict=[1])
    with pytest.raises(ValueError, match="does not fit in an Int64"):
        ms.save_checkpoint([p], path, append_dict={"x": 2**63})
    with pytest.raises(ValueError, match="the name 'p' occurs more than once"):
        ms.save_checkpoint([p], path, append_dict={"p": 1})
    with pytest.raises(ValueError, match="'enc_key' must be 16 or 24 or 32 bytes long"):
        ms.save_checkpoint([p], path, enc_key=b"short")  # test_checkpoint_encryption.py
    with pytest.raises(TypeError, match="unexpected keyword"):
        ms.save_checkpoint([p], path, incremental=True)
    with pytest.raises(ValueError, match="format must be 'ckpt' or 'safetensors'"):
        ms.save_checkpoint([p], path, format="npz")  # test_checkpoint_safetensors.py
    assert not os.listdir(tmp_path)  # nothing was written


def test_load_argument_errors(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        ms.load_checkpoint(str(tmp_path / "missing.ckpt"))
    with pytest.raises(ValueError, match="must end with '.ckpt'"):
        ms.load_checkpoint(str(tmp_path / "model.bin"))
    with pytest.raises(TypeError, match="file name must be a str"):
        ms.load_checkpoint(None)
    path = str(tmp_path / "x.ckpt")
    ms.save_checkpoint({"p": ms.Tensor(np.ones(1, np.float32))}, path)
    with pytest.raises(ValueError, match="is not encrypted, but dec_key was given"):
        ms.load_checkpoint(path, dec_key=b"0123456789abcdef")
    with pytest.raises(TypeError, match="'net' must be a Cell"):
        ms.load_checkpoint(path, net={"p": 1})


# ---- atomic and asynchronous writes -----------------------------------------------------------

def test_crash_mid_write_keeps_old_file(tmp_path, monkeypatch):
    net = make_net(0)
    path = str(tmp_path / "net.ckpt")
    ms.save_checkpoint(net, path)
    old = read(path)
    encode, calls = serialization._C._checkpoint_value_frame, []

    def crash_on_third(*args):
        calls.append(args[0])
        if len(calls) == 3:
            raise RuntimeError("simulated crash")
        return encode(*args)

    monkeypatch.setattr(serialization._C, "_checkpoint_value_frame", crash_on_third)
    with pytest.raises(RuntimeError, match="simulated crash"):
        ms.save_checkpoint(make_net(1), path)
    assert calls == ["0.weight", "0.bias", "3.weight"]  # two entries were written
    assert read(path) == old
    assert os.listdir(tmp_path) == ["net.ckpt"]  # no temporary left behind
    monkeypatch.undo()
    ms.save_checkpoint(make_net(1), path)  # a completed save replaces the file
    assert read(path) != old and os.listdir(tmp_path) == ["net.ckpt"]


def test_async_save_snapshots_and_reports_errors(tmp_path):
    p = ms.Parameter(ms.Tensor(np.arange(3, dtype=np.float32)), name="p")
    path = str(tmp_path / "a.ckpt")
    ms.save_checkpoint([p], path, async_save=True)
    p.asnumpy()[...] = -1.0  # training goes on: the file keeps the values at save time
    np.testing.assert_array_equal(ms.load_checkpoint(path)["p"].asnumpy(), [0, 1, 2])
    bad = str(tmp_path / "no_dir" / "a.ckpt")
    ms.save_checkpoint([p], bad, async_save=True)
    with pytest.raises(RuntimeError, match="asynchronous save .* failed: FileNotFoundError"):
        ms.load_checkpoint(bad)
