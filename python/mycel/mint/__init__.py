"""MindSpore 2.x's ``mindspore.mint``: the PyTorch-style functional namespace.

Every function here is a thin composition of mycel's ops (``mycel.ops``, the op table), with
PyTorch's names and signatures: reductions take ``dim`` and ``keepdim``, ``max``/``min`` with a
``dim`` return ``(values, indices)``, ``equal`` is whole-tensor equality, ``clamp`` takes both
bounds as tensors or both as numbers. No new kernels: both modes, gradients and vmap come from
the ops they are built of, and GRAPH mode compiles them as it does any Python function.
``mint.nn`` holds the layers and ``mint.nn.functional`` the functional layers; ``mint.optim``
the optimizers (AdamW, Adam, SGD); ``mint.linalg`` the norms, inv and det; ``mint.special``
the special functions; ``mint.fft`` the Fourier transforms; ``mint.distributed`` PyTorch's
torch.distributed names over mycel.communication.
"""
from mycel import _mycel as _C
from mycel import ops as _ops
from mycel.ops.function.select_func import unique_ext as _unique_ext
from mycel.common import generator as _gen
from mycel.ops.primitive import constexpr as _constexpr

# Functions whose MindSpore signature is already PyTorch's, taken from mycel.ops as they are.
_SAME = """abs neg negative exp exp2 expm1 log log1p log2 log10 sqrt rsqrt square reciprocal sin
cos tan asin acos atan sinh cosh tanh asinh acosh atanh sinc erf erfc erfinv sigmoid floor ceil
trunc frac sign round mul div pow maximum minimum fmod remainder atan2 hypot xlogy logaddexp
logaddexp2 lerp addcmul addcdiv float_power heaviside fmax fmin nan_to_num isfinite isinf isnan
isneginf isposinf signbit eq ne gt ge lt le greater greater_equal less less_equal not_equal
logical_and logical_or logical_not logical_xor bitwise_and bitwise_or bitwise_xor bitwise_not
isclose where matmul bmm baddbmm addmm addmv addbmm inner outer einsum tril triu flip roll
broadcast_to masked_select masked_fill nonzero repeat_interleave zeros_like ones_like rand randn
floor_divide deg2rad rad2deg trace clone argwhere diagonal tile reshape permute
unsqueeze cumprod topk cdist arcsinh arccosh arctanh arcsin arccos arctan fix histc inverse unbind
hardshrink hardswish hardsigmoid""".split()
for _n in _SAME:
    if getattr(_ops, _n, None) is not None:
        globals()[_n] = getattr(_ops, _n)

__all__ = []  # filled at the end


def _is_tensor(x):
    return isinstance(x, _C.Tensor)


def add(input, other, *, alpha=1):  # noqa: A002
    """input + alpha * other, broadcasting."""
    if alpha == 1:
        return _ops.add(input, other)
    return _ops.add(input, _ops.mul(other, alpha))


def sub(input, other, *, alpha=1):  # noqa: A002
    """input - alpha * other, broadcasting."""
    if alpha == 1:
        return _ops.sub(input, other)
    return _ops.sub(input, _ops.mul(other, alpha))


subtract = sub
multiply = mul
divide = div


def clamp(input, min=None, max=None):  # noqa: A002
    """input limited to [min, max] (either may be None). The bounds are both tensors or both
    numbers (PyTorch's two overloads); mixing them is a TypeError."""
    if min is None and max is None:
        raise ValueError("For 'clamp', at least one of 'min' and 'max' must be given.")
    if (min is not None and max is not None and _is_tensor(min) != _is_tensor(max)):
        raise TypeError(f"Failed calling clamp with \"clamp(input=Tensor, min={type(min).__name__},"
                        f" max={type(max).__name__})\": the bounds must be both Tensors "
                        f"(clamp(Tensor input, Tensor min, Tensor max)) or both numbers "
                        f"(clamp(Tensor input, Number min, Number max)).")
    return _ops.clamp(input, min, max)


clip = clamp


def equal(input, other):  # noqa: A002
    """True when input and other have the same shape and elements (``torch.equal``): False
    for different shapes, else a 0-d bool tensor."""
    if tuple(input.shape) != tuple(other.shape):
        return False
    return _ops.equal(input, other).all()


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):  # noqa: A002
    """True when |input - other| <= atol + rtol * |other| everywhere (broadcasting), NaNs
    equal when equal_nan (a 0-d bool tensor, so GRAPH mode can branch on it)."""
    return _ops.isclose(input, other, rtol, atol, equal_nan).all()


