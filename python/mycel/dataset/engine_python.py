"""Pipeline ops written in Python over their child's rows: bucket_batch_by_length, and split of
a dataset that is not read by index.

Each class here checks its arguments and turns one epoch of the child's rows (lists of numpy
arrays) into its own rows (``rows``); ``engine.PythonStreamDataset`` runs it: a stream source
for the C++ engine (``_data.stream_node``, as GeneratorDataset) that each epoch runs its child
as a pipeline of its own. The child's run of epoch e draws its random orders from the dataset
seed and e, so a seeded run repeats, and the epochs of a run differ, as for the other ops.
This module imports nothing of the dataset package but its validators (engine imports it).
"""
import numpy as np

from mycel.dataset._validate import check_columns, check_int


# ----- bucket_batch_by_length -----

def _type_error(name, value, types):
    shown = f'"{value}"' if isinstance(value, str) else value
    return TypeError(f"bucket_batch_by_length: Argument {name} with value {shown} is not of type "
                     f"{types}, but got {type(value)}.")


def _int_list(name, values, positive_msg):
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise TypeError(f"bucket_batch_by_length: {name} should be a list of int, but got "
                        f"{values!r}.")
    if not all(v > 0 for v in values):
        raise ValueError(f"bucket_batch_by_length: {positive_msg} Got {values!r}.")


