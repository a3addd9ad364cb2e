"""MindSpore's sparse tensors, ``CSRTensor`` and ``COOTensor``: containers of the index and
value tensors of a 2-D sparse matrix, with the conversions (``astype``, ``to_dense``,
``to_coo``/``to_csr``, ``to_tuple``, ``abs``) MindSpore programs use on them. No op of the
table takes them: ``to_dense`` gives the Tensor the ops work on."""
import numpy as np

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

    def abs(self):
        """The same pattern with the absolute values."""
        return CSRTensor(self._indptr, self._indices, abs(self._values), self._shape)

    def _rows(self):
        ptr = self._indptr.asnumpy().astype(np.int64)
        if ptr[0] != 0 or np.any(np.diff(ptr) < 0) or ptr[-1] != self._values.shape[0]:
            raise ValueError(f"For 'CSRTensor', indptr must rise from 0 to the number of values "
                             f"({self._values.shape[0]}), but got {ptr.tolist()}.")
        return np.repeat(np.arange(self._shape[0]), np.diff(ptr))

    def to_dense(self):
        """The dense Tensor of shape ``shape`` (zeros where nothing is stored)."""
        return _dense(self._rows(), self._indices.asnumpy(), self._values, self._shape)

    def to_coo(self):
        """The same matrix as a COOTensor (indices ``[row, column]`` per value)."""
        idx = np.stack([self._rows(), self._indices.asnumpy().astype(np.int64)], axis=1)
        return COOTensor(Tensor(idx.astype(np.int32)), self._values, self._shape)

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

    def abs(self):
        """The same pattern with the absolute values."""
        return COOTensor(self._indices, abs(self._values), self._shape)

    def to_dense(self):
        """The dense Tensor of shape ``shape``; values at the same position add up."""
        idx = self._indices.asnumpy().astype(np.int64)
        return _dense(idx[:, 0], idx[:, 1], self._values, self._shape)

    def to_csr(self):
        """The same matrix as a CSRTensor (values sorted by row, then column)."""
        idx = self._indices.asnumpy().astype(np.int64)
        _check_bounds("COOTensor", idx[:, 0], idx[:, 1], self._shape)
        order = np.lexsort((idx[:, 1], idx[:, 0]))
        ptr = np.zeros(self._shape[0] + 1, np.int64)
        np.add.at(ptr, idx[:, 0] + 1, 1)
        vals = self._values.asnumpy()[order]
        return CSRTensor(Tensor(np.cumsum(ptr).astype(np.int32)),
                         Tensor(idx[order, 1].astype(np.int32)),
                         Tensor(vals).astype(self.dtype), self._shape)

    def __repr__(self):
        return (f"COOTensor(shape={list(self._shape)}, dtype={self.dtype}, indices="
                f"{self._indices}, values={self._values})")


def _check_bounds(who, rows, cols, shape):
    if rows.size and (rows.min() < 0 or rows.max() >= shape[0] or cols.min() < 0 or
                      cols.max() >= shape[1]):
        raise ValueError(f"For '{who}', an index lies outside the shape {shape}.")


def _dense(rows, cols, values, shape):
    rows, cols = np.asarray(rows, np.int64), np.asarray(cols, np.int64)
    _check_bounds("to_dense", rows, cols, shape)
    v = values.asnumpy()
    out = np.zeros(shape, v.dtype)
    np.add.at(out, (rows, cols), v)
    return Tensor(out).astype(values.dtype)


__all__ = ["CSRTensor", "COOTensor"]
