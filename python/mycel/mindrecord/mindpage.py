"""mycel.mindrecord.MindPage: the rows of MindRecord files grouped by an index field, read page
by page (MindSpore's ``mindspore.mindrecord.MindPage``), and the exception types MindSpore's
mindrecord module raises for bad arguments.

The candidate fields are the set's index fields (FileWriter.add_index; by default every scalar
and string field). Setting ``category_field`` reads that field of every row once; its distinct
values are the categories, numbered from 0 in ascending order of value. ``read_at_page_by_id``
and ``read_at_page_by_name`` return page ``page`` (``num_row`` rows) of a category, rows in
read order, each a dict as FileReader gives it.
"""
import json
import os

import numpy as np

from mycel import _mycel
from mycel.mindrecord import config as _config



def _row_dict(fields, values):
    """A row as the readers return it: {field: value}, strings as str, bytes as bytes,
    scalars as numpy scalars, arrays as arrays (fields: (name, type, shape or None))."""
    row = {}
    for (name, ftype, shape), v in zip(fields, values):
        if ftype == "string":
            row[name] = str(v.item())
        elif ftype == "bytes":
            row[name] = v.tobytes()
        else:
            row[name] = v[()] if shape is None else np.array(v)
    return row


def _files_to_read(func, arg, value):
    """(files, load_set) for a reader's file argument: one file name (load_set: every shard
    of its set) or a non-empty list of them (exactly those files)."""
    if isinstance(value, (str, os.PathLike)):
        return [os.fspath(value)], True
    if isinstance(value, (list, tuple)) and value and all(
            isinstance(f, (str, os.PathLike)) for f in value):
        return [os.fspath(f) for f in value], False
    raise TypeError(f"{func}: {arg} must be a file name or a non-empty list of file names, but "
                    f"got {value!r}.")

class MindRecordException(Exception):
    """Base of the mindrecord module's own exceptions (MindSpore's names)."""


class ParamValueError(MindRecordException, ValueError):
    """A bad argument value."""


class ParamTypeError(MindRecordException, TypeError):
    """A bad argument type."""


class MRMDefineCategoryError(MindRecordException, ValueError):
    """A category field that is not an index field."""


class MRMGetMetaError(MindRecordException, RuntimeError):
    """The writer's metadata (schema) is missing."""


def _check_count(func, arg, value):
    if value is None:
        raise ParamValueError(f"{func}: Parameter {arg} is None.")
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ParamValueError(f"{func}: Parameter {arg} is not int, but got "
                              f"{type(value).__name__} {value!r}.")
    return int(value)


def _name_of(value):
    """A category's name: the value as text (ints 13, floats 7.0, strings as they are)."""
    if isinstance(value, np.ndarray):
        value = value.item()
    if isinstance(value, (np.generic,)):
        value = value.item()
    return value if isinstance(value, str) else repr(float(value)) if isinstance(
        value, float) else str(value)


class MindPage:
    """MindPage(file_name, num_consumer=4): one file (its whole set) or a list of files.

    num_consumer: an int in [1, 32] (accepted for MindSpore compatibility; rows are read on
    the calling thread). Raises ParamValueError for bad arguments and the readers'
    RuntimeErrors (FileReader's) for missing, broken or encrypted files."""

    def __init__(self, file_name, num_consumer=4):
        func = "MindPage"
        num_consumer = _check_count(func, "num_consumer", num_consumer)
        if not 1 <= num_consumer <= 32:
            raise ParamValueError(f"{func}: num_consumer must be in [1, 32], but got "
                                  f"{num_consumer}.")
        files, load_set = _files_to_read(func, "file_name", file_name)
        self._files = [_config.readable_path(func, f) for f in files]
        self._load_set = load_set
        self._source = _mycel._data.MindRecordSource(self._files, load_set, [], func)
        self._fields = self._source.schema()
        self._candidates = list(self._source.index_fields())
        self._category_field = None
        self._groups = None  # [(name, [row, ...])] in ascending value order

    @property
    def candidate_fields(self):
        """The fields rows can be grouped by (the set's index fields)."""
        return list(self._candidates)

    def get_category_fields(self):
        """candidate_fields (MindSpore's older name)."""
        return self.candidate_fields

    @property
    def category_field(self):
        """The field rows are grouped by (None until set)."""
        return self._category_field

    @category_field.setter
    def category_field(self, category_field):
        if not category_field or not isinstance(category_field, str):
            raise ParamTypeError(f"MindPage: category_field must be a non-empty str, but got "
                                 f"{category_field!r}.")
        if category_field not in self._candidates:
            raise MRMDefineCategoryError(f"Field '{category_field}' is not a candidate category "
                                         f"field; the candidates are {self._candidates}.")
        column = _mycel._data.MindRecordSource(self._files, self._load_set, [category_field],
                                               "MindPage")
        groups = {}
        for i in range(len(column)):
            value = column.read(i)[0]
            key = value.item() if value.dtype.kind != "U" else str(value.item())
            groups.setdefault(key, []).append(i)
        self._groups = [(_name_of(k), groups[k]) for k in sorted(groups)]
        self._category_field = category_field

    def set_category_field(self, category_field):
        """Sets category_field (MindSpore's older spelling)."""
        self.category_field = category_field

    def _need_field(self):
        if self._groups is None:
            raise RuntimeError("MindPage: set category_field first (one of "
                               f"{self._candidates}).")

    def read_category_info(self):
        """The categories as a JSON str: {"categories": [{"id", "name", "count"}, ...],
        "size": number of categories}."""
        self._need_field()
        cats = [{"id": i, "name": name, "count": len(rows)}
                for i, (name, rows) in enumerate(self._groups)]
        return json.dumps({"categories": cats, "size": len(cats)})

    def _page(self, rows, page, num_row):
        return [self._row(self._source.read(i)) for i in rows[page * num_row:(page + 1) * num_row]]

    def _row(self, values):
        return _row_dict(self._fields, values)

    @staticmethod
    def _check_page(page, num_row):
        if isinstance(page, bool) or not isinstance(page, int) or page < 0:
            raise ParamValueError(f"Page should be int and greater than or equal to 0, but got "
                                  f"{page!r}.")
        if isinstance(num_row, bool) or not isinstance(num_row, int) or num_row <= 0:
            raise ParamValueError(f"num_row should be int and greater than 0, but got "
                                  f"{num_row!r}.")

    def read_at_page_by_id(self, category_id, page, num_row):
        """Page `page` (of num_row rows) of category number category_id (ids as in
        read_category_info); [] past its last page. RuntimeError for an id out of range."""
        if isinstance(category_id, bool) or not isinstance(category_id, int) or category_id < 0:
            raise ParamValueError(f"Category id should be int and greater than or equal to 0, "
                                  f"but got {category_id!r}.")
        self._check_page(page, num_row)
        self._need_field()
        if category_id >= len(self._groups):
            raise RuntimeError(f"Invalid data, category_id: {category_id} must be in the range "
                               f"[0, {len(self._groups) - 1}].")
        return self._page(self._groups[category_id][1], page, num_row)

    def read_at_page_by_name(self, category_name, page, num_row):
        """Page `page` of the category whose name (the value as text) is category_name.
        RuntimeError for a name that is no category."""
        if not isinstance(category_name, str):
            raise ParamValueError(f"Category name should be str, but got "
                                  f"{type(category_name).__name__}.")
        self._check_page(page, num_row)
        self._need_field()
        for name, rows in self._groups:
            if name == category_name:
                return self._page(rows, page, num_row)
        raise RuntimeError(f"Invalid data, category_name: {category_name} could not found "
                           f"(field '{self._category_field}').")
