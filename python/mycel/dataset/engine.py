"""The Dataset class and its pipeline ops. Running a pipeline is the C++ engine's job.

A pipeline is a tree of Dataset nodes (sources at the leaves: sources*.py). The Python
objects check arguments and track column names; an iterator turns the tree into C++ nodes
(``_node``, src/data/pipeline.h) and runs them as a ``_mycel._data.Pipeline``: every op on its
own worker threads (``num_parallel_workers``), joined by bounded order-preserving queues
(``config.set_prefetch_size``), taking the GIL only to call Python (callables in map, filter,
per_batch_map, GeneratorDataset). Results do not depend on the worker counts: each random draw
is keyed by (seed, op, epoch, row).

Vectorised maps. Before running, ``_plan`` rewrites ``batch(map(...(map(x))))``: a run of maps
directly below a batch whose operations are all batchable built-in transforms moves above the
batch and runs once per batch on the stacked columns. Batchable transforms act on each sample
independently, deterministically, and keep equal sample shapes equal, so the result is
identical to mapping each sample and stacking; a map with any other operation stays per
sample, and so does every map above it in the run.

Erroneous rows. ``config.set_error_samples_mode`` says what a map does with a row whose
operations raise: RETURN (the default) raises the error from the iterator; SKIP drops the row
(the epoch's size then depends on the data); REPLACE keeps the epoch's size: its erroneous
rows come after its good ones, each a copy of one of the epoch's first 16 good rows in turn
(an epoch without a good row raises "All data is garbage"). The mode in force when an
iterator starts applies to its maps, which then run per sample (no vectorised maps); debug mode
ignores it (config.active_error_samples_mode).
"""
import copy
import os
import threading

import numpy as np

from mycel import _mycel
from mycel.dataset import autotune, config
from mycel.dataset._validate import (_reraise, check_bool, check_columns, check_int,
                                     check_known_columns, check_max_rowsize,
                                     check_workers)
from mycel.dataset.debug import with_hooks
from mycel.dataset._pyobjects import batch_map_result
from mycel.dataset._serdes_record import record_init
from mycel.dataset.engine_python import (BucketBatchByLength, ShardRows, SplitPart,
                                          random_interleave)
from mycel.dataset.engine_sync import ReleasePair, callback_hooks, open_sync_waits
from mycel.dataset.iterators import DictIterator, TupleIterator
from mycel.dataset.samplers import (DistributedSampler, RandomSampler, SubsetRandomSampler,
                                    SubsetSampler)
from mycel.dataset.save import save
from mycel.dataset.transforms import (Compose, _as_array, _check_operations, _makes_pil,
                                      _op_name)

_data = _mycel._data
_INFINITE, _UNKNOWN = -2, -1
_building = threading.local()  # .callbacks: nodes are being built for an iterator's run


def _independent_mode():
    """MindSpore's MS_INDEPENDENT_DATASET (the pipeline in its own process there): features
    that talk to the training loop are refused under it, as MindSpore refuses them."""
    return os.environ.get("MS_INDEPENDENT_DATASET", "").lower() == "true"


