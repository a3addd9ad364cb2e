"""Python dicts in dataset rows (MindSpore's "Python objects in the pipeline").

A column value may be a Python dict. The C++ engine carries it as an opaque Object
(src/data/array.h; src/python/py_data_object.cc calls the functions here, with the GIL held):
shuffle, repeat, project, rename, zip, concat, skip and take pass it through; Python functions
in map, filter and per_batch_map receive the dict itself; built-in (C++) transforms refuse it
with a TypeError.

- ``normalize``: when a dict enters the engine (a GeneratorDataset row, a map or
  per_batch_map result), its leaves become numpy arrays, recursively through dicts, tuples and
  lists (an int becomes a 0-d int64 array, a str a 0-d str array, a Tensor its numpy array).
- ``batch``: batch() gathers the rows' dicts into one dict with the same keys; each key's
  values are stacked into one numpy array (nested dicts batched key by key), or, for rows
  that came out of a per_batch_map, kept as a list (MindSpore's rule).
- ``to_tensors``: iterators without output_numpy give numeric leaves as mycel Tensors
  (string leaves stay numpy str arrays, as string columns do).
- ``batch_map_result``: what per_batch_map returned, checked as MindSpore checks it (a dict
  for some column makes the result one whole batch).
"""
import numpy as np

import mycel

__all__ = []


def _leaf(value):
    """A non-container value as a numpy array (objects numpy cannot hold stay as they are)."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, mycel.Tensor):
        return value.asnumpy()
    array = np.asarray(value)
    return value if array.dtype == object else array


def normalize(value):
    """value with its leaves as numpy arrays (module doc); containers are rebuilt, so the
    caller's dict is not changed."""
    if isinstance(value, dict):
        return {k: normalize(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(normalize(v) for v in value)
    if isinstance(value, list):
        return [normalize(v) for v in value]
    return _leaf(value)


def _stack(key, values):
    """One key's values over a batch's rows as one numpy array."""
    if all(isinstance(v, dict) for v in values):
        return _batch_dicts(values, False)
    try:
        out = np.array(values)
    except ValueError as err:
        raise RuntimeError(f"Batch: failed to create a NumPy array with primitive types from "
                           f"the values of key {key!r} of a Python dict column: {err}") from err
    if out.dtype == object:
        raise RuntimeError(f"Batch: failed to create a NumPy array with primitive types from "
                           f"the values of key {key!r} of a Python dict column (numpy made an "
                           f"object array of {[type(v).__name__ for v in values]}).")
    return out


def _batch_dicts(rows, as_lists):
    keys = list(rows[0])
    for row in rows[1:]:
        if not isinstance(row, dict) or list(row) != keys:
            got = list(row) if isinstance(row, dict) else type(row).__name__
            raise RuntimeError(f"Batch: the rows of a Python dict column must have the same "
                               f"keys, but got {keys} and {got}.")
    if as_lists:
        return {k: [row[k] for row in rows] for k in keys}
    return {k: _stack(k, [row[k] for row in rows]) for k in keys}


def batch(rows, as_lists):
    """The rows' values of one dict column as one dict (module doc)."""
    if not all(isinstance(row, dict) for row in rows):
        raise RuntimeError(f"Batch: a Python dict column has rows of types "
                           f"{sorted({type(r).__name__ for r in rows})}; every row must be a "
                           f"dict.")
    return _batch_dicts(rows, as_lists)


def to_tensors(value):
    """A copy of value whose numeric numpy leaves are mycel Tensors."""
    if isinstance(value, dict):
        return {k: to_tensors(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(to_tensors(v) for v in value)
    if isinstance(value, list):
        return [to_tensors(v) for v in value]
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        return mycel.Tensor(np.ascontiguousarray(value))
    return value


def batch_map_result(func_name, result, names):
    """per_batch_map's result (a tuple, one item per output column named by names) as
    (columns, whole) for the engine: whole when some column is a dict, every column then one
    value (a dict or a numpy array) for the whole batch, and likewise when every column is a
    NumPy array (the batched columns themselves); otherwise each column is the list of
    the batch's rows, all of one length. RuntimeError in MindSpore's words otherwise."""
    if any(isinstance(col, dict) for col in result):
        for name, col in zip(names, result):
            if not isinstance(col, (dict, np.ndarray)):
                raise RuntimeError(
                    f"batch: per_batch_map {func_name}: Failed to convert rows: mismatched types "
                    f"returned from per_batch_map function: a Python dict makes one value for the "
                    f"whole batch, so column {name!r} must be a dict or a NumPy array, but got "
                    f"{type(col).__name__}.")
        return [[col] for col in result], True
    if result and all(isinstance(col, np.ndarray) for col in result):
        # every column a NumPy array: the batch's columns as they are (MindSpore's: the
        # batched arrays, even 0-d ones); beside a list column an array is a list of rows
        return [[col] for col in result], True
    columns = []
    for col in result:
        columns.append([v if isinstance(v, dict) else _as_row(v) for v in col])
    if columns:
        n = len(columns[0])
        for name, col in zip(names, columns):
            if len(col) != n:
                raise RuntimeError(f"batch: per_batch_map {func_name}: Invalid data, column: "
                                   f"{name} expects: {n} rows returned from 'per_batch_map', "
                                   f"got: {len(col)}.")
    return columns, False


def _as_row(value):
    return value.asnumpy() if isinstance(value, mycel.Tensor) else np.asarray(value)