class BucketBatchByLength:
    """dataset.bucket_batch_by_length: rows go to the bucket of their length (bucket i holds
    lengths in [b[i-1], b[i]) of the boundaries b, from 0 to infinity); a bucket that holds
    its batch size of rows is batched (padded per pad_info; without one, every column to the
    batch's largest shape with 0 or "") and emitted. At the end of an
    epoch the partial buckets are emitted in bucket order (dropped with drop_remainder)."""

    def __init__(self, child_columns, column_names, bucket_boundaries, bucket_batch_sizes,
                 element_length_function=None, pad_info=None, pad_to_bucket_boundary=False,
                 drop_remainder=False):
        self.child_columns = list(child_columns)
        self.columns = self.child_columns
        for name, value in (("column_names", column_names),
                            ("bucket_boundaries", bucket_boundaries),
                            ("bucket_batch_sizes", bucket_batch_sizes)):
            if not isinstance(value, list):
                raise _type_error(name, value, [list])
        for name, value in (("pad_to_bucket_boundary", pad_to_bucket_boundary),
                            ("drop_remainder", drop_remainder)):
            if not isinstance(value, bool):
                raise _type_error(name, value, [bool])
        for i, c in enumerate(column_names):
            if not isinstance(c, str):
                raise _type_error(f"column_names[{i}]", c, [str])
        self.column_names = check_columns("bucket_batch_by_length", "column_names",
                                          column_names)
        if element_length_function is None and len(column_names) != 1:
            raise ValueError("bucket_batch_by_length: If element_length_function is not "
                             "specified, exactly one column name should be passed.")
        if element_length_function is not None and not callable(element_length_function):
            raise TypeError("bucket_batch_by_length: element_length_function object is not "
                            "callable.")
        if not bucket_boundaries:
            raise ValueError("bucket_batch_by_length: bucket_boundaries cannot be empty.")
        _int_list("bucket_boundaries", bucket_boundaries,
                  "bucket_boundaries must only contain positive numbers.")
        for a, b in zip(bucket_boundaries, bucket_boundaries[1:]):
            if b <= a:
                raise ValueError(f"bucket_batch_by_length: bucket_boundaries should be strictly "
                                 f"increasing, but got {bucket_boundaries}.")
        if len(bucket_batch_sizes) != len(bucket_boundaries) + 1:
            raise ValueError(f"bucket_batch_by_length: bucket_batch_sizes must contain one "
                             f"element more than bucket_boundaries ({len(bucket_batch_sizes)} "
                             f"and {len(bucket_boundaries)}).")
        _int_list("bucket_batch_sizes", bucket_batch_sizes,
                  "bucket_batch_sizes should be a list of positive numbers.")
        self.pad_info = self._check_pads(pad_info or {}, self.child_columns)
        self.bucket_boundaries = list(bucket_boundaries)
        self.bucket_batch_sizes = list(bucket_batch_sizes)
        self.element_length_function = element_length_function
        self.pad_to_bucket_boundary = pad_to_bucket_boundary
        self.drop_remainder = drop_remainder

    @staticmethod
    def _check_pads(pad_info, cols):
        if not isinstance(pad_info, dict):
            raise _type_error("pad_info", pad_info, [dict])
        pads = {}
        for name, spec in pad_info.items():
            if not isinstance(name, str):
                raise TypeError(f"bucket_batch_by_length: pad_info keys must be column names, "
                                f"but got {name!r}.")
            if name not in cols:
                raise ValueError(f"bucket_batch_by_length: pad_info names the column {name!r}, "
                                 f"which the dataset does not have ({cols}).")
            if not isinstance(spec, (tuple, list)) or len(spec) != 2:
                raise TypeError(f"bucket_batch_by_length: pad_info[{name!r}] must be (shape, "
                                f"pad_value), but got {spec!r}.")
            shape, value = spec
            if shape is not None:
                shape = [None if d is None else check_int("bucket_batch_by_length",
                                                          "pad shape", d, 1) for d in shape]
            if value is not None and (isinstance(value, bool) or
                                      not isinstance(value, (int, float, str, np.number))):
                raise TypeError(f"bucket_batch_by_length: the pad value of {name!r} must be a "
                                f"number or str, but got {value!r}.")
            pads[name] = (shape, value)
        return pads

    def _length(self, row, index):
        args = [row[i] for i in index]
        if self.element_length_function is None:
            if args[0].ndim == 0:
                raise RuntimeError(f"bucket_batch_by_length: column {self.column_names[0]!r} is "
                                   "a scalar; without element_length_function the length is "
                                   "its first dimension.")
            return int(args[0].shape[0])
        out = self.element_length_function(*args)
        length = int(np.asarray(out).reshape(-1)[0])
        if length < 0:
            raise RuntimeError(f"bucket_batch_by_length: Invalid element_length_function, "
                               f"element_length_function must return an integer greater than "
                               f"or equal to 0, but got {length}.")
        return length

    def size(self):
        """Rows per epoch: -1, they depend on the data."""
        return -1

    def rows(self, rows):
        """The epoch's batches (tuples of arrays) from the child's rows."""
        cols = self.child_columns
        missing = [c for c in self.column_names if c not in cols]
        if missing:
            raise RuntimeError(f"BucketBatchByLength: Couldn't find the specified column in the "
                               f"dataset: {missing} (the columns are {cols}).")
        index = [cols.index(c) for c in self.column_names]
        bounds = [0] + self.bucket_boundaries
        buckets = [[] for _ in bounds]
        for row in rows:
            length = self._length(row, index)
            b = len(bounds) - 1
            while length < bounds[b]:
                b -= 1
            buckets[b].append(row)
            if len(buckets[b]) == self.bucket_batch_sizes[b]:
                yield self._batch(buckets[b], b, bounds, cols)
                buckets[b] = []
        if not self.drop_remainder:
            for b, bucket in enumerate(buckets):
                if bucket:
                    yield self._batch(bucket, b, bounds, cols)

    def _batch(self, rows, bucket, bounds, cols):
        out = []
        # no pad_info (None or {}): every column is padded to the batch's largest shape
        pads = self.pad_info or {name: (None, None) for name in cols}
        for c, name in enumerate(cols):
            values = [r[c] for r in rows]
            if name in pads:
                shape, value = pads[name]
                if self.pad_to_bucket_boundary:
                    if bucket + 1 >= len(bounds):
                        raise RuntimeError(
                            f"bucket_batch_by_length: Invalid data, requested to pad to bucket "
                            f"boundary failed, bucket index should be less than {len(bounds) - 1}"
                            f", but got {bucket} (the last bucket has no upper boundary).")
                    shape = [bounds[bucket + 1] - 1 if d is None else d
                             for d in (shape or [None] * values[0].ndim)]
                values = _pad(name, values, shape, value)
            shapes = {v.shape for v in values}
            if len(shapes) > 1:
                raise RuntimeError(f"bucket_batch_by_length: column {name!r} has rows of "
                                   f"different shapes {sorted(shapes)} in one batch; pad them "
                                   "with pad_info.")
            out.append(np.stack(values))
        return tuple(out)


