"""The Dataset class and its pipeline ops (shuffle, batch, map, repeat, project, rename).

A pipeline is a tree of Dataset nodes (sources at the leaves, see sources.py). Running it is
pulling rows: each node's ``_rows(run)`` generator makes one pass over the node and yields
rows, tuples of numpy arrays in ``get_col_names()`` order. ``run`` (a _Run) is one iterator's
state: a numpy Generator per random node, so successive passes (repeat, epochs) reshuffle
while one seed makes the whole sequence reproducible.

Vectorised maps. Before running, ``_plan`` rewrites ``batch(map(...(map(x))))``: a run of maps
directly below a batch whose operations are all built-in transforms (TensorOperation) moves
above the batch and runs once per batch on the stacked columns. Built-in transforms act on
each sample independently and keep equal sample shapes equal, so the result is identical to
mapping each sample and stacking; a map with any Python callable stays per sample, and so
does every map above it in the run.
"""
import copy
import math

import numpy as np

from mycel.dataset import config
from mycel.dataset._validate import (check_bool, check_columns, check_int, check_known_columns,
                                     check_workers)
from mycel.dataset.transforms import _as_array, _check_operations, _op_name


class Dataset:
    """Base of every dataset: the pipeline ops and iterators of MindSpore's ``Dataset``.

    Each op returns a new Dataset whose child is this one."""

    _random = None  # "sampler" or "shuffle" for nodes that draw random numbers

    def __init__(self, children=(), num_parallel_workers=None):
        self.children = list(children)
        self.num_parallel_workers = check_workers(type(self).__name__, num_parallel_workers)
        self._passes = 0  # iterators created on this dataset: each one reshuffles

    # ----- pipeline ops -----
    def shuffle(self, buffer_size):
        """Shuffle rows through a buffer of buffer_size rows (buffer_size >= 2), reshuffling
        each epoch; buffer_size >= the dataset size gives a uniform shuffle."""
        return ShuffleDataset(self, buffer_size)

    def batch(self, batch_size, drop_remainder=False, num_parallel_workers=None):
        """Stack batch_size consecutive rows into one (each column gains a leading axis); the
        last, smaller batch is dropped when drop_remainder is True."""
        return BatchDataset(self, batch_size, drop_remainder, num_parallel_workers)

    def map(self, operations, input_columns=None, output_columns=None, num_parallel_workers=None):
        """Apply operations (a transform or Python callable, or a list applied in order) to the
        input_columns of each row (default: the first column); their results become
        output_columns (default: input_columns)."""
        return MapDataset(self, operations, input_columns, output_columns, num_parallel_workers)

    def repeat(self, count=None):
        """Repeat the dataset count times (None or -1: forever), reshuffling each repetition."""
        return RepeatDataset(self, count)

    def project(self, columns):
        """Keep only columns (a name or a list), in the given order."""
        return ProjectDataset(self, columns)

    def rename(self, input_columns, output_columns):
        """Rename input_columns to output_columns (names or equal-length lists)."""
        return RenameDataset(self, input_columns, output_columns)

    # ----- iterators -----
    def create_tuple_iterator(self, columns=None, num_epochs=-1, output_numpy=False,
                              do_copy=True):
        """An iterator of rows as lists (MindSpore's order: get_col_names(), or columns).

        Items are mycel Tensors (copies with do_copy=True, else sharing the numpy memory), or
        numpy arrays when output_numpy is True. Each ``for`` loop over the iterator is one
        epoch; num_epochs (-1: unlimited) bounds how many."""
        from mycel.dataset.iterators import TupleIterator
        return TupleIterator(self, columns, num_epochs, output_numpy, do_copy)

    def create_dict_iterator(self, num_epochs=-1, output_numpy=False, do_copy=True):
        """Like create_tuple_iterator, with rows as dicts {column name: value}."""
        from mycel.dataset.iterators import DictIterator
        return DictIterator(self, num_epochs, output_numpy, do_copy)

    def __iter__(self):
        """Iterate over the dataset: ``create_tuple_iterator()``."""
        return self.create_tuple_iterator()

    # ----- information -----
    def get_col_names(self):
        """The column names, in row order."""
        return list(self._columns())

    def get_dataset_size(self):
        """The number of rows one epoch yields (batches after batch; -1 when infinite)."""
        n = self._num_rows()
        return -1 if n == math.inf else int(n)

    def get_batch_size(self):
        """The batch size of the last batch op (1 without one)."""
        node = self
        while node.children and not isinstance(node, BatchDataset):
            node = node.children[0]
        return node.batch_size if isinstance(node, BatchDataset) else 1

    def output_shapes(self):
        """The shape of each column in the first row, as lists."""
        return [list(a.shape) for a in self._first_row()]

    def output_types(self):
        """The numpy dtype of each column in the first row."""
        return [a.dtype for a in self._first_row()]

    def _first_row(self):
        plan = _plan(self)
        row = next(plan._rows(_Run(plan, config._entropy(self._passes))), None)
        if row is None:
            raise RuntimeError(f"{type(self).__name__}: the dataset has no rows.")
        return row

    # ----- what subclasses provide -----
    def _columns(self):
        return self.children[0]._columns()

    def _num_rows(self):
        return self.children[0]._num_rows()

    def _rows(self, run):
        raise NotImplementedError

    def _batches(self, run, size, drop_remainder):
        """One pass's rows stacked into batches of size rows (a smaller last one unless
        drop_remainder). Sources that can gather whole batches at once override this."""
        names, buf = self._columns(), []
        for row in self._rows(run):
            buf.append(row)
            if len(buf) == size:
                yield _stack(names, buf)
                buf = []
        if buf and not drop_remainder:
            yield _stack(names, buf)

    def _with_child(self, child):
        """A shallow copy of this node over another child (for _plan)."""
        node = copy.copy(self)
        node.children = [child]
        return node


