"""Gradients of integer-valued functions, as MindSpore defines them (src/compiler/ad/ad.h): an
integer tensor's cotangent is a tensor of its own dtype, computed by the same rules as a
float's (d(w*x)/dx = w for int32 w and x), an integer output is seeded with ones of its
dtype, and Cast passes cotangents between integer and float dtypes. Bool tensors have none.
Oracle: the analytic derivatives, in numpy; every mode gives the same values and dtypes."""
import numpy as np
import pytest

import mycel as ms
from mycel import Parameter, Tensor, nn, ops

MODES = ("pynative", "graph", "jit")


@pytest.fixture(autouse=True)
def _pynative_after():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def run(mode, make, *args):
    """make() builds the gradient function; it runs on args in `mode` (jit: inside @jit)."""
    if mode == "jit":
        ms.set_context(mode=ms.PYNATIVE_MODE)
        gf = make()

        @ms.jit
        def wrapper(*a):
            return gf(*a)
        return wrapper(*args)
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    return make()(*args)


W = np.array([6, -2, 3], np.int32)
XI = np.array([10, 4, -7], np.int32)


def affine(w, x):
    return w * x + x * 3


def same(got, want):
    got = got.asnumpy() if isinstance(got, Tensor) else np.asarray(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("mode", MODES)
def test_integer_inputs_get_gradients_in_their_dtype(mode):
    gw, gx = run(mode, lambda: ms.grad(affine, (0, 1)), Tensor(W), Tensor(XI))
    same(gw, XI)      # d/dw (w x + 3x) = x
    same(gx, W + 3)   # d/dx = w + 3


@pytest.mark.parametrize("mode", MODES)
def test_integer_parameters_get_gradients(mode):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(W), name="w")
            self.b = Parameter(Tensor(np.array([2], np.int32)), name="b")

        def construct(self, x):
            return ops.sum(self.w * x) + self.b

    net = Net()
    gx, (gw, gb) = run(mode, lambda: ms.grad(net, 0, net.trainable_params()), Tensor(XI))
    same(gx, W)
    same(gw, XI)
    same(gb, np.array([1], np.int32))


@pytest.mark.parametrize("mode", MODES)
def test_an_integer_output_is_seeded_with_ones(mode):
    g = run(mode, lambda: ops.GradOperation(get_all=True)(lambda a, b: a + b),
            Tensor(np.array(1, np.int64)), Tensor(np.array(2, np.int64)))
    same(g[0], np.array(1, np.int64))
    same(g[1], np.array(1, np.int64))


@pytest.mark.parametrize("mode", MODES)
def test_cast_passes_the_cotangent_between_dtypes(mode):
    def f(x):  # float -> int32 -> sum: d/dx = 3 (Cast's rule casts the cotangent back)
        return ops.sum(ops.cast(x, ms.int32) * 3)
    x = np.array([1.5, -2.5, 0.25], np.float32)
    same(run(mode, lambda: ms.grad(f), Tensor(x)), np.full(3, 3.0, np.float32))

    def h(x, n):  # n int64 promoted to float for the product: d/dn = cast(x, int64)
        return ops.sum(x * n)
    g = run(mode, lambda: ms.grad(h, 1), Tensor(x), Tensor(np.array([1, 2, 3], np.int64)))
    same(g, x.astype(np.int64))


@pytest.mark.parametrize("mode", MODES)
def test_integer_gradients_through_shape_ops_and_reductions(mode):
    def f(x):  # sum over a reshaped, transposed, concatenated integer tensor
        y = ops.transpose(ops.reshape(x, (2, 3)), (1, 0))
        return ops.sum(ops.concat((y, y * 2), 0), 0)
    x = np.arange(6, dtype=np.int32)
    same(run(mode, lambda: ms.grad(f), Tensor(x)), np.full(6, 3, np.int32))


def _cumsum_weighted(x):
    return ops.sum(ops.cumsum(x, 1) * Tensor(np.array([[1, 2, 3, 4]], np.int8)))


@pytest.mark.parametrize("mode", MODES)
def test_integer_cumsum_has_a_gradient(mode):
    # CumSum is linear: d/dx_k sum_i w_i * cumsum(x)_i = sum_{i >= k} w_i, in int8
    x = np.array([[1, 2, 3, 4], [5, -6, 7, 8]], np.int8)
    same(run(mode, lambda: ms.grad(_cumsum_weighted), Tensor(x)),
         np.array([[10, 9, 7, 4], [10, 9, 7, 4]], np.int8))


@pytest.mark.parametrize("mode", MODES)
def test_get_all_keeps_zeros_for_bool_inputs(mode):
    def f(x, m):
        return ops.sum(ops.select(m, x, x * 2))
    x = np.array([1, 2, 3], np.int32)
    m = np.array([True, False, True])
    gx, gm = run(mode, lambda: ops.GradOperation(get_all=True)(f), Tensor(x), Tensor(m))
    same(gx, np.where(m, 1, 2).astype(np.int32))
    same(gm, np.zeros(3, bool))
