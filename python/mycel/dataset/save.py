"""Dataset.save: one epoch of a pipeline written as MindRecord files (MindSpore's
``Dataset.save``), read back with ``MindDataset`` or ``mycel.mindrecord.FileReader``.

The schema comes from the first row. Column types, as MindSpore converts them: bool, int8,
int16, int32, uint16 and multi-dimensional uint8 -> "int32"; uint32, int64 and uint64 (values
must fit) -> "int64"; float16 and float32 -> "float32"; float64 -> "float64"; str -> "string";
one-dimensional uint8 -> "bytes". A 0-d column is a scalar field; an array column keeps the
first row's shape except its first dimension, which may vary from row to row (-1). String
arrays are not supported. A later row that does not fit the schema raises, and nothing is left
behind (FileWriter writes under temporary names until commit).
"""
import numpy as np

from mycel.mindrecord import FileWriter

_ROWS_PER_WRITE = 256


def _field(func, name, value):
    """The schema entry {"type": t[, "shape": [...]]} of a column whose first value is value."""
    kind = value.dtype.kind
    if kind == "U":
        if value.ndim:
            raise ValueError(f"{func}: column '{name}' holds an array of strings (shape "
                             f"{list(value.shape)}); only scalar strings can be saved.")
        return {"type": "string"}
    if value.dtype == np.uint8 and value.ndim == 1:
        return {"type": "bytes"}
    if kind == "f":
        ftype = "float64" if value.dtype == np.float64 else "float32"
    elif kind in "biu":
        wide = value.dtype in (np.uint32, np.int64, np.uint64)
        ftype = "int64" if wide else "int32"
    else:
        raise TypeError(f"{func}: column '{name}' has dtype {value.dtype}, which MindRecord "
                        "cannot hold.")
    if value.ndim == 0:
        return {"type": ftype}
    return {"type": ftype, "shape": [-1] + [int(d) for d in value.shape[1:]]}


def _value(field, value):
    """value as FileWriter takes it for its field."""
    if field["type"] == "string":
        return str(value)
    if field["type"] == "bytes":
        return np.ascontiguousarray(value).tobytes()
    # Other casts (and range checks: a uint64 past int64) are FileWriter's.
    return value.astype(np.int32) if value.dtype.kind == "b" else value


def save(dataset, file_name, num_files=1, file_type="mindrecord"):
    """Writes one epoch of dataset to file_name (num_files shards: file_name0, ...)."""
    func = "save"
    if file_type != "mindrecord":
        raise ValueError(f"{func}: file_type must be 'mindrecord', but got {file_type!r}.")
    names = dataset.get_col_names()
    writer = FileWriter(file_name, num_files)
    schema, rows = None, []
    for row in dataset.create_tuple_iterator(num_epochs=1, output_numpy=True):
        if schema is None:
            schema = {name: _field(func, name, v) for name, v in zip(names, row)}
            writer.add_schema(schema, "written by Dataset.save")
        rows.append({name: _value(schema[name], v) for name, v in zip(names, row)})
        if len(rows) == _ROWS_PER_WRITE:
            writer.write_raw_data(rows)
            rows = []
    if schema is None:
        raise ValueError(f"{func}: the dataset has no rows to save.")
    if rows:
        writer.write_raw_data(rows)
    writer.commit()
