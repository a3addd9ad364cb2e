"""EmbeddingLookup and MultiFieldEmbeddingLookup (MindSpore 2.x's ``mindspore.nn``): a table
of vectors looked up by ids (MindSpore's recommender-model layers; the host/device
placement options `target`, `slice_mode`, `sparse`, `vocab_cache_size` name where
MindSpore keeps the table and are accepted for compatibility: mycel keeps it as one
Parameter and looks rows up with Gather, whose gradient scatters into the rows).

MultiFieldEmbeddingLookup(vocab_size, embedding_size, field_size, ..., operator='SUM')
(input_indices, input_values, field_ids), three [batch, seq] tensors: feature s of sample b
is row input_indices[b, s] of the table times input_values[b, s], and belongs to field
field_ids[b, s] (in [0, field_size)); the output [batch, field_size, embedding_size] holds,
per sample and field, the SUM, MEAN or MAX of its features' vectors (0 for a field with no
feature).
"""
import numpy as np

from mycel import _mycel as _C
from mycel.common.initializer import initializer
from mycel.common.parameter import Parameter
from mycel.nn.cell import Cell
from mycel.ops.function import segment_func as _seg
from mycel.ops.function._util import prim
from mycel.ops.primitive import constexpr


def _check_pos_int(name, arg, v):
    if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
        raise ValueError(f"For '{name}', '{arg}' must be a positive int, but got {v!r}.")
    return v


def _max_norm(name, max_norm):
    if max_norm is None:
        return None
    if isinstance(max_norm, bool) or not isinstance(max_norm, (int, float)) or max_norm <= 0:
        raise ValueError(f"For '{name}', 'max_norm' must be None or a positive number, but got "
                         f"{max_norm!r}.")
    return float(max_norm)


class EmbeddingLookup(Cell):
    """EmbeddingLookup(vocab_size, embedding_size, param_init='normal', target='CPU',
    slice_mode='batch_slice', manual_shapes=None, max_norm=None, sparse=True,
    vocab_cache_size=0, dtype=float32)(input_indices): the rows of the table
    ``embedding_table`` [vocab_size, embedding_size] at the ids, shape ids.shape +
    (embedding_size,); with max_norm, each looked-up row is scaled to norm at most max_norm."""

    def __init__(self, vocab_size, embedding_size, param_init="normal", target="CPU",
                 slice_mode="batch_slice", manual_shapes=None, max_norm=None, sparse=True,
                 vocab_cache_size=0, dtype=_C.float32):
        super().__init__()
        name = type(self).__name__
        self.vocab_size = _check_pos_int(name, "vocab_size", vocab_size)
        self.embedding_size = _check_pos_int(name, "embedding_size", embedding_size)
        if target not in ("CPU", "DEVICE"):
            raise ValueError(f"For '{name}', 'target' must be 'CPU' or 'DEVICE', but got "
                             f"{target!r}.")
        self.target, self.slice_mode, self.sparse = target, slice_mode, sparse
        self.max_norm = _max_norm(name, max_norm)
        self.embedding_table = Parameter(
            initializer(param_init, [vocab_size, embedding_size], dtype), "embedding_table")

    def _rows(self, ids):
        rows = prim("Gather")(self.embedding_table, ids, 0)
        if self.max_norm is not None:
            norm = prim("Sqrt")(prim("ReduceSum", keep_dims=True)(rows * rows, (-1,)))
            rows = rows * (self.max_norm / prim("Maximum")(norm, self.max_norm))
        return rows

    def construct(self, input_indices):
        _check_ids(type(self).__name__, input_indices.dtype)
        return self._rows(input_indices)


@constexpr
def _check_ids(name, dtype):
    if dtype not in (_C.int32, _C.int64):
        raise TypeError(f"For '{name}', the ids must be int32 or int64, but got {dtype}.")


