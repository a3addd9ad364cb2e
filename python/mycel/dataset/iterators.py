"""Iterators over a dataset: TupleIterator (rows as lists) and DictIterator (rows as dicts).

An iterator plans its pipeline once (``Dataset._start_pipeline``) and runs it as one C++ Pipeline for all its
epochs, so the engine's threads work ahead across epoch boundaries. Each new iterator on the
same dataset draws new random orders (seeded from the dataset seed and the number of iterators
made before it). Rows arrive as mycel Tensors unless output_numpy is True (string columns,
which mycel Tensors cannot hold, always as numpy arrays of str or bytes); numpy types mycel
lacks widen losslessly (uint16 -> int32, uint32 -> int64, uint64 -> int64 when the values fit).
Arrays handed out are read-only when the engine shares them with a source's data.
"""
import atexit
import copy
import weakref

from mycel import _mycel
from mycel.dataset import autotune
from mycel.dataset._validate import check_bool, check_int
from mycel.dataset.engine_sync import open_sync_waits

_live = weakref.WeakSet()
# MindSpore's list of the live iterators, as weak references; an iterator's reference leaves
# the list when the iterator is collected.
ITERATORS_LIST = []


def _forget(ref):
    try:
        ITERATORS_LIST.remove(ref)
    except ValueError:  # cleared meanwhile
        pass


_cleanup_ran = False  # set by _cleanup, cleared by _unset_iterator_cleanup


@atexit.register
def _stop_all():
    """Stop the engine threads before the interpreter goes (they may wait for the GIL)."""
    for it in list(_live):
        it.stop()


def _cleanup():
    """Stops every live iterator now (MindSpore's ``engine.iterators._cleanup``, which its
    dataset tests call after each test) and marks a cleanup as run."""
    global _cleanup_ran
    _cleanup_ran = True
    _stop_all()


def _unset_iterator_cleanup():
    """Clears the mark _cleanup set (MindSpore's name)."""
    global _cleanup_ran
    _cleanup_ran = False


def check_iterator_cleanup():
    """Whether _cleanup ran since the last _unset_iterator_cleanup (MindSpore's name)."""
    return _cleanup_ran


