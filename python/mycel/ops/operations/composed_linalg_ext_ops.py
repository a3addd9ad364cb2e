"""Primitives of MindSpore's ops test table composed from the functional forms (both modes;
attributes in ``__init__``, inputs in ``__call__``, as MindSpore's):

- linear algebra (ops/function/linalg_ext_func.py): SelfAdjointEig, MatrixLogarithm,
  MatrixSolveLs, Lstsq, TridiagonalSolve, NuclearNorm;
- Betainc (ops/function/betainc_func.py) and STFT (ops/function/stft_func.py, torch.stft
  with center=False, as MindSpore's primitive);
- RaggedRange, ScatterAddWithAxis, ConcatOffsetV1, Diagonal (array primitives; Diagonal is
  MindSpore's ``auto_generate.Diagonal``, ops.diagonal).

RaggedRange's output length depends on the input values, and no table op makes a tensor of
a length computed at run time, so it runs on the host: an ordinary Python call in PYNATIVE
mode; in GRAPH mode the JIT fallback (with its warning): its results can be returned from
the graph, but a graph op applied to them is a TypeError naming the fallback value.
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.primitive import constexpr
from mycel.ops.function._util import prim
from mycel.ops.function import linalg_ext_func as _lx
from mycel.ops.function.betainc_func import betainc as _betainc
from mycel.ops.function.stft_func import stft as _stft
from mycel.ops.function.index_add_func import tensor_scatter_elements as _scatter_elements
from mycel.ops.function.array_ext_func import diagonal as _diagonal
from mycel.ops.operations._compat_checks import _check_bool, _check_tensors
from mycel.ops.operations.composed_ops import _Composed, _exporter

__all__ = []
_export = _exporter(__all__, globals())


@_export
class SelfAdjointEig(_Composed):
    """SelfAdjointEig(compute_v=True)(x): (eigenvalues ascending, eigenvectors as columns) of
    the symmetric / Hermitian matrices given by the lower triangle of x [..., N, N]
    (float32/float64/complex64/complex128; cyclic Jacobi, linalg_ext_func)."""

    def __init__(self, compute_v=True):
        _check_bool("SelfAdjointEig", "compute_v", compute_v)
        super().__init__(compute_v=compute_v)
        self.compute_v = compute_v

    def __call__(self, x):
        return _lx.self_adjoint_eig(x, self.compute_v)


@_export
class MatrixLogarithm(_Composed):
    """MatrixLogarithm()(x): the principal logarithm of each square matrix of x [..., N, N]
    (complex64/complex128): through its eigendecomposition, or inverse scaling and squaring
    for a defective matrix; NaN where neither can be trusted (linalg_ext_func)."""

    def __init__(self):
        super().__init__()

    def __call__(self, x):
        return _lx.matrix_logarithm(x)


@_export
class MatrixSolveLs(_Composed):
    """MatrixSolveLs(fast=True)(matrix, rhs, l2): the least-squares solution [..., N, K] of
    matrix [..., M, N] X = rhs [..., M, K] (float32/float64/complex64/complex128); fast:
    Cholesky of the normal equations regularised by the scalar l2; otherwise the
    minimum-norm solution by SVD (l2 ignored)."""

    def __init__(self, fast=True):
        _check_bool("MatrixSolveLs", "fast", fast)
        super().__init__(fast=fast)
        self.fast = fast

    def __call__(self, matrix, rhs, l2):
        return _lx.matrix_solve_ls(matrix, rhs, l2, self.fast)


@_export
class Lstsq(_Composed):
    """Lstsq(fast=True, l2_regularizer=0.0)(x, a): the least-squares (M >= N) or minimum-norm
    (M < N) solution [N, K] of x [M, N] y = a [M, K] (float16/float32/float64; ops.lstsq)."""

    def __init__(self, fast=True, l2_regularizer=0.0):
        _check_bool("Lstsq", "fast", fast)
        if isinstance(l2_regularizer, bool) or not isinstance(l2_regularizer, (int, float)):
            raise TypeError(f"For 'Lstsq', 'l2_regularizer' must be a float, but got "
                            f"{type(l2_regularizer).__name__}.")
        super().__init__(fast=fast, l2_regularizer=float(l2_regularizer))
        self.fast, self.l2_regularizer = fast, float(l2_regularizer)

    def __call__(self, x, a):
        return _lx.lstsq(x, a, self.l2_regularizer, self.fast)


@_export
class TridiagonalSolve(_Composed):
    """TridiagonalSolve(partial_pivoting=True)(diagonals [..., 3, M], rhs [..., M, K]): X
    with T X = rhs, T's superdiagonal, diagonal and subdiagonal the rows of diagonals."""

    def __init__(self, partial_pivoting=True):
        _check_bool("TridiagonalSolve", "partial_pivoting", partial_pivoting)
        super().__init__(partial_pivoting=partial_pivoting)
        self.partial_pivoting = partial_pivoting

    def __call__(self, diagonals, rhs):
        return _lx.tridiagonal_solve(diagonals, rhs, self.partial_pivoting)


