"""RandomDataset: rows of random values, MindSpore's RandomDataset (for testing pipelines)."""
import numpy as np

from mycel import _mycel
from mycel.dataset import config
from mycel.dataset._validate import check_columns, check_int
from mycel.dataset.schema import Schema
from mycel.dataset.sources import SourceDataset

__all__ = ["RandomDataset"]

_MAX_ROWS = 1024  # total_rows when not given: drawn from [1, _MAX_ROWS]
_RANDOM_TYPES = ("uint8", "int32", "int64", "float32", "float64", "bool")


class RandomDataset(SourceDataset):
    """RandomDataset(total_rows=None, schema=None, columns_list=None, num_samples=None,
    num_parallel_workers=None, cache=None, shuffle=None, num_shards=None, shard_id=None).

    total_rows rows (None: a random count in [1, 1024]) whose columns follow schema (a Schema or
    a schema file's path: each column's name, numeric type and shape; a column without a shape
    gets a random one), or, without a schema, 1 to 4 columns "c0", "c1", ... of random numeric
    types and shapes (1 to 3 dimensions of 1 to 16). Values are uniform: integers over their
    type's range (at most [0, 255] for wider types), floats in [0, 1), bools. columns_list keeps
    those columns. The values come from a generator seeded by config.get_seed(), drawn when the
    dataset is made; the other arguments choose the rows as for every source (cache is
    accepted and ignored). TypeError/ValueError for bad arguments or string columns."""

    def __init__(self, total_rows=None, schema=None, columns_list=None, num_samples=None,
                 num_parallel_workers=None, cache=None, shuffle=None, num_shards=None,
                 shard_id=None):
        func = "RandomDataset"
        total_rows = check_int(func, "total_rows", total_rows, 1, 2**31 - 1, none_ok=True)
        rng = np.random.default_rng(config.get_seed())
        if total_rows is None:
            total_rows = int(rng.integers(1, _MAX_ROWS + 1))
        specs = _columns(func, schema, rng)
        if columns_list is not None:
            keep = check_columns(func, "columns_list", columns_list)
            names = [s[0] for s in specs]
            missing = [c for c in keep if c not in names]
            if missing:
                raise ValueError(f"{func}: columns_list names {missing}, which the schema does "
                                 f"not have (its columns: {names}).")
            specs = [specs[names.index(c)] for c in keep]
        arrays = [_random_values(rng, dtype, [total_rows] + shape) for _, dtype, shape in specs]
        source = _mycel._data.ArraySource(func, arrays, [s[0] for s in specs])
        self.total_rows = total_rows
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler=None,
                         num_shards=num_shards, shard_id=shard_id)


def _columns(func, schema, rng):
    """[(name, numpy dtype name, shape)] of the rows."""
    if schema is None:
        return [(f"c{i}", str(rng.choice(_RANDOM_TYPES)), _random_shape(rng))
                for i in range(int(rng.integers(1, 5)))]
    if isinstance(schema, str):
        schema = Schema(schema)
    if not isinstance(schema, Schema):
        raise TypeError(f"{func}: schema must be a Schema or a schema file path, but got "
                        f"{type(schema).__name__}.")
    out = []
    for col in schema.columns:
        if col["type"] == "string":
            raise TypeError(f"{func}: column {col['name']!r} is a string column; RandomDataset "
                            "makes numeric columns only.")
        shape = col["shape"]
        out.append((col["name"], col["type"],
                    _random_shape(rng) if shape is None else [int(d) for d in shape]))
    if not out:
        raise ValueError(f"{func}: the schema has no columns.")
    return out


def _random_shape(rng):
    return [int(d) for d in rng.integers(1, 17, int(rng.integers(1, 4)))]


def _random_values(rng, dtype, shape):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dt.kind == "f":
        return rng.random(shape).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(max(info.min, 0), min(info.max, 255) + 1, shape).astype(dt)
