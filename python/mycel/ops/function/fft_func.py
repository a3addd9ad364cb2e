"""The discrete Fourier transforms (MindSpore 2.x's ``ops.fft``, ``ops.ifft``, ``ops.fft2``,
``ops.ifft2``, ``ops.fftn``, ``ops.ifftn``, ``ops.rfft``, ``ops.irfft``, ``ops.rfft2``,
``ops.irfft2``, ``ops.rfftn``, ``ops.irfftn``, ``ops.hfft``, ``ops.ihfft``, ``ops.hfft2``,
``ops.ihfft2``, ``ops.hfftn``, ``ops.ihfftn``, ``ops.fftshift``, ``ops.ifftshift``,
``ops.fftfreq``, ``ops.rfftfreq``).

Every transform is the op table's FFTN (ops/defs/linalg.def): its `axes`, the lengths `sizes`
each line is zero-padded or truncated to first (numpy's `n` / `s`), `inverse`, `norm` and
`mode` ("c2c", "r2c" or "c2r"). numpy's and PyTorch's meanings throughout: norm "backward"
(the default, None) scales the inverse transforms by 1/n, "forward" the forward ones, "ortho"
both by 1/sqrt(n). The hfft family maps onto the op directly: hfft is the c2r transform in
the forward direction, ihfft the r2c transform in the inverse one.

Dtypes, as MindSpore's: float32 and complex64 give complex64; float64 and complex128 give
complex128 (the real-output transforms, irfft and hfft, the part dtype); integer, float16 and
bfloat16 inputs are computed in float32; bool is a TypeError. The gradients (PyTorch's
convention for complex cotangents) and the vmap rule are the op's (compiler/ad/bprop_fft.cc,
compiler/vmap/batch_nn.cc).
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor, one_int
from mycel.ops.function import layout_func as _layout
from mycel.ops.primitive import constexpr

_COMPLEX = (_C.complex64, _C.complex128)
_REAL = (_C.float32, _C.float64)
_NORMS = ("backward", "forward", "ortho")


@constexpr
def _input_kind(dtype, op, real_only):
    """'keep' for float32/float64/complex (complex refused when real_only), 'cast' for the
    dtypes computed in float32; bool and others are a TypeError."""
    if dtype in _REAL:
        return "keep"
    if dtype in _COMPLEX:
        if real_only:
            raise TypeError(f"For '{op}', the input must be a real tensor, but got {dtype}.")
        return "keep"
    if dtype not in (_C.float16, _C.bfloat16, _C.int8, _C.int16, _C.int32, _C.int64, _C.uint8):
        raise TypeError(f"For '{op}', the input must be an int16, int32, int64, float16, float32, "
                        f"float64, complex64 or complex128 tensor, but got {dtype}.")
    return "cast"


def _prep(input, op, real_only=False):  # noqa: A002
    x = as_tensor(input)
    if _input_kind(x.dtype, op, real_only) == "cast":
        x = prim("Cast", dtype=_C.float32)(x)
    return x


@constexpr
def _norm(norm, op):
    if norm is None:
        return "backward"
    if norm not in _NORMS:
        raise ValueError(f"For '{op}', norm must be one of 'backward', 'forward', 'ortho' or "
                         f"None, but got {norm!r}.")
    return norm


def _int_tuple(v, what, op):
    # ints, or one-element integer tensors: int() of a float tensor truncated n = 1.5 to 1
    # silently (found by tests/python/test_bad_input_sweep.py)
    if isinstance(v, _C.Tensor):
        v = v.asnumpy().reshape(-1).tolist() if v.dtype in _INT_DTYPES else (v,)
    try:
        items = tuple(v)
    except TypeError:
        raise TypeError(f"For '{op}', {what} must be a tuple of ints, but got {v!r}.") from None
    out = ()
    for e in items:
        e = one_int(e, op, what)
        if isinstance(e, bool) or not isinstance(e, (int, np.integer)):
            raise TypeError(f"For '{op}', {what} must be a tuple of ints, but got {v!r}.")
        out = out + (int(e),)
    return out


_INT_DTYPES = (_C.int8, _C.int16, _C.int32, _C.int64, _C.uint8)


@constexpr
def _plan(shape, s, dim, op, mode, default_all):
    """(axes, sizes): the normalised, checked dims and the transform length per dim.
    mode "c2r": the default length of the last dim is 2 * (m - 1) of its m input bins."""
    rank = len(shape)
    if dim is not None and isinstance(dim, int):
        dim = (dim,)
    if s is not None and isinstance(s, int):
        s = (s,)
    if dim is None:
        if s is None:
            if not default_all:
                raise ValueError(f"For '{op}', dim must be given.")
            dim = tuple(range(rank))
        else:
            s = _int_tuple(s, "s", op)
            if len(s) > rank:
                raise ValueError(f"For '{op}', s has {len(s)} entries but the input has rank "
                                 f"{rank}.")
            dim = tuple(range(rank - len(s), rank))
    dim = _int_tuple(dim, "dim", op)
    if not dim:
        raise ValueError(f"For '{op}', dim must not be empty.")
    axes = []
    for d in dim:
        if not -rank <= d < rank:
            raise ValueError(f"For '{op}', dim {d} is out of range [{-rank}, {rank}) for an input "
                             f"of shape {tuple(shape)}.")
        a = d + rank if d < 0 else d
        if a in axes:
            raise ValueError(f"For '{op}', dim {d} appears twice in dim {dim}.")
        axes.append(a)
    if s is None:
        sizes = [shape[a] for a in axes]
        if mode == "c2r":
            sizes[-1] = 2 * (shape[axes[-1]] - 1)
    else:
        s = _int_tuple(s, "s", op)
        if len(s) != len(axes):
            raise ValueError(f"For '{op}', s has {len(s)} entries but dim has {len(axes)}.")
        sizes = [shape[a] if n == -1 else n for a, n in zip(axes, s)]
        if mode == "c2r" and s[-1] == -1:
            sizes[-1] = 2 * (shape[axes[-1]] - 1)
    for a, n in zip(axes, sizes):
        if n < 1:
            raise ValueError(f"For '{op}', the transform length along dim {a} must be at least 1, "
                             f"but got {n} (input shape {tuple(shape)}).")
    return tuple(axes), tuple(sizes)


def _transform(input, s, dim, norm, op, mode, inverse, default_all):  # noqa: A002
    x = _prep(input, op, real_only=mode == "r2c")
    axes, sizes = _plan(x.shape, s, dim, op, mode, default_all)
    return prim("FFTN", axes=axes, sizes=sizes, inverse=inverse, norm=_norm(norm, op),
                mode=mode)(x)


# ---- complex transforms -----------------------------------------------------------------

def fft(input, n=None, dim=-1, norm=None):  # noqa: A002
    """The 1-d discrete Fourier transform along dim, each line zero-padded or truncated to n
    (default: its length) first."""
    return _transform(input, None if n is None else (n,), dim, norm, "fft", "c2c", False, False)


def ifft(input, n=None, dim=-1, norm=None):  # noqa: A002
    """The inverse of fft (scaled by 1/n for norm "backward")."""
    return _transform(input, None if n is None else (n,), dim, norm, "ifft", "c2c", True, False)


def fft2(input, s=None, dim=(-2, -1), norm=None):  # noqa: A002
    """The 2-d transform over dim, each dim[i] padded or truncated to s[i] first."""
    return _transform(input, s, dim, norm, "fft2", "c2c", False, False)


def ifft2(input, s=None, dim=(-2, -1), norm=None):  # noqa: A002
    """The inverse of fft2."""
    return _transform(input, s, dim, norm, "ifft2", "c2c", True, False)


def fftn(input, s=None, dim=None, norm=None):  # noqa: A002
    """The N-d transform over dim (default: the last len(s) dims if s is given, else all)."""
    return _transform(input, s, dim, norm, "fftn", "c2c", False, True)


def ifftn(input, s=None, dim=None, norm=None):  # noqa: A002
    """The inverse of fftn."""
    return _transform(input, s, dim, norm, "ifftn", "c2c", True, True)


# ---- real input, half spectrum out (and back) --------------------------------------------

def rfft(input, n=None, dim=-1, norm=None):  # noqa: A002
    """The transform of a real input: the n // 2 + 1 non-negative frequency bins."""
    return _transform(input, None if n is None else (n,), dim, norm, "rfft", "r2c", False, False)


