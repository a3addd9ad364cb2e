"""Vector and matrix norms (MindSpore 2.x's ``ops.norm``, ``ops.vector_norm``,
``ops.matrix_norm``, ``Tensor.norm``), composed from table ops, so both modes and gradients
come from the ops' own rules.

vector_norm: ord inf / -inf (max / min |x|), 0 (the number of nonzeros), p (sum |x|^p)^(1/p).
matrix_norm over two dims (rows, columns): 'fro', 1 / -1 (max / min column sum of |A|),
inf / -inf (max / min row sum). The norms made of singular values (ord 2, -2, 'nuc') are
refused with a ValueError: mycel has no singular value decomposition yet.
"""
import math

from mycel import _mycel as _C
from mycel.ops.function import math_func as _m, array_func as _a
from mycel.ops.primitive import constexpr
from mycel.ops.function._util import prim, number_arg

__all__ = ["norm", "vector_norm", "matrix_norm", "rms_norm"]

_FLOATS = (_C.float16, _C.float32, _C.float64, _C.bfloat16)


@constexpr
def _vector_kind(ord, name):  # noqa: A002
    """('inf' | '-inf' | 'zero' | 'one' | 'two' | 'p', 1 / p) for a vector norm's ord."""
    if isinstance(ord, bool) or not isinstance(ord, (int, float)):
        raise ValueError(f"For '{name}', a vector norm's ord must be a number, but got "
                         f"{ord!r}.")
    if ord == math.inf:
        return "inf", 0.0
    if ord == -math.inf:
        return "-inf", 0.0
    if ord == 0:
        return "zero", 0.0
    if ord == 1:
        return "one", 1.0
    if ord == 2:
        return "two", 0.5
    return "p", 1.0 / ord


@constexpr
def _matrix_plan(ord, dim, ndim, name):  # noqa: A002
    """(kind, row axis, column axis) of a matrix norm, axes non-negative."""
    if not isinstance(dim, (tuple, list)) or len(dim) != 2:
        raise ValueError(f"For '{name}', dim must be a tuple of two ints, but got {dim!r}.")
    r, c = (d + ndim if d < 0 else d for d in dim)
    if not (0 <= r < ndim and 0 <= c < ndim) or r == c:
        raise ValueError(f"For '{name}', dim {tuple(dim)} is invalid for a {ndim}-D input.")
    if ord == "fro":
        return "fro", r, c
    if ord in (2, -2, "nuc"):
        raise ValueError(f"For '{name}', ord={ord!r} (a norm of singular values) is not "
                         f"supported: mycel has no singular value decomposition yet; ord "
                         f"'fro', 1, -1, inf and -inf are.")
    if isinstance(ord, bool) or ord not in (1, -1, math.inf, -math.inf):
        raise ValueError(f"For '{name}', a matrix norm's ord must be 'fro', 'nuc', 1, -1, 2, "
                         f"-2, inf or -inf, but got {ord!r}.")
    kinds = {1: "one", -1: "-one", math.inf: "inf", -math.inf: "-inf"}
    return kinds[ord], r, c


@constexpr
def _norm_plan(ord, dim, ndim):  # noqa: A002
    """'vector' or 'matrix', the ord and the dims ops.norm applies."""
    if dim is None:
        if ord is None:
            return "vector", 2, None
        if ndim == 1:
            return "vector", ord, None
        if ndim == 2:
            return "matrix", ord, (-2, -1)
        raise ValueError(f"For 'norm', an input of {ndim} dims needs dim when ord is given.")
    if isinstance(dim, int) or (isinstance(dim, (tuple, list)) and len(dim) == 1):
        d = dim if isinstance(dim, int) else dim[0]
        return "vector", 2 if ord is None else ord, d
    if isinstance(dim, (tuple, list)) and len(dim) == 2:
        return "matrix", "fro" if ord is None else ord, tuple(dim)
    raise ValueError(f"For 'norm', dim must be None, an int or a tuple of one or two ints, "
                     f"but got {dim!r}.")


def _as_float(x, dtype):
    if dtype is not None:
        return x.astype(dtype)
    return x if x.dtype in _FLOATS else x.astype(_C.float32)


def vector_norm(x, ord=2, axis=None, keepdims=False, *, dtype=None):  # noqa: A002
    """The ord-norm of x over axis (None: all elements; an int or a tuple of ints)."""
    dim, keepdim = axis, keepdims
    kind, inv = _vector_kind(ord, "vector_norm")
    x = _as_float(x, dtype)
    if kind == "two":
        return _m.sqrt(_m.sum(_m.square(x), dim, keepdim))
    a = _m.abs(x)
    if kind == "inf":
        return _m.amax(a, dim, keepdim)
    if kind == "-inf":
        return _m.amin(a, dim, keepdim)
    if kind == "zero":
        return _m.sum(_m.not_equal(a, 0).astype(x.dtype), dim, keepdim)
    if kind == "one":
        return _m.sum(a, dim, keepdim)
    return _m.pow(_m.sum(_m.pow(a, ord), dim, keepdim), inv)


def matrix_norm(A, ord="fro", axis=(-2, -1), keepdims=False, *, dtype=None):  # noqa: A002,N803
    """The ord-norm of the matrices of A over axis (rows, columns)."""
    dim, keepdim = axis, keepdims
    kind, r, c = _matrix_plan(ord, dim, A.ndim, "matrix_norm")
    A = _as_float(A, dtype)
    if kind == "fro":
        return _m.sqrt(_m.sum(_m.square(A), (r, c), keepdim))
    a = _m.abs(A)
    # 1 / -1: sums over the rows (one per column), then the extreme column; inf: the reverse.
    summed, picked = (r, c) if kind in ("one", "-one") else (c, r)
    s = _m.sum(a, summed, True)
    out = _m.amax(s, picked, True) if kind in ("one", "inf") else _m.amin(s, picked, True)
    return out if keepdim else _a.squeeze(out, (r, c))


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002,N803
    """MindSpore's ops.norm: with dim None and ord None the 2-norm of all elements; with ord
    and no dim, a vector norm of a 1-D input or a matrix norm of a 2-D one; dim an int (or a
    tuple of one) a vector norm, a pair of ints a matrix norm (ord None: 2 and 'fro')."""
    what, o, d = _norm_plan(ord, dim, A.ndim)
    if what == "vector":
        return vector_norm(A, o, d, keepdim, dtype=dtype)
    return matrix_norm(A, o, d, keepdim, dtype=dtype)


def _t(x, op, name="input"):
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {type(x).__name__}.")
    return x


def rms_norm(x, gamma, epsilon=1e-6):
    """(x / sqrt(mean(x^2 over gamma's trailing dims) + epsilon) * gamma, rstd)."""
    x, g = _t(x, "rms_norm", "x"), _t(gamma, "rms_norm", "gamma")
    number_arg(epsilon, "rms_norm", "epsilon")
    axes = _trailing_axes(x.ndim, g.ndim)
    ms = prim("ReduceMean", keep_dims=True)(prim("Square")(x), axes)
    rstd = prim("Rsqrt")(ms + epsilon)
    return x * rstd * g, rstd


@constexpr
def _trailing_axes(nd, k):
    if k > nd or k < 1:
        raise ValueError(f"For 'rms_norm', gamma's rank {k} must be between 1 and x's {nd}.")
    return tuple(range(nd - k, nd))
