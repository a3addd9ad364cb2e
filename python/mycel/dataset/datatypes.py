"""``mindspore.dataset.core.datatypes``: conversions between numpy types and the data
engine's types (mycel._c_dataengine.DataType)."""
from mycel._c_dataengine import DataType

__all__ = ["nptype_to_detype", "detype_to_nptype"]


def nptype_to_detype(type_):
    """The engine type of a numpy type (np.int8, np.dtype("float32"), int, str, bool, ...)."""
    return DataType.of(type_)


def detype_to_nptype(de_type):
    """The numpy dtype of an engine type (strings: numpy's str)."""
    if not isinstance(de_type, DataType):
        raise TypeError(f"detype_to_nptype: expected a DataType, but got "
                        f"{type(de_type).__name__}.")
    return de_type.to_numpy()
