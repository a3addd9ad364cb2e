"""Issue #16, classes 1, 8, 10 and the FIFO hang: size arithmetic that overflows, empty
sequences that crashed only in graph mode, messages that lost their detail, and readers that
blocked forever on a FIFO.

Everything that could crash or hang runs in a child process with a timeout, so a crash or a
hang is a test failure rather than a dead pytest.
"""
import json
import os
import sqlite3
import struct
import subprocess
import sys
import textwrap
import zlib

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.join(os.path.dirname(os.path.dirname(HERE)), "python")
sys.path.insert(0, HERE)
import sizes_cases  # noqa: E402  (the case table; its functions run in the child)

TIMEOUT = 120


def child(code_or_args, timeout=TIMEOUT, script=False):
    """Runs Python in a child process; returns (returncode, stdout, stderr)."""
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR + os.pathsep + os.environ.get("PYTHONPATH", ""))
    args = code_or_args if script else ["-c", textwrap.dedent(code_or_args)]
    p = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr


_RESULTS = {}


def results(mode):
    if mode not in _RESULTS:
        rc, out, err = child([os.path.join(HERE, "sizes_cases.py"), mode], script=True)
        assert rc == 0, f"the {mode} case run died (rc {rc}):\n{err[-3000:]}"
        _RESULTS[mode] = json.loads(out.strip().splitlines()[-1])
    return _RESULTS[mode]


# ---- class 1: shapes whose size does not fit in 64 bits, non-int dimensions ----------------

@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("name", sorted(sizes_cases.OVERFLOW))
def test_overflowing_or_non_int_shape_is_a_typed_error(mode, name):
    kind, msg = results(mode)[name]
    want = sizes_cases.OVERFLOW[name][1]
    assert kind == want, f"{name} in {mode}: expected {want}, got {kind}: {msg}"
    assert "Unable to cast" not in msg and "For '" in msg, msg
    if mode == "graph":  # errors found while compiling name the user's line
        assert "sizes_cases.py" in msg, msg


@pytest.mark.parametrize("name", sorted(sizes_cases.OVERFLOW))
def test_both_modes_give_the_same_error_type(name):
    assert results("pynative")[name][0] == results("graph")[name][0]


def test_overflow_messages_name_the_op():
    r = results("pynative")
    assert "For 'zeros'" in r["zeros_2p64"][1] and "int64" in r["zeros_2p64"][1]
    assert "For 'zeros'" in r["zeros_float_dim"][1] and "2.5" in r["zeros_float_dim"][1]
    assert "Tile" in r["tile_huge"][1]
    assert "Concat" in r["concat_huge"][1]
    assert "Reshape" in r["reshape_huge"][1] or "reshape" in r["reshape_huge"][1]
    assert "Fill" in r["zeros_2p62"][1] and "64 bits" in r["zeros_2p62"][1]


def test_an_int_past_int64_computed_in_graph_code_is_an_overflow_error(tmp_path):
    """Graph-mode ints are int64: 2**64 written inside a jit function is Python's
    OverflowError at that line (the PYNATIVE call of zeros with it is the ValueError above)."""
    src = tmp_path / "big.py"
    src.write_text(textwrap.dedent("""
        import mycel as ms
        from mycel import ops

        @ms.jit
        def f():
            return ops.zeros((2**64,))

        try:
            f()
        except OverflowError as e:
            print("OverflowError:", e)
    """))
    rc, out, err = child([str(src)], script=True)
    assert rc == 0, err
    assert "OverflowError: int ** int does not fit in a 64-bit integer" in out, out
    assert "big.py\", line 7" in out and "2**64" in out, out


def test_tensor_constructor_and_in_range_shapes():
    import mycel as ms
    from mycel import Tensor, ops
    with pytest.raises(ValueError, match="Tensor"):
        Tensor(shape=(2 ** 62,), dtype=ms.float32)
    with pytest.raises(ValueError, match="int64"):
        Tensor(shape=(2 ** 64,), dtype=ms.float32)
    with pytest.raises(TypeError, match="2.5"):
        Tensor(shape=(2.5,), dtype=ms.float32)
    # Shapes that fit still work, numpy integers included; a 0 anywhere makes an empty tensor.
    assert ops.zeros((np.int64(2), 3)).shape == (2, 3)
    assert ops.zeros(Tensor(np.array([2, 3], np.int32))).shape == (2, 3)
    assert ops.zeros((0, 2 ** 62)).shape == (0, 2 ** 62)
    assert ops.reshape(ops.zeros((0,)), (2 ** 40, 2 ** 40, 0)).shape == (2 ** 40, 2 ** 40, 0)
    np.testing.assert_array_equal(ops.tile(Tensor(np.arange(3)), (2,)).asnumpy(),
                                  np.tile(np.arange(3), 2))
    with pytest.raises(TypeError, match="integer dtype"):
        ops.zeros(Tensor(np.array([2.5], np.float32)))


