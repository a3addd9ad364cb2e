"""TFRecordDataset: rows from TFRecord files of tf.train.Example records.

The C++ source (src/data/sources_tfrecord.cc) indexes the files at construction (record
framing and CRCs; GZIP/ZLIB files inflated once) and parses each record with the
protoc-generated tf.train.Example parser when its row is read. The columns are a Schema's
(schema.py; types converted, shapes applied) or, without one, every feature of the first
record, sorted by name: int64 lists as int64, float lists as float32, bytes lists as uint8
(the bytes), each 1-D.
"""
import os

from mycel import _mycel
from mycel.dataset._validate import check_columns
from mycel.dataset.schema import Schema
from mycel.dataset.sources import SourceDataset
from mycel.dataset.sources_text import Shuffle, _find_files, _init_file_source

_data = _mycel._data


class TFRecordDataset(SourceDataset):
    """TFRecordDataset(dataset_files, schema=None, columns_list=None, num_samples=None,
    num_parallel_workers=None, shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None,
    shard_equal_rows=False, cache=None, compression_type=None)

    dataset_files: a path or glob pattern, or a list of them (read in sorted order). schema: a
    Schema, or the path of a schema JSON file (its numRows caps the rows unless num_samples
    is given). columns_list: the
    columns to keep, in that order. shuffle: True/Shuffle.GLOBAL (all rows), Shuffle.FILES (the
    file order), Shuffle.INFILE (the rows within each file, files in order),
    False. compression_type: None or "" (plain files), "GZIP" or "ZLIB".
    Shards split the rows (each shard gets the same number of rows, as MindSpore's
    shard_equal_rows=True; MindSpore's default instead gives each shard whole files).

    Raises TypeError/ValueError for bad arguments, RuntimeError for a file that is not a
    TFRecord file, a corrupt record, or a feature the schema's type or shape does not fit."""

    def __init__(self, dataset_files, schema=None, columns_list=None, num_samples=None,
                 num_parallel_workers=None, shuffle=Shuffle.GLOBAL, num_shards=None,
                 shard_id=None, shard_equal_rows=False, cache=None, compression_type=None):
        func = "TFRecordDataset"
        self.dataset_files = _find_files(func, dataset_files)
        if schema is not None and not isinstance(schema, (str, os.PathLike, Schema)):
            raise TypeError(f"{func}: schema must be a Schema or the path of a schema file, but "
                            f"got {type(schema).__name__}.")
        if isinstance(schema, (str, os.PathLike)):
            schema = Schema(os.fspath(schema))
        self.schema = schema
        self.columns_list = check_columns(func, "columns_list", columns_list, none_ok=True) or []
        if compression_type not in (None, "", "GZIP", "ZLIB"):
            raise ValueError(f"{func}: compression_type must be None, '', 'GZIP' or 'ZLIB', but "
                             f"got {compression_type!r}.")
        if not isinstance(shard_equal_rows, bool):
            raise TypeError(f"{func}: shard_equal_rows must be a bool, but got "
                            f"{shard_equal_rows!r}.")
        self.shard_equal_rows = shard_equal_rows
        self.compression_type = compression_type
        columns = [] if schema is None else [(c["name"], c["type"], c["shape"])
                                             for c in schema.columns]
        # the schema's numRows caps the rows unless num_samples is given (MindSpore's rule)
        num_rows = schema.num_rows if schema is not None and schema.num_rows > 0 and \
            not num_samples else -1
        source, self._specs = _data.tfrecord_source(self.dataset_files, columns,
                                                    self.columns_list, bool(compression_type),
                                                    num_rows)
        if shuffle is None:
            shuffle = Shuffle.GLOBAL
        _init_file_source(self, func, source, shuffle, (Shuffle.FILES, Shuffle.INFILE), num_samples,
                          num_parallel_workers, None, num_shards, shard_id)