class Dataset:
    """Base of every dataset: the pipeline ops and iterators of MindSpore's ``Dataset``.

    Each op returns a new Dataset whose child is this one."""

    _reads_by_index = False  # a source read by index through a sampler (SourceDataset)

    def __init_subclass__(cls, **kwargs):
        """Subclasses record their constructor arguments (for serialize.py)."""
        super().__init_subclass__(**kwargs)
        record_init(cls)

    def __init__(self, children=(), num_parallel_workers=None):
        self.children = list(children)
        self.num_parallel_workers = check_workers(type(self).__name__, num_parallel_workers)
        self._passes = 0  # iterators created on this dataset: each one reshuffles
        self._init_step = 0

    # ----- pipeline ops -----
    def shuffle(self, buffer_size):
        """Shuffle rows through a buffer of buffer_size rows (buffer_size >= 2), reshuffling
        each epoch; buffer_size >= the dataset size gives a uniform shuffle. Not allowed
        above a sync_wait (it releases rows in order)."""
        if _sync_waits(self):
            raise RuntimeError("shuffle: No shuffle after sync operators: the dataset has a "
                               "sync_wait below, which releases rows in their order.")
        return ShuffleDataset(self, buffer_size)

    def batch(self, batch_size, drop_remainder=False, num_parallel_workers=None, **kwargs):
        """Stack batch_size consecutive rows into one (each column gains a leading axis); the
        last, smaller batch of an epoch is dropped when drop_remainder is True.

        kwargs (MindSpore's): per_batch_map(col, ..., batch_info) gets each input column as
        the list of the batch's rows and returns the output columns likewise (before
        stacking); input_columns / output_columns choose them as in map. python_multiprocessing
        and max_rowsize are accepted and ignored (Python runs on engine threads). pad_info is
        padded_batch's (MindSpore 2.x's batch has none: a TypeError)."""
        if "pad_info" in kwargs:
            raise TypeError("batch() got an unexpected keyword argument 'pad_info' (use "
                            "padded_batch).")
        return BatchDataset(self, batch_size, drop_remainder, num_parallel_workers, **kwargs)

    def bucket_batch_by_length(self, column_names, bucket_boundaries, bucket_batch_sizes,
                               element_length_function=None, pad_info=None,
                               pad_to_bucket_boundary=False, drop_remainder=False):
        """Batch rows of similar length together: a row's length is
        element_length_function(*columns of column_names) (default: the first dimension of the
        one column named), its bucket the interval [b[i-1], b[i]) of bucket_boundaries holding
        it (0 and infinity at the ends), and a bucket that holds bucket_batch_sizes[i] rows is
        batched, columns padded as pad_info says ({column: (shape or None, pad value)};
        pad_to_bucket_boundary pads the None dimensions to the bucket's upper boundary - 1).
        At the end of an epoch the partial buckets follow in bucket order, unless
        drop_remainder. Runs in Python over the child's rows (engine_python.py)."""
        return PythonStreamDataset(self, BucketBatchByLength(
            self._columns(), column_names, bucket_boundaries, bucket_batch_sizes,
            element_length_function, pad_info, pad_to_bucket_boundary, drop_remainder))

    def padded_batch(self, batch_size, drop_remainder=False, num_parallel_workers=None,
                     pad_info=None):
        """batch, padding rows first: pad_info {column: (shape or None, pad_value)} pads that
        column to shape (None, or None entries: the batch's largest) with pad_value; pad_info
        None pads every column to the batch's largest shape with 0."""
        return BatchDataset(self, batch_size, drop_remainder, num_parallel_workers,
                            pad_info=pad_info if pad_info is not None else {})

    def map(self, operations, input_columns=None, output_columns=None, num_parallel_workers=None,
            **kwargs):
        """Apply operations (a transform or Python callable, or a list applied in order) to the
        input_columns of each row (default: the first column); their results become
        output_columns (default: input_columns). Runs on num_parallel_workers threads; random
        transforms give the same results whatever that number is.

        kwargs: callbacks (a DSCallback or a list, mycel.dataset.callback) get the map's
        begin / epoch / step events, on one worker in row order; MindSpore's other map options
        (python_multiprocessing, max_rowsize, cache, offload) are accepted and change nothing;
        column_order, which MindSpore 2.x removed, is its ValueError, another keyword a
        TypeError."""
        if "column_order" in kwargs:
            raise ValueError("map: The parameter 'column_order' had been deleted in map "
                             "operation. Use project (or rename) to order the columns.")
        unknown = sorted(set(kwargs) - _MAP_OPTIONS)
        if unknown:
            raise TypeError(f"map() got an unexpected keyword argument '{unknown[0]}'.")
        check_max_rowsize("map", kwargs.get("max_rowsize"))
        return MapDataset(self, operations, input_columns, output_columns, num_parallel_workers,
                          callbacks=kwargs.get("callbacks"))

    def filter(self, predicate, input_columns=None, num_parallel_workers=None):
        """Keep the rows for which predicate(*input_columns) is true (default: all columns)."""
        return FilterDataset(self, predicate, input_columns, num_parallel_workers)

    def repeat(self, count=None):
        """Repeat the dataset count times (None or -1: forever), reshuffling each repetition."""
        return RepeatDataset(self, count)

    def skip(self, count):
        """Drop the first count rows of every epoch."""
        return SkipDataset(self, count)

    def take(self, count=-1):
        """Keep the first count rows of every epoch (-1: all)."""
        return TakeDataset(self, count)

    def project(self, columns):
        """Keep only columns (a name or a list), in the given order."""
        return ProjectDataset(self, columns)

    def rename(self, input_columns, output_columns):
        """Rename input_columns to output_columns (names or equal-length lists)."""
        return RenameDataset(self, input_columns, output_columns)

    def zip(self, datasets):
        """Rows of this dataset and of datasets (one or a tuple) side by side; an epoch ends
        with the shortest. Column names must be distinct."""
        others = list(datasets) if isinstance(datasets, (tuple, list)) else [datasets]
        return ZipDataset([self] + others)

    def concat(self, datasets):
        """This dataset's rows, then those of datasets (one or a list), as one epoch."""
        others = list(datasets) if isinstance(datasets, (tuple, list)) else [datasets]
        return ConcatDataset([self] + others)

    def __add__(self, other):
        """``a + b`` is ``a.concat(b)``."""
        return self.concat(other)

    def split(self, sizes, randomize=True):
        """Split into len(sizes) datasets: sizes are row counts, or fractions summing to 1
        (rounded, the remainder going to the first). randomize shuffles the rows first (with
        the dataset seed); it needs a source dataset read by index."""
        randomize = check_bool("split", "randomize", randomize)
        n = self.get_dataset_size()
        counts = _split_counts(sizes, n)
        if not randomize and not self._reads_by_index:
            out, start = [], 0
            for k in counts:
                out.append(self.skip(start).take(k) if start else self.take(k))
                start += k
            return out
        if not self._reads_by_index:  # the rows of one permutation, read in order (Python)
            rng = np.random.default_rng(config._pipeline_entropy(0))
            order = rng.permutation(n)
            starts = np.cumsum([0] + counts)
            return [PythonStreamDataset(self, SplitPart(self._columns(), order, int(a), int(b)))
                    for a, b in zip(starts[:-1], starts[1:])]
        if isinstance(self.sampler, DistributedSampler):
            raise ValueError("split: the dataset is sharded; split it before sharding.")
        order = list(range(n))  # rows of the source (a capped sampler keeps the first n)
        if randomize:
            rng = np.random.default_rng(config._pipeline_entropy(0))
            order = [int(i) for i in rng.permutation(n)]
        kind = SubsetRandomSampler if isinstance(self.sampler, RandomSampler) else SubsetSampler
        out, start = [], 0
        for k in counts:
            part = copy.copy(self)
            part.sampler = kind(order[start:start + k])
            part._passes = 0
            out.append(part)
            start += k
        return out

    def sync_wait(self, condition_name, num_batch=1, callback=None):
        """Block the pipeline here until the training loop calls sync_update(condition_name):
        num_batch batches of the batch op above (rows, without one) pass per release, each
        release calling callback(data) first. A wait lasts at most
        config.get_callback_timeout() seconds; then a warning is logged and the condition is
        disabled (rows flow freely), so a missing sync_update cannot hang the pipeline."""
        return SyncWaitDataset(self, condition_name, num_batch, callback)

    def sync_update(self, condition_name, num_batch=None, data=None):
        """Release num_batch more batches (default: sync_wait's num_batch) past the sync_wait
        named condition_name, calling its callback(data) first."""
        if num_batch is not None and (not isinstance(num_batch, int) or num_batch <= 0):
            raise RuntimeError(f"sync_update: Sync_update batch size can only be positive, got : "
                               f"{num_batch}.")
        for node in _sync_waits(self):
            if node.condition_name == condition_name:
                node.pair.release(num_batch, data)
                return
        raise RuntimeError(f"sync_update: Condition name not found: no sync_wait named "
                           f"{condition_name!r} in the pipeline.")

    def disable_sync(self):
        """Let rows pass every sync_wait of the pipeline without waiting from now on."""
        for node in _sync_waits(self):
            node.pair.disable()

    def set_init_step(self, init_step):
        """Start iterators at step init_step (counted over epochs) of an uninterrupted run,
        without producing the steps before it: the position is pushed down to the sources
        (pipeline.h, "Resuming"); when the size per epoch depends on the data (a filter),
        the first init_step rows are produced and dropped instead. Returns self."""
        self._init_step = check_int("set_init_step", "init_step", init_step, 0)
        return self

    # ----- iterators -----
    def create_tuple_iterator(self, columns=None, num_epochs=-1, output_numpy=False,
                              do_copy=True):
        """An iterator of rows as lists (MindSpore's order: get_col_names(), or columns).

        Items are mycel Tensors, or numpy arrays when output_numpy is True. A Tensor never
        shares memory with the engine whatever do_copy says (accepted for MindSpore's
        signature): the engine hands over the bytes of a batch or a transform's output, which
        it no longer needs, and copies a view of a source's data. Each ``for`` loop over the
        iterator is one epoch; num_epochs (-1: unlimited) bounds how many."""
        return TupleIterator(self, columns, num_epochs, output_numpy, do_copy)

    def create_dict_iterator(self, num_epochs=-1, output_numpy=False, do_copy=True):
        """Like create_tuple_iterator, with rows as dicts {column name: value}."""
        return DictIterator(self, num_epochs, output_numpy, do_copy)

    def __iter__(self):
        """Iterate over the dataset once: ``create_tuple_iterator(num_epochs=1)``, as
        MindSpore (its pipeline has no epoch control: the profiler lists no EpochCtrlOp)."""
        return self.create_tuple_iterator(num_epochs=1)

    def _start_pipeline(self, columns, num_epochs, init_step=None, seed=None, tuned=False):
        """The C++ Pipeline an iterator runs for num_epochs epochs (-1: unlimited), planned
        once (_plan) over this dataset or its projection to columns, its column names and its
        seed. Each call draws new random orders (the seed mixes in the iterators made before)
        unless seed is given: an iterator's reset restarts its own run at step init_step
        (default: set_init_step's) with its own seed, so the rows are those of that run.
        tuned: the pipeline may be autotuned (autotune.py; a new iterator's, not a reset's),
        and the node-id -> dataset map of the tuner (None when untuned) is returned too."""
        if columns is None:  # MindSpore's metadata columns ("_meta-..."): left out unless renamed
            names = self._columns()
            if any(n.startswith("_meta-") for n in names):
                columns = [n for n in names if not n.startswith("_meta-")]
        plan = _plan(self if columns is None else ProjectDataset(self, columns))
        for node in _sync_waits(plan):
            node.pair.reset()
        if seed is None:
            seed = self.__dict__.pop("_next_seed", None)  # fixed ahead (MindDataset[i])
            if seed is None:
                seed = _seed(config._pipeline_entropy(self._passes))
            self._passes += 1
        self._last_seed = seed
        init_step = self._init_step if init_step is None else init_step
        _building.callbacks = True  # an iterator's run: map callbacks take part
        # the autotuner's and the profiler's arguments (a new iterator's pipeline only)
        tune = autotune.pipeline_options() if tuned else {}
        # node id -> plan dataset, for the autotuner
        _building.nodes = {} if "autotune_interval" in tune else None
        try:
            root = plan._node(counted=init_step > 0)
        finally:
            _building.callbacks = False
            nodes, _building.nodes = _building.nodes, None
        if nodes is not None:
            nodes[root.id] = plan
        pipe = _data.Pipeline(root, seed, num_epochs, init_step,
                              1 if config.get_debug_mode() else config.get_prefetch_size(),
                              **tune)
        if tuned:
            return pipe, plan._columns(), seed, nodes
        return pipe, plan._columns(), seed

    def save(self, file_name, num_files=1, file_type="mindrecord"):
        """Write one epoch as MindRecord files (num_files shards), MindSpore's Dataset.save;
        the schema and type rules are in mycel/dataset/save.py."""
        save(self, file_name, num_files, file_type)

    # ----- information -----
    def flat_map(self, func):
        """The datasets func returns for each row, concatenated (MindSpore's flat_map): this
        dataset is read once, now; func gets the row's values as its arguments (numpy arrays)
        and must return a Dataset."""
        if not callable(func):
            raise TypeError(f"flat_map: func must be a function, but got {type(func).__name__}.")
        out = None
        for row in self.create_tuple_iterator(num_epochs=1, output_numpy=True):
            part = func(*row)
            if not isinstance(part, Dataset):
                raise TypeError(f"flat_map: func must return a Dataset, but returned "
                                f"{type(part).__name__}.")
            out = part if out is None else out + part
        if out is None:
            raise ValueError("flat_map: the dataset has no rows, so there is nothing to map.")
        return out

    def apply(self, apply_func):
        """apply_func(self), which must return a Dataset (MindSpore's Dataset.apply: a function
        that adds ops)."""
        if not callable(apply_func):
            raise TypeError(f"apply: apply_func must be callable, but got "
                            f"{type(apply_func).__name__}.")
        out = apply_func(self)
        if not isinstance(out, Dataset):
            raise TypeError(f"apply: apply_func must return a Dataset, but returned "
                            f"{type(out).__name__}.")
        return out

    def get_class_indexing(self):
        """The {class name: label} mapping of the source below (ImageFolderDataset's), through
        the ops above it."""
        for child in self.children:
            if hasattr(child, "get_class_indexing"):
                return child.get_class_indexing()
        raise TypeError(f"get_class_indexing: {type(self).__name__} has no source with class "
                        "names below it.")

    def num_classes(self):
        """The number of classes of the source below (None when it has none)."""
        for child in self.children:
            return child.num_classes()
        return None

    def get_col_names(self):
        """The column names, in row order."""
        return list(self._columns())

    def get_dataset_size(self):
        """The number of rows one epoch yields (batches after batch; -1 when infinite). A
        pipeline with a filter is run once to count."""
        n = _plan(self)._node(counted=True).size()
        if n == _INFINITE:
            return -1
        if n == _UNKNOWN:
            it = self.create_tuple_iterator(num_epochs=1, output_numpy=True)
            self._passes -= 1  # counting does not use up a shuffle order
            n = sum(1 for _ in it)
        return n

    def __len__(self):
        """get_dataset_size (MindSpore's len(dataset)); an infinite dataset (repeat() without
        a count) has no len: a TypeError, which list() and length hints pass over."""
        n = self.get_dataset_size()
        if n < 0:
            raise TypeError(f"{type(self).__name__}: an infinite dataset (repeat() without a "
                            f"count) has no len().")
        return n

    def get_batch_size(self):
        """The batch size of the last batch op (1 without one)."""
        node = self
        while node.children and not isinstance(node, BatchDataset):
            node = node.children[0]
        if not isinstance(node, BatchDataset):
            return 1
        return -1 if callable(node.batch_size) else node.batch_size

    def get_repeat_count(self):
        """The count of the last repeat op (-1: forever; 1 without one)."""
        node = self
        while node.children and not isinstance(node, RepeatDataset):
            node = node.children[0]
        if not isinstance(node, RepeatDataset):
            return 1
        return -1 if node.count is None else node.count

    def output_shapes(self, estimate=False):
        """The shape of each column in the first row, as lists; with estimate=True, over one
        epoch: a dimension that varies between rows is None (RuntimeError when a column's
        rank varies)."""
        check_bool("output_shapes", "estimate", estimate)
        if not estimate:  # no rows: [] (MindSpore's)
            return [list(getattr(a, "shape", ())) for a in self._first_row() or ()]
        shapes = None
        for row in self.create_tuple_iterator(num_epochs=1, output_numpy=True):
            now = [list(getattr(a, "shape", ())) for a in row]
            if shapes is None:
                shapes = now
                continue
            for i, (old, new) in enumerate(zip(shapes, now)):
                if len(old) != len(new):
                    raise RuntimeError(f"output_shapes: Inconsistent shapes, expect same shape "
                                       f"for each data row, last data row: {old}, current data "
                                       f"row: {new} (column {i}).")
                shapes[i] = [a if a == b else None for a, b in zip(old, new)]
        return [] if shapes is None else shapes

    def output_types(self):
        """The numpy dtype of each column in the first row; string columns give numpy's
        unsized dtype of their kind, dtype('<U') (== np.str_) or dtype('S') (== np.bytes_),
        as MindSpore's string type has no width. No rows: []."""
        return [np.dtype(a.dtype.type) if a.dtype.kind in "US" else a.dtype
                for a in self._first_row() or ()]

    def _first_row(self):
        plan = _plan(self)
        for node in _sync_waits(plan):
            node.pair.reset()
        pipe = _data.Pipeline(plan._node(), _seed(config._pipeline_entropy(self._passes)), 1)
        try:
            row = pipe.next(True)
        finally:
            open_sync_waits(plan)  # wakes a sync_wait worker so that stop() can join it
            pipe.stop()
        return row  # None when the dataset has no rows

    # ----- what subclasses provide -----
    def _columns(self):
        return self.children[0]._columns()

    def _node(self, counted=False):
        """The C++ node of this dataset (its children built too)."""
        raise NotImplementedError

    def _child_node(self, counted):
        node = self.children[0]._node(counted)
        if getattr(_building, "nodes", None) is not None:  # the autotuner's map (autotune.py)
            _building.nodes[node.id] = self.children[0]
        return node

    def _workers(self):
        if config.get_debug_mode():  # one row at a time, in order (config.set_debug_mode)
            return 1
        return self.num_parallel_workers or config.get_num_parallel_workers()

    def _with_child(self, child):
        """A shallow copy of this node over another child (for _plan)."""
        node = copy.copy(self)
        node.children = [child]
        node._origin = getattr(self, "_origin", self)  # the user's dataset (autotune.py)
        return node


