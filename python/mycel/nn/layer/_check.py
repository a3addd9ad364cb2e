"""Argument checks shared by the layers (MindSpore's Validator messages, shortened)."""
import numbers


def positive_int(value, name, cls):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"For '{cls}', '{name}' must be an int, but got "
                        f"{type(value).__name__}.")
    if value <= 0:
        raise ValueError(f"For '{cls}', '{name}' must be a positive int, but got {value}.")
    return int(value)


def non_negative_int(value, name, cls):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"For '{cls}', '{name}' must be an int, but got "
                        f"{type(value).__name__}.")
    if value < 0:
        raise ValueError(f"For '{cls}', '{name}' must be a non-negative int, but got {value}.")
    return int(value)


def bool_(value, name, cls):
    if not isinstance(value, bool):
        raise TypeError(f"For '{cls}', '{name}' must be a bool, but got "
                        f"{type(value).__name__}.")
    return value


def pair(value, name, cls, allow_four=False):
    """An int or a tuple of 2 positive ints as a 2-tuple; with allow_four a 4-tuple (1, 1, h,
    w) as MindSpore accepts for stride and dilation."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        value = (value, value)
    if isinstance(value, list):
        value = tuple(value)
    if allow_four and isinstance(value, tuple) and len(value) == 4:
        value = value[2:]
    if not isinstance(value, tuple) or len(value) != 2:
        raise ValueError(f"For '{cls}', '{name}' must be an int or a tuple of 2 ints, but got "
                         f"{value!r}.")
    return tuple(positive_int(v, name, cls) for v in value)


def pad_mode(value, cls, modes=("same", "valid", "pad")):
    if not isinstance(value, str) or value.lower() not in modes:
        raise ValueError(f"For '{cls}', pad_mode must be one of {list(modes)}, but got "
                         f"{value!r}.")
    return value.lower()


def padding4(value, mode, cls):
    """padding as (top, bottom, left, right); non-zero only with pad_mode 'pad'."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        value = (non_negative_int(value, "padding", cls),) * 4
    elif isinstance(value, (tuple, list)) and len(value) in (2, 4):
        value = tuple(non_negative_int(v, "padding", cls) for v in value)
        if len(value) == 2:
            value = (value[0], value[0], value[1], value[1])
    else:
        raise TypeError(f"For '{cls}', padding must be an int or a tuple of 2 or 4 ints, but "
                        f"got {value!r}.")
    if mode != "pad" and any(value):
        raise ValueError(f"For '{cls}', padding must be zero when pad_mode is {mode!r}, but "
                         f"got {value}; use pad_mode='pad'.")
    return value


def data_format(value, cls):
    if value != "NCHW":
        raise ValueError(f"For '{cls}', only data_format 'NCHW' is supported on CPU, but got "
                         f"{value!r}.")
    return value


def pair_non_negative(value, name, cls):
    """An int or a tuple of 2 non-negative ints as a 2-tuple."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        value = (value, value)
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise ValueError(f"For '{cls}', '{name}' must be an int or a tuple of 2 ints, but got "
                         f"{value!r}.")
    return tuple(non_negative_int(v, name, cls) for v in value)


def padding2(value, mode, cls):
    """1-d padding as (left, right) from an int or a pair; non-zero only with pad_mode
    'pad'."""
    if not isinstance(value, (numbers.Integral, tuple, list)) or isinstance(value, bool):
        raise TypeError(f"For '{cls}', padding must be an int or a tuple of 2 ints, but got "
                        f"{value!r}.")
    value = pair_non_negative(value, "padding", cls)
    if mode != "pad" and any(value):
        raise ValueError(f"For '{cls}', padding must be zero when pad_mode is {mode!r}, but "
                         f"got {value}; use pad_mode='pad'.")
    return value