@_export
class NuclearNorm(_Composed):
    """NuclearNorm(dim=None, keepdim=False)(x): the sum of the singular values of x's
    matrices over the two dimensions dim (those of a 2-D x when None)."""

    def __init__(self, dim=None, keepdim=False):
        _check_bool("NuclearNorm", "keepdim", keepdim)
        if dim is not None:
            if not isinstance(dim, (list, tuple)):
                raise TypeError(f"For 'NuclearNorm', 'dim' must be a list or tuple of two "
                                f"ints, but got {type(dim).__name__}.")
            dim = tuple(dim)
        super().__init__(dim=dim, keepdim=keepdim)
        self.dim, self.keepdim = dim, keepdim

    def __call__(self, x):
        return _lx.nuclear_norm(x, self.dim, self.keepdim)


@_export
class Betainc(_Composed):
    """Betainc()(a, b, x): the regularized incomplete beta function I_x(a, b) (float32 /
    float64 of one shape; gradient with respect to x only, as MindSpore's)."""

    def __init__(self):
        super().__init__()

    def __call__(self, a, b, x):
        return _betainc(a, b, x)


@_export
class STFT(_Composed):
    """STFT(n_fft, hop_length, win_length, normalized, onesided, return_complex)(x, window):
    torch.stft of x [L] or [B, L] without center padding; window [win_length] (centered in
    n_fft). [..., n_freq, n_frames] complex, or a last axis of 2 (real, imaginary) when not
    return_complex."""

    def __init__(self, n_fft, hop_length, win_length, normalized, onesided, return_complex):
        for name, v in (("normalized", normalized), ("onesided", onesided),
                        ("return_complex", return_complex)):
            _check_bool("STFT", name, v)
        super().__init__(n_fft=n_fft, hop_length=hop_length, win_length=win_length,
                         normalized=normalized, onesided=onesided,
                         return_complex=return_complex)
        self.n_fft, self.hop_length, self.win_length = n_fft, hop_length, win_length
        self.normalized, self.onesided = normalized, onesided
        self.return_complex = return_complex

    def __call__(self, x, window):
        return _stft(x, self.n_fft, self.hop_length, self.win_length, window, False,
                     "constant", self.normalized, self.onesided, self.return_complex)


# ---- RaggedRange ---------------------------------------------------------------------------

_RR_DTYPES = ("Int32", "Int64", "Float32", "Float64")


@constexpr
def _rr_check(ds, dl, dd):
    if str(ds) not in _RR_DTYPES or dl != ds or dd != ds:
        raise TypeError(f"For 'RaggedRange', starts, limits and deltas must be int32, int64, "
                        f"float32 or float64 of one dtype, but got {ds}, {dl} and {dd}.")


