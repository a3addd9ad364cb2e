"""Text file datasets: TextFileDataset (one row per line) and CSVDataset (one row per record).

Each class checks its arguments here, expands dataset_files (paths or glob patterns, sorted,
as MindSpore) and builds a C++ source (src/data/sources_text.cc) that scans every file once
at construction, keeping each row's byte range: rows are then read by index, in any order,
by the engine's workers. ``shuffle`` takes a bool or a ``Shuffle``: Shuffle.GLOBAL (the
default) is True, a uniform shuffle of all rows of all files; Shuffle.FILES reads the files in
a new random order every epoch, each file's rows in order (Shuffle.INFILE, each file's rows
shuffled in file order, is MindDataset's only, as in MindSpore).
"""
import enum
import glob
import os

from mycel import _mycel
from mycel.dataset._validate import check_columns
from mycel.dataset.samplers import FileShuffleSampler, Sampler
from mycel.dataset.sources import SourceDataset

_data = _mycel._data


class Shuffle(str, enum.Enum):
    """MindSpore's shuffle levels for file datasets: GLOBAL (all rows), FILES (the file order,
    rows in order within a file), INFILE (the rows within each file, files in order)."""

    GLOBAL = "global"
    FILES = "files"
    INFILE = "infile"
    # MindDataset's too: PARTIAL shuffles each run of PARTIAL_ROWS rows; ADAPTIVE is GLOBAL up
    # to ADAPTIVE_ROWS rows, PARTIAL beyond (MindSpore's levels).
    PARTIAL = "partial"
    ADAPTIVE = "adaptive"


PARTIAL_ROWS = 1_000_000
ADAPTIVE_ROWS = 100_000_000


def _find_files(func, dataset_files):
    """The files dataset_files names (a path or glob pattern, or a list of them), sorted;
    ValueError naming the patterns that match no file."""
    patterns = [dataset_files] if isinstance(dataset_files, (str, os.PathLike)) else dataset_files
    if not isinstance(patterns, (list, tuple)) or not patterns or \
            not all(isinstance(p, (str, os.PathLike)) for p in patterns):
        raise TypeError(f"{func}: dataset_files must be a path or a non-empty list of paths, but "
                        f"got {dataset_files!r}.")
    if any(os.fspath(p) == "" for p in patterns):
        raise ValueError(f"{func}: Input dataset_files can not be empty (got an empty path).")
    files, unmatched, irregular = [], [], []
    for pattern in map(os.fspath, patterns):
        matched = glob.glob(pattern, recursive=True)
        found = [f for f in matched if os.path.isfile(f)]
        files += found
        if not found:
            unmatched.append(pattern)
            irregular += [f for f in matched if not os.path.isfile(f)]
    if unmatched:
        why = (f" ({', '.join(irregular)}: not a regular file; directories, FIFOs and devices "
               "are not read)") if irregular else ""
        raise ValueError(f"{func}: dataset_files {unmatched} match no file{why}. The following "
                         f"patterns did not match any files: {unmatched}.")
    return sorted(files)


_INT64_MAX = 2**63 - 1


def _check_num_samples(func, num_samples):
    """MindSpore's rule for the text datasets: an int in [0, INT64_MAX]; 0 or None reads all."""
    if num_samples is None:
        return None
    if isinstance(num_samples, bool) or not isinstance(num_samples, int):
        raise TypeError(f"{func}: num_samples must be an int, but got "
                        f"{type(num_samples).__name__} {num_samples!r}.")
    if not 0 <= num_samples <= _INT64_MAX:
        raise ValueError(f"{func}: num_samples exceeds the boundary between 0 and "
                         f"{_INT64_MAX}(INT64_MAX)!")
    return num_samples or None


