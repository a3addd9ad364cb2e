"""MindSpore primitives and methods composed from table ops (compat_misc_ops.py,
stats_ext_func.py, trunc_normal_func.py, pad_grad_func.py, fractional_fixed_pool_func.py,
_tensor_linalg_methods.py) against scipy, numpy and torch, in both modes; gradients against
finite differences or torch's autograd; errors."""
import numpy as np
import pytest
import scipy.special
import scipy.stats
import torch

import mycel as ms
from mycel import nn, ops, Tensor
from mycel.ops import operations as P
from mycel.ops.operations import _grad_ops as G

RNG = np.random.default_rng(21)


class _Fn(nn.Cell):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        return self.fn(*args)


def test_mvlgamma_matches_scipy(mode):
    x = RNG.uniform(1.6, 6.0, (3, 4))
    for p in (1, 2, 3):
        want = scipy.special.multigammaln(x, p)
        got = _Fn(lambda t: ops.mvlgamma(t, p))(Tensor(x)).asnumpy()
        np.testing.assert_allclose(got, want, rtol=1e-9)
        got = _Fn(lambda t: t.mvlgamma(p))(Tensor(x.astype(np.float32))).asnumpy()
        np.testing.assert_allclose(got, want, rtol=1e-4)
        np.testing.assert_allclose(P.Mvlgamma(p)(Tensor(x)).asnumpy(), want, rtol=1e-9)
    # outside the domain x > (p - 1) / 2: NaN
    assert np.isnan(ops.mvlgamma(Tensor(np.array([0.9, 2.0])), 3).asnumpy()[0])
    # gradient: the sum of digammas
    g = ms.grad(lambda t: ops.mvlgamma(t, 3).sum())(Tensor(x)).asnumpy()
    want = sum(scipy.special.digamma(x - j / 2) for j in range(3))
    np.testing.assert_allclose(g, want, rtol=1e-6)
    with pytest.raises(ValueError, match="mvlgamma"):
        ops.mvlgamma(Tensor(x), 0)
    with pytest.raises(TypeError, match="mvlgamma"):
        ops.mvlgamma(Tensor(x), 1.5)


def test_addr_matches_torch(mode):
    x = RNG.standard_normal((3, 2)).astype(np.float32)
    v1 = RNG.standard_normal(3).astype(np.float32)
    v2 = RNG.standard_normal(2).astype(np.float32)
    got = _Fn(lambda a, b, c: a.addr(b, c))(Tensor(x), Tensor(v1), Tensor(v2)).asnumpy()
    want = torch.addr(torch.tensor(x), torch.tensor(v1), torch.tensor(v2)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6)
    got = ops.addr(Tensor(x), Tensor(v1), Tensor(v2), beta=0.5, alpha=2).asnumpy()
    want = torch.addr(torch.tensor(x), torch.tensor(v1), torch.tensor(v2), beta=0.5,
                      alpha=2).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6)
    with pytest.raises(ValueError, match="addr"):
        ops.addr(Tensor(x), Tensor(v1.reshape(3, 1)), Tensor(v2))
    with pytest.raises(ValueError, match="broadcast"):
        ops.addr(Tensor(np.ones((4, 2), np.float32)), Tensor(v1), Tensor(v2))


