"""MindSpore 2.x functions composed from table ops (the names docs/compatibility.md listed
absent): ``ops.median`` and ``ops.nanmedian`` (values and int64 indices along an axis),
``ops.unfold`` (im2col of a 4-D input, also Tensor.unfold and the Im2Col primitive),
``ops.crop_and_resize`` (TensorFlow's crops of normalised boxes), the work of
``ops.LogUniformCandidateSampler`` (TensorFlow's Zipfian candidate sampler) and
``ops.moe_token_permute`` / ``ops.moe_token_unpermute`` (mixture-of-experts routing). Both
modes and gradients come from the ops they are built of.
"""
import math
import numbers

import numpy as np

from mycel import _mycel as _C
from mycel.ops.function import array_func as _a
from mycel.ops.function import stats_ext_func as _st, crop_resize_func as _cr
from mycel.ops.function._util import prim, as_tensor
from mycel.ops.primitive import constexpr

__all__ = ["median", "nanmedian", "unfold", "crop_and_resize", "moe_token_permute",
           "moe_token_unpermute"]

_MEDIAN_DTYPES = (_C.int16, _C.int32, _C.int64, _C.float32, _C.float64)


@constexpr
def _median_args(op, dtype, axis, keepdims):
    if dtype not in _MEDIAN_DTYPES:
        raise TypeError(f"For '{op}', the input must be int16, int32, int64, float32 or "
                        f"float64, but got {dtype}.")
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"For '{op}', 'axis' must be an int, but got {type(axis).__name__}.")
    if not isinstance(keepdims, bool):
        raise TypeError(f"For '{op}', 'keepdims' must be a bool, but got "
                        f"{type(keepdims).__name__}.")
    return int(axis)


def median(input, axis=-1, keepdims=False):  # noqa: A002 (MindSpore's argument name)
    """(values, int64 indices): the lower median along axis (of an even count, the smaller of
    the two middle values) and where it sits in input (the element at that rank of a stable
    sort, so among equal values the one MindSpore's CPU kernel may not pick: MindSpore leaves
    the index of a repeated median unspecified). A NaN in a slice makes its median NaN (the
    index of a NaN)."""
    x = as_tensor(input)
    ax = _median_args("median", x.dtype, axis, keepdims)
    return _st.median_values(x, False, ax, keepdims, False, "median")


def nanmedian(input, axis=-1, keepdims=False):  # noqa: A002 (MindSpore's argument name)
    """(values, int64 indices): the lower median along axis of the elements that are not NaN
    and where it sits in input; a slice of NaNs only gives NaN and the index of its first."""
    x = as_tensor(input)
    ax = _median_args("nanmedian", x.dtype, axis, keepdims)
    return _st.median_values(x, False, ax, keepdims, True, "nanmedian")


