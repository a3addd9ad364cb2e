"""Flattened weights (MindSpore's ``Tensor._flatten_tensors`` and ``Cell.flatten_weights``):
tensors copied into contiguous chunk tensors, one or more per dtype, each tensor then a view
of its stretch of its chunk (they share memory, so a write through either shows in the other,
and an optimizer updating the tensors in place updates the chunk).

- ``Tensor._flatten_tensors(tensors, fusion_size=0)``: makes the chunks and returns them. The
  tensors are taken in order and grouped by dtype (in the order the dtypes first appear); with
  ``fusion_size`` > 0 (bytes) a chunk closes before a tensor that would take it past that
  size (a tensor larger than it has a chunk of its own).
- ``Tensor._is_flattened(tensors)``: whether every tensor is still a view of its chunk.
- ``Tensor._get_flattened_tensors(tensors)``: the chunks holding exactly these tensors (in
  order of first use), or [] when they are not all flattened or a chunk also holds others.
- ``Tensor._get_fusion_size(chunks)``: the ``fusion_size`` those chunks were made with.

A tensor stops being flattened when ``Parameter.set_data`` gives it new data. The membership
is kept here, keyed by the tensor's id with a weak reference that confirms it.
"""
import weakref

import numpy as np

from mycel import _mycel as _C

Tensor = _C.Tensor

# id(tensor) -> (weak reference to it, its chunk, its offset in the chunk, its shape)
_MEMBERS = {}
# id(chunk) -> (weak reference to it, the fusion_size it was made with)
_CHUNKS = {}


def _entry(t):
    e = _MEMBERS.get(id(t))
    if e is None or e[0]() is not t:
        return None
    return e


def _forget(t):
    """`t` no longer a view of a chunk (Parameter.set_data)."""
    if _entry(t) is not None:
        del _MEMBERS[id(t)]


def _flatten_tensors(tensors, fusion_size=0):
    """The chunks (a list of 1-d Tensors) the tensors now are views of (module docstring)."""
    if isinstance(fusion_size, bool) or not isinstance(fusion_size, int) or fusion_size < 0:
        raise ValueError(f"For 'Tensor._flatten_tensors', the 'fusion_size' must be an int >= 0 "
                         f"(bytes; 0: no limit), but got {fusion_size!r}.")
    tensors = list(tensors)
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"For 'Tensor._flatten_tensors', every element must be a Tensor, "
                            f"but got {type(t).__name__}.")
    if len({id(t) for t in tensors}) != len(tensors):
        raise ValueError("For 'Tensor._flatten_tensors', a tensor is given more than once.")
    by_dtype = {}
    for t in tensors:
        by_dtype.setdefault(t.dtype, []).append(t)
    groups = []
    for dtype, ts in by_dtype.items():
        cur, used = [], 0
        for t in ts:
            nbytes = t.size * t.itemsize
            if fusion_size and cur and used + nbytes > fusion_size:
                groups.append(cur)
                cur, used = [], 0
            cur.append(t)
            used += nbytes
        if cur:
            groups.append(cur)
    chunks = []
    for ts in groups:
        chunk = Tensor(np.concatenate([t.asnumpy().reshape(-1) for t in ts]), ts[0].dtype)
        offset = 0
        for t in ts:
            n = t.size
            shape = tuple(t.shape)
            _C._tensor_assign(t, chunk[offset:offset + n].reshape(shape))
            _MEMBERS[id(t)] = (weakref.ref(t), chunk, offset, shape)
            offset += n
        _CHUNKS[id(chunk)] = (weakref.ref(chunk), fusion_size)
        chunks.append(chunk)
    return chunks


def _is_flattened(tensors):
    """Whether every tensor is (still) a view of a chunk."""
    tensors = list(tensors)
    if not tensors:
        return False
    for t in tensors:
        e = _entry(t)
        if e is None or tuple(t.shape) != e[3] or t.storage_offset() != \
                e[1].storage_offset() + e[2]:
            return False
    return True


def _get_flattened_tensors(tensors):
    """The chunks holding exactly these tensors, or []."""
    tensors = list(tensors)
    if not _is_flattened(tensors):
        return []
    chunks, members = [], {}
    for t in tensors:
        c = _entry(t)[1]
        if id(c) not in members:
            chunks.append(c)
            members[id(c)] = 0
        members[id(c)] += t.size
    if any(members[id(c)] != c.size for c in chunks):
        return []  # a chunk also holds tensors not given
    return chunks


def _get_fusion_size(chunks):
    """The fusion_size the chunks were made with (0: none, or chunks not made here)."""
    sizes = set()
    for c in chunks:
        e = _CHUNKS.get(id(c))
        sizes.add(e[1] if e is not None and e[0]() is c else 0)
    return sizes.pop() if len(sizes) == 1 else 0