def _seed(entropy):
    """A 64-bit pipeline seed from an entropy list (config._pipeline_entropy)."""
    words = np.random.SeedSequence(entropy).generate_state(2, np.uint32)
    return (int(words[0]) << 32) | int(words[1])


def _split_counts(sizes, n):
    """The row counts of split(sizes) over n rows, with MindSpore's rules and messages: ints
    must sum to n; fractions in (0, 1] summing to 1 are rounded (a part rounded to 0 is an
    error), the shortfall going to the first part and an excess coming off the first part
    that stays positive."""
    if not isinstance(sizes, (list, tuple)):
        raise TypeError(f"split: sizes must be a list of ints or floats, but got {sizes!r}.")
    if not sizes:
        raise ValueError("split: sizes cannot be empty.")
    ints = all(isinstance(s, int) and not isinstance(s, bool) for s in sizes)
    if not ints and not all(isinstance(s, float) for s in sizes):
        raise ValueError(f"split: sizes should be list of int or list of float, but got "
                         f"{list(sizes)}.")
    if ints:
        if any(s <= 0 for s in sizes):
            raise ValueError(f"split: sizes {list(sizes)}: there should be no negative or zero "
                             "numbers.")
        if sum(sizes) != n:
            raise RuntimeError(f"split: Sum of split sizes {sum(sizes)} is not equal to dataset "
                               f"size {n}.")
        return list(sizes)
    if any(not 0 < s <= 1 for s in sizes):
        raise ValueError(f"split: sizes {list(sizes)}: there should be no numbers outside the "
                         "range (0, 1].")
    if abs(sum(sizes) - 1) > 1e-6:
        raise ValueError(f"split: sizes {list(sizes)}: percentages do not sum up to 1.")
    counts = []
    for s in sizes:
        counts.append(int(round(s * n)))
        if counts[-1] == 0:
            raise RuntimeError(f"split: Split percentage {s} is too small for {n} rows.")
    diff = n - sum(counts)
    if diff > 0:
        counts[0] += diff
    elif diff < 0:
        for i, c in enumerate(counts):
            if c + diff > 0:
                counts[i] += diff
                break
    if sum(counts) != n:
        raise RuntimeError(f"split: Sum of calculated split sizes {sum(counts)} is not equal to "
                           f"dataset size {n}.")
    return counts


