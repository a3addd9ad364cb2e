"""MindSpore's sparse tensors: ``CSRTensor`` and ``COOTensor`` (containers of the index and
value tensors of a 2-D sparse matrix, checked when made), ``RowTensor`` / ``RowTensorInner``
(slices of a dense tensor at some first-dimension indices) and ``SparseTensor`` (MindSpore's
deprecated name of a COO tensor, with ``dense_shape``). No op of the table takes them.

This file holds the containers, their properties, ``to_tuple`` and ``astype``; the methods
that compute (``to_dense``, ``to_csr``/``to_coo``, ``coalesce``, ``abs``, ``add``, ``mm``,
``mv``, ``sum`` and the operators ``-x``, ``+``, ``-``, ``*``, ``/``) are attached by
``ops/function/sparse_func.py``, which composes them from table ops (both modes, gradients to
the values).

GRAPH mode: each class is a *struct* (its metaclass, ``_GraphStruct``, names the fields in
``__mycel_graph_struct__``). In graph code an instance is the tuple ``(class, fields...)``:
an argument or constant converts to it and a returned one back to the object
(``frontend/py_value.cc``); calling the class in graph code runs ``_graph_new`` (the same
checks as ``__init__``, at compile time); a field is read as the tuple's item, a property or
method of the class runs as graph code on the tuple, ``isinstance`` sees the class and an
operator calls the class's dunder method (``compiler/specialize_builtins.cc``). So sparse
tensors pass in and out of compiled code, through control flow and gradients, with their
tensors as run-time values."""
import warnings

from mycel import _mycel as _C
from mycel.ops.primitive import constexpr

Tensor = _C.Tensor
_INDEX_DTYPES = (_C.int16, _C.int32, _C.int64)


class _GraphStruct(type):
    """The metaclass of the sparse tensors: a class of it is a struct in graph code (module
    docstring). The marker lives on the metaclass, so the class has it and instances do not."""

    @property
    def __mycel_graph_struct__(cls):
        return cls._graph_fields


@constexpr
def _check_shape(who, shape, rank=2):
    ok = isinstance(shape, (tuple, list)) and (rank is None or len(shape) == rank) and \
        len(shape) > 0 and all(isinstance(d, int) and not isinstance(d, bool) and d >= 0
                               for d in shape)
    if not ok:
        want = f"a tuple of {rank}" if rank else "a non-empty tuple of"
        extra = " (only 2-D sparse tensors are supported)" if rank == 2 else ""
        raise ValueError(f"For '{who}', shape must be {want} non-negative ints{extra}, but got "
                         f"{shape!r}.")
    return tuple(shape)


def _check_tensor(who, name, t, ndim, index=True):
    """t, a Tensor of rank ndim (an int dtype when index); graph code too (the checks are
    decided at compile time)."""
    if not isinstance(t, Tensor):
        raise TypeError(f"For '{who}', {name} must be a Tensor, but got {type(t).__name__}.")
    if ndim is not None and t.ndim != ndim:
        raise ValueError(f"For '{who}', {name} must be {ndim}-D, but got shape {t.shape}.")
    if index and t.dtype not in _INDEX_DTYPES:
        raise TypeError(f"For '{who}', {name} must be int16, int32 or int64, but got "
                        f"{t.dtype}.")
    return t


@constexpr
def _check_lengths(who, what, a_shape, b_shape):
    """a ValueError unless the first dimensions agree (-1, a dynamic one, agrees: graph code
    with a dynamic number of values checks nothing at compile time)."""
    a, b = a_shape[0], b_shape[0]
    if a >= 0 and b >= 0 and a != b:
        raise ValueError(f"For '{who}', {what}, but got {a} and {b}.")


def _check_kind(who, name, x, kind):
    if not isinstance(x, kind):
        raise TypeError(f"For '{who}', {name} must be a {kind.__name__}, but got "
                        f"{type(x).__name__}.")
    return x


def _check_csr(indptr, indices, values, shape):
    who = "CSRTensor"
    shape = _check_shape(who, shape)
    _check_tensor(who, "indptr", indptr, 1)
    _check_tensor(who, "indices", indices, 1)
    _check_tensor(who, "values", values, 1, index=False)
    if indptr.shape[0] != shape[0] + 1:
        raise ValueError(f"For 'CSRTensor', indptr must hold shape[0] + 1 = {shape[0] + 1} "
                         f"row starts, but got {indptr.shape[0]}.")
    _check_lengths(who, "indices and values must have the same length", indices.shape,
                   values.shape)
    return shape