def test_numpy_array_too_large_to_copy_is_a_clean_error():
    """numpy keeps every array's byte size within int64, so a conversion cannot overflow; an
    array too large to copy (a broadcast view of 2**62 bytes) is an error, not a crash."""
    rc, out, err = child("""
        import sys
        import numpy as np
        from mycel import Tensor
        big = np.broadcast_to(np.zeros(1, np.int8), (2 ** 62,))
        try:
            Tensor(big)
        except (MemoryError, RuntimeError, ValueError) as e:
            print(type(e).__name__, e)
            sys.exit(3)
        """)
    assert rc == 3, f"rc {rc}\n{out}\n{err[-2000:]}"


def test_sizes_that_fit_but_exceed_memory_are_runtime_errors():
    """2**61 bytes fits in int64 but not in any address space: the allocator's error, no
    crash (and no wrapped size class)."""
    rc, out, err = child("""
        import mycel as ms
        from mycel import ops
        for n in (2 ** 61, 2 ** 63 - 1):
            try:
                ops.zeros((n,), ms.int8)
            except RuntimeError as e:
                assert "out of memory" in str(e), e
                print("ok")
        """)
    assert rc == 0 and out.count("ok") == 2, f"rc {rc}\n{out}\n{err[-2000:]}"


def test_data_transforms_with_overflowing_output_sizes():
    """Sizes the user gives a transform (Pad, RandomCrop's padding, Resize, OneHot's classes)
    are checked before any table or buffer is made: a ValueError naming the transform (the
    unchecked OneHot had a 1-byte buffer for 2**65 bytes)."""
    rc, out, err = child("""
        import numpy as np
        import mycel.dataset.vision as vision
        import mycel.dataset.transforms as T
        img = np.zeros((4, 4, 3), np.uint8)
        M = 2 ** 31 - 1
        cases = {"Resize": lambda: vision.Resize((M, M))(img),
                 "OneHot": lambda: T.OneHot(2 ** 62)(np.array([1])),
                 "Pad": lambda: vision.Pad(M)(img),
                 "RandomCrop": lambda: vision.RandomCrop((M, M), pad_if_needed=True)(img)}
        for name, f in cases.items():
            try:
                f()
            except ValueError as e:
                assert f"For '{name}'" in str(e) and "64 bits" in str(e), e
                print("ok", name)
        """)
    assert rc == 0 and out.count("ok") == 4, f"rc {rc}\n{out}\n{err[-2000:]}"


def test_padded_batch_pad_shape_overflow_is_value_error():
    """pad_info shapes are the user's: the batch's size is checked before it is allocated (a
    wrapped size was a small buffer that the rows then overran)."""
    rc, out, err = child("""
        import numpy as np
        import mycel.dataset as ds
        d = ds.NumpySlicesDataset({"a": np.ones((4, 2, 3), np.float32)}, shuffle=False)
        for shape, kind in (([2 ** 40, 2 ** 40], ValueError), ([2 ** 64], ValueError),
                            ([2.5], TypeError)):
            try:
                list(d.padded_batch(2, pad_info={"a": (shape, 0.0)}).create_tuple_iterator())
            except kind as e:
                assert "padded_batch" in str(e), e
                print("ok", type(e).__name__, e)
            else:
                raise AssertionError(f"no error for {shape}")
        """)
    assert rc == 0 and out.count("ok") == 3, f"rc {rc}\n{out}\n{err[-2000:]}"


# ---- class 8: empty sequences ------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(sizes_cases.EMPTY))
def test_empty_sequence_same_value_error_in_both_modes(name):
    pn, gr = results("pynative")[name], results("graph")[name]
    assert pn[0] == gr[0] == "ValueError", (pn, gr)
    assert "must not be empty" in pn[1] and "must not be empty" in gr[1], (pn, gr)
    assert "sizes_cases.py" in gr[1], gr


# ---- MindRecord files with bad headers or records (written by hand) ----------------------

