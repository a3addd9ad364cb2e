"""More of MindSpore 2.x's functions composed from op-table primitives: col2im, swiglu,
rms_norm, matrix_exp, the random choices multinomial_with_replacement and choice_with_mask,
partial, rotary_position_embedding and tensordump. (diagonal_scatter, random_categorical and
uniform_candidate_sampler, which wrap primitives, are in ops/operations/breadth_ext_ops.py;
conv3d and Conv3D are main's ops/function/conv3d_func.py.)

matrix_exp: scaling and squaring with a degree-18 Taylor polynomial (the matrix scaled so
its 1-norm is below 1/2: the truncation error is below 1e-20 relative), so float64
results agree with scipy's expm to ~1e-14 for moderate norms. The number of squarings is a
tensor and the squarings a loop on it, so it compiles in GRAPH mode; MatrixExp (math_ops)
is its primitive form.
"""
import math

import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, one_int, number_arg
from mycel.ops.function import array_func as _a
from mycel.ops.function import breadth_random_func as _br, breadth_nn_func as _bn
from mycel.ops.function.array_ext_func import narrow
from mycel.ops.primitive import constexpr
from mycel.ops.composite import stop_gradient

__all__ = ["col2im", "swiglu", "rms_norm", "matrix_exp",
           "multinomial_with_replacement", "choice_with_mask", "partial",
           "rotary_position_embedding", "tensordump"]


def _t(x, op, name="input"):
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {type(x).__name__}.")
    return x


def col2im(input_x, output_size, kernel_size, dilation, padding_value, stride):
    """Sums the sliding blocks of input_x (N, C, kh * kw, L) back into (N, C, H, W) (fold of
    (N, C * kh * kw, L)); output_size (H, W) as a tuple or a 1-D int tensor."""
    x = _t(input_x, "col2im", "input_x")
    if x.ndim != 4:
        raise ValueError(f"For 'col2im', input_x must be 4-D (N, C, kh * kw, L), but got shape "
                         f"{x.shape}.")
    size = _pair_of(output_size)
    folded = prim("Reshape")(x, (x.shape[0], x.shape[1] * x.shape[2], x.shape[3]))
    return _bn.fold(folded, size, kernel_size, dilation, padding_value, stride)


@constexpr
def _pair_of(v):
    if isinstance(v, _C.Tensor):
        v = v.asnumpy().reshape(-1).tolist()
    v = (v, v) if isinstance(v, int) else tuple(int(e) for e in v)
    if len(v) != 2:
        raise ValueError(f"For 'col2im', output_size must have 2 elements, but got {v!r}.")
    return v


def swiglu(input, dim=-1):  # noqa: A002
    """silu(a) * b, a and b the halves of input along dim."""
    x = _t(input, "swiglu")
    ax, h = _bn._half(x.shape, dim, "swiglu")
    return prim("SiLU")(narrow(x, ax, 0, h)) * narrow(x, ax, h, h)


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


_EXPM_TERMS = 18


@constexpr
def _expm_plan(shape, dtype):
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"For 'matrix_exp', the input must be [..., n, n], but got shape "
                         f"{tuple(shape)}.")
    if dtype not in (_C.float16, _C.float32, _C.float64):
        raise TypeError(f"For 'matrix_exp', the input must be a float tensor, but got {dtype}.")
    n = shape[-1]
    return _C.Tensor(np.eye(n)).astype(dtype), n


def matrix_exp(input):  # noqa: A002
    """exp(A) of square matrices [..., n, n] (scaling and squaring; module docstring). The
    number of squarings s is a tensor read from the largest 1-norm of the batch and the
    squarings a loop on it, so the same code runs in PYNATIVE and GRAPH mode (a tensor
    condition loop there) and is differentiated through."""
    a = _t(input, "matrix_exp")
    eye, n = _expm_plan(a.shape, a.dtype)
    if n == 0 or 0 in a.shape:
        return a * 1
    norm = prim("ReduceMax")(prim("ReduceSum")(prim("Abs")(a), (-2,)), ())
    # s = max(0, ceil(log2(2 * norm))): the scaled matrix has 1-norm <= 1/2.
    s = prim("Maximum")(prim("Ceil")(prim("Log")(norm * 2.0) * (1.0 / math.log(2.0))),
                        prim("ZerosLike")(norm))
    s = stop_gradient(s)
    b = a * prim("Pow")(prim("OnesLike")(s) * 2.0, -s)
    term = prim("BroadcastTo", shape=a.shape)(eye)
    total = term
    for k in range(1, _EXPM_TERMS + 1):
        term = prim("BatchMatMul")(term, b) * (1.0 / k)
        total = total + term
    i = prim("ZerosLike")(s)
    while i < s:
        total = prim("BatchMatMul")(total, total)
        i = i + 1.0
    return total