def _check_coo(who, indices, values, shape):
    shape = _check_shape(who, shape)
    _check_tensor(who, "indices", indices, 2)
    _check_tensor(who, "values", values, 1, index=False)
    if indices.shape[1] != len(shape):
        raise ValueError(f"For '{who}', indices must have shape [N, {len(shape)}], but got "
                         f"{indices.shape}.")
    _check_lengths(who, "indices must have one row per value", indices.shape, values.shape)
    return shape


class _Sparse(metaclass=_GraphStruct):
    """What both sparse forms have: the values, the dense shape and their properties (the
    properties read public fields, so they run as graph code on a struct too)."""

    # Tensor's operators return NotImplemented for an operand of this class, so that
    # ``dense * csr`` reaches CSRTensor.__rmul__ (python/py_tensor.cc).
    __mycel_reflected__ = True

    values = property(lambda self: self._values, doc="The non-zero values (1-D Tensor).")
    shape = property(lambda self: self._shape, doc="The dense shape (a tuple).")
    dtype = property(lambda self: self.values.dtype, doc="The values' dtype.")
    size = property(lambda self: self.values.size, doc="The number of stored values.")
    ndim = property(lambda self: len(self.shape), doc="The dense rank (2).")
    itemsize = property(lambda self: self.values.itemsize, doc="Bytes of one value.")


class CSRTensor(_Sparse):
    """A 2-D sparse matrix in compressed sparse row form (``mindspore.CSRTensor``).

    indptr: 1-D int Tensor of ``shape[0] + 1`` row starts into ``values``; indices: 1-D int
    Tensor, the column of each value; values: 1-D Tensor of the non-zero values; shape: the
    dense shape, a tuple of two ints. ``csr_tensor`` copies another CSRTensor."""

    _graph_fields = ("indptr", "indices", "values", "shape")

    def __init__(self, indptr=None, indices=None, values=None, shape=None, csr_tensor=None):
        if csr_tensor is not None:
            _check_kind("CSRTensor", "csr_tensor", csr_tensor, CSRTensor)
            indptr, indices, values, shape = csr_tensor.to_tuple()
        shape = _check_csr(indptr, indices, values, shape)
        self._indptr, self._indices, self._values, self._shape = indptr, indices, values, shape

    @classmethod
    def _graph_new(cls, indptr=None, indices=None, values=None, shape=None, csr_tensor=None):
        """CSRTensor(...) in graph code: the struct, checked as __init__ checks."""
        if csr_tensor is not None:
            return _check_kind("CSRTensor", "csr_tensor", csr_tensor, CSRTensor)
        return (cls, indptr, indices, values, _check_csr(indptr, indices, values, shape))

    indptr = property(lambda self: self._indptr, doc="The row starts (1-D int Tensor).")
    indices = property(lambda self: self._indices, doc="The column of each value (1-D int "
                                                       "Tensor).")

    def to_tuple(self):
        """(indptr, indices, values, shape)."""
        return self.indptr, self.indices, self.values, self.shape

    def astype(self, dtype):
        """The same matrix with its values cast to dtype."""
        return CSRTensor(self.indptr, self.indices, self.values.astype(dtype), self.shape)

    def __repr__(self):
        return (f"CSRTensor(shape={list(self.shape)}, dtype={self.dtype}, indptr="
                f"{self.indptr}, indices={self.indices}, values={self.values})")