class Iterator:
    """Base of the dataset iterators: pulls rows from the C++ pipeline, epoch by epoch.

    Each ``for`` loop over the iterator runs one epoch; starting epoch num_epochs + 1 (when
    num_epochs is not -1) raises RuntimeError."""

    def __init__(self, dataset, num_epochs=-1, output_numpy=False, do_copy=True, columns=None):
        func = type(self).__name__
        self._num_epochs = check_int(func, "num_epochs", num_epochs, -1)
        if self._num_epochs == 0:
            raise ValueError(f"{func}: num_epochs must be -1 or positive, but got 0.")
        self._output_numpy = check_bool(func, "output_numpy", output_numpy)
        check_bool(func, "do_copy", do_copy)  # MindSpore's argument: Tensors never share memory
        self._dataset, self._projection = dataset, columns
        self._pipe, self._columns, self._seed, nodes = dataset._start_pipeline(
            columns, self._num_epochs, tuned=True)
        self._epoch = self._pipe.epoch
        self._in_epoch = False
        self._stopped = False
        if nodes is not None:  # this iterator's pipeline is autotuned
            autotune.attach(self, nodes)
        _live.add(self)
        ITERATORS_LIST.append(weakref.ref(self, _forget))

    def __iter__(self):
        """The iterator itself: each ``for`` loop over it is one epoch."""
        return self

    def __next__(self):
        """The next row; StopIteration ends an epoch."""
        if self._stopped:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute "
                                 "'_runtime_context': the iterator was stopped (stop() or the "
                                 "iterators' cleanup), create a new one.")
        if not self._in_epoch:
            if self._num_epochs != -1 and self._epoch >= self._num_epochs:
                raise RuntimeError(f"{type(self).__name__}: EOF buffer encountered. User tries "
                                   "to fetch data beyond the specified number of epochs. All "
                                   f"num_epochs={self._num_epochs} epochs were consumed; create "
                                   "the iterator with a larger num_epochs (or -1).")
            self._in_epoch = True
        row = self._pipe.next(self._output_numpy)
        if row is None:
            self._in_epoch = False
            self._epoch += 1
            if self._num_epochs != -1 and self._epoch >= self._num_epochs:
                autotune.finish(self)
            raise StopIteration
        if not self._output_numpy:
            for name, v in zip(self._columns, row):
                if isinstance(v, dict):  # a Python dict column (_pyobjects.py)
                    continue
                # Strings (str or bytes) stay numpy arrays, where MindSpore has a String
                # Tensor: a container no op takes (mycel Tensors hold numbers only).
                if not isinstance(v, _mycel.Tensor) and v.dtype.kind not in "US":
                    raise TypeError(f"{type(self).__name__}: column {name!r} has dtype "
                                    f"{v.dtype}, which mycel Tensors cannot hold; use "
                                    "output_numpy=True.")
        return self._pack(row)

    def _reset(self, step, dataset_size):
        """Restart this iterator's run at global step `step` (counted over epochs, the next
        row is that step's), dataset_size steps per epoch: MindSpore's failover reset. The
        rows from there on are those the uninterrupted run gives (same seed, the position
        pushed down to the sources as set_init_step does); the next ``for`` loop over the
        iterator continues the epoch holding the step."""
        func = type(self).__name__
        check_int(func, "step", step)
        check_int(func, "dataset_size", dataset_size, 1)
        if step < 0:
            raise RuntimeError(f"{func}: Cannot reset the pipeline, reset step must be >= 0. "
                               f"Got {step}.")
        if self._num_epochs != -1 and step >= dataset_size * self._num_epochs:
            raise RuntimeError(f"{func}: Cannot reset the pipeline, reset step must be less than "
                               f"dataset_size * num_epochs. Got {step}, with dataset_size "
                               f"{dataset_size} and num_epochs {self._num_epochs}.")
        self._pipe.stop()
        self._stopped = False
        self._pipe, self._columns, _ = self._dataset._start_pipeline(
            self._projection, self._num_epochs, init_step=step, seed=self._seed)
        self._epoch = self._pipe.epoch
        self._in_epoch = False

    @property
    def dataset(self):
        """The pipeline this iterator runs, as MindSpore's iterators hold it: a copy of the
        dataset tree (deep-copied on first access; the dataset itself when it cannot be)."""
        if not hasattr(self, "_tree_copy"):
            try:
                self._tree_copy = copy.deepcopy(self._dataset)
            except Exception:  # pylint: disable=broad-except (unpicklable user objects)
                self._tree_copy = self._dataset
        return self._tree_copy

    def release(self):
        """MindSpore's name for stop()."""
        self.stop()

    def stop(self):
        """Stop the pipeline's threads (done automatically when the iterator is dropped); the
        iterator cannot be used after (next() raises AttributeError, as MindSpore's)."""
        self._open_sync_waits()
        self._pipe.stop()
        autotune.finish(self)
        self._stopped = True

    def _open_sync_waits(self):
        """A worker waiting in a sync_wait of this pipeline must wake before the threads are
        joined: disable the pipeline's conditions (engine.open_sync_waits)."""
        open_sync_waits(self._dataset)

    def __del__(self):
        """Dropped without stop(): wake the sync_waits before the pipeline joins its threads."""
        try:
            if not self._stopped:
                self._open_sync_waits()
                autotune.finish(self)
        except Exception:  # pylint: disable=broad-except (interpreter shutdown, half-built)
            pass

    def get_col_names(self):
        """The column names of the rows."""
        return list(self._columns)

    def _pack(self, values):
        raise NotImplementedError


class TupleIterator(Iterator):
    """Rows as lists, in column order (``for image, label in iterator``)."""

    def __init__(self, dataset, columns=None, num_epochs=-1, output_numpy=False, do_copy=True):
        super().__init__(dataset, num_epochs, output_numpy, do_copy, columns)

    def _pack(self, values):
        return values


class DictIterator(Iterator):
    """Rows as dicts {column name: value}."""

    def _pack(self, values):
        return dict(zip(self._columns, values))
