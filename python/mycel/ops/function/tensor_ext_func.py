"""Tensor methods (and mycel.ops functions) of MindSpore 2.x composed exactly from existing ops:
``tensor_split``/``vsplit``/``hsplit``/``dsplit`` (numpy's array_split), ``adjoint``/``mH``
(the conjugate transpose of the last two axes; mycel's tensors are real, so the transpose),
``aminmax``, ``diff``, ``logdet``, ``sum_to_size``, ``ldexp``, ``short``, ``type``,
``fill_diagonal``, ``slice_scatter``, ``select_scatter``, ``logcumsumexp``, ``histc``,
``cov``, ``msort``, ``quantile``, ``nanquantile``, ``diagflat`` and (numpy's) ``dot``.
Written so that graph code compiles them too (tuples, compile-time loops)."""
import numbers

from mycel import _mycel as _C
from mycel.ops.function._util import prim as _prim, tensor_arg, number_arg
from mycel.ops.function import array_func as _a, math_func as _m, array_ext_func as _ax
from mycel.ops.function import linalg_func as _la, sort_scan_func as _ss, math_ext_func as _mx

__all__ = ["tensor_split", "vsplit", "hsplit", "dsplit", "adjoint", "aminmax", "diff",
           "logdet", "sum_to_size", "ldexp", "fill_diagonal", "slice_scatter", "select_scatter",
           "logcumsumexp", "histc", "cov", "msort", "quantile", "nanquantile", "diagflat"]
# dot (numpy's) serves Tensor.dot only (common/tensor.py); mycel.ops has no dot yet.


# The most pieces tensor_split makes of a shorter axis (the extra pieces are empty).
_MAX_SECTIONS = 1 << 16


def _split_bounds(n, indices_or_sections, name):
    """The (start, stop) of each piece along an axis of length n, as numpy's array_split."""
    if isinstance(indices_or_sections, int) and not isinstance(indices_or_sections, bool):
        sections = indices_or_sections
        if sections <= 0:
            raise ValueError(f"For '{name}', the number of sections must be positive, but got "
                             f"{sections}.")
        if sections > max(n, _MAX_SECTIONS):
            # one piece each: 2**62 sections of a length-4 axis looped (and allocated) forever
            raise ValueError(f"For '{name}', the number of sections {sections} is more than "
                             f"the axis' length {n} and the limit of {_MAX_SECTIONS} pieces.")
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


def matrix_transpose(x):
    """The transpose of the last two axes (Tensor.mT)."""
    if len(x.shape) < 2:
        raise ValueError(f"For 'mT', the input must have at least 2 dimensions, but got "
                         f"{len(x.shape)}.")
    return _a.swapaxes(x, -1, -2)


def adjoint(x):
    """The conjugate transpose of the last two axes (a real tensor: the transpose)."""
    if len(x.shape) < 2:
        raise ValueError(f"For 'adjoint', the input must have at least 2 dimensions, but got "
                         f"{len(x.shape)}.")
    t = _a.swapaxes(x, -1, -2)
    return _prim("Conj")(t) if x.dtype in (_C.complex64, _C.complex128) else t


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


def fill_diagonal(x, fill_value, wrap=False):
    """x with its main diagonal set to fill_value, as numpy.fill_diagonal: a 2-D x's flat
    positions 0, c+1, 2(c+1), ... (c its columns) up to c*c, or to the end with wrap (a tall
    matrix's diagonal then starts again after a skipped row); an N-D x (every dimension
    equal) gets x[i, i, ..., i]."""
    shape = x.shape
    ndim = len(shape)
    if ndim < 2:
        raise ValueError(f"For 'fill_diagonal', the input must have at least 2 dimensions, but "
                         f"got {ndim}.")
    total = 1
    for d in shape:
        total = total * d
    if ndim == 2:
        step = shape[1] + 1
        end = total if wrap else min(total, shape[1] * shape[1])
    else:
        for d in shape:
            if d != shape[0]:
                raise ValueError(f"For 'fill_diagonal', all dimensions of an input with more than "
                                 f"2 must be equal, but got shape {tuple(shape)}.")
        step = 0
        stride = 1
        for _ in range(ndim):
            step = step + stride
            stride = stride * shape[0]
        end = total
    idx = _a.arange(0, total, 1, dtype=_C.int64)
    mask = _m.logical_and(_m.equal(_m.remainder(idx, step), 0), _m.less(idx, end))
    filled = _m.where(mask, _a.cast(_a.fill(x.dtype, (total,), fill_value), x.dtype),
                      _a.reshape(x, (total,)))
    return _a.reshape(filled, shape)


