"""Resampling functions (MindSpore 2.x names): adaptive pooling and ``interpolate``.

All are compositions of existing ops whose index tables and weight matrices are computed at
trace time from the static shapes (constexpr helpers), so they are exact, differentiable
through the ops' own backward rules, and compile in GRAPH mode to a few ops:

- adaptive pooling splits an axis of length L into `out` bins, bin i covering [floor(i * L /
  out), ceil((i + 1) * L / out)) (PyTorch's and MindSpore's rule). Averages are one matmul
  with an [L, out] matrix of 1 / |bin| entries; maxima gather each bin's elements (bins
  shorter than the longest repeat their first element, which leaves the maximum and, since
  ReduceMax shares ties equally, the gradient unchanged) and reduce over them. 2-d pooling
  and 3-d pooling do the last axis, then the one before, ... (bins are boxes). With
  return_indices the maxima gather whole boxes at once (a table of flat indices) and Argmax
  picks each box's first maximum, mapped back through the table.
- ``interpolate`` 'nearest'/'nearest-exact' gathers source indices; 'linear'/'bilinear' and
  'area' multiply by [L, out] interpolation (or averaging) matrices along each resized axis.
"""
import itertools
import math

import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor, host_bytes, tensor_arg
from mycel.ops.primitive import constexpr
from mycel.ops.function import array_func as _a

_matmul = prim("MatMul")
_batch_matmul = prim("BatchMatMul")


