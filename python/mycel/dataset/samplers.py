"""Samplers, MindSpore's ``mindspore.dataset`` samplers: which rows of a random-access source
one epoch reads, and in which order.

Each class checks its arguments and describes a C++ sampler (src/data/sampler.h); the engine
computes each epoch's order from the dataset seed, so every shard of a distributed job draws
the same permutation when they share a seed (``mycel.dataset.config.set_seed``).
"""
import numpy as np

from mycel import _mycel
from mycel.dataset._serdes_record import record_init
from mycel.dataset._validate import check_bool, check_int, check_num_samples

_data = _mycel._data


class Sampler:
    """Base of the samplers. ``num_samples`` (None: all) caps the rows per epoch."""

    def __init_subclass__(cls, **kwargs):
        """Subclasses record their constructor arguments (for dataset/serialize.py)."""
        super().__init_subclass__(**kwargs)
        record_init(cls)

    def __init__(self, num_samples=None):
        self.num_samples = check_num_samples(type(self).__name__, num_samples)

    def get_num_samples(self):
        """The cap on rows per epoch (None: all)."""
        return self.num_samples

    def _limit(self):
        return -1 if not self.num_samples else self.num_samples

    def _c_sampler(self):
        if _user_iter(self):  # a user's subclass with its own __iter__ (_PythonSampler)
            return _PythonSampler(self, self.num_samples)._c_sampler()
        raise NotImplementedError(f"{type(self).__name__}: a Sampler subclass must define "
                                  "__iter__ (the row indices of one epoch).")

    def add_child(self, sampler):
        """Sample from the rows `sampler` picks (MindSpore's chained samplers): this sampler
        draws positions in the child's order of the epoch. A sampler has at most one child."""
        if not isinstance(sampler, Sampler):
            raise TypeError(f"add_child: the child must be a Sampler, but got "
                            f"{type(sampler).__name__}.")
        if getattr(self, "child", None) is not None:
            raise RuntimeError("add_child: Cannot add child sampler, this sampler already has a "
                               "child.")
        self.child = sampler

    def get_child(self):
        """The child sampler (None when there is none)."""
        return getattr(self, "child", None)

    def _c_sampler_for(self, source):
        """The C++ sampler for reading `source` (a _mycel._data.Source), its child chained
        below it; most samplers need only the source's size, which the engine gives them,
        PKSampler needs its classes."""
        own = self._c_own(source)
        child = self.get_child()
        return own if child is None else _data.ChainedSampler(own, child._c_sampler_for(source))

    def _c_own(self, source):  # pylint: disable=unused-argument
        return self._c_sampler()


class SequentialSampler(Sampler):
    """SequentialSampler(start_index=None, num_samples=None): rows in file order from
    start_index."""

    def __init__(self, start_index=None, num_samples=None):
        super().__init__(num_samples)
        self.start_index = check_int("SequentialSampler", "start_index", start_index, 0,
                                     none_ok=True) or 0

    def _c_sampler(self):
        return _data.SequentialSampler(self.start_index, self._limit())


def _shuffle_level(func, shuffle, allowed):
    """The value of a Shuffle level (a str enum: "global", "files", ...) among `allowed`."""
    if not isinstance(shuffle, str) or shuffle not in allowed:
        raise ValueError(f"{func}: shuffle must be one of "
                         f"{', '.join('Shuffle.' + a.upper() for a in allowed)}, but got "
                         f"{shuffle!r}.")
    return str(shuffle.value if hasattr(shuffle, "value") else shuffle)


class RandomSampler(Sampler):
    """RandomSampler(replacement=False, num_samples=None, shuffle=Shuffle.GLOBAL): a fresh
    random order every epoch (with replacement: independent uniform draws).

    shuffle (MindSpore's, for MindDataset): Shuffle.GLOBAL or ADAPTIVE, a random order of all
    rows; Shuffle.PARTIAL, FILES or INFILE are taken by MindDataset only (its shuffle levels),
    and are a ValueError under any other dataset."""

    def __init__(self, replacement=False, num_samples=None, shuffle="global"):
        super().__init__(num_samples)
        self.replacement = check_bool("RandomSampler", "replacement", replacement)
        self.shuffle = _shuffle_level("RandomSampler", shuffle,
                                      ("global", "adaptive", "partial", "files", "infile"))

    def _c_sampler(self):
        if self.shuffle not in ("global", "adaptive"):
            raise ValueError(f"RandomSampler: shuffle=Shuffle.{self.shuffle.upper()} is only "
                             "taken by MindDataset.")
        return _data.RandomSampler(self.replacement, self._limit())