def _lower_median(a):
    s = np.sort(a)
    return s[(len(s) - 1) // 2]


def test_median_matches_numpy_and_torch(mode):
    x = RNG.permutation(60).reshape(3, 4, 5).astype(np.float32)
    for axis, keep in ((0, False), (1, True), (-1, False)):
        v, i = _Fn(lambda t: P.Median(axis=axis, keep_dims=keep)(t))(Tensor(x))
        tv, ti = torch.median(torch.tensor(x), dim=axis, keepdim=keep)
        np.testing.assert_array_equal(v.asnumpy(), tv.numpy())
        np.testing.assert_array_equal(i.asnumpy(), ti.numpy())
        assert i.dtype == ms.int64
    v, _ = _Fn(lambda t: P.Median(global_median=True)(t))(Tensor(x))
    assert v.shape == () and v.asnumpy() == _lower_median(x.ravel())
    xi = RNG.permutation(20).reshape(4, 5).astype(np.int32)
    v, i = P.Median(axis=1)(Tensor(xi))
    np.testing.assert_array_equal(v.asnumpy(), [_lower_median(r) for r in xi])
    np.testing.assert_array_equal(np.take_along_axis(xi, i.asnumpy()[:, None], 1)[:, 0],
                                  v.asnumpy())


def test_median_nan_handling(mode):
    x = np.array([[1.0, np.nan, 3.0, 2.0], [4.0, 0.0, 5.0, 6.0]], np.float64)
    v, i = _Fn(lambda t: P.Median(axis=1)(t))(Tensor(x))
    assert np.isnan(v.asnumpy()[0]) and v.asnumpy()[1] == 4.0
    assert np.isnan(x[0, i.asnumpy()[0]])
    v, i = _Fn(lambda t: P.Median(axis=1, ignore_nan=True)(t))(Tensor(x))
    tv, ti = torch.nanmedian(torch.tensor(x), dim=1)
    np.testing.assert_array_equal(v.asnumpy(), tv.numpy())
    np.testing.assert_array_equal(i.asnumpy(), ti.numpy())
    v, _ = P.Median(global_median=True)(Tensor(x))
    assert np.isnan(v.asnumpy())
    v, _ = P.Median(global_median=True, ignore_nan=True)(Tensor(x))
    assert v.asnumpy() == _lower_median(x[~np.isnan(x)])
    empty = Tensor(np.zeros((2, 0), np.float32))
    assert np.isnan(P.Median(global_median=True)(empty)[0].asnumpy())
    assert P.Median(global_median=True)(Tensor(np.zeros((0,), np.int32)))[0].asnumpy() == 0


def test_median_errors():
    with pytest.raises(TypeError, match="Median"):
        P.Median(global_median=1)
    with pytest.raises(TypeError, match="Median"):
        P.Median(axis=0.5)
    with pytest.raises(ValueError, match="Median"):
        P.Median(axis=3)(Tensor(np.ones((2, 2), np.float32)))
    with pytest.raises(TypeError, match="Median"):
        P.Median()(Tensor(np.ones((2, 2), np.uint8)))


def test_approximate_equal_rules(mode):
    a = np.array([1.0, 2.0, 3.0], np.float16)
    b = np.array([1.0, 2.5, 3.0001], np.float32)
    got = _Fn(lambda x, y: P.ApproximateEqual(0.3)(x, y))(Tensor(a), Tensor(b)).asnumpy()
    np.testing.assert_array_equal(got, np.abs(a.astype(np.float32) - b) < 0.3)
    with pytest.raises(TypeError, match="the type of 'tolerance' should be 'float'"):
        P.ApproximateEqual("str")
    with pytest.raises(TypeError, match="tolerance"):
        P.ApproximateEqual(1)
    with pytest.raises(ValueError, match="'x1' must have the same shape as 'x2'"):
        P.ApproximateEqual(0.5)(Tensor(np.ones((2, 3), np.float32)),
                                Tensor(np.ones((1, 3), np.float32)))
    with pytest.raises(TypeError, match="ApproximateEqual"):
        ops.approximate_equal(Tensor(np.ones(3, np.int32)), Tensor(np.ones(3, np.int32)))


class _AssertNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.op = P.Assert(2)

    def construct(self, cond, x, y):
        self.op(cond, [x, y])
        return x + 1


def test_assert(mode):
    x = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    y = Tensor(np.array([4, 5], np.int32))
    net = _AssertNet()
    np.testing.assert_array_equal(net(Tensor(True), x, y).asnumpy(), [2, 3, 4])
    with pytest.raises(RuntimeError, match="assert failed"):
        net(Tensor(False), x, y)
    assert P.Assert()(True, [x]) is None
    with pytest.raises(RuntimeError, match="assert failed"):
        P.Assert()(False, [x])
    with pytest.raises(TypeError, match="Assert"):
        P.Assert()(True, x)


def test_parameterized_truncated_normal_distribution(mode):
    op = P.random_ops.ParameterizedTruncatedNormal(seed=3, seed2=4)
    shape = Tensor(np.array([2, 20000], np.int64))
    mean = Tensor(np.array([0.0, 10.0]))
    std = Tensor(np.array([1.0, 2.0]))
    lo = Tensor(np.array([-1.0, 15.0]))  # the second row lies far in the upper tail
    hi = Tensor(np.array([2.0, 30.0]))
    out = _Fn(lambda *a: op(shape, *a))(mean, std, lo, hi).asnumpy()  # shape: a constant
    assert out.shape == (2, 20000) and out.dtype == np.float64
    for row, (m, s, a, b) in enumerate(((0.0, 1.0, -1.0, 2.0), (10.0, 2.0, 15.0, 30.0))):
        assert out[row].min() >= a and out[row].max() <= b
        dist = scipy.stats.truncnorm((a - m) / s, (b - m) / s, loc=m, scale=s)
        # Kolmogorov-Smirnov: 20000 samples of the right law stay below 0.02 with
        # probability above 1 - 1e-3
        assert scipy.stats.kstest(out[row], dist.cdf).statistic < 0.02
    again = op(shape, mean, std, lo, hi).asnumpy()
    assert not np.array_equal(out, again)  # the primitive's stream advances


def test_parameterized_truncated_normal_checks():
    op = P.random_ops.ParameterizedTruncatedNormal()
    one = Tensor(np.array([1.0], np.float32))
    out = op(Tensor(np.array([3, 2], np.int32)), one, one, Tensor(np.array([0.0], np.float32)),
             Tensor(np.array([0.5], np.float32)))
    assert out.shape == (3, 2) and out.dtype == ms.float32
    assert out.asnumpy().min() >= 0.0 and out.asnumpy().max() <= 0.5
    with pytest.raises(ValueError, match="ParameterizedTruncatedNormal"):
        op(Tensor(np.array([3, 2], np.int32)), Tensor(np.ones(2, np.float32)), one, one, one)
    with pytest.raises(TypeError, match="ParameterizedTruncatedNormal"):
        op(Tensor(np.array([3], np.int32)), one, Tensor(np.ones(1)), one, one)
    with pytest.raises(ValueError, match="ParameterizedTruncatedNormal"):
        op(Tensor(np.array([3], np.int32)), one, one, one, one)  # min == max


def test_cauchy_and_log_normal(mode):
    ms.set_seed(5)
    a = Tensor(np.zeros((200, 100), np.float32))
    c = _Fn(lambda t: t.cauchy(1.0, 2.0))(a)
    assert c.dtype == a.dtype and c.shape == a.shape
    assert scipy.stats.kstest(c.asnumpy().ravel(), scipy.stats.cauchy(1.0, 2.0).cdf).statistic \
        < 0.02
    ln = _Fn(lambda t: t.log_normal(0.5, 0.3))(a.astype(ms.float64))
    assert ln.dtype == ms.float64 and ln.shape == a.shape
    assert scipy.stats.kstest(ln.asnumpy().ravel(),
                              scipy.stats.lognorm(0.3, scale=np.exp(0.5)).cdf).statistic < 0.02
    with pytest.raises(ValueError, match="sigma"):
        a.cauchy(0.0, -1.0)
    with pytest.raises(TypeError, match="log_normal"):
        Tensor(np.zeros(3, np.int32)).log_normal()


def test_isub_and_flatten_forms(mode):
    x = Tensor(np.array([4.0, 5.0, 6.0], np.float32))
    y = Tensor(np.array([1.0, 1.0, 2.0], np.float32))
    np.testing.assert_array_equal(_Fn(lambda a, b: a.__isub__(b))(x, y).asnumpy(), [3, 4, 4])
    np.testing.assert_array_equal(x.__isub__(y, alpha=2).asnumpy(), [2, 3, 2])
    z = x
    z -= y
    np.testing.assert_array_equal(z.asnumpy(), [3, 4, 4])
    np.testing.assert_array_equal(x.asnumpy(), [4, 5, 6])  # x -= y rebinds
    t = Tensor(np.ones((1, 2, 3, 4), np.float32))
    for fn, shape in ((lambda a: a.flatten(0, -1), (24,)), (lambda a: a.flatten(1), (1, 24)),
                      (lambda a: a.flatten(1, 2), (1, 6, 4)), (lambda a: a.flatten('C'), (24,)),
                      (lambda a: a.flatten(order='C', start_dim=2), (1, 2, 12)),
                      (lambda a: a.flatten(end_dim=1), (2, 3, 4))):
        assert _Fn(fn)(t).shape == shape
    with pytest.raises(TypeError, match="flatten"):
        t.flatten('C', 1)


@pytest.mark.parametrize("mode_name", ["constant", "reflect", "edge", "circular"])
@pytest.mark.parametrize("shape,pads", [((1, 2, 5), (1, 2)), ((2, 1, 4, 6), (2, 1, 1, 3)),
                                        ((1, 1, 4, 3, 5), (1, 0, 2, 1, 1, 2))])
def test_pad_v3_grad_matches_torch_autograd(mode, mode_name, shape, pads):
    torch_mode = {"edge": "replicate"}.get(mode_name, mode_name)
    x = torch.tensor(RNG.standard_normal(shape), requires_grad=True)
    y = torch.nn.functional.pad(x, pads, mode=torch_mode)
    dy = RNG.standard_normal(tuple(y.shape))
    y.backward(torch.tensor(dy))
    # paddings fix the output's shape: GRAPH mode needs them at compile time (a constant)
    p_t = Tensor(np.array(pads, np.int64))
    got = _Fn(lambda d: G.PadV3Grad(mode_name)(d, p_t))(Tensor(dy)).asnumpy()
    np.testing.assert_allclose(got, x.grad.numpy(), rtol=1e-12, atol=1e-12)
    # the begins-then-ends layout
    k = len(pads) // 2
    split = tuple(pads[0::2]) + tuple(pads[1::2])
    got = G.PadV3Grad(mode_name, paddings_contiguous=False)(Tensor(dy), split).asnumpy()
    assert k and np.allclose(got, x.grad.numpy())


def test_pad_v3_grad_errors():
    with pytest.raises(ValueError, match="PadV3Grad"):
        G.PadV3Grad("wrap")
    with pytest.raises(TypeError, match="PadV3Grad.*paddings_contiguous"):
        G.PadV3Grad("edge", 1)
    with pytest.raises(ValueError, match="PadV3Grad"):
        G.PadV3Grad("constant")(Tensor(np.ones((2, 3))), Tensor(np.array([1], np.int64)))
    with pytest.raises(ValueError, match="PadV3Grad"):
        G.PadV3Grad("reflect")(Tensor(np.ones((2, 5))), Tensor(np.array([3, 0], np.int64)))
    with pytest.raises(ValueError, match="PadV3Grad.*even"):
        G.PadV3Grad("constant")(Tensor(np.ones((2, 5))), (1, 1, 1))
    with pytest.raises(TypeError, match="PadV3Grad.*1-D int32 or int64"):
        G.PadV3Grad("constant")(Tensor(np.ones((2, 5))), Tensor(np.array([1.0, 1.0])))
    with pytest.raises(TypeError, match="PadV3Grad.*tensor, tuple or list"):
        G.PadV3Grad("constant")(Tensor(np.ones((2, 5))), "1, 1")
    # the begins-then-ends layout reads the same pairs: (1, 2) on dim -1, (0, 1) on dim -2
    a = G.PadV3Grad("constant", paddings_contiguous=False)(Tensor(np.ones((3, 6))), (1, 0, 2, 1))
    b = G.PadV3Grad("constant")(Tensor(np.ones((3, 6))), (1, 2, 0, 1))
    assert a.shape == (2, 3) and np.array_equal(a.asnumpy(), b.asnumpy())


def test_cell_cls_name():
    class MyNet(nn.Cell):
        def construct(self, x):
            return x

    assert MyNet().cls_name == "MyNet"
    net = MyNet()
    net.cls_name = "Other"
    assert net.cls_name == "Other"


def test_optimizer_group_rules():
    ps = [ms.Parameter(Tensor(np.ones(2, np.float32)), f"w{i}") for i in range(3)]
    with pytest.raises(RuntimeError, match="given twice"):
        nn.Adam([{"params": ps[:2]}, {"params": ps[1:]}], learning_rate=0.1)
    with pytest.raises(ValueError, match="one length"):
        nn.Momentum([{"params": ps[:1], "lr": (0.1, 0.2, 0.3)}, {"params": ps[1:]}],
                    learning_rate=(0.1, 0.2), momentum=0.9)
    opt = nn.SGD([{"params": ps[:1], "weight_decay": 0.1}, {"params": ps[1:]}])
    assert opt.get_lr_parameter(ps[0]).name == "learning_rate"
    with pytest.raises(TypeError, match="get_lr_parameter"):
        opt.get_lr_parameter([1, 2])
    with pytest.raises(ValueError, match="not updated"):
        opt.get_lr_parameter(ms.Parameter(Tensor(np.ones(1, np.float32)), "other"))


def _crop_ref(img, boxes, idx, size, method, extra):
    """TensorFlow's crop_and_resize, elementwise in numpy."""
    n, hh, ww, c = img.shape
    ch, cw = size
    out = np.full((len(boxes), ch, cw, c), extra, np.float64)
    for b, (y1, x1, y2, x2) in enumerate(boxes):
        for i in range(ch):
            y = y1 * (hh - 1) + i * (y2 - y1) * (hh - 1) / (ch - 1) if ch > 1 \
                else 0.5 * (y1 + y2) * (hh - 1)
            if y < 0 or y > hh - 1:
                continue
            for j in range(cw):
                x = x1 * (ww - 1) + j * (x2 - x1) * (ww - 1) / (cw - 1) if cw > 1 \
                    else 0.5 * (x1 + x2) * (ww - 1)
                if x < 0 or x > ww - 1:
                    continue
                im = img[idx[b]]
                if method == "nearest":
                    out[b, i, j] = im[int(np.floor(y + 0.5)), int(np.floor(x + 0.5))]
                    continue
                t, bt = int(np.floor(y)), int(np.ceil(y))
                lf, rt = int(np.floor(x)), int(np.ceil(x))
                dy, dx = y - t, x - lf
                top = im[t, lf] + (im[t, rt] - im[t, lf]) * dx
                bot = im[bt, lf] + (im[bt, rt] - im[bt, lf]) * dx
                out[b, i, j] = top + (bot - top) * dy
    return out


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
@pytest.mark.parametrize("size", [(4, 5), (1, 3)])
def test_crop_and_resize_matches_reference(mode, method, size):
    img = RNG.standard_normal((2, 6, 7, 3)).astype(np.float32)
    # random edges: no sample lands on a rounding boundary (where float32 and float64 differ)
    boxes = np.array([[0.13, 0.21, 0.83, 0.94], [0.91, 0.72, 0.23, 0.11],
                      [-0.17, 0.03, 0.52, 1.31]], np.float32)
    idx = np.array([1, 0, 1], np.int32)
    op = P.CropAndResize(method, extrapolation_value=-5.0)
    got = _Fn(lambda a, b, i: op(a, b, i, size))(Tensor(img), Tensor(boxes), Tensor(idx))
    assert got.shape == (3,) + size + (3,) and got.dtype == ms.float32
    want = _crop_ref(img.astype(np.float64), boxes.astype(np.float64), idx, size, method, -5.0)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-5)