def _pad(name, values, shape, value):
    """values padded to shape (None entries or shape None: the largest of values) with value
    (None: 0, or "" for strings)."""
    ndim = values[0].ndim
    if any(v.ndim != ndim for v in values):
        raise RuntimeError(f"bucket_batch_by_length: column {name!r} has rows of different ranks; "
                           "they cannot be padded to one shape.")
    shape = list(shape) if shape is not None else [None] * ndim
    if len(shape) != ndim:
        raise RuntimeError(f"bucket_batch_by_length: the pad shape {shape} of column {name!r} has "
                           f"rank {len(shape)}, but its rows have rank {ndim}.")
    target = [max(v.shape[i] for v in values) if d is None else d for i, d in enumerate(shape)]
    out = []
    for v in values:
        if any(s > t for s, t in zip(v.shape, target)):
            raise RuntimeError(f"bucket_batch_by_length: a row of column {name!r} of shape "
                               f"{list(v.shape)} is larger than the pad shape {target}.")
        fill = value if value is not None else ("" if v.dtype.kind in "US" else 0)
        dtype = np.result_type(v.dtype, np.array(fill).dtype) if v.dtype.kind in "US" \
            else v.dtype
        p = np.full(target, fill, dtype=dtype)
        p[tuple(slice(0, s) for s in v.shape)] = v
        out.append(p)
    return out


# ----- split of a dataset read in order -----

class SplitPart:
    """One part of dataset.split(sizes, randomize=True) of a dataset not read by index: each
    epoch reads the child's epoch and gives the rows at positions order[start:stop] of a
    permutation fixed at the split (so the parts are disjoint and cover the epoch)."""

    def __init__(self, child_columns, order, start, stop):
        self.columns = list(child_columns)
        self._positions = [int(p) for p in order[start:stop]]

    def size(self):
        """Rows per epoch."""
        return len(self._positions)

    def rows(self, rows):
        """The part's rows of the child's epoch."""
        rows = list(rows)
        for p in self._positions:
            if p >= len(rows):
                raise RuntimeError(f"split: the dataset gave {len(rows)} rows this epoch, fewer "
                                   f"than when it was split; row {p} of a part is missing.")
            yield tuple(rows[p])


# ----- sharding a concatenation (ConcatDataset.use_sampler) -----

class ShardRows:
    """The rows first, first + step, ... of the child's epoch (size: the child's rows, -1 when
    unknown): one child of a sharded concatenation that is not read by index."""

    def __init__(self, columns, first, step, size):
        self.columns = list(columns)
        self._first, self._step, self._size = first, step, size

    def size(self):
        if self._size < 0:
            return -1
        return len(range(self._first, self._size, self._step))

    def rows(self, rows):
        for p, row in enumerate(rows):
            if p >= self._first and (p - self._first) % self._step == 0:
                yield row


def random_interleave(pipes, sizes, rng):
    """The rows of several child pipelines interleaved at random (ConcatDataset.use_sampler
    with a RandomSampler): each next row comes from a child drawn with probability
    proportional to its rows left, so every interleaving is equally likely and each child
    keeps its own order. The pipelines are stopped at the end."""
    left = np.array(sizes, np.float64)
    try:
        while left.sum() > 0:
            k = int(rng.choice(len(left), p=left / left.sum()))
            row = pipes[k].next(True)
            if row is None:  # fewer rows than its size said
                left[k] = 0
                continue
            left[k] -= 1
            yield row
    finally:
        for pipe in pipes:
            pipe.stop()
