"""Embedding (MindSpore 2.x ``mindspore.nn.Embedding``): a lookup table of vectors.

The table is the Parameter ``embedding_table`` [vocab_size, embedding_size], initialised by
`embedding_table` ('normal': N(0, 0.01^2), as MindSpore). ids of any shape give ids.shape +
(embedding_size,). The lookup is a Gather (whose gradient scatters into the table rows), or
with use_one_hot=True a one-hot matrix times the table (MindSpore's choice for devices where
that is faster; the result is the same).

As in MindSpore, padding_idx only zeroes that row at initialisation; its gradient is not
masked (PyTorch's padding_idx also freezes the row). An id >= vocab_size raises IndexError
on the gather path and gives a zero vector with use_one_hot, as in MindSpore.
"""
from mycel import _mycel as _C
from mycel.common.initializer import initializer
from mycel.common.parameter import Parameter
from mycel.nn.cell import Cell
from mycel.nn.layer import _check
from mycel.ops.function._util import prim
from mycel.ops.primitive import constexpr

_INT_TYPES = (_C.int8, _C.uint8, _C.int16, _C.int32, _C.int64)


@constexpr
def _flat_ids_shape(dtype):
    """(-1,), once the ids' dtype is checked."""
    if dtype not in (_C.int32, _C.int64):
        raise TypeError(f"For 'Embedding', the input ids must be an int32 or int64 tensor, but "
                        f"got {dtype}.")
    return (-1,)


@constexpr
def _out_shape(shape, embedding_size):
    return tuple(shape) + (embedding_size,)


class Embedding(Cell):
    """Maps integer ids to rows of a [vocab_size, embedding_size] table.

    `dtype` is the data type of the ids (MindSpore's argument; int32 or int64 tensors are
    accepted whatever it says)."""

    def __init__(self, vocab_size, embedding_size, use_one_hot=False, embedding_table="normal",
                 dtype=_C.int32, padding_idx=None):
        super().__init__()
        cls = "Embedding"
        self.vocab_size = _check.positive_int(vocab_size, "vocab_size", cls)
        self.embedding_size = _check.positive_int(embedding_size, "embedding_size", cls)
        self.use_one_hot = _check.bool_(use_one_hot, "use_one_hot", cls)
        if dtype not in _INT_TYPES:
            raise TypeError(f"For '{cls}', dtype must be an integer dtype (the ids' type), but "
                            f"got {dtype!r}.")
        self.dtype = dtype
        table = initializer(embedding_table, (vocab_size, embedding_size))
        if padding_idx is not None:
            _check.non_negative_int(padding_idx, "padding_idx", cls)
            if padding_idx >= vocab_size:
                raise ValueError(f"For '{cls}', padding_idx must be in [0, {vocab_size}), but "
                                 f"got {padding_idx}.")
            data = table.asnumpy().copy()
            data[padding_idx] = 0
            table = _C.Tensor(data)
        self.padding_idx = padding_idx
        self.embedding_table = Parameter(table, name="embedding_table")
        self.gather = prim("Gather")
        self.matmul = prim("MatMul")
        self.reshape = prim("Reshape")

    def construct(self, ids):
        flat_ids = self.reshape(ids, _flat_ids_shape(ids.dtype))
        table = self.embedding_table
        if self.use_one_hot:
            one_hot = prim("OneHot", dtype=table.dtype)(flat_ids, self.vocab_size, 1.0, 0.0)
            out = self.matmul(one_hot, table)
        else:
            out = self.gather(table, flat_ids, 0)
        return self.reshape(out, _out_shape(ids.shape, self.embedding_size))

    def extend_repr(self):
        return (f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, "
                f"use_one_hot={self.use_one_hot}, embedding_table={self.embedding_table}, "
                f"dtype={self.dtype}, padding_idx={self.padding_idx}")


__all__ = ["Embedding"]
