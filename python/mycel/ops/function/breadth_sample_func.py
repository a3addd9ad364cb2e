"""grid_sample, the LU helpers and the Householder products (orgqr, ormqr) of MindSpore 2.x, composed from op-table primitives (both
modes; gradients from the ops they are made of).

grid_sample (4-d input): each output point (x, y) in [-1, 1] of grid is mapped to the
input's pixel coordinates (align_corners: -1 and 1 are the corner pixels' centres, else
their outer edges); 'bilinear' blends the four neighbours, 'nearest' takes the closest
(rounding half to even, as torch); padding 'zeros' counts a neighbour outside the image as
0, 'border' clamps it, 'reflection' reflects the coordinate off the borders first. The
neighbours are read with one Gather over the flattened image per corner, so the gradient
reaches both the input and the grid.

lu_unpack / lu_solve take getrf's packed LU factors and 1-based pivots (row i was swapped
with pivots[i] - 1, in order): P comes from applying the swaps to the identity (one
elementwise exchange per row, unrolled over the static size), L is the unit lower triangle,
U the upper; lu_solve applies P^T to b and solves the two triangular systems row by row.
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, tensor_arg
from mycel.ops.function import array_func as _a
from mycel.ops.function.layout_func import tril as _tril, triu as _triu
from mycel.ops.primitive import constexpr
from mycel.ops.function.cholesky_func import geqrf as _geqrf

__all__ = ["grid_sample", "lu_unpack", "lu_solve", "orgqr", "ormqr", "qr", "roi_align"]

FLOATS = (_C.float16, _C.float32, _C.float64)


@constexpr
def _gs_check(xs, gs, xdt, gdt, mode, padding_mode):
    if mode not in ("bilinear", "nearest"):
        raise ValueError(f"For 'grid_sample', mode must be 'bilinear' or 'nearest', but got "
                         f"{mode!r}.")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"For 'grid_sample', padding_mode must be 'zeros', 'border' or "
                         f"'reflection', but got {padding_mode!r}.")
    nd = len(xs)
    if nd not in (4, 5) or len(gs) != nd or gs[-1] != nd - 2 or gs[0] != xs[0]:
        raise ValueError(f"For 'grid_sample', input must be (N, C, H, W) with grid (N, H', W', "
                         f"2), or (N, C, D, H, W) with grid (N, D', H', W', 3), with the same N, "
                         f"but got {tuple(xs)} and {tuple(gs)}.")
    if xdt not in FLOATS or gdt != xdt:
        raise TypeError(f"For 'grid_sample', input and grid must have the same float dtype, but "
                        f"got {xdt} and {gdt}.")
    return nd - 2


def _unnormalize(c, size, align_corners):
    if align_corners:
        return (c + 1.0) * (0.5 * (size - 1))
    return ((c + 1.0) * size - 1.0) * 0.5


def _reflect(c, lo, hi):
    """c reflected into [lo, hi] (any number of bounces)."""
    span = hi - lo
    if span <= 0:
        return prim("ZerosLike")(c) + lo
    t = prim("Abs")(c - lo)
    k = prim("Floor")(t / span)
    r = t - k * span
    odd = prim("Equal")(prim("FloorMod")(k, prim("OnesLike")(k) * 2.0), 1.0)
    return prim("Select")(odd, hi - r, lo + r)


def _source(c, size, align_corners, padding_mode):
    p = _unnormalize(c, size, align_corners)
    if padding_mode == "border":
        p = prim("Minimum")(prim("Maximum")(p, 0.0), float(size - 1))
    elif padding_mode == "reflection":
        if align_corners:
            p = _reflect(p, 0.0, float(size - 1))
        else:
            p = _reflect(p, -0.5, size - 0.5)
        p = prim("Minimum")(prim("Maximum")(p, 0.0), float(size - 1))
    return p


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros",  # noqa: A002
                align_corners=False):
    """Samples input (N, C, H, W) at the normalised points grid (N, H', W', 2) ((x, y) in
    [-1, 1]): (N, C, H', W'); or (N, C, D, H, W) at grid (N, D', H', W', 3) ((x, y, z);
    'bilinear' is then trilinear) (module docstring)."""
    x, g = tensor_arg(input, "grid_sample", "input"), tensor_arg(grid, "grid_sample", "grid")
    dims = _gs_check(x.shape, g.shape, x.dtype, g.dtype, mode, padding_mode)
    n, c = x.shape[0], x.shape[1]
    sizes = tuple(x.shape[2:])  # (H, W) or (D, H, W)
    out_sp = tuple(g.shape[1:-1])
    pts = 1
    for v in out_sp:
        pts = pts * v
    vol = 1
    for v in sizes:
        vol = vol * v
    flat = prim("Reshape")(x, (n, c, vol))
    gf = prim("Reshape")(g, (n, pts, dims))
    coords = ()  # source coordinates, fastest axis (x: W) first
    for k in range(dims):
        ck = prim("Reshape")(prim("StridedSlice")(gf, (0, 0, k), (n, pts, k + 1), (1, 1, 1)),
                             (n, pts))
        coords = coords + (_source(ck, sizes[dims - 1 - k], align_corners, padding_mode),)
    if mode == "nearest":
        rounded = ()
        for k in range(dims):
            rounded = rounded + (prim("Round")(coords[k]),)
        v, inside = _read_nd(flat, rounded, sizes)
        out = prim("Select")(prim("BroadcastTo", shape=v.shape)(inside), v,
                             prim("ZerosLike")(v))
    else:
        lows = ()
        fracs = ()
        for k in range(dims):
            lo = prim("Floor")(coords[k])
            lows = lows + (lo,)
            fracs = fracs + (coords[k] - lo,)
        out = None
        for corner in _corners(dims):
            at = ()
            wgt = None
            for k in range(dims):
                at = at + (lows[k] + float(corner[k]),)
                wk = fracs[k] if corner[k] else 1.0 - fracs[k]
                wgt = wk if wgt is None else wgt * wk
            v, inside = _read_nd(flat, at, sizes)
            term = prim("Select")(prim("BroadcastTo", shape=v.shape)(inside),
                                  v * prim("ExpandDims")(wgt, 1), prim("ZerosLike")(v))
            out = term if out is None else out + term
    return prim("Reshape")(out, (n, c) + out_sp)


@constexpr
def _corners(dims):
    return tuple(tuple((i >> k) & 1 for k in range(dims)) for i in range(2 ** dims))


def _read_nd(flat, at, sizes):
    """flat [N, C, prod(sizes)]; integer-valued coordinates at (x first) [N, P] -> ([N, C, P]
    values, [N, 1, P] inside mask)."""
    dims = len(sizes)
    inside = None
    lin = None
    for k in range(dims):
        size = sizes[dims - 1 - k]
        ok = prim("LogicalAnd")(prim("GreaterEqual")(at[k], 0.0),
                                prim("LessEqual")(at[k], size - 1.0))
        inside = ok if inside is None else prim("LogicalAnd")(inside, ok)
    for k in range(dims - 1, -1, -1):  # slowest axis first
        size = sizes[dims - 1 - k]
        ck = prim("Minimum")(prim("Maximum")(at[k], 0.0), size - 1.0)
        lin = ck if lin is None else lin * float(size) + ck
    lin = prim("Cast")(lin, _C.int64)
    c = flat.shape[1]
    idx = prim("BroadcastTo", shape=(lin.shape[0], c, lin.shape[1]))(prim("ExpandDims")(lin, 1))
    return _a.gather_d(flat, 2, idx), prim("ExpandDims")(inside, 1)


@constexpr
def _lu_check(ls, ps, ldt, pdt, op):
    if len(ls) < 2 or ldt not in FLOATS:
        raise TypeError(f"For '{op}', LU_data must be a float tensor [..., M, N], but got "
                        f"{ldt} of shape {tuple(ls)}.")
    if pdt not in (_C.int8, _C.int16, _C.int32, _C.int64, _C.uint8):
        raise TypeError(f"For '{op}', LU_pivots must be an integer tensor, but got {pdt}.")
    k = min(ls[-2], ls[-1])
    if tuple(ps) != tuple(ls[:-2]) + (k,):
        raise ValueError(f"For '{op}', LU_pivots must have shape {tuple(ls[:-2]) + (k,)}, but "
                         f"got {tuple(ps)}.")
    return ls[-2], k


def _perm_rows(pivots, m, k):
    """The row order [..., m] (int64) after applying the swaps i <-> pivots[i] - 1."""
    piv = prim("Cast")(pivots, _C.int64) - 1
    lead = piv.shape[:-1]
    order = prim("BroadcastTo", shape=tuple(lead) + (m,))(_arange_i64(m))
    for i in range(k):
        pi = prim("StridedSlice")(piv, (0,) * len(lead) + (i,), tuple(lead) + (i + 1,),
                                  (1,) * (len(lead) + 1))  # [..., 1]
        at_i = prim("StridedSlice")(order, (0,) * len(lead) + (i,), tuple(lead) + (i + 1,),
                                    (1,) * (len(lead) + 1))
        at_p = _a.gather_d(order, len(lead), pi)
        pos = _arange_i64(m)
        at_row_i = prim("BroadcastTo", shape=order.shape)(_onehot_row(m, i))
        order = prim("Select")(at_row_i, prim("BroadcastTo", shape=order.shape)(at_p),
                               prim("Select")(prim("Equal")(pos, pi),
                                              prim("BroadcastTo", shape=order.shape)(at_i),
                                              order))
    return order


@constexpr
def _arange_i64(m):
    return _C.Tensor(np.arange(m, dtype=np.int64))


@constexpr
def _onehot_row(m, i):
    return _C.Tensor(np.arange(m) == i)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):  # noqa: N803
    """(P, L, U) of packed LU factors: A = P @ L @ U, P a permutation matrix [..., M, M],
    L [..., M, K] unit lower, U [..., K, N] upper (K = min(M, N))."""
    lu = tensor_arg(LU_data, "lu_unpack", "LU_data")
    piv = tensor_arg(LU_pivots, "lu_unpack", "LU_pivots")
    m, k = _lu_check(lu.shape, piv.shape, lu.dtype, piv.dtype, "lu_unpack")
    p = l_ = u = None
    if unpack_pivots:
        order = _perm_rows(piv, m, k)  # row i of P^T A is row order[i] of A
        eye = _eye(m, lu.dtype)
        pt = prim("Gather")(eye, order, 0) if len(order.shape) == 1 else \
            _a.gather_d(prim("BroadcastTo", shape=tuple(order.shape) + (m,))(eye),
                        len(order.shape) - 1,
                        prim("BroadcastTo", shape=tuple(order.shape) + (m,))(
                            prim("ExpandDims")(order, -1)))
        nd = len(pt.shape)
        p = prim("Transpose")(pt, tuple(range(nd - 2)) + (nd - 1, nd - 2))
    if unpack_data:
        n = lu.shape[-1]
        lower = _tril(lu, -1)
        lower = prim("StridedSlice")(lower, (0,) * len(lu.shape), tuple(lu.shape[:-1]) + (k,),
                                     (1,) * len(lu.shape))
        l_ = lower + _eye_rect(m, k, lu.dtype)
        upper = _triu(lu, 0)
        u = prim("StridedSlice")(upper, (0,) * len(lu.shape), tuple(lu.shape[:-2]) + (k, n),
                                 (1,) * len(lu.shape))
    return p, l_, u


@constexpr
def _eye(m, dtype):
    return _C.Tensor(np.eye(m)).astype(dtype)


@constexpr
def _eye_rect(m, k, dtype):
    return _C.Tensor(np.eye(m, k)).astype(dtype)


def lu_solve(b, LU_data, LU_pivots):  # noqa: N803
    """x with A x = b for A given by its packed LU factors and pivots; b [..., M, K]."""
    for name, v in (("b", b), ("LU_data", LU_data), ("LU_pivots", LU_pivots)):
        tensor_arg(v, "lu_solve", name)
    m, k = _lu_check(LU_data.shape, LU_pivots.shape, LU_data.dtype, LU_pivots.dtype,
                     "lu_solve")
    if LU_data.shape[-1] != m or b.shape[-2] != m:
        raise ValueError(f"For 'lu_solve', LU_data must be square [..., M, M] and b [..., M, K], "
                         f"but got {LU_data.shape} and {b.shape}.")
    p, low, up = lu_unpack(LU_data, LU_pivots)
    nd = len(p.shape)
    pt = prim("Transpose")(p, tuple(range(nd - 2)) + (nd - 1, nd - 2))
    y = prim("BatchMatMul")(pt, b) if nd > 2 else prim("MatMul")(pt, b)
    rows = ()
    for i in range(m):  # forward substitution, unit diagonal
        ri = _row(y, i)
        for j in range(i):
            ri = ri - _elem(low, i, j) * rows[j]
        rows = rows + (ri,)
    solved = ()  # x_(m-1), x_(m-2), ...: x_j is solved[m - 1 - j]
    for i in range(m - 1, -1, -1):  # back substitution
        ri = rows[i]
        for j in range(i + 1, m):
            ri = ri - _elem(up, i, j) * solved[m - 1 - j]
        solved = solved + (ri / _elem(up, i, i),)
    ordered = ()
    for i in range(m):
        ordered = ordered + (solved[m - 1 - i],)
    return _a.concat(ordered, -2)


def _row(t, i):
    nd = len(t.shape)
    return prim("StridedSlice")(t, (0,) * (nd - 2) + (i, 0), tuple(t.shape[:-2]) + (
        i + 1, t.shape[-1]), (1,) * nd)


def _elem(t, i, j):
    nd = len(t.shape)
    return prim("StridedSlice")(t, (0,) * (nd - 2) + (i, j), tuple(t.shape[:-2]) + (
        i + 1, j + 1), (1,) * nd)


# ---- Householder products -----------------------------------------------------------------

@constexpr
def _qr_check(xs, ts, xdt, tdt, op):
    if len(xs) < 2 or xdt not in FLOATS or tdt != xdt:
        raise TypeError(f"For '{op}', input must be a float tensor [..., M, N] and tau of the "
                        f"same dtype, but got {xdt} {tuple(xs)} and {tdt}.")
    m, n = xs[-2], xs[-1]
    if len(ts) != len(xs) - 1 or tuple(ts[:-1]) != tuple(xs[:-2]) or ts[-1] > min(m, n):
        raise ValueError(f"For '{op}', tau must be [..., K] with K <= min(M, N) = {min(m, n)} "
                         f"and input's batch dims, but got {tuple(ts)} for {tuple(xs)}.")
    return m, n, ts[-1]


@constexpr
def _below(m, i):
    """([M, 1] bool rows > i, [M, 1] float 1 at row i)."""
    r = np.arange(m).reshape(m, 1)
    return _C.Tensor(r > i), _C.Tensor((r == i).astype(np.float64))


def _reflector(a, i, m):
    """v_i [..., M, 1]: 1 at row i, a[..., i+1:, i] below, 0 above."""
    nd = len(a.shape)
    col = prim("StridedSlice")(a, (0,) * (nd - 1) + (i,), tuple(a.shape[:-1]) + (i + 1,),
                               (1,) * nd)
    below, unit = _below(m, i)
    return prim("Select")(prim("BroadcastTo", shape=col.shape)(below), col,
                          prim("BroadcastTo", shape=col.shape)(prim("Cast")(unit, a.dtype)))


def _householder_apply(a, tau, q, k, m):
    """H_1 ... H_k q (reflectors of a, factors tau), applying H_k first."""
    nd = len(a.shape)
    for i in range(k - 1, -1, -1):
        v = _reflector(a, i, m)
        t = prim("Reshape")(prim("StridedSlice")(tau, (0,) * (nd - 2) + (i,),
                                                 tuple(tau.shape[:-1]) + (i + 1,),
                                                 (1,) * (nd - 1)),
                            tuple(tau.shape[:-1]) + (1, 1))
        vt_q = prim("ReduceSum", keep_dims=True)(v * q, (-2,))  # [..., 1, N]
        q = q - t * v * vt_q
    return q


def orgqr(input, input2):  # noqa: A002
    """The first N columns of Q = H_1 ... H_K from geqrf's packed reflectors input [..., M, N]
    and factors input2 (tau) [..., K] (LAPACK's orgqr)."""
    a, tau = tensor_arg(input, "orgqr", "input"), tensor_arg(input2, "orgqr", "input2")
    m, n, k = _qr_check(a.shape, tau.shape, a.dtype, tau.dtype, "orgqr")
    if n > m:
        raise ValueError(f"For 'orgqr', input must have M >= N, but got {a.shape}.")
    q = prim("BroadcastTo", shape=a.shape)(_eye_rect(m, n, a.dtype))
    return _householder_apply(a, tau, q, k, m)


def qr(input, mode="reduced"):  # noqa: A002
    """(Q, R) with input = Q R for input [..., M, N] (float32/float64), from geqrf's
    reflectors (LAPACK's signs, as numpy's): 'reduced' Q [..., M, K], R [..., K, N] with
    K = min(M, N); 'complete' Q [..., M, M], R [..., M, N]."""
    if mode not in ("reduced", "complete"):
        raise ValueError(f"For 'qr', mode must be 'reduced' or 'complete', but got {mode!r}.")
    y, tau = _geqrf(input)
    m, n = y.shape[-2], y.shape[-1]
    eye = prim("BroadcastTo", shape=tuple(y.shape[:-2]) + (m, m))(_eye(m, y.dtype))
    q = ormqr(y, tau, eye)
    r = _triu(y)
    if mode == "complete" or m <= n:  # K = M: Q is square, R is all of triu(y)
        return q, r
    return q[..., :n], r[..., :n, :]


def ormqr(input, tau, other, left=True, transpose=False):  # noqa: A002
    """other multiplied by Q = H_1 ... H_K of geqrf's packed reflectors: Q other (left),
    other Q (not left), with Q^T when transpose (LAPACK's ormqr)."""
    a = input
    for name, v in (("input", input), ("tau", tau), ("other", other)):
        tensor_arg(v, "ormqr", name)
    m, _, k = _qr_check(a.shape, tau.shape, a.dtype, tau.dtype, "ormqr")
    need = other.shape[-2] if left else other.shape[-1]
    if need != m:
        raise ValueError(f"For 'ormqr', other's {'rows' if left else 'columns'} ({need}) must "
                         f"equal input's rows M = {m}.")
    eye = prim("BroadcastTo", shape=tuple(a.shape[:-2]) + (m, m))(_eye(m, a.dtype))
    q = _householder_apply(a, tau, eye, k, m)
    nd = len(q.shape)
    if transpose:
        q = prim("Transpose")(q, tuple(range(nd - 2)) + (nd - 1, nd - 2))
    mm = prim("BatchMatMul") if nd > 2 else prim("MatMul")
    return mm(q, other) if left else mm(other, q)


# ---- ROIAlign ------------------------------------------------------------------------------

@constexpr
def _roi_check(fs, rs, fdt, rdt, ph, pw, sample_num):
    if len(fs) != 4 or len(rs) != 2 or rs[1] != 5:
        raise ValueError(f"For 'ROIAlign', features must be (N, C, H, W) and rois (R, 5), but "
                         f"got {tuple(fs)} and {tuple(rs)}.")
    if fdt not in FLOATS or rdt != fdt:
        raise TypeError(f"For 'ROIAlign', features and rois must have the same float dtype, but "
                        f"got {fdt} and {rdt}.")
    for name, v in (("pooled_height", ph), ("pooled_width", pw), ("sample_num", sample_num)):
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            raise ValueError(f"For 'ROIAlign', {name} must be a positive int here (an adaptive "
                             f"sample_num <= 0 needs a grid per ROI), but got {v!r}.")
    return True


@constexpr
def _sample_offsets(pooled, s):
    """[pooled * s] float64: ph + (iy + 0.5) / s, the sample points in bin units."""
    p = np.arange(pooled)[:, None] + (np.arange(s)[None, :] + 0.5) / s
    return _C.Tensor(p.reshape(-1))


def _axis_weights(pos, size):
    """Caffe2's bilinear rule along one axis: (low, high) int64 indices, (w_low, w_high)
    weights with points outside [-1, size] weighted 0."""
    valid = prim("LogicalAnd")(prim("GreaterEqual")(pos, -1.0), prim("LessEqual")(pos,
                                                                                   float(size)))
    p = prim("Maximum")(pos, 0.0)
    low = prim("Floor")(p)
    at_end = prim("GreaterEqual")(low, float(size - 1))
    low = prim("Select")(at_end, prim("ZerosLike")(low) + float(size - 1), low)
    p = prim("Select")(at_end, low, p)
    high = prim("Select")(at_end, low, low + 1.0)
    lw = p - low
    vf = prim("Cast")(valid, pos.dtype)
    return (prim("Cast")(low, _C.int64), prim("Cast")(high, _C.int64), (1.0 - lw) * vf, lw * vf)


def _interp_axis(t, pos, size, axis):
    """t [R, C, ..] interpolated at pos [R, P] along axis (2 or 3)."""
    lo, hi, wl, wh = _axis_weights(pos, size)
    r, c = t.shape[0], t.shape[1]
    if axis == 2:
        shape = (r, c, pos.shape[1], t.shape[3])
        idx = lambda i: prim("BroadcastTo", shape=shape)(prim("Reshape")(i, (r, 1, -1, 1)))  # noqa
        wv = lambda w: prim("Reshape")(w, (r, 1, -1, 1))  # noqa: E731
    else:
        shape = (r, c, t.shape[2], pos.shape[1])
        idx = lambda i: prim("BroadcastTo", shape=shape)(prim("Reshape")(i, (r, 1, 1, -1)))  # noqa
        wv = lambda w: prim("Reshape")(w, (r, 1, 1, -1))  # noqa: E731
    return (_a.gather_d(t, axis, idx(lo)) * wv(wl) + _a.gather_d(t, axis, idx(hi)) * wv(wh))


def roi_align(features, rois, pooled_height, pooled_width, spatial_scale, sample_num=2,
              roi_end_mode=1):
    """MindSpore's ROIAlign on CPU: each ROI (batch index, x1, y1, x2, y2) scaled by
    spatial_scale (the end + roi_end_mode), split into pooled_height x pooled_width bins,
    each the mean of sample_num x sample_num bilinear samples: (R, C, ph, pw)."""
    f, r = tensor_arg(features, "roi_align", "features"), tensor_arg(rois, "roi_align", "rois")
    _roi_check(f.shape, r.shape, f.dtype, r.dtype, pooled_height, pooled_width, sample_num)
    dt = f.dtype
    r64 = prim("Cast")(r, _C.float64)
    col = lambda i: prim("Reshape")(prim("StridedSlice")(r64, (0, i), (r.shape[0], i + 1),  # noqa
                                                         (1, 1)), (-1, 1))
    b = prim("Cast")(prim("Round")(col(0) + 0.00007), _C.int64)
    sw, sh = col(1) * spatial_scale, col(2) * spatial_scale
    ew = (col(3) + float(roi_end_mode)) * spatial_scale
    eh = (col(4) + float(roi_end_mode)) * spatial_scale
    rw, rh = ew - sw, eh - sh
    if roi_end_mode == 0:
        rw, rh = prim("Maximum")(rw, 1.0), prim("Maximum")(rh, 1.0)
    ys = sh + rh * (1.0 / pooled_height) * _sample_offsets(pooled_height, sample_num)
    xs = sw + rw * (1.0 / pooled_width) * _sample_offsets(pooled_width, sample_num)
    img = prim("Cast")(prim("Gather")(f, prim("Reshape")(b, (-1,)), 0), _C.float64)
    h, w = f.shape[2], f.shape[3]
    t = _interp_axis(img, ys, h, 2)
    t = _interp_axis(t, xs, w, 3)  # [R, C, ph * s, pw * s]
    rr, c = t.shape[0], t.shape[1]
    t = prim("Reshape")(t, (rr, c, pooled_height, sample_num, pooled_width, sample_num))
    return prim("Cast")(prim("ReduceMean")(t, (3, 5)), dt)
