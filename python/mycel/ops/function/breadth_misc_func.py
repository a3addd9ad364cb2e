"""More of MindSpore 2.x's functions, composed from op-table primitives: boxes (iou,
bounding_box_encode, bounding_box_decode, check_valid), block rearrangements
(space_to_batch_nd, batch_to_space_nd), mirror padding, matrix_set_diag, unique_consecutive,
intopk, bidense, sgn, and the helpers move_to, deepcopy, print_, dyn_shape.

The box functions follow MindSpore's CPU kernels: coordinates are pixel indices, so a box
(x0, y0, x1, y1) is x1 - x0 + 1 wide.
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim
from mycel.ops.function import array_func as _a, array_ext_func as _ax
from mycel.ops.function.diag_func import matrix_diag
from mycel.ops.function.graph_compat_func import any as _any
from mycel.ops.primitive import constexpr

__all__ = ["iou", "bounding_box_encode", "bounding_box_decode", "check_valid",
           "space_to_batch_nd", "batch_to_space_nd", "mirror_pad", "matrix_set_diag",
           "unique_consecutive", "intopk", "bidense", "sgn", "move_to", "deepcopy", "print_",
           "dyn_shape", "nms_with_mask", "ctc_greedy_decoder"]


def _t(x, op, name="input"):
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {type(x).__name__}.")
    return x


@constexpr
def _boxes_check(shape, op, name):
    if len(shape) != 2 or shape[1] != 4:
        raise ValueError(f"For '{op}', {name} must have shape (N, 4), but got {tuple(shape)}.")
    return True


def _cols(b):
    """The four coordinate columns of boxes (N, 4), each (N, 1)."""
    n = b.shape[0]
    return (prim("StridedSlice")(b, (0, 0), (n, 1), (1, 1)),
            prim("StridedSlice")(b, (0, 1), (n, 2), (1, 1)),
            prim("StridedSlice")(b, (0, 2), (n, 3), (1, 1)),
            prim("StridedSlice")(b, (0, 3), (n, 4), (1, 1)))


def iou(anchor_boxes, gt_boxes, mode="iou"):
    """The overlap of each gt box (M) with each anchor box (N) over their union ('iou') or
    over the gt box's area ('iof'): (M, N)."""
    a, g = _t(anchor_boxes, "iou", "anchor_boxes"), _t(gt_boxes, "iou", "gt_boxes")
    _boxes_check(a.shape, "iou", "anchor_boxes")
    _boxes_check(g.shape, "iou", "gt_boxes")
    if mode not in ("iou", "iof"):
        raise ValueError(f"For 'iou', mode must be 'iou' or 'iof', but got {mode!r}.")
    ax0, ay0, ax1, ay1 = _cols(a)
    ax0, ay0 = prim("Reshape")(ax0, (1, -1)), prim("Reshape")(ay0, (1, -1))
    ax1, ay1 = prim("Reshape")(ax1, (1, -1)), prim("Reshape")(ay1, (1, -1))
    gx0, gy0, gx1, gy1 = _cols(g)  # (M, 1)
    w = prim("Maximum")(prim("Minimum")(ax1, gx1) - prim("Maximum")(ax0, gx0) + 1.0, 0.0)
    h = prim("Maximum")(prim("Minimum")(ay1, gy1) - prim("Maximum")(ay0, gy0) + 1.0, 0.0)
    inter = w * h
    area_a = (ax1 - ax0 + 1.0) * (ay1 - ay0 + 1.0)
    area_g = (gx1 - gx0 + 1.0) * (gy1 - gy0 + 1.0)
    if mode == "iou":
        return inter / (area_a + area_g - inter + 1e-10)
    return inter / (area_g + 1e-10)


@constexpr
def _four(v, op, name):
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return (float(v),) * 4
    if not isinstance(v, (tuple, list)) or len(v) < 4:
        raise TypeError(f"For '{op}', {name} must be a tuple of 4 floats, but got {v!r}.")
    return tuple(float(e) for e in v[:4])


def _center(b):
    x0, y0, x1, y1 = _cols(b)
    return (x0 + x1) * 0.5, (y0 + y1) * 0.5, x1 - x0 + 1.0, y1 - y0 + 1.0


