"""Argument checks of the vision transforms in vision_geometry.py and vision_color.py, with
MindSpore's messages (its tests look for them), and the base class that lets a C++ transform
take a PIL image (converted to an array and back)."""
import numpy as np

from mycel.dataset.transforms import TensorOperation, _is_pil

FLOAT_MAX_INTEGER = 16777216
INT32_MIN, INT32_MAX = -2147483648, 2147483647


def type_check(value, types, name):
    """TypeError unless value is one of types (bool is not an int here)."""
    bad_bool = isinstance(value, bool) and bool not in types
    if bad_bool or not isinstance(value, types):
        raise TypeError(f"Argument {name} with value {value} is not of type {list(types)}, but got "
                        f"{type(value)}.")
    return value


def type_check_list(values, types, name):
    """type_check on each element, named name[i]."""
    for i, v in enumerate(values):
        type_check(v, types, f"{name}[{i}]")


def check_value(value, lo, hi, name="", left_open=False, right_open=False):
    """ValueError unless lo <= value <= hi (open ends as asked)."""
    bad = value < lo or value > hi or (left_open and value == lo) or (right_open and value == hi)
    if bad:
        interval = f"{'(' if left_open else '['}{lo}, {hi}{')' if right_open else ']'}"
        label = f"Input {name} is" if name else "Input is"
        raise ValueError(f"{label} not within the required interval of {interval}.")
    return value


def number(value, name):
    """An int or float (not a bool) as a float."""
    return float(type_check(value, (float, int), name))


def non_negative(value, name):
    """A number in [0, 16777216]."""
    return check_value(number(value, name), 0, FLOAT_MAX_INTEGER, name)


def check_prob(value, name="prob"):
    """A probability in [0, 1]."""
    return check_value(number(value, name), 0.0, 1.0, name)


def check_inter(value, name):
    """A vision.Inter."""
    from mycel.dataset.vision import Inter
    return type_check(value, (Inter,), name)


def check_fill_value(fill_value):
    """0-255 as one int (every channel) or a 3-tuple, as a list of 3."""
    if isinstance(fill_value, int) and not isinstance(fill_value, bool):
        check_value(fill_value, 0, 255, "fill_value")
        return [fill_value] * 3
    if isinstance(fill_value, tuple) and len(fill_value) == 3:
        for v in fill_value:
            type_check(v, (int,), "fill_value")
            check_value(v, 0, 255, "fill_value")
        return list(fill_value)
    raise TypeError("fill_value should be a single integer or a 3-tuple.")


def check_degrees(degrees):
    """A non-negative number d (the range (-d, d)) or a (min, max) sequence, as a pair."""
    type_check(degrees, (int, float, list, tuple), "degrees")
    if isinstance(degrees, (int, float)):
        d = non_negative(degrees, "degrees")
        return -d, d
    if len(degrees) != 2:
        raise TypeError("If degrees is a sequence, the length must be 2.")
    type_check_list(degrees, (int, float), "degrees")
    if degrees[0] > degrees[1]:
        raise ValueError("degrees should be in (min,max) format. Got (max,min).")
    return float(degrees[0]), float(degrees[1])


def check_positive_degrees(degrees):
    """A (min, max) sequence of non-negative numbers (RandomColor, RandomSharpness)."""
    if not isinstance(degrees, (list, tuple)):
        raise TypeError("degrees must be either a tuple or a list.")
    if len(degrees) != 2:
        raise ValueError("degrees must be a sequence with length 2.")
    for i, d in enumerate(degrees):
        type_check(d, (int, float), f"degrees[{i}]")
        check_value(d, 0, FLOAT_MAX_INTEGER)
    if degrees[0] > degrees[1]:
        raise ValueError("degrees should be in (min,max) format. Got (max,min).")
    return float(degrees[0]), float(degrees[1])


def check_center(center):
    """None or a 2-tuple of numbers (x, y), as a list."""
    if center is None:
        return []
    if not isinstance(center, (tuple, list)) or len(center) != 2:
        raise ValueError("Value center needs to be a 2-tuple.")
    type_check_list(center, (int, float), "center")
    return [float(v) for v in center]


class ArrayOp(TensorOperation):
    """A C++ transform that also takes a PIL image: converted to a numpy array, transformed, and
    given back as a PIL image (random ones draw as for arrays). Transforms MindSpore has no PIL
    version of (_pil_out False) give the array back, as MindSpore's eager mode."""

    _pil_out = True

    def __call__(self, *inputs):
        for x in inputs:
            if not (isinstance(x, np.ndarray) or _is_pil(x) or hasattr(x, "asnumpy")):
                raise TypeError(f"{type(self).__name__}: Input should be NumPy or PIL image, got "
                                f"{type(x)}.")
        if len(inputs) == 1 and _is_pil(inputs[0]):
            from PIL import Image
            out = self._run((np.asarray(inputs[0]),), 0)
            return Image.fromarray(out) if self._pil_out else out
        return super().__call__(*inputs)


def as_number_seq(value, name, length):
    """A list of `length` numbers named name[i]."""
    type_check(value, (list, tuple), name)
    if len(value) != length:
        raise TypeError(f"{name} should be a list or tuple of length {length}.")
    type_check_list(value, (int, float), name)
    return [float(v) for v in value]

