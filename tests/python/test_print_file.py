"""ops.Print with set_context(print_file_path=...) and mycel.parse_print
(common/print_file.py): the values come back as they were printed, in order, in both
modes; a bad file is a ValueError; a missing folder of the path is made. Also the context's
enable_ge option (always False)."""
import numpy as np
import pytest

import mycel as ms
from mycel import nn, ops


class _PrintNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.print = ops.Print()

    def construct(self, x, y):
        self.print("x:", x, "y:", y)
        self.print((x * 2, 3), 2.5, True)
        return x


@pytest.fixture(name="print_path")
def _print_path(tmp_path):
    path = str(tmp_path / "print.data")
    yield path
    ms.set_context(print_file_path=None, mode=ms.PYNATIVE_MODE)


def _inputs():
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    y = ms.Tensor(np.array([1, -2], np.int32))
    return x, y


def _check(values, x, y):
    assert len(values) == 8
    assert values[0] == "x:" and values[2] == "y:"
    assert values[1].dtype == ms.float32 and np.array_equal(values[1].asnumpy(), x.asnumpy())
    assert values[3].dtype == ms.int32 and np.array_equal(values[3].asnumpy(), y.asnumpy())
    assert np.array_equal(values[4].asnumpy(), x.asnumpy() * 2)
    assert values[5].dtype == ms.int64 and int(values[5].asnumpy()) == 3
    assert values[6].dtype == ms.float32 and float(values[6].asnumpy()) == 2.5
    assert values[7].dtype == ms.bool_ and bool(values[7].asnumpy())


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_print_file_round_trip(print_path, mode, capsys):
    x, y = _inputs()
    ms.set_context(mode=mode, print_file_path=print_path)
    net = _PrintNet()
    net(x, y)
    net(x + 1, y)
    assert capsys.readouterr().out == ""  # nothing on the screen
    values = ms.parse_print(print_path)
    assert len(values) == 16
    _check(values[:8], x, y)
    _check(values[8:], x + 1, y)


def test_both_modes_write_the_same_values(print_path, tmp_path):
    x, y = _inputs()
    files = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        path = str(tmp_path / f"print{mode}.data")
        ms.set_context(mode=mode, print_file_path=path)
        _PrintNet()(x, y)
        files.append(ms.parse_print(path))
    ms.set_context(print_file_path=print_path)
    for a, b in zip(*files):
        if isinstance(a, str):
            assert a == b
        else:
            assert a.dtype == b.dtype and np.array_equal(a.asnumpy(), b.asnumpy())


def test_bfloat16_and_unset_path_prints_to_the_screen(print_path, capsys):
    ms.set_context(print_file_path=print_path)
    t = ms.Tensor(np.array([1.5, -2.0], np.float32)).astype(ms.bfloat16)
    ops.Print()(t)
    (got,) = ms.parse_print(print_path)
    assert got.dtype == ms.bfloat16 and np.array_equal(got.asnumpy(), [1.5, -2.0])
    ms.set_context(print_file_path=None)
    ops.Print()("on screen")
    assert "on screen" in capsys.readouterr().out
    assert len(ms.parse_print(print_path)) == 1  # the file did not grow


def test_bad_files_and_settings(tmp_path):
    with pytest.raises(ValueError, match="parse_print.*does not exist"):
        ms.parse_print(str(tmp_path / "missing"))
    with pytest.raises(TypeError, match="parse_print"):
        ms.parse_print(3)
    bad = tmp_path / "bad"
    bad.write_bytes(b"not a print file")
    with pytest.raises(ValueError, match="parse_print.*magic"):
        ms.parse_print(str(bad))
    good = tmp_path / "good"
    ms.set_context(print_file_path=str(good))
    try:
        ops.Print()(ms.Tensor(np.ones((3, 3), np.float64)), "s")
    finally:
        ms.set_context(print_file_path=None)
    data = good.read_bytes()
    for cut in (len(data) - 1, len(data) - 3, 14, 20, 40):
        (tmp_path / "cut").write_bytes(data[:cut])
        with pytest.raises(ValueError, match="parse_print"):
            ms.parse_print(str(tmp_path / "cut"))
    # a missing folder is made (as MindSpore's print writer makes it); one that cannot be
    # made (under a file) is a ValueError
    try:
        ms.set_context(print_file_path=str(tmp_path / "new" / "dir" / "file"))
        assert (tmp_path / "new" / "dir").is_dir()
    finally:
        ms.set_context(print_file_path=None)
    with pytest.raises(ValueError, match="print_file_path.*cannot be made"):
        ms.set_context(print_file_path=str(tmp_path / "cut" / "file"))
    with pytest.raises(ValueError, match="print_file_path.*folder"):
        ms.set_context(print_file_path=str(tmp_path))
    with pytest.raises(TypeError, match="print_file_path"):
        ms.set_context(print_file_path=3)


def test_enable_ge_reads_false_and_cannot_be_set():
    # MindSpore's enable_ge option (Ascend's Graph Engine): mycel has none
    assert ms.get_context("enable_ge") is False
    ms.set_context(enable_ge=False)
    with pytest.raises(ValueError, match="enable_ge must be False"):
        ms.set_context(enable_ge=True)
    assert ms.get_context("enable_ge") is False


def _record_with_block(header, data=b""):
    """A print file of one record holding one tensor block with the given .npy header."""
    import io
    import struct
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, header)
    return b"MYCELPRINT1\n" + struct.pack("<I", 1) + b"T" + buf.getvalue() + data


def test_a_block_longer_than_the_file_is_refused_before_allocation(tmp_path):
    # A 100-byte file declaring 2**40 float32 values made numpy allocate 4 TiB (MemoryError;
    # found by test_fuzz_python_readers.py::test_print_file). The header is now checked
    # against the bytes left in the file.
    path = tmp_path / "p"
    for shape in [(1 << 40,), (1 << 32, 1 << 32, 4), (3, -1), (2, 2)]:
        path.write_bytes(_record_with_block(
            {"descr": "<f4", "fortran_order": False, "shape": shape}, b"\0" * 12))
        with pytest.raises(ValueError, match="parse_print.*(longer than the rest|shape)"):
            ms.parse_print(str(path))
    path.write_bytes(_record_with_block(
        {"descr": "<f4", "fortran_order": False, "shape": (0, 1 << 62, 1 << 62)}))
    with pytest.raises(ValueError, match="parse_print.*cannot be made"):
        ms.parse_print(str(path))


@pytest.mark.parametrize("descr", ["<f16", "<U2", "|V4"])
def test_a_block_of_a_dtype_tensors_do_not_hold_is_refused(tmp_path, descr):
    path = tmp_path / "p"
    path.write_bytes(_record_with_block(
        {"descr": descr, "fortran_order": False, "shape": (1,)}, b"\0" * 16))
    with pytest.raises(ValueError, match="parse_print.*dtype"):
        ms.parse_print(str(path))


def test_blocks_in_the_other_byte_order_and_fortran_order_keep_their_values(tmp_path):
    want = np.arange(6, dtype=">f4").reshape(2, 3)
    path = tmp_path / "p"
    path.write_bytes(_record_with_block({"descr": ">f4", "fortran_order": False,
                                         "shape": (2, 3)}, want.tobytes()) +
                     _record_with_block({"descr": "<i8", "fortran_order": True,
                                         "shape": (2, 3)}, np.arange(6).tobytes())[12:])
    a, b = ms.parse_print(str(path))
    assert a.dtype == ms.float32 and np.array_equal(a.asnumpy(), want)
    assert np.array_equal(b.asnumpy(), np.arange(6).reshape(2, 3, order="F"))
