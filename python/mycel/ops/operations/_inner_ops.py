"""MindSpore's ``ops.operations._inner_ops``: internal primitives that its tests and some
programs import. Provided: TopTypeof, AntiQuant and SameTypeShape (host_ops.py, also
ops.operations')."""
from mycel import _mycel as _C
from mycel.common import dtype as _mstype
from mycel.ops.operations.composed_ops import _Composed
from mycel.ops.function._util import prim as _prim
from mycel.ops.primitive import constexpr as _constexpr

from mycel.ops.operations.host_ops import SameTypeShape  # noqa: E402,F401

__all__ = ["TopTypeof", "AntiQuant", "SameTypeShape"]


class TopTypeof(_Composed):
    """TopTypeof()(x): the type of x as MindSpore's inference names it: ``mstype.TensorType``
    of its dtype for a Tensor, ``mstype.bool_``/``int64``/``float32`` for a Python bool, int
    or float. Other values: TypeError."""

    def __call__(self, x):
        if isinstance(x, _C.Tensor):
            return _mstype.TensorType(x.dtype)
        if isinstance(x, (bool, int, float)):
            kind = bool if isinstance(x, bool) else int if isinstance(x, int) else float
            return _mstype.pytype_to_dtype(kind)
        raise TypeError(f"For 'TopTypeof', the input must be a Tensor, bool, int or float, "
                        f"but got {type(x).__name__}.")


class AntiQuant(_Composed):
    """AntiQuant(sqrt_mode=False, dtype=mstype.float16)(x, scale, offset): the dequantized
    (x + offset) * scale of an int8 x in `dtype` (float16 or float32); sqrt_mode multiplies by
    scale twice. scale and offset are float tensors broadcast against x."""

    def __init__(self, sqrt_mode=False, dtype=_mstype.float16):
        if not isinstance(sqrt_mode, bool):
            raise TypeError(f"For 'AntiQuant', 'sqrt_mode' must be a bool, but got "
                            f"{sqrt_mode!r}.")
        if dtype not in (_mstype.float16, _mstype.float32):
            raise TypeError(f"For 'AntiQuant', 'dtype' must be float16 or float32, but got "
                            f"{dtype}.")
        super().__init__(sqrt_mode=sqrt_mode, dtype=dtype)
        self.sqrt_mode, self.dtype = sqrt_mode, dtype

    def __call__(self, x, scale, offset):
        for name, v in (("x", x), ("scale", scale), ("offset", offset)):
            if not isinstance(v, _C.Tensor):   # MindSpore's words for a wrong argument kind
                raise TypeError(f"For 'AntiQuant', '{name}' must be a Tensor. But got input "
                                f"argument {name} of type {type(v).__name__}.")
        if x.dtype != _C.int8:
            raise TypeError(f"For 'AntiQuant', 'x' must be int8, but got {x.dtype}.")
        if scale.dtype not in (_C.float16, _C.float32) or offset.dtype != scale.dtype:
            raise TypeError(f"For 'AntiQuant', 'scale' and 'offset' must be float16 or float32 "
                            f"of one dtype, but got {scale.dtype} and {offset.dtype}.")
        y = _prim("Cast")(x, _C.float32) + _prim("Cast")(offset, _C.float32)
        s = _prim("Cast")(scale, _C.float32)
        y = y * s * s if self.sqrt_mode else y * s
        return _prim("Cast")(y, self.dtype)


_UNSIGNED = (_C.uint8, _C.uint16, _C.uint32, _C.uint64)


class IsSubClass(_Composed):
    """IsSubClass()(sub_type, type_): whether the type sub_type is type_ or one of its kinds:
    every number dtype (and ``mstype.uint``) is a ``mstype.number``, the unsigned dtypes are
    ``mstype.uint``. Both must be types (a dtype or mstype's number, uint, list_, tuple_,
    type_none): TypeError otherwise."""

    def __init__(self):
        super().__init__()

    def __call__(self, sub_type, type_):
        kinds = (_C.DType, type(_mstype.number))
        for name, v in (("sub_type", sub_type), ("type_", type_)):
            if not isinstance(v, kinds):
                raise TypeError(f"For 'IsSubClass', '{name}' must be a type (a dtype or an "
                                f"mstype kind), but got {type(v).__name__}.")
        if sub_type is type_ or sub_type == type_:
            return True
        if type_ is _mstype.number:
            return sub_type in _mstype.number_type or sub_type is _mstype.uint
        if type_ is _mstype.uint:
            return sub_type in _UNSIGNED
        return False


__all__ += ["IsSubClass"]


class FlattenConcat(_Composed):
    """FlattenConcat(fusion_size=0)(tensors): the tensors flattened and joined, one 1-D tensor
    per dtype (in the order the dtypes first appear), returned as a tuple. A positive
    fusion_size (bytes) splits a dtype's tensors into consecutive chunks of at most that many
    bytes (a larger tensor is a chunk of its own)."""

    def __init__(self, fusion_size=0):
        if isinstance(fusion_size, bool) or not isinstance(fusion_size, int) or fusion_size < 0:
            raise ValueError(f"For 'FlattenConcat', 'fusion_size' must be an int >= 0, but got "
                             f"{fusion_size!r}.")
        super().__init__(fusion_size=fusion_size)
        self.fusion_size = fusion_size

    def __call__(self, tensors):
        if not isinstance(tensors, (list, tuple)) or not tensors or not all(
                isinstance(t, _C.Tensor) for t in tensors):
            raise TypeError("For 'FlattenConcat', the input must be a non-empty list or tuple of "
                            "Tensors.")
        chunks = _flatten_concat_plan(tuple(t.dtype for t in tensors),
                                      tuple(tuple(t.shape) for t in tensors), self.fusion_size)
        out = []
        for chunk in chunks:
            flat = tuple(_prim("Reshape")(tensors[i], (-1,)) for i in chunk)
            out.append(flat[0] if len(flat) == 1 else _prim("Concat", axis=0)(flat))
        return tuple(out)


@_constexpr
def _flatten_concat_plan(dtypes, shapes, fusion_size):
    """The chunks (tuples of input positions): per dtype in order of appearance, consecutive
    inputs of at most fusion_size bytes together (0: all of them)."""
    order, groups = [], {}
    for i, d in enumerate(dtypes):
        if d not in groups:
            order.append(d)
            groups[d] = []
        groups[d].append(i)
    chunks = []
    for d in order:
        chunk, size = [], 0
        for i in groups[d]:
            n = d.itemsize
            for s in shapes[i]:
                n *= s
            if chunk and fusion_size and size + n > fusion_size:
                chunks.append(tuple(chunk))
                chunk, size = [], 0
            chunk.append(i)
            size += n
        chunks.append(tuple(chunk))
    return tuple(chunks)


__all__ += ["FlattenConcat"]
