"""Fractional max pooling (MindSpore's FractionalMaxPool and FractionalMaxPoolGrad, after
Graham's paper and TensorFlow's kernels), composed from op-table primitives. Layout NHWC.

Each pooled axis of length L gets out = floor(L / ratio) regions, given by a sequence
0 = a_0 < ... < a_out = L whose steps are k = L // out or k + 1: all k when out divides L;
otherwise 'pseudo_random' a_i = ceil(alpha (i + u)) - ceil(alpha u) + ... (Graham's pseudo
random sequence, alpha = L / out, u uniform in [0, u_max)), or by default the L % out steps
of k + 1 at random positions. The random numbers come from mycel's generator (UniformReal,
drawn at run time each call; the instance's own stream when seeded), so a seeded instance
is reproducible in mycel but its sequences are not MindSpore's. deterministic=True fixes the
sequences at the first trace (from the seeds). Region i covers [a_i, a_{i+1}) ([a_i,
a_{i+1}] clipped to L - 1 with overlapping). The maximum is separable: over each column
region, then each row region, through region masks (memory N H OW W C); integer inputs use
the dtype's lowest value for masked-out elements. The gradient (FractionalMaxPoolGrad) sends
each output's backprop to its region's first maximum in row-major order.
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim
from mycel.ops.primitive import constexpr


@constexpr
def _lowest(dtype):
    np_dt = {_C.float16: np.float16, _C.float32: np.float32, _C.float64: np.float64,
             _C.int32: np.int32, _C.int64: np.int64}[dtype]
    v = -np.inf if np.issubdtype(np_dt, np.floating) else np.iinfo(np_dt).min
    return _C.Tensor(np.array(v, np_dt))


@constexpr
def _arange(n):
    return _C.Tensor(np.arange(n, dtype=np.int64))


@constexpr
def _fixed_sequence(length, out, pseudo_random, seed, seed2):
    """A sequence drawn once from the seeds (deterministic=True), or the even one."""
    k = length // out
    if length % out == 0:
        return _C.Tensor(np.arange(out + 1, dtype=np.int64) * k)
    gen = np.random.default_rng([seed, seed2, length, out])
    return _C.Tensor(_sequence_np(length, out, pseudo_random, gen))


def _sequence_np(length, out, pseudo_random, gen):
    k = length // out
    if pseudo_random:
        alpha = length / out
        u_max = min((k + 2) / alpha - 1, (length + 1 - k) / alpha - (out - 1))
        u = gen.random() * u_max
        cum = [0] + [int(np.ceil(alpha * (i + u))) - 1 for i in range(1, out)] + [length]
        return np.array(cum, np.int64)
    diff = np.full(out, k, np.int64)
    diff[gen.permutation(out)[:length % out]] += 1
    return np.concatenate([[0], np.cumsum(diff)]).astype(np.int64)


def _random_sequence(length, out, pseudo_random, uniform):
    """The sequence [out + 1] int64 drawn at run time; uniform(shape) gives float64 numbers."""
    k = length // out
    if length % out == 0:
        return _arange(out + 1) * k
    if pseudo_random:
        alpha = length / out
        u_max = min((k + 2) / alpha - 1, (length + 1 - k) / alpha - (out - 1))
        u = uniform(()) * u_max
        inner = prim("Cast")(prim("Ceil")((prim("Cast")(_arange(out - 1), _C.float64) + 1.0 + u)
                                          * alpha), _C.int64) - 1
        zero = prim("ZerosLike")(_arange(1))
        return prim("Concat", axis=0)((zero, inner, zero + length))
    keys = uniform((out,))
    _, order = prim("Sort", axis=0, descending=False)(keys)
    # The k + 1 steps go to the first length % out positions of a random permutation.
    perm_pos = prim("Cast")(order, _C.int64)
    extra = prim("Cast")(prim("Less")(_arange(out), length % out), _C.int64)
    diff = prim("ScatterNd")(prim("ExpandDims")(perm_pos, 1), extra, (out,)) + k
    zero = prim("ZerosLike")(_arange(1))
    return prim("Concat", axis=0)((zero, prim("CumSum")(diff, 0)))


def _region_mask(seq, out, length, overlapping):
    """[out, length] bool: element l in region i."""
    idx = prim("Reshape")(_arange(length), (1, length))
    lo = prim("Reshape")(seq[:out], (out, 1))
    hi = prim("Reshape")(seq[1:], (out, 1))
    upper = prim("LessEqual")(idx, hi) if overlapping else prim("Less")(idx, hi)
    return prim("LogicalAnd")(prim("GreaterEqual")(idx, lo), upper)


def fractional_max_pool(x, out_h, out_w, row_seq, col_seq, overlapping):
    """[N, out_h, out_w, C]: the maximum of each region of NHWC x."""
    n, h, w, c = x.shape
    low = _lowest(x.dtype)
    mw = prim("Reshape")(_region_mask(col_seq, out_w, w, overlapping), (1, 1, out_w, w, 1))
    cols = prim("Select")(prim("BroadcastTo", shape=(n, h, out_w, w, c))(mw),
                          prim("BroadcastTo", shape=(n, h, out_w, w, c))(
                              prim("ExpandDims")(x, 2)),
                          prim("BroadcastTo", shape=(n, h, out_w, w, c))(low))
    y = prim("ReduceMax", keep_dims=False)(cols, (3,))  # [N, H, OW, C]
    mh = prim("Reshape")(_region_mask(row_seq, out_h, h, overlapping), (1, out_h, h, 1, 1))
    rows = prim("Select")(prim("BroadcastTo", shape=(n, out_h, h, out_w, c))(mh),
                          prim("BroadcastTo", shape=(n, out_h, h, out_w, c))(
                              prim("ExpandDims")(y, 1)),
                          prim("BroadcastTo", shape=(n, out_h, h, out_w, c))(low))
    return prim("ReduceMax", keep_dims=False)(rows, (2,))


def fractional_max_pool_grad(orig_input, out_backprop, row_seq, col_seq, overlapping):
    """[N, H, W, C]: each out_backprop value added at its region's first maximum (row-major)."""
    n, h, w, c = orig_input.shape
    _, oh, ow, _ = out_backprop.shape
    low = _lowest(orig_input.dtype)
    mh = _region_mask(row_seq, oh, h, overlapping)
    mw = _region_mask(col_seq, ow, w, overlapping)
    region = prim("LogicalAnd")(prim("Reshape")(mh, (oh, 1, h, 1)),
                                prim("Reshape")(mw, (1, ow, 1, w)))  # [OH, OW, H, W]
    region = prim("Reshape")(region, (1, oh, ow, h * w, 1))
    shape = (n, oh, ow, h * w, c)
    vals = prim("BroadcastTo", shape=shape)(prim("Reshape")(orig_input, (n, 1, 1, h * w, c)))
    masked = prim("Select")(prim("BroadcastTo", shape=shape)(region), vals,
                            prim("BroadcastTo", shape=shape)(low))
    first = prim("Argmax", axis=3, output_type=_C.int64)(masked)  # [N, OH, OW, C]
    hot = prim("OneHot", axis=3, dtype=out_backprop.dtype)(first, h * w, 1.0, 0.0)
    contrib = hot * prim("ExpandDims")(out_backprop, 3)
    dx = prim("ReduceSum", keep_dims=False)(contrib, (1, 2))  # [N, H * W, C]
    return prim("Reshape")(dx, (n, h, w, c))