def bounding_box_encode(anchor_box, groundtruth_box, means=(0.0, 0.0, 0.0, 0.0),
                        stds=(1.0, 1.0, 1.0, 1.0)):
    """The deltas (dx, dy, dw, dh) from each anchor box to its ground-truth box, normalised
    by means and stds: dx = (gx - px) / pw, dw = log(gw / pw)."""
    a = _t(anchor_box, "bounding_box_encode", "anchor_box")
    g = _t(groundtruth_box, "bounding_box_encode", "groundtruth_box")
    _boxes_check(a.shape, "bounding_box_encode", "anchor_box")
    _boxes_check(g.shape, "bounding_box_encode", "groundtruth_box")
    m, s = _four(means, "bounding_box_encode", "means"), _four(stds, "bounding_box_encode",
                                                              "stds")
    px, py, pw, ph = _center(a)
    gx, gy, gw, gh = _center(g)
    d = ((gx - px) / pw, (gy - py) / ph, prim("Log")(gw / pw), prim("Log")(gh / ph))
    return _a.concat(((d[0] - m[0]) / s[0], (d[1] - m[1]) / s[1], (d[2] - m[2]) / s[2],
                      (d[3] - m[3]) / s[3]), 1)


def bounding_box_decode(anchor_box, deltas, max_shape, means=(0.0, 0.0, 0.0, 0.0),
                        stds=(1.0, 1.0, 1.0, 1.0), wh_ratio_clip=0.016):
    """The boxes the deltas move the anchor boxes to (the inverse of bounding_box_encode),
    dw and dh clipped to |log(wh_ratio_clip)|, the corners clipped to [0, max_shape]
    ((height, width))."""
    a = _t(anchor_box, "bounding_box_decode", "anchor_box")
    d = _t(deltas, "bounding_box_decode", "deltas")
    _boxes_check(a.shape, "bounding_box_decode", "anchor_box")
    _boxes_check(d.shape, "bounding_box_decode", "deltas")
    if not isinstance(max_shape, (tuple, list)) or len(max_shape) != 2:
        raise TypeError(f"For 'bounding_box_decode', max_shape must be a tuple (h, w), but got "
                        f"{max_shape!r}.")
    m, s = _four(means, "bounding_box_decode", "means"), _four(stds, "bounding_box_decode",
                                                              "stds")
    dx, dy, dw, dh = _cols(d)
    dx, dy, dw, dh = dx * s[0] + m[0], dy * s[1] + m[1], dw * s[2] + m[2], dh * s[3] + m[3]
    r = abs(float(np.log(wh_ratio_clip)))
    dw = prim("Minimum")(prim("Maximum")(dw, -r), r)
    dh = prim("Minimum")(prim("Maximum")(dh, -r), r)
    px, py, pw, ph = _center(a)
    gx, gy = px + pw * dx, py + ph * dy
    gw, gh = pw * prim("Exp")(dw), ph * prim("Exp")(dh)
    hmax, wmax = float(max_shape[0]), float(max_shape[1])

    def clip(v, hi):
        return prim("Minimum")(prim("Maximum")(v, 0.0), hi)
    return _a.concat((clip(gx - gw * 0.5 + 0.5, wmax), clip(gy - gh * 0.5 + 0.5, hmax),
                      clip(gx + gw * 0.5 - 0.5, wmax), clip(gy + gh * 0.5 - 0.5, hmax)), 1)


def check_valid(bboxes, img_metas):
    """Whether each box (x0, y0, x1, y1) lies inside the image (height, width, ratio):
    x0, y0 >= 0, x1 <= width * ratio - 1, y1 <= height * ratio - 1."""
    b = _t(bboxes, "check_valid", "bboxes")
    m = _t(img_metas, "check_valid", "img_metas")
    _boxes_check(b.shape, "check_valid", "bboxes")
    x0, y0, x1, y1 = _cols(b)
    mh = prim("Cast")(prim("StridedSlice")(m, (0,), (1,), (1,)), b.dtype)
    mw = prim("Cast")(prim("StridedSlice")(m, (1,), (2,), (1,)), b.dtype)
    ratio = prim("Cast")(prim("StridedSlice")(m, (2,), (3,), (1,)), b.dtype)
    ok = prim("LogicalAnd")(prim("GreaterEqual")(x0, 0.0), prim("GreaterEqual")(y0, 0.0))
    ok = prim("LogicalAnd")(ok, prim("LessEqual")(x1, mw * ratio - 1.0))
    ok = prim("LogicalAnd")(ok, prim("LessEqual")(y1, mh * ratio - 1.0))
    return prim("Reshape")(ok, (-1,))


