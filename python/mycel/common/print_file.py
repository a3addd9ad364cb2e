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


def _decode(f, name):
    tag = _read(f, 1, name)
    if tag == b"S":
        (n,) = struct.unpack("<I", _read(f, 4, name))
        try:
            return _read(f, n, name).decode("utf-8")
        except UnicodeDecodeError:
            _fail(name, "a string is not UTF-8")
    if tag not in (b"T", b"B"):
        _fail(name, f"unknown value tag {tag!r}")
    try:
        arr = np.lib.format.read_array(f, allow_pickle=False)
    except (ValueError, OSError, EOFError) as e:
        _fail(name, f"a tensor block is unreadable ({e})")
    if arr.dtype.kind not in "biufc":
        _fail(name, f"a tensor has dtype {arr.dtype}")
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
                out.append(_decode(f, print_file_name))
    return out