def _along(n, axis, ndim):
    """The shape (1, ..., n, ..., 1) that broadcasts a vector along `axis`."""
    shape = ()
    for i in range(ndim):
        shape = shape + ((n if i == axis else 1),)
    return shape


def slice_scatter(input, src, axis=0, start=None, end=None, step=1):  # noqa: A002
    """input with ``input[..., start:end:step, ...]`` (along `axis`) replaced by src."""
    tensor_arg(input, "slice_scatter", "input")
    tensor_arg(src, "slice_scatter", "src")
    ndim = len(input.shape)
    axis = _a._check_axis(axis, ndim, "slice_scatter")
    n = input.shape[axis]
    picked = tuple(range(n))[slice(start, end, step)]
    if src.shape[axis] != len(picked):
        raise ValueError(f"For 'slice_scatter', src must have {len(picked)} elements along axis "
                         f"{axis}, but has {src.shape[axis]}.")
    where_from = ()  # for each position along axis: its row of src (0 where not picked)
    chosen = ()
    for j in range(n):
        k = -1
        for i in range(len(picked)):
            if picked[i] == j:
                k = i
        where_from = where_from + ((k if k >= 0 else 0),)
        chosen = chosen + ((k >= 0),)
    spread = _a.gather(src, _C.Tensor(where_from, _C.int64), axis)
    mask = _a.reshape(_C.Tensor(chosen, _C.bool), _along(n, axis, ndim))
    return _m.where(mask, spread, input)


def select_scatter(input, src, axis, index):  # noqa: A002
    """input with ``input[..., index, ...]`` (along `axis`) replaced by src (input's shape
    without that axis)."""
    tensor_arg(input, "select_scatter", "input")
    tensor_arg(src, "select_scatter", "src")
    ndim = len(input.shape)
    axis = _a._check_axis(axis, ndim, "select_scatter")
    n = input.shape[axis]
    index = index + n if index < 0 else index
    if not 0 <= index < n:
        raise IndexError(f"For 'select_scatter', index {index} is out of range for axis {axis} "
                         f"of length {n}.")
    chosen = ()
    for j in range(n):
        chosen = chosen + ((j == index),)
    mask = _a.reshape(_C.Tensor(chosen, _C.bool), _along(n, axis, ndim))
    return _m.where(mask, _a.expand_dims(src, axis), input)


def logcumsumexp(input, axis):  # noqa: A002
    """log(cumsum(exp(input), axis)), computed as m + log(cumsum(exp(input - m))) with m the
    maximum along axis (no overflow for large inputs)."""
    m = _m.amax(input, axis, True)
    return _m.add(_m.log(_ss.cumsum(_m.exp(_m.sub(input, m)), axis)), m)


def histc(input, bins=100, min=0.0, max=0.0):  # noqa: A002 (MindSpore's names)
    """The histogram of input's elements over `bins` equal bins between min and max (both 0:
    the data's own minimum and maximum); elements outside are not counted, max falls in the
    last bin. The counts have input's dtype."""
    if not isinstance(bins, int) or isinstance(bins, bool) or bins <= 0:
        raise ValueError(f"For 'histc', 'bins' must be a positive int, but got {bins}.")
    x = _a.cast(_a.reshape(input, (-1,)), _C.float32)
    for name, v in (("bins", bins), ("min", min), ("max", max)):  # (float('abc'): no op)
        number_arg(v, "histc", name)
    lo = _a.cast(_m.amin(x, None, False), _C.float32) if min == max else float(min)
    hi = _a.cast(_m.amax(x, None, False), _C.float32) if min == max else float(max)
    width = _m.sub(hi, lo)
    width = _m.where(_m.equal(width, 0.0), _m.add(width, 1.0), width)
    pos = _m.floor(_m.div(_m.mul(_m.sub(x, lo), float(bins)), width))
    pos = _m.where(_m.equal(x, hi), _m.add(_m.mul(pos, 0.0), float(bins - 1)), pos)
    valid = _m.logical_and(_m.greater_equal(x, lo), _m.less_equal(x, hi))
    edges = _a.reshape(_a.arange(0, bins, 1, dtype=_C.float32), (bins, 1))
    hits = _m.logical_and(_m.equal(_a.reshape(pos, (1, -1)), edges), _a.reshape(valid, (1, -1)))
    return _a.cast(_m.sum(_a.cast(hits, _C.float32), 1, False), input.dtype)


