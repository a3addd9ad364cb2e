"""Iterators over a dataset: TupleIterator (rows as lists) and DictIterator (rows as dicts).

An iterator plans its pipeline once (engine._plan) and owns one _Run, so its epochs draw
successive random orders; each new iterator on the same dataset starts a new run (seeded from
the dataset seed and the number of iterators made before it). Values become mycel Tensors
unless output_numpy is True (do_copy=False shares the memory of writable arrays, such as
batches). numpy types mycel lacks widen losslessly: uint16 -> int32, uint32 -> int64 (MNIST
labels), uint64 -> int64 when the values fit.
"""
import numpy as np

import mycel
from mycel.dataset import config
from mycel.dataset._validate import check_bool, check_int
from mycel.dataset.engine import ProjectDataset, _plan, _Run

_WIDEN = {np.dtype(np.uint16): np.int32, np.dtype(np.uint32): np.int64,
          np.dtype(np.uint64): np.int64}


class Iterator:
    """Base of the dataset iterators: pulls rows from the planned pipeline, epoch by epoch.

    Each ``for`` loop over the iterator runs one epoch; starting epoch num_epochs + 1 (when
    num_epochs is not -1) raises RuntimeError."""

    def __init__(self, dataset, num_epochs=-1, output_numpy=False, do_copy=True, columns=None):
        func = type(self).__name__
        self._num_epochs = check_int(func, "num_epochs", num_epochs, -1)
        if self._num_epochs == 0:
            raise ValueError(f"{func}: num_epochs must be -1 or positive, but got 0.")
        self._output_numpy = check_bool(func, "output_numpy", output_numpy)
        self._do_copy = check_bool(func, "do_copy", do_copy)
        self._plan = _plan(dataset if columns is None else ProjectDataset(dataset, columns))
        self._columns = self._plan._columns()
        self._run = _Run(self._plan, config._entropy(dataset._passes))
        dataset._passes += 1
        self._epoch = 0
        self._rows = None

    def __iter__(self):
        """The iterator itself: each ``for`` loop over it is one epoch."""
        return self

    def __next__(self):
        """The next row; StopIteration ends an epoch."""
        if self._rows is None:
            if self._num_epochs != -1 and self._epoch >= self._num_epochs:
                raise RuntimeError(f"{type(self).__name__}: all num_epochs={self._num_epochs} "
                                   "epochs were consumed; create the iterator with a larger "
                                   "num_epochs (or -1).")
            self._rows = self._plan._rows(self._run)
        row = next(self._rows, None)
        if row is None:
            self._rows = None
            self._epoch += 1
            raise StopIteration
        if self._output_numpy:
            return self._pack(row)
        return self._pack([self._tensor(name, a) for name, a in zip(self._columns, row)])

    def get_col_names(self):
        """The column names of the rows."""
        return list(self._columns)

    def _tensor(self, name, a):
        if a.dtype in _WIDEN:
            if a.dtype == np.uint64 and (a > np.uint64(np.iinfo(np.int64).max)).any():
                raise TypeError(f"{type(self).__name__}: column {name!r} has uint64 values "
                                "beyond int64, which mycel Tensors cannot hold; use "
                                "output_numpy=True.")
            a = a.astype(_WIDEN[a.dtype])
        elif a.dtype.kind not in "biuf":
            raise TypeError(f"{type(self).__name__}: column {name!r} has dtype {a.dtype}, which "
                            "mycel Tensors cannot hold; use output_numpy=True.")
        # Read-only arrays are views of a source's data: a Tensor must not write into them.
        if self._do_copy or not a.flags.writeable:
            return mycel.Tensor(a)
        return mycel.from_numpy(a)

    def _pack(self, values):
        raise NotImplementedError


class TupleIterator(Iterator):
    """Rows as lists, in column order (``for image, label in iterator``)."""

    def __init__(self, dataset, columns=None, num_epochs=-1, output_numpy=False, do_copy=True):
        super().__init__(dataset, num_epochs, output_numpy, do_copy, columns)

    def _pack(self, values):
        return list(values)


class DictIterator(Iterator):
    """Rows as dicts {column name: value}."""

    def _pack(self, values):
        return dict(zip(self._columns, values))