def _walk(node):
    """The nodes of a tree, depth first, parents before children."""
    yield node
    for c in node.children:
        yield from _walk(c)


class _Run:
    """One iterator's randomness: a numpy Generator for each random node of the plan, keyed
    by the node's kind and its rank among nodes of that kind, so adding maps or batches to a
    pipeline does not change what its sources draw (shards of one seed stay aligned)."""

    _KINDS = {"sampler": 0, "shuffle": 1}

    def __init__(self, plan, entropy):
        self._rngs = {}
        seen = {}
        for node in _walk(plan):
            if node._random:
                k = seen[node._random] = seen.get(node._random, -1) + 1
                self._rngs[id(node)] = np.random.default_rng(
                    entropy + [self._KINDS[node._random], k])

    def rng(self, node):
        """The generator of a random node."""
        return self._rngs[id(node)]


def _plan(node):
    """The tree to run: node's tree with vectorisable maps moved above their batch (module doc)."""
    children = [_plan(c) for c in node.children]
    if children != node.children:
        node = copy.copy(node)
        node.children = children
    if isinstance(node, BatchDataset):
        maps, below = [], node.children[0]
        while isinstance(below, MapDataset) and not below._batched and below._batchable:
            maps.append(below)
            below = below.children[0]
        if maps:
            node = node._with_child(below)
            for m in reversed(maps):
                node = m._with_child(node)
                node._batched = True
    return node


class ShuffleDataset(Dataset):
    """dataset.shuffle(buffer_size): MindSpore's buffer shuffle."""

    _random = "shuffle"

    def __init__(self, child, buffer_size):
        super().__init__([child])
        self.buffer_size = check_int("shuffle", "buffer_size", buffer_size, 2, 2**31 - 1)

    def _rows(self, run):
        rng = run.rng(self)
        rows = iter(self.children[0]._rows(run))
        buf = [r for _, r in zip(range(self.buffer_size), rows)]
        draws, k = rng.random(1024), 0
        while buf:
            if k == len(draws):
                draws, k = rng.random(1024), 0
            i = int(draws[k] * len(buf))
            k += 1
            out = buf[i]
            nxt = next(rows, None)
            if nxt is not None:
                buf[i] = nxt
            else:
                buf[i] = buf[-1]
                buf.pop()
            yield out


class BatchDataset(Dataset):
    """dataset.batch(batch_size, drop_remainder): stack consecutive rows column by column."""

    def __init__(self, child, batch_size, drop_remainder=False, num_parallel_workers=None):
        super().__init__([child], num_parallel_workers)
        self.batch_size = check_int("batch", "batch_size", batch_size, 1, 2**31 - 1)
        self.drop_remainder = check_bool("batch", "drop_remainder", drop_remainder)

    def _num_rows(self):
        n = self.children[0]._num_rows()
        if n == math.inf:
            return n
        return n // self.batch_size if self.drop_remainder else -(-n // self.batch_size)

    def _rows(self, run):
        return self.children[0]._batches(run, self.batch_size, self.drop_remainder)


def _stack(names, rows):
    """Rows stacked column by column (a leading batch axis); RuntimeError naming the column
    when its rows differ in shape or dtype."""
    out = []
    for j, name in enumerate(names):
        values = [r[j] for r in rows]
        kinds = {v.dtype for v in values}
        if len(kinds) > 1 and not all(k.kind in "SU" for k in kinds):
            raise RuntimeError(f"batch: column {name!r} has rows of different dtypes "
                               f"{sorted(map(str, kinds))}; cast them to one type first.")
        try:
            out.append(np.stack(values))
        except ValueError:
            shapes = sorted({v.shape for v in values})
            raise RuntimeError(f"batch: column {name!r} has rows of different shapes "
                               f"{shapes}; rows of a batch must have equal shapes.") from None
    return tuple(out)


