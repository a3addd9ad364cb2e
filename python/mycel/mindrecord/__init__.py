"""mycel.mindrecord: MindSpore's MindRecord files (``mindspore.mindrecord``): FileWriter and
FileReader.

FileWriter turns rows (dicts of int, float, str, bytes and numpy arrays, checked against a
schema) into a set of shard files in MindSpore's format (docs/mindrecord-format.md): per
shard a JSON header, pages of records (scalars and strings as MessagePack, arrays and bytes as
blobs, integer arrays compressed as MindSpore does) and a SQLite index ``<file>.db``, so
MindSpore reads what mycel writes and ``mycel.dataset.MindDataset`` reads what MindSpore
wrote. Each ``write_raw_data`` call splits its rows into one contiguous run per shard
(MindSpore's split); readers give the rows shard by shard. The work is in C++
(src/data/mindrecord.h); commit() writes the shards and indexes under temporary names and
renames them, so a crash at any point leaves no set of files that reads as valid. Files mycel
writes also carry CRC-32s and a set id in tables of the index that MindSpore ignores.
FileReader reads the rows back as dicts without the data pipeline; ``Dataset.save`` writes a
pipeline's rows through FileWriter.
Encryption: ``set_enc_key``, ``set_enc_mode``, ``set_dec_mode`` (mycel/mindrecord/config.py):
with a key set, commit encrypts the file and its index, and readers decrypt what they open.
MindPage (mindpage.py) reads rows grouped by an index field; FileWriter.open_for_append adds
rows to a committed set (by rewriting it). Methods return None instead of MSRStatus.SUCCESS
(errors raise).
"""
import concurrent.futures
import numbers
import os

import numpy as np

from mycel import _mycel
from mycel.mindrecord import config as _config
from mycel.mindrecord.config import set_dec_mode, set_enc_key, set_enc_mode
from mycel.mindrecord.mindpage import _files_to_read, _row_dict  # noqa: F401 (readers, sources)
from mycel.mindrecord.mindpage import (MindPage, MindRecordException, MRMDefineCategoryError,
                                       MRMGetMetaError, ParamTypeError, ParamValueError)

__all__ = ["FileWriter", "FileReader", "MindPage", "set_enc_key", "set_enc_mode",
           "set_dec_mode", "MindRecordException", "ParamValueError", "ParamTypeError",
           "MRMDefineCategoryError", "MRMGetMetaError"]

_TYPES = ("int32", "int64", "float32", "float64", "string", "bytes")
_NUMERIC = _TYPES[:4]


def _field_value(func, name, ftype, shape, value, where):
    """value of field `name` (type ftype, shape or None) as FileWriter's C++ side takes it:
    str, bytes, or a numpy array of the field's dtype (its shape is checked in C++)."""
    def bad(expected):
        return TypeError(f"{func}: {where}, field '{name}' ({ftype}) must be {expected}, but "
                         f"got {type(value).__name__} {_short(value)}.")

    if ftype == "string":
        if not isinstance(value, str):
            raise bad("a str")
        return value
    if ftype == "bytes":
        if not isinstance(value, (bytes, bytearray, memoryview)):
            raise bad("bytes")
        return bytes(value)
    dtype = np.dtype(ftype)
    kinds = "iu" if dtype.kind == "i" else "iuf"
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in kinds:
            raise bad(f"{'an integer' if dtype.kind == 'i' else 'a numeric'} numpy array")
    elif shape is not None:
        raise bad("a numpy array")
    elif isinstance(value, (bool, np.bool_)) or not isinstance(
            value, numbers.Integral if dtype.kind == "i" else numbers.Real):
        raise bad("an int" if dtype.kind == "i" else "a float")
    array = np.asarray(value)
    if dtype.kind == "i" and array.size:
        info = np.iinfo(dtype)
        low, high = array.min(), array.max()
        if low < info.min or high > info.max:
            raise ValueError(f"{func}: {where}, field '{name}' ({ftype}) holds "
                             f"{low if low < info.min else high}, outside the {ftype} range.")
    return np.ascontiguousarray(array, dtype=dtype)


def _check_int_type(func, arg, value, ms_words=None):
    """TypeError unless value is an int (not a bool); ParamValueError for None (MindSpore's
    words in both)."""
    if value is None:
        raise ParamValueError(f"{func}: Parameter {arg} is None.")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{func}: {arg} must be an int, but got {type(value).__name__} "
                        f"{value!r}. {ms_words or f'Parameter {arg} is not int.'}")


