"""MindDataset: the rows of MindRecord files in MindSpore's format, written by
``mycel.mindrecord.FileWriter`` or by MindSpore.

The C++ source (src/data/mindrecord.h) opens every shard of every set at construction, with
its header and SQLite index, checking them against each other and that each set is complete
(every shard present; in files mycel wrote, one set id and the header's checksum), so a
truncated, corrupt or half-committed set fails here; each record's structure (and checksum,
in mycel's files) is checked when the engine's workers read it. The rows come shard by shard,
each shard's in write order (one write_raw_data call: write order); shuffle,
sampler, num_shards/shard_id and num_samples choose among them as for every source dataset.
"""
from mycel import _mycel
from mycel.dataset import config
from mycel.dataset._validate import check_columns, check_int
from mycel.dataset.samplers import RandomSampler
from mycel.dataset.engine import _seed
from mycel.dataset.sources import SourceDataset
from mycel.dataset.sources_text import Shuffle, _init_file_source
from mycel.mindrecord import _field_value, _files_to_read
from mycel.mindrecord.config import readable_path

_data = _mycel._data


class MindDataset(SourceDataset):
    """MindDataset(dataset_files, columns_list=None, num_parallel_workers=None, shuffle=None,
    num_shards=None, shard_id=None, sampler=None, padded_sample=None, num_padded=None,
    num_samples=None): the rows of MindRecord files.

    dataset_files: one file name (then every shard of its set is read, found from its header
    in the same directory) or a list of files (then exactly their rows; each file's set must
    still be complete, so that a half-committed set never reads). Several sets must share one
    schema; rows come set by set (in order of first mention), each set shard by shard.
    columns_list: the fields to read, in that order (default: all, in schema order). Columns:
    numeric fields as numpy arrays of their dtype (scalars 0-d, arrays of their schema shape
    with any -1 resolved), "string" fields as str, "bytes" fields as 1-d uint8 arrays.
    shuffle: None/True/Shuffle.GLOBAL shuffles all rows, False keeps the files' order,
    Shuffle.FILES reads the shard files in a new random order every epoch (each file's rows in
    write order; padded rows count as one more file), Shuffle.INFILE keeps the files in order
    and shuffles the rows within each, Shuffle.PARTIAL shuffles each run of 1,000,000 rows
    (only sets of at most that many rows for now: one global shuffle), Shuffle.ADAPTIVE is
    GLOBAL up to 100,000,000 rows and PARTIAL beyond.
    padded_sample (a dict holding every column of columns_list, which it requires) and
    num_padded append num_padded copies of that row, so that num_shards divides the row count.

    Raises TypeError/ValueError for bad arguments (ValueError for a missing file or an unknown
    column), RuntimeError for a truncated, corrupt or incomplete set, naming the file."""

    def __init__(self, dataset_files, columns_list=None, num_parallel_workers=None, shuffle=None,
                 num_shards=None, shard_id=None, sampler=None, padded_sample=None,
                 num_padded=None, num_samples=None):
        func = "MindDataset"
        files, load_set = _files_to_read(func, "dataset_files", dataset_files)
        self.dataset_files = files
        self.columns_list = check_columns(func, "columns_list", columns_list, none_ok=True)
        source = _data.MindRecordSource([readable_path(func, f) for f in files], load_set,
                                        self.columns_list or [])
        if padded_sample is not None or num_padded is not None:
            source = self._pad(func, source, padded_sample, num_padded, num_shards)
        if isinstance(sampler, RandomSampler) and sampler.shuffle not in ("global", "adaptive"):
            # A shuffle level given through the sampler (MindSpore's): as shuffle=level.
            if sampler.replacement or shuffle is not None:
                raise ValueError(f"{func}: RandomSampler(shuffle=Shuffle."
                                 f"{sampler.shuffle.upper()}) takes neither replacement nor "
                                 f"the dataset's shuffle.")
            shuffle, num_samples, sampler = Shuffle(sampler.shuffle), sampler.num_samples, None
        _init_file_source(self, func, source, shuffle,
                          (Shuffle.FILES, Shuffle.INFILE, Shuffle.PARTIAL, Shuffle.ADAPTIVE),
                          num_samples, num_parallel_workers, sampler, num_shards, shard_id)

    def __getitem__(self, index):
        """Row `index` (from 0) of the first epoch of the dataset's latest iterator (of the next
        one before any: its seed is fixed then), as a list of numpy arrays
        (create_tuple_iterator's output_numpy rows). The epoch is read once and kept until the
        sampler is replaced (use_sampler/add_sampler) or another iterator is made. TypeError for a non-int,
        ValueError for a negative index, RuntimeError past the last row (MindSpore's)."""
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"MindDataset: Argument index with value {index} is not of type "
                            f"[<class 'int'>], but got {type(index)}.")
        if index < 0:
            raise ValueError(f"MindDataset: index cannot be negative, but got {index}.")
        seed = getattr(self, "_last_seed", None)
        if seed is None:  # no iterator yet: fix the next one's seed now, and read its order
            seed = self._next_seed = _seed(config._pipeline_entropy(self._passes))
        key = (id(self.sampler), self.sampler, seed)
        cached = getattr(self, "_getitem_rows", None)
        if cached is None or cached[0] != key:
            pipe, _, _ = self._start_pipeline(None, 1, seed=seed)
            rows = []
            try:
                while True:
                    row = pipe.next(True)
                    if row is None:
                        break
                    rows.append(list(row))
            finally:
                pipe.stop()
            cached = self._getitem_rows = (key, rows)
        rows = cached[1]
        if index >= len(rows):
            raise RuntimeError(f"MindDataset: Input index is not within the required interval "
                               f"of [0, {len(rows) - 1}], but got {index}.")
        return rows[index]

    def _pad(self, func, source, padded_sample, num_padded, num_shards):
        """The source with num_padded copies of padded_sample appended (MindSpore's rules)."""
        if padded_sample is None:
            raise ValueError(f"{func}: num_padded is specified but padded_sample is not "
                             f"(num_padded={num_padded}).")
        if not isinstance(padded_sample, dict):
            raise TypeError(f"{func}: padded_sample must be a dict, but got "
                            f"{type(padded_sample).__name__}.")
        if num_padded is None:
            raise ValueError(f"{func}: padded_sample is specified and requires num_padded as "
                             "well.")
        num_padded = check_int(func, "num_padded", num_padded, 0)
        if self.columns_list is None:
            raise ValueError(f"{func}: padded_sample is specified and requires columns_list as "
                             "well.")
        missing = [c for c in self.columns_list if c not in padded_sample]
        if missing:
            raise ValueError(f"{func}: padded_sample cannot match columns_list: it has no value "
                             f"for columns {missing}.")
        if num_shards is None:
            raise ValueError(f"{func}: padded_sample and num_padded need num_shards.")
        values = [_field_value(func, name, ftype, shape, padded_sample[name], "padded_sample")
                  for name, ftype, shape in source.schema()]
        source = source.padded(values, num_padded)
        if isinstance(num_shards, int) and num_shards > 0 and len(source) % num_shards:
            raise ValueError(f"{func}: the {len(source) - num_padded} rows plus num_padded="
                             f"{num_padded} must be divisible by num_shards={num_shards}.")
        return source