class MapDataset(Dataset):
    """dataset.map(operations, input_columns, output_columns): transform columns row by row
    (or batch by batch after _plan, see the module doc)."""

    def __init__(self, child, operations, input_columns=None, output_columns=None,
                 num_parallel_workers=None):
        super().__init__([child], num_parallel_workers)
        self.operations = _check_operations("map", operations)
        cols = child._columns()
        self.input_columns = check_columns("map", "input_columns", input_columns,
                                           none_ok=True) or [cols[0]]
        check_known_columns("map", self.input_columns, cols)
        self.output_columns = check_columns("map", "output_columns", output_columns,
                                            none_ok=True) or self.input_columns
        self._in_index = [cols.index(c) for c in self.input_columns]
        if len(self.input_columns) == len(self.output_columns):
            names = list(cols)
            for i, c in zip(self._in_index, self.output_columns):
                names[i] = c
            self._keep = None
        else:
            self._keep = [i for i, c in enumerate(cols) if c not in self.input_columns]
            names = self.output_columns + [cols[i] for i in self._keep]
        if len(set(names)) != len(names):
            raise ValueError(f"map: the output columns {names} have duplicate names.")
        self._names = names
        self._batchable = all(getattr(op, "_batchable", False) for op in self.operations)
        self._batched = False  # set by _plan when the map runs after its batch

    def _columns(self):
        return self._names

    def _rows(self, run):
        for row in self.children[0]._rows(run):
            yield self._apply(row)

    def _apply(self, row):
        args = tuple(row[i] for i in self._in_index)
        for op in self.operations:
            try:
                out = op._apply_batch(*args) if self._batched else op(*args)
            except Exception as err:  # re-raised with the transform and columns named
                _reraise(err, f"map: operation {_op_name(op)} failed on column(s) "
                              f"{self.input_columns}: {err}")
            args = out if isinstance(out, tuple) else (out,)
        if len(args) != len(self.output_columns):
            raise RuntimeError(f"map: the operations returned {len(args)} column(s) but "
                               f"output_columns has {len(self.output_columns)}: "
                               f"{self.output_columns}.")
        args = [_as_array(a) for a in args]
        if self._keep is None:
            row = list(row)
            for i, a in zip(self._in_index, args):
                row[i] = a
            return tuple(row)
        return tuple(args) + tuple(row[i] for i in self._keep)


def _reraise(err, message):
    """Raise message with err's exception type (RuntimeError when that type cannot be built
    from one message), chained to err."""
    try:
        new = type(err)(message)
    except Exception:  # an exception class with a different constructor
        new = RuntimeError(message)
    raise new from err


class RepeatDataset(Dataset):
    """dataset.repeat(count): the child's passes one after another."""

    def __init__(self, child, count=None):
        super().__init__([child])
        if count is None or (isinstance(count, int) and count == -1):
            count = None
        else:
            count = check_int("repeat", "count", count, 1)
        self.count = count

    def _num_rows(self):
        n = self.children[0]._num_rows()
        if self.count is None:
            return math.inf if n else 0
        return n * self.count

    def _rows(self, run):
        done = 0
        while self.count is None or done < self.count:
            empty = True
            for row in self.children[0]._rows(run):
                empty = False
                yield row
            done += 1
            if empty:  # repeating an empty dataset forever yields nothing, not a hang
                return


class ProjectDataset(Dataset):
    """dataset.project(columns): keep and reorder columns."""

    def __init__(self, child, columns):
        super().__init__([child])
        self.columns = check_columns("project", "columns", columns)
        check_known_columns("project", self.columns, child._columns())
        self._index = [child._columns().index(c) for c in self.columns]

    def _columns(self):
        return self.columns

    def _rows(self, run):
        idx = self._index
        for row in self.children[0]._rows(run):
            yield tuple(row[i] for i in idx)


class RenameDataset(Dataset):
    """dataset.rename(input_columns, output_columns): new names, same rows."""

    def __init__(self, child, input_columns, output_columns):
        super().__init__([child])
        ins = check_columns("rename", "input_columns", input_columns)
        outs = check_columns("rename", "output_columns", output_columns)
        if len(ins) != len(outs):
            raise ValueError(f"rename: input_columns and output_columns must have the same "
                             f"length, but got {len(ins)} and {len(outs)}.")
        check_known_columns("rename", ins, child._columns())
        mapping = dict(zip(ins, outs))
        self._names = [mapping.get(c, c) for c in child._columns()]
        if len(set(self._names)) != len(self._names):
            raise ValueError(f"rename: the new columns {self._names} have duplicate names.")

    def _columns(self):
        return self._names

    def _rows(self, run):
        return self.children[0]._rows(run)
