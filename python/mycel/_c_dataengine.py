"""``mindspore._c_dataengine``: the data engine's value types as MindSpore's Python code and tests
use them: ``DataType``, ``TensorShape`` and ``Tensor``.

A ``Tensor`` is an array that went through the engine: it is converted to the engine's row value
(``src/data/array.h``; via a one-row ``_data.ArraySource``) and read back, so its type and
contents are what a pipeline would carry (strings become the engine's string type, numpy types
the engine widens are widened). ``DataType`` names the engine's types with MindSpore's names
(numpy's, and "string"). ``GlobalContext.profiling_manager()`` is the data engine's pipeline
profiler (src/data/profiling.h): ``init()``, ``start()``, ``stop()``, ``save(dir)`` (writes
``pipeline_profiling_<rank>.json``, ``minddata_cpu_utilization_<rank>.json`` and
``dataset_iterator_profiling_<rank>.txt`` of the pipeline it recorded, rank from RANK_ID) and
``is_profiling()``.
"""
import numpy as np

from mycel import _mycel

_data = _mycel._data

__all__ = ["DataType", "TensorShape", "Tensor", "GlobalContext"]

_NAMES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "string")


class DataType:
    """One of the engine's value types, by name ("int64", "float32", "string", ...)."""

    def __init__(self, name):
        name = str(name)
        if name in ("str", "bytes") or name.startswith(("<U", "|S", "str", "bytes")):
            name = "string"
        if name not in _NAMES:
            raise TypeError(f"DataType: {name!r} is not a data engine type; the types are "
                            f"{list(_NAMES)}.")
        self._name = name

    @classmethod
    def of(cls, dtype):
        """The engine type of a numpy dtype (or a type numpy understands: int, str, np.int8)."""
        dt = np.dtype(dtype)
        return cls("string" if dt.kind in "US" else dt.name)

    def is_numeric(self):
        """Whether the type holds numbers (everything but strings)."""
        return self._name != "string"

    def to_numpy(self):
        """The numpy dtype of the type (strings: numpy's str)."""
        return np.dtype(np.str_ if self._name == "string" else self._name)

    def __eq__(self, other):
        return isinstance(other, DataType) and other._name == self._name

    def __hash__(self):
        return hash(self._name)

    def __str__(self):
        return self._name

    def __repr__(self):
        return f"DataType({self._name!r})"


class TensorShape:
    """A shape: a list of dimensions, -1 for an unknown one."""

    def __init__(self, dims):
        self._dims = [int(d) for d in dims]
        for d in self._dims:
            if d < -1:
                raise ValueError(f"TensorShape: a dimension must be >= -1 (unknown), but got {d}.")

    def as_list(self):
        """The dimensions as a list."""
        return list(self._dims)

    def is_known(self):
        """Whether every dimension is known."""
        return all(d >= 0 for d in self._dims)

    def rank(self):
        """The number of dimensions."""
        return len(self._dims)

    def __eq__(self, other):
        return isinstance(other, TensorShape) and other._dims == self._dims

    def __hash__(self):
        return hash(tuple(self._dims))

    def __str__(self):
        return "<" + ",".join(str(d) for d in self._dims) + ">"

    __repr__ = __str__


class Tensor:
    """An array as the data engine holds it (module doc). ``np.array(t, copy=False)`` and
    ``as_array()`` give the tensor's own array (writes show in the tensor)."""

    def __init__(self, array):
        arr = np.asarray(array)
        source = _data.ArraySource("Tensor", [arr[np.newaxis]], ["tensor"])
        self._array = np.array(source.read(0)[0], copy=True)  # the engine's value, writable

    def as_array(self):
        """The tensor's values as a numpy array."""
        return self._array

    def __array__(self, dtype=None, copy=None):  # pylint: disable=unused-argument
        return self._array if dtype is None else self._array.astype(dtype)

    def type(self):
        """The engine type of the values."""
        return DataType.of(self._array.dtype)

    def shape(self):
        """The shape as a list."""
        return list(self._array.shape)

    def __repr__(self):
        return f"Tensor(shape={self.shape()}, type={self.type()})\n{self._array}"


class GlobalContext:
    """MindSpore's engine-wide singletons; mycel's has the profiler."""

    @staticmethod
    def profiling_manager():
        """The data engine's one pipeline profiler (module doc)."""
        return _data.profiling_manager()