@constexpr
def _s2b_plan(shape, block, pads, op):
    nd = len(shape)
    block = (block,) * 2 if isinstance(block, int) else tuple(block)
    pads = tuple(tuple(p) for p in pads)
    m = len(block)
    if nd < m + 1 or len(pads) != m or any(len(p) != 2 for p in pads):
        raise ValueError(f"For '{op}', block {block} and paddings/crops {pads} do not fit the "
                         f"input shape {tuple(shape)}.")
    if any(b < 1 for b in block) or any(v < 0 for p in pads for v in p):
        raise ValueError(f"For '{op}', block sizes must be >= 1 and paddings/crops >= 0.")
    return block, pads, nd - m


def space_to_batch_nd(input_x, block_size, paddings):
    """The last len(block_size) dims padded, then split into blocks moved into the batch:
    out[(i * b1 + j) * N + n, ..., h, w] = padded[n, ..., h * b0 + i, w * b1 + j]."""
    x = _t(input_x, "SpaceToBatchND", "input_x")
    block, pads, lead = _s2b_plan(x.shape, block_size, paddings, "SpaceToBatchND")
    full = ((0, 0),) * lead + pads
    p = prim("Pad", paddings=full)(x) if any(v for q in pads for v in q) else x
    sp = p.shape[lead:]
    for i, b in enumerate(block):
        if sp[i] % b:
            raise ValueError(f"For 'SpaceToBatchND', the padded dimension {sp[i]} must be "
                             f"divisible by the block size {b}.")
    view, perm, out = _s2b_view(tuple(p.shape), block, lead)
    return prim("Reshape")(prim("Transpose")(prim("Reshape")(p, view), perm), out)