class DistributedSampler(Sampler):
    """DistributedSampler(num_shards, shard_id, shuffle=True, num_samples=None, offset=-1):
    shard shard_id of num_shards: rows shard_id, shard_id + num_shards, ... of the epoch's
    (shuffled) order, wrapped around so that every shard gets ceil(n / num_shards) rows.
    shuffle: a bool, or Shuffle.GLOBAL / Shuffle.ADAPTIVE (True)."""

    def __init__(self, num_shards, shard_id, shuffle=True, num_samples=None, offset=-1):
        super().__init__(num_samples)
        func = "DistributedSampler"
        self.num_shards = check_int(func, "num_shards", num_shards, 1)
        self.shard_id = check_int(func, "shard_id", shard_id, 0)
        if self.shard_id >= self.num_shards:
            raise ValueError(f"{func}: shard_id must be in [0, {self.num_shards - 1}], but got "
                             f"{shard_id}.")
        if isinstance(shuffle, str):  # a Shuffle level: GLOBAL or ADAPTIVE shuffle all rows
            shuffle = _shuffle_level(func, shuffle, ("global", "adaptive")) != ""
        self.shuffle = check_bool(func, "shuffle", shuffle)
        self.offset = check_int(func, "offset", offset, -1)
        if self.offset > self.num_shards:
            raise ValueError(f"{func}: offset must be no more than num_shards({self.num_shards}), "
                             f"but got {self.offset}.")

    def _c_sampler(self):
        return _data.DistributedSampler(self.num_shards, self.shard_id, self.shuffle,
                                        self._limit(), self.offset)


def _indices(func, indices):
    if not isinstance(indices, (list, tuple, range, np.ndarray)):
        raise TypeError(f"{func}: indices must be a sequence of row indices, but got "
                        f"{type(indices).__name__}.")
    out = []
    for i, v in enumerate(indices):  # each an int (a nested list or 2-d array is refused)
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{func}: Type of indices element must be int, but got "
                            f"list[{i}]: {v}, type: {type(v)}.")
        out.append(int(v))
    return out


class SubsetSampler(Sampler):
    """SubsetSampler(indices, num_samples=None): exactly these rows, in this order."""

    def __init__(self, indices, num_samples=None):
        super().__init__(num_samples)
        self.indices = _indices(type(self).__name__, indices)

    def _c_sampler(self):
        return _data.SubsetSampler(self.indices, self._limit())


class SubsetRandomSampler(SubsetSampler):
    """SubsetRandomSampler(indices, num_samples=None): these rows in a fresh random order every
    epoch."""

    def _c_sampler(self):
        return _data.SubsetRandomSampler(self.indices, self._limit())


class WeightedRandomSampler(Sampler):
    """WeightedRandomSampler(weights, num_samples=None, replacement=True): num_samples draws
    (default: len(weights)) of row i with probability proportional to weights[i]."""

    def __init__(self, weights, num_samples=None, replacement=True):
        super().__init__(num_samples)
        func = "WeightedRandomSampler"
        if not isinstance(weights, (list, tuple, np.ndarray)):
            raise TypeError(f"{func}: weights must be a list of numbers, but got "
                            f"{type(weights).__name__}.")
        self.weights = [float(w) for w in np.asarray(weights, dtype=np.float64).reshape(-1)]
        self.replacement = check_bool(func, "replacement", replacement)
        self._c_sampler()  # the C++ sampler checks the weights here, not at the first epoch

    def _c_sampler(self):
        n = self.num_samples or len(self.weights)
        return _data.WeightedRandomSampler(self.weights, n, self.replacement)


class FileShuffleSampler(Sampler):
    """The sampler of a file dataset's ``shuffle=Shuffle.FILES`` (infile False: the files in a
    new random order every epoch, each file's rows in order) or ``Shuffle.INFILE`` (the files
    in order, each file's rows shuffled), then sharded as DistributedSampler shards. Built by
    the file datasets from their source."""

    def __init__(self, source, infile, num_shards=None, shard_id=None, num_samples=None):
        super().__init__(num_samples)
        self._source = source
        self.infile = check_bool("FileShuffleSampler", "infile", infile)
        self.num_shards = 1 if num_shards is None else num_shards
        self.shard_id = 0 if shard_id is None else shard_id

    def _c_sampler(self):
        return _data.FileShuffleSampler(self._source, self.infile, self.num_shards,
                                        self.shard_id, self._limit())


