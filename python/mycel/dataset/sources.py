"""Source datasets read by index through a sampler (SourceDataset), and the in-memory and Python
sources: NumpySlicesDataset, GeneratorDataset. The file sources live beside this module
(sources_image.py, sources_text.py, sources_mindrecord.py).

A SourceDataset wraps a C++ source (``_mycel._data.Source``, src/data/source.h) and a Sampler
(samplers.py) that picks each epoch's rows: all rows, in order or in a fresh random order
(shuffle, the default), an explicit sampler or list of indices, one shard
(num_shards/shard_id), the first num_samples. The engine reads the rows on
num_parallel_workers threads. Rows are read-only views of the loaded data.
"""
import builtins
import copy
import types

import numpy as np

import mycel
from mycel import _mycel
from mycel.dataset._validate import (_reraise, check_bool, check_columns, check_int,
                                     check_max_rowsize, check_num_samples,
                                     pipeline_error_type)
from mycel.dataset import config
from mycel.dataset.engine import Dataset, _seed
from mycel.dataset.samplers import Sampler, source_sampler
from mycel.dataset.batch_sampler import batches, check_batch_sampler
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

    def __deepcopy__(self, memo):
        """A copy whose Python state is deep-copied and which shares the C++ source (read-only,
        and not picklable): copy.deepcopy(dataset) as MindSpore's tests use it."""
        memo[id(self._source)] = self._source
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        for key, value in self.__dict__.items():
            setattr(new, key, copy.deepcopy(value, memo))
        return new

    def use_sampler(self, sampler):
        """Read the rows this sampler picks (replaces the sampler of the arguments)."""
        if not isinstance(sampler, Sampler):
            raise TypeError(f"use_sampler: the sampler is not an instance of a sampler "
                            f"(ds.Sampler), but {type(sampler).__name__}.")
        self.sampler = sampler

    def add_sampler(self, new_sampler):
        """Chain new_sampler above the current sampler (MindSpore's add_sampler): the current
        one becomes new_sampler's child, so new_sampler picks among the rows it gives."""
        if not isinstance(new_sampler, Sampler):
            raise TypeError(f"add_sampler: the sampler is not an instance of a sampler "
                            f"(ds.Sampler), but {type(new_sampler).__name__}.")
        new_sampler.add_child(self.sampler)
        self.sampler = new_sampler


# ----- numpy slices -----

class NumpySlicesDataset(SourceDataset):
    """NumpySlicesDataset(data, column_names=None, num_samples=None, num_parallel_workers=1,
    shuffle=None, sampler=None, num_shards=None, shard_id=None): rows are slices along axis 0.

    data is a dict (keys are the column names), a tuple (one column per item), or anything
    else numpy can convert (a list or an array: one column). Columns are copied. A list
    column whose rows differ in shape ([[], [1], [2, 3]], arrays of different lengths) keeps
    each row as its own array (MindSpore's dynamic rows), read through a Python source.
    Default names: "column_0", "column_1", ... ."""

    def __init__(self, data, column_names=None, num_samples=None, num_parallel_workers=1,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None):
        func = "NumpySlicesDataset"
        names = None
        if isinstance(data, dict):
            names, data = [str(k) for k in data], tuple(data.values())
        columns = data if isinstance(data, tuple) else (data,)
        if any(isinstance(c, (list, tuple)) and not c for c in columns) or not columns:
            raise ValueError(f"{func}: Argument data cannot be empty.")
        arrays, ragged = [], False
        for i, c in enumerate(columns):
            a = _ragged_column(func, i, c)
            if a is None:
                a = _as_column(c)
            else:
                ragged = True
            if not isinstance(a, list) and a.ndim == 0:
                raise ValueError(f"{func}: column {i} is a scalar; each column must have a "
                                 "first axis to slice.")
            if not isinstance(a, list) and a.dtype == object:
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
        if ragged:  # rows of different shapes: each row its own array, read in Python
            self._rows = arrays
            source = _data.PySource(self._read_row, lengths[0], names)
        else:
            source = _data.ArraySource(func, arrays, names)
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)

    def _read_row(self, i):
        return tuple(np.ascontiguousarray(col[i]) for col in self._rows)