def irfft(input, n=None, dim=-1, norm=None):  # noqa: A002
    """The inverse of rfft: a half spectrum to a real signal of length n (default 2 * (m - 1)
    for m bins; the imaginary parts of the DC and Nyquist bins are ignored)."""
    return _transform(input, None if n is None else (n,), dim, norm, "irfft", "c2r", True, False)


def rfft2(input, s=None, dim=(-2, -1), norm=None):  # noqa: A002
    """rfftn over two dims."""
    return _transform(input, s, dim, norm, "rfft2", "r2c", False, False)


def irfft2(input, s=None, dim=(-2, -1), norm=None):  # noqa: A002
    """irfftn over two dims."""
    return _transform(input, s, dim, norm, "irfft2", "c2r", True, False)


def rfftn(input, s=None, dim=None, norm=None):  # noqa: A002
    """The N-d transform of a real input, the last dim of dim keeping s[-1] // 2 + 1 bins."""
    return _transform(input, s, dim, norm, "rfftn", "r2c", False, True)


def irfftn(input, s=None, dim=None, norm=None):  # noqa: A002
    """The inverse of rfftn: real output, the last dim of length s[-1] (default 2 * (m - 1))."""
    return _transform(input, s, dim, norm, "irfftn", "c2r", True, True)


# ---- Hermitian input (hfft) and its inverse -----------------------------------------------

