"""Segment reductions (ops/function/segment_func.py: P.UnsortedSegmentMax/Min/Prod and
ops.unsorted_segment_max/min/prod/sum) against a numpy loop over the rows, values and
gradients, in PYNATIVE and GRAPH mode; vmap against a loop; errors."""
import numpy as np
import pytest

import mycel as ms
from mycel import nn, ops, Tensor
from mycel.ops import operations as P

RNG = np.random.default_rng(11)
COMBINE = {"max": np.maximum, "min": np.minimum, "prod": np.multiply}
PRIM = {"max": P.UnsortedSegmentMax, "min": P.UnsortedSegmentMin, "prod": P.UnsortedSegmentProd}
FUNC = {"max": ops.unsorted_segment_max, "min": ops.unsorted_segment_min,
        "prod": ops.unsorted_segment_prod}


def expected(kind, x, ids, n):
    """The loop: rows in order, ids outside [0, n) skipped, empty segments the identity."""
    inner = x.shape[ids.ndim:]
    if kind == "prod":
        ident = 1
    elif x.dtype.kind == "f":
        ident = np.finfo(x.dtype).min if kind == "max" else np.finfo(x.dtype).max
    else:
        ident = np.iinfo(x.dtype).min if kind == "max" else np.iinfo(x.dtype).max
    out = np.full((n,) + inner, ident, x.dtype)
    rows = x.reshape((-1,) + inner)
    for i, s in enumerate(ids.reshape(-1)):
        if 0 <= s < n:
            out[s] = COMBINE[kind](out[s], rows[i])
    return out


class Net(nn.Cell):
    def __init__(self, prim, n):
        super().__init__()
        self.prim, self.n = prim, n

    def construct(self, x, ids):
        return self.prim(x, ids, self.n)


@pytest.mark.parametrize("kind", ["max", "min", "prod"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int32, np.int64,
                                   np.int8])
def test_values_against_a_loop(mode, kind, dtype):
    if np.dtype(dtype).kind == "f":
        x = RNG.uniform(-2, 2, (13, 5)).astype(dtype)
    else:
        x = RNG.integers(-4, 5, (13, 5)).astype(dtype)
    ids = RNG.integers(-2, 7, 13).astype(np.int32)  # negative and too large ids are skipped
    got = Net(PRIM[kind](), 6)(Tensor(x), Tensor(ids)).asnumpy()
    want = expected(kind, x, ids, 6)
    assert got.dtype == want.dtype
    rtol = {np.float16: 1e-3, np.float32: 1e-6, np.float64: 1e-12}.get(dtype, 0)
    np.testing.assert_allclose(got, want, rtol=rtol)


@pytest.mark.parametrize("kind", ["max", "min", "prod"])
def test_two_dim_ids_one_row_and_the_functional_form(mode, kind):
    x = RNG.uniform(1, 2, (3, 4, 2, 3))
    ids = RNG.integers(0, 5, (3, 4)).astype(np.int64)
    got = FUNC[kind](Tensor(x), Tensor(ids), 5).asnumpy()
    np.testing.assert_allclose(got, expected(kind, x, ids, 5), rtol=1e-12)
    one = FUNC[kind](Tensor(x[:1, :1]), Tensor(ids[:1, :1]), 2).asnumpy()
    np.testing.assert_allclose(one, expected(kind, x[:1, :1], ids[:1, :1], 2), rtol=1e-12)
    # many rows (the scan's doubling steps up to 1024), few segments
    big = RNG.uniform(-1, 1, (1500, 3))
    bid = RNG.integers(0, 4, 1500).astype(np.int32)
    if kind == "prod":
        big = 1 + big / 1000
    np.testing.assert_allclose(FUNC[kind](Tensor(big), Tensor(bid), 4).asnumpy(),
                               expected(kind, big, bid, 4), rtol=1e-11)


def test_nan_propagates_and_empty_inputs(mode):
    x = np.array([1.0, np.nan, 3.0, 2.0])
    ids = np.array([0, 0, 1, 1], np.int32)
    got = ops.unsorted_segment_max(Tensor(x), Tensor(ids), 3).asnumpy()
    np.testing.assert_array_equal(got, [np.nan, 3.0, np.finfo(np.float64).min])
    empty = ops.unsorted_segment_min(Tensor(np.zeros((0, 2), np.float32)),
                                     Tensor(np.zeros(0, np.int32)), 2).asnumpy()
    np.testing.assert_array_equal(empty, np.full((2, 2), np.finfo(np.float32).max))
    assert ops.unsorted_segment_prod(Tensor(x), Tensor(ids), 0).shape == (0,)


