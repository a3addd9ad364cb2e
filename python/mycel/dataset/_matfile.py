"""A reader of the numeric arrays of MATLAB's level 5 MAT-files (the .mat annotation and label
files of Caltech101 and Flowers102), so that mycel needs no SciPy at run time.

The format (MathWorks, "MAT-File Format", level 5): a 128-byte header (text, subsystem offset,
version 0x0100, endian indicator "IM" for little-endian files, "MI" for big-endian), then data
elements, each a tag (type, byte count; or a small element: both in 4 bytes, data in the next
4) and its data padded to 8 bytes. A matrix element (miMATRIX) holds the array flags (class),
the dimensions, the name and the real part (stored in any numeric type: MATLAB saves a double
array of small integers as uint8, and the array is returned in the stored type, as SciPy's
loadmat does by default); miCOMPRESSED wraps a zlib-deflated element. Arrays are stored
column-major.

Real numeric arrays (double, single, the integer classes, logical as uint8), cells (object
arrays), structs (object arrays of {field: value} dicts) and sparse matrices (as dense arrays)
are read; characters, objects and complex arrays are skipped. Malformed data is a RuntimeError
naming the file.
"""
import math
import struct
import zlib

import numpy as np

_MI_TYPES = {1: "i1", 2: "u1", 3: "i2", 4: "u2", 5: "i4", 6: "u4", 7: "f4", 9: "f8",
             12: "i8", 13: "u8"}
_MI_MATRIX, _MI_COMPRESSED = 14, 15
_MX_CLASSES = {6: "f8", 7: "f4", 8: "i1", 9: "u1", 10: "i2", 11: "u2", 12: "i4", 13: "u4",
               14: "i8", 15: "u8"}
_MAX_BYTES = 1 << 30  # a larger element is a corrupt count, not an allocation to attempt