def hfft(input, n=None, dim=-1, norm=None):  # noqa: A002
    """The transform of a signal with Hermitian symmetry given by its first half: a real
    result of length n (default 2 * (m - 1))."""
    return _transform(input, None if n is None else (n,), dim, norm, "hfft", "c2r", False, False)


def ihfft(input, n=None, dim=-1, norm=None):  # noqa: A002
    """The inverse of hfft: the n // 2 + 1 bins of the inverse transform of a real input."""
    return _transform(input, None if n is None else (n,), dim, norm, "ihfft", "r2c", True, False)


def hfft2(input, s=None, dim=(-2, -1), norm=None):  # noqa: A002
    """hfftn over two dims."""
    return _transform(input, s, dim, norm, "hfft2", "c2r", False, False)


def ihfft2(input, s=None, dim=(-2, -1), norm=None):  # noqa: A002
    """ihfftn over two dims."""
    return _transform(input, s, dim, norm, "ihfft2", "r2c", True, False)


def hfftn(input, s=None, dim=None, norm=None):  # noqa: A002
    """The N-d hfft: the last dim of dim holds a half spectrum; real output."""
    return _transform(input, s, dim, norm, "hfftn", "c2r", False, True)


def ihfftn(input, s=None, dim=None, norm=None):  # noqa: A002
    """The inverse of hfftn on a real input."""
    return _transform(input, s, dim, norm, "ihfftn", "r2c", True, True)


# ---- helpers ---------------------------------------------------------------------------

@constexpr
def _shift_plan(shape, dim, op, inverse):
    rank = len(shape)
    if dim is None:
        dim = tuple(range(rank))
    elif isinstance(dim, int):
        dim = (dim,)
    dim = _int_tuple(dim, "dim", op)
    for d in dim:
        if not -rank <= d < rank:
            raise ValueError(f"For '{op}', dim {d} is out of range [{-rank}, {rank}) for an input "
                             f"of shape {tuple(shape)}.")
    dim = tuple(d + rank if d < 0 else d for d in dim)
    shifts = tuple(-(shape[d] // 2) if inverse else shape[d] // 2 for d in dim)
    return shifts, dim


def fftshift(input, dim=None):  # noqa: A002
    """The zero-frequency bin moved to the centre: a roll by n // 2 along each dim (default
    all)."""
    x = as_tensor(input)
    if x.ndim == 0:
        return x
    shifts, dims = _shift_plan(x.shape, dim, "fftshift", False)
    return _layout.roll(x, shifts, dims)


def ifftshift(input, dim=None):  # noqa: A002
    """The inverse of fftshift: a roll by -(n // 2) along each dim (default all)."""
    x = as_tensor(input)
    if x.ndim == 0:
        return x
    shifts, dims = _shift_plan(x.shape, dim, "ifftshift", True)
    return _layout.roll(x, shifts, dims)


def _freq_dtype(dtype, op):
    if dtype is None:
        return _C.float32
    if not dtype.is_floating_point:
        raise TypeError(f"For '{op}', dtype must be a floating-point dtype, but got {dtype}.")
    return dtype


def _check_n(n, op):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"For '{op}', n must be an int, but got {type(n).__name__}.")
    if n < 1:
        raise ValueError(f"For '{op}', n must be at least 1, but got {n}.")


def fftfreq(n, d=1.0, dtype=None):
    """The sample frequencies of an n-point fft, [0, 1, ..., -2, -1] / (d * n)."""
    _check_n(n, "fftfreq")
    t = _freq_dtype(dtype, "fftfreq")
    k = np.concatenate([np.arange(0, (n - 1) // 2 + 1), np.arange(-(n // 2), 0)])
    return prim("Cast", dtype=t)(_C.Tensor(k.astype(np.float64) / (float(d) * n)))


def rfftfreq(n, d=1.0, dtype=None):
    """The sample frequencies of an n-point rfft, [0, 1, ..., n // 2] / (d * n)."""
    _check_n(n, "rfftfreq")
    t = _freq_dtype(dtype, "rfftfreq")
    k = np.arange(0, n // 2 + 1)
    return prim("Cast", dtype=t)(_C.Tensor(k.astype(np.float64) / (float(d) * n)))


__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
           "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftshift",
           "ifftshift", "fftfreq", "rfftfreq"]
