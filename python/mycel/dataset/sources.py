"""Source datasets read by index through a sampler (SourceDataset), and the in-memory and Python
sources: NumpySlicesDataset, GeneratorDataset. The file sources live beside this module
(sources_image.py, sources_text.py, sources_mindrecord.py).

A SourceDataset wraps a C++ source (``_mycel._data.Source``, src/data/source.h) and a Sampler
(samplers.py) that picks each epoch's rows: all rows, in order or in a fresh random order
(shuffle, the default), an explicit sampler or list of indices, one shard
(num_shards/shard_id), the first num_samples. The engine reads the rows on
num_parallel_workers threads. Rows are read-only views of the loaded data.
"""
import numpy as np

import mycel
from mycel import _mycel
from mycel.dataset._validate import _reraise, check_bool, check_columns, check_int
from mycel.dataset.engine import Dataset
from mycel.dataset.samplers import Sampler, source_sampler
from mycel.dataset.transforms import _numpy_dtype

_data = _mycel._data


class SourceDataset(Dataset):
    """A dataset read by index from a C++ source in the order of a sampler.

    func names the class in messages; source is a ``_mycel._data.Source``; the other
    arguments choose the rows (module doc)."""

    _reads_by_index = True

    def __init__(self, func, source, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None):
        super().__init__((), num_parallel_workers)
        self._source = source
        self.sampler = source_sampler(func, num_samples, shuffle, sampler, num_shards, shard_id)
        self._names = list(source.columns())

    def _columns(self):
        return self._names

    def _node(self, counted=False):
        return _data.source_node(self._source, self.sampler._c_sampler_for(self._source),
                                 self._workers())

    def use_sampler(self, sampler):
        """Read the rows this sampler picks (replaces the sampler of the arguments)."""
        if not isinstance(sampler, Sampler):
            raise TypeError(f"use_sampler: sampler must be a Sampler, but got "
                            f"{type(sampler).__name__}.")
        self.sampler = sampler


# ----- numpy slices -----

class NumpySlicesDataset(SourceDataset):
    """NumpySlicesDataset(data, column_names=None, num_samples=None, num_parallel_workers=1,
    shuffle=None, sampler=None, num_shards=None, shard_id=None): rows are slices along axis 0.

    data is a dict (keys are the column names), a tuple (one column per item), or anything
    else numpy can convert (a list or an array: one column). Columns are copied.
    Default names: "column_0", "column_1", ... ."""

    def __init__(self, data, column_names=None, num_samples=None, num_parallel_workers=1,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None):
        func = "NumpySlicesDataset"
        names = None
        if isinstance(data, dict):
            names, data = [str(k) for k in data], tuple(data.values())
        columns = data if isinstance(data, tuple) else (data,)
        arrays = []
        for i, c in enumerate(columns):
            a = _as_column(c)
            if a.ndim == 0:
                raise ValueError(f"{func}: column {i} is a scalar; each column must have a "
                                 "first axis to slice.")
            if a.dtype == object:
                raise TypeError(f"{func}: column {i} is not a rectangular numeric array (numpy "
                                "made an object array of it).")
            arrays.append(a)
        if not arrays:
            raise ValueError(f"{func}: data has no columns.")
        lengths = [len(a) for a in arrays]
        if len(set(lengths)) > 1:
            raise ValueError(f"{func}: the columns have different lengths {lengths}.")
        names = check_columns(func, "column_names", column_names, none_ok=True) or names or \
            [f"column_{i}" for i in range(len(arrays))]
        if len(names) != len(arrays):
            raise ValueError(f"{func}: column_names has {len(names)} names for {len(arrays)} "
                             "columns.")
        source = _data.ArraySource(func, arrays, names)
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)


def _as_column(value):
    """One column of NumpySlicesDataset as a numpy array."""
    if isinstance(value, mycel.Tensor):
        return value.asnumpy()
    return np.asarray(value)


# ----- generator -----

def _convert_row(func, item, names, types):
    """One item of a GeneratorDataset source as a row: a tuple/list gives one column per
    element, anything else one column; each converted to a numpy array."""
    values = item if isinstance(item, (tuple, list)) else (item,)
    if isinstance(item, dict):
        raise TypeError(f"{func}: the source must give arrays or tuples of arrays, not dicts.")
    if len(values) != len(names):
        raise RuntimeError(f"{func}: the source gave {len(values)} column(s) but column_names "
                           f"has {len(names)}: {names}.")
    row = []
    for name, v, t in zip(names, values, types or [None] * len(names)):
        a = _as_column(v) if not isinstance(v, np.ndarray) else v
        if a.dtype == object:
            raise TypeError(f"{func}: column {name!r} got {type(v).__name__} {v!r}, which is "
                            "not convertible to a numeric numpy array.")
        if t is not None and a.dtype != t:
            raise TypeError(f"{func}: column {name!r} has dtype {a.dtype} but column_types "
                            f"says {t}.")
        row.append(a)
    return tuple(row)