def cov(input, *, correction=1, fweights=None, aweights=None):  # noqa: A002
    """The covariance matrix of the variables in input's rows (observations in its columns; a
    1-D input is one variable), with integer frequency weights and observation weights, as
    torch.cov."""
    x = input if len(input.shape) == 2 else _a.reshape(input, (1, -1))
    x = _a.cast(x, _C.float32) if not x.dtype.is_floating_point else x
    n = x.shape[1]
    w = None
    aw = None  # bound on every path (graph code)
    if fweights is not None:
        w = _a.cast(fweights, x.dtype)
    if aweights is not None:
        aw = _a.cast(aweights, x.dtype)
        w = aw if w is None else _m.mul(w, aw)
    if w is None:
        avg = _m.mean(x, 1, True)
        fact = float(n - correction)
        xm = _m.sub(x, avg)
        c = _m.div(_m.matmul(xm, _a.swapaxes(xm, 0, 1)), fact)
    else:
        wsum = _m.sum(w, None, False)
        avg = _m.div(_m.sum(_m.mul(x, w), 1, True), wsum)
        if aweights is None:
            fact = _m.sub(wsum, float(correction))
        else:
            fact = _m.sub(wsum, _m.div(_m.mul(_m.sum(_m.mul(w, aw), None, False),
                                              float(correction)), wsum))
        xm = _m.sub(x, avg)
        c = _m.div(_m.matmul(_m.mul(xm, w), _a.swapaxes(xm, 0, 1)), fact)
    return _a.reshape(c, ()) if len(input.shape) < 2 or input.shape[0] == 1 else c


def dot(input, other):  # noqa: A002
    """numpy.dot (MindSpore's Tensor.dot): for 1-D tensors their inner product; otherwise the
    sum over input's last axis and other's second-to-last (its only one when 1-D), shaped
    input.shape[:-1] + other.shape[:-2] + other.shape[-1:]."""
    a_shape, b_shape = input.shape, other.shape
    if len(a_shape) == 0 or len(b_shape) == 0:
        return _m.mul(input, other)
    k = a_shape[-1]
    kb = b_shape[0] if len(b_shape) == 1 else b_shape[-2]
    if k != kb:
        raise ValueError(f"For 'dot', the last dimension of input {tuple(a_shape)} must equal "
                         f"the second-to-last of other {tuple(b_shape)}.")
    if len(a_shape) == 1 and len(b_shape) == 1:
        return _m.sum(_m.mul(input, other), None, False)
    a2 = _a.reshape(input, (-1, k))
    if len(b_shape) == 1:
        b2 = _a.reshape(other, (k, 1))
        out_shape = tuple(a_shape[:-1])
    else:
        perm = (len(b_shape) - 2,)
        for i in range(len(b_shape)):
            if i != len(b_shape) - 2:
                perm = perm + (i,)
        b2 = _a.reshape(_a.transpose(other, perm), (k, -1))
        out_shape = tuple(a_shape[:-1]) + tuple(b_shape[:-2]) + (b_shape[-1],)
    return _a.reshape(_m.matmul(a2, b2), out_shape)


def msort(input):  # noqa: A002
    """input sorted along its first axis."""
    return _ss.sort(input, 0)[0]