@constexpr
def _check_fields(ids_shape, values_shape, fields_shape, ids_t, values_t, fields_t):
    name = "MultiFieldEmbeddingLookup"
    for arg, shape in (("input_indices", ids_shape), ("input_values", values_shape),
                       ("field_ids", fields_shape)):
        if len(shape) != 2:
            raise ValueError(f"For '{name}', '{arg}' must be 2-d [batch, seq], but got shape "
                             f"{tuple(shape)}.")
    if not tuple(ids_shape) == tuple(values_shape) == tuple(fields_shape):
        raise ValueError(f"For '{name}', the three inputs must have one shape, but got "
                         f"{tuple(ids_shape)}, {tuple(values_shape)} and {tuple(fields_shape)}.")
    if ids_t not in (_C.int32, _C.int64):
        raise TypeError(f"For '{name}', 'input_indices' must be int32 or int64, but got {ids_t}.")
    if values_t != _C.float32:
        raise TypeError(f"For '{name}', 'input_values' must be float32, but got {values_t}.")
    if fields_t not in (_C.int32, _C.int64):
        raise TypeError(f"For '{name}', 'field_ids' must be int32 or int64, but got {fields_t}.")


@constexpr
def _batch_offsets(batch, field_size):
    """[batch, 1] int32: field_size * b, so (b, f) is segment b * field_size + f."""
    return _C.Tensor((np.arange(batch, dtype=np.int32) * field_size).reshape(batch, 1))


class MultiFieldEmbeddingLookup(EmbeddingLookup):
    """Per-field aggregated lookups (module docstring)."""

    def __init__(self, vocab_size, embedding_size, field_size, param_init="normal",
                 target="CPU", slice_mode="batch_slice", feature_num_list=None, max_norm=None,
                 sparse=True, operator="SUM", dtype=_C.float32):
        super().__init__(vocab_size, embedding_size, param_init, target, slice_mode,
                         feature_num_list, max_norm, sparse, dtype=dtype)
        self.field_size = _check_pos_int("MultiFieldEmbeddingLookup", "field_size", field_size)
        if operator not in ("SUM", "MEAN", "MAX"):
            raise ValueError(f"For 'MultiFieldEmbeddingLookup', 'operator' must be 'SUM', "
                             f"'MEAN' or 'MAX', but got {operator!r}.")
        self.operator = operator

    def construct(self, input_indices, input_values, field_ids):
        _check_fields(input_indices.shape, input_values.shape, field_ids.shape,
                      input_indices.dtype, input_values.dtype, field_ids.dtype)
        batch = input_indices.shape[0]
        n = batch * self.field_size
        rows = self._rows(input_indices) * prim("ExpandDims")(input_values, -1)
        seg = prim("Cast", dtype=_C.int32)(field_ids) + _batch_offsets(batch, self.field_size)
        flat_rows = prim("Reshape")(rows, (-1, self.embedding_size))
        flat_seg = prim("Reshape")(seg, (-1,))
        out_shape = (batch, self.field_size, self.embedding_size)
        ones = prim("Cast", dtype=flat_rows.dtype)(prim("OnesLike")(flat_seg))
        count = _seg.unsorted_segment_sum(ones, flat_seg, n)
        if self.operator == "MAX":
            agg = _seg.unsorted_segment_max(flat_rows, flat_seg, n)
            has = prim("BroadcastTo", shape=(n, self.embedding_size))(
                prim("ExpandDims")(count > 0.0, -1))
            agg = prim("Select")(has, agg, prim("ZerosLike")(agg))
            return prim("Reshape")(agg, out_shape)
        agg = _seg.unsorted_segment_sum(flat_rows, flat_seg, n)
        if self.operator == "MEAN":
            agg = agg / prim("ExpandDims")(prim("Maximum")(count, 1.0), -1)
        return prim("Reshape")(agg, out_shape)


__all__ = ["EmbeddingLookup", "MultiFieldEmbeddingLookup"]