def multinomial_with_replacement(x, seed, offset, numsamples, replacement=False):
    """numsamples draws per row of the probabilities x (with or without replacement); seed
    and offset pick a deterministic stream (seed -1: the global generator)."""
    s = None if (isinstance(seed, int) and seed == -1) else _scalar_int(seed) * 65536 + \
        _scalar_int(offset)
    return _br.multinomial(x, numsamples, replacement, s)


def _scalar_int(v):
    v = one_int(v, "multinomial_with_replacement", "seed and offset")
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"For 'multinomial_with_replacement', seed and offset must be ints, "
                        f"but got {type(v).__name__}.")
    return v


def choice_with_mask(input_x, count=256, seed=0, seed2=0):
    """(index [count, rank] int32, mask [count] bool): up to count positions where input_x
    (bool) is True, in random order; rows past the number of True positions are zero with
    mask False."""
    x = _t(input_x, "choice_with_mask", "input_x")
    if x.dtype != _C.bool:
        raise TypeError(f"For 'choice_with_mask', input_x must be bool, but got {x.dtype}.")
    flat = prim("Reshape")(x, (-1,))
    total = flat.shape[0]
    k = min(int(count), total)
    s = None if seed == 0 and seed2 == 0 else int(seed) * 65536 + int(seed2)
    u = _br._uniform((total,), s)
    score = u + prim("Cast")(flat, _C.float32) * 2.0  # the True positions first
    vals, pos = prim("TopK", sorted=True)(score, k)
    mask = prim("GreaterEqual")(vals, 2.0)
    coords = _unravel(prim("Cast")(pos, _C.int64), x.shape)
    coords = prim("Select")(prim("BroadcastTo", shape=coords.shape)(prim("ExpandDims")(mask, -1)),
                            coords, prim("ZerosLike")(coords))
    if k < count:
        pad = count - k
        coords = _a.concat((coords, _a.zeros((pad, x.ndim), _C.int64)), 0)
        mask = _a.concat((mask, prim("Cast")(_a.zeros((pad,), _C.int32), _C.bool)), 0)
    return prim("Cast")(coords, _C.int32), mask


def _unravel(flat, shape):
    strides = _strides(tuple(shape))
    f = prim("ExpandDims")(flat, -1)
    return prim("FloorMod")(prim("FloorDiv")(f, strides[0]), strides[1])


@constexpr
def _strides(shape):
    st = np.cumprod((tuple(shape[1:]) + (1,))[::-1])[::-1].astype(np.int64)
    return _C.Tensor(np.ascontiguousarray(st)), _C.Tensor(np.array(shape, np.int64))


def partial(func, *args):
    """func with its first arguments bound (MindSpore's F.partial): partial(f, a)(b) is
    f(a, b). A plain closure rather than functools.partial, so GRAPH mode compiles it (with
    run-time arguments too; F.partial(fn, ...) mapped over parameters is how MindSpore's
    optimizers update them)."""
    def bound(*rest):
        return func(*args, *rest)
    return bound


def rotary_position_embedding(x, cos, sin, mode=0):
    """Rotary position embedding: x cos + rotate(x) sin, rotate(x) = (-x2, x1) of the last
    dimension's halves (mode 0) or of its interleaved pairs (mode 1)."""
    x = _t(x, "rotary_position_embedding", "x")
    d = x.shape[-1]
    if d % 2:
        raise ValueError(f"For 'rotary_position_embedding', the last dimension must be even, "
                         f"but got {d}.")
    nd = x.ndim
    if mode == 0:
        a, b = narrow(x, nd - 1, 0, d // 2), narrow(x, nd - 1, d // 2, d // 2)
        rot = _a.concat((-b, a), nd - 1)
    elif mode == 1:
        pairs = prim("Reshape")(x, tuple(x.shape[:-1]) + (d // 2, 2))
        a = narrow(pairs, nd, 0, 1)
        b = narrow(pairs, nd, 1, 1)
        rot = prim("Reshape")(_a.concat((-b, a), nd), x.shape)
    else:
        raise ValueError(f"For 'rotary_position_embedding', mode must be 0 or 1, but got "
                         f"{mode!r}.")
    return x * cos + rot * sin


def tensordump(file_name, tensor, mode="out"):
    """Saves tensor as a numpy .npy file (file_name with '.npy' appended when missing), as
    MindSpore's TensorDump does in PYNATIVE mode. mode ('out', 'in', 'all') is recorded by
    MindSpore for graph-mode dumps and accepted here."""
    if not isinstance(file_name, str) or not file_name:
        raise TypeError(f"For 'tensordump', file_name must be a non-empty str, but got "
                        f"{file_name!r}.")
    if mode not in ("out", "in", "all"):
        raise ValueError(f"For 'tensordump', mode must be 'out', 'in' or 'all', but got "
                         f"{mode!r}.")
    path = file_name if file_name.endswith(".npy") else file_name + ".npy"
    np.save(path, _t(tensor, "tensordump", "tensor").asnumpy())