@constexpr
def _unfold_plan(op, shape, kernel_size, dilation, padding, stride):
    def pair(v, name):
        v = (v, v) if isinstance(v, int) and not isinstance(v, bool) else v
        if not isinstance(v, (tuple, list)) or len(v) != 2 or \
                any(isinstance(e, bool) or not isinstance(e, int) for e in v):
            raise TypeError(f"For '{op}', {name} must be an int or two ints, but got {v!r}.")
        return tuple(v)
    k, d, p, s = (pair(kernel_size, "kernel_size"), pair(dilation, "dilation"),
                  pair(padding, "padding"), pair(stride, "stride"))
    if len(shape) != 4:
        raise ValueError(f"For '{op}', the input must be 4-D (N, C, H, W), but got shape "
                         f"{tuple(shape)}.")
    if min(k) < 1 or min(d) < 1 or min(s) < 1 or min(p) < 0:
        raise ValueError(f"For '{op}', kernel_size, dilation and stride must be >= 1 and "
                         f"padding >= 0, but got {k}, {d}, {s} and {p}.")
    out = tuple((shape[2 + a] + 2 * p[a] - d[a] * (k[a] - 1) - 1) // s[a] + 1 for a in (0, 1))
    if min(out) < 1:
        raise ValueError(f"For '{op}', the kernel {k} with dilation {d} does not fit the input "
                         f"of shape {tuple(shape)} padded by {p}.")
    starts = tuple((i * d[0], j * d[1]) for i in range(k[0]) for j in range(k[1]))
    return k, s, p, out, starts


def unfold_blocks(op, x, kernel_size, dilation, padding, stride):
    """The sliding blocks of x (N, C, H, W) as (N, C, kh * kw, L): block element (i, j) of
    the block at output position (r, c) is x[n, ch, r * sh + i * dh - ph, c * sw + j * dw - pw]
    (0 in the padding); L = oh * ow positions in row-major order."""
    k, s, p, out, starts = _unfold_plan(op, x.shape, kernel_size, dilation, padding, stride)
    if p[0] or p[1]:
        x = _a.pad(x, (p[1], p[1], p[0], p[0]))
    n, c = x.shape[0], x.shape[1]
    cols = ()
    for a, b in starts:
        piece = _a.strided_slice(x, (0, 0, a, b),
                                 (n, c, a + (out[0] - 1) * s[0] + 1, b + (out[1] - 1) * s[1] + 1),
                                 (1, 1, s[0], s[1]))
        cols = cols + (piece,)
    blocks = _a.stack(cols, 2)  # (N, C, kh * kw, oh, ow)
    return _a.reshape(blocks, (n, c, k[0] * k[1], out[0] * out[1]))


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """The sliding blocks of a 4-D input (N, C, H, W) as columns (N, C * kh * kw, L), L the
    number of block positions (im2col; torch.nn.functional.unfold). Each of kernel_size,
    dilation, padding and stride is an int or a pair (height, width)."""
    x = as_tensor(input)
    cols = unfold_blocks("unfold", x, kernel_size, dilation, padding, stride)
    return _a.reshape(cols, (cols.shape[0], cols.shape[1] * cols.shape[2], cols.shape[3]))


@constexpr
def _crop_method(method):
    if not isinstance(method, str) or method not in _cr.METHODS:
        raise ValueError(f"For 'crop_and_resize', 'method' must be one of {_cr.METHODS}, but "
                         f"got {method!r}.")
    return method


def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear",
                    extrapolation_value=0.0):
    """Crops of image [N, H, W, C] at the normalised boxes [B, 4] (y1, x1, y2, x2) of images
    box_indices [B] (int32), each resized to crop_size (h, w) by 'bilinear' or 'nearest'
    sampling; positions outside the image take extrapolation_value. Float32 [B, h, w, C]
    (TensorFlow's crop_and_resize; ops/function/crop_resize_func.py, as ops.CropAndResize)."""
    method = _crop_method(method)
    return _cr.crop_and_resize(image, boxes, box_indices, crop_size, method,
                               float(extrapolation_value))


# ------------------------------------------------------------------ log-uniform sampler
@constexpr
def _log_uniform_probs(range_max):
    """P(c) = log((c + 2) / (c + 1)) / log(range_max + 1), c in [0, range_max), as float64."""
    c = np.arange(range_max, dtype=np.float64)
    return _C.Tensor(np.log1p(1.0 / (c + 1.0)) / math.log(range_max + 1.0))


def _class_prob(classes, range_max):
    """The log-uniform probability of each class (0 outside [0, range_max)), float64."""
    c = prim("Cast")(classes, _C.float64)
    p = prim("Div")(prim("Log1p")(prim("Div")(1.0, prim("Add")(c, 1.0))),
                    math.log(range_max + 1.0))
    inside = prim("LogicalAnd")(prim("GreaterEqual")(c, 0.0), prim("Less")(c, float(range_max)))
    return prim("Select")(inside, p, prim("ZerosLike")(p))


def _expected(p, tries, unique, num_sampled):
    """TensorFlow's expected count: num_sampled * p with replacement; for unique samples the
    probability that the class came up in `tries` draws, -expm1(tries * log1p(-p))."""
    if unique:
        return prim("Neg")(prim("Expm1")(prim("Mul")(tries, prim("Log1p")(prim("Neg")(p)))))
    return prim("Mul")(p, float(num_sampled))


