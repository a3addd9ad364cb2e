"""The C++ checkpoint reader (src/serialize/checkpoint.cc) on hostile input: files that are
not regular files, sizes that overflow or do not match, nested lengths past the end, and the
fuzz corpus (fuzz/corpus/checkpoint: seeds and regression inputs of fixed findings). Every
case is a ValueError naming the file, never a crash, a hang or a huge allocation."""
import os
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import mycel as ms
from test_checkpoint import pb_bytes, pb_value, pb_varint, with_mycel_frame, write

CORPUS = os.path.join(os.path.dirname(__file__), "..", "..", "fuzz", "corpus", "checkpoint")


def test_directory_is_named_as_such(tmp_path):
    d = tmp_path / "dir.ckpt"
    d.mkdir()
    with pytest.raises(ValueError, match=r"checkpoint file .*dir\.ckpt is a directory"):
        ms.load_checkpoint(str(d))


def test_missing_file(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        ms.load_checkpoint(str(tmp_path / "nope" / "x.ckpt"))


def test_fifo_is_refused_without_blocking(tmp_path):
    """open() of a FIFO without a writer blocks forever; the reader must refuse it at once.
    Run in a child process with a timeout, so that a hang fails the test."""
    fifo = str(tmp_path / "pipe.ckpt")
    os.mkfifo(fifo)
    code = textwrap.dedent(f"""
        import mycel as ms
        try:
            ms.load_checkpoint({fifo!r})
        except ValueError as e:
            print("ValueError:", e)
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    assert "ValueError:" in out.stdout and "not a regular file" in out.stdout, out.stdout
    assert fifo in out.stdout


def test_device_with_ckpt_name_is_refused(tmp_path):
    link = tmp_path / "zero.ckpt"
    os.symlink("/dev/zero", link)  # an endless device: reading it would never end
    with pytest.raises(ValueError, match="not a regular file"):
        ms.load_checkpoint(str(link))


@pytest.mark.parametrize("dims,kind,content,match", [
    # the product of the dims overflows int64 (and would wrap to a small number)
    ([1 << 32, 1 << 32, 4], "Float32", bytes(16), "does not fit in 64 bits"),
    ([1 << 62, 2], "Int8", bytes(0), "does not fit in 64 bits"),
    ([(1 << 63) - 1], "Float64", bytes(8), "does not fit in 64 bits"),
    # a plausible but huge size, with few bytes: nothing is allocated for it
    ([1 << 40], "Float32", bytes(8), r"has 8 bytes of content, but dims \[1099511627776\]"),
    # a negative dim (int64 -1 on the wire)
    ([(1 << 64) - 1], "Float32", bytes(4), "negative dim"),
    # bytes that are not dtype * numel
    ([3], "Int16", bytes(5), r"5 bytes of content, but dims \[3\] of Int16 need 6"),
])
@pytest.mark.parametrize("framed", [False, True], ids=["foreign", "mycel"])
def test_hostile_sizes(tmp_path, dims, kind, content, match, framed):
    path = str(tmp_path / "h.ckpt")
    values = [pb_value("w", dims, kind, content)]
    write(path, with_mycel_frame(values) if framed else b"".join(values))
    with pytest.raises(ValueError, match=match) as info:
        ms.load_checkpoint(path)
    assert path in str(info.value)


@pytest.mark.parametrize("data,match", [
    # a nested length past the end of its (valid) parent message
    (pb_bytes(1, pb_varint(1 << 3 | 2) + pb_varint(1000) + b"w"), "truncated: field 1 of entry 0"),
    # a length near 2^64: must not wrap around the end pointer
    (pb_varint(1 << 3 | 2) + pb_varint((1 << 64) - 1), "truncated: field 1 of the checkpoint"),
    # a varint with bits beyond 64
    (pb_varint(1 << 3 | 0) + b"\xff" * 9 + b"\x7f", "longer than 64 bits"),
    (pb_varint(1 << 3 | 0) + b"\xff" * 11, "longer than 64 bits"),
    (b"\x00\x01", "field number 0"),
])
def test_malformed_wire(tmp_path, data, match):
    path = str(tmp_path / "w.ckpt")
    write(path, data)
    with pytest.raises(ValueError, match=match):
        ms.load_checkpoint(path)


def test_bool_content_normalised_and_utf32_checked(tmp_path):
    path = str(tmp_path / "b.ckpt")
    write(path, with_mycel_frame([pb_value("b", [3], "Bool", b"\x00\x02\xff")]))
    np.testing.assert_array_equal(ms.load_checkpoint(path)["b"].asnumpy(), [False, True, True])
    write(path, with_mycel_frame([pb_value("s", [0], "str", struct.pack("<I", 0xD800))]))
    with pytest.raises(ValueError, match="not valid UTF-32"):
        ms.load_checkpoint(path)
    write(path, with_mycel_frame([pb_value("s", [0], "str", "aé😀\0\0".encode("utf-32-le"))]))
    assert ms.load_checkpoint(path)["s"] == "aé😀"


def test_fuzz_corpus_loads_or_fails_cleanly(tmp_path):
    """Every seed, edge case and regression input of the fuzz target: a dict or a ValueError."""
    names = sorted(os.listdir(CORPUS))
    assert sum(n.endswith(".ckpt") for n in names) >= 4
    path = str(tmp_path / "c.ckpt")
    loaded = 0
    for name in names:
        with open(os.path.join(CORPUS, name), "rb") as f:
            write(path, f.read())
        try:
            loaded += bool(ms.load_checkpoint(path))
        except ValueError as e:
            assert path in str(e)
    assert loaded >= 4