def _quantile(input, q, axis, keepdims, ignore_nan, name):
    """Linear interpolation between the order statistics at q * (n - 1), n the count of
    (non-NaN, with ignore_nan) values of each slice along axis, as torch.quantile."""
    if axis is None:
        x = _a.reshape(input, (-1,))
        ax = 0
    else:
        ndim = len(input.shape)
        if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
            raise TypeError(f"For '{name}', 'axis' must be None or an int, but got "
                            f"{type(axis).__name__}.")
        if not -ndim <= axis < ndim:
            raise ValueError(f"For '{name}', 'axis' must be in [{-ndim}, {ndim}), but got {axis}.")
        x = input
        ax = axis + ndim if axis < 0 else axis
    scalar_q = not isinstance(q, _C.Tensor) or len(q.shape) == 0
    qt = _a.reshape(_a.cast(q if isinstance(q, _C.Tensor) else _C.Tensor(q, _C.float32),
                            x.dtype), (-1,))
    xs = _ss.sort(_ax.movedim(x, ax, -1), -1)[0]  # NaN sort last
    n = xs.shape[-1]
    k = qt.shape[0]
    lead = tuple(xs.shape[:-1])
    if ignore_nan:
        count = _m.sum(_a.cast(_m.logical_not(_mx.isnan(xs)), x.dtype), -1, True)
    else:
        count = _a.fill(x.dtype, lead + (1,), float(n))
    pos = _m.mul(_m.sub(count, 1.0), _a.reshape(qt, (1,) * len(lead) + (k,)))
    pos = _m.maximum(pos, _m.mul(pos, 0.0))  # an all-NaN slice: count 0
    lo = _m.floor(pos)
    top = _m.maximum(_m.sub(count, 1.0), _m.mul(count, 0.0))
    hi = _m.minimum(_m.add(lo, 1.0), top)
    full = lead + (k,)
    lo_i = _a.broadcast_to(_a.cast(lo, _C.int64), full)
    hi_i = _a.broadcast_to(_a.cast(hi, _C.int64), full)
    a = _a.gather_elements(xs, -1, lo_i)
    b = _a.gather_elements(xs, -1, hi_i)
    out = _m.add(a, _m.mul(_m.sub(pos, lo), _m.sub(b, a)))
    if ignore_nan:
        out = _m.where(_m.equal(count, 0.0), _m.div(_m.mul(count, 0.0), 0.0), out)
    elif n > 0:
        any_nan = _mx.isnan(_m.sum(xs, -1, True))
        out = _m.where(any_nan, _m.add(out, _m.sum(xs, -1, True)), out)
    out = _ax.movedim(out, -1, 0)  # (k,) + the other dimensions
    if keepdims:
        if axis is None:
            ones = ()
            for _ in range(len(input.shape)):
                ones = ones + (1,)
            out = _a.reshape(out, (k,) + ones)
        else:
            out = _a.expand_dims(out, ax + 1)
    if scalar_q:
        out = _a.reshape(out, tuple(out.shape[1:]))
    return out


def quantile(input, q, axis=None, keepdims=False):  # noqa: A002
    """The q-th quantiles of input along axis (None: all elements), by linear interpolation
    (torch.quantile's default); q a float or a 1-D tensor of them, whose axis comes first in
    the result. A slice holding NaN gives NaN."""
    return _quantile(input, q, axis, keepdims, False, "quantile")


def nanquantile(input, q, axis=None, keepdims=False):  # noqa: A002
    """quantile ignoring NaN values (a slice of NaN only gives NaN)."""
    return _quantile(input, q, axis, keepdims, True, "nanquantile")


def diagflat(input, offset=0):  # noqa: A002
    """The square matrix with the flattened input on its diagonal `offset` (above the main one
    when positive), zeros elsewhere."""
    if isinstance(offset, bool) or not isinstance(offset, numbers.Integral):  # (vs 0: no op)
        raise TypeError(f"For 'diagflat', offset must be an int, but got "
                        f"{type(offset).__name__}.")
    v = _a.reshape(input, (-1,))
    m = v.shape[0]
    size = m + (offset if offset >= 0 else -offset)
    rows = _a.reshape(_a.arange(0, size, 1, dtype=_C.int64), (size, 1))
    cols = _a.reshape(_a.arange(0, size, 1, dtype=_C.int64), (1, size))
    on = _m.equal(_m.sub(cols, rows), offset)
    # the diagonal's k-th element sits in row k (offset >= 0) or column k (offset < 0)
    along = rows if offset >= 0 else cols
    idx = _m.minimum(_m.maximum(along, _m.mul(along, 0)), m - 1)
    vals = _a.gather(v, _a.reshape(idx, (-1,)), 0)
    vals = _a.reshape(vals, (size, 1) if offset >= 0 else (1, size))
    return _m.where(on, _a.broadcast_to(vals, (size, size)), _a.zeros_like(
        _a.broadcast_to(vals, (size, size))))