def rewrite_mindrecord(path, fix_json=None, fix_record=None):
    """Rewrites a MindRecord shard (docs/mindrecord-format.md) with its JSON header and/or its
    pages changed (fix_record maps a page's bytes to as many bytes), and drops mycel's
    checksum tables from its index: the reader sees a file in MindSpore's layout, with no
    checksum to fail, and must reject what it says."""
    with open(path, "rb") as f:
        b = bytearray(f.read())
    n = struct.unpack_from("<Q", b, 0)[0]
    js = bytes(b[8:8 + n])
    h = json.loads(js)
    if fix_record:
        for page in h["page"]:
            start = h["header_size"] + page["page_id"] * h["page_size"]
            body = bytes(b[start:start + page["page_size"]])
            new = fix_record(body)
            assert len(new) == len(body)
            b[start:start + len(body)] = new
    if fix_json:
        js = fix_json(js)
        assert 8 + len(js) <= h["header_size"]
        b[0:h["header_size"]] = (struct.pack("<Q", len(js)) + js).ljust(h["header_size"], b"\0")
    with open(path, "wb") as f:
        f.write(bytes(b))
    con = sqlite3.connect(path + ".db")
    con.execute("DROP TABLE MYCEL_SET")
    con.execute("DROP TABLE MYCEL_CRC")
    con.commit()
    con.close()


def write_set(path, schema, rows):
    from mycel.mindrecord import FileWriter
    w = FileWriter(path, 1)
    w.set_header_size(1 << 14)
    w.set_page_size(1 << 15)
    w.add_schema(schema, "t")
    w.write_raw_data(rows)
    w.commit()


READERS = {
    "FileReader": "from mycel.mindrecord import FileReader\n"
                  "r = FileReader(P)\n"
                  "rows = list(r.get_next())\n",
    "MindDataset": "import mycel.dataset as ds\n"
                   "rows = list(ds.MindDataset(P, shuffle=False).create_tuple_iterator("
                   "output_numpy=True))\n",
}


def read_in_child(path, reader):
    code = f"P = {path!r}\n" + READERS[reader] + textwrap.dedent("""
        """)
    code = ("import sys\ntry:\n" + textwrap.indent(code, "    ") +
            "\nexcept Exception as e:\n    print(type(e).__name__ + ': ' + str(e))\n"
            "    sys.exit(3)\nprint('ok')\n")
    return child(code)


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("shape", ["[4611686018427387904, 4]", "[-1, 4611686018427387904, 4]",
                                   "[4294967296, 4294967296]", "[2305843009213693952]"])
def test_mindrecord_header_shape_overflow_is_value_error(tmp_path, reader, shape):
    path = str(tmp_path / "bad.mindrecord")
    write_set(path, {"x": {"type": "float32", "shape": [2, 2]}},
              [{"x": np.ones((2, 2), np.float32)}])
    rewrite_mindrecord(path, fix_json=lambda js: js.replace(b"[2,2]", shape.encode()))
    rc, out, err = read_in_child(path, reader)
    assert rc == 3, f"rc {rc}\n{out}\n{err[-2000:]}"
    assert out.startswith("ValueError") and path in out and "64 bits" in out, out


def test_mindrecord_writer_rejects_overflowing_schema(tmp_path):
    from mycel.mindrecord import FileWriter
    for shape, kind in [([2 ** 62, 4, -1], ValueError), ([2 ** 32, 2 ** 32], ValueError),
                        ([2 ** 64], ValueError), ([2.5], TypeError)]:
        w = FileWriter(str(tmp_path / f"w{len(shape)}{kind.__name__}.mindrecord"), 1)
        with pytest.raises(kind, match="FileWriter"):
            w.add_schema({"x": {"type": "float32", "shape": shape}}, "t")


@pytest.mark.parametrize("reader", sorted(READERS))
def test_mindrecord_non_utf8_string_is_value_error_naming_file(tmp_path, reader):
    path = str(tmp_path / "str.mindrecord")
    write_set(path, {"s": {"type": "string"}}, [{"s": "abcd"}, {"s": "efgh"}])
    rewrite_mindrecord(path, fix_record=lambda r: r.replace(b"efgh", b"ef\xffh"))
    rc, out, err = read_in_child(path, reader)
    assert rc == 3, f"rc {rc}\n{out}\n{err[-2000:]}"
    assert out.startswith("ValueError") and path in out and "UTF-8" in out and "'s'" in out, out


# ---- class 10: messages keep their detail ------------------------------------------------

