"""``ops.matrix_diag_part`` (MindSpore's MatrixDiagPartV3): diagonals of the last two dims,
composed from op-table primitives.

For x [..., M, N] and k = d or (k0, k1) with -M < k0 <= k1 < N, diagonal d holds x[i, i + d]
(length min(M + min(d, 0), N - max(d, 0))). The result is [..., max_len] for one diagonal and
[..., k1 - k0 + 1, max_len] for a band, the diagonals from k1 down to k0, each padded with
padding_value to the longest one's length: `align` "A_B" puts superdiagonals at A ("LEFT":
padding after, "RIGHT": before) and subdiagonals at B; the main diagonal is left-aligned if
either is "LEFT". The positions are a table made from the static shape and k (so k must be
known when the op is traced: any value in PYNATIVE mode, a constant in GRAPH mode); the
result is a Gather of x's flattened matrices and a Select for the padding, differentiable
through both.
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim
from mycel.ops.primitive import constexpr

_ALIGNS = ("LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT")


@constexpr
def _k_pair(k, m, n, op="MatrixDiagPartV3"):
    if isinstance(k, _C.Tensor):
        if k.dtype not in (_C.int32, _C.int64):
            raise TypeError(f"For '{op}', 'k' must be int32 or int64, but got "
                            f"{k.dtype}.")
        vals = [int(v) for v in k.asnumpy().reshape(-1)]
    elif isinstance(k, (tuple, list)):
        vals = [int(v) for v in k]
    else:
        vals = [int(k)]
    if len(vals) not in (1, 2):
        raise ValueError(f"For '{op}', 'k' must have 1 or 2 elements, but got "
                         f"{len(vals)}.")
    k0, k1 = vals[0], vals[-1]
    if k0 > k1:
        raise ValueError(f"For '{op}', k[0] ({k0}) must not exceed k[1] ({k1}).")
    if not (-m < k0 and k1 < n) and m > 0 and n > 0:
        raise ValueError(f"For '{op}', the diagonals k must be in (-{m}, {n}) for "
                         f"matrices of shape ({m}, {n}), but got ({k0}, {k1}).")
    return k0, k1


@constexpr
def _scalar(v, dtype):
    return _C.Tensor(np.array(v, np.float64)).astype(dtype)


@constexpr
def _table(m, n, k0, k1, align):
    """(flat positions [D * L] int64, valid [D * L] bool, D, L)."""
    sup_left = align in ("LEFT_RIGHT", "LEFT_LEFT")
    sub_left = align in ("RIGHT_LEFT", "LEFT_LEFT")
    lens = {d: min(m + min(d, 0), n - max(d, 0)) for d in range(k0, k1 + 1)}
    width = max(lens.values())
    pos, valid = [], []
    for d in range(k1, k0 - 1, -1):
        length = lens[d]
        left = (d >= 0 and sup_left) or (d <= 0 and sub_left)
        offset = 0 if left else width - length
        for j in range(width):
            i = j - offset
            ok = 0 <= i < length
            r, c = (i + max(-d, 0), i + max(d, 0)) if ok else (0, 0)
            pos.append(r * n + c)
            valid.append(ok)
    return (_C.Tensor(np.array(pos, np.int64)), _C.Tensor(np.array(valid, np.bool_)),
            k1 - k0 + 1, width)


def matrix_diag_part(x, k=0, padding_value=0, align="RIGHT_LEFT"):
    """The diagonals k of x's matrices, padded with padding_value as `align` says (see the
    module's text)."""
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"For 'MatrixDiagPartV3', 'x' must be a Tensor, but got "
                        f"{type(x).__name__}.")
    if align not in _ALIGNS:
        raise ValueError(f"For 'MatrixDiagPartV3', 'align' must be one of {_ALIGNS}, but got "
                         f"{align!r}.")
    if len(x.shape) < 2:
        raise ValueError(f"For 'MatrixDiagPartV3', 'x' must have rank >= 2, but got shape "
                         f"{tuple(x.shape)}.")
    batch, m, n = tuple(x.shape[:-2]), x.shape[-2], x.shape[-1]
    k0, k1 = _k_pair(k, m, n)
    pos, valid, num, width = _table(m, n, k0, k1, align)
    flat = prim("Reshape")(x, batch + (m * n,))
    picked = prim("Gather")(flat, pos, len(batch))
    if isinstance(padding_value, _C.Tensor):
        if len(padding_value.shape) != 0:
            raise ValueError(f"For 'MatrixDiagPartV3', 'padding_value' must be a scalar, but "
                             f"got shape {tuple(padding_value.shape)}.")
        pv = prim("Cast")(padding_value, x.dtype)
    else:
        pv = _scalar(padding_value, x.dtype)
    pad = prim("BroadcastTo", shape=picked.shape)(pv)
    out = prim("Select")(prim("BroadcastTo", shape=picked.shape)(valid), picked, pad)
    if k0 == k1:
        return prim("Reshape")(out, batch + (width,))
    return prim("Reshape")(out, batch + (num, width))


