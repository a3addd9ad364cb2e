"""``ops.rotated_iou``: the overlap of rotated rectangles (MindSpore's Ascend RotatedIou),
composed from table ops.

A box is (x, y, w, h, t) (centre, size, angle t in degrees, as the Ascend kernel documents),
or with trans=True (x1, y1, x2, y2, t) (the corners before rotating about the centre). The
intersection of two boxes is a convex polygon whose vertices are among the 4 corners of each
box inside the other and the 16 crossings of their edges: all 24 candidates are computed for
every pair at once with a validity mask, the valid ones sorted by angle about their mean,
the others replaced by the first valid one, and the area taken by the shoelace formula.
mode 0 divides by the union (IoU), mode 1 by the area of the box of `boxes` (IoF). The
tolerances v_threshold and e_threshold of the Ascend kernel are accepted; the computation
here needs none beyond a relative 1e-6 on the inside tests.
"""
import math

import numpy as np

from mycel import _mycel as _C
from mycel.ops.function import math_ext_func as _x
from mycel.ops.function._util import prim, as_tensor
from mycel.ops.primitive import constexpr

__all__ = ["rotated_iou"]

_EPS = 1e-6


@constexpr
def _plan(b_shape, b_dtype, q_shape, q_dtype, trans, mode, is_cross, v_th, e_th):
    op = "rotated_iou"
    for name, dt in (("boxes", b_dtype), ("query_boxes", q_dtype)):
        if dt not in (_C.float16, _C.float32, _C.float64):
            raise TypeError(f"For '{op}', '{name}' must be float16, float32 or float64, but got "
                            f"{dt}.")
    if len(b_shape) != 3 or len(q_shape) != 3 or b_shape[2] != 5 or q_shape[2] != 5:
        raise ValueError(f"For '{op}', boxes and query_boxes must be [B, N, 5] and [B, K, 5], "
                         f"but got {tuple(b_shape)} and {tuple(q_shape)}.")
    if b_shape[0] != q_shape[0]:
        raise ValueError(f"For '{op}', boxes and query_boxes must have the same first dim, but "
                         f"got {b_shape[0]} and {q_shape[0]}.")
    for name, v in (("trans", trans), ("is_cross", is_cross)):
        if not isinstance(v, bool):
            raise TypeError(f"For '{op}', '{name}' must be a bool, but got {type(v).__name__}.")
    if isinstance(mode, bool) or mode not in (0, 1):
        raise ValueError(f"For '{op}', 'mode' must be 0 (iou) or 1 (iof), but got {mode!r}.")
    for name, v in (("v_threshold", v_th), ("e_threshold", e_th)):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise TypeError(f"For '{op}', '{name}' must be a float, but got {type(v).__name__}.")
    if not is_cross and b_shape[1] != q_shape[1]:
        raise ValueError(f"For '{op}', one-to-one computation (is_cross=False) needs N == K, but "
                         f"got {b_shape[1]} and {q_shape[1]}.")
    return True


@constexpr
def _corner_signs():
    """[4, 2]: the corners' (±w/2, ±h/2) multipliers, counter-clockwise."""
    return _C.Tensor(np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]]))


def _geometry(box, trans):
    """(centre [.., 2], half sizes [.., 2], unit axes u, v [.., 2], corners [.., 4, 2])."""
    a, b, c, d, t = (box[..., k] for k in range(5))
    if trans:
        cx, cy = prim("Mul")(prim("Add")(a, c), 0.5), prim("Mul")(prim("Add")(b, d), 0.5)
        w, h = prim("Abs")(prim("Sub")(c, a)), prim("Abs")(prim("Sub")(d, b))
    else:
        cx, cy, w, h = a, b, c, d
    rad = prim("Mul")(t, math.pi / 180.0)
    cos, sin = prim("Cos")(rad), prim("Sin")(rad)
    u = prim("Stack", axis=-1)((cos, sin))
    v = prim("Stack", axis=-1)((prim("Neg")(sin), cos))
    centre = prim("Stack", axis=-1)((cx, cy))
    size = prim("Stack", axis=-1)((w, h))
    signs = prim("Cast")(_corner_signs(), box.dtype)
    offs = prim("Mul")(prim("ExpandDims")(size, -2), signs)  # [.., 4, 2] in box axes
    corners = prim("Add")(prim("ExpandDims")(centre, -2),
                          prim("Add")(prim("Mul")(offs[..., 0:1], prim("ExpandDims")(u, -2)),
                                      prim("Mul")(offs[..., 1:2], prim("ExpandDims")(v, -2))))
    return centre, prim("Mul")(size, 0.5), u, v, corners