def _known_size(dataset):
    """The rows of one epoch when known without a pass, else -1."""
    try:
        return dataset._node().size()
    except Exception:  # pylint: disable=broad-except (a bad source fails when it is run)
        return _UNKNOWN


def _plan(node):
    """The tree to run: node's tree with vectorisable maps moved above their batch (module doc)."""
    children = [_plan(c) for c in node.children]
    if children != node.children:
        node = copy.copy(node)
        node.children = children
    per_row_errors = config.active_error_samples_mode() != config.ErrorSamplesMode.RETURN
    if isinstance(node, BatchDataset) and node._per_batch_map is None and \
            node._pad_info is None and not per_row_errors:
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


def _mapped_names(func, cols, in_index, outs):
    """The columns after a map-like op: outputs replace the inputs when their counts match,
    else the outputs come first and the other columns follow (MindSpore's rule)."""
    if len(in_index) == len(outs):
        names = list(cols)
        for i, c in zip(in_index, outs):
            names[i] = c
    else:
        names = list(outs) + [c for i, c in enumerate(cols) if i not in in_index]
    if len(set(names)) != len(names):
        raise ValueError(f"{func}: the output columns {names} have duplicate names.")
    return names


def _python_op(op, where):
    """A Python callable as a C++ transform: its results become arrays, and its errors name
    the op, where it ran and the file of the row when its source knows it (MindSpore's
    message, a user's function being its "PyFunc"), keeping their exception type."""
    name = _op_name(op)
    kind = name if type(op).__module__.startswith("mycel.dataset") else "PyFunc"

    def call(*args):
        try:
            out = op(*args)
            return [a if isinstance(a, dict) else _as_array(a)  # dicts: _pyobjects.py
                    for a in (out if isinstance(out, tuple) else (out,))]
        except Exception as err:  # re-raised with the transform and columns named
            file = _data.current_row_file()
            at = f"The corresponding data file is: {file}. " if file else ""
            _reraise(err, f"map operation: [{kind}] failed. {at}{where(name)}: {err}")

    return _data.PyTransform(name, call)