def _init_file_source(dataset, func, source, shuffle, levels, num_samples, num_parallel_workers,
                      sampler, num_shards, shard_id, reader_order=False):
    """SourceDataset.__init__ for a source of files whose shuffle may also be a Shuffle:
    GLOBAL is True; a level in `levels` (FILES, INFILE) orders the rows by file; PARTIAL and
    ADAPTIVE (where in `levels`) are GLOBAL over at most PARTIAL_ROWS rows. With reader_order
    (the text datasets), shuffle=False reads in MindSpore's reader order (reader_order())
    instead of file order."""
    level = None
    if reader_order:
        num_samples = _check_num_samples(func, num_samples)
    if isinstance(shuffle, Shuffle) and shuffle in levels and \
            shuffle in (Shuffle.ADAPTIVE, Shuffle.PARTIAL):
        rows = len(source)
        if shuffle is Shuffle.ADAPTIVE and rows > ADAPTIVE_ROWS:
            shuffle = Shuffle.PARTIAL
        if shuffle is Shuffle.PARTIAL and rows > PARTIAL_ROWS:
            raise ValueError(f"{func}: shuffle=Shuffle.PARTIAL over {rows} rows (more than "
                             f"{PARTIAL_ROWS}) is not supported yet; use Shuffle.GLOBAL.")
        shuffle = Shuffle.GLOBAL  # one block of at most PARTIAL_ROWS rows: a global shuffle
    if isinstance(shuffle, Shuffle):
        if shuffle is not Shuffle.GLOBAL and shuffle not in levels:
            names = ", ".join(f"Shuffle.{s.name}" for s in (Shuffle.GLOBAL, *levels))
            raise ValueError(f"{func}: shuffle={shuffle} is not supported; use {names}, True "
                             "or False.")
        level, shuffle = (None if shuffle is Shuffle.GLOBAL else shuffle), True
    SourceDataset.__init__(dataset, func, source, num_samples, num_parallel_workers, shuffle,
                           sampler, num_shards, shard_id)
    if reader_order and sampler is None and level is None and \
            (shuffle is False or hasattr(dataset.sampler, "num_shards")):
        shard = dataset.sampler  # a DistributedSampler under num_shards or data parallelism
        num_shards, shard_id = getattr(shard, "num_shards", None), getattr(shard, "shard_id", None)
        dataset.sampler = FileReaderSampler(dataset, num_shards, shard_id, num_samples,
                                            shuffle=shuffle is not False)
    if level is not None:
        dataset.sampler = FileShuffleSampler(source, level is Shuffle.INFILE, num_shards,
                                             shard_id, num_samples)