def test_crop_and_resize_gradient_and_errors():
    img = RNG.standard_normal((1, 5, 5, 2))
    boxes = Tensor(np.array([[0.1, 0.15, 0.7, 0.8]], np.float32))
    idx = Tensor(np.array([0], np.int32))
    w = RNG.standard_normal((1, 3, 3, 2))

    def f(x):
        return (P.CropAndResize()(x, boxes, idx, (3, 3)) * Tensor(w.astype(np.float32))).sum()

    got = ms.grad(f)(Tensor(img.astype(np.float32))).asnumpy()
    # linear in the image: the gradient is the reference applied to unit images
    want = np.zeros_like(img)
    for k in np.ndindex(*img.shape):
        e = np.zeros_like(img)
        e[k] = 1
        want[k] = (_crop_ref(e, boxes.asnumpy().astype(np.float64), [0], (3, 3), "bilinear",
                             0.0) * w).sum()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="CropAndResize"):
        P.CropAndResize("bilinear_v2")
    with pytest.raises(ValueError, match="CropAndResize"):
        P.CropAndResize()(Tensor(img.astype(np.float32)), boxes, idx, (0, 3))
    with pytest.raises(ValueError, match="CropAndResize"):
        P.CropAndResize()(Tensor(img.astype(np.float32)), boxes,
                          Tensor(np.array([0], np.int64)), (2, 3))