def _c_transforms(operations, where):
    """The C++ transforms of a map's operations (Compose flattened)."""
    out = []
    for op in operations:
        c_ops = op._c_ops() if hasattr(op, "_c_ops") else None
        if c_ops is not None:
            out.extend(c_ops)
        elif hasattr(op, "transforms") and type(op).__name__ == "Compose":
            out.extend(_c_transforms(op.transforms, where))
        else:
            out.append(_python_op(op, where))
    return out


class ShuffleDataset(Dataset):
    """dataset.shuffle(buffer_size): MindSpore's buffer shuffle."""

    def __init__(self, child, buffer_size):
        super().__init__([child])
        self.buffer_size = check_int("shuffle", "buffer_size", buffer_size, 2, 2**31 - 1)

    def _node(self, counted=False):
        return _data.shuffle_node(self._child_node(counted), self.buffer_size)


class BatchInfo:
    """What per_batch_map learns about its batch: get_batch_num() (the batch's index in its
    epoch) and get_epoch_num()."""

    def __init__(self, batch_num, epoch_num):
        self._batch_num, self._epoch_num = batch_num, epoch_num

    def get_batch_num(self):
        """The batch's index in its epoch."""
        return self._batch_num

    def get_epoch_num(self):
        """The epoch's index."""
        return self._epoch_num


class BatchDataset(Dataset):
    """dataset.batch / padded_batch: stack consecutive rows column by column."""

    def __init__(self, child, batch_size, drop_remainder=False, num_parallel_workers=None,
                 per_batch_map=None, input_columns=None, output_columns=None, pad_info=None,
                 python_multiprocessing=False, max_rowsize=None, **kwargs):
        super().__init__([child], num_parallel_workers)
        if kwargs:
            raise TypeError(f"batch() got an unexpected keyword argument '{sorted(kwargs)[0]}' "
                            f"(unknown: {sorted(kwargs)}).")
        if callable(batch_size):  # batch_size(BatchInfo) -> the size of each batch
            self.batch_size = batch_size
        else:
            if isinstance(batch_size, bool):  # MindSpore's type check: a bool is an int (True 1)
                batch_size = int(batch_size)
            self.batch_size = check_int("batch", "batch_size", batch_size, 1, 2**31 - 1)
            for node in _sync_waits(child, stop_at_batch=True):
                node.pair.set_batch_size(self.batch_size)
        self.drop_remainder = check_bool("batch", "drop_remainder", drop_remainder)
        check_bool("batch", "python_multiprocessing", python_multiprocessing)
        check_max_rowsize("batch", max_rowsize)
        cols = child._columns()
        self._per_batch_map, self._names = None, list(cols)
        if per_batch_map is not None:
            if not callable(per_batch_map):
                raise TypeError(f"batch: per_batch_map must be callable, but got "
                                f"{type(per_batch_map).__name__}.")
            if pad_info is not None:
                raise ValueError("batch: per_batch_map and pad_info cannot be combined.")
            ins = check_columns("batch", "input_columns", input_columns, none_ok=True) or cols
            check_known_columns("batch", ins, cols)
            outs = check_columns("batch", "output_columns", output_columns, none_ok=True) or ins
            self._in_index = [cols.index(c) for c in ins]
            self._outs = outs
            self._names = _mapped_names("batch", cols, self._in_index, outs)
            self._per_batch_map = per_batch_map
        elif input_columns is not None or output_columns is not None:
            raise ValueError("batch: input_columns can be specified only when per_batch_map is "
                             "set. (input_columns and output_columns need per_batch_map.)")
        self._pad_info = None if pad_info is None else self._check_pads(pad_info, cols)

    @staticmethod
    def _check_pads(pad_info, cols):
        if not isinstance(pad_info, dict):
            raise TypeError(f"padded_batch: pad_info must be a dict, but got "
                            f"{type(pad_info).__name__}.")
        pads = []
        items = pad_info.items() if pad_info else [(c, (None, 0)) for c in cols]
        for name, spec in items:
            check_known_columns("padded_batch", [name], cols)
            if not isinstance(spec, (tuple, list)) or len(spec) != 2:
                raise TypeError(f"padded_batch: pad_info[{name!r}] must be (shape, pad_value), "
                                f"but got {spec!r}.")
            shape, value = spec
            if shape is not None:
                shape = [-1 if d is None else check_int("padded_batch", "pad shape", d, 0)
                         for d in shape]
            value = 0 if value is None else value
            if isinstance(value, bytes):  # a bytes column's pad: the engine's strings are bytes
                value = value.decode("utf-8", "surrogateescape")
            if not isinstance(value, (int, float, str, np.number)) or isinstance(value, bool):
                raise TypeError(f"padded_batch: the pad value of {name!r} must be a number or "
                                f"str, but got {value!r}.")
            pads.append((cols.index(name), shape, value if isinstance(value, str)
                         else float(value)))
        return pads

    def _columns(self):
        return self._names

    def _node(self, counted=False):
        fn, ins, outs = None, [], []
        if self._per_batch_map is not None:
            user, ins, outs = self._per_batch_map, self._in_index, self._outs

            def fn(columns, batch_num, epoch_num):
                try:
                    res = user(*columns, BatchInfo(batch_num, epoch_num))
                except Exception as err:  # re-raised naming per_batch_map
                    _reraise(err, f"batch: per_batch_map {_op_name(user)} failed: {err}")
                res = res if isinstance(res, tuple) else (res,)
                return batch_map_result(_op_name(user), res, outs)  # (columns, whole)

        size, size_fn = self.batch_size, None
        if callable(size):
            size_of, size = size, 1

            def size_fn(batch_num, epoch_num):
                try:
                    return size_of(BatchInfo(batch_num, epoch_num))
                except Exception as err:  # re-raised naming the batch_size function
                    _reraise(err, f"batch: batch_size function {_op_name(size_of)} failed: "
                                  f"{err}")

        return _data.batch_node(self._child_node(counted), size, self.drop_remainder,
                                self._workers(), self._pad_info or [], fn, ins, outs, size_fn)


