"""MindSpore's sparse tensors: ``CSRTensor`` and ``COOTensor`` (containers of the index and
value tensors of a 2-D sparse matrix, checked when made), ``RowTensor`` / ``RowTensorInner``
(slices of a dense tensor at some first-dimension indices) and ``SparseTensor`` (MindSpore's
deprecated name of a COO tensor, with ``dense_shape``). No op of the table takes them.

This file holds the containers, their properties, ``to_tuple`` and ``astype``; the methods
that compute (``to_dense``, ``to_csr``/``to_coo``, ``coalesce``, ``abs``, ``add``, ``mm``,
``mv``, ``sum`` and the operators ``-x``, ``+``, ``-``, ``*``, ``/``) are attached by
``ops/function/sparse_func.py``, which composes them from table ops (both modes, gradients to
the values).

GRAPH mode: a sparse tensor passed into compiled code is a compile-time constant (its tensors
too: each new object compiles again); one made inside compiled code is a JIT-fallback value
that can be returned but not read there (the compiler has no object value with run-time
fields), so graph code works on the index and value tensors (``SparseToDense``,
``SparseTensorDenseMatmul``, ``ops.sparse_*`` of tensors)."""
import warnings

from mycel import _mycel as _C

Tensor = _C.Tensor
_INDEX_DTYPES = (_C.int16, _C.int32, _C.int64)


def _check_shape(who, shape):
    if not isinstance(shape, (tuple, list)) or len(shape) != 2 or \
            not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape):
        raise ValueError(f"For '{who}', shape must be a tuple of 2 non-negative ints (only 2-D "
                         f"sparse tensors are supported), but got {shape!r}.")
    return tuple(shape)


def _check_tensor(who, name, t, ndim, index=True):
    if not isinstance(t, Tensor):
        raise TypeError(f"For '{who}', {name} must be a Tensor, but got {type(t).__name__}.")
    if t.ndim != ndim:
        raise ValueError(f"For '{who}', {name} must be {ndim}-D, but got shape {t.shape}.")
    if index and t.dtype not in _INDEX_DTYPES:
        raise TypeError(f"For '{who}', {name} must be int16, int32 or int64, but got "
                        f"{t.dtype}.")
    return t


class _Sparse:
    """What both sparse forms have: the values, the dense shape and their properties."""

    # Tensor's operators return NotImplemented for an operand of this class, so that
    # ``dense * csr`` reaches CSRTensor.__rmul__ (python/py_tensor.cc).
    __mycel_reflected__ = True

    values = property(lambda self: self._values, doc="The non-zero values (1-D Tensor).")
    shape = property(lambda self: self._shape, doc="The dense shape (a tuple).")
    dtype = property(lambda self: self._values.dtype, doc="The values' dtype.")
    size = property(lambda self: self._values.size, doc="The number of stored values.")
    ndim = property(lambda self: len(self._shape), doc="The dense rank (2).")
    itemsize = property(lambda self: self._values.itemsize, doc="Bytes of one value.")


class CSRTensor(_Sparse):
    """A 2-D sparse matrix in compressed sparse row form (``mindspore.CSRTensor``).

    indptr: 1-D int Tensor of ``shape[0] + 1`` row starts into ``values``; indices: 1-D int
    Tensor, the column of each value; values: 1-D Tensor of the non-zero values; shape: the
    dense shape, a tuple of two ints. ``csr_tensor`` copies another CSRTensor."""

    def __init__(self, indptr=None, indices=None, values=None, shape=None, csr_tensor=None):
        if csr_tensor is not None:
            if not isinstance(csr_tensor, CSRTensor):
                raise TypeError(f"For 'CSRTensor', csr_tensor must be a CSRTensor, but got "
                                f"{type(csr_tensor).__name__}.")
            indptr, indices, values, shape = csr_tensor.to_tuple()
        who = "CSRTensor"
        shape = _check_shape(who, shape)
        _check_tensor(who, "indptr", indptr, 1)
        _check_tensor(who, "indices", indices, 1)
        _check_tensor(who, "values", values, 1, index=False)
        if indptr.shape[0] != shape[0] + 1:
            raise ValueError(f"For 'CSRTensor', indptr must hold shape[0] + 1 = {shape[0] + 1} "
                             f"row starts, but got {indptr.shape[0]}.")
        if indices.shape[0] != values.shape[0]:
            raise ValueError(f"For 'CSRTensor', indices and values must have the same length, "
                             f"but got {indices.shape[0]} and {values.shape[0]}.")
        self._indptr, self._indices, self._values, self._shape = indptr, indices, values, shape

    indptr = property(lambda self: self._indptr, doc="The row starts (1-D int Tensor).")
    indices = property(lambda self: self._indices, doc="The column of each value (1-D int "
                                                       "Tensor).")

    def to_tuple(self):
        """(indptr, indices, values, shape)."""
        return self._indptr, self._indices, self._values, self._shape

    def astype(self, dtype):
        """The same matrix with its values cast to dtype."""
        return CSRTensor(self._indptr, self._indices, self._values.astype(dtype), self._shape)

    def __repr__(self):
        return (f"CSRTensor(shape={list(self._shape)}, dtype={self.dtype}, indptr="
                f"{self._indptr}, indices={self._indices}, values={self._values})")


