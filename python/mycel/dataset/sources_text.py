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
from mycel.dataset.samplers import FileShuffleSampler
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
        raise ValueError(f"{func}: dataset_files {unmatched} match no file{why}.")
    return sorted(files)


def _init_file_source(dataset, func, source, shuffle, levels, num_samples, num_parallel_workers,
                      sampler, num_shards, shard_id):
    """SourceDataset.__init__ for a source of files whose shuffle may also be a Shuffle:
    GLOBAL is True; a level in `levels` (FILES, INFILE) orders the rows by file; PARTIAL and
    ADAPTIVE (where in `levels`) are GLOBAL over at most PARTIAL_ROWS rows."""
    level = None
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
    if level is not None:
        dataset.sampler = FileShuffleSampler(source, level is Shuffle.INFILE, num_shards,
                                             shard_id, num_samples)


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
                          num_parallel_workers, None, num_shards, shard_id)


class CSVDataset(SourceDataset):
    """CSVDataset(dataset_files, field_delim=',', column_defaults=None, column_names=None,
    num_samples=None, num_parallel_workers=None, shuffle=None, num_shards=None,
    shard_id=None): the records of CSV files.

    dataset_files as for TextFileDataset. Fields are separated by field_delim (one character);
    a field in double quotes may hold delimiters, newlines and doubled quotes (""). Column
    names: column_names, else each file's first record (a header, which every file must
    repeat). column_defaults (one value per column) gives each column's type (int -> int32,
    float -> float32, str -> str) and the value of its empty fields; without it every column
    is str. Each column is a scalar. Blank lines are skipped. shuffle as TextFileDataset.

    Raises TypeError/ValueError for bad arguments, RuntimeError naming file:line and the column
    for a field that is not a number of its column's type or a record with the wrong number of
    fields."""

    def __init__(self, dataset_files, field_delim=",", column_defaults=None, column_names=None,
                 num_samples=None, num_parallel_workers=None, shuffle=None, num_shards=None,
                 shard_id=None):
        func = "CSVDataset"
        self.dataset_files = _find_files(func, dataset_files)
        if not isinstance(field_delim, str):
            raise TypeError(f"{func}: field_delim must be a str, but got "
                            f"{type(field_delim).__name__} {field_delim!r}.")
        if len(field_delim) != 1 or field_delim in '"\r\n':
            raise ValueError(f"{func}: field_delim must be one character other than a quote or "
                             f"a newline, but got {field_delim!r}.")
        self.field_delim = field_delim
        self.column_defaults = _check_defaults(func, column_defaults)
        self.column_names = check_columns(func, "column_names", column_names, none_ok=True)
        source = _data.csv_source(self.dataset_files, field_delim, self.column_defaults,
                                  self.column_names or [])
        _init_file_source(self, func, source, shuffle, (Shuffle.FILES,), num_samples,
                          num_parallel_workers, None, num_shards, shard_id)


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