# map's keyword options (Dataset.map): callbacks, and MindSpore's that change nothing here.
_MAP_OPTIONS = {"callbacks", "python_multiprocessing", "max_rowsize", "cache", "offload"}


class MapDataset(Dataset):
    """dataset.map(operations, input_columns, output_columns): transform columns row by row
    (or batch by batch after _plan, see the module doc)."""

    def __init__(self, child, operations, input_columns=None, output_columns=None,
                 num_parallel_workers=None, callbacks=None):
        super().__init__([child], num_parallel_workers)
        self.operations = _check_operations("map", operations)
        self.callbacks = _check_callbacks(callbacks)
        cols = child._columns()
        self.input_columns = check_columns("map", "input_columns", input_columns,
                                           none_ok=True) or [cols[0]]
        check_known_columns("map", self.input_columns, cols)
        self.output_columns = check_columns("map", "output_columns", output_columns,
                                            none_ok=True) or self.input_columns
        self._in_index = [cols.index(c) for c in self.input_columns]
        self._names = _mapped_names("map", cols, self._in_index, self.output_columns)
        self._batchable = not self.callbacks and all(getattr(op, "_batchable", False)
                                                     for op in self.operations)
        self._batched = False  # set by _plan when the map runs after its batch

    def _columns(self):
        return self._names

    def _node(self, counted=False):
        label = str(self.input_columns)
        where = lambda name: f"{name} on column(s) {label}"  # noqa: E731
        operations = with_hooks(self.operations, config._get_debug_hook_list(), _op_name)
        if _makes_pil(operations):  # PIL images pass between the operations in Python
            ops = [_python_op(Compose(operations), where)]
        else:
            ops = _c_transforms(operations, where)
        hooks = None
        if self.callbacks and getattr(_building, "callbacks", False):
            hooks = callback_hooks(self.callbacks)  # only in iterators' runs (not getters)
        return _data.map_node(self._child_node(counted), ops, self._in_index,
                              self.output_columns, self._workers(), int(self._batched), label,
                              int(config.active_error_samples_mode()), hooks)


def _check_callbacks(callbacks):
    """map's callbacks: None, a DSCallback or a list of them, as a list."""
    if callbacks is None:
        return []
    from mycel.dataset.callback import DSCallback  # noqa: PLC0415 (callback imports engine_sync)
    many = isinstance(callbacks, list)
    for i, cb in enumerate(callbacks if many else [callbacks]):
        if not isinstance(cb, DSCallback):
            name = f"callbacks[{i}]" if many else "callbacks"
            raise TypeError(f"map: Argument {name} with value {cb!r} is not of type "
                            f"[{DSCallback}], but got {type(cb)}.")
    out = list(callbacks) if many else [callbacks]
    if out and _independent_mode():
        raise RuntimeError("map: Dataset Callbacks is not supported in Dataset Independent mode "
                           "(MS_INDEPENDENT_DATASET).")
    for cb in out:
        cb._check_overrides()
    return out


def _sync_waits(node, stop_at_batch=False):
    """The SyncWaitDatasets in node's tree (node included); with stop_at_batch, not below a
    batch op (those belong to that batch)."""
    out, todo = [], [node]
    while todo:
        d = todo.pop()
        if isinstance(d, SyncWaitDataset):
            out.append(d)
        if stop_at_batch and isinstance(d, BatchDataset):
            continue
        todo.extend(d.children)
    return out


class SyncWaitDataset(Dataset):
    """dataset.sync_wait: a one-worker map that lets a row through only when sync_update
    has released it (engine_sync.py)."""

    def __init__(self, child, condition_name, num_batch=1, callback=None):
        super().__init__([child])
        if _independent_mode():
            raise RuntimeError("sync_wait: Dataset sync wait is not supported in Dataset "
                               "Independent mode (MS_INDEPENDENT_DATASET).")
        if not isinstance(condition_name, str):
            raise TypeError(f"sync_wait: Argument condition_name with value {condition_name!r} "
                            f"is not of type [{str}], but got {type(condition_name)}.")
        if isinstance(num_batch, bool) or not isinstance(num_batch, int):
            raise TypeError(f"sync_wait: Argument num_batch with value {num_batch!r} is not of "
                            f"type [{int}], but got {type(num_batch)}.")
        if num_batch <= 0:
            raise ValueError(f"sync_wait: num_batch need to be greater than 0. Got {num_batch}.")
        if callback is not None and not callable(callback):
            raise TypeError(f"sync_wait: callback must be callable, but got "
                            f"{type(callback).__name__}.")
        if any(n.condition_name == condition_name for n in _sync_waits(child)):
            raise RuntimeError(f"sync_wait: Condition name is already in use: {condition_name!r} "
                               "names another sync_wait of the pipeline.")
        self.condition_name = condition_name
        self.pair = ReleasePair(condition_name, num_batch, callback)

    def _node(self, counted=False):
        pair, name = self.pair, self.condition_name

        def block(first):
            pair.block()
            return [first]

        col = self._columns()[0]
        return _data.map_node(self._child_node(counted),
                              [_data.PyTransform(f"sync_wait({name!r})", block)], [0], [col], 1,
                              0, str([col]), 0)