def _counts(mask):
    return prim("ReduceSum", keep_dims=False)(prim("Cast")(mask, _C.float64), (1,))


def fractional_avg_pool(x, out_h, out_w, row_seq, col_seq, overlapping):
    """[N, out_h, out_w, C]: the average of each region of NHWC x (integers: the sum divided
    with truncation, as TensorFlow's kernel)."""
    n, h, w, c = x.shape
    mh = prim("Cast")(_region_mask(row_seq, out_h, h, overlapping), _C.float64)  # [OH, H]
    mw = prim("Cast")(_region_mask(col_seq, out_w, w, overlapping), _C.float64)  # [OW, W]
    xf = prim("Cast")(x, _C.float64)
    # sum over the column regions, then the row regions: [N, H, W, C] -> [N, OH, OW, C]
    cols = prim("BatchMatMul")(prim("BroadcastTo", shape=(n, out_w, w))(mw),
                               prim("Reshape")(prim("Transpose")(xf, (0, 2, 1, 3)),
                                               (n, w, h * c)))  # [N, OW, H * C]
    cols = prim("Transpose")(prim("Reshape")(cols, (n, out_w, h, c)), (0, 2, 1, 3))
    sums = prim("BatchMatMul")(prim("BroadcastTo", shape=(n, out_h, h))(mh),
                               prim("Reshape")(cols, (n, h, out_w * c)))
    sums = prim("Reshape")(sums, (n, out_h, out_w, c))
    count = prim("Reshape")(_counts(mh), (1, out_h, 1, 1)) * prim("Reshape")(
        _counts(mw), (1, 1, out_w, 1))
    avg = sums / count
    if x.dtype in (_C.int32, _C.int64):
        avg = prim("Select")(prim("Less")(avg, 0.0), prim("Ceil")(avg), prim("Floor")(avg))
    return prim("Cast")(avg, x.dtype)