def reader_order(file_of_rows, workers, num_shards=None, shard_id=None):
    """The row order of MindSpore's file readers without shuffling: the rows (of a shard: a
    contiguous run of ceil(n / num_shards) rows of all files in order, wrapping around) are
    cut into per-file blocks, block b is read by worker b % workers, and the output takes one
    row from each worker in turn (a worker that has run out is skipped)."""
    n = len(file_of_rows)
    if num_shards is None:
        rows = range(n)
    else:
        per = -(-n // num_shards)
        rows = [(shard_id * per + k) % n for k in range(per)] if n else []
    blocks = []
    for r in rows:
        if blocks and r == blocks[-1][-1] + 1 and file_of_rows[r] == file_of_rows[r - 1]:
            blocks[-1].append(r)
        else:
            blocks.append([r])
    streams = [[] for _ in range(max(1, min(workers, len(blocks))))]
    for b, block in enumerate(blocks):
        streams[b % len(streams)] += block
    order = []
    for k in range(max((len(s) for s in streams), default=0)):
        order += [s[k] for s in streams if k < len(s)]
    return order


class FileReaderSampler(Sampler):
    """The sampler of a text file dataset's shuffle=False: the rows in MindSpore's reader
    order (reader_order) for the dataset's number of workers at the time an epoch starts,
    then the first num_samples. With shuffle (and shards): the shard's rows as reader_order
    picks them (a contiguous run, as MindSpore's readers shard), in a new random order each
    epoch (MindSpore also shuffles the file order before cutting shards; here the shard's
    rows stay the same every epoch)."""

    def __init__(self, dataset, num_shards=None, shard_id=None, num_samples=None,
                 shuffle=False):
        super().__init__(num_samples)
        self._dataset = dataset
        self.num_shards, self.shard_id, self.shuffle = num_shards, shard_id, shuffle

    def _c_sampler(self):
        source = self._dataset._source
        order = reader_order(list(source.file_of_rows()), self._dataset._workers(),
                             self.num_shards, self.shard_id)
        if self.shuffle:
            return _data.SubsetRandomSampler(order, self._limit())
        return _data.SubsetSampler(order, self._limit())


class TextFileDataset(SourceDataset):
    """TextFileDataset(dataset_files, num_samples=None, num_parallel_workers=None,
    shuffle=None, num_shards=None, shard_id=None): the lines of text files.

    dataset_files is a path or glob pattern, or a list of them; the files are read in sorted
    order. One row per non-empty line (without its "\\n" or "\\r\\n"; empty lines are skipped,
    as MindSpore does), column "text" (str scalar). shuffle: None or Shuffle.GLOBAL or True
    shuffles all lines (the default), Shuffle.FILES the order of the files, False keeps file
    order (module doc).

    Raises TypeError for bad argument types, ValueError for patterns that match no file,
    RuntimeError for an unreadable file or a line that is not UTF-8."""

    def __init__(self, dataset_files, num_samples=None, num_parallel_workers=None, shuffle=None,
                 num_shards=None, shard_id=None):
        func = "TextFileDataset"
        self.dataset_files = _find_files(func, dataset_files)
        source = _data.text_file_source(self.dataset_files)
        _init_file_source(self, func, source, shuffle, (Shuffle.FILES,), num_samples,
                          num_parallel_workers, None, num_shards, shard_id, reader_order=True)


class CSVDataset(SourceDataset):
    """CSVDataset(dataset_files, field_delim=',', column_defaults=None, column_names=None,
    num_samples=None, num_parallel_workers=None, shuffle=None, num_shards=None,
    shard_id=None): the records of CSV files.

    dataset_files as for TextFileDataset. Fields are separated by field_delim (one character,
    None: ","); a field in double quotes may hold delimiters, newlines and doubled quotes
    (""). Column names: column_names, else each file's first record (a header, which every
    file must repeat). column_defaults (one value per column) gives each column's type
    (int -> int32, float -> float32, str -> str) and the value of its empty fields; without
    it every column is str. Each column is a scalar. Blank lines are skipped. shuffle as
    TextFileDataset.

    Raises TypeError/ValueError for bad arguments, RuntimeError naming file:line and the column
    for a field that is not a number of its column's type or a record with the wrong number of
    fields."""

    def __init__(self, dataset_files, field_delim=",", column_defaults=None, column_names=None,
                 num_samples=None, num_parallel_workers=None, shuffle=None, num_shards=None,
                 shard_id=None):
        func = "CSVDataset"
        self.dataset_files = _find_files(func, dataset_files)
        if field_delim is None:  # MindSpore's default
            field_delim = ","
        if not isinstance(field_delim, str):
            raise TypeError(f"{func}: field_delim must be a str, but got "
                            f"{type(field_delim).__name__} {field_delim!r}.")
        if len(field_delim) != 1 or field_delim in '"\r\n':
            raise ValueError(f"{func}: field_delim must be one character other than a quote or "
                             f"a newline, but got {field_delim!r}.")
        self.field_delim = field_delim
        self.column_defaults = _check_defaults(func, column_defaults)
        if isinstance(column_names, (list, tuple)):
            seen = set()
            for c in column_names:
                if c in seen:
                    raise ValueError(f"{func}: column_names has duplicate column names: "
                                     f"{list(column_names)}. Invalid parameter, duplicate column "
                                     f"names are not allowed: {c}.")
                seen.add(c)
        self.column_names = check_columns(func, "column_names", column_names, none_ok=True)
        source = _data.csv_source(self.dataset_files, field_delim, self.column_defaults,
                                  self.column_names or [])
        _init_file_source(self, func, source, shuffle, (Shuffle.FILES,), num_samples,
                          num_parallel_workers, None, num_shards, shard_id, reader_order=True)


def _check_defaults(func, column_defaults):
    """column_defaults as a list of int (int32 range), float or str values (empty: all str)."""
    if column_defaults is None:
        return []
    if not isinstance(column_defaults, (list, tuple)):
        raise TypeError(f"{func}: column_defaults must be a list of int, float or str values, "
                        f"but got {column_defaults!r}.")
    for i, v in enumerate(column_defaults):
        if isinstance(v, bool) or not isinstance(v, (int, float, str)):
            raise TypeError(f"{func}: column_defaults[{i}] must be an int, float or str, but "
                            f"got {type(v).__name__} {v!r}.")
        if isinstance(v, int) and not -2**31 <= v < 2**31:
            raise ValueError(f"{func}: column_defaults[{i}] = {v} is outside the int32 range.")
    return list(column_defaults)
