"""save_checkpoint(format="safetensors") / load_checkpoint of .safetensors files, the
conversions both ways, check_checkpoint and load_checkpoint_async. The oracle is the format's
specification written out independently here (a file built byte by byte, and a parser of
mycel's output); untrusted files are checked by a seeded mutation loop."""
import json
import os
import struct

import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, nn

SPEC = {"F32": "<f4", "F64": "<f8", "F16": "<f2", "I8": "i1", "I16": "<i2", "I32": "<i4",
        "I64": "<i8", "U8": "u1", "U16": "<u2", "U32": "<u4", "U64": "<u8", "BOOL": "u1"}


def _spec_file(path, tensors, metadata=None):
    """A safetensors file from {name: (code, numpy array)}, per the specification."""
    header, blobs, off = {}, [], 0
    for name, (code, arr) in tensors.items():
        raw = np.ascontiguousarray(arr).astype(SPEC.get(code, "<u2")).tobytes()
        header[name] = {"dtype": code, "shape": list(arr.shape), "data_offsets": [off,
                                                                                 off + len(raw)]}
        blobs.append(raw)
        off += len(raw)
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def _spec_parse(path):
    blob = open(path, "rb").read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n])
    meta = header.pop("__metadata__", {})
    data = blob[8 + n:]
    out = {}
    for name, e in header.items():
        b, s = e["data_offsets"]
        out[name] = (e["dtype"], np.frombuffer(data[b:s], SPEC.get(e["dtype"], "<u2"))
                     .reshape(e["shape"]))
    return out, meta


def test_save_writes_the_specified_layout(tmp_path):
    rng = np.random.default_rng(0)
    values = {"w": rng.standard_normal((3, 4)).astype(np.float32),
              "i": np.arange(6, dtype=np.int64).reshape(2, 3),
              "u": np.array([0, 65535, 7], np.uint16), "b": np.array([True, False]),
              "h": rng.standard_normal(5).astype(np.float16)}
    items = [{"name": k, "data": Tensor(v)} for k, v in values.items()]
    items.append({"name": "bf", "data": Tensor(np.array([1.5, -2.25], np.float32))
                  .astype(ms.bfloat16)})
    ms.save_checkpoint(items, str(tmp_path / "m"), format="safetensors",
                       append_dict={"note": "hello", "epoch": 3})
    path = tmp_path / "m.safetensors"
    assert path.exists() and not (tmp_path / "m.ckpt").exists()
    tensors, meta = _spec_parse(path)
    assert meta == {"note": "hello"}
    for k, v in values.items():
        code, arr = tensors[k]
        np.testing.assert_array_equal(arr.astype(v.dtype), v)
    assert tensors["bf"][0] == "BF16"
    np.testing.assert_array_equal(tensors["bf"][1], [0x3FC0, 0xC010])
    assert tensors["epoch"][0] == "I64" and tensors["epoch"][1].item() == 3
    assert (8 + struct.unpack("<Q", path.read_bytes()[:8])[0]) % 8 == 0


def test_load_reads_a_file_built_from_the_spec(tmp_path):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((2, 3)).astype(np.float64)
    u = np.array([1, 2, 2**64 - 1], np.uint64)
    bf_bits = np.array([0x3F80, 0x4040], np.uint16)  # 1.0, 3.0
    _spec_file(tmp_path / "x.safetensors", {"a": ("F64", a), "u": ("U64", u),
                                            "bf": ("BF16", bf_bits),
                                            "e": ("F32", np.zeros((0, 4), np.float32))},
               {"format": "pt"})
    got = ms.load_checkpoint(str(tmp_path / "x.safetensors"), format="safetensors")
    np.testing.assert_array_equal(got["a"].asnumpy(), a)
    assert got["u"].dtype == ms.uint64
    np.testing.assert_array_equal(got["u"].asnumpy(), u)
    assert got["bf"].dtype == ms.bfloat16
    np.testing.assert_array_equal(got["bf"].astype(ms.float32).asnumpy(), [1.0, 3.0])
    assert got["e"].shape == (0, 4) and got["format"] == "pt"


def test_round_trip_into_a_network_and_async(tmp_path):
    net = nn.Dense(4, 3)
    path = str(tmp_path / "net.safetensors")
    ms.save_checkpoint(net, path, format="safetensors", async_save=True)
    other = nn.Dense(4, 3)
    ms.load_checkpoint(path, other, format="safetensors")
    np.testing.assert_array_equal(other.weight.asnumpy(), net.weight.asnumpy())
    assert not ms.async_ckpt_thread_status()
    with pytest.raises(ValueError, match="safetensors"):
        ms.save_checkpoint(net, path, format="safetensors", enc_key=b"0" * 16)
    with pytest.raises(ValueError, match="format"):
        ms.save_checkpoint(net, path, format="npz")
    with pytest.raises(ValueError, match="end with"):
        ms.load_checkpoint(path, format="ckpt")


