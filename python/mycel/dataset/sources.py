"""Source datasets: MnistDataset, FashionMnistDataset, NumpySlicesDataset, GeneratorDataset.

Random-access sources (the MNIST files, numpy slices, a GeneratorDataset source with
__getitem__ and __len__) pick row indices with a _Sampler each pass: all rows, in order or in
a fresh random order (shuffle, the default), an explicit list of indices (sampler), then one
shard (num_shards/shard_id: positions shard_id, shard_id + num_shards, ... of the padded
order, as MindSpore's DistributedSampler) and the first num_samples. Shards read the same
order only when they share a seed (``mycel.dataset.config.set_seed``).

Rows are read-only views of the loaded arrays (MNIST, numpy slices): transforms return new
arrays, and an in-place write fails loudly instead of corrupting later epochs.
"""
import functools
import gzip
import os
import struct
import zlib

import numpy as np

import mycel
from mycel.dataset._validate import check_bool, check_columns, check_int
from mycel.dataset.engine import Dataset, _reraise
from mycel.dataset.transforms import _numpy_dtype


class _Sampler:
    """Which rows of a random-access source one pass reads (module doc)."""

    def __init__(self, func, num_samples, shuffle, sampler, num_shards, shard_id):
        self.num_samples = check_int(func, "num_samples", num_samples, 1, none_ok=True)
        shuffle = check_bool(func, "shuffle", shuffle, none_ok=True)
        self.num_shards = check_int(func, "num_shards", num_shards, 1, none_ok=True)
        self.shard_id = check_int(func, "shard_id", shard_id, 0, none_ok=True)
        if (self.num_shards is None) != (self.shard_id is None):
            raise ValueError(f"{func}: num_shards and shard_id must be given together, but got "
                             f"num_shards={num_shards}, shard_id={shard_id}.")
        if self.num_shards is not None and self.shard_id >= self.num_shards:
            raise ValueError(f"{func}: shard_id must be in [0, {self.num_shards - 1}], but got "
                             f"{shard_id}.")
        self.indices = None
        if sampler is not None:
            if shuffle is not None or self.num_shards is not None:
                raise ValueError(f"{func}: sampler cannot be combined with shuffle or "
                                 "num_shards/shard_id.")
            if not isinstance(sampler, (list, tuple, range, np.ndarray)):
                raise TypeError(f"{func}: sampler must be a sequence of row indices, but got "
                                f"{type(sampler).__name__}.")
            self.indices = np.asarray(sampler, dtype=np.int64).reshape(-1)
        self.shuffle = shuffle is not False and sampler is None
        self._func = func

    def size(self, n):
        """The number of rows a pass reads from a source of n rows."""
        if self.indices is not None:
            n = len(self.indices)
        if self.num_shards is not None:
            n = -(-n // self.num_shards)
        return n if self.num_samples is None else min(n, self.num_samples)

    def order(self, n, rng):
        """One pass's row indices into a source of n rows."""
        if self.indices is not None:
            bad = (self.indices < 0) | (self.indices >= n)
            if bad.any():
                raise IndexError(f"{self._func}: sampler index {self.indices[bad][0]} is out of "
                                 f"range for {n} rows.")
            idx = self.indices
        else:
            idx = rng.permutation(n) if self.shuffle else np.arange(n)
        if self.num_shards is not None and n:
            per = -(-len(idx) // self.num_shards)
            idx = np.resize(idx, per * self.num_shards)[self.shard_id::self.num_shards]
        return idx[:self.num_samples]


class _RandomAccessDataset(Dataset):
    """A source read by index, in the order its _Sampler picks; subclasses give _count()."""

    _random = "sampler"

    def __init__(self, func, num_samples, num_parallel_workers, shuffle, sampler, num_shards,
                 shard_id):
        super().__init__((), num_parallel_workers)
        self._sampler = _Sampler(func, num_samples, shuffle, sampler, num_shards, shard_id)

    def _num_rows(self):
        return self._sampler.size(self._count())

    def _order(self, run):
        return self._sampler.order(self._count(), run.rng(self))

    def _count(self):
        raise NotImplementedError


class _ArrayDataset(_RandomAccessDataset):
    """A random-access source over column arrays (rows along axis 0), given by _arrays()."""

    def _count(self):
        return len(self._arrays()[0])

    def _rows(self, run):
        # 1-D columns give 0-d arrays (reshaped [1] rows), not numpy scalars
        columns = [a if a.ndim > 1 else a.reshape(-1, 1) for a in self._arrays()]
        scalar = [a.ndim == 1 for a in self._arrays()]
        for i in self._order(run).tolist():
            yield tuple(c[i].reshape(()) if s else c[i] for c, s in zip(columns, scalar))

    def _batches(self, run, size, drop_remainder):
        """Batches gathered straight from the column arrays: the stacked rows, without
        building them one by one."""
        order, columns = self._order(run), self._arrays()
        stop = len(order) - len(order) % size if drop_remainder else len(order)
        for start in range(0, stop, size):
            idx = order[start:start + size]
            yield tuple(c[idx] for c in columns)

    def _arrays(self):
        """The columns as read-only arrays, rows along axis 0."""
        raise NotImplementedError


def _readonly(array):
    """A read-only view of array: rows handed out cannot be written into the source."""
    array = array.view()
    array.flags.writeable = False
    return array


# ----- MNIST -----

_IMAGES_MAGIC, _LABELS_MAGIC = 2051, 2049


def _idx_path(func, dataset_dir, name):
    """The path of name in dataset_dir, plain or gzipped; RuntimeError when neither exists."""
    path = os.path.join(dataset_dir, name)
    for p in (path, path + ".gz"):
        if os.path.isfile(p):
            return p
    raise RuntimeError(f"{func}: the file {path} (or {path}.gz) does not exist.")


def _load_idx(func, path, magic):
    """The array of an idx file; RuntimeError naming func and the file when it is unreadable,
    truncated or not an idx file of the expected kind."""
    try:
        st = os.stat(path)
        return _read_idx(path, magic, st.st_mtime_ns, st.st_size)
    except (OSError, EOFError, zlib.error) as err:
        raise RuntimeError(f"{func}: cannot read {path}: {err}") from err
    except _IdxError as err:
        raise RuntimeError(f"{func}: {err}") from None


class _IdxError(Exception):
    """A malformed idx file (re-raised as RuntimeError by _load_idx)."""


@functools.lru_cache(maxsize=4)
def _read_idx(path, magic, mtime_ns, size):
    """The array of an idx file (plain or gzipped) after checking its header and length.
    Cached per file version (mtime and size are in the key): datasets re-created for each
    epoch or for evaluation do not decompress the files again."""
    with (gzip.open if path.endswith(".gz") else open)(path, "rb") as f:
        data = f.read()
    ndim = 3 if magic == _IMAGES_MAGIC else 1
    header = 4 * (1 + ndim)
    if len(data) < header:
        raise _IdxError(f"{path} is truncated: {len(data)} bytes, shorter than the "
                        f"{header}-byte idx header.")
    found, *dims = struct.unpack(f">{1 + ndim}I", data[:header])
    if found != magic:
        raise _IdxError(f"{path} has magic number {found:#010x}, expected {magic:#010x} (an "
                        f"idx {'image' if ndim == 3 else 'label'} file).")
    expected = header + int(np.prod(dims))
    if len(data) != expected:
        raise _IdxError(f"{path} is {len(data)} bytes but its header {dims} says {expected}: "
                        "the file is truncated or corrupt.")
    return np.frombuffer(data, np.uint8, offset=header).reshape(dims)


class MnistDataset(_ArrayDataset):
    """MnistDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
    shuffle=None, sampler=None, num_shards=None, shard_id=None): the MNIST idx files.

    dataset_dir holds train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte
    and t10k-labels-idx1-ubyte, each plain or gzipped (.gz). usage is 'train', 'test' or 'all'
    (None: 'all': train then test, those of the two whose files are present). Columns:
    "image" (uint8, [28, 28, 1]) and "label" (uint32 scalar). shuffle (default: True), sampler, num_shards/shard_id and num_samples choose the
    rows (module doc); num_parallel_workers is accepted for compatibility (one thread)."""

    _SPLITS = {"train": ("train",), "test": ("t10k",), "all": ("train", "t10k")}

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None):
        func = type(self).__name__
        super().__init__(func, num_samples, num_parallel_workers, shuffle, sampler, num_shards,
                         shard_id)
        if not isinstance(dataset_dir, (str, os.PathLike)):
            raise TypeError(f"{func}: dataset_dir must be a path, but got "
                            f"{type(dataset_dir).__name__}.")
        dataset_dir = os.fspath(dataset_dir)
        if not os.path.isdir(dataset_dir):
            raise ValueError(f"{func}: the dataset_dir {dataset_dir} does not exist or is not a "
                             "directory.")
        usage = "all" if usage is None else usage
        if usage not in self._SPLITS:
            raise ValueError(f"{func}: usage must be 'train', 'test' or 'all', but got "
                             f"{usage!r}.")
        self.dataset_dir, self.usage = dataset_dir, usage
        splits = self._SPLITS[usage]
        if usage == "all":  # as MindSpore: the splits present (a directory of one split works)
            present = [s for s in splits if any(
                os.path.isfile(os.path.join(dataset_dir, f"{s}-images-idx3-ubyte{z}"))
                for z in ("", ".gz"))]
            splits = present or splits
        self._files = [(_idx_path(func, dataset_dir, f"{s}-images-idx3-ubyte"),
                        _idx_path(func, dataset_dir, f"{s}-labels-idx1-ubyte"))
                       for s in splits]
        self._data = None

    def _columns(self):
        return ["image", "label"]

    def _arrays(self):
        if self._data is None:
            func = type(self).__name__
            images, labels = [], []
            for ipath, lpath in self._files:
                im = _load_idx(func, ipath, _IMAGES_MAGIC)
                lb = _load_idx(func, lpath, _LABELS_MAGIC)
                if len(im) != len(lb):
                    raise RuntimeError(f"{func}: {ipath} has {len(im)} images but {lpath} has "
                                       f"{len(lb)} labels.")
                images.append(im[..., None])
                labels.append(lb.astype(np.uint32))
            image = images[0] if len(images) == 1 else np.concatenate(images)
            self._data = (_readonly(image), _readonly(np.concatenate(labels)))
        return self._data


class FashionMnistDataset(MnistDataset):
    """FashionMnistDataset(dataset_dir, usage=None, ...): Fashion-MNIST, the same idx format,
    file names, columns and arguments as MnistDataset (Debian: /usr/share/datasets/fashion-mnist,
    gzipped)."""


# ----- numpy slices -----

class NumpySlicesDataset(_ArrayDataset):
    """NumpySlicesDataset(data, column_names=None, num_samples=None, num_parallel_workers=1,
    shuffle=None, sampler=None, num_shards=None, shard_id=None): rows are slices along axis 0.

    data is a dict (keys are the column names), a tuple (one column per item), or anything
    else numpy can convert (a list or an array: one column). Columns are copied (np.array).
    Default names: "column_0", "column_1", ... ."""

    def __init__(self, data, column_names=None, num_samples=None, num_parallel_workers=1,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None):
        super().__init__("NumpySlicesDataset", num_samples, num_parallel_workers, shuffle,
                         sampler, num_shards, shard_id)
        names = None
        if isinstance(data, dict):
            names, data = [str(k) for k in data], tuple(data.values())
        columns = data if isinstance(data, tuple) else (data,)
        arrays = []
        for i, c in enumerate(columns):
            a = _as_column(c)
            if a.ndim == 0:
                raise ValueError(f"NumpySlicesDataset: column {i} is a scalar; each column "
                                 "must have a first axis to slice.")
            if a.dtype == object:
                raise TypeError(f"NumpySlicesDataset: column {i} is not a rectangular numeric "
                                "array (numpy made an object array of it).")
            arrays.append(a)
        if not arrays:
            raise ValueError("NumpySlicesDataset: data has no columns.")
        lengths = [len(a) for a in arrays]
        if len(set(lengths)) > 1:
            raise ValueError(f"NumpySlicesDataset: the columns have different lengths "
                             f"{lengths}.")
        names = check_columns("NumpySlicesDataset", "column_names", column_names,
                              none_ok=True) or names or [f"column_{i}" for i in range(len(arrays))]
        if len(names) != len(arrays):
            raise ValueError(f"NumpySlicesDataset: column_names has {len(names)} names for "
                             f"{len(arrays)} columns.")
        self._names = names
        self._data = tuple(_readonly(a) for a in arrays)

    def _columns(self):
        return self._names

    def _arrays(self):
        return self._data


def _as_column(value):
    """One column of NumpySlicesDataset as a numpy array (a copy)."""
    if isinstance(value, mycel.Tensor):
        return value.asnumpy().copy()
    return np.array(value)


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


class GeneratorDataset(_RandomAccessDataset):
    """GeneratorDataset(source, column_names=None, column_types=None, schema=None,
    num_samples=None, num_parallel_workers=1, shuffle=None, sampler=None, num_shards=None,
    shard_id=None, python_multiprocessing=True, max_rowsize=None): rows from Python.

    source is a random-access object (__getitem__ and __len__: read by index, shuffled by
    default, shardable), a generator function (called once per epoch) or an iterable
    (iterated once per epoch; shuffle, sampler and shards are then refused, as MindSpore).
    Each item is a tuple/list of columns or a single column (arrays, numbers, Tensors).
    column_names is required; column_types (mycel or numpy dtypes) checks each column's dtype.
    Workers and multiprocessing options are accepted and ignored (one thread); schema is not
    supported."""

    def __init__(self, source, column_names=None, column_types=None, schema=None,
                 num_samples=None, num_parallel_workers=1, shuffle=None, sampler=None,
                 num_shards=None, shard_id=None, python_multiprocessing=True, max_rowsize=None):
        func = "GeneratorDataset"
        self._random_access = hasattr(source, "__getitem__") and hasattr(source, "__len__")
        if not self._random_access:
            if not callable(source) and not hasattr(source, "__iter__"):
                raise TypeError(f"{func}: source must be random-access (__getitem__ and "
                                f"__len__), a generator function or an iterable, but got "
                                f"{type(source).__name__}.")
            if shuffle or sampler is not None or num_shards is not None:
                raise ValueError(f"{func}: shuffle, sampler and num_shards/shard_id need a "
                                 "random-access source (__getitem__ and __len__).")
            shuffle = False
        super().__init__(func, num_samples, num_parallel_workers, shuffle, sampler, num_shards,
                         shard_id)
        if not self._random_access:
            self._random = None
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

    def _columns(self):
        return self._names

    def _count(self):
        if self._random_access:
            return len(self.source)
        if self._counted is None:  # a dry pass, as MindSpore does for unsized sources
            self._counted = sum(1 for _ in self._source_items())
        return self._counted

    def _rows(self, run):
        names, types = self._names, self._types
        if self._random_access:
            for i in self._order(run).tolist():
                yield _convert_row("GeneratorDataset", self._read(i), names, types)
            return
        limit = self._sampler.num_samples
        for n, item in enumerate(self._source_items()):
            if limit is not None and n >= limit:
                return
            yield _convert_row("GeneratorDataset", item, names, types)

    def _read(self, i):
        try:
            return self.source[i]
        except Exception as err:  # re-raised naming the source and the index
            _reraise(err, f"GeneratorDataset: source[{i}] raised {type(err).__name__}: {err}")

    def _source_items(self):
        src = self.source
        try:
            items = iter(src() if callable(src) and not hasattr(src, "__iter__") else src)
            while True:
                try:
                    item = next(items)
                except StopIteration:
                    return
                yield item
        except Exception as err:  # re-raised naming the source
            _reraise(err, f"GeneratorDataset: the source raised {type(err).__name__}: {err}")