def log_uniform_sample(true_classes, num_sampled, unique, range_max, uniform):
    """The work of LogUniformCandidateSampler (uniform(shape) draws float64 in [0, 1)):
    (sampled int64 [num_sampled], true_expected_count float32, sampled_expected_count
    float32). With replacement each draw is floor(exp(u log(range_max + 1))) - 1 (the inverse
    of the log-uniform CDF). Unique samples are the classes of num_sampled draws with repeats
    rejected, which is successive sampling without replacement: the num_sampled largest keys
    log(P(c)) - log(-log(u_c)) (Gumbel top-k), in draw order; the number of draws TensorFlow
    counts (each new class after j distinct ones with mass S_j takes a geometric number of
    tries with success 1 - S_j) is drawn from its exact distribution for the expected counts.
    """
    if unique:
        probs = _log_uniform_probs(range_max)
        u = prim("Maximum")(uniform((range_max,)), 1e-300)
        keys = prim("Sub")(prim("Log")(probs), prim("Log")(prim("Neg")(prim("Log")(u))))
        _, order = prim("Sort", axis=0, descending=True)(keys)
        sampled = prim("Cast")(order[:num_sampled], _C.int64)
        picked = prim("Gather")(probs, sampled, 0)
        before = prim("Sub")(prim("CumSum")(picked, 0), picked)  # S_j, the mass already drawn
        g = prim("Maximum")(uniform((num_sampled,)), 1e-300)
        wait = prim("Add")(prim("Floor")(prim("Div")(prim("Log")(g),
                                                     prim("Log")(prim("Maximum")(before,
                                                                                 1e-300)))),
                           1.0)
        first = prim("Equal")(before, 0.0)
        wait = prim("Select")(first, prim("OnesLike")(wait), wait)
        tries = prim("ReduceSum", keep_dims=False)(wait, ())
    else:
        u = uniform((num_sampled,))
        v = prim("Sub")(prim("Floor")(prim("Exp")(prim("Mul")(u, math.log(range_max + 1.0)))),
                        1.0)
        sampled = prim("Cast")(prim("Minimum")(prim("Maximum")(v, 0.0), float(range_max - 1)),
                               _C.int64)
        tries = float(num_sampled)
    true_p = _class_prob(true_classes, range_max)
    samp_p = _class_prob(sampled, range_max)
    return (sampled, prim("Cast")(_expected(true_p, tries, unique, num_sampled), _C.float32),
            prim("Cast")(_expected(samp_p, tries, unique, num_sampled), _C.float32))


# ------------------------------------------------------------------ MoE token permutation
@constexpr
def _permute_plan(t_shape, t_dtype, i_shape, i_dtype, num_out_tokens, padded_mode):
    op = "moe_token_permute"
    if not isinstance(padded_mode, bool):
        raise TypeError(f"For '{op}', 'padded_mode' must be a bool, but got "
                        f"{type(padded_mode).__name__}.")
    if padded_mode:
        raise ValueError(f"For '{op}', padded_mode=True is not supported (as MindSpore).")
    if i_dtype not in (_C.int32, _C.int64):
        raise TypeError(f"For '{op}', 'indices' must be int32 or int64, but got {i_dtype}.")
    if len(t_shape) != 2 or len(i_shape) not in (1, 2) or i_shape[0] != t_shape[0]:
        raise ValueError(f"For '{op}', tokens must be [num_tokens, hidden] and indices "
                         f"[num_tokens] or [num_tokens, topk], but got {tuple(t_shape)} and "
                         f"{tuple(i_shape)}.")
    topk = i_shape[1] if len(i_shape) == 2 else 1
    if topk > 512:
        raise ValueError(f"For '{op}', topk (indices' second dim) must be at most 512, but got "
                         f"{topk}.")
    total = t_shape[0] * topk
    if num_out_tokens is None:
        return topk, total
    if isinstance(num_out_tokens, bool) or not isinstance(num_out_tokens, int) or \
            num_out_tokens < 0:
        raise TypeError(f"For '{op}', 'num_out_tokens' must be a non-negative int or None, but "
                        f"got {num_out_tokens!r}.")
    return topk, min(num_out_tokens, total)