class COOTensor(_Sparse):
    """A 2-D sparse matrix in coordinate form (``mindspore.COOTensor``).

    indices: 2-D int Tensor ``[N, 2]``, the ``[row, column]`` of each value; values: 1-D
    Tensor ``[N]``; shape: the dense shape, a tuple of two ints. ``coo_tensor`` copies
    another COOTensor."""

    _graph_fields = ("indices", "values", "shape")

    def __init__(self, indices=None, values=None, shape=None, coo_tensor=None):
        if coo_tensor is not None:
            _check_kind("COOTensor", "coo_tensor", coo_tensor, COOTensor)
            indices, values, shape = coo_tensor.to_tuple()
        shape = _check_coo(type(self).__name__, indices, values, shape)
        self._indices, self._values, self._shape = indices, values, shape

    @classmethod
    def _graph_new(cls, indices=None, values=None, shape=None, coo_tensor=None):
        """COOTensor(...) in graph code: the struct, checked as __init__ checks."""
        if coo_tensor is not None:
            return _check_kind("COOTensor", "coo_tensor", coo_tensor, COOTensor)
        return (cls, indices, values, _check_coo(cls.__name__, indices, values, shape))

    indices = property(lambda self: self._indices, doc="The [row, column] of each value.")

    def to_tuple(self):
        """(indices, values, shape)."""
        return self.indices, self.values, self.shape

    def astype(self, dtype):
        """The same matrix with its values cast to dtype."""
        return COOTensor(self.indices, self.values.astype(dtype), self.shape)

    def __repr__(self):
        return (f"COOTensor(shape={list(self.shape)}, dtype={self.dtype}, indices="
                f"{self.indices}, values={self.values})")


def _check_row(who, indices, values, shape):
    shape = _check_shape(who, shape, None)
    _check_tensor(who, "indices", indices, 1)
    _check_tensor(who, "values", values, None, index=False)
    if tuple(values.shape) != (indices.shape[0],) + tuple(shape[1:]):
        raise ValueError(f"For '{who}', values must have shape [len(indices)] + shape[1:] = "
                         f"{[indices.shape[0]] + list(shape[1:])}, but got "
                         f"{list(values.shape)}.")
    return shape


class RowTensorInner(metaclass=_GraphStruct):
    """Slices of a dense tensor (MindSpore's ``RowTensor``, the sparse gradient of a Gather):
    values[i] is row indices[i] of a tensor of shape dense_shape, other rows zero.

    indices: 1-D int Tensor [L]; values: Tensor [L] + dense_shape[1:]; shape: the dense shape
    (a tuple of ints). ``row_tensor`` copies another RowTensor."""

    _graph_fields = ("indices", "values", "dense_shape")
    _name = "RowTensorInner"  # (graph code's type() of a struct is its tuple)

    def __init__(self, indices=None, values=None, shape=None, row_tensor=None):
        if row_tensor is not None:
            _check_kind(type(self).__name__, "row_tensor", row_tensor, RowTensorInner)
            indices, values, shape = (row_tensor.indices, row_tensor.values,
                                      row_tensor.dense_shape)
        shape = _check_row(type(self).__name__, indices, values, shape)
        self._indices, self._values, self._shape = indices, values, shape

    @classmethod
    def _graph_new(cls, indices=None, values=None, shape=None, row_tensor=None):
        """RowTensorInner(...) in graph code: the struct, checked as __init__ checks."""
        if row_tensor is not None:
            return _check_kind(cls.__name__, "row_tensor", row_tensor, RowTensorInner)
        return (cls, indices, values, _check_row(cls.__name__, indices, values, shape))

    indices = property(lambda self: self._indices, doc="The row of each slice (1-D int).")
    values = property(lambda self: self._values, doc="The slices.")
    dense_shape = property(lambda self: self._shape, doc="The dense shape (a tuple).")

    def __repr__(self):
        return (f"{self._name}(dense_shape={list(self.dense_shape)}, indices="
                f"{self.indices}, values={self.values})")


class RowTensor(RowTensorInner):
    """``mindspore.RowTensor``: RowTensorInner under its public name."""

    _name = "RowTensor"


class SparseTensor(COOTensor):
    """``mindspore.SparseTensor``, the name MindSpore 1.x gave a COO tensor (deprecated since
    MindSpore 1.7 in favour of COOTensor; here it warns and is a COOTensor):
    SparseTensor(indices [N, 2], values [N], shape), its dense shape also as ``dense_shape``."""

    def __init__(self, indices, values, shape):
        warnings.warn("'SparseTensor' is deprecated; use 'COOTensor' instead.",
                      DeprecationWarning, stacklevel=2)
        super().__init__(indices, values, shape)

    dense_shape = property(lambda self: self.shape, doc="The dense shape (a tuple).")


__all__ = ["CSRTensor", "COOTensor", "RowTensor", "RowTensorInner", "SparseTensor"]