def test_conversions_both_ways(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    nets = [nn.Dense(3, 2), nn.Dense(2, 5)]
    for i, n in enumerate(nets):
        ms.save_checkpoint(n, str(src / f"rank{i}.ckpt"), append_dict={"tag": f"r{i}"})
    ms.save_checkpoint(nn.Dense(1, 1), str(src / "other.ckpt"))
    out = ms.ckpt_to_safetensors(str(src), str(tmp_path / "st"), file_name_regex=r"^rank",
                                 name_map={"weight": "W"})
    assert sorted(os.path.basename(p) for p in out) == ["rank0.safetensors",
                                                        "rank1.safetensors"]
    back = ms.safetensors_to_ckpt(str(tmp_path / "st" / "rank1.safetensors"))
    got = ms.load_checkpoint(back[0])
    np.testing.assert_array_equal(got["W"].asnumpy(), nets[1].weight.asnumpy())
    np.testing.assert_array_equal(got["bias"].asnumpy(), nets[1].bias.asnumpy())
    assert got["tag"] == "r1"
    with pytest.raises(ValueError, match="ckpt_to_safetensors"):
        ms.ckpt_to_safetensors(str(tmp_path / "missing.ckpt"))


def test_check_checkpoint_and_async_load(tmp_path):
    net = nn.Dense(2, 2)
    ms.save_checkpoint(net, str(tmp_path / "a.ckpt"))
    ms.save_checkpoint(net, str(tmp_path / "a"), format="safetensors")
    assert ms.check_checkpoint(str(tmp_path / "a.ckpt"))
    assert ms.check_checkpoint(str(tmp_path / "a.safetensors"))
    data = bytearray((tmp_path / "a.ckpt").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (tmp_path / "bad.ckpt").write_bytes(bytes(data))
    assert not ms.check_checkpoint(str(tmp_path / "bad.ckpt"))
    assert not ms.check_checkpoint(str(tmp_path / "none.ckpt"))
    other = nn.Dense(2, 2)
    fut = ms.load_checkpoint_async(str(tmp_path / "a.ckpt"), other)
    params = fut.result(timeout=60)
    assert set(params) == {"weight", "bias"}
    np.testing.assert_array_equal(other.bias.asnumpy(), net.bias.asnumpy())
    with pytest.raises(ValueError):
        ms.load_checkpoint_async(str(tmp_path / "bad.ckpt")).result(timeout=60)


BAD = [
    (b"\x01\x00", "shorter"),
    (struct.pack("<Q", 10**9) + b"{}", "header length"),
    (struct.pack("<Q", 4) + b"\xff\xfe{}", "UTF-8 JSON"),
    (struct.pack("<Q", 2) + b"[]", "not a JSON object"),
]


@pytest.mark.parametrize("blob,why", BAD)
def test_malformed_headers_are_value_errors(tmp_path, blob, why):
    p = tmp_path / "bad.safetensors"
    p.write_bytes(blob)
    with pytest.raises(ValueError, match=why):
        ms.load_checkpoint(str(p), format="safetensors")


@pytest.mark.parametrize("entry,why", [
    ({"dtype": "F32", "shape": [2], "data_offsets": [0, 4]}, "needs 8 bytes"),
    ({"dtype": "C64", "shape": [1], "data_offsets": [0, 8]}, "does not read"),
    ({"dtype": "F32", "shape": [-1], "data_offsets": [0, 8]}, "non-negative"),
    ({"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}, "outside"),
    ({"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}, "tile"),
    ({"dtype": "F32", "shape": [1], "data_offsets": [0, 4], "x": 1}, "exactly"),
])
def test_bad_entries_are_value_errors(tmp_path, entry, why):
    text = json.dumps({"t": entry}).encode()
    p = tmp_path / "bad.safetensors"
    p.write_bytes(struct.pack("<Q", len(text)) + text + bytes(8))
    with pytest.raises(ValueError, match=why):
        ms.load_checkpoint(str(p), format="safetensors")


def test_seeded_mutations_give_values_or_value_errors(tmp_path):
    net = nn.Dense(3, 2)
    good = tmp_path / "g.safetensors"
    ms.save_checkpoint(net, str(good), format="safetensors", append_dict={"k": "v"})
    base = good.read_bytes()
    rng = np.random.default_rng(1234)
    p = tmp_path / "m.safetensors"
    outcomes = {"ok": 0, "error": 0}
    for _ in range(1500):
        data = bytearray(base)
        for _ in range(rng.integers(1, 4)):
            kind = rng.integers(0, 3)
            pos = int(rng.integers(0, len(data)))
            if kind == 0:
                data[pos] = int(rng.integers(0, 256))
            elif kind == 1:
                del data[pos:pos + int(rng.integers(1, 16))]
            else:
                data[pos:pos] = bytes(rng.integers(0, 256, int(rng.integers(1, 8)),
                                                   dtype=np.uint8))
        p.write_bytes(bytes(data))
        try:
            ms.load_checkpoint(str(p), format="safetensors")
            outcomes["ok"] += 1
        except ValueError:
            outcomes["error"] += 1
    assert outcomes["error"] > 0 and sum(outcomes.values()) == 1500