def _rr_sizes(s, l, d):
    """(starts, deltas) as 1-D and each range's length, on the host."""
    if max(s.ndim, l.ndim, d.ndim) > 1:
        raise ValueError(f"For 'RaggedRange', starts, limits and deltas must be 0-D or 1-D, "
                         f"but got shapes {s.shape}, {l.shape} and {d.shape}.")
    if not s.shape == l.shape == d.shape:
        raise ValueError(f"For 'RaggedRange', starts, limits and deltas must have one shape "
                         f"(as MindSpore's; TensorFlow broadcasts scalars), but got shapes "
                         f"{s.shape}, {l.shape} and {d.shape}.")
    s, l, d = np.atleast_1d(s), np.atleast_1d(l), np.atleast_1d(d)
    if np.any(d == 0):
        raise ValueError("For 'RaggedRange', every delta must be nonzero.")
    if np.issubdtype(s.dtype, np.integer):
        # exact integer ceil((l - s) / d)
        span = l.astype(np.int64) - s.astype(np.int64)
        step = d.astype(np.int64)
        sizes = -(-span // step)
    else:
        sizes = np.ceil((l.astype(np.float64) - s) / d).astype(np.int64)
    return s, d, np.maximum(sizes, 0)


@constexpr
def _rr_splits(starts, limits, deltas, tsplits):
    _, _, sizes = _rr_sizes(starts.asnumpy(), limits.asnumpy(), deltas.asnumpy())
    np_t = np.int64 if tsplits == _C.int64 else np.int32
    return _C.Tensor(np.concatenate([[0], np.cumsum(sizes)]).astype(np_t))


@constexpr
def _rr_values(starts, limits, deltas):
    s, d, sizes = _rr_sizes(starts.asnumpy(), limits.asnumpy(), deltas.asnumpy())
    parts = [s[i] + d[i] * np.arange(sizes[i], dtype=np.int64 if np.issubdtype(
        s.dtype, np.integer) else np.float64) for i in range(len(sizes))]
    vals = np.concatenate(parts) if parts else np.zeros(0)
    return _C.Tensor(vals.astype(starts.asnumpy().dtype))


@_export
class RaggedRange(_Composed):
    """RaggedRange(Tsplits)(starts, limits, deltas) -> (rt_nested_splits, rt_dense_values):
    the ranges [starts[i], limits[i]) by deltas[i] (0-D or 1-D inputs of one shape)
    concatenated, and the row splits (dtype Tsplits, int32 or int64) where each starts. Module docstring: host."""

    def __init__(self, Tsplits):  # noqa: N803 (MindSpore's argument name)
        if Tsplits not in (_C.int32, _C.int64):
            raise TypeError(f"For 'RaggedRange', 'Tsplits' must be int32 or int64, but got "
                            f"{Tsplits}.")
        super().__init__(Tsplits=Tsplits)
        self.Tsplits = Tsplits

    def __call__(self, starts, limits, deltas):
        _check_tensors("RaggedRange", ("starts", starts), ("limits", limits), ("deltas", deltas))
        _rr_check(starts.dtype, limits.dtype, deltas.dtype)
        return (_rr_splits(starts, limits, deltas, self.Tsplits),
                _rr_values(starts, limits, deltas))


# ---- ScatterAddWithAxis, ConcatOffsetV1 -----------------------------------------------------

@constexpr
def _scatter_axis_check(x_dtype, i_dtype, x_shape, i_shape, u_shape, axis):
    if i_dtype not in (_C.int32, _C.int64):
        raise TypeError(f"For 'ScatterAddWithAxis', 'indices' must be int32 or int64, but got "
                        f"{i_dtype}.")
    if len(i_shape) != len(x_shape) or tuple(u_shape) != tuple(i_shape):
        raise ValueError(f"For 'ScatterAddWithAxis', 'indices' must have input_x's rank and "
                         f"'updates' the shape of 'indices', but got shapes {tuple(x_shape)}, "
                         f"{tuple(i_shape)} and {tuple(u_shape)}.")
    if not -len(x_shape) <= axis < len(x_shape):
        raise ValueError(f"For 'ScatterAddWithAxis', 'axis' must be in [{-len(x_shape)}, "
                         f"{len(x_shape)}), but got {axis}.")


@_export
class ScatterAddWithAxis(_Composed):
    """ScatterAddWithAxis(axis=0)(input_x, indices, updates): input_x[..., indices[i, j],
    ...] += updates[i, j] along axis (repeated positions add up), written into the Parameter
    input_x in place; returns it."""

    def __init__(self, axis=0):
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"For 'ScatterAddWithAxis', 'axis' must be an int, but got "
                            f"{type(axis).__name__}.")
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, input_x, indices, updates):
        _check_tensors("ScatterAddWithAxis", ("input_x", input_x), ("indices", indices),
                       ("updates", updates))
        _scatter_axis_check(input_x.dtype, indices.dtype, input_x.shape, indices.shape,
                            updates.shape, self.axis)
        new = _scatter_elements(input_x, indices, updates, self.axis, "add")
        return prim("Assign")(input_x, new)