def _inside(points, centre, half, u, v):
    """Whether each point [.., P, 2] lies in the box (centre/half/u/v [.., 2])."""
    rel = prim("Sub")(points, prim("ExpandDims")(centre, -2))
    pu = prim("ReduceSum", keep_dims=False)(prim("Mul")(rel, prim("ExpandDims")(u, -2)), (-1,))
    pv = prim("ReduceSum", keep_dims=False)(prim("Mul")(rel, prim("ExpandDims")(v, -2)), (-1,))
    hu, hv = prim("ExpandDims")(half[..., 0], -1), prim("ExpandDims")(half[..., 1], -1)
    tol_u = prim("Add")(prim("Mul")(hu, _EPS), _EPS)
    tol_v = prim("Add")(prim("Mul")(hv, _EPS), _EPS)
    return prim("LogicalAnd")(prim("LessEqual")(prim("Abs")(pu), prim("Add")(hu, tol_u)),
                              prim("LessEqual")(prim("Abs")(pv), prim("Add")(hv, tol_v)))


def _cross2(a, b):
    return prim("Sub")(prim("Mul")(a[..., 0], b[..., 1]), prim("Mul")(a[..., 1], b[..., 0]))


def _edge_crossings(ca, cb):
    """(points [.., 16, 2], valid [.., 16]) where edge i of a crosses edge j of b."""
    a1 = prim("ExpandDims")(ca, -2)  # [.., 4, 1, 2]
    a2 = prim("ExpandDims")(prim("Concat", axis=-2)((ca[..., 1:, :], ca[..., :1, :])), -2)
    b1 = prim("ExpandDims")(cb, -3)  # [.., 1, 4, 2]
    b2 = prim("ExpandDims")(prim("Concat", axis=-2)((cb[..., 1:, :], cb[..., :1, :])), -3)
    da, db = prim("Sub")(a2, a1), prim("Sub")(b2, b1)
    den = _cross2(da, db)
    diff = prim("Sub")(b1, a1)
    parallel = prim("LessEqual")(prim("Abs")(den), 1e-12)
    safe = prim("Select")(parallel, prim("OnesLike")(den), den)
    t = prim("Div")(_cross2(diff, db), safe)
    s = prim("Div")(_cross2(diff, da), safe)
    ok = prim("LogicalAnd")(prim("LogicalNot")(parallel), prim("LogicalAnd")(
        prim("LogicalAnd")(prim("GreaterEqual")(t, -_EPS), prim("LessEqual")(t, 1 + _EPS)),
        prim("LogicalAnd")(prim("GreaterEqual")(s, -_EPS), prim("LessEqual")(s, 1 + _EPS))))
    pts = prim("Add")(a1, prim("Mul")(prim("ExpandDims")(t, -1), da))  # [.., 4, 4, 2]
    shape = tuple(pts.shape[:-3])
    return prim("Reshape")(pts, shape + (16, 2)), prim("Reshape")(ok, shape + (16,))