@constexpr
def _s2b_view(shape, block, lead):
    m = len(block)
    view = tuple(shape[:lead])
    for i, b in enumerate(block):
        view += (shape[lead + i] // b, b)
    # [N, C.., h0, b0, h1, b1] -> [b0, b1, N, C.., h0, h1]
    bpos = [lead + 2 * i + 1 for i in range(m)]
    hpos = [lead + 2 * i for i in range(m)]
    perm = tuple(bpos) + tuple(range(lead)) + tuple(hpos)
    n = shape[0] * int(np.prod(block))
    out = (n,) + tuple(shape[1:lead]) + tuple(shape[lead + i] // b for i, b in enumerate(block))
    return view, perm, out


def batch_to_space_nd(input_x, block_shape, crops):
    """The inverse of space_to_batch_nd: blocks of the batch moved back into the last
    len(block_shape) dims, then those cropped."""
    x = _t(input_x, "BatchToSpaceND", "input_x")
    block, crops, lead = _s2b_plan(x.shape, block_shape, crops, "BatchToSpaceND")
    view, perm, out, begin, end = _b2s_view(tuple(x.shape), block, crops, lead)
    y = prim("Reshape")(prim("Transpose")(prim("Reshape")(x, view), perm), out)
    return prim("StridedSlice")(y, begin, end, (1,) * len(out))


@constexpr
def _b2s_view(shape, block, crops, lead):
    m = len(block)
    prod = int(np.prod(block))
    if shape[0] % prod:
        raise ValueError(f"For 'BatchToSpaceND', the batch {shape[0]} must be divisible by the "
                         f"product of block_shape {prod}.")
    n = shape[0] // prod
    view = tuple(block) + (n,) + tuple(shape[1:])
    # [b0, b1, N, C.., h0, h1] -> [N, C.., h0, b0, h1, b1]
    perm = (m,) + tuple(range(m + 1, m + lead))
    for i in range(m):
        perm += (m + lead + i, i)
    out = (n,) + tuple(shape[1:lead]) + tuple(shape[lead + i] * b for i, b in enumerate(block))
    begin = (0,) * lead + tuple(c[0] for c in crops)
    end = tuple(out[:lead]) + tuple(out[lead + i] - crops[i][1] for i in range(m))
    if any(e <= b for b, e in zip(begin[lead:], end[lead:])):
        raise ValueError(f"For 'BatchToSpaceND', crops {crops} remove the whole dimension.")
    return view, perm, out, begin, end


@constexpr
def _mirror_plan(shape, paddings, mode):
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise ValueError(f"For 'MirrorPad', mode must be 'REFLECT' or 'SYMMETRIC', but got "
                         f"{mode!r}.")
    if isinstance(paddings, _C.Tensor):
        paddings = paddings.asnumpy().tolist()
    pads = [tuple(int(v) for v in p) for p in paddings]
    if len(pads) != len(shape):
        raise ValueError(f"For 'MirrorPad', paddings must have one (before, after) pair per "
                         f"dimension ({len(shape)}), but got {len(pads)}.")
    tables = []
    for n, (lo, hi) in zip(shape, pads):
        lim = n - 1 if mode == "REFLECT" else n
        if lo > lim or hi > lim or lo < 0 or hi < 0:
            raise ValueError(f"For 'MirrorPad', paddings {(lo, hi)} exceed the dimension {n} "
                             f"for mode {mode}.")
        if lo == 0 and hi == 0:
            tables.append(None)
            continue
        i = np.arange(-lo, n + hi)
        if mode == "REFLECT":
            i = np.abs(i)
            i = np.where(i >= n, 2 * (n - 1) - i, i)
        else:
            i = np.where(i < 0, -i - 1, i)
            i = np.where(i >= n, 2 * n - 1 - i, i)
        tables.append(_C.Tensor(i.astype(np.int64)))
    return tuple(tables)


def mirror_pad(input_x, paddings, mode="REFLECT"):
    """input_x padded by reflecting its borders ('REFLECT' leaves the edge out, 'SYMMETRIC'
    repeats it); paddings (rank, 2)."""
    x = _t(input_x, "MirrorPad", "input_x")
    tables = _mirror_plan(x.shape, paddings, mode)
    for ax, t in enumerate(tables):
        if t is not None:
            x = prim("Gather")(x, t, ax)
    return x


def matrix_set_diag(x, diagonal, k=0, align="RIGHT_LEFT"):
    """x with its diagonals k (an int or a (k0, k1) band) replaced by diagonal (laid out as
    ops.matrix_diag_part returns them)."""
    x = _t(x, "matrix_set_diag", "x")
    d = prim("Cast")(_t(diagonal, "matrix_set_diag", "diagonal"), x.dtype)
    m, n = x.shape[-2], x.shape[-1]
    placed = matrix_diag(d, k, m, n, 0, align)
    mask = matrix_diag(prim("OnesLike")(d), k, m, n, 0, align)
    placed = prim("BroadcastTo", shape=x.shape)(placed)
    mask = prim("BroadcastTo", shape=x.shape)(prim("NotEqual")(mask, 0))
    return prim("Select")(mask, placed, x)


def unique_consecutive(input, return_idx=False, return_counts=False, axis=None):  # noqa: A002
    """The elements with each run of consecutive equal values collapsed to one (flattened
    when axis is None; along axis otherwise), with the run index of each element
    (return_idx) and the run lengths (return_counts). The output length depends on the
    values (PYNATIVE mode)."""
    x = _t(input, "unique_consecutive")
    if axis is None:
        flat = prim("Reshape")(x, (-1,))
        n = flat.shape[0]
        if n == 0:
            out, idx, cnt = flat, prim("Cast")(flat, _C.int64), prim("Cast")(flat, _C.int64)
        else:
            head = _a.concat((_true1(), prim("NotEqual")(flat[1:], flat[:n - 1])), 0)
            out = prim("MaskedSelect")(flat, head)
            idx = prim("CumSum")(prim("Cast")(head, _C.int64), 0) - 1
            cnt = _counts(idx, out.shape[0])
            idx = prim("Reshape")(idx, x.shape)
    else:
        ax = axis % max(x.ndim, 1)
        xt = _ax.moveaxis(x, ax, 0)
        n = xt.shape[0]
        rows = prim("Reshape")(xt, (n, -1))
        diff = _any(prim("NotEqual")(rows[1:], rows[:n - 1]), 1) if n > 1 else None
        head = _true1() if diff is None else _a.concat((_true1(), diff), 0)
        keep = prim("MaskedSelect")(_arange(n), head)
        out = _ax.moveaxis(prim("Gather")(xt, keep, 0), 0, ax)
        idx = prim("CumSum")(prim("Cast")(head, _C.int64), 0) - 1
        cnt = _counts(idx, keep.shape[0])
    res = (out,)
    if return_idx:
        res += (idx,)
    if return_counts:
        res += (cnt,)
    return res[0] if len(res) == 1 else res


@constexpr
def _true1():
    return _C.Tensor(np.array([True]))


@constexpr
def _arange(n):
    return _C.Tensor(np.arange(n, dtype=np.int64))


def _counts(idx, runs):
    ones = prim("OnesLike")(prim("Reshape")(idx, (-1,)))
    return prim("UnsortedSegmentSum")(ones, prim("Reshape")(idx, (-1,)), runs)


def intopk(x1, x2, k):
    """For each row i of x1 [N, C], whether the target class x2[i] is among its k largest
    entries (ties counted in the target's favour; never for non-finite scores)."""
    a, t = _t(x1, "InTopK", "x1"), _t(x2, "InTopK", "x2")
    if a.ndim != 2 or t.ndim != 1 or t.shape[0] != a.shape[0]:
        raise ValueError(f"For 'InTopK', x1 must be (N, C) and x2 (N,), but got {a.shape} and "
                         f"{t.shape}.")
    target = _a.gather_d(a, 1, prim("Reshape")(prim("Cast")(t, _C.int64), (-1, 1)))
    above = prim("ReduceSum")(prim("Cast")(prim("Greater")(a, target), _C.int32), (1,))
    finite = prim("Less")(prim("Abs")(prim("Reshape")(target, (-1,))), float("inf"))
    return prim("LogicalAnd")(prim("Less")(above, int(k)), finite)


def bidense(input1, input2, weight, bias=None):
    """The bilinear map y[..., o] = sum_ij x1[..., i] weight[o, i, j] x2[..., j] + bias[o]."""
    a, b = _t(input1, "bidense", "input1"), _t(input2, "bidense", "input2")
    w = _t(weight, "bidense", "weight")
    if w.ndim != 3:
        raise ValueError(f"For 'bidense', weight must be 3-D (out, in1, in2), but got shape "
                         f"{w.shape}.")
    o, i, j = w.shape
    lead = a.shape[:-1]
    a2 = prim("Reshape")(a, (-1, i))
    b2 = prim("Reshape")(b, (-1, j))
    t = prim("MatMul")(a2, prim("Reshape")(prim("Transpose")(w, (1, 0, 2)), (i, o * j)))
    t = prim("Reshape")(t, (-1, o, j))
    y = prim("ReduceSum")(t * prim("ExpandDims")(b2, 1), (2,))
    if bias is not None:
        y = y + bias
    return prim("Reshape")(y, lead + (o,))


def sgn(input):  # noqa: A002
    """The sign of each element (-1, 0 or 1; for real tensors as ops.sign)."""
    return prim("Sign")(_t(input, "sgn"))


def move_to(input, to="CPU", blocking=True):  # noqa: A002
    """The tensor on device `to`. mycel places tensors by the context's device_target, so
    'CPU' returns the tensor itself; other targets are a ValueError here."""
    x = _t(input, "move_to")
    if to != "CPU":
        raise ValueError(f"For 'move_to', mycel moves tensors only to 'CPU' this way (the "
                         f"context's device_target places computations), but got {to!r}.")
    return x


def deepcopy(input_x):
    """A copy of the tensor that shares no memory with it."""
    x = _t(input_x, "deepcopy", "input_x")
    return prim("Add")(x, prim("ZerosLike")(x)) if x.dtype != _C.bool else \
        prim("LogicalAnd")(x, x)


def print_(*input_x):
    """Prints its arguments (tensors and strings) like ops.Print and returns None."""
    _print()(*input_x)


def dyn_shape(input_x):
    """The shape as a 1-D int64 tensor."""
    x = _t(input_x, "dyn_shape", "input_x")
    return _shape_t(x.shape)


@constexpr
def _shape_t(shape):
    return _C.Tensor(np.array(tuple(shape), np.int64))


def _print():
    from mycel.ops.operations.host_ops import Print  # the primitive module imports this one
    return Print()


def nms_with_mask(bboxes, iou_threshold=0.5):
    """MindSpore's NMSWithMask on CPU: (the boxes (N, 5) sorted by score, highest first;
    arange(N) int32, the positions in that order; the kept mask). Box j is dropped when a
    kept box before it overlaps it with IoU > iou_threshold (areas (x1 - x0) (y1 - y0)); the
    greedy pass is unrolled over the static N."""
    b = _t(bboxes, "NMSWithMask", "bboxes")
    _nms_check(b.shape, b.dtype)
    n = b.shape[0]
    score = prim("Reshape")(prim("StridedSlice")(b, (0, 4), (n, 5), (1, 1)), (n,))
    _, order = prim("TopK", sorted=True)(score, n)
    s = prim("Gather")(b, order, 0)
    x0, y0, x1, y1 = _cols(prim("StridedSlice")(s, (0, 0), (n, 4), (1, 1)))
    tx0, ty0 = prim("Reshape")(x0, (1, n)), prim("Reshape")(y0, (1, n))
    tx1, ty1 = prim("Reshape")(x1, (1, n)), prim("Reshape")(y1, (1, n))
    w = prim("Maximum")(prim("Minimum")(x1, tx1) - prim("Maximum")(x0, tx0), 0.0)
    h = prim("Maximum")(prim("Minimum")(y1, ty1) - prim("Maximum")(y0, ty0), 0.0)
    inter = w * h
    area = (x1 - x0) * (y1 - y0)
    iou_m = inter / (area + prim("Reshape")(area, (1, n)) - inter)
    drop = prim("LogicalAnd")(prim("Greater")(iou_m, float(iou_threshold)), _upper(n))
    keep = prim("OnesLike")(prim("Cast")(score, _C.int32))
    keep = prim("Cast")(keep, _C.bool)
    for i in range(n - 1):
        row = prim("Reshape")(prim("StridedSlice")(drop, (i, 0), (i + 1, n), (1, 1)), (n,))
        ki = prim("StridedSlice")(keep, (i,), (i + 1,), (1,))
        keep = prim("LogicalAnd")(keep, prim("LogicalNot")(prim("LogicalAnd")(row, ki)))
    return s, _arange_i32(n), keep


@constexpr
def _nms_check(shape, dtype):
    if len(shape) != 2 or shape[1] != 5:
        raise ValueError(f"For 'NMSWithMask', bboxes must have shape (N, 5), but got "
                         f"{tuple(shape)}.")
    if dtype not in (_C.float16, _C.float32):
        raise TypeError(f"For 'NMSWithMask', bboxes must be float16 or float32, but got "
                        f"{dtype}.")
    return True


@constexpr
def _upper(n):
    return _C.Tensor(np.triu(np.ones((n, n), bool), 1))


@constexpr
def _arange_i32(n):
    return _C.Tensor(np.arange(n, dtype=np.int32))


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True):
    """Greedy CTC decoding of inputs (max_time, batch, classes) (the last class is the blank):
    the best class per step over each sequence's length, repeats merged (merge_repeated),
    blanks removed. Returns MindSpore's sparse form (decoded_indices [N, 2] int64 (batch,
    position), decoded_values [N] int64, decoded_shape [2] int64 (batch, longest),
    log_probability [batch, 1]: minus the sum of the best logits). N depends on the values:
    PYNATIVE mode."""
    x = _t(inputs, "CTCGreedyDecoder", "inputs")
    L = _t(sequence_length, "CTCGreedyDecoder", "sequence_length")
    if x.ndim != 3 or L.shape != (x.shape[1],):
        raise ValueError(f"For 'CTCGreedyDecoder', inputs must be (T, B, C) and "
                         f"sequence_length (B,), but got {x.shape} and {L.shape}.")
    t, b, c = x.shape
    best = prim("Argmax", axis=-1, output_type=_C.int64)(x)  # [T, B]
    top = prim("ReduceMax")(x, (-1,))
    steps = prim("Reshape")(_arange(t), (t, 1))
    live = prim("Less")(steps, prim("Reshape")(prim("Cast")(L, _C.int64), (1, b)))
    logp = -prim("ReduceSum")(prim("Select")(live, top, prim("ZerosLike")(top)), (0,))
    keep = prim("LogicalAnd")(live, prim("NotEqual")(best, c - 1))
    if merge_repeated and t > 1:
        prev = _a.concat((prim("ZerosLike")(best[:1]) - 1, best[:t - 1]), 0)
        keep = prim("LogicalAnd")(keep, prim("NotEqual")(best, prev))
    kb = prim("Transpose")(keep, (1, 0))  # [B, T], batch-major order
    vb = prim("Transpose")(best, (1, 0))
    values = prim("MaskedSelect")(vb, kb)
    pos = prim("CumSum")(prim("Cast")(kb, _C.int64), 1) - 1
    batch = prim("BroadcastTo", shape=(b, t))(prim("Reshape")(_arange(b), (b, 1)))
    rows = prim("MaskedSelect")(batch, kb)
    cols = prim("MaskedSelect")(pos, kb)
    indices = prim("Stack", axis=1)((rows, cols))
    longest = prim("ReduceMax")(prim("ReduceSum")(prim("Cast")(kb, _C.int64), (1,)), ())
    shape = prim("Stack", axis=0)((prim("Cast")(_C.Tensor(np.int64(b)), _C.int64),
                                   prim("Cast")(longest, _C.int64)))
    return indices, values, shape, prim("Reshape")(prim("Cast")(logp, x.dtype), (b, 1))
