"""The composed math and array functions of ops/function/math_ext_func.py and
array_ext_func.py (ops.isnan ... ops.trace, ops.index_select ... ops.diagonal) and the Tensor
methods over them, against numpy and PyTorch, values and gradients, in PYNATIVE and GRAPH mode
(a Cell whose construct calls the function); the graph executor's compile-only handle and the
set_context options MindSpore's tests use."""
import copy

import numpy as np
import pytest
import torch

import mycel as ms
from mycel import nn, ops, Tensor
from ms_cell import run

RNG = np.random.default_rng(21)
SPECIAL = np.array([1.5, -2.25, 0.0, -0.0, np.nan, np.inf, -np.inf, 3.0])


UNARY = {  # name -> numpy reference
    "isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite, "isneginf": np.isneginf,
    "isposinf": np.isposinf, "signbit": np.signbit, "log2": np.log2, "log10": np.log10,
    "exp2": np.exp2, "sinc": np.sinc, "deg2rad": np.deg2rad, "rad2deg": np.rad2deg,
    "trunc": np.trunc, "fix": np.fix,
    "frac": lambda x: x - np.trunc(x), "positive": np.positive,
    "nan_to_num": np.nan_to_num,
}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_against_numpy(mode, name, dtype):
    x = np.concatenate([SPECIAL, RNG.uniform(0.1, 5, 9) * RNG.choice([-1, 1], 9)]).astype(dtype)
    if name in ("log2", "log10"):
        x = np.abs(x)
    with np.errstate(all="ignore"):
        want = UNARY[name](x)
    got = run(getattr(ops, name), x)
    assert got.dtype == want.dtype
    tol = 2e-6 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_classification_of_integers_and_float_math_of_them(mode):
    x = np.array([3, -1, 0], np.int32)
    for name in ("isnan", "isinf", "isneginf", "isposinf"):
        np.testing.assert_array_equal(run(getattr(ops, name), x), [False] * 3)
    np.testing.assert_array_equal(run(ops.isfinite, x), [True] * 3)
    np.testing.assert_array_equal(run(ops.signbit, x), [False, True, False])
    got = run(ops.log2, np.array([1, 8], np.int32))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, [0, 3], atol=1e-6)


