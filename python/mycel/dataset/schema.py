"""Schema: the column names, types and shapes of a dataset read from files (MindSpore's
``mindspore.dataset.Schema``), as TFRecordDataset takes it.

A schema is a list of columns, each {"name", "type", "shape"} (shape None: unknown, read as
the data comes; a -1 in it is one unknown dimension; [] a scalar), and optionally numRows (read
at most that many rows). It comes from ``add_column`` calls, a dict or list (``parse_columns``)
or a JSON file or object in MindSpore's layout::

    {"datasetType": "TF", "numRows": 12,
     "columns": {"col": {"type": "int64", "rank": 1, "shape": [2]}, ...}}

Types are numpy names ("int64", "float32", "uint8", ...) or "string"; mycel dtypes
(``mstype.int64``) and ``mstype.string`` are accepted and stored by name.
"""
import json

import numpy as np

_TYPE_NAMES = {"bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
               "float16", "float32", "float64", "string"}


def _type_name(func, de_type):
    """The schema's name for de_type (a mycel dtype, mstype.string, a numpy type or a name)."""
    if isinstance(de_type, str):
        name = {"str": "string", "bytes": "string"}.get(de_type, de_type)
    elif getattr(de_type, "name", None) == "String":
        name = "string"
    elif hasattr(de_type, "name") and not isinstance(de_type, type):
        name = str(de_type.name).lower()
    else:
        try:
            name = np.dtype(de_type).name
        except TypeError:
            name = None
        if name in ("str", "<U0") or de_type in (np.str_, str, np.bytes_, bytes):
            name = "string"
    if name not in _TYPE_NAMES:
        raise TypeError(f"{func}: de_type must be a numeric dtype or string, but got "
                        f"{de_type!r}.")
    return name


def _check_shape(func, name, shape):
    if shape is None:
        return None
    if not isinstance(shape, (list, tuple)) or not all(
            isinstance(d, int) and not isinstance(d, bool) for d in shape):
        raise TypeError(f"{func}: the shape of column '{name}' must be a list of int, but got "
                        f"{shape!r}.")
    if any(d < -1 or d == 0 for d in shape) or sum(d == -1 for d in shape) > 1:
        raise ValueError(f"{func}: the shape of column '{name}' must hold positive sizes and at "
                         f"most one -1, but got {list(shape)}.")
    return list(shape)


class Schema:
    """Schema(schema_file=None): the columns of a dataset (module doc); schema_file is the path
    of a JSON schema to load."""

    def __init__(self, schema_file=None):
        self.columns = []
        self.num_rows = 0
        self.dataset_type = ""
        self.schema_file = schema_file
        if schema_file is not None:
            if not isinstance(schema_file, str):
                raise TypeError(f"Schema: schema_file must be a path, but got {schema_file!r}.")
            try:
                with open(schema_file) as f:
                    obj = json.load(f)
            except FileNotFoundError:
                raise ValueError(f"Schema: the schema file {schema_file} does not exist.") \
                    from None
            except json.JSONDecodeError as e:
                raise RuntimeError(f"Schema: {schema_file} is not a JSON file: {e}") from None
            self.from_json(obj)

    def add_column(self, name, de_type, shape=None):
        """Append the column `name` of type de_type and shape (None: unknown)."""
        if not isinstance(name, str) or not name:
            raise TypeError(f"Schema.add_column: name must be a non-empty str, but got "
                            f"{name!r}.")
        self.columns.append({"name": name, "type": _type_name("Schema.add_column", de_type),
                             "shape": _check_shape("Schema.add_column", name, shape)})

    def parse_columns(self, columns):
        """Replace the columns by those of `columns`: a dict {name: {"type", "shape"}} or a list
        of {"name", "type", "shape"} dicts ("rank" and "t_impl" are accepted and ignored)."""
        if isinstance(columns, dict):
            items = [dict(v, name=k) for k, v in columns.items()]
        elif isinstance(columns, list):
            items = columns
        else:
            raise TypeError(f"Schema.parse_columns: columns must be a dict or a list, but got "
                            f"{type(columns).__name__}.")
        self.columns = []
        for item in items:
            if not isinstance(item, dict) or "name" not in item or "type" not in item:
                raise RuntimeError(f"Schema.parse_columns: each column needs a name and a type, "
                                   f"but got {item!r}.")
            self.add_column(item["name"], item["type"], item.get("shape"))

    def from_json(self, json_obj):
        """Load the columns, numRows and datasetType of a schema JSON object (a dict)."""
        if not isinstance(json_obj, dict) or "columns" not in json_obj:
            raise RuntimeError("Schema.from_json: the JSON object has no 'columns'.")
        self.parse_columns(json_obj["columns"])
        self.num_rows = int(json_obj.get("numRows", 0) or 0)
        self.dataset_type = json_obj.get("datasetType", "")

    def to_json(self):
        """The schema as MindSpore's JSON text."""
        cols = {}
        for c in self.columns:
            d = {"type": c["type"]}
            if c["shape"] is not None:
                d["rank"] = len(c["shape"])
                d["shape"] = c["shape"]
            cols[c["name"]] = d
        obj = {"columns": cols}
        if self.num_rows:
            obj["numRows"] = self.num_rows
        if self.dataset_type:
            obj["datasetType"] = self.dataset_type
        return json.dumps(obj, indent=2)

    def get_num_rows(self):
        """numRows of the schema (0: not given)."""
        return self.num_rows

    def __str__(self):
        return self.to_json()

    def __eq__(self, other):
        return isinstance(other, Schema) and self.columns == other.columns and \
            self.num_rows == other.num_rows