def _polygon_area(points, valid):
    """The area of the convex polygon of the valid points [.., P, 2] (0 with fewer than 3)."""
    dt = points.dtype
    vf = prim("Cast")(valid, dt)
    count = prim("ReduceSum", keep_dims=True)(vf, (-1,))
    mean = prim("Div")(prim("ReduceSum", keep_dims=False)(
        prim("Mul")(points, prim("ExpandDims")(vf, -1)), (-2,)), prim("Maximum")(count, 1.0))
    rel = prim("Sub")(points, prim("ExpandDims")(mean, -2))
    ang = _x.atan2(rel[..., 1], rel[..., 0])
    ang = prim("Select")(valid, ang, prim("Add")(prim("ZerosLike")(ang), 10.0))  # last
    _, order = prim("Sort", axis=-1)(ang)
    order = prim("Cast")(order, _C.int64)
    idx2 = prim("BroadcastTo", shape=tuple(points.shape))(prim("ExpandDims")(order, -1))
    sp = prim("GatherD")(points, idx2, points.ndim - 2)
    sv = prim("GatherD")(valid, order, valid.ndim - 1)
    first = prim("BroadcastTo", shape=tuple(sp.shape))(sp[..., :1, :])
    sp = prim("Select")(prim("BroadcastTo", shape=tuple(sp.shape))(prim("ExpandDims")(sv, -1)),
                        sp, first)
    nxt = prim("Concat", axis=-2)((sp[..., 1:, :], sp[..., :1, :]))
    twice = prim("ReduceSum", keep_dims=False)(_cross2(sp, nxt), (-1,))
    area = prim("Mul")(prim("Abs")(twice), 0.5)
    enough = prim("GreaterEqual")(prim("Squeeze", axis=(-1,))(count), 3.0)
    return prim("Select")(enough, area, prim("ZerosLike")(area))


def rotated_iou(boxes, query_boxes, trans=False, mode=0, is_cross=True, v_threshold=0.0,
                e_threshold=0.0):
    """The IoU (mode 0) or IoF (mode 1: over the area of the box of `boxes`) of rotated boxes
    (module docstring): boxes [B, N, 5] and query_boxes [B, K, 5] give [B, N, K] with
    is_cross, else the pairs n = k, [B, N]. The result has boxes' dtype (float16 computed in
    float32)."""
    b, q = as_tensor(boxes), as_tensor(query_boxes)
    _plan(b.shape, b.dtype, q.shape, q.dtype, trans, mode, is_cross, v_threshold, e_threshold)
    work = _C.float64 if b.dtype == _C.float64 else _C.float32
    bb, qq = prim("Cast")(b, work), prim("Cast")(q, work)
    if is_cross:
        bb = prim("ExpandDims")(bb, 2)  # [B, N, 1, 5]
        qq = prim("ExpandDims")(qq, 1)  # [B, 1, K, 5]
        full = (b.shape[0], b.shape[1], q.shape[1], 5)
        bb = prim("BroadcastTo", shape=full)(bb)
        qq = prim("BroadcastTo", shape=full)(qq)
    ca, ha, ua, va, pa = _geometry(bb, trans)
    cb, hb, ub, vb, pb = _geometry(qq, trans)
    a_in_b = _inside(pa, cb, hb, ub, vb)
    b_in_a = _inside(pb, ca, ha, ua, va)
    cross_pts, cross_ok = _edge_crossings(pa, pb)
    points = prim("Concat", axis=-2)((pa, pb, cross_pts))
    valid = prim("Concat", axis=-1)((a_in_b, b_in_a, cross_ok))
    inter = _polygon_area(points, valid)
    area_a = prim("Mul")(prim("Mul")(ha[..., 0], ha[..., 1]), 4.0)
    area_b = prim("Mul")(prim("Mul")(hb[..., 0], hb[..., 1]), 4.0)
    denom = area_a if mode == 1 else prim("Sub")(prim("Add")(area_a, area_b), inter)
    pos = prim("Greater")(denom, 0.0)
    out = prim("Div")(inter, prim("Select")(pos, denom, prim("OnesLike")(denom)))
    out = prim("Select")(pos, out, prim("ZerosLike")(out))
    return prim("Cast")(out, b.dtype)