BINARY = {
    "hypot": np.hypot, "atan2": np.arctan2, "arctan2": np.arctan2, "logaddexp": np.logaddexp,
    "logaddexp2": np.logaddexp2, "copysign": np.copysign, "fmax": np.fmax, "fmin": np.fmin,
    "float_power": np.float_power, "true_divide": np.true_divide, "multiply": np.multiply,
    "subtract": np.subtract, "divide": np.divide,
    "xlogy": lambda x, y: np.where(x == 0, 0.0, x * np.log(np.where(x == 0, 1.0, y))),
    "heaviside": np.heaviside, "logical_xor": np.logical_xor,
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_against_numpy(mode, name):
    x = RNG.uniform(-3, 3, (4, 5))
    y = RNG.uniform(-3, 3, (1, 5))
    x[0, :4] = [0.0, 0.0, -1.0, 2.0]
    y[0, :4] = [0.0, -1.0, 0.0, 0.0]  # the axes and the origin for atan2
    if name in ("xlogy", "float_power"):
        y = np.abs(y) + 0.5
        x = np.abs(x) if name == "float_power" else x
    if name in ("fmax", "fmin"):
        x[1, 1], y[0, 2] = np.nan, np.nan
    if name == "logaddexp":
        x[2, :2], y[0, :2] = -np.inf, -np.inf
    with np.errstate(all="ignore"):
        want = BINARY[name](x, y)
    np.testing.assert_allclose(run(getattr(ops, name), x, y), want, rtol=1e-13, atol=1e-15)


def test_atan2_hypot_precision_and_gradients_against_torch(mode):
    y = np.array([1e-30, 1e-8, -1e-8, 2.0, -2.0, 3.0, 0.5])
    x = np.array([-1.0, -1.0, -1.0, 0.0, 0.0, 1e-20, 1e30])
    np.testing.assert_allclose(run(ops.atan2, y, x), np.arctan2(y, x), rtol=1e-15, atol=1e-300)
    big = np.array([3e200]), np.array([4e200])
    np.testing.assert_allclose(run(ops.hypot, *big), [5e200], rtol=1e-15)
    yt, xt = torch.tensor(y, requires_grad=True), torch.tensor(x[:6] * 0 + 0.7,
                                                               requires_grad=True)
    torch.atan2(yt[:6], xt).sum().backward()
    gy, gx = ms.grad(lambda a, b: ops.sum(ops.atan2(a, b)), grad_position=(0, 1))(
        Tensor(y[:6]), Tensor(x[:6] * 0 + 0.7))
    np.testing.assert_allclose(gy.asnumpy(), yt.grad.numpy()[:6], rtol=1e-12)
    np.testing.assert_allclose(gx.asnumpy(), xt.grad.numpy(), rtol=1e-12)
    # on the y axis (x == 0) the gradient is still d/dx = -y / r^2
    g0 = ms.grad(lambda b: ops.sum(ops.atan2(Tensor(np.array([2.0])), b)))(
        Tensor(np.array([0.0])))
    np.testing.assert_allclose(g0.asnumpy(), [-0.5], rtol=1e-12)


def test_guarded_functions_have_finite_gradients_where_they_select(mode):
    # sinc at 0, xlogy at x == 0 with y == 0: the branch not taken must not leak NaN
    g = ms.grad(lambda t: ops.sum(ops.sinc(t)))(Tensor(np.array([0.0, 0.5])))
    xt = torch.tensor([0.0, 0.5], dtype=torch.float64, requires_grad=True)
    torch.sinc(xt).sum().backward()
    np.testing.assert_allclose(g.asnumpy(), xt.grad.numpy(), rtol=1e-12, atol=1e-12)
    gx, gy = ms.grad(lambda a, b: ops.sum(ops.xlogy(a, b)), grad_position=(0, 1))(
        Tensor(np.array([0.0, 2.0])), Tensor(np.array([0.0, 3.0])))
    assert np.isfinite(gy.asnumpy()).all()
    np.testing.assert_allclose(gy.asnumpy(), [0.0, 2.0 / 3.0], rtol=1e-12)
    np.testing.assert_allclose(gx.asnumpy()[1], np.log(3.0), rtol=1e-12)


@pytest.mark.parametrize("axis,keep", [(None, False), (1, True), ((0, 2), False)])
def test_nan_reductions_and_logsumexp(mode, axis, keep):
    x = RNG.normal(size=(3, 4, 2))
    x[0, 1, 1] = np.nan
    np.testing.assert_allclose(run(lambda t: ops.nansum(t, axis, keep), x),
                               np.nansum(x, axis=axis, keepdims=keep), rtol=1e-13)
    np.testing.assert_allclose(run(lambda t: ops.nanmean(t, axis, keep), x),
                               np.nanmean(x, axis=axis, keepdims=keep), rtol=1e-13)
    y = RNG.normal(size=(3, 4, 2)) * 30
    ax = axis if axis is not None else (0, 1, 2)
    want = torch.logsumexp(torch.from_numpy(y), dim=ax, keepdim=keep).numpy()
    np.testing.assert_allclose(run(lambda t: ops.logsumexp(t, ax, keep), y), want, rtol=1e-13)
    nz = (RNG.integers(0, 3, (3, 4, 2))).astype(np.float32)
    got = run(lambda t: ops.count_nonzero(t, axis if axis is not None else (), keep), nz)
    np.testing.assert_array_equal(got, np.count_nonzero(nz, axis=axis, keepdims=keep))


def test_isclose_lerp_and_products_against_torch(mode):
    a = np.array([1.0, 1.0 + 1e-9, np.inf, np.nan, 1.0, -np.inf])
    b = np.array([1.0, 1.0, np.inf, np.nan, 1.1, np.inf])
    for equal_nan in (False, True):
        np.testing.assert_array_equal(run(lambda s, t: ops.isclose(s, t, equal_nan=equal_nan),
                                          a, b), np.isclose(a, b, equal_nan=equal_nan))
    m1, m2, v = RNG.normal(size=(3, 4)), RNG.normal(size=(4, 2)), RNG.normal(size=4)
    inp, b1, b2 = RNG.normal(size=(3, 2)), RNG.normal(size=(5, 3, 4)), RNG.normal(size=(5, 4, 2))
    T = torch.from_numpy
    cases = [
        (lambda i, x, y: ops.addmm(i, x, y, beta=0.5, alpha=2.0),
         (inp, m1, m2), torch.addmm(T(inp), T(m1), T(m2), beta=0.5, alpha=2.0)),
        (lambda i, x, y: ops.addmv(i, x, y, alpha=3), (inp[:, 0], m1, v),
         torch.addmv(T(inp[:, 0]), T(m1), T(v), alpha=3)),
        (lambda i, x, y: ops.addbmm(i, x, y, beta=2), (inp, b1, b2),
         torch.addbmm(T(inp), T(b1), T(b2), beta=2)),
        (lambda i, x, y: ops.baddbmm(i, x, y, 0.5, 2.0), (inp, b1, b2),
         torch.baddbmm(T(inp), T(b1), T(b2), beta=0.5, alpha=2.0)),
        (lambda i, x, y: ops.addcdiv(i, x, y, 0.5), (m1, m1 * 2, m1 + 4),
         torch.addcdiv(T(m1), T(m1 * 2), T(m1 + 4), value=0.5)),
        (lambda i, x, y: ops.addcmul(i, x, y, 3), (m1, m1, m1),
         torch.addcmul(T(m1), T(m1), T(m1), value=3)),
        (lambda i, x, y: ops.lerp(i, x, y), (m1, m1 * 2, m1 + 4),
         torch.lerp(T(m1), T(m1 * 2), T(m1 + 4))),
    ]
    for fn, args, want in cases:
        np.testing.assert_allclose(run(fn, *args), want.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(run(ops.inner, b1, m1), np.inner(b1, m1), rtol=1e-12)
    np.testing.assert_allclose(run(ops.outer, v, v), np.outer(v, v), rtol=1e-12)
    np.testing.assert_allclose(run(ops.trace, m1), np.trace(m1), rtol=1e-12)


def test_array_functions_against_numpy(mode):
    x = RNG.normal(size=(2, 3, 4))
    idx = np.array([2, 0, 2], np.int32)
    np.testing.assert_array_equal(run(lambda t, i: ops.index_select(t, 2, i), x, idx),
                                  np.take(x, idx, axis=2))
    np.testing.assert_array_equal(run(lambda t: ops.narrow(t, 1, 1, 2), x), x[:, 1:3])
    np.testing.assert_array_equal(run(lambda t: ops.moveaxis(t, (0, 1), (2, 0)), x),
                                  np.moveaxis(x, (0, 1), (2, 0)))
    np.testing.assert_array_equal(run(lambda t: ops.movedim(t, -1, 0), x), np.moveaxis(x, -1, 0))
    np.testing.assert_array_equal(run(lambda t: ops.swapdims(t, 0, 2), x), np.swapaxes(x, 0, 2))
    np.testing.assert_array_equal(run(ops.fliplr, x), np.flip(x, 1))
    np.testing.assert_array_equal(run(ops.flipud, x), np.flip(x, 0))
    parts = run(lambda t: ops.unbind(t, 1), x)
    assert len(parts) == 3 and np.array_equal(parts[2], x[:, 2])
    for off, d1, d2 in [(0, 0, 1), (1, 1, 2), (-1, 2, 0), (-2, 1, 2), (7, 1, 2)]:
        np.testing.assert_array_equal(run(lambda t: ops.diagonal(t, off, d1, d2), x),
                                      np.diagonal(x, off, d1, d2))
    g = ms.grad(lambda t: ops.sum(ops.diagonal(t, 1, 1, 2) * 2.0))(Tensor(x)).asnumpy()
    want = np.zeros_like(x)
    for i in range(3):
        want[:, i, i + 1] = 2.0
    np.testing.assert_array_equal(g, want)


def test_tensor_methods(mode):
    x = RNG.uniform(0.5, 2, (3, 3))
    t = Tensor(x)
    np.testing.assert_allclose(t.log2().asnumpy(), np.log2(x), rtol=1e-13)
    np.testing.assert_allclose(t.atan2(Tensor(x.T)).asnumpy(), np.arctan2(x, x.T), rtol=1e-13)
    np.testing.assert_allclose(t.diagonal(1).asnumpy(), np.diagonal(x, 1))
    np.testing.assert_allclose(t.trace().asnumpy(), np.trace(x))
    np.testing.assert_allclose(t.addmm(t, t, beta=2).asnumpy(), 2 * x + x @ x, rtol=1e-13)
    np.testing.assert_allclose(t.remainder(0.7).asnumpy(), np.remainder(x, 0.7), rtol=1e-12)
    np.testing.assert_allclose(t.nansum(1).asnumpy(), x.sum(1), rtol=1e-13)
    np.testing.assert_allclose(t.logsumexp(0).asnumpy(),
                               torch.logsumexp(torch.from_numpy(x), 0).numpy(), rtol=1e-13)
    np.testing.assert_array_equal(t.index_select(0, Tensor(np.array([2, 2], np.int32))).asnumpy(),
                                  x[[2, 2]])
    np.testing.assert_array_equal(t.view_as(Tensor(np.zeros(9))).asnumpy(), x.reshape(9))
    assert t.is_floating_point() and not Tensor(np.ones(2, np.int32)).is_floating_point()
    assert t.ndimension() == 2
    d = copy.deepcopy(t)
    assert d is not t and np.array_equal(d.asnumpy(), x)


def test_errors_name_the_function(mode):
    x = Tensor(np.ones((2, 3)))
    with pytest.raises(TypeError, match="index_select"):
        ops.index_select(x, 0, Tensor(np.zeros(2, np.float32)))
    with pytest.raises(ValueError, match="narrow"):
        ops.narrow(x, 1, 2, 3)
    with pytest.raises(ValueError, match="diagonal"):
        ops.diagonal(Tensor(np.ones(3)))
    with pytest.raises(ValueError, match="inner"):
        ops.inner(x, Tensor(np.ones((2, 2))))
    with pytest.raises(ValueError, match="trace"):
        ops.trace(Tensor(np.ones(3)))
    with pytest.raises(ValueError, match="moveaxis"):
        ops.moveaxis(x, (0, 1), 0)


def test_cell_graph_executor_compiles_without_running():
    from mycel.common.api import _cell_graph_executor
    old = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = nn.Dense(3, 2)
        before = net.weight.asnumpy().copy()
        opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
        x, y = Tensor(np.ones((4, 3), np.float32)), Tensor(np.ones((4, 2), np.float32))
        assert _cell_graph_executor.compile(step, x, y) == "predict"
        np.testing.assert_array_equal(net.weight.asnumpy(), before)  # nothing ran
        with pytest.raises(ValueError, match="MatMul"):
            _cell_graph_executor.compile(net, Tensor(np.ones((4, 5), np.float32)))
    finally:
        ms.set_context(mode=old)


def test_context_options_and_common_names():
    from mycel.common import mutable, JitConfig  # noqa: F401 (where MindSpore's tests import)
    old = ms.get_context("jit_syntax_level")
    ms.set_context(jit_level="O0", jit_syntax_level=ms.STRICT)
    assert ms.get_context("jit_level") == "O0" and ms.get_context("jit_syntax_level") == 0
    with pytest.raises(ValueError, match="jit_level"):
        ms.set_context(jit_level="O3")
    with pytest.raises(ValueError, match="jit_syntax_level"):
        ms.set_context(jit_syntax_level=7)
    ms.set_context(jit_syntax_level=ms.LAX if old is None else old)


def test_composed_primitives(mode):
    from mycel.ops import operations as P
    x = RNG.normal(size=(3, 4))
    y = RNG.uniform(0.5, 2, (3, 4))
    x[0, 0], x[0, 1] = np.nan, -np.inf
    with np.errstate(all="ignore"):
        cases = [
            (P.Identity(), (x,), x),
            (P.SquaredDifference(), (x, y), (x - y) ** 2),
            (P.IsFinite(), (x,), np.isfinite(x)),
            (P.IsNan(), (x,), np.isnan(x)),
            (P.IsInf(), (x,), np.isinf(x)),
            (P.LogicalXor(), (x > 0, y > 1), np.logical_xor(x > 0, y > 1)),
            (P.Atan2(), (x, y), np.arctan2(x, y)),
            (P.Xlogy(), (x, y), x * np.log(y)),
            (P.Trunc(), (x,), np.trunc(x)),
            (P.Lerp(), (x, y, 0.25), x + 0.25 * (y - x)),
            (P.Heaviside(), (x, y), np.heaviside(x, y)),
        ]
    for prim, args, want in cases:
        np.testing.assert_allclose(run(prim, *args), want, rtol=1e-13, err_msg=prim.name)
    np.testing.assert_array_equal(run(lambda t: P.Slice()(t, (1, 0), (2, -1)), y), y[1:3, :])
    a = RNG.normal(size=(2, 3, 3)) + 3 * np.eye(3)
    np.testing.assert_allclose(run(P.MatrixInverse(), a), np.linalg.inv(a), rtol=1e-12)
    np.testing.assert_allclose(Tensor(a).inverse().asnumpy(), np.linalg.inv(a), rtol=1e-12)
    at = torch.tensor(a, requires_grad=True)
    torch.linalg.inv(at).sum().backward()
    g = ms.grad(lambda t: ops.sum(ops.inverse(t)))(Tensor(a))
    np.testing.assert_allclose(g.asnumpy(), at.grad.numpy(), rtol=1e-10)
    b = Tensor(np.array([True, False, True]))
    c = Tensor(np.array([True, True, False]))
    np.testing.assert_array_equal(b.logical_and(c).asnumpy(), [True, False, False])
    np.testing.assert_array_equal(b.logical_or(c).asnumpy(), [True, True, True])
    np.testing.assert_array_equal(b.logical_not().asnumpy(), [False, True, False])


def test_assign_sub_updates_the_parameter(mode):
    from mycel.ops import operations as P

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = ms.Parameter(Tensor(np.array([5.0, 1.0], np.float32)), name="p")
            self.sub = P.AssignSub()

        def construct(self, v):
            self.sub(self.p, v)
            return self.p

    net = Net()
    net(Tensor(np.array([1.0, 2.0], np.float32)))
    np.testing.assert_array_equal(net.p.asnumpy(), [4.0, -1.0])
    with pytest.raises(ValueError, match="slice"):
        ops.slice(Tensor(np.ones((2, 3))), (1, 0), (2, 1))
    with pytest.raises(ValueError, match="inverse"):
        ops.inverse(Tensor(np.ones((2, 3))))


def test_atan2_and_hypot_at_infinities_and_nan(mode):
    v = [np.inf, -np.inf, 2.0, -2.0, 0.0, np.nan]
    y = np.array([a for a in v for _ in v])
    x = np.array([b for _ in v for b in v])
    np.testing.assert_allclose(run(ops.atan2, y, x), np.arctan2(y, x), rtol=1e-15)
    np.testing.assert_allclose(run(ops.hypot, y, x), np.hypot(y, x), rtol=1e-15)


def test_numpy_reductions_of_a_tensor_and_rank_of_a_number(mode):
    x = np.array([[1.0, 2.0], [0.0, 4.0]])
    t = Tensor(x)
    assert not np.all(t) and np.any(t)
    np.testing.assert_array_equal(np.all(t, axis=0, keepdims=True), np.all(x, 0, keepdims=True))
    np.testing.assert_allclose(np.sum(t, axis=1), x.sum(1))
    assert np.max(t) == 4.0 and np.min(t) == 0.0
    with pytest.raises(TypeError, match="out"):
        t.sum(out=Tensor(np.zeros(1)))
    for fn in (ops.rank, ops.size):
        with pytest.raises(TypeError, match="must be a Tensor"):
            fn(1)
    assert run(ops.rank, x) == 2 and run(ops.size, x) == 4


def test_tensor_method_signatures_of_mindspore_2(mode):
    x = RNG.normal(size=(3, 4))
    idx = np.array([[0], [1], [3]], np.int64)
    cases = [
        (lambda t: t.chunk(2, dim=1)[1], x[:, 2:]),
        (lambda t: t.add(t, alpha=2), 3 * x),
        (lambda t: t.sub(t, alpha=0.5), 0.5 * x),
        (lambda t: t.mean(dim=1, keepdim=True), x.mean(1, keepdims=True)),
        (lambda t: t.mean(axis=0), x.mean(0)),
        (lambda t: t.remainder(divisor=0.7), np.remainder(x, 0.7)),
        (lambda t: t.split(split_size=3, dim=1)[1], x[:, 3:]),
        (lambda t: t.gather(1, Tensor(idx)), np.take_along_axis(x, idx, 1)),
        (lambda t: t.gather(Tensor(np.array([2, 0], np.int32)), 0), x[[2, 0]]),
        (lambda t: t.select(1, 2), x[:, 2]),
        (lambda t: t.select(t > 0, Tensor(np.zeros((3, 4)))), np.where(x > 0, x, 0)),
    ]
    for fn, want in cases:
        np.testing.assert_allclose(run(fn, x), want, rtol=1e-13)


def test_swapaxes_checks_its_axes(mode):
    x = Tensor(np.ones((3, 2)))
    with pytest.raises(ValueError, match="swapaxes.*out of range"):
        run(lambda t: ops.swapdims(t, 0, 3), x.asnumpy())
    with pytest.raises(TypeError, match="swapaxes"):
        ops.swapaxes(x, 0, (1,))
    assert run(lambda t: ops.swapaxes(t, 0, -1), x.asnumpy()).shape == (2, 3)


def test_index_errors_are_also_runtime_errors(mode):
    # MindSpore's CPU kernels raise RuntimeError for an index out of range; mycel's
    # IndexError is both, so either except clause catches it
    x = np.arange(6.0).reshape(3, 2)
    idx = np.array([0, 3], np.int32)
    for kind in (IndexError, RuntimeError):
        with pytest.raises(kind, match="For 'Gather', the index 3 is out of range"):
            run(lambda t, i: ops.gather(t, i, 0), x, idx)
    assert issubclass(ms._mycel.IndexError, IndexError)
    assert ms._mycel.IndexError.__name__ == "IndexError"


def test_functional_transforms_and_vjp_of_several_outputs(mode):
    from mycel.ops import functional as F
    assert F.grad is ms.grad and F.vjp is ms.vjp and F.jvp is ms.jvp
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    y = np.array([[0.5, 1.0], [1.5, 2.0]])
    v1, v2 = np.ones((2, 2)), np.full((2, 2), 2.0)
    out, vjp_fn = F.vjp(lambda a, b: (2 * a, b ** 3), Tensor(x), Tensor(y))
    for gx, gy in (vjp_fn(Tensor(v1), Tensor(v2)), vjp_fn((Tensor(v1), Tensor(v2)))):
        np.testing.assert_allclose(gx.asnumpy(), 2 * v1)
        np.testing.assert_allclose(gy.asnumpy(), 3 * y ** 2 * v2)


def test_tensor_select_checks_its_arguments(mode):
    x = Tensor(np.array([2.0, 3.0], np.float32))
    cond = Tensor(np.array([True, False]))
    with pytest.raises(TypeError):
        run(lambda t, y: t.select(1, y), x.asnumpy(), np.ones(2, np.float32))
    with pytest.raises(TypeError):
        x.select(cond, 1)  # a Python int needs an int32 tensor
    np.testing.assert_array_equal(x.select(cond, 1.0).asnumpy(), [2.0, 1.0])
    with pytest.raises(ValueError, match="Tensor.select"):
        x.select(3, 0)