class _Scaled(nn.Cell):
    def construct(self, x, s, k, flag, axes):
        return (x * s * k).sum() if flag else x.sum(axes)


class _GradAll(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.grad = ops.GradOperation(get_all=True)

    def construct(self, *args):
        return self.grad(self.net)(*args)


def test_grad_all_gives_number_inputs_zeros(mode):
    """MindSpore's GradOperation(get_all=True) over number inputs: a constant int input has no
    gradient (skipped, as grad(f)(1, 2) == () in MindSpore's test_grad_return_type), nor has a
    constant tuple of ints (MindSpore's st test_sparse_tensor_dense_matmul_op reads the dense
    input's gradient right after its dense_shape tuple's place); a bool gets a zero of its kind;
    a float input is differentiated as a 0-d tensor."""
    x = Tensor(np.ones(3, np.float32))
    grads = _GradAll(_Scaled())(x, 2.0, 3, True, (0,))
    assert len(grads) == 3
    gx, gs, gflag = grads
    np.testing.assert_array_equal(gx.asnumpy(), [6, 6, 6])
    assert float(gs.asnumpy()) == 9.0
    assert gflag is False


def test_set_inputs_takes_a_dtype_compiled_by_value():
    class Net(nn.Cell):
        def construct(self, x, dtype):
            return x.sum(0, dtype=dtype)

    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.GRAPH_MODE)
        net = Net()
        net.set_inputs(Tensor(shape=[None, 2], dtype=ms.float32), ms.float16)
        for n, dt in ((3, ms.float16), (4, ms.float64)):
            got = net(Tensor(np.ones((n, 2), np.float32)), dt)
            assert got.dtype == dt
            np.testing.assert_array_equal(got.asnumpy(), [n, n])
    finally:
        ms.set_context(mode=old)


