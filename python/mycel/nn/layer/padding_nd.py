"""ConstantPad1d/2d/3d, ZeroPad1d/2d/3d, ReflectionPad1d/2d/3d and ReplicationPad1d/2d/3d
(MindSpore 2.x's ``mindspore.nn`` padding layers): pad the last 1, 2 or 3 dimensions with a
constant, their mirror image or copies of their edges.

``padding`` is an int (every side of those dimensions) or a tuple of (left, right) pairs
for the last dimension first, then the one before (torch order), of at most 2, 4 or 6
entries; a shorter tuple pads fewer dimensions. A negative entry crops that side. The
forward is a Slice (for crops) then the Pad primitive, so gradients come from theirs."""
import numpy as np

from mycel import _mycel as _C
from mycel.nn.cell import Cell
from mycel.nn.layer.padding import _mirror_index
from mycel.ops.function import array_func as _a
from mycel.ops.function import array_ext_func as _ax
from mycel.ops.primitive import constexpr


def _check(padding, dims, name):
    if isinstance(padding, bool):
        raise TypeError(f"For '{name}', 'padding' must be an int or a tuple of ints, but got "
                        f"bool.")
    if isinstance(padding, int):
        return (padding,) * (2 * dims)
    if not isinstance(padding, (tuple, list)) or not all(
            isinstance(p, int) and not isinstance(p, bool) for p in padding):
        raise TypeError(f"For '{name}', 'padding' must be an int or a tuple of ints, but got "
                        f"{padding!r}.")
    if len(padding) % 2 or not 0 < len(padding) <= 2 * dims:
        raise ValueError(f"For '{name}', 'padding' must hold 1 to {dims} (left, right) pairs, "
                         f"but got {tuple(padding)}.")
    return tuple(padding)


@constexpr
def _crop_and_pad(shape, padding, name):
    """(begin, size) of the crop (negative entries) and the padding left (the rest)."""
    ndim = len(shape)
    if len(padding) // 2 > ndim:
        raise ValueError(f"For '{name}', the input needs at least {len(padding) // 2} "
                         f"dimensions, but got shape {tuple(shape)}.")
    begin, size = [0] * ndim, list(shape)
    pads = []
    for i in range(len(padding) // 2):
        d = ndim - 1 - i
        lo, hi = padding[2 * i], padding[2 * i + 1]
        begin[d] = -lo if lo < 0 else 0
        size[d] = shape[d] + min(lo, 0) + min(hi, 0)
        if size[d] < 0:
            raise ValueError(f"For '{name}', the crop {tuple(padding)} is larger than the "
                             f"input's shape {tuple(shape)}.")
        pads += [max(lo, 0), max(hi, 0)]
    crop = any(p < 0 for p in padding)
    return crop, tuple(begin), tuple(size), tuple(pads)


class _ConstantPadNd(Cell):
    _dims = 1

    def __init__(self, padding, value):
        super().__init__()
        name = type(self).__name__
        self.padding = _check(padding, self._dims, name)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"For '{name}', 'value' must be an int or a float, but got "
                            f"{type(value).__name__}.")
        self.value = float(value)
        self._name = name

    def construct(self, x):
        crop, begin, size, pads = _crop_and_pad(x.shape, self.padding, self._name)
        if crop:
            x = _ax.slice(x, begin, size)
        return _a.pad(x, pads, value=self.value)


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dimension with `value` (module docstring)."""
    _dims = 1


class ConstantPad2d(_ConstantPadNd):
    """Pads the last two dimensions with `value` (module docstring)."""
    _dims = 2


class ConstantPad3d(_ConstantPadNd):
    """Pads the last three dimensions with `value` (module docstring)."""
    _dims = 3


class ZeroPad1d(ConstantPad1d):
    """Pads the last dimension with zeros."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)


class ZeroPad2d(ConstantPad2d):
    """Pads the last two dimensions with zeros."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)


class ZeroPad3d(ConstantPad3d):
    """Pads the last three dimensions with zeros."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)


class _ReflectionPadNd(Cell):
    """Mirrors the last 1, 2 or 3 dimensions, the edge element excluded ([1, 2, 3] padded by
    (2, 2): [3, 2, 1, 2, 3, 2, 1]); each side at most the dimension's size - 1."""
    _dims = 1

    def __init__(self, padding):
        super().__init__()
        name = type(self).__name__
        self.padding = _check(padding, self._dims, name)
        if any(p < 0 for p in self.padding):
            raise ValueError(f"For '{name}', 'padding' must not be negative, but got "
                             f"{self.padding}.")

    def construct(self, x):
        y = x
        for i in range(len(self.padding) // 2):
            axis = x.ndim - 1 - i
            before, after = self.padding[2 * i], self.padding[2 * i + 1]
            if before or after:
                index = _mirror_index(y.shape[axis], before, after, "REFLECT")
                y = _a.gather(y, index, axis)
        return y


class ReflectionPad1d(_ReflectionPadNd):
    """Mirrors the last dimension (class docstring)."""
    _dims = 1


class ReflectionPad2d(_ReflectionPadNd):
    """Mirrors the last two dimensions."""
    _dims = 2


class ReflectionPad3d(_ReflectionPadNd):
    """Mirrors the last three dimensions."""
    _dims = 3


@constexpr
def _edge_index(n, before, after):
    """The source index of each position of an axis of size n extended by (before, after)
    copies of its edge elements."""
    return _C.Tensor(np.array([0] * before + list(range(n)) + [n - 1] * after, np.int64))


class _ReplicationPadNd(Cell):
    """Extends the last 1, 2 or 3 dimensions by copies of their edge elements ([1, 2, 3]
    padded by (2, 1): [1, 1, 1, 2, 3, 3]); the input has dims + 1 or dims + 2 dimensions
    (MindSpore's rule), and the gradient adds each copy back into its edge (Gather's)."""
    _dims = 1

    def __init__(self, padding):
        super().__init__()
        name = type(self).__name__
        self.padding = _check(padding, self._dims, name)
        if len(self.padding) != 2 * self._dims:
            raise ValueError(f"For '{name}', 'padding' must hold {2 * self._dims} values, but "
                             f"got {self.padding}.")
        if any(p < 0 for p in self.padding):
            raise ValueError(f"For '{name}', 'padding' must not be negative, but got "
                             f"{self.padding}.")

    def construct(self, x):
        if x.ndim not in (self._dims + 1, self._dims + 2):
            raise ValueError(f"For '{type(self).__name__}', the input must have "
                             f"{self._dims + 1} or {self._dims + 2} dimensions, but got "
                             f"shape {x.shape}.")
        y = x
        for i in range(self._dims):
            axis = x.ndim - 1 - i
            before, after = self.padding[2 * i], self.padding[2 * i + 1]
            if before or after:
                y = _a.gather(y, _edge_index(y.shape[axis], before, after), axis)
        return y


class ReplicationPad1d(_ReplicationPadNd):
    """Replicates the edges of the last dimension: padding an int or (left, right)."""
    _dims = 1


class ReplicationPad2d(_ReplicationPadNd):
    """Replicates the edges of the last two dimensions: (left, right, top, bottom)."""
    _dims = 2


class ReplicationPad3d(_ReplicationPadNd):
    """Replicates the edges of the last three dimensions: (left, right, top, bottom, front,
    back)."""
    _dims = 3
