"""Argument checks of mycel.dataset.audio, with MindSpore's messages (its tests match them):
``Argument n_fft with value s is not of type [<class 'int'>], but got <class 'str'>.`` and
``Input n_fft is not within the required interval of [1, 2147483647].``"""

INT32_MAX = 2**31 - 1
FLOAT_MAX = 16777216  # MindSpore's float32 bound for float arguments (2 ** 24)


def type_check(value, types, name):
    """TypeError unless value is one of types; a bool is not an int (MindSpore prints the
    types as a tuple in that case, as a list otherwise)."""
    shown = '""' if isinstance(value, str) and value == "" else value
    if int in types and bool not in types and isinstance(value, bool):
        raise TypeError(f"Argument {name} with value {shown} is not of type {types}, but got "
                        f"{type(value)}.")
    if not isinstance(value, types):
        raise TypeError(f"Argument {name} with value {shown} is not of type {list(types)}, but "
                        f"got {type(value)}.")
    return value


def check_range(value, low, high, name, left_open=False, right_open=False):
    """ValueError unless low <= value <= high (open ends as given)."""
    bad = (value <= low if left_open else value < low) or (value >= high if right_open
                                                          else value > high)
    if bad:
        lb, rb = "(" if left_open else "[", ")" if right_open else "]"
        raise ValueError(f"Input {name} is not within the required interval of {lb}{low}, "
                         f"{high}{rb}.")
    return value


def check_int(value, name, low=0, high=INT32_MAX, left_open=False):
    """An int in [low, high] (MindSpore's check_pos_int32 is low=1)."""
    type_check(value, (int,), name)
    return check_range(value, low, high, name, left_open)


def check_float(value, name, low=-FLOAT_MAX, high=FLOAT_MAX, left_open=False,
                types=(int, float)):
    """An int or float in [low, high] ((low, high] when left_open). types is the order
    MindSpore's message lists them in ((float, int) for the filter arguments)."""
    type_check(value, types, name)
    return check_range(value, low, high, name, left_open)


def check_enum(value, enum, name):
    """A member of enum."""
    return type_check(value, (enum,), name)


def check_bool(value, name):
    return type_check(value, (bool,), name)


def check_not_zero(value, name, types=(int,), bound=INT32_MAX + 1):
    """A non-zero number in [-bound, bound) (ints) or [-bound, bound] (floats), MindSpore's
    check_int32_not_zero / check_float32_not_zero."""
    type_check(value, types, name)
    high = bound - 1 if types == (int,) else bound
    if value == 0 or value < -bound or value > high:
        raise ValueError(f"Input {name} is not within the required interval of [{-bound}, 0) and "
                         f"(0, {high}].")
    return value