def _ragged_column(func, i, value):
    """A list/tuple column whose items have different shapes (MindSpore's "dynamic" column:
    [[], [1], [2, 3]], or arrays of different lengths) as the list of its rows, each a
    numpy array (an empty list row takes the dtype of the others); None for any other column
    (numpy makes it one array)."""
    if not isinstance(value, (list, tuple)) or not value:
        return None
    try:
        a = np.asarray(value)
        if a.dtype != object:
            return None
    except ValueError:  # numpy's "inhomogeneous shape"
        pass
    rows = []
    for k, v in enumerate(value):
        try:
            r = _as_column(v)
        except ValueError:  # numpy's "inhomogeneous shape": a ragged row
            r = np.empty(0, object)
        if r.dtype == object:
            raise TypeError(f"{func}: row {k} of column {i} is not a rectangular numeric array "
                            "(numpy made an object array of it).")
        rows.append(r)
    typed = [r.dtype for r, v in zip(rows, value) if r.size or isinstance(v, np.ndarray)]
    if typed:  # an empty list has no type of its own: it takes the column's
        common = np.result_type(*typed)
        rows = [r.astype(common) if not r.size and not isinstance(v, np.ndarray) else r
                for r, v in zip(rows, value)]
    return rows


def _as_column(value):
    """One column of NumpySlicesDataset as a numpy array."""
    if isinstance(value, mycel.Tensor):
        return value.asnumpy()
    return np.asarray(value)


# ----- generator -----

def _convert_row(func, item, names, types):
    """One item of a GeneratorDataset source as a row: a tuple/list gives one column per
    element, anything else one column; each converted to a numpy array. Errors are pipeline
    errors (pipeline_error_type) with MindSpore's wording."""
    values = item if isinstance(item, (tuple, list)) else (item,)
    if len(values) != len(names):
        raise RuntimeError(f"{func}: Invalid Python function, the 'source' of 'GeneratorDataset' "
                           f"should return same number of NumPy arrays as specified in "
                           f"column_names, the size of column_names is:{len(names)} and number "
                           f"of returned NumPy array is:{len(values)}. column_names: {names}.")
    row = []
    for i, (name, v, t) in enumerate(zip(names, values, types or [None] * len(names))):
        if isinstance(v, dict):  # a Python dict column (_pyobjects.py)
            row.append(v)
            continue
        a = _as_column(v) if not isinstance(v, np.ndarray) else v
        if a.dtype == object:
            raise pipeline_error_type(TypeError)(
                f"{func}: Data type of {i + 1}th item of the input or its converted Numpy array "
                f"is expected to be int or float or str, but got {a.dtype} (column {name!r} got "
                f"{type(v).__name__} {v!r}).")
        if t is not None and a.dtype != t:
            raise pipeline_error_type(TypeError)(
                f"{func}: column {name!r} has dtype {a.dtype} but column_types says {t}.")
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
                 num_shards=None, shard_id=None, python_multiprocessing=True, max_rowsize=None,
                 batch_sampler=None, collate_fn=None):
        func = "GeneratorDataset"
        super().__init__((), num_parallel_workers)
        check_batch_sampler(func, batch_sampler, collate_fn,
                            (num_samples, shuffle, num_shards, shard_id, sampler), source)
        self._batch_sampler, self._collate_fn = batch_sampler, collate_fn
        if isinstance(source, builtins.zip):  # iterable once: read into a list (MindSpore's)
            source = list(source)
        elif isinstance(source, types.GeneratorType):  # iterable once: replayed each epoch
            source = _Replay(source)
        # __getitem__ without __len__: random access is asked for but cannot be planned
        self._needs_len = hasattr(source, "__getitem__") and not hasattr(source, "__len__") \
            and not hasattr(source, "__iter__") and not callable(source)
        self._random_access = hasattr(source, "__getitem__") and hasattr(source, "__len__") \
            and batch_sampler is None
        if not self._random_access and batch_sampler is None and not self._needs_len:
            if not callable(source) and not hasattr(source, "__iter__"):
                raise TypeError(f"{func}: source must be random-access (__getitem__ and "
                                f"__len__), a generator function or an iterable, but got "
                                f"{type(source).__name__}.")
            if shuffle or sampler is not None or num_shards is not None:
                raise ValueError(f"{func}: shuffle, sampler and num_shards/shard_id need a "
                                 "random-access source (__getitem__ and __len__).")
        if schema is not None:
            column_names, column_types = _schema_columns(func, schema, column_names,
                                                         column_types)
        if column_names is None:
            raise ValueError(f"{func}: column_names is required (or a schema).")
        self._names = check_columns(func, "column_names", column_names)
        if column_types is not None:
            if not isinstance(column_types, (list, tuple)) or \
                    len(column_types) != len(self._names):
                raise ValueError(f"{func}: column_types must be a list with one dtype per "
                                 f"column ({len(self._names)}), but got {column_types!r}.")
            column_types = [None if t is None else _numpy_dtype(func, t) for t in column_types]
        self._types = column_types
        check_bool(func, "python_multiprocessing", python_multiprocessing)
        check_max_rowsize(func, max_rowsize)
        self.source = source
        self._counted = None
        if self._random_access:
            self.sampler = source_sampler(func, num_samples, shuffle, sampler, num_shards,
                                          shard_id)
        else:
            self._limit = check_num_samples(func, num_samples)

    def _columns(self):
        return self._names

    @property
    def _reads_by_index(self):
        """A random-access source is read by index through its sampler (split shuffles it)."""
        return self._random_access

    def __getitem__(self, index):
        """source[k] as the source gives it, k the index-th row the sampler reads in the first
        epoch of this dataset's latest iterator (of the next one before any): MindSpore's
        random access, which maps index through the sampler (shuffle, shards, num_samples)."""
        if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.number)):
            raise TypeError(f"GeneratorDataset: Argument index with value {index} is not of type "
                            f"[<class 'int'>, <class 'numpy.number'>], but got {type(index)}.")
        if not self._random_access:
            raise RuntimeError("GeneratorDataset: Dataset don't support randomized access. The "
                               "source has no __getitem__ and __len__.")
        index = int(index)
        if index < 0:
            raise RuntimeError(f"GeneratorDataset: Index [{index}] can not be a negative number.")
        seed = getattr(self, "_last_seed", None)
        if seed is None:
            seed = _seed(config._pipeline_entropy(self._passes))
            self._last_seed = seed
        # the key of the only source of this dataset's own pipeline: (Source kind 0, rank 0)
        order = self.sampler._c_sampler().order(len(self.source), seed, 0, 0)
        if index >= len(order):
            raise RuntimeError(f"GeneratorDataset: Index [{index}] exceeded the number of data "
                               f"samples. The sampler reads {len(order)}.")
        return self.source[int(order[index])]

    def _node(self, counted=False):
        if self._needs_len:
            raise RuntimeError("GeneratorDataset: Attempt to construct a random access dataset, "
                               "'__len__' method is required! The source has __getitem__ only.")
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

    def get_batch_size(self):
        """-1 with a batch_sampler (its batches may differ in size), as MindSpore's; else the
        batch size of Dataset.get_batch_size."""
        return -1 if self._batch_sampler is not None else super().get_batch_size()

    def _items(self):
        if self._batch_sampler is not None:
            convert = lambda item: _convert_row("GeneratorDataset", item, self._names,  # noqa
                                                self._types)
            yield from batches("GeneratorDataset", self.source, self._batch_sampler,
                               self._collate_fn, self._names, convert)
            return
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