class GeneratorDataset(Dataset):
    """GeneratorDataset(source, column_names=None, column_types=None, schema=None,
    num_samples=None, num_parallel_workers=1, shuffle=None, sampler=None, num_shards=None,
    shard_id=None, python_multiprocessing=True, max_rowsize=None): rows from Python.

    source is a random-access object (__getitem__ and __len__: read by index, shuffled by
    default, shardable), a generator function (called once per epoch) or an iterable
    (iterated once per epoch; shuffle, sampler and shards are then refused, as MindSpore).
    Each item is a tuple/list of columns or a single column (arrays, numbers, Tensors).
    column_names is required; column_types (mycel or numpy dtypes) checks each column's dtype.
    The source runs under the GIL on one engine thread (python_multiprocessing and max_rowsize
    are accepted and ignored); schema is not supported."""

    def __init__(self, source, column_names=None, column_types=None, schema=None,
                 num_samples=None, num_parallel_workers=1, shuffle=None, sampler=None,
                 num_shards=None, shard_id=None, python_multiprocessing=True, max_rowsize=None):
        func = "GeneratorDataset"
        super().__init__((), num_parallel_workers)
        self._random_access = hasattr(source, "__getitem__") and hasattr(source, "__len__")
        if not self._random_access:
            if not callable(source) and not hasattr(source, "__iter__"):
                raise TypeError(f"{func}: source must be random-access (__getitem__ and "
                                f"__len__), a generator function or an iterable, but got "
                                f"{type(source).__name__}.")
            if shuffle or sampler is not None or num_shards is not None:
                raise ValueError(f"{func}: shuffle, sampler and num_shards/shard_id need a "
                                 "random-access source (__getitem__ and __len__).")
        if schema is not None:
            raise NotImplementedError(f"{func}: schema is not supported; give column_names "
                                      "(and column_types).")
        if column_names is None:
            raise ValueError(f"{func}: column_names is required.")
        self._names = check_columns(func, "column_names", column_names)
        if column_types is not None:
            if not isinstance(column_types, (list, tuple)) or \
                    len(column_types) != len(self._names):
                raise ValueError(f"{func}: column_types must be a list with one dtype per "
                                 f"column ({len(self._names)}), but got {column_types!r}.")
            column_types = [_numpy_dtype(func, t) for t in column_types]
        self._types = column_types
        check_bool(func, "python_multiprocessing", python_multiprocessing)
        check_int(func, "max_rowsize", max_rowsize, 1, none_ok=True)
        self.source = source
        self._counted = None
        if self._random_access:
            self.sampler = source_sampler(func, num_samples, shuffle, sampler, num_shards,
                                          shard_id)
        else:
            self._limit = check_int(func, "num_samples", num_samples, 1, none_ok=True)

    def _columns(self):
        return self._names

    def _node(self, counted=False):
        if self._random_access:
            src = _data.PySource(self._read, len(self.source), self._names)
            return _data.source_node(src, self.sampler._c_sampler_for(src), 1)
        if counted and self._counted is None:  # a dry pass, as MindSpore does for unsized sources
            self._counted = sum(1 for _ in self._items())
        size = -1 if self._counted is None else self._counted
        return _data.stream_node(self._open, self._names, size)

    def _read(self, i):
        try:
            item = self.source[i]
        except Exception as err:  # re-raised naming the source and the index
            _reraise(err, f"GeneratorDataset: source[{i}] raised {type(err).__name__}: {err}")
        return _convert_row("GeneratorDataset", item, self._names, self._types)

    def _open(self):
        """One epoch's rows as an object whose __next__ gives a row, then None."""
        rows = (_convert_row("GeneratorDataset", item, self._names, self._types)
                for item in self._items())
        return _Rows(rows)

    def _items(self):
        src, limit = self.source, self._limit
        try:
            items = iter(src() if callable(src) and not hasattr(src, "__iter__") else src)
            n = 0
            while limit is None or limit == 0 or n < limit:
                try:
                    item = next(items)
                except StopIteration:
                    return
                n += 1
                yield item
        except Exception as err:  # re-raised naming the source
            _reraise(err, f"GeneratorDataset: the source raised {type(err).__name__}: {err}")


class _Rows:
    """An iterator's rows for the engine: __next__ returns None at the end."""

    def __init__(self, rows):
        self._rows = rows

    def __next__(self):
        return next(self._rows, None)