def _short(value):
    """repr(value), cut to a readable length for messages."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class FileWriter:
    """FileWriter(file_name, shard_num=1, overwrite=False): writes rows into MindRecord files.

    file_name: the file to write when shard_num is 1; else the shards are file_name0 ..
    file_name{shard_num-1} (the suffix zero-padded to the width of shard_num - 1, as
    MindSpore). shard_num in [1, 1000]. overwrite=False raises RuntimeError if any of those
    files exists (checked now and again at commit); True replaces them at commit.

    Use: ``add_schema(schema)``, optionally ``add_index(fields)``, then ``write_raw_data(rows)``
    any number of times, then ``commit()``. Nothing appears under the final names before
    commit; a writer dropped without commit leaves nothing behind.

    Raises TypeError/ValueError for bad arguments (ValueError if the directory is missing).
    """

    def __init__(self, file_name, shard_num=1, overwrite=False):
        if not isinstance(file_name, (str, os.PathLike)):
            raise TypeError(f"FileWriter: file_name must be a str, but got "
                            f"{type(file_name).__name__} {file_name!r}.")
        _check_int_type("FileWriter", "shard_num", shard_num,
                        "Parameter shard_num's type is not int.")
        if not 1 <= shard_num <= 1000:
            raise ParamValueError(f"FileWriter: shard_num must be in [1, 1000], but got "
                                  f"{shard_num}. Parameter shard_num's value: {shard_num} should "
                                  f"between 1 and 1000.")
        if not isinstance(overwrite, (bool, np.bool_)):
            raise TypeError(f"FileWriter: overwrite must be a bool, but got "
                            f"{type(overwrite).__name__} {overwrite!r}. Parameter overwrite's "
                            f"type is not bool.")
        _config.check_writer("FileWriter", int(shard_num))
        self._writer = _mycel._data.MindRecordWriter(os.fspath(file_name), int(shard_num),
                                                     bool(overwrite))
        self._fields = None  # [(name, type, shape or None)] once add_schema ran

    @classmethod
    def open_for_append(cls, file_name):
        """A writer that adds rows to the committed set of ``file_name`` (any of its files).

        The set is rewritten at commit: each shard keeps its rows, in order, and the rows given
        to write_raw_data follow, split over the shards as usual; the schema, description,
        index fields and header and page sizes are the set's. Until commit the set stays as
        it was; commit replaces it whole (temporary files renamed over it), so a crash leaves
        the old set or the new one. With a key set (set_enc_key) the set is read decrypted
        and written encrypted. Costs a copy of the set.

        Raises what the readers raise for a missing, broken or encrypted set, RuntimeError
        when its shards are not named as FileWriter names them."""
        func = "FileWriter.open_for_append"
        if not isinstance(file_name, (str, os.PathLike)):
            raise TypeError(f"{func}: file_name must be a str, but got "
                            f"{type(file_name).__name__} {file_name!r}.")
        path = os.fspath(file_name)
        folder = os.path.dirname(path)
        first = _mycel._data.MindRecordSource([_config.readable_path(func, path)], True, [],
                                              func)
        info = first.set_info()
        names = [os.path.basename(p) for p in info["shard_paths"]]
        n = len(names)
        width = len(str(n - 1))
        base = names[0] if n == 1 else names[0][:-width]
        if n > 1 and names != [base + str(k).rjust(width, "0") for k in range(n)]:
            raise RuntimeError(f"{func}: the shards of {path} ({names}) are not named as "
                               f"FileWriter names them; cannot append.")
        writer = cls(os.path.join(folder, base), n, overwrite=True)
        writer.set_header_size(info["header_size"])
        writer.set_page_size(info["page_size"])
        schema = {}
        for name, ftype, shape in first.schema():
            schema[name] = {"type": ftype} if shape is None else {"type": ftype,
                                                                  "shape": list(shape)}
        writer.add_schema(schema, info["desc"] or None)
        if info["index_fields"]:
            writer.add_index(list(info["index_fields"]))
        del first
        for k, name in enumerate(names):
            shard = _mycel._data.MindRecordSource(
                [_config.readable_path(func, os.path.join(folder, name))], False, [], func)
            rows = []
            for i in range(len(shard)):
                rows.append([v.tobytes() if ftype == "bytes" else
                             str(v.item()) if ftype == "string" else v
                             for (_, ftype, _), v in zip(writer._fields, shard.read(i))])
                if len(rows) == 256 or i == len(shard) - 1:
                    writer._writer.write(rows, k)
                    rows = []
        return writer

    @property
    def paths(self):
        """The files this writer makes (final names), in shard order."""
        return list(self._writer.paths)

    def set_header_size(self, header_size):
        """The room for each shard's header, in bytes: a multiple of 4 from 16 KiB to 128 MiB
        (default 16 MiB, MindSpore's). Before any write. Raises ValueError out of range."""
        _check_int_type("FileWriter", "header_size", header_size)
        self._writer.set_header_size(int(header_size))

    def set_page_size(self, page_size):
        """The size of each page of records, in bytes: a multiple of 4 from 32 KiB to 256 MiB
        (default 32 MiB, MindSpore's); a row must fit in a page. Before any write. Raises
        ValueError out of range."""
        _check_int_type("FileWriter", "page_size", page_size)
        self._writer.set_page_size(int(page_size))

    def add_schema(self, schema, desc=None):
        """Sets the schema (once, before any write) and returns its id (0).

        schema: a dict {field: {"type": t}} or {field: {"type": t, "shape": [d, ...]}}; t is
        "int32", "int64", "float32", "float64", "string" or "bytes"; field names are made of
        0-9, a-z, A-Z and _. "shape" (a list of positive ints, at most one -1 for a dimension
        that varies per row) is only for the numeric types and makes the field an array;
        without it a numeric field is a scalar. A "bytes" field holds raw bytes (an encoded
        JPEG, say). desc: an optional str describing the data.

        Raises TypeError/ValueError naming the field for a bad schema, RuntimeError when called
        twice or after writing; every schema error ends with MindSpore's words "Schema format
        is error."
        """
        try:
            fields = self._schema_fields(schema, desc)
            schema_id = self._writer.add_schema(fields, desc or "")
        except (TypeError, ValueError) as e:
            raise type(e)(f"{e} Schema format is error.") from None
        self._fields = fields
        return schema_id

    @staticmethod
    def _schema_fields(schema, desc):
        """[(name, type, shape or None)] of a schema, checked (add_schema)."""
        if not isinstance(schema, dict):
            raise TypeError(f"FileWriter: schema must be a dict, but got "
                            f"{type(schema).__name__}.")
        if not schema:
            raise ValueError("FileWriter: schema must not be empty.")
        if desc is not None and not isinstance(desc, str):
            raise TypeError(f"FileWriter: desc must be a str, but got {type(desc).__name__}.")
        fields = []
        for name, spec in schema.items():
            if not isinstance(name, str):
                raise TypeError(f"FileWriter: schema field names must be str, but got "
                                f"{name!r}.")
            if not isinstance(spec, dict) or "type" not in spec or \
                    not set(spec) <= {"type", "shape"}:
                raise ValueError(f"FileWriter: field '{name}' must be described by "
                                 f"{{'type': ...}} or {{'type': ..., 'shape': [...]}}, but got "
                                 f"{spec!r}.")
            ftype, shape = spec["type"], spec.get("shape")
            if not isinstance(ftype, str) or ftype not in _TYPES:
                raise ValueError(f"FileWriter: field '{name}' has type {ftype!r}; the types are "
                                 f"{', '.join(_TYPES)}.")
            if "shape" in spec:
                if not isinstance(shape, (list, tuple)) or not all(
                        isinstance(d, (int, np.integer)) and not isinstance(d, bool)
                        for d in shape):
                    raise TypeError(f"FileWriter: field '{name}' has shape {shape!r}; a shape "
                                    "is a list of ints.")
                shape = [int(d) for d in shape]
                if not all(-2**63 <= d < 2**63 for d in shape):
                    raise ValueError(f"FileWriter: field '{name}' has shape {shape!r}, whose "
                                     "dimensions do not fit in int64.")
            fields.append((name, ftype, shape))
        return fields

    def add_index(self, index_fields):
        """Marks fields as index fields (recorded in the header; they must be scalars or
        strings, as MindSpore's index fields). Before any write, after add_schema.

        Raises TypeError for a non-list, ValueError for a field not in the schema or not
        primitive, RuntimeError without a schema.
        """
        if self._fields is None:
            raise MRMGetMetaError("FileWriter: add_index needs a schema; call add_schema first "
                                  "(Failed to get meta info).")
        if not isinstance(index_fields, list) or not index_fields or \
                not all(isinstance(f, str) for f in index_fields):
            raise TypeError(f"FileWriter: index_fields must be a non-empty list of str, but "
                            f"got {index_fields!r}.")
        self._writer.add_index(index_fields)

    def write_raw_data(self, raw_data, parallel_writer=False):
        """Appends rows: raw_data is a list of dicts holding every schema field (keys that are
        not schema fields are not written, as MindSpore).

        Values: int for int32/int64 scalars (np.integer too), int or float for float32/float64
        scalars, a numpy array for fields with a shape (integer arrays for int fields, integer
        or float arrays for float fields; cast to the field's dtype, with a range check for
        ints; any array whose element count fits the shape, as numpy's reshape), str for
        "string", bytes for "bytes". Every row is checked before any is written: a TypeError
        or ValueError names the row (its position in raw_data) and the field. Shard k takes
        the k-th contiguous run of the rows (the first runs one row longer when they do not
        divide evenly). parallel_writer is accepted for MindSpore compatibility (rows are
        encoded on one thread).
        """
        if not isinstance(parallel_writer, (bool, np.bool_)):
            raise TypeError(f"FileWriter: parallel_writer must be a bool, but got "
                            f"{type(parallel_writer).__name__}.")
        if not isinstance(raw_data, list):
            raise TypeError(f"FileWriter: raw_data must be a list of dicts, but got "
                            f"{type(raw_data).__name__}.")
        if self._fields is None:
            raise RuntimeError("FileWriter: write_raw_data needs a schema; call add_schema "
                               "first.")
        rows = []
        for i, row in enumerate(raw_data):
            where = f"row {i}"
            if not isinstance(row, dict):
                raise TypeError(f"FileWriter: {where} must be a dict, but got "
                                f"{type(row).__name__}.")
            values = []
            for name, ftype, shape in self._fields:
                if name not in row:
                    raise ValueError(f"FileWriter: {where} has no field '{name}'.")
                values.append(_field_value("FileWriter", name, ftype, shape, row[name], where))
            rows.append(values)
        self._writer.write(rows)

    def commit(self):
        """Writes the shards' headers and their SQLite indexes (``<file>.db``), syncs them to
        disk and renames them to their final names. The writer is done afterwards.

        With a key set (set_enc_key), the shard and its index are encrypted (config.py) before
        they take their final names.

        Raises RuntimeError without a schema, when called twice, or when a file appeared
        meanwhile under a final name and overwrite is False.
        """
        key, mode = _config._get_enc_key(), _config._get_enc_mode()
        if key is not None:
            _config.check_writer("FileWriter", len(self.paths))
            if not callable(mode):
                self._writer.set_encryption(key, mode)
        self._writer.commit()
        if key is not None and callable(mode):
            for path in self.paths:
                _config.encrypt_with_udf(path, key, mode)
                _config.encrypt_with_udf(path + ".db", key, mode)


class FileReader:
    """FileReader(file_name, num_consumer=4, columns=None, operator=None): reads the rows of
    MindRecord files as dicts.

    file_name: one file (then every shard of its set is read, found from its header) or a list
    of files (exactly their rows); the same rules and checks as ``mycel.dataset.MindDataset``,
    so a truncated, corrupt or half-committed set raises RuntimeError naming the file.
    num_consumer: threads decoding rows, 1 to 32 (at most one per CPU runs; reads release the
    GIL).
    columns: the fields to read (default: all). operator: reserved, as in MindSpore; ignored.

    ``get_next()`` yields {field: value} shard by shard, each shard's rows in write order: "string" fields as str, "bytes" as
    bytes, numeric scalars as numpy scalars of the field's dtype, numeric arrays as numpy arrays
    of their schema shape. ``len()`` is the row count, ``schema()`` the fields as add_schema
    took them ({name: {"type": t[, "shape": [...]]}}), ``close()`` releases the files.
    """

    _WINDOW = 64  # rows decoded ahead of the consumer per thread

    def __init__(self, file_name, num_consumer=4, columns=None, operator=None):
        func = "FileReader"
        files, load_set = _files_to_read(func, "file_name", file_name)
        _check_int_type(func, "num_consumer", num_consumer)
        if not 1 <= num_consumer <= 32:
            raise ValueError(f"{func}: num_consumer must be in [1, 32], but got "
                             f"{num_consumer}.")
        if columns is not None and (not isinstance(columns, (list, tuple)) or not columns or
                                    not all(isinstance(c, str) for c in columns)):
            raise TypeError(f"{func}: columns must be a non-empty list of field names, but got "
                            f"{columns!r}.")
        del operator  # reserved in MindSpore too
        files = [_config.readable_path(func, f) for f in files]
        self._source = _mycel._data.MindRecordSource(files, load_set, list(columns or []),
                                                     func)
        self._fields = self._source.schema()
        self._threads = min(int(num_consumer), os.cpu_count() or 1)

    def _open(self):
        if self._source is None:
            raise RuntimeError("FileReader: the reader is closed.")
        return self._source

    def len(self):
        """The number of rows."""
        return len(self._open())

    def schema(self):
        """The fields read, as add_schema took them: {name: {"type": t[, "shape": [...]]}}."""
        self._open()
        out = {}
        for name, ftype, shape in self._fields:
            out[name] = {"type": ftype} if shape is None else {"type": ftype,
                                                               "shape": list(shape)}
        return out

    def _row(self, values):
        return _row_dict(self._fields, values)

    def get_next(self):
        """Yields every row as a dict {field: value}, shard by shard (class doc)."""
        source = self._open()
        n = len(source)
        if self._threads == 1:
            for i in range(n):
                yield self._row(source.read(i))
            return
        window = self._WINDOW * self._threads
        with concurrent.futures.ThreadPoolExecutor(self._threads) as pool:
            for start in range(0, n, window):
                for values in pool.map(source.read, range(start, min(n, start + window))):
                    yield self._row(values)

    def close(self):
        """Releases the files; the reader cannot be used afterwards."""
        self._source = None