def moe_token_permute(tokens, indices, num_out_tokens=None, padded_mode=False):
    """(permuted_tokens, sorted_indices int32): the rows of tokens [num_tokens, hidden] grouped
    by their expert index (indices [num_tokens] or [num_tokens, topk]; row i appears once per
    choice): order = the stable argsort of the flattened indices, permuted_tokens[p] =
    tokens[order[p] // topk] for the first num_out_tokens positions p (all when None), and
    sorted_indices = the inverse of order (where each choice i * topk + k landed)."""
    t, idx = as_tensor(tokens), as_tensor(indices)
    topk, n_out = _permute_plan(t.shape, t.dtype, idx.shape, idx.dtype, num_out_tokens,
                                padded_mode)
    flat = prim("Reshape")(prim("Cast")(idx, _C.int64), (-1,))
    _, order = prim("Sort", axis=0)(flat)
    order = prim("Cast")(order, _C.int64)
    _, inverse = prim("Sort", axis=0)(order)
    rows = prim("FloorDiv")(order[:n_out], topk)
    return prim("Gather")(t, rows, 0), prim("Cast")(inverse, _C.int32)


@constexpr
def _unpermute_plan(p_shape, s_shape, s_dtype, pr_shape, padded_mode, restore_shape):
    op = "moe_token_unpermute"
    if padded_mode:
        raise ValueError(f"For '{op}', padded_mode=True is not supported (as MindSpore).")
    if restore_shape is not None:
        raise ValueError(f"For '{op}', 'restore_shape' is only used in padded mode; pass None.")
    if s_dtype != _C.int32 or len(s_shape) != 1 or len(p_shape) != 2:
        raise ValueError(f"For '{op}', permuted_tokens must be 2-D and sorted_indices int32 "
                         f"1-D, but got {tuple(p_shape)} and {s_dtype} {tuple(s_shape)}.")
    topk = 1 if pr_shape is None else (pr_shape[1] if len(pr_shape) == 2 else -1)
    if topk < 1 or s_shape[0] % topk or \
            (pr_shape is not None and pr_shape[0] * topk != s_shape[0]):
        raise ValueError(f"For '{op}', probs must be [num_tokens, topk] with num_tokens * topk "
                         f"= {s_shape[0]} (the sorted_indices), but got {pr_shape}.")
    return topk, s_shape[0] // topk


def moe_token_unpermute(permuted_tokens, sorted_indices, probs=None, padded_mode=False,
                        restore_shape=None):
    """The inverse of moe_token_permute: out[i] = sum_k permuted_tokens[sorted_indices[i * topk
    + k]] * probs[i, k] (weight 1 without probs, topk = 1), [num_tokens, hidden]; a choice
    whose position lies past permuted_tokens (dropped by num_out_tokens) adds nothing."""
    p, s = as_tensor(permuted_tokens), as_tensor(sorted_indices)
    pr_shape = None if probs is None else as_tensor(probs).shape
    topk, n = _unpermute_plan(p.shape, s.shape, s.dtype, pr_shape, padded_mode, restore_shape)
    rows = p.shape[0]
    pos = prim("Cast")(s, _C.int64)
    kept = prim("Less")(pos, rows)
    picked = prim("Gather")(p, prim("Select")(kept, pos, prim("ZerosLike")(pos)), 0)
    weight = prim("Cast")(kept, p.dtype)
    if probs is not None:
        weight = prim("Mul")(weight, prim("Reshape")(prim("Cast")(probs, p.dtype), (-1,)))
    picked = prim("Mul")(picked, prim("ExpandDims")(weight, 1))
    return prim("ReduceSum", keep_dims=False)(prim("Reshape")(picked, (n, topk, p.shape[1])),
                                              (1,))