def test_mindir_non_utf8_op_name_keeps_its_message(tmp_path):
    import mycel as ms
    from mycel import nn, Tensor

    class Net(nn.Cell):
        def construct(self, x):
            return ms.ops.relu(x)

    path = str(tmp_path / "net")
    ms.export(Net(), Tensor(np.ones((2,), np.float32)), file_name=path, file_format="MINDIR")
    path += ".mindir"
    with open(path, "rb") as f:
        b = f.read()
    assert b.count(b"ReLU") >= 1
    body = b[:-6].replace(b"ReLU", b"Re\xffU")
    crc = zlib.crc32(body)
    b = body + b[-6:-4] + struct.pack("<I", crc)
    with open(path, "wb") as f:
        f.write(b)
    with pytest.raises(ValueError) as e:
        ms.load(path)
    msg = str(e.value)
    assert "op_type is not valid UTF-8" in msg and path in msg, msg


# ---- the FIFO hang: every file reader refuses non-regular files --------------------------

FIFO_READERS = {
    "MindDataset": "import mycel.dataset as ds\nds.MindDataset(P)\n",
    "FileReader": "from mycel.mindrecord import FileReader\nFileReader(P)\n",
    "load": "import mycel as ms\nms.load(P)\n",
    "TextFileDataset": "import mycel.dataset as ds\n"
                       "list(ds.TextFileDataset(P).create_tuple_iterator(output_numpy=True))\n",
    "CSVDataset": "import mycel.dataset as ds\n"
                  "list(ds.CSVDataset(P, column_names=['a']).create_tuple_iterator("
                  "output_numpy=True))\n",
}


@pytest.mark.parametrize("kind", ["fifo", "dir"])
@pytest.mark.parametrize("reader", sorted(FIFO_READERS))
def test_readers_refuse_non_regular_files(tmp_path, reader, kind):
    path = str(tmp_path / ("x.mindrecord" if reader != "load" else "x.mindir"))
    if kind == "fifo":
        os.mkfifo(path)
    else:
        os.mkdir(path)
    code = (f"P = {path!r}\nimport sys\ntry:\n" + textwrap.indent(FIFO_READERS[reader], "    ") +
            "except Exception as e:\n    print(type(e).__name__ + ': ' + str(e))\n"
            "    sys.exit(3)\nprint('ok')\n")
    try:
        rc, out, err = child(code, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{reader} blocked on a {kind}")
    assert rc == 3, f"rc {rc}\n{out}\n{err[-2000:]}"
    assert path in out and ("regular file" in out or "directory" in out), out
    assert out.split(":")[0] in ("ValueError", "RuntimeError"), out


def test_image_folder_skips_fifos(tmp_path):
    """A FIFO among an ImageFolderDataset's images is not an image: it is skipped, never
    opened (opening it would block)."""
    cls = tmp_path / "imgs" / "cat"
    cls.mkdir(parents=True)
    (cls / "a.jpg").write_bytes(b"not really a jpeg")
    os.mkfifo(str(cls / "b.jpg"))
    code = (f"import mycel.dataset as ds\n"
            f"d = ds.ImageFolderDataset({str(tmp_path / 'imgs')!r}, decode=False, shuffle=False)\n"
            "rows = list(d.create_tuple_iterator(output_numpy=True))\n"
            "print(len(rows), bytes(rows[0][0]))\n")
    try:
        rc, out, err = child(code, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("ImageFolderDataset blocked on a FIFO")
    assert rc == 0 and out.strip() == "1 b'not really a jpeg'", f"rc {rc}\n{out}\n{err[-2000:]}"


def test_image_sources_refuse_fifos(tmp_path):
    """MnistDataset looks its files up by name and takes only regular ones: FIFOs under those
    names are an error, not a hang."""
    mnist = tmp_path / "mnist"
    mnist.mkdir()
    for name in ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"):
        os.mkfifo(str(mnist / name))
    code = (f"import sys\nimport mycel.dataset as ds\ntry:\n"
            f"    list(ds.MnistDataset({str(mnist)!r}).create_tuple_iterator())\n"
            "except Exception as e:\n    print(type(e).__name__ + ': ' + str(e))\n"
            "    sys.exit(3)\nprint('ok')\n")
    try:
        rc, out, err = child(code, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("MnistDataset blocked on a FIFO")
    assert rc == 3 and out.split(":")[0] in ("ValueError", "RuntimeError"), \
        f"rc {rc}\n{out}\n{err[-2000:]}"