def fractional_avg_pool_grad(shape, out_backprop, row_seq, col_seq, overlapping):
    """[N, H, W, C] of `shape`: each out_backprop value spread evenly over its region."""
    n, h, w, c = shape
    _, oh, ow, _ = out_backprop.shape
    mh = prim("Cast")(_region_mask(row_seq, oh, h, overlapping), _C.float64)
    mw = prim("Cast")(_region_mask(col_seq, ow, w, overlapping), _C.float64)
    count = prim("Reshape")(_counts(mh), (1, oh, 1, 1)) * prim("Reshape")(_counts(mw),
                                                                          (1, 1, ow, 1))
    share = prim("Cast")(out_backprop, _C.float64) / count  # [N, OH, OW, C]
    # spread over rows: [N, H, OW * C], then columns: [N, H, W, C]
    rows = prim("BatchMatMul", transpose_a=True)(
        prim("BroadcastTo", shape=(n, oh, h))(mh), prim("Reshape")(share, (n, oh, ow * c)))
    rows = prim("Reshape")(rows, (n * h, ow, c))
    dx = prim("BatchMatMul", transpose_a=True)(prim("BroadcastTo", shape=(n * h, ow, w))(mw),
                                               rows)
    dx = prim("Reshape")(dx, (n, h, w, c))
    if out_backprop.dtype in (_C.int32, _C.int64):
        # Truncation of the exact sum of the shares: the float64 sum of fractions that add up
        # to an integer can land a few ulps below it (13/3 * 3 = 12.999...), so values within
        # 1e-13 relative of an integer count as it (sums of a few shares of small regions are
        # never that close to an integer otherwise).
        tol = (prim("Abs")(dx) + 1.0) * 1e-13
        dx = prim("Select")(prim("Less")(dx, 0.0), prim("Ceil")(dx - tol),
                            prim("Floor")(dx + tol))
    return prim("Cast")(dx, out_backprop.dtype)


@constexpr
def shape_value(shape):
    """A shape given as a 1-D int tensor of 4 values or a tuple, as a tuple of ints."""
    vals = shape.asnumpy().reshape(-1).tolist() if isinstance(shape, _C.Tensor) else list(shape)
    if len(vals) != 4:
        raise ValueError(f"For 'FractionalAvgPoolGrad', the input shape must have 4 values, but "
                         f"got {vals}.")
    return tuple(int(v) for v in vals)