class COOTensor(_Sparse):
    """A 2-D sparse matrix in coordinate form (``mindspore.COOTensor``).

    indices: 2-D int Tensor ``[N, 2]``, the ``[row, column]`` of each value; values: 1-D
    Tensor ``[N]``; shape: the dense shape, a tuple of two ints. ``coo_tensor`` copies
    another COOTensor."""

    def __init__(self, indices=None, values=None, shape=None, coo_tensor=None):
        if coo_tensor is not None:
            if not isinstance(coo_tensor, COOTensor):
                raise TypeError(f"For 'COOTensor', coo_tensor must be a COOTensor, but got "
                                f"{type(coo_tensor).__name__}.")
            indices, values, shape = coo_tensor.to_tuple()
        who = "COOTensor"
        shape = _check_shape(who, shape)
        _check_tensor(who, "indices", indices, 2)
        _check_tensor(who, "values", values, 1, index=False)
        if indices.shape[1] != len(shape) or indices.shape[0] != values.shape[0]:
            raise ValueError(f"For 'COOTensor', indices must have shape [N, {len(shape)}] with "
                             f"N = len(values) = {values.shape[0]}, but got {indices.shape}.")
        self._indices, self._values, self._shape = indices, values, shape

    indices = property(lambda self: self._indices, doc="The [row, column] of each value.")

    def to_tuple(self):
        """(indices, values, shape)."""
        return self._indices, self._values, self._shape

    def astype(self, dtype):
        """The same matrix with its values cast to dtype."""
        return COOTensor(self._indices, self._values.astype(dtype), self._shape)

    def __repr__(self):
        return (f"COOTensor(shape={list(self._shape)}, dtype={self.dtype}, indices="
                f"{self._indices}, values={self._values})")


class RowTensorInner:
    """Slices of a dense tensor (MindSpore's ``RowTensor``, the sparse gradient of a Gather):
    values[i] is row indices[i] of a tensor of shape dense_shape, other rows zero.

    indices: 1-D int Tensor [L]; values: Tensor [L] + dense_shape[1:]; shape: the dense shape
    (a tuple of ints). ``row_tensor`` copies another RowTensor."""

    def __init__(self, indices=None, values=None, shape=None, row_tensor=None):
        who = type(self).__name__
        if row_tensor is not None:
            if not isinstance(row_tensor, RowTensorInner):
                raise TypeError(f"For '{who}', row_tensor must be a RowTensor, but got "
                                f"{type(row_tensor).__name__}.")
            indices, values, shape = (row_tensor.indices, row_tensor.values,
                                      row_tensor.dense_shape)
        if not isinstance(shape, (tuple, list)) or not shape or not all(
                isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape):
            raise ValueError(f"For '{who}', shape must be a non-empty tuple of non-negative "
                             f"ints, but got {shape!r}.")
        _check_tensor(who, "indices", indices, 1)
        if not isinstance(values, Tensor):
            raise TypeError(f"For '{who}', values must be a Tensor, but got "
                            f"{type(values).__name__}.")
        if tuple(values.shape) != (indices.shape[0],) + tuple(shape[1:]):
            raise ValueError(f"For '{who}', values must have shape [len(indices)] + "
                             f"shape[1:] = {[indices.shape[0]] + list(shape[1:])}, but got "
                             f"{list(values.shape)}.")
        self._indices, self._values, self._shape = indices, values, tuple(shape)

    indices = property(lambda self: self._indices, doc="The row of each slice (1-D int).")
    values = property(lambda self: self._values, doc="The slices.")
    dense_shape = property(lambda self: self._shape, doc="The dense shape (a tuple).")

    def __repr__(self):
        return (f"{type(self).__name__}(dense_shape={list(self._shape)}, indices="
                f"{self._indices}, values={self._values})")


class RowTensor(RowTensorInner):
    """``mindspore.RowTensor``: RowTensorInner under its public name."""


class SparseTensor(COOTensor):
    """``mindspore.SparseTensor``, the name MindSpore 1.x gave a COO tensor (deprecated in
    2.x, where it warns and is a COOTensor): SparseTensor(indices [N, 2], values [N], shape),
    its dense shape also as ``dense_shape``."""

    def __init__(self, indices, values, shape):
        warnings.warn("'SparseTensor' is deprecated; use 'COOTensor' instead.",
                      DeprecationWarning, stacklevel=2)
        super().__init__(indices, values, shape)

    dense_shape = property(lambda self: self._shape, doc="The dense shape (a tuple).")


__all__ = ["CSRTensor", "COOTensor", "RowTensor", "RowTensorInner", "SparseTensor"]