class _Reader:
    def __init__(self, data, endian, where):
        self.data, self.pos, self.endian, self.where = data, 0, endian, where

    def fail(self, what):
        raise RuntimeError(f"loadmat: {self.where} is not a valid MAT-file (level 5): {what}.")

    def tag(self):
        """(type, data bytes) of the next element; the position moves to its data."""
        if self.pos + 8 > len(self.data):
            self.fail(f"truncated element tag at byte {self.pos}")
        first, second = struct.unpack_from(self.endian + "II", self.data, self.pos)
        if first >> 16:  # a small element: type and size share the first word
            typ, size = first & 0xFFFF, first >> 16
            if size > 4:
                self.fail(f"a small element of {size} bytes at byte {self.pos}")
            body = self.data[self.pos + 4:self.pos + 4 + size]
            self.pos += 8
            return typ, body
        typ, size = first, second
        if size > _MAX_BYTES or self.pos + 8 + size > len(self.data):
            self.fail(f"an element of {size} bytes at byte {self.pos} runs past the end")
        body = self.data[self.pos + 8:self.pos + 8 + size]
        self.pos += 8 + ((size + 7) // 8) * 8 if typ != _MI_COMPRESSED else 8 + size
        return typ, body

    def numbers(self):
        typ, body = self.tag()
        if typ not in _MI_TYPES:
            self.fail(f"a numeric element of unknown type {typ}")
        dtype = np.dtype(_MI_TYPES[typ]).newbyteorder(self.endian)
        if len(body) % dtype.itemsize:
            self.fail(f"{len(body)} bytes of {dtype.name} values")
        return np.frombuffer(body, dtype)


_MX_CELL, _MX_STRUCT, _MX_SPARSE = 1, 2, 5
_MAX_DEPTH = 16  # nested cells and structs deeper than this are a corrupt file


def _matrix(body, endian, where, depth=0):
    """(name, value) of an miMATRIX element's body: a numeric array, a cell (an object array
    of values), a struct (an object array of {field: value} dicts) or a sparse matrix (as a
    dense array); value None for a kind not read (characters, objects, complex numbers)."""
    r = _Reader(body, endian, where)
    if not body:  # an empty element: MATLAB's [] inside a cell or struct
        return "", np.zeros((0, 0))
    if depth > _MAX_DEPTH:
        r.fail(f"cells or structs nested deeper than {_MAX_DEPTH}")
    flags = r.numbers()
    if flags.size < 2:
        r.fail("array flags of fewer than 2 words")
    mx_class, complex_ = int(flags[0]) & 0xFF, bool(int(flags[0]) & 0x0800)
    dims = [int(d) for d in r.numbers()]
    if any(d < 0 for d in dims) or not 2 <= len(dims) <= 32 or \
            math.prod(d for d in dims if d) > _MAX_BYTES:  # more than numpy can shape
        r.fail(f"bad dimensions {dims}")
    _, name = r.tag()
    name = bytes(name).decode("latin-1")
    count = math.prod(dims)  # exact: numpy's product of int64 wraps around
    if complex_:
        return name, None
    if mx_class == _MX_CELL:
        items = [_element(r, endian, where, depth) for _ in range(count)]
        return name, _object_array(items, dims)
    if mx_class == _MX_STRUCT:
        length = r.numbers()
        if length.size != 1:
            r.fail(f"{name}: a struct's field name length of {length.size} values")
        length = int(length[0])
        raw = bytes(r.tag()[1])
        if length <= 0 or len(raw) % length:
            r.fail(f"{name}: struct field names of {len(raw)} bytes in fields of {length}")
        fields = [raw[k:k + length].split(b"\0")[0].decode("latin-1")
                  for k in range(0, len(raw), length)]
        items = [{f: _element(r, endian, where, depth) for f in fields} for _ in range(count)]
        return name, _object_array(items, dims)
    if mx_class == _MX_SPARSE:
        return name, _sparse(r, name, dims)
    if mx_class not in _MX_CLASSES:
        return name, None
    real = r.numbers()
    if real.size != count:
        r.fail(f"{name}: {real.size} values for the dimensions {dims}")
    out = real.astype(real.dtype.newbyteorder("="))  # the stored type, as SciPy's loadmat
    return name, out.reshape(dims, order="F")


def _element(r, endian, where, depth):
    """The value of the next miMATRIX element of a cell or struct."""
    typ, body = r.tag()
    if typ != _MI_MATRIX:
        r.fail(f"an element of type {typ} inside a cell or struct")
    return _matrix(body, endian, where, depth + 1)[1]


def _object_array(items, dims):
    out = np.empty(len(items), object)
    for k, item in enumerate(items):
        out[k] = item
    return out.reshape(dims, order="F")


def _sparse(r, name, dims):
    """A sparse matrix (row indices, column starts, values) as a dense array."""
    rows, starts, values = r.numbers(), r.numbers(), r.numbers()
    if len(dims) != 2 or starts.size != dims[1] + 1:
        r.fail(f"{name}: a sparse matrix of dimensions {dims} with {starts.size} column starts")
    nnz = int(starts[-1])
    if int(starts[0]) != 0 or nnz > rows.size or nnz > values.size or \
            np.any(np.diff(starts.astype(np.int64)) < 0) or \
            (nnz and (rows[:nnz].min() < 0 or rows[:nnz].max() >= dims[0])):
        r.fail(f"{name}: sparse indices out of range")
    if dims[0] * dims[1] * values.dtype.itemsize > _MAX_BYTES:
        r.fail(f"{name}: a sparse matrix of dimensions {dims} is larger than "
               f"{_MAX_BYTES} bytes dense")
    out = np.zeros(dims, values.dtype.newbyteorder("="))
    cols = np.repeat(np.arange(dims[1]), np.diff(starts.astype(np.int64)))
    out[rows[:nnz].astype(np.int64), cols] = values[:nnz]
    return out


def loadmat(path):
    """{name: numpy array} of the real numeric arrays of the MAT-file at path (module doc).
    RuntimeError for a file that is not a level 5 MAT-file or is corrupt, naming it."""
    try:
        with open(path, "rb") as f:
            data = f.read(_MAX_BYTES + 1)
    except OSError as err:
        raise RuntimeError(f"loadmat: cannot read {path}: {err.strerror}.") from None
    if len(data) < 128:
        raise RuntimeError(f"loadmat: {path} is not a valid MAT-file (level 5): it has "
                           f"{len(data)} bytes, fewer than the 128 of the header.")
    indicator = data[126:128]
    if indicator not in (b"IM", b"MI") or data[:6] == b"\x89HDF\r\n":
        raise RuntimeError(f"loadmat: {path} is not a valid MAT-file (level 5): no endian "
                           "indicator in its header (a MAT-file 7.3 is HDF5 and not read).")
    endian = "<" if indicator == b"IM" else ">"
    r = _Reader(data, endian, path)
    r.pos = 128
    out = {}
    while r.pos + 8 <= len(data):
        typ, body = r.tag()
        if typ == _MI_COMPRESSED:
            try:
                body = zlib.decompress(body)
            except zlib.error as err:
                r.fail(f"a compressed element does not inflate ({err})")
            inner = _Reader(body, endian, path)
            typ, body = inner.tag()
        if typ != _MI_MATRIX:
            continue
        name, array = _matrix(body, endian, path)
        if array is not None:
            out[name] = array
    return out