class PKSampler(Sampler):
    """PKSampler(num_val, num_class=None, shuffle=False, class_column='label', num_samples=None):
    num_val rows of every class, drawn at random (with replacement) from the class's rows; the
    classes in label order, or in a new random order every epoch when shuffle. num_samples caps
    the rows per epoch. The classes come from the source (ImageFolderDataset, MNIST, CIFAR-10,
    ManifestDataset, LSUNDataset, OmniglotDataset, SUN397Dataset, LFW people) or else from
    the scalar int or str values of its column class_column (read once per epoch's plan, e.g.
    MindDataset's label field); num_class is not supported, as in MindSpore."""

    def __init__(self, num_val, num_class=None, shuffle=False, class_column="label",
                 num_samples=None):
        super().__init__(num_samples)
        func = "PKSampler"
        self.num_val = check_int(func, "num_val", num_val, 1)
        if num_class is not None:
            raise NotImplementedError(f"{func}: num_class is not supported (the sampler takes "
                                      "every class of the dataset).")
        self.shuffle = check_bool(func, "shuffle", shuffle)
        if not isinstance(class_column, str):
            raise TypeError(f"{func}: class_column must be a str, but got "
                            f"{type(class_column).__name__}.")
        self.class_column = class_column

    def _c_sampler(self):
        raise TypeError("PKSampler: this dataset has no per-row classes to sample from; use it "
                        "with a source dataset that has labels (e.g. ImageFolderDataset).")

    def _c_own(self, source):
        if self.get_child() is not None:
            raise RuntimeError("PKSampler: a child sampler under PKSampler is not supported "
                               "(PKSampler picks rows by class, not positions).")
        return _data.PKSampler(source, self.num_val, self.shuffle, self._limit(),
                               self.class_column)


def source_sampler(func, num_samples, shuffle, sampler, num_shards, shard_id, shuffle_default=True):
    """The Sampler a source dataset's arguments describe (MindSpore's rules): an explicit
    sampler (a Sampler or a sequence of indices), else a DistributedSampler for
    num_shards/shard_id (in data parallelism, by default, this rank's shard:
    mycel.parallel), else a RandomSampler (shuffle, the default) or a SequentialSampler."""
    num_samples = check_num_samples(func, num_samples)
    shuffle = check_bool(func, "shuffle", shuffle, none_ok=True)
    num_shards = check_int(func, "num_shards", num_shards, 1, 2**31 - 1, none_ok=True)
    if shard_id is not None and not isinstance(shard_id, bool) and \
            isinstance(shard_id, (int, np.integer)):
        shard_id = int(shard_id)  # its range is checked below, with MindSpore's message
    else:
        shard_id = check_int(func, "shard_id", shard_id, 0, none_ok=True)
    # MindSpore's rules, its error types and sentences (its tests match them)
    if sampler is not None:
        if shuffle is not None:
            raise RuntimeError(f"{func}: sampler and shuffle cannot be specified at the same "
                               "time.")
        if num_shards is not None or shard_id is not None:
            raise RuntimeError(f"{func}: sampler and sharding cannot be specified at the same "
                               "time.")
    if num_shards is not None and shard_id is None:
        raise RuntimeError(f"{func}: num_shards is specified and currently requires shard_id as "
                           "well.")
    if num_shards is None and shard_id is not None:
        raise RuntimeError(f"{func}: shard_id is specified but num_shards is not.")
    if num_shards is not None and not 0 <= shard_id < num_shards:
        raise ValueError(f"{func}: shard_id must be in [0, {num_shards - 1}], but got "
                         f"{shard_id}. Input shard_id is not within the required interval of "
                         f"[0, {num_shards - 1}].")
    if sampler is not None:
        if isinstance(sampler, Sampler):
            if num_samples:
                raise RuntimeError(f"{func}: sampler and num_samples cannot be specified at the "
                                   "same time (give num_samples to the sampler).")
            return sampler
        if isinstance(sampler, (int, np.integer)) and not isinstance(sampler, bool):
            return SubsetSampler([int(sampler)], num_samples)  # one row, as MindSpore's
        if not isinstance(sampler, (list, tuple, range, np.ndarray, str, bytes, dict)) and \
                (hasattr(sampler, "__iter__") or hasattr(sampler, "__getitem__")):
            return _PythonSampler(sampler, num_samples)  # a user's sampler object
        if not isinstance(sampler, (list, tuple, range, np.ndarray)):
            raise TypeError(f"{func}: Unsupported sampler object of type ({type(sampler)}): "
                            "sampler must be a sequence of row indices or a Sampler.")
        return SubsetSampler(sampler, num_samples)
    shuffle = shuffle_default if shuffle is None else shuffle
    if num_shards is None:  # in data parallelism, this rank's shard unless told otherwise
        from mycel.parallel.context import dataset_shard
        num_shards, shard_id = dataset_shard() or (None, None)
    if num_shards is not None:
        return DistributedSampler(num_shards, shard_id, shuffle, num_samples)
    return RandomSampler(False, num_samples) if shuffle else SequentialSampler(None, num_samples)


