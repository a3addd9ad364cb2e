"""Helpers shared by the functional API: cached op handles and argument normalisation."""
from functools import lru_cache

from mycel import _mycel as _C
from mycel.ops.primitive import constexpr


def _freeze(v):
    if isinstance(v, list):
        return tuple(_freeze(x) for x in v)
    if isinstance(v, tuple):
        return tuple(_freeze(x) for x in v)
    return v


@lru_cache(maxsize=4096)
def _cached(name, frozen):
    return _C.OpHandle(name, dict(frozen))


@constexpr
def prim(name, **attrs):
    """The OpHandle of op `name` with these init-time attributes (cached)."""
    return _cached(name, tuple(sorted((k, _freeze(v)) for k, v in attrs.items())))


@constexpr
def axes(axis):
    """None -> () (all axes); int -> (int,); sequences pass."""
    if axis is None:
        return ()
    if isinstance(axis, int):
        return (axis,)
    return tuple(int(a) for a in axis)


def as_tensor(x):
    return x if isinstance(x, _C.Tensor) else _C.Tensor(x)


@constexpr
def shape_arg(shape):
    """A shape given as ints, a tuple/list, or a 1-d tensor, as a tuple of ints."""
    if isinstance(shape, _C.Tensor):
        return tuple(int(v) for v in shape.asnumpy().reshape(-1))
    if isinstance(shape, int):
        return (shape,)
    return tuple(int(v) for v in shape)


@constexpr
def pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)
