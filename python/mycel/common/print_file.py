"""The print file: what ``ops.Print`` writes when ``set_context(print_file_path=...)`` is set,
and ``mycel.parse_print``, which reads it back (MindSpore's pair; mycel's file format is its
own, MindSpore's protobuf print files are not read).

Format: the magic line ``MYCELPRINT1\\n`` once, then one record per Print call: a uint32
(little-endian) count of values, then each value as a tag byte and its data: ``T`` a tensor as
a numpy ``.npy`` block (numpy.lib.format), ``B`` a bfloat16 tensor (its values as a float32
``.npy`` block), ``S`` a string (uint32 byte count, UTF-8). Numbers are written as 0-d
tensors (bool, int64 or float32, MindSpore's dtypes for Python scalars); tuples and lists of
values as their items. Each Print call appends its record, in program order in GRAPH mode
too (the writer runs as a host effect each time the step reaches it).
"""
import io
import os
import struct
import warnings

import numpy as np

from mycel import _mycel as _C

__all__ = ["parse_print"]

MAGIC = b"MYCELPRINT1\n"


def _values(items):
    for v in items:
        if isinstance(v, (tuple, list)):
            yield from _values(v)
        else:
            yield v


def _encode(value):
    if isinstance(value, str):
        data = value.encode("utf-8")
        return b"S" + struct.pack("<I", len(data)) + data
    tag = b"T"
    if isinstance(value, _C.Tensor):
        tag = b"B" if value.dtype == _C.bfloat16 else b"T"
        arr = value.asnumpy()
    elif isinstance(value, (bool, np.bool_)):
        arr = np.array(value, np.bool_)
    elif isinstance(value, (int, np.integer)):
        arr = np.array(value, np.int64)
    elif isinstance(value, (float, np.floating)):
        arr = np.array(value, np.float32)
    else:
        return _encode(str(value))
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.ascontiguousarray(arr), allow_pickle=False)
    return tag + buf.getvalue()


def write_print_record(path, values):
    """Appends one Print call's values to the print file at path (made with its magic line
    when new or empty)."""
    items = list(_values(values))
    body = struct.pack("<I", len(items)) + b"".join(_encode(v) for v in items)
    with open(path, "ab") as f:
        if f.tell() == 0:
            f.write(MAGIC)
        f.write(body)


class _PrintWriter:
    """Print's file writer: an object (not a function), so GRAPH mode calls it in the
    interpreter each time the step runs; ``__mycel_host_effect__`` tells the compiler
    (compiler/specialize_host.cc). Reads print_file_path when it runs: printed to the screen
    when the path has been unset since."""

    __mycel_host_effect__ = True

    def __call__(self, *values):
        from mycel.context import get_context
        path = get_context("print_file_path")
        if path:
            write_print_record(path, values)
        else:
            print(*values)


print_writer = _PrintWriter()


def _fail(name, why):
    raise ValueError(f"For 'parse_print', the file '{name}' is not a print file: {why}.")


def _read(f, n, name):
    data = f.read(n)
    if len(data) != n:
        _fail(name, "it ends inside a record")
    return data


# The dtypes a tensor block may hold (Tensor's numpy dtypes; "B" blocks hold float32 only).
_BLOCK_DTYPES = {"b1", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "c8",
                 "c16"}


def _read_header(fmt, f):
    """(shape, fortran_order, dtype) of the .npy header at f."""
    version = fmt.read_magic(f)
    if version == (1, 0):
        return fmt.read_array_header_1_0(f)
    if version == (2, 0):
        return fmt.read_array_header_2_0(f)
    raise ValueError(f"npy version {version} is not 1.0 or 2.0")


def _read_block(f, name, left):
    """A tensor block (a numpy .npy block) of at most `left` bytes. Its header is read and
    checked first: the data it declares must be in the file before anything is allocated (a
    header claiming 2**40 elements made numpy allocate 4 TiB)."""
    fmt = np.lib.format
    start = f.tell()
    try:
        with warnings.catch_warnings():  # numpy's FutureWarning for a dtype such as '1f4'
            warnings.simplefilter("ignore", FutureWarning)
            shape, fortran, dtype = _read_header(fmt, f)
    except Exception as e:  # noqa: BLE001 - numpy's header parser: ValueError, TokenError, ...
        _fail(name, f"a tensor block's header is unreadable ({type(e).__name__}: {e})")
    if dtype.hasobject or f"{dtype.kind}{dtype.itemsize}" not in _BLOCK_DTYPES:
        _fail(name, f"a tensor has dtype {dtype}")
    if any(n < 0 for n in shape):
        _fail(name, f"a tensor has shape {shape}")
    nbytes = dtype.itemsize
    for n in shape:  # Python ints: no overflow; checked against the bytes that are left
        nbytes *= n
    if nbytes > left - (f.tell() - start):
        _fail(name, f"a tensor of shape {shape} and dtype {dtype} is longer than the rest of "
                    "the file")
    arr = np.frombuffer(_read(f, nbytes, name), dtype)
    try:
        return arr.reshape(shape, order="F" if fortran else "C")
    except ValueError as e:  # an empty tensor of a shape numpy cannot make: (0, 2**62, 2**62)
        _fail(name, f"a tensor of shape {shape} cannot be made ({e})")


def _decode(f, name, size):
    tag = _read(f, 1, name)
    if tag == b"S":
        (n,) = struct.unpack("<I", _read(f, 4, name))
        try:
            return _read(f, n, name).decode("utf-8")
        except UnicodeDecodeError:
            _fail(name, "a string is not UTF-8")
    if tag not in (b"T", b"B"):
        _fail(name, f"unknown value tag {tag!r}")
    arr = _read_block(f, name, size - f.tell())
    if tag == b"B" and arr.dtype != np.float32:
        _fail(name, f"a bfloat16 tensor is stored as {arr.dtype}, not float32")
    t = _C.Tensor(np.ascontiguousarray(arr))
    return t.astype(_C.bfloat16) if tag == b"B" else t


def parse_print(print_file_name):
    """The values Print wrote to print_file_name (set_context(print_file_path=...)), in
    order, every call's values one after another: Tensors (numbers as 0-d Tensors) and
    strings. A ValueError for a missing file or one that is not a print file."""
    if not isinstance(print_file_name, str):
        raise TypeError(f"For 'parse_print', the print_file_name must be a str, but got "
                        f"{type(print_file_name).__name__}.")
    name = os.path.realpath(print_file_name)
    if not os.path.isfile(name):
        raise ValueError(f"For 'parse_print', the file '{print_file_name}' does not exist.")
    out = []
    size = os.path.getsize(name)
    with open(name, "rb") as f:
        if f.read(len(MAGIC)) != MAGIC:
            _fail(print_file_name, "it does not start with the print file's magic line")
        while True:
            head = f.read(4)
            if not head:
                break
            if len(head) != 4:
                _fail(print_file_name, "it ends inside a record")
            (count,) = struct.unpack("<I", head)
            for _ in range(count):
                out.append(_decode(f, print_file_name, size))
    return out