@constexpr
def _offset_v1_plan(dtypes, shapes, axis_dtype, axis_shape):
    if axis_dtype != _C.int32 or tuple(axis_shape) not in ((), (1,)):
        raise TypeError(f"For 'ConcatOffsetV1', 'axis' must be a 0-D int32 tensor, but got "
                        f"{axis_dtype} of shape {tuple(axis_shape)}.")
    if not shapes:
        raise ValueError("For 'ConcatOffsetV1', 'x' must hold at least one shape tensor.")
    rank = tuple(shapes[0])
    for i, (d, s) in enumerate(zip(dtypes, shapes)):
        if d != _C.int32 or len(s) != 1 or tuple(s) != rank:
            raise ValueError(f"For 'ConcatOffsetV1', every element of 'x' must be a 1-D int32 "
                             f"tensor of one length, but element {i} is {d} of shape "
                             f"{tuple(s)} (the first has shape {rank}).")
    return _C.Tensor(np.arange(rank[0], dtype=np.int32)), rank[0]


@_export
class ConcatOffsetV1(_Composed):
    """ConcatOffsetV1()(axis, x) -> tuple: where each tensor whose shape is x[i] (1-D int32)
    starts in their concatenation along axis (a 0-D int32 tensor, negative counting from
    the end): zeros except at axis, the sum of the earlier sizes there."""

    def __init__(self):
        super().__init__()

    def __call__(self, axis, x):
        _check_tensors("ConcatOffsetV1", ("axis", axis))
        if not isinstance(x, (tuple, list)):
            raise TypeError(f"For 'ConcatOffsetV1', 'x' must be a tuple or list of Tensors, "
                            f"but got {type(x).__name__}.")
        _check_tensors("ConcatOffsetV1", *(("x", t) for t in x))
        pos, rank = _offset_v1_plan(tuple(t.dtype for t in x), tuple(t.shape for t in x),
                                    axis.dtype, axis.shape)
        ax = prim("Reshape")(axis, ())
        ax = prim("Select")(prim("Less")(ax, 0), ax + rank, ax)
        onehot = prim("Cast")(prim("Equal")(pos, ax), _C.int32)
        start = prim("ZerosLike")(onehot)
        out = ()
        for t in x:
            out = out + (start,)
            start = start + t * onehot
        return out


@_export
class Diagonal(_Composed):
    """Diagonal(offset=0, dim1=0, dim2=1)(input): the diagonal of input over dim1 and dim2
    (offset above the main one when positive), as its last dimension (ops.diagonal)."""

    def __init__(self, offset=0, dim1=0, dim2=1):
        for name, v in (("offset", offset), ("dim1", dim1), ("dim2", dim2)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"For 'Diagonal', '{name}' must be an int, but got "
                                f"{type(v).__name__}.")
        super().__init__(offset=offset, dim1=dim1, dim2=dim2)
        self.offset, self.dim1, self.dim2 = offset, dim1, dim2

    def __call__(self, input):  # noqa: A002 (MindSpore's argument name)
        return _diagonal(input, self.offset, self.dim1, self.dim2)
