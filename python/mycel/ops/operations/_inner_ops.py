"""MindSpore's ``ops.operations._inner_ops``: internal primitives that its tests and some
programs import. Provided: TopTypeof."""
from mycel import _mycel as _C
from mycel.common import dtype as _mstype
from mycel.ops.operations.composed_ops import _Composed

__all__ = ["TopTypeof"]


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