# ----- user-defined samplers -----

def _user_iter(sampler):
    """Whether a Sampler subclass defines its own __iter__ (MindSpore's Python sampler)."""
    return type(sampler).__iter__ is not Sampler.__iter__


def _sampler_iter(self):
    raise NotImplementedError(f"{type(self).__name__}: a Sampler subclass must define __iter__ "
                              "(the row indices of one epoch).")


Sampler.__iter__ = _sampler_iter


class _PythonSampler(Sampler):
    """A user's sampler: a ds.Sampler subclass with its own __iter__, or any object with
    __iter__ (MindSpore's Python samplers). Each pass (epoch or repeat) iterates it once for
    the row indices, after calling its reset() (when it has one) from the second pass on;
    Sampler subclasses see the source's row count as ``dataset_size`` first. An epoch has
    num_samples rows (when given), else len(sampler) (when it has __len__), else as many as
    one iteration gives; an iteration that gives fewer is a RuntimeError in MindSpore's words.
    Runs under the GIL on an engine thread (src/python/py_data_sampler.cc)."""

    _exact = True  # an iteration must give the declared number of rows (IterSampler: any)

    def __init__(self, sampler, num_samples=None):
        super().__init__(num_samples)
        self.sampler = sampler
        self._pass = None

    def _declared(self, n):
        user = self.sampler
        if not self._exact:
            count = len(self._indices(n))
            return min(count, self.num_samples) if self.num_samples else count
        if self.num_samples:
            return self.num_samples
        if isinstance(user, Sampler) and user.num_samples:
            return user.num_samples
        if hasattr(user, "__len__"):
            return len(user)
        return len(self._indices(n))

    def _indices(self, n):
        user = self.sampler
        if isinstance(user, Sampler):
            user.dataset_size = n
        if not hasattr(user, "__iter__"):  # a sequence by __getitem__ and __len__
            return [int(user[i]) for i in range(len(user))]
        return [int(i) for i in user]

    def _size(self, n):
        return self._declared(n)

    def _order(self, n, pass_):
        user = self.sampler
        if self._pass is not None and pass_ != self._pass and hasattr(user, "reset"):
            user.reset()
        self._pass = pass_
        want = self._declared(n)
        indices = self._indices(n)[:want]
        if len(indices) != want:
            raise RuntimeError(f"{type(user).__name__}: The actual amount of data read from "
                               f"generator {len(indices)} is different from generator.len "
                               f"{want}.")
        return indices

    def _c_sampler(self):
        return _data.PySampler(type(self.sampler).__name__, self._size, self._order)


class IterSampler(_PythonSampler):
    """IterSampler(sampler, num_samples=None): MindSpore's wrapper of a user's iterable of row
    indices (any object with __iter__, a ds.Sampler subclass included). Each pass iterates it
    once (after reset() from the second pass on); a pass has as many rows as one iteration
    gives, at most num_samples."""

    _exact = False

    def __init__(self, sampler, num_samples=None):
        if not hasattr(sampler, "__iter__"):
            raise TypeError(f"IterSampler: sampler must be iterable (have __iter__), but got "
                            f"{type(sampler).__name__}.")
        super().__init__(sampler, num_samples)
