"""Argument checks shared by the dataset API: each names the function and the bad value; and
_reraise, which re-raises an error with the op that raised it named."""
import numbers
import os

import numpy as np


def check_int(func, name, value, low=None, high=None, none_ok=False):
    """value as an int in [low, high] (bounds optional); TypeError/ValueError otherwise."""
    if value is None and none_ok:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{func}: {name} must be an int, but got {type(value).__name__} "
                        f"{value!r}. {_ms_type(name, value, int)}")
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"[{low}, {'inf' if high is None else high}]"
        raise ValueError(f"{func}: {name} must be in {bounds}, but got {value}. Input {name} is "
                         f"not within the required interval of {bounds}.")
    return int(value)


def check_max_rowsize(func, value):
    """MindSpore's max_rowsize: None, an int in [-1, 2**31 - 1], or a list of two such ints
    (the input's and the output's); a tuple or another type is a TypeError."""
    if isinstance(value, list):
        if len(value) != 2:
            raise ValueError(f"{func}: max_rowsize as a list must hold 2 ints (the input's and "
                             f"the output's), but got {value!r}.")
        return [check_int(func, "max_rowsize", v, -1, 2**31 - 1) for v in value]
    return check_int(func, "max_rowsize", value, -1, 2**31 - 1, none_ok=True)


def _ms_type(name, value, *types):
    """MindSpore's sentence for an argument of the wrong type (its tests look for it)."""
    return (f"Argument {name} with value {value!r} is not of type {list(types)}, but got "
            f"{type(value)}.")


def check_bool(func, name, value, none_ok=False):
    """value as a bool; TypeError for anything else (0/1 included)."""
    if value is None and none_ok:
        return None
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{func}: {name} must be a bool, but got {type(value).__name__} "
                        f"{value!r}. {_ms_type(name, value, bool)}")
    return bool(value)


def check_number(func, name, value):
    """value as a float (ints and floats, not bools)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{func}: {name} must be a number, but got {type(value).__name__} "
                        f"{value!r}. {_ms_type(name, value, float, int)}")
    return float(value)


# The most engine threads an op may ask for: the CPU count as MindSpore, but at least 64, so
# that a program written for a larger machine still runs on a small one.
MAX_WORKERS = max(os.cpu_count() or 1, 64)


def check_workers(func, value):
    """num_parallel_workers: None or an int in [1, MAX_WORKERS] (MindSpore's message when out
    of range)."""
    value = check_int(func, "num_parallel_workers", value, none_ok=True)
    if value is not None and not 1 <= value <= MAX_WORKERS:
        raise ValueError(f"{func}: num_parallel_workers exceeds the boundary between 1 and "
                         f"{MAX_WORKERS}! (got {value})")
    return value


def check_columns(func, name, value, none_ok=False):
    """A column name or a list/tuple of distinct names, as a list. MindSpore's rules: another
    type, or a name that is not a str, is a TypeError; an empty list or name a ValueError."""
    if value is None and none_ok:
        return None
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, (list, tuple)):
        raise TypeError(f"{func}: {name} must be a str or a non-empty list of str, but got "
                        f"{value!r}. {_ms_type(name, value, list, str)}")
    if not names:
        raise ValueError(f"{func}: {name} should not be empty.")
    for i, n in enumerate(names):
        if not isinstance(n, str):
            raise TypeError(f"{func}: {name} must hold str column names. "
                            f"{_ms_type(f'{name}[{i}]', n, str)}")
        if not n:
            raise ValueError(f"{func}: {name}[{i}] should not be empty.")
    if len(set(names)) != len(names):
        raise ValueError(f"{func}: {name} has duplicate column names: {list(names)}.")
    return list(names)


def check_known_columns(func, names, available):
    """Every name in names is a column of the dataset (ValueError naming the unknown one)."""
    for n in names:
        if n not in available:
            raise ValueError(f"{func}: column {n!r} does not exist; the dataset's columns are "
                             f"{list(available)}.")


_PIPELINE_TYPES = {}


def pipeline_error_type(cls):
    """The exception type of an error raised while a pipeline runs user code or its data:
    a subclass of both cls and RuntimeError (same name), so ``except cls`` and MindSpore's
    ``except RuntimeError`` (its engine reports every such error as one) both catch it. cls
    itself when it already is a RuntimeError or cannot be combined with one."""
    if issubclass(cls, RuntimeError):
        return cls
    if issubclass(cls, StopIteration):  # would end the user's loop silently (as PEP 479 says)
        return RuntimeError
    if cls not in _PIPELINE_TYPES:
        try:
            _PIPELINE_TYPES[cls] = type(cls.__name__, (cls, RuntimeError),
                                        {"__module__": cls.__module__})
        except TypeError:  # e.g. Exception itself (no consistent method order)
            _PIPELINE_TYPES[cls] = RuntimeError if cls is Exception else cls
    return _PIPELINE_TYPES[cls]


def _reraise(err, message):
    """Raise message, naming err's type, with pipeline_error_type(type(err)) (RuntimeError
    when that type cannot be built from one message), chained to err."""
    kind = type(err).__name__
    if kind not in message:
        message = f"{message} ({kind})"
    try:
        new = pipeline_error_type(type(err))(message)
    except Exception:  # an exception class with a different constructor
        new = RuntimeError(message)
    raise new from err


_INT64_MAX = 2**63 - 1


def check_num_samples(func, value):
    """num_samples of a source or sampler: None or 0 (all rows: None returned), or a positive
    int; MindSpore's message for a value outside [0, INT64_MAX]."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{func}: num_samples must be an int, but got {type(value).__name__} "
                        f"{value!r}. {_ms_type('num_samples', value, int)}")
    if value < 0 or value > _INT64_MAX:
        raise ValueError(f"{func}: num_samples exceeds the boundary between 0 and "
                         f"{_INT64_MAX}(INT64_MAX)! Got {value}.")
    return int(value) or None