@constexpr
def _int_value(v, name):
    if isinstance(v, _C.Tensor):
        if v.dtype not in (_C.int32, _C.int64) or v.size != 1:
            raise TypeError(f"For 'MatrixDiagV3', '{name}' must be an int32/int64 scalar, but got "
                            f"{v.dtype} of shape {tuple(v.shape)}.")
        return int(v.asnumpy().reshape(-1)[0])
    return int(v)


@constexpr
def _diag_plan(diag_shape, k0, k1, num_rows, num_cols, align):
    """(rows, cols, source table [rows * cols] into the flattened diagonals, the padding at
    index D * L): the inverse of _table."""
    width = diag_shape[-1]
    num = k1 - k0 + 1
    if num > 1 and (len(diag_shape) < 2 or diag_shape[-2] != num):
        raise ValueError(f"For 'MatrixDiagV3', the diagonals must have shape [..., {num}, L] for "
                         f"k = ({k0}, {k1}), but got {tuple(diag_shape)}.")
    min_rows, min_cols = width - min(k1, 0), width + max(k0, 0)
    if num_rows == -1 and num_cols == -1:
        num_rows = num_cols = max(min_rows, min_cols)
    elif num_rows == -1:
        num_rows = min_rows
    elif num_cols == -1:
        num_cols = min_cols
    if num_rows < min_rows or num_cols < min_cols or not (num_rows == min_rows or
                                                          num_cols == min_cols):
        raise ValueError(f"For 'MatrixDiagV3', num_rows and num_cols ({num_rows}, {num_cols}) do "
                         f"not fit diagonals of length {width} for k = ({k0}, {k1}).")
    sup_left = align in ("LEFT_RIGHT", "LEFT_LEFT")
    sub_left = align in ("RIGHT_LEFT", "LEFT_LEFT")
    src = np.full(num_rows * num_cols, num * width, np.int64)
    for r in range(num_rows):
        for c in range(num_cols):
            d = c - r
            if not k0 <= d <= k1:
                continue
            length = min(num_rows + min(d, 0), num_cols - max(d, 0))
            left = (d >= 0 and sup_left) or (d <= 0 and sub_left)
            j = min(r, c) + (0 if left else width - length)
            src[r * num_cols + c] = (k1 - d) * width + j
    return num_rows, num_cols, _C.Tensor(src)


def matrix_diag(x, k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """MindSpore's MatrixDiagV3: matrices [..., num_rows, num_cols] with the diagonals k of x
    (the inverse of matrix_diag_part) and padding_value elsewhere; num_rows / num_cols -1 take
    the smallest size that holds the diagonals (k and the sizes known when traced)."""
    if align not in _ALIGNS:
        raise ValueError(f"For 'MatrixDiagV3', 'align' must be one of {_ALIGNS}, but got "
                         f"{align!r}.")
    k0, k1 = _k_pair(k, 1 << 30, 1 << 30, "MatrixDiagV3")
    rows = _int_value(num_rows, "num_rows")
    cols = _int_value(num_cols, "num_cols")
    m, n, src = _diag_plan(tuple(x.shape), k0, k1, rows, cols, align)
    batch = tuple(x.shape[:-1]) if k0 == k1 else tuple(x.shape[:-2])
    flat = prim("Reshape")(x, batch + (-1,))
    if isinstance(padding_value, _C.Tensor):
        pv = prim("Cast")(prim("Reshape")(padding_value, ()), x.dtype)
    else:
        pv = _scalar(padding_value, x.dtype)
    pad = prim("BroadcastTo", shape=batch + (1,))(pv)
    flat = prim("Concat", axis=len(batch))((flat, pad))
    out = prim("Gather")(flat, src, len(batch))
    return prim("Reshape")(out, batch + (m, n))


__all__ = ["matrix_diag_part", "matrix_diag"]
