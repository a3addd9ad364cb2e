"""The safetensors checkpoint format (``save_checkpoint(..., format="safetensors")``,
``load_checkpoint`` of a ``.safetensors`` file, ``ckpt_to_safetensors``/``safetensors_to_ckpt``).

Layout (the format's specification, as Hugging Face's library writes it): an unsigned 64-bit
little-endian header length N; N bytes of UTF-8 JSON (padded with spaces to 8 bytes) mapping
each tensor name to {"dtype": "F32", "shape": [...], "data_offsets": [begin, end]} plus an
optional "__metadata__" of str -> str; then the tensors' bytes, little-endian and C-ordered,
offsets counted from the end of the header. mycel writes the tensors in the order given, back
to back, and puts string entries (save_checkpoint's append_dict strings) in the metadata.

The reader takes untrusted files: the header length is bounded by the file's size, the JSON
is parsed by Python's json module, every entry must name a known dtype, a shape of
non-negative ints whose byte size equals its offsets' span, and the spans must lie in the
data and tile it without gaps or overlaps (the specification's rule); anything else is a
ValueError naming the file and the entry."""
import json
import math
import os
import struct

import numpy as np

from mycel import _mycel as _C

# mycel checkpoint tensor_type -> safetensors dtype code, and the code -> (numpy wire dtype,
# mycel dtype).
_CODES = {"Bool": "BOOL", "Int8": "I8", "UInt8": "U8", "Int16": "I16", "Int32": "I32",
          "Int64": "I64", "Float16": "F16", "BFloat16": "BF16", "Float32": "F32",
          "Float64": "F64", "UInt16": "U16", "UInt32": "U32", "UInt64": "U64"}
_WIRE = {"BOOL": ("u1", _C.bool), "I8": ("i1", _C.int8), "U8": ("u1", _C.uint8),
         "I16": ("<i2", _C.int16), "I32": ("<i4", _C.int32), "I64": ("<i8", _C.int64),
         "F16": ("<f2", _C.float16), "BF16": ("<u2", _C.bfloat16), "F32": ("<f4", _C.float32),
         "F64": ("<f8", _C.float64), "U16": ("<u2", _C.uint16), "U32": ("<u4", _C.uint32),
         "U64": ("<u8", _C.uint64)}
_MAX_HEADER = 100 << 20  # the reference library's limit on the header's size


def pieces(entries):
    """The file's byte pieces for encoded checkpoint entries (serialization._encode's
    (name, kind, dims, content) tuples)."""
    header, metadata, offset = {}, {}, 0
    for name, kind, dims, content in entries:
        if kind == "str":
            metadata[name] = content.tobytes().decode("utf-32-le")
            continue
        header[name] = {"dtype": _CODES[kind], "shape": [int(d) for d in dims],
                        "data_offsets": [offset, offset + content.nbytes]}
        offset += content.nbytes
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    yield struct.pack("<Q", len(text)) + text
    for _, kind, _, content in entries:
        if kind != "str":
            yield content


def _fail(path, func, why):
    raise ValueError(f"For '{func}', {path} is not a valid safetensors file: {why}.")


def _entry(path, func, name, spec, size):
    """(begin, end, wire dtype, mycel dtype, shape) of one checked header entry."""
    if not isinstance(spec, dict) or set(spec) != {"dtype", "shape", "data_offsets"}:
        _fail(path, func, f"entry {name!r} must hold exactly dtype, shape and data_offsets")
    code, shape, span = spec["dtype"], spec["shape"], spec["data_offsets"]
    if code not in _WIRE:
        _fail(path, func, f"entry {name!r} has dtype {code!r}, which mycel does not read "
                          f"(known: {sorted(_WIRE)})")
    if not isinstance(shape, list) or not all(type(d) is int and d >= 0 for d in shape):
        _fail(path, func, f"entry {name!r} has shape {shape!r:.80}, not a list of "
                          f"non-negative ints")
    if not isinstance(span, list) or len(span) != 2 or not all(type(v) is int for v in span) \
            or not 0 <= span[0] <= span[1] <= size:
        _fail(path, func, f"entry {name!r} has data_offsets {span!r:.80} outside the "
                          f"{size} data bytes")
    wire, dtype = _WIRE[code]
    if math.prod(shape) * np.dtype(wire).itemsize != span[1] - span[0]:
        _fail(path, func, f"entry {name!r} of dtype {code} and shape {shape} needs "
                          f"{math.prod(shape) * np.dtype(wire).itemsize} bytes, but its "
                          f"data_offsets span {span[1] - span[0]}")
    return span[0], span[1], wire, dtype, tuple(shape)


def read(path, func):
    """[(name, Tensor or str)] of a safetensors file, in data order, metadata strings last."""
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except OSError as e:
        raise ValueError(f"For '{func}', cannot read {path}: {e.strerror}.") from None
    if len(blob) < 8:
        _fail(path, func, "it is shorter than its 8-byte header length")
    (n,) = struct.unpack("<Q", blob[:8])
    if n > min(_MAX_HEADER, len(blob) - 8):
        _fail(path, func, f"its header length {n} exceeds the file ({len(blob)} bytes)")
    try:
        header = json.loads(blob[8:8 + n].decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        _fail(path, func, f"its header is not UTF-8 JSON ({type(e).__name__})")
    if not isinstance(header, dict):
        _fail(path, func, "its header is not a JSON object")
    metadata = header.pop("__metadata__", {})
    if not isinstance(metadata, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                 for k, v in metadata.items()):
        _fail(path, func, "its __metadata__ is not an object of strings")
    data = memoryview(blob)[8 + n:]
    entries = sorted((_entry(path, func, name, spec, len(data)) + (name,)
                      for name, spec in header.items()), key=lambda e: (e[0], e[1]))
    end = 0
    for begin, stop, _, _, _, name in entries:
        if begin != end:
            _fail(path, func, f"entry {name!r} starts at {begin}, but the data before it ends "
                              f"at {end} (entries must tile the data)")
        end = stop
    if end != len(data):
        _fail(path, func, f"the entries cover {end} of the {len(data)} data bytes")
    out = []
    for begin, stop, wire, dtype, shape, name in entries:
        arr = np.frombuffer(data[begin:stop], dtype=wire).reshape(shape)
        if dtype == _C.bfloat16:  # the bits are a float32's top half
            t = _C.Tensor((arr.astype("<u4") << 16).view("<f4")).astype(_C.bfloat16)
        elif dtype == _C.bool:
            t = _C.Tensor(arr.astype(bool))
        else:
            t = _C.Tensor(arr.copy())
        out.append((name, t))
    out.extend(metadata.items())
    return out


def is_safetensors_name(path):
    """Whether the file name has the safetensors extension."""
    return os.fspath(path).endswith(".safetensors")
