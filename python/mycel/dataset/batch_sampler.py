"""GeneratorDataset(batch_sampler=..., collate_fn=...): batches chosen by the user's sampler.

batch_sampler is an iterable of index lists (iterated once per epoch); each list's rows are
read from the random-access source and become one batch: without collate_fn each column is
the stack of the rows' values (equal shapes needed), with it collate_fn(*columns) makes the
batch, each column given as the list of the rows' values (numpy arrays where numpy can
convert them, else as the source gave them, e.g. dicts). collate_fn returns one value per
column (a tuple, or one value for one column): an array is the batch's column as it is, a
list or tuple of per-row values is stacked. Such a GeneratorDataset reads in order (a stream):
it has no random access, and batch_size reports -1 as MindSpore's does.
"""
import collections.abc

import numpy as np


def check_batch_sampler(func, batch_sampler, collate_fn, others, source):
    """MindSpore's argument rules for batch_sampler and collate_fn."""
    if batch_sampler is not None:
        if any(v is not None for v in others):
            raise ValueError(f"{func}: batch_sampler is mutually exclusive with num_samples, "
                             "shuffle, num_shards, shard_id and sampler.")
        if not isinstance(batch_sampler, collections.abc.Iterable):
            raise TypeError(f"{func}: batch_sampler should have __getitem__ or __iter__ method, "
                            f"but got {type(batch_sampler).__name__}.")
        if not hasattr(source, "__getitem__"):
            raise ValueError(f"{func}: batch_sampler is not supported if source does not have "
                             "attribute '__getitem__'.")
    if collate_fn is not None:
        if batch_sampler is None:
            raise ValueError(f"{func}: collate_fn can be specified only when batch_sampler is "
                             "set.")
        if not callable(collate_fn):
            raise TypeError(f"{func}: collate_fn should be callable, but got "
                            f"{type(collate_fn).__name__}.")


def _loose(value):
    """A row's value for collate_fn: a numpy array when numpy converts it, else itself."""
    if isinstance(value, np.ndarray):
        return value
    try:
        a = np.asarray(value)
    except (ValueError, TypeError):
        return value
    return value if a.dtype == object else a


def batches(func, source, batch_sampler, collate_fn, names, convert_row):
    """One epoch's batches as tuples of numpy arrays (module doc); convert_row(item) checks
    and converts a source item into a row when there is no collate_fn."""
    for b, indices in enumerate(batch_sampler):
        indices = [int(i) for i in np.asarray(indices).reshape(-1)]
        if not indices:
            raise RuntimeError(f"{func}: batch {b} of batch_sampler has no indices.")
        items = [source[i] for i in indices]
        if collate_fn is None:
            rows = [convert_row(item) for item in items]
            out = []
            for c, name in enumerate(names):
                shapes = {r[c].shape for r in rows}
                if len(shapes) > 1:
                    raise RuntimeError(f"{func}: column {name!r} of batch {b} has rows of "
                                       f"different shapes {sorted(shapes)}; give a collate_fn.")
                out.append(np.stack([r[c] for r in rows]))
            yield tuple(out)
            continue
        columns = [[] for _ in names]
        for item in items:
            values = item if isinstance(item, (tuple, list)) else (item,)
            if len(values) != len(names):
                raise RuntimeError(f"{func}: the source gave {len(values)} column(s) but "
                                   f"column_names has {len(names)}: {names}.")
            for c, v in enumerate(values):
                columns[c].append(_loose(v))
        res = collate_fn(*columns)
        res = res if isinstance(res, tuple) else (res,)
        if len(res) != len(names):
            raise RuntimeError(f"{func}: collate_fn returned {len(res)} column(s) but "
                               f"column_names has {len(names)}: {names}.")
        out = []
        for name, col in zip(names, res):
            if isinstance(col, (list, tuple)):
                col = np.stack([np.asarray(v) for v in col])
            col = np.asarray(col)
            if col.dtype == object:
                raise TypeError(f"{func}: collate_fn gave column {name!r} a value numpy cannot "
                                "convert to a numeric or string array.")
            out.append(col)
        yield tuple(out)