# Reductions: dim / keepdim.
@_constexpr
def _accumulates_in_int64(dt):
    return dt == _C.bool or dt in _INTS


_INTS = (_C.int8, _C.int16, _C.int32, _C.uint8, _C.uint16, _C.uint32)  # int64, uint64 stay


def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001,A002
    """The sum over dim (all when None), in dtype when given; bool and integer inputs sum in
    int64 by default (torch.sum: an int8 sum does not wrap around in int8)."""
    if dtype is None and _accumulates_in_int64(input.dtype):
        dtype = _C.int64
    if dtype is not None:
        input = _ops.cast(input, dtype)
    return _ops.sum(input, dim, keepdim)


def mean(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """The mean over dim (all when None)."""
    if dtype is not None:
        input = _ops.cast(input, dtype)
    return _ops.mean(input, dim, keepdim)


def prod(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """The product over dim (all when None); bool and integer inputs multiply in int64 by
    default (torch.prod)."""
    if dtype is None and _accumulates_in_int64(input.dtype):
        dtype = _C.int64
    if dtype is not None:
        input = _ops.cast(input, dtype)
    return _ops.prod(input, dim, keepdim)


def all(input, dim=None, keepdim=False):  # noqa: A001,A002
    """True where every element along dim is nonzero (all when None)."""
    return input.all(dim, keepdim)


def any(input, dim=None, keepdim=False):  # noqa: A001,A002
    """True where some element along dim is nonzero (all when None)."""
    return input.any(dim, keepdim)


def amax(input, dim=(), keepdim=False):  # noqa: A002
    """The maximum over dim (all when empty)."""
    return _ops.amax(input, None if dim == () else dim, keepdim)


def amin(input, dim=(), keepdim=False):  # noqa: A002
    """The minimum over dim (all when empty)."""
    return _ops.amin(input, None if dim == () else dim, keepdim)


def max(input, dim=None, keepdim=False):  # noqa: A001,A002
    """Without dim: the largest element. With dim: (values, indices) along it; with a
    tensor as dim: the elementwise maximum (``torch.max(a, b)``)."""
    if dim is None:
        return _ops.amax(input)
    if _is_tensor(dim):
        return _ops.maximum(input, dim)
    return _ops.amax(input, dim, keepdim), _ops.argmax(input, dim, keepdim)


def min(input, dim=None, keepdim=False):  # noqa: A001,A002
    """Without dim: the smallest element. With dim: (values, indices) along it; with a
    tensor as dim: the elementwise minimum."""
    if dim is None:
        return _ops.amin(input)
    if _is_tensor(dim):
        return _ops.minimum(input, dim)
    return _ops.amin(input, dim, keepdim), _ops.argmin(input, dim, keepdim)


def argmax(input, dim=None, keepdim=False):  # noqa: A002
    """The index of the largest element along dim (of the flattened input when None)."""
    return _ops.argmax(input, dim, keepdim)


def argmin(input, dim=None, keepdim=False):  # noqa: A002
    """The index of the smallest element along dim (of the flattened input when None)."""
    return _ops.argmin(input, dim, keepdim)


def cumsum(input, dim, *, dtype=None):  # noqa: A002
    """The running sum along dim."""
    return _ops.cumsum(input, dim, dtype)


def logsumexp(input, dim, keepdim=False):  # noqa: A002
    """log(sum(exp(input))) along dim, computed stably."""
    return _ops.logsumexp(input, dim, keepdim)


def std(input, dim=None, *, correction=1, keepdim=False):  # noqa: A002
    """The standard deviation over dim with Bessel's correction `correction`."""
    return _ops.std(input, dim, correction, keepdim)


def var(input, dim=None, *, correction=1, keepdim=False):  # noqa: A002
    """The variance over dim with Bessel's correction `correction`."""
    return _ops.var(input, dim, correction, keepdim)


def norm(input, p="fro", dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """The p-norm over dim (all elements when None; "fro" is the 2-norm of them)."""
    if dtype is not None:
        input = _ops.cast(input, dtype)
    if p == "fro" or p == 2:
        return _ops.sqrt(_ops.sum(_ops.square(_ops.abs(input)), dim, keepdim))
    if p == float("inf"):
        return _ops.amax(_ops.abs(input), dim, keepdim)
    if p == float("-inf"):
        return _ops.amin(_ops.abs(input), dim, keepdim)
    if p == 0:
        return _ops.sum(_ops.cast(_ops.ne(input, 0), input.dtype), dim, keepdim)
    return _ops.pow(_ops.sum(_ops.pow(_ops.abs(input), p), dim, keepdim), 1.0 / p)


# Shapes and indexing.
def cat(tensors, dim=0):
    """The tensors joined along dim."""
    return _ops.cat(tensors, dim)


concat = cat


def stack(tensors, dim=0):
    """The tensors stacked along a new dim."""
    return _ops.stack(tensors, dim)


def split(tensor, split_size_or_sections, dim=0):
    """Pieces of split_size (the last may be smaller) or of the given sizes, along dim."""
    return _ops.split(tensor, split_size_or_sections, dim)


def chunk(input, chunks, dim=0):  # noqa: A002
    """input split into `chunks` pieces along dim (the last may be smaller)."""
    return input.chunk(chunks, dim)


def squeeze(input, dim=None):  # noqa: A002
    """input without its size-1 dims (only `dim` when given)."""
    return _ops.squeeze(input, dim)


def transpose(input, dim0, dim1):  # noqa: A002
    """input with dims dim0 and dim1 swapped."""
    return _ops.swapaxes(input, dim0, dim1)


swapaxes = transpose


def narrow(input, dim, start, length):  # noqa: A002
    """The slice [start, start + length) of input along dim."""
    return _ops.narrow(input, dim, start, length)


def gather(input, dim, index):  # noqa: A002
    """out[i][j] = input[index[i][j]][j] along dim (``torch.gather``)."""
    return _ops.gather_elements(input, dim, index)


def index_select(input, dim, index):  # noqa: A002
    """The slices of input along dim at the 1-D index."""
    return _ops.index_select(input, dim, index)


def scatter(input, dim, index, src):  # noqa: A002
    """input with src's elements written at index along dim."""
    return _ops.scatter(input, dim, index, src)


def sort(input, dim=-1, descending=False, stable=False):  # noqa: A002
    """(values, indices) of input sorted along dim."""
    return _ops.sort(input, dim, descending)


def argsort(input, dim=-1, descending=False):  # noqa: A002
    """The indices that sort input along dim."""
    return _ops.argsort(input, dim, descending)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """The distinct elements of input (sorted), with the inverse indices and counts when
    asked."""
    if dim is not None:
        raise ValueError("For 'mint.unique', 'dim' is not supported (only None).")
    return _unique_ext(input, sorted, return_inverse, return_counts)


def softmax(input, dim, *, dtype=None):  # noqa: A002
    """softmax along dim."""
    if dtype is not None:
        input = _ops.cast(input, dtype)
    return _ops.softmax(input, dim)


def log_softmax(input, dim, *, dtype=None):  # noqa: A002
    """log(softmax) along dim."""
    if dtype is not None:
        input = _ops.cast(input, dtype)
    return _ops.log_softmax(input, dim)


# Creation.
def _size(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    return tuple(size)


def zeros(*size, dtype=None):
    """A tensor of zeros of the given size (float32 unless dtype)."""
    return _ops.zeros(_size(size), dtype or _C.float32)


def ones(*size, dtype=None):
    """A tensor of ones of the given size (float32 unless dtype)."""
    return _ops.ones(_size(size), dtype or _C.float32)


def full(size, fill_value, *, dtype=None):
    """A tensor of `size` filled with fill_value."""
    return _ops.full(size, fill_value, dtype=dtype)


def full_like(input, fill_value, *, dtype=None):  # noqa: A002
    """A tensor of input's shape (and dtype unless given) filled with fill_value."""
    return _ops.full(tuple(input.shape), fill_value, dtype=dtype or input.dtype)


def arange(start=0, end=None, step=1, *, dtype=None):
    """start, start + step, ... below end (``torch.arange``)."""
    return _ops.arange(start, end, step, dtype=dtype)


def linspace(start, end, steps, *, dtype=None):
    """steps values evenly spaced from start to end inclusive."""
    out = _ops.linspace(start, end, steps)
    return out if dtype is None else _ops.cast(out, dtype)


def eye(n, m=None, *, dtype=None):
    """The n x m identity matrix (m = n when None): where row index == column index."""
    m = n if m is None else m
    rows = _ops.reshape(_ops.arange(0, n), (n, 1))
    cols = _ops.reshape(_ops.arange(0, m), (1, m))
    return _ops.cast(_ops.equal(rows, cols), dtype or _C.float32)


def flatten(input, start_dim=0, end_dim=-1):  # noqa: A002
    """input with dims start_dim..end_dim merged into one (all of them by default, as
    ``torch.flatten``; ops.flatten starts at dim 1)."""
    return _ops.flatten(input, start_dim=start_dim, end_dim=end_dim)


def ravel(input):  # noqa: A002
    """input flattened into one dimension (torch.ravel)."""
    return _ops.reshape(input, (-1,))


def count_nonzero(input, dim=None):  # noqa: A002
    """The number of nonzero elements along dim (all when None), as int64."""
    return _ops.count_nonzero(input, () if dim is None else dim, False, _C.int64)


def mm(input, mat2):  # noqa: A002
    """The matrix product of 2-D input and mat2."""
    if len(input.shape) != 2 or len(mat2.shape) != 2:
        raise ValueError(f"For 'mm', both inputs must be 2-D, but got shapes {input.shape} and "
                         f"{mat2.shape}.")
    return _ops.matmul(input, mat2)


def mv(input, vec):  # noqa: A002
    """The product of the 2-D input and the 1-D vec."""
    if len(input.shape) != 2 or len(vec.shape) != 1:
        raise ValueError(f"For 'mv', the input must be 2-D and vec 1-D, but got shapes "
                         f"{input.shape} and {vec.shape}.")
    return _ops.matmul(input, vec)


def t(input):  # noqa: A002
    """The transpose of a tensor of at most 2 dims."""
    if len(input.shape) > 2:
        raise ValueError(f"For 't', the input must have at most 2 dims, but got shape "
                         f"{input.shape}.")
    return input if len(input.shape) < 2 else _ops.swapaxes(input, 0, 1)


def diff(input, n=1, dim=-1, prepend=None, append=None):  # noqa: A002
    """The n-th forward difference along dim."""
    return _ops.diff(input, n, dim, prepend, append)


def std_mean(input, dim=None, *, correction=1, keepdim=False):  # noqa: A002
    """(std, mean) over dim with Bessel's correction `correction`."""
    return _ops.std_mean(input, dim, correction, keepdim)


def var_mean(input, dim=None, *, correction=1, keepdim=False):  # noqa: A002
    """(var, mean) over dim with Bessel's correction `correction`."""
    return _ops.var_mean(input, dim, correction, keepdim)


def nansum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """The sum over dim, NaNs counted as zero."""
    return _ops.nansum(input, dim, keepdim, dtype=dtype)


def take(input, index):  # noqa: A002
    """The elements of the flattened input at index (index's shape)."""
    return _ops.gather(_ops.reshape(input, (-1,)), index, 0)


def clone(input):  # noqa: A002
    """A copy of input."""
    return input.clone()


def select(input, dim, index):  # noqa: A002
    """The slice of input at `index` along dim, dim removed (index may be negative)."""
    size = input.shape[dim]
    if index < -size or index >= size:
        raise IndexError(f"For 'select', index {index} is out of range for dim {dim} of size "
                         f"{size}.")
    return _ops.squeeze(_ops.narrow(input, dim, index % size, 1), dim)


def dot(input, other):  # noqa: A002
    """The inner product of two 1-D tensors of the same length."""
    if len(input.shape) != 1 or len(other.shape) != 1:
        raise ValueError(f"For 'dot', both inputs must be 1-D, but got shapes {input.shape} "
                         f"and {other.shape}.")
    return _ops.sum(_ops.mul(input, other))


def hstack(tensors):
    """The tensors joined along dim 1 (dim 0 for 1-D ones)."""
    return _ops.cat(tensors, 0 if len(tensors[0].shape) == 1 else 1)


def dstack(tensors):
    """The tensors, made at least 3-D ([n] -> [1, n, 1], [m, n] -> [m, n, 1]), joined along
    dim 2."""
    out = ()
    for x in tensors:
        nd = len(x.shape)
        if nd == 0:
            x = _ops.reshape(x, (1, 1, 1))
        elif nd == 1:
            x = _ops.reshape(x, (1, x.shape[0], 1))
        elif nd == 2:
            x = _ops.reshape(x, (x.shape[0], x.shape[1], 1))
        out = out + (x,)
    return _ops.cat(out, 2)


def diag(input, diagonal=0):  # noqa: A002
    """A 1-D input as the `diagonal`-th diagonal of a square matrix; the `diagonal`-th
    diagonal of a 2-D input."""
    if len(input.shape) == 2:
        return _ops.diagonal(input, diagonal)
    if len(input.shape) != 1:
        raise ValueError(f"For 'diag', the input must be 1-D or 2-D, but got shape "
                         f"{input.shape}.")
    n = input.shape[0]
    m = n + (diagonal if diagonal >= 0 else -diagonal)
    rows = _ops.reshape(_ops.arange(0, m), (m, 1))
    cols = _ops.reshape(_ops.arange(0, m), (1, m))
    on = _ops.equal(_ops.sub(cols, rows), diagonal)
    pos = rows if diagonal >= 0 else cols  # the element of input on (row, col)
    vals = _ops.gather(input, _ops.clamp(_ops.broadcast_to(pos, (m, m)), 0, n - 1), 0)
    return _ops.where(on, vals, _ops.zeros_like(vals))


def empty(*size, dtype=None):
    """A tensor of the given size; mycel fills it with zeros."""
    return zeros(*size, dtype=dtype)


def empty_like(input, *, dtype=None):  # noqa: A002
    """A tensor of input's shape (and dtype unless given); mycel fills it with zeros."""
    return _ops.zeros(tuple(input.shape), dtype or input.dtype)


def normal(mean=0.0, std=1.0, size=None, *, generator=None):
    """Draws from N(mean, std^2): mean and std numbers with `size`, or tensors (broadcast);
    from `generator`'s stream when given (common/generator.py)."""
    if _gen.uses_generator(generator, "normal"):
        return _gen.draw(generator, normal, mean, std, size)
    if size is not None:
        return _ops.add(_ops.mul(_ops.randn(*tuple(size)), std), mean)
    shape = tuple(_ops.add(_ops.mul(mean, 0.0), _ops.mul(std, 0.0)).shape)  # broadcast
    noise = _ops.randn(*shape) if shape else _ops.reshape(_ops.randn(1), ())
    return _ops.add(_ops.mul(noise, std), mean)


def _grids_ij(tensors):
    """Matrix-indexed grids: output i varies along dim i."""
    sizes = ()
    for x in tensors:
        sizes = sizes + (x.shape[0],)
    out = ()
    for i, x in enumerate(tensors):
        shape = ()
        for j in range(len(tensors)):
            shape = shape + ((x.shape[0],) if j == i else (1,))
        out = out + (_ops.broadcast_to(_ops.reshape(x, shape), sizes),)
    return out


def meshgrid(*tensors, indexing="ij"):
    """Coordinate grids of 1-D tensors: "ij" (matrix) or "xy" (Cartesian: the first two
    dims swapped) indexing."""
    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        tensors = tuple(tensors[0])
    if indexing not in ("ij", "xy"):
        raise ValueError(f"For 'meshgrid', indexing must be 'ij' or 'xy', but got {indexing!r}.")
    if indexing == "xy" and len(tensors) >= 2:
        g = _grids_ij((tensors[1], tensors[0]) + tuple(tensors[2:]))
        return (g[1], g[0]) + g[2:]
    return _grids_ij(tuple(tensors))


from mycel.mint._random import (rand, randn, randint, randperm, multinomial,  # noqa: E402
                                bernoulli, rand_like, randn_like, randint_like)

_NAMES = [k for k, v in list(globals().items())
          if not k.startswith("_") and callable(v)]
__all__.extend(_NAMES)

# (after the functions)
from mycel.mint import nn, optim, linalg, special, distributed, fft  # noqa: E402,F401
from mycel.mint.nn import functional  # noqa: E402,F401
