"""nn.Pad (MindSpore's ``mindspore.nn.Pad``): pads each dimension by a (before, after) pair.
CONSTANT pads with zeros (the Pad primitive); REFLECT mirrors the elements next to the edge,
the edge itself excluded ([1, 2, 3] by 2 on both sides: [3, 2, 1, 2, 3, 2, 1]), SYMMETRIC
mirrors including it ([2, 1, 1, 2, 3, 3, 2]). The mirror modes gather along each padded axis
with an index table built from the static shape, so both modes and the gradient (Gather's
backward) come from the primitives."""
import numpy as np

from mycel import _mycel as _C
from mycel.nn.cell import Cell
from mycel.ops.function._util import prim
from mycel.ops.primitive import constexpr

_MODES = ("CONSTANT", "REFLECT", "SYMMETRIC")


def _check_paddings(paddings, mode):
    if not isinstance(paddings, (tuple, list)) or not all(
            isinstance(p, (tuple, list)) and len(p) == 2 and
            all(isinstance(v, int) and not isinstance(v, bool) for v in p)
            for p in paddings):
        raise TypeError(f"For 'Pad', the 'paddings' must be a tuple of (before, after) pairs "
                        f"of ints, but got {paddings!r}.")
    if mode not in _MODES:
        raise ValueError(f"For 'Pad', the 'mode' must be one of {_MODES}, but got {mode!r}.")
    return tuple(tuple(p) for p in paddings)


@constexpr
def _mirror_index(n, before, after, mode):
    """The source index of each position of an axis of size n padded by (before, after)."""
    edge = 1 if mode == "REFLECT" else 0
    limit = n - 1 if mode == "REFLECT" else n
    if before > limit or after > limit:
        raise ValueError(f"For 'Pad', {mode} padding of an axis of size {n} must be at most "
                         f"{limit} on each side, but got ({before}, {after}).")
    idx = list(range(before + edge - 1, edge - 1, -1)) + list(range(n)) + \
        list(range(n - 1 - edge, n - 1 - edge - after, -1))
    return _C.Tensor(np.array(idx, np.int64))


@constexpr
def _check_rank(ndim, paddings):
    """Checked when called, as MindSpore does: a negative padding is a ValueError."""
    if any(v < 0 for p in paddings for v in p):
        raise ValueError(f"For 'Pad', the 'paddings' must be non-negative, but got "
                         f"{paddings!r}.")
    if ndim != len(paddings):
        raise ValueError(f"For 'Pad', the input has {ndim} dimensions but 'paddings' has "
                         f"{len(paddings)} pairs.")


class Pad(Cell):
    """Pad(paddings, mode="CONSTANT")(x): paddings[d] = (before, after) elements added to
    dimension d; mode CONSTANT (zeros), REFLECT or SYMMETRIC."""

    def __init__(self, paddings, mode="CONSTANT"):
        super().__init__()
        self.paddings = _check_paddings(paddings, mode)
        self.mode = mode

    def construct(self, x):
        _check_rank(x.ndim, self.paddings)
        if self.mode == "CONSTANT":
            flat = tuple(v for p in self.paddings for v in p)
            return prim("Pad", paddings=flat, value=0.0)(x)
        y = x
        for axis in range(len(self.paddings)):
            before, after = self.paddings[axis]
            if before or after:
                index = _mirror_index(y.shape[axis], before, after, self.mode)
                y = prim("Gather")(y, index, axis)
        return y


__all__ = ["Pad"]