def test_functional_partial_and_optimizer_parameter_clone(mode):
    from mycel.ops import functional as F

    def affine(a, b, x):
        return x * a + b

    class Net(nn.Cell):
        def construct(self, x, y):
            f = F.partial(affine, 2.0, 1.0)
            return F.partial(ops.add, f(x))(y)

    x, y = Tensor(np.arange(3, dtype=np.float32)), Tensor(np.ones(3, np.float32))
    np.testing.assert_array_equal(Net()(x, y).asnumpy(), np.arange(3) * 2 + 2)
    ps = [ms.Parameter(Tensor(np.ones((2, 3), np.float32)), "w"),
          ms.Parameter(Tensor(np.ones(3, np.float32)), "b")]
    opt = nn.SGD(ps, 0.1)
    m = opt.parameters.clone(prefix="mom", init="zeros")
    assert [p.name for p in m] == ["mom.w", "mom.b"]
    assert [tuple(p.shape) for p in m] == [(2, 3), (3,)]
    assert all(float(p.asnumpy().sum()) == 0 for p in m)
    assert opt.map_reverse(lambda a, b: a + b, (1, 2), (10, 20)) == (11, 22)


def test_sub_with_alpha(mode):
    x = Tensor(np.array([4.0, 5.0, 6.0], np.float32))
    y = Tensor(np.array(1, np.int32))
    got = _Fn(lambda a, b: a.__sub__(b, alpha=2))(x, y)
    np.testing.assert_array_equal(got.asnumpy(), [2, 3, 4])
    np.testing.assert_array_equal(_Fn(lambda a, b: a.__sub__(b))(x, y).asnumpy(), [3, 4, 5])
    np.testing.assert_array_equal((x - y).asnumpy(), [3, 4, 5])