class FilterDataset(Dataset):
    """dataset.filter(predicate, input_columns): keep rows where the predicate holds."""

    def __init__(self, child, predicate, input_columns=None, num_parallel_workers=None):
        super().__init__([child], num_parallel_workers)
        if not callable(predicate):
            raise TypeError(f"filter: predicate must be callable, but got "
                            f"{type(predicate).__name__}.")
        cols = child._columns()
        ins = check_columns("filter", "input_columns", input_columns, none_ok=True) or cols
        check_known_columns("filter", ins, cols)
        self.predicate, self._in_index = predicate, [cols.index(c) for c in ins]

    def _node(self, counted=False):
        pred, name = self.predicate, _op_name(self.predicate)

        def test(*columns):
            try:
                return bool(pred(*columns))
            except Exception as err:  # re-raised naming the predicate
                _reraise(err, f"filter: predicate {name} failed: {err}")

        return _data.filter_node(self._child_node(counted), test, self._in_index,
                                 self._workers())


class RepeatDataset(Dataset):
    """dataset.repeat(count): the child's epochs one after another."""

    def __init__(self, child, count=None):
        super().__init__([child])
        if count is None or (isinstance(count, int) and count == -1):
            count = None
        else:
            count = check_int("repeat", "count", count, 1)
        self.count = count

    def _node(self, counted=False):
        return _data.repeat_node(self._child_node(counted), -1 if self.count is None else
                                 self.count)


class SkipDataset(Dataset):
    """dataset.skip(count)."""

    def __init__(self, child, count):
        super().__init__([child])
        self.count = check_int("skip", "count", count, 0)

    def _node(self, counted=False):
        return _data.skip_node(self._child_node(counted), self.count)


class TakeDataset(Dataset):
    """dataset.take(count)."""

    def __init__(self, child, count=-1):
        super().__init__([child])
        self.count = check_int("take", "count", count, -1)
        if self.count == 0:
            raise ValueError("take: count must be -1 or positive, but got 0.")

    def _node(self, counted=False):
        return _data.take_node(self._child_node(counted), self.count)


class ProjectDataset(Dataset):
    """dataset.project(columns): keep and reorder columns."""

    def __init__(self, child, columns):
        super().__init__([child])
        self.columns = check_columns("project", "columns", columns)
        check_known_columns("project", self.columns, child._columns())
        self._index = [child._columns().index(c) for c in self.columns]

    def _columns(self):
        return self.columns

    def _node(self, counted=False):
        return _data.project_node(self._child_node(counted), self._index, self.columns)


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

    def _node(self, counted=False):
        return _data.project_node(self._child_node(counted), list(range(len(self._names))),
                                  self._names)


def _check_datasets(func, datasets):
    for d in datasets:
        if not isinstance(d, Dataset):
            raise TypeError(f"{func}: expected datasets, but got {type(d).__name__}.")
    return datasets


class ZipDataset(Dataset):
    """zip: the children's rows side by side."""

    def __init__(self, datasets):
        super().__init__(_check_datasets("zip", datasets))
        names = [c for d in datasets for c in d._columns()]
        if len(set(names)) != len(names):
            raise ValueError(f"zip: the datasets have columns in common ({names}); rename them "
                             "first.")
        self._names = names

    def _columns(self):
        return self._names

    def _node(self, counted=False):
        return _data.zip_node([c._node(counted) for c in self.children])