def test_sum_functional(mode):
    x = RNG.normal(size=(6, 3))
    ids = np.array([0, 2, 2, -1, 5, 0], np.int32)
    want = np.zeros((4, 3))
    for i, s in enumerate(ids):
        if 0 <= s < 4:
            want[s] += x[i]
    np.testing.assert_allclose(ops.unsorted_segment_sum(Tensor(x), Tensor(ids), 4).asnumpy(),
                               want, rtol=1e-12)


@pytest.mark.parametrize("kind", ["max", "min"])
def test_max_min_gradient_reaches_the_extreme_element(mode, kind):
    x = RNG.permutation(40).reshape(10, 4).astype(np.float64)  # no ties
    ids = np.array([0, 1, 0, 3, 1, 1, -1, 0, 3, 7], np.int32)
    w = RNG.normal(size=(4, 4))
    g = ms.grad(lambda t: ops.sum(FUNC[kind](t, Tensor(ids), 4) * Tensor(w)))(Tensor(x))
    want = np.zeros_like(x)
    pick = np.argmax if kind == "max" else np.argmin
    for s in range(4):
        rows = np.nonzero(ids == s)[0]
        if len(rows) == 0:
            continue
        for c in range(4):
            want[rows[pick(x[rows, c])], c] = w[s, c]
    np.testing.assert_allclose(g.asnumpy(), want, rtol=1e-12)


def test_prod_gradient_is_the_product_of_the_others_zeros_included(mode):
    x = RNG.uniform(0.5, 1.5, (9, 2))
    x[1, 0] = 0.0               # one zero in segment 0, column 0
    x[4, 1] = x[6, 1] = 0.0     # two zeros in segment 1, column 1
    ids = np.array([0, 0, 1, 0, 1, 2, 1, 2, 9], np.int32)
    w = RNG.normal(size=(3, 2))
    g = ms.grad(lambda t: ops.sum(ops.unsorted_segment_prod(t, Tensor(ids), 3) * Tensor(w)))(
        Tensor(x)).asnumpy()
    want = np.zeros_like(x)
    for i, s in enumerate(ids):
        if 0 <= s < 3:
            others = [j for j in np.nonzero(ids == s)[0] if j != i]
            want[i] = w[s] * np.prod(x[others], axis=0)
    np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-15)


def test_vmap_equals_a_loop():
    x = RNG.normal(size=(3, 7, 2))
    ids = Tensor(np.array([0, 2, 2, 1, 0, 2, -1], np.int32))
    f = ms.vmap(lambda t: ops.unsorted_segment_max(t, ids, 3))
    got = f(Tensor(x)).asnumpy()
    for b in range(3):
        np.testing.assert_allclose(got[b], expected("max", x[b], ids.asnumpy(), 3), rtol=1e-12)


def test_dynamic_columns_compile_once_for_each_width():
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = Net(P.UnsortedSegmentMin(), 2)
        net.set_inputs(Tensor(shape=[3, None], dtype=ms.float32),
                       Tensor(shape=[3], dtype=ms.int32))
        ids = np.array([0, 1, 1], np.int32)
        for width in (3, 5):
            x = RNG.normal(size=(3, width)).astype(np.float32)
            got = net(Tensor(x), Tensor(ids)).asnumpy()
            np.testing.assert_allclose(got, expected("min", x, ids, 2), rtol=1e-6)
    finally:
        ms.set_context(mode=old)


def test_errors_name_the_op(mode):
    x = Tensor(np.ones((4, 2), np.float32))
    with pytest.raises(TypeError, match="unsorted_segment_max.*int32 or int64"):
        ops.unsorted_segment_max(x, Tensor(np.zeros(4, np.float32)), 2)
    with pytest.raises(ValueError, match="unsorted_segment_min.*prefix"):
        ops.unsorted_segment_min(x, Tensor(np.zeros(3, np.int32)), 2)
    with pytest.raises(ValueError, match="unsorted_segment_prod.*negative"):
        ops.unsorted_segment_prod(x, Tensor(np.zeros(4, np.int32)), -1)
    with pytest.raises(TypeError, match="unsorted_segment_max.*numeric"):
        ops.unsorted_segment_max(Tensor(np.ones(4, bool)), Tensor(np.zeros(4, np.int32)), 2)
