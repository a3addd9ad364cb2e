"""Tensor methods (and mycel.ops functions) of MindSpore 2.x composed exactly from existing ops:
``tensor_split``/``vsplit``/``hsplit``/``dsplit`` (numpy's array_split), ``adjoint``/``mH``
(the conjugate transpose of the last two axes; mycel's tensors are real, so the transpose),
``aminmax``, ``diff``, ``logdet``, ``sum_to_size``, ``ldexp``, ``short`` and ``type``.
Written so that graph code compiles them too (tuples, compile-time loops)."""
from mycel import _mycel as _C
from mycel.ops.function import array_func as _a, math_func as _m, array_ext_func as _ax
from mycel.ops.function import linalg_func as _la

__all__ = ["tensor_split", "vsplit", "hsplit", "dsplit", "adjoint", "aminmax", "diff",
           "logdet", "sum_to_size", "ldexp"]


def _split_bounds(n, indices_or_sections, name):
    """The (start, stop) of each piece along an axis of length n, as numpy's array_split."""
    if isinstance(indices_or_sections, int) and not isinstance(indices_or_sections, bool):
        sections = indices_or_sections
        if sections <= 0:
            raise ValueError(f"For '{name}', the number of sections must be positive, but got "
                             f"{sections}.")
        size = n // sections
        extra = n % sections
        bounds = ()
        start = 0
        for i in range(sections):
            stop = start + size + (1 if i < extra else 0)
            bounds = bounds + ((start, stop),)
            start = stop
        return bounds
    if not isinstance(indices_or_sections, (tuple, list)):
        raise TypeError(f"For '{name}', 'indices_or_sections' must be an int or a tuple/list of "
                        f"ints, but got {type(indices_or_sections).__name__}.")
    cuts = (0,)
    for i in indices_or_sections:
        if not isinstance(i, int) or isinstance(i, bool):
            raise TypeError(f"For '{name}', each index must be an int, but got "
                            f"{type(i).__name__}.")
        cuts = cuts + (i,)
    cuts = cuts + (n,)
    bounds = ()
    for k in range(len(cuts) - 1):
        start, stop = cuts[k], cuts[k + 1]
        # Python slice semantics: negative counts from the end, then clipped to [0, n]
        start = start + n if start < 0 else start
        stop = stop + n if stop < 0 else stop
        start = min(max(start, 0), n)
        stop = min(max(stop, start), n)
        bounds = bounds + ((start, stop),)
    return bounds


def tensor_split(input, indices_or_sections, axis=0):  # noqa: A002 (MindSpore's name)
    """The pieces of `input` along `axis`, as numpy's ``array_split``: an int N gives N pieces
    (the first ``len % N`` one longer), a sequence of indices cuts at each."""
    ndim = len(input.shape)
    if not isinstance(axis, int) or isinstance(axis, bool) or not -ndim <= axis < ndim:
        raise ValueError(f"For 'tensor_split', 'axis' must be an int in [{-ndim}, {ndim}), but "
                         f"got {axis}.")
    axis = axis + ndim if axis < 0 else axis
    out = ()
    for start, stop in _split_bounds(input.shape[axis], indices_or_sections, "tensor_split"):
        out = out + (_ax.narrow(input, axis, start, stop - start),)
    return out


def _split_at_least(input, indices_or_sections, axis, rank, name):
    if len(input.shape) < rank:
        raise ValueError(f"For '{name}', the input must have at least {rank} dimensions, but "
                         f"got {len(input.shape)}.")
    return tensor_split(input, indices_or_sections, axis)


def vsplit(input, indices_or_sections):  # noqa: A002
    """tensor_split along axis 0 (the input has at least 2 dimensions)."""
    return _split_at_least(input, indices_or_sections, 0, 2, "vsplit")


def hsplit(input, indices_or_sections):  # noqa: A002
    """tensor_split along axis 1 (axis 0 for a 1-D input)."""
    if len(input.shape) == 1:
        return tensor_split(input, indices_or_sections, 0)
    return _split_at_least(input, indices_or_sections, 1, 2, "hsplit")


def dsplit(input, indices_or_sections):  # noqa: A002
    """tensor_split along axis 2 (the input has at least 3 dimensions)."""
    return _split_at_least(input, indices_or_sections, 2, 3, "dsplit")


def adjoint(x):
    """The conjugate transpose of the last two axes (mycel's tensors are real: the
    transpose)."""
    if len(x.shape) < 2:
        raise ValueError(f"For 'adjoint', the input must have at least 2 dimensions, but got "
                         f"{len(x.shape)}.")
    return _a.swapaxes(x, -1, -2)


def aminmax(input, *, axis=0, keepdims=False):  # noqa: A002
    """``(amin, amax)`` over `axis` (None: all elements)."""
    return _m.amin(input, axis, keepdims), _m.amax(input, axis, keepdims)


def diff(x, n=1, axis=-1, prepend=None, append=None):
    """The n-th forward difference along `axis` (prepend/append joined first), as
    numpy.diff."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise ValueError(f"For 'diff', 'n' must be a non-negative int, but got {n}.")
    if prepend is not None:
        x = _a.concat((prepend, x), axis)
    if append is not None:
        x = _a.concat((x, append), axis)
    ndim = len(x.shape)
    axis = axis + ndim if axis < 0 else axis
    for _ in range(n):
        length = x.shape[axis]
        x = _ax.narrow(x, axis, 1, length - 1) - _ax.narrow(x, axis, 0, length - 1)
    return x


def logdet(x):
    """log(det(x)) of a square matrix (or a batch): NaN where the determinant is negative,
    -inf where it is zero."""
    return _m.log(_la.det(x))


def sum_to_size(x, *size):
    """x summed to `size` (a shape x broadcasts to): the axes that size has as 1 and x does
    not, and x's leading extra axes, are summed."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    ndim = len(x.shape)
    lead = ndim - len(size)
    if lead < 0:
        raise ValueError(f"For 'sum_to_size', size {size} has more dimensions than the input's "
                         f"shape {tuple(x.shape)}.")
    axes = ()
    for i in range(ndim):
        if i < lead:
            axes = axes + (i,)
        elif size[i - lead] == 1 and x.shape[i] != 1:
            axes = axes + (i,)
        elif size[i - lead] != x.shape[i]:
            raise ValueError(f"For 'sum_to_size', the input's shape {tuple(x.shape)} cannot be "
                             f"summed to {size}.")
    if len(axes) == 0:
        return x
    out = _m.sum(x, axes, True)
    return _a.reshape(out, size)


def ldexp(x, other):
    """x * 2**other."""
    return _m.mul(x, _m.pow(2.0, _a.cast(other, _C.float32)))