def _schema_columns(func, schema, column_names, column_types):
    """GeneratorDataset's column names and types from schema (a Schema or its JSON file's
    path); string columns are not checked."""
    from mycel.dataset.schema import Schema
    if isinstance(schema, str):
        schema = Schema(schema)
    if not isinstance(schema, Schema):
        raise TypeError(f"{func}: schema must be a Schema or the path of a schema file, but got "
                        f"{type(schema).__name__}.")
    if not schema.columns:
        raise ValueError(f"{func}: the schema has no columns.")
    names = [c["name"] for c in schema.columns]
    if column_names is not None and check_columns(func, "column_names", column_names) != names:
        raise ValueError(f"{func}: column_names {column_names} differ from the schema's "
                         f"columns {names}.")
    types = [None if c["type"] == "string" else np.dtype(c["type"]) for c in schema.columns]
    return names, column_types if column_types is not None else types


class _Replay:
    """A generator object as a source that can be iterated once per epoch: the first pass
    records its items, later passes replay them (and go on with the generator where an
    earlier pass stopped early)."""

    def __init__(self, gen):
        self._gen, self._items, self._done = gen, [], False

    def __iter__(self):
        i = 0
        while True:
            if i < len(self._items):
                yield self._items[i]
            elif self._done:
                return
            else:
                try:
                    item = next(self._gen)
                except StopIteration:
                    self._done = True
                    return
                self._items.append(item)
                yield item
            i += 1


class _Rows:
    """An iterator's rows for the engine: __next__ returns None at the end."""

    def __init__(self, rows):
        self._rows = rows

    def __next__(self):
        return next(self._rows, None)