class ConcatDataset(Dataset):
    """concat: the children's rows one after another. A child known to have no rows is a
    ValueError, as MindSpore's.

    use_sampler(DistributedSampler(num_shards, shard_id, shuffle=False)) shards the
    concatenation: its rows are numbered across the children (0, 1, ...) and the shard keeps
    those whose number p has p % num_shards == shard_id, in order; no row is repeated to even
    out the shards (pad with a PaddedDataset for that). A child read by index (a source, a
    random-access GeneratorDataset, a PaddedDataset) reads only its kept rows, in its row order
    (its own shuffle is not applied); another child (a generator, a file stream, a pipeline) is
    run whole and keeps every num_shards-th row; a nested concatenation is sharded the same way,
    its rows numbered where it starts.

    use_sampler(RandomSampler()) reads the concatenation in random order: each next row comes
    from a child drawn with probability proportional to its rows left (every interleaving
    equally likely, each child in its own order; nested concatenations flattened). Children
    with different column names, dtypes or ranks are a RuntimeError when the rows are read."""

    _shard = None  # (num_shards, shard_id) after use_sampler
    _random = False  # after use_sampler(RandomSampler())

    def __init__(self, datasets):
        super().__init__(_check_datasets("concat", datasets))
        for i, d in enumerate(datasets):
            if _known_size(d) == 0:
                raise ValueError(f"concat: There are no samples in the dataset number {i}. "
                                 "Please make sure there are valid samples in the dataset.")

    def _check_columns(self):
        """Children with different column names: a RuntimeError when the rows are read, as
        MindSpore's (sizes can still be asked for)."""
        first = self.children[0]._columns()
        for d in self.children[1:]:
            if d._columns() != first:
                raise RuntimeError(f"concat: the column names or column order of the datasets "
                                   f"to be concatenated should be the same, but got {first} and "
                                   f"{d._columns()}.")

    def use_sampler(self, sampler):
        """Shard the concatenation with a DistributedSampler, or read it in random order with a
        RandomSampler (class doc). TypeError for another sampler or a batched child, ValueError
        for shuffle=True, num_samples, replacement, or a child whose sampler has num_samples
        (MindSpore's rules)."""
        if isinstance(sampler, RandomSampler):
            if sampler.replacement:
                raise ValueError("use_sampler: The parameter replacement of RandomSampler must "
                                 "be False!")
            if sampler.num_samples is not None:
                raise ValueError("use_sampler: The parameter num_samples of RandomSampler is not "
                                 "support to be set!")
            self._shard, self._random = None, True
            return
        if not isinstance(sampler, DistributedSampler):
            raise TypeError(f"use_sampler: The parameter {sampler} of concat must be "
                            "DistributedSampler or RandomSampler!")
        if sampler.shuffle:
            raise ValueError("use_sampler: The parameter shuffle of DistributedSampler must be "
                             "False!")
        if sampler.num_samples is not None:
            raise ValueError("use_sampler: The parameter num_samples of DistributedSampler is "
                             "not support to be set!")
        for child in self.children:
            if isinstance(child, BatchDataset):
                raise TypeError(f"use_sampler: The parameter {type(child).__name__} of concat "
                                "must not be BatchDataset or PaddedBatchDataset!")
            child_sampler = getattr(child, "sampler", None)
            if getattr(child_sampler, "num_samples", None) is not None:
                raise ValueError(f"use_sampler: The parameter NumSamples of "
                                 f"{type(child).__name__} is not support to be set!")
        self._shard, self._random = (sampler.num_shards, sampler.shard_id), False

    def _node(self, counted=False):
        if not counted:
            self._check_columns()
        if self._random:
            return self._random_node(counted)
        if self._shard is None:
            return _data.concat_node([c._node(counted) for c in self.children])
        return _data.concat_node(self._sharded_children(counted)[0])

    def _leaves(self):
        """The children, a nested concatenation's (not sharded, not random) in its place."""
        out = []
        for child in self.children:
            plain = isinstance(child, ConcatDataset) and child._shard is None and \
                not child._random
            out += child._leaves() if plain else [child]
        return out

    def _random_node(self, counted):
        leaves = self._leaves()
        sizes = []
        for child in leaves:
            size = child._node(counted).size()
            sizes.append(size if size >= 0 else child.get_dataset_size())
        # each pipeline built to read (not to size) draws new orders, as a fresh iterator of a
        # shuffled source does; its epochs draw from (dataset seed, pipeline, epoch)
        self._random_builds = getattr(self, "_random_builds", 0) + (0 if counted else 1)
        runs = [0]
        return _data.stream_node(lambda: self._open_random(leaves, sizes, runs),
                                 self._columns(), sum(sizes))

    def _open_random(self, leaves, sizes, runs):
        """One epoch of a RandomSampler's concatenation: the leaves' rows randomly interleaved
        (engine_python.random_interleave), drawn from the dataset seed and the epoch."""
        entropy = config._pipeline_entropy(self._random_builds) + [runs[0]]
        runs[0] += 1
        pipes = [c._start_pipeline(None, 1, seed=_seed(entropy + [k]))[0]
                 for k, c in enumerate(leaves)]
        rng = np.random.default_rng(_seed(entropy + [len(leaves)]))
        return _StreamRows(random_interleave(pipes, sizes, rng))

    def _sharded_children(self, counted, nodes=None, pos=0):
        """The nodes of the children's kept rows (a nested concatenation's children in its
        place), the first child's first row numbered pos; returns (nodes, rows numbered)."""
        num_shards, shard_id = self._shard
        nodes = [] if nodes is None else nodes
        for child in self.children:
            if isinstance(child, ConcatDataset) and child._shard is None:
                child._shard = self._shard
                try:
                    nodes, pos = child._sharded_children(counted, nodes, pos)
                finally:
                    child._shard = None
                continue
            size = child._node(counted).size()
            if size < 0:  # unknown without a pass; the next child's numbering depends on it
                size = child.get_dataset_size()
            first = (shard_id - pos) % num_shards
            if getattr(child, "_reads_by_index", False) and hasattr(child, "sampler"):
                saved = child.sampler
                child.sampler = SubsetSampler(np.arange(first, size, num_shards))
                try:
                    nodes.append(child._node(counted))
                finally:
                    child.sampler = saved
            else:
                rows = ShardRows(child._columns(), first, num_shards, size)
                nodes.append(PythonStreamDataset(child, rows)._node(counted))
            pos += size
        return nodes, pos


class PythonStreamDataset(Dataset):
    """An op made in Python over its child's rows (engine_python.py): maker.rows(child rows)
    gives each epoch's rows, maker.columns its columns, maker.size() its rows per epoch (-1:
    counted by a pass). Each epoch runs the child as a pipeline of its own, seeded by the
    dataset seed and the epoch."""

    def __init__(self, child, maker):
        super().__init__([child])
        self._maker = maker
        self._epoch_runs = 0

    def _columns(self):
        return list(self._maker.columns)

    def _node(self, counted=False):
        self._epoch_runs = 0  # a new pipeline run: its epochs start again at 0
        return _data.stream_node(self._open, self._columns(), self._maker.size())

    def _child_rows(self):
        child = self.children[0]
        entropy = config._pipeline_entropy(child._passes) + [self._epoch_runs]
        self._epoch_runs += 1
        pipe, _, _ = child._start_pipeline(None, 1, seed=_seed(entropy))
        try:
            while True:
                row = pipe.next(True)
                if row is None:
                    return
                yield row
        finally:
            pipe.stop()

    def _open(self):
        return _StreamRows(self._maker.rows(self._child_rows()))


class _StreamRows:
    """An epoch's rows for the engine: __next__ returns a tuple of arrays, then None."""

    def __init__(self, rows):
        self._rows = iter(rows)

    def __next__(self):
        return next(self._rows, None)


def zip_datasets(datasets):
    """``mycel.dataset.zip((d1, d2, ...))``: d1.zip((d2, ...))."""
    if not isinstance(datasets, tuple) or not datasets:
        raise TypeError("zip: datasets must be a non-empty tuple of datasets.")
    return ZipDataset(list(datasets))


# ----- failover reset (MindSpore's engine.datasets._set/_reset_training_dataset) -----

_train_dataset = None


def _set_training_dataset(dataset):
    """Record the iterator (or dataset sink) a training run reads, for a later
    _reset_training_dataset."""
    global _train_dataset
    _train_dataset = dataset


def _get_training_dataset():
    """The iterator _set_training_dataset recorded (None if none)."""
    return _train_dataset


def _reset_training_dataset(global_step, dataset_size):
    """Restart the recorded iterator at global_step (steps completed so far; the next row is
    that step's), dataset_size steps per epoch: the iterator's ``_reset``."""
    if _train_dataset is None:
        raise RuntimeError("_reset_training_dataset: Training dataset is not set.")
    _train_dataset._reset(global_step, dataset_size)  # pylint: disable=protected-access