def _bins(length, out):
    host_bytes("adaptive_pool", 128 * out)  # a Python list of out pairs
    return [(i * length // out, -(-(i + 1) * length // out)) for i in range(out)]


def _np_dtype(dtype):
    return {_C.float64: np.float64, _C.float16: np.float16}.get(dtype, np.float32)


def _matrix_tensor(m, dtype):
    t = _C.Tensor(np.ascontiguousarray(m.astype(np.float64 if dtype == _C.float64 else
                                                 np.float32)))
    return t if dtype in (_C.float32, _C.float64) else t.astype(dtype)


@constexpr
def _avg_matrix(length, out, dtype):
    """[length, out]: column i averages bin i."""
    host_bytes("adaptive_avg_pool", 8 * length * out + 64 * out)  # the matrix, the loop
    m = np.zeros((length, out))
    for i, (s, e) in enumerate(_bins(length, out)):
        m[s:e, i] = 1.0 / (e - s)
    return _matrix_tensor(m, dtype)


@constexpr
def _max_index(length, out):
    """[out, widest bin] int64 indices of each bin's elements (short bins repeat their
    first)."""
    bins = _bins(length, out)
    width = max(e - s for s, e in bins)
    idx = np.array([[s + j if s + j < e else s for j in range(width)] for s, e in bins],
                   dtype=np.int64)
    return _C.Tensor(idx)


def _along(x, axis, matrix):
    """x with its axis `axis` (negative) multiplied by matrix [L, out]."""
    if axis == -1:
        if x.ndim == 2:
            return _matmul(x, matrix)
        return _batch_matmul(x, matrix.broadcast_to(x.shape[:-2] + matrix.shape))
    if axis == -2:
        mt = matrix.transpose(1, 0)
        return _batch_matmul(mt.broadcast_to(x.shape[:-2] + mt.shape), x)
    return _along(x.swapaxes(axis, -1), -1, matrix).swapaxes(axis, -1)


def _adaptive_avg(x, axis, out):
    return _along(x, axis, _avg_matrix(x.shape[axis], out, x.dtype))


def _adaptive_max(x, axis, out):
    picked = prim("Gather")(x, _max_index(x.shape[axis], out), x.ndim + axis)
    return prim("ReduceMax", keep_dims=False)(picked, (x.ndim + axis + 1,))


@constexpr
def _output_size(name, shape, output_size, dims):
    """output_size (an int, or a tuple of `dims` ints or None = keep) as a tuple of ints; checks
    the input is (dims + 1)-d or (dims + 2)-d and floating point."""
    if len(shape) not in (dims + 1, dims + 2):
        raise ValueError(f"For '{name}', the input must be {dims + 1}-d or {dims + 2}-d, but "
                         f"got shape {tuple(shape)}.")
    if isinstance(output_size, int) and not isinstance(output_size, bool):
        output_size = (output_size,) * dims
    if not isinstance(output_size, (tuple, list)) or len(output_size) != dims:
        raise ValueError(f"For '{name}', output_size must be an int or a tuple of {dims} ints, "
                         f"but got {output_size!r}.")
    sizes = []
    for o, n in zip(output_size, shape[-dims:]):
        o = n if o is None else o
        if isinstance(o, bool) or not isinstance(o, int) or o <= 0:
            raise ValueError(f"For '{name}', output_size must hold positive ints (or None), but "
                             f"got {output_size!r}.")
        sizes.append(o)
    return tuple(sizes)


@constexpr
def _check_float(name, dtype):
    if not dtype.is_floating_point:
        raise TypeError(f"For '{name}', the input must be a floating-point tensor, but got "
                        f"{dtype}.")


@constexpr
def _box_index(in_sizes, out_sizes):
    """[boxes, widest box] int64 flat indices (into the trailing axes of sizes in_sizes) of
    each adaptive box, boxes in row-major order of out_sizes; short boxes repeat their
    first index."""
    per_axis = [_bins(n, o) for n, o in zip(in_sizes, out_sizes)]
    boxes = []
    for box in itertools.product(*per_axis):
        cells = itertools.product(*[range(s, e) for s, e in box])
        boxes.append([int(np.ravel_multi_index(c, in_sizes)) for c in cells])
    width = max(len(b) for b in boxes)
    return _C.Tensor(np.array([b + b[:1] * (width - len(b)) for b in boxes], np.int64))


@constexpr
def _box_plan(shape, dims, sizes):
    """(flat input shape, flat output shape, output shape, box offsets [boxes] * width)."""
    lead = tuple(shape[:len(shape) - dims])
    n_in = int(np.prod(shape[len(shape) - dims:]))
    n_out = int(np.prod(sizes))
    width = _box_index(tuple(shape[len(shape) - dims:]), sizes).shape[1]
    offsets = _C.Tensor(np.arange(n_out, dtype=np.int64) * width)
    return lead + (n_in,), lead + (n_out,), lead + tuple(sizes), offsets


def _adaptive_max_indices(x, dims, sizes):
    """(maxima, their flat indices into the pooled axes): each box's elements gathered at
    once, ReduceMax and Argmax over them (the first maximum's index)."""
    flat_in, _, out_shape, offsets = _box_plan(x.shape, dims, sizes)
    table = _box_index(tuple(x.shape[x.ndim - dims:]), sizes)
    picked = prim("Gather")(x.reshape(flat_in), table, len(flat_in) - 1)
    values = prim("ReduceMax", keep_dims=False)(picked, (picked.ndim - 1,))
    arg = prim("Argmax", axis=-1, output_type=_C.int64)(picked)
    index = prim("Gather")(table.reshape((-1,)), prim("Add")(arg, offsets), 0)
    return values.reshape(out_shape), index.reshape(out_shape)


def _adaptive(name, input, output_size, dims, average, return_indices=False):  # noqa: A002
    """Adaptive pooling of the last `dims` axes, the last one first (bins are boxes); with
    return_indices (maxima only) also the flat index of each maximum."""
    x = as_tensor(input)
    _check_float(name, x.dtype)
    sizes = _output_size(name, x.shape, output_size, dims)
    if return_indices:
        return _adaptive_max_indices(x, dims, sizes)
    for k in range(dims):
        axis = -1 - k
        if average:
            x = _adaptive_avg(x, axis, sizes[dims - 1 - k])
        else:
            x = _adaptive_max(x, axis, sizes[dims - 1 - k])
    return x


def adaptive_avg_pool1d(input, output_size):  # noqa: A002
    """Mean over output_size adaptive bins of the last axis of [N, C, L] or [C, L] input."""
    return _adaptive("adaptive_avg_pool1d", input, output_size, 1, True)


def adaptive_avg_pool2d(input, output_size):  # noqa: A002
    """Mean over adaptive bins of the last two axes of [N, C, H, W] or [C, H, W] input;
    output_size: an int or (h, w), None keeping that axis."""
    return _adaptive("adaptive_avg_pool2d", input, output_size, 2, True)


def adaptive_avg_pool3d(input, output_size):  # noqa: A002
    """Mean over adaptive bins of the last three axes of [N, C, D, H, W] or [C, D, H, W]
    input; output_size: an int or (d, h, w), None keeping that axis."""
    return _adaptive("adaptive_avg_pool3d", input, output_size, 3, True)


def adaptive_max_pool1d(input, output_size, return_indices=False):  # noqa: A002
    """Maximum over output_size adaptive bins of the last axis of [N, C, L] or [C, L] input;
    return_indices: also the int64 index of each maximum along that axis."""
    return _adaptive("adaptive_max_pool1d", input, output_size, 1, False, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):  # noqa: A002
    """Maximum over adaptive bins of the last two axes of [N, C, H, W] or [C, H, W] input;
    return_indices: also the int64 index of each maximum into H * W."""
    return _adaptive("adaptive_max_pool2d", input, output_size, 2, False, return_indices)


def adaptive_max_pool3d(input, output_size, return_indices=False):  # noqa: A002
    """Maximum over adaptive bins of the last three axes of [N, C, D, H, W] or [C, D, H, W]
    input; return_indices: also the int64 index of each maximum into D * H * W."""
    return _adaptive("adaptive_max_pool3d", input, output_size, 3, False, return_indices)


# ---- interpolate ---------------------------------------------------------------------------

_MODES = {"nearest": None, "nearest-exact": None, "linear": 1, "bilinear": 2, "area": None}


@constexpr
def _resize_plan(shape, size, scale_factor, mode, align_corners, recompute_scale_factor):
    """(output sizes, source scales) of the resized trailing axes of `shape`: the scale of an
    axis is in / out, or 1 / scale_factor when scale_factor is given and not recomputed
    (PyTorch's and MindSpore's rule)."""
    name = "interpolate"
    if mode not in _MODES:
        raise ValueError(f"For '{name}', mode must be one of {sorted(_MODES)}, but got "
                         f"{mode!r}.")
    dims = len(shape) - 2
    if dims not in (1, 2):
        raise ValueError(f"For '{name}', the input must be 3-d [N, C, L] or 4-d [N, C, H, W], "
                         f"but got shape {tuple(shape)}.")
    if _MODES[mode] is not None and _MODES[mode] != dims:
        raise ValueError(f"For '{name}', mode {mode!r} needs a {_MODES[mode] + 2}-d input, but "
                         f"got shape {tuple(shape)}.")
    if align_corners is not None and mode not in ("linear", "bilinear"):
        raise ValueError(f"For '{name}', align_corners is only valid with 'linear' or "
                         f"'bilinear', but got mode {mode!r}.")
    if (size is None) == (scale_factor is None):
        raise ValueError(f"For '{name}', exactly one of size and scale_factor must be given, "
                         f"but got size={size!r} and scale_factor={scale_factor!r}.")
    ins = tuple(shape[2:])
    if size is not None:
        sizes = (size,) * dims if isinstance(size, int) else tuple(size)
        if len(sizes) != dims or not all(isinstance(s, int) and s > 0 for s in sizes):
            raise ValueError(f"For '{name}', size must be a positive int or a tuple of {dims} "
                             f"positive ints, but got {size!r}.")
        return sizes, tuple(i / o for i, o in zip(ins, sizes))
    scales = ((scale_factor,) * dims if isinstance(scale_factor, (int, float))
              else tuple(scale_factor))
    if len(scales) != dims or not all(isinstance(s, (int, float)) and s > 0 for s in scales):
        raise ValueError(f"For '{name}', scale_factor must be a positive number or a tuple of "
                         f"{dims} positive numbers, but got {scale_factor!r}.")
    sizes = tuple(int(math.floor(i * s)) for i, s in zip(ins, scales))
    if not all(sizes):
        raise ValueError(f"For '{name}', the output size {sizes} of input {ins} and "
                         f"scale_factor {scale_factor!r} must be positive.")
    if recompute_scale_factor or mode == "area":
        return sizes, tuple(i / o for i, o in zip(ins, sizes))
    return sizes, tuple(1.0 / s for s in scales)


@constexpr
def _nearest_index(length, out, scale, exact):
    offset = 0.5 if exact else 0.0
    host_bytes("resize_nearest", 64 * out)
    idx = [min(int(math.floor((i + offset) * scale)), length - 1) for i in range(out)]
    return _C.Tensor(np.array(idx, dtype=np.int64))


@constexpr
def _linear_matrix(length, out, scale, align_corners, dtype):
    """[length, out]: column i weighs the two source elements around output i's position."""
    host_bytes("resize_bilinear", 8 * length * out + 64 * out)
    m = np.zeros((length, out))
    for i in range(out):
        if align_corners:
            src = i * (length - 1) / (out - 1) if out > 1 else 0.0
        else:
            src = max((i + 0.5) * scale - 0.5, 0.0)
        i0 = min(int(math.floor(src)), length - 1)
        i1 = min(i0 + 1, length - 1)
        lam = src - i0
        m[i0, i] += 1.0 - lam
        m[i1, i] += lam
    return _matrix_tensor(m, dtype)


@constexpr
def _resize_nearest_index(length, out, align_corners):
    """Source rows of MindSpore's ResizeNearestNeighbor: floor(i * length / out), or with
    align_corners the nearest of i * (length - 1) / (out - 1), halves rounded up."""
    host_bytes("resize_nearest_neighbor", 64 * out)  # a Python list of out ints
    if align_corners and out > 1:
        idx = [min((2 * i * (length - 1) + (out - 1)) // (2 * (out - 1)), length - 1)
               for i in range(out)]
    else:
        idx = [min(i * length // out, length - 1) for i in range(out)]
    return _C.Tensor(np.array(idx, dtype=np.int64))


@constexpr
def _check_resize_nearest(shape, size):
    if len(shape) != 4:
        raise ValueError(f"For 'ResizeNearestNeighbor', the input must be 4-d [N, C, H, W], but "
                         f"got shape {tuple(shape)}.")
    if not isinstance(size, (tuple, list)) or len(size) != 2 or not all(
            isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size):
        raise ValueError(f"For 'ResizeNearestNeighbor', 'size' must be two positive ints, but "
                         f"got {size!r}.")
    return tuple(size)


def resize_nearest_neighbor(input_x, size, align_corners=False):
    """[N, C, H, W] resized to `size` (new_height, new_width) by MindSpore's
    ResizeNearestNeighbor rule (_resize_nearest_index): each output pixel copies one input
    pixel, so every dtype is kept."""
    x = as_tensor(input_x)
    out = _check_resize_nearest(x.shape, size)
    for k in range(2):
        idx = _resize_nearest_index(x.shape[2 + k], out[k], bool(align_corners))
        x = prim("Gather")(x, idx, 2 + k)
    return x


def interpolate(input, size=None, scale_factor=None, mode="nearest",  # noqa: A002
                align_corners=None, recompute_scale_factor=None):
    """Resizes the trailing axes of [N, C, L] or [N, C, H, W] input to `size` (or by
    `scale_factor`). mode: 'nearest', 'nearest-exact', 'linear' (3-d), 'bilinear' (4-d) or
    'area' (adaptive average pooling); align_corners (linear modes) maps the corner pixels'
    centres onto each other."""
    x = as_tensor(input)
    sizes, scales = _resize_plan(x.shape, size, scale_factor, mode, align_corners,
                                 recompute_scale_factor)
    if mode != "nearest" and mode != "nearest-exact":
        _check_float("interpolate", x.dtype)
    for k in range(len(sizes)):
        axis = k - len(sizes)
        if mode == "area":
            x = _adaptive_avg(x, axis, sizes[k])
        elif mode == "nearest" or mode == "nearest-exact":
            idx = _nearest_index(x.shape[axis], sizes[k], scales[k], mode == "nearest-exact")
            x = prim("Gather")(x, idx, x.ndim + axis)
        else:
            m = _linear_matrix(x.shape[axis], sizes[k], scales[k], bool(align_corners),
                               x.dtype)
            x = _along(x, axis, m)
    return x


@constexpr
def _shuffle_shapes(name, shape, r, up):
    """(split shape, permutation, output shape) moving r x r channel blocks of [*, C, H, W]
    into space (up) or back."""
    if isinstance(r, bool) or not isinstance(r, int) or r <= 0:
        raise ValueError(f"For '{name}', the factor must be a positive int, but got {r!r}.")
    if len(shape) < 3:
        raise ValueError(f"For '{name}', the input must be at least 3-d [*, C, H, W], but got "
                         f"shape {tuple(shape)}.")
    lead, (c, h, w) = tuple(shape[:-3]), tuple(shape[-3:])
    n = len(lead)
    if up:
        if c % (r * r):
            raise ValueError(f"For '{name}', the channels ({c}) must be divisible by "
                             f"upscale_factor ** 2 ({r * r}), input shape {tuple(shape)}.")
        split = lead + (c // (r * r), r, r, h, w)
        perm = tuple(range(n)) + (n, n + 3, n + 1, n + 4, n + 2)
        return split, perm, lead + (c // (r * r), h * r, w * r)
    if h % r or w % r:
        raise ValueError(f"For '{name}', the height ({h}) and width ({w}) must be divisible by "
                         f"downscale_factor ({r}), input shape {tuple(shape)}.")
    split = lead + (c, h // r, r, w // r, r)
    perm = tuple(range(n)) + (n, n + 2, n + 4, n + 1, n + 3)
    return split, perm, lead + (c * r * r, h // r, w // r)


def _shuffle(name, x, r, up):
    x = as_tensor(x)
    split, perm, out = _shuffle_shapes(name, x.shape, r, up)
    return x.reshape(split).transpose(perm).reshape(out)


def pixel_shuffle(input, upscale_factor):  # noqa: A002
    """[*, C * r * r, H, W] -> [*, C, H * r, W * r], channel c * r * r + i * r + j going to
    pixel (h * r + i, w * r + j) of channel c (r = upscale_factor)."""
    return _shuffle("pixel_shuffle", input, upscale_factor, True)


def pixel_unshuffle(input, downscale_factor):  # noqa: A002
    """The inverse of pixel_shuffle: [*, C, H * r, W * r] -> [*, C * r * r, H, W]."""
    return _shuffle("pixel_unshuffle", input, downscale_factor, False)


__all__ = ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d", "interpolate",
           "pixel_shuffle", "pixel_unshuffle", "grid_sample"]


_FLOAT_DTYPES = (_C.float16, _C.float32, _C.float64)


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
    if xdt not in _FLOAT_DTYPES or gdt != xdt:
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
