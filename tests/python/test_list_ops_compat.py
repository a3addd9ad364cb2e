"""ListDiff and ConcatOffset (ops/operations/list_ops.py), BiasAddGrad (_grad_ops.py), the
Tensor methods nextafter, orgqr, lu_solve and multinomial,
Tensor.cross, PadV3, float16 cumsum's rounding and initializer's Tensor dtype: against numpy/torch,
in GRAPH and PYNATIVE mode."""
import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, context, nn, ops
from mycel.common.initializer import initializer
from mycel.ops.operations import array_ops as A, _grad_ops as G, nn_ops

MODES = [context.GRAPH_MODE, context.PYNATIVE_MODE]


@pytest.fixture(autouse=True)
def _restore_mode():
    yield
    context.set_context(mode=context.PYNATIVE_MODE)


class _ListDiffNet(nn.Cell):
    def __init__(self, out_idx=ms.int32):
        super().__init__()
        self.op = A.ListDiff(out_idx)

    def construct(self, x, y):
        return self.op(x, y)


def _list_diff_ref(x, y):
    keep = ~np.isin(x, y)
    return x[keep], np.nonzero(keep)[0]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dynamic", [False, True])
def test_list_diff_matches_numpy(mode, dynamic):
    context.set_context(mode=mode)
    rng = np.random.default_rng(0)
    cases = [(rng.integers(0, 8, 20).astype(np.int32), rng.integers(0, 8, 5).astype(np.int32)),
             (np.array([1.5, 2.5, 1.5], np.float32), np.array([], np.float32)),
             (np.array([3, 3], np.int32), np.array([3], np.int32))]
    for x, y in cases:
        for out_idx in (ms.int32, ms.int64):
            net = _ListDiffNet(out_idx)
            if dynamic:
                dt = Tensor(x).dtype
                net.set_inputs(Tensor(shape=[None], dtype=dt), Tensor(shape=[None], dtype=dt))
            out, idx = net(Tensor(x), Tensor(y))
            want_out, want_idx = _list_diff_ref(x, y)
            np.testing.assert_array_equal(out.asnumpy(), want_out)
            np.testing.assert_array_equal(idx.asnumpy(), want_idx)
            assert idx.dtype == out_idx


@pytest.mark.parametrize("mode", MODES)
def test_list_diff_bad_input(mode):
    context.set_context(mode=mode)
    with pytest.raises(ValueError, match="ListDiff.*1-D"):
        _ListDiffNet()(Tensor(np.ones((2, 2), np.float32)), Tensor(np.ones(2, np.float32)))
    with pytest.raises(TypeError, match="ListDiff.*same dtype"):
        _ListDiffNet()(Tensor(np.ones(2, np.float32)), Tensor(np.ones(2, np.int32)))
    with pytest.raises(TypeError, match="out_idx"):
        A.ListDiff(ms.float32)


class _OffsetNet(nn.Cell):
    def __init__(self, n, axis):
        super().__init__()
        self.op = G.ConcatOffset(n, axis)

    def construct(self, x, y, z):
        return self.op((x, y, z))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat_offset_matches_concat(mode, axis):
    context.set_context(mode=mode)
    shapes = []
    for k in (2, 1, 4):
        s = [3, 2, 5]
        s[axis] = k
        shapes.append(tuple(s))
    xs = [np.zeros(s, np.float32) for s in shapes]
    got = _OffsetNet(3, axis)(*[Tensor(v) for v in xs]).asnumpy()
    sizes = [s[axis] for s in shapes]
    want = np.zeros((3, 3), np.int64)
    want[:, axis % 3] = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.int64
    # the offsets slice each input back out of the concatenation
    cat = np.concatenate([np.full(s, i, np.float32) for i, s in enumerate(shapes)], axis)
    for i, s in enumerate(shapes):
        part = np.take(cat, range(got[i, axis % 3], got[i, axis % 3] + s[axis]), axis)
        assert (part == i).all()


def test_concat_offset_bad_input():
    x = Tensor(np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="ConcatOffset.*N = 3"):
        G.ConcatOffset(3, 0)((x, x))
    with pytest.raises(ValueError, match="ConcatOffset.*rank"):
        G.ConcatOffset(2, 0)((x, Tensor(np.zeros(2, np.float32))))
    with pytest.raises(ValueError, match="ConcatOffset.*axis"):
        G.ConcatOffset(2, 2)((x, x))
    with pytest.raises(TypeError, match="ConcatOffset.*axis"):
        G.ConcatOffset(2, 0.5)


class _CrossNet(nn.Cell):
    def construct(self, a, b):
        return a.cross(b, dim=1), a.cross(b)


@pytest.mark.parametrize("mode", MODES)
def test_tensor_cross(mode):
    context.set_context(mode=mode)
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    got_dim, got_default = _CrossNet()(Tensor(a), Tensor(b))
    np.testing.assert_allclose(got_dim.asnumpy(), np.cross(a, b, axis=1), rtol=1e-12)
    # dim=None: the first dimension of size 3 (dimension 1 here)
    np.testing.assert_allclose(got_default.asnumpy(), np.cross(a, b, axis=1), rtol=1e-12)


def test_initializer_keeps_tensor_dtype():
    labels = Tensor(np.array([2, 1, 0], np.int32))
    p = initializer(labels, labels.shape)
    assert p.dtype == ms.int32
    np.testing.assert_array_equal(p.asnumpy(), [2, 1, 0])
    assert initializer(labels, (3,), ms.float64).dtype == ms.float64
    with pytest.raises(ValueError, match="shape"):
        initializer(labels, (2,))


class _BiasGradNet(nn.Cell):
    def __init__(self, fmt):
        super().__init__()
        self.op = G.BiasAddGrad(fmt)

    def construct(self, dout):
        return self.op(dout)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fmt, shape, axes", [("NCHW", (2, 3, 4, 5), (0, 2, 3)),
                                              ("NHWC", (2, 4, 5, 3), (0, 1, 2)),
                                              ("NCHW", (6, 3), (0,)),
                                              ("NCDHW", (2, 3, 2, 2, 2), (0, 2, 3, 4))])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint8, np.complex64])
def test_bias_add_grad_matches_numpy(mode, fmt, shape, axes, dtype):
    context.set_context(mode=mode)
    rng = np.random.default_rng(3)
    dout = rng.integers(0, 4, shape).astype(dtype)
    got = _BiasGradNet(fmt)(Tensor(dout)).asnumpy()
    want = dout.sum(axis=axes).astype(dtype)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_bias_add_grad_is_bias_adds_bias_cotangent(mode):
    context.set_context(mode=mode)
    rng = np.random.default_rng(4)
    x, b = rng.standard_normal((2, 3, 4)), rng.standard_normal(3)
    w = rng.standard_normal((2, 3, 4))
    gb = ms.grad(lambda u, v: ops.sum(ops.bias_add(u, v) * Tensor(w)), 1)(Tensor(x), Tensor(b))
    np.testing.assert_allclose(_BiasGradNet("NCHW")(Tensor(w)).asnumpy(), gb.asnumpy(),
                               rtol=1e-12)


def test_bias_add_grad_bad_input():
    with pytest.raises(ValueError, match="BiasAddGrad.*data_format"):
        G.BiasAddGrad("NC")
    with pytest.raises(ValueError, match="BiasAddGrad.*rank"):
        G.BiasAddGrad()(Tensor(np.ones(3, np.float32)))


class _MethodsNet(nn.Cell):
    def construct(self, x, y, a, tau, b, lu, piv):
        return x.nextafter(y), a.orgqr(tau), b.lu_solve(lu, piv)


@pytest.mark.parametrize("mode", MODES)
def test_tensor_methods_nextafter_orgqr_lu_solve(mode):
    import torch
    context.set_context(mode=mode)
    rng = np.random.default_rng(5)
    x, y = rng.standard_normal(6), rng.standard_normal(6)
    a = rng.standard_normal((4, 3))
    tau = rng.uniform(0.5, 1.5, 3)
    m = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    b = rng.standard_normal((3, 2))
    lu_t, piv_t = torch.linalg.lu_factor(torch.tensor(m))
    got_next, got_q, got_solve = _MethodsNet()(
        Tensor(x), Tensor(y), Tensor(a), Tensor(tau), Tensor(b), Tensor(lu_t.numpy()),
        Tensor(piv_t.numpy().astype(np.int32)))
    np.testing.assert_array_equal(got_next.asnumpy(), np.nextafter(x, y))
    np.testing.assert_allclose(
        got_q.asnumpy(),
        torch.linalg.householder_product(torch.tensor(a), torch.tensor(tau)).numpy(),
        rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got_solve.asnumpy(), np.linalg.solve(m, b), rtol=1e-10)


def test_tensor_multinomial_method():
    probs = Tensor(np.array([[0.0, 1.0, 0.0, 3.0], [2.0, 0.0, 0.0, 0.0]], np.float32))
    out = probs.multinomial(50, True)
    assert out.shape == (2, 50)
    v = out.asnumpy()
    assert set(np.unique(v[0])) <= {1, 3} and (v[1] == 0).all()  # zero weights never drawn
    with pytest.raises((TypeError, ValueError)):
        probs.multinomial(5, False)  # more draws without replacement than the 4 categories


class _PadV3Net(nn.Cell):
    def __init__(self, mode, pads, value, contiguous=True):
        super().__init__()
        self.op = nn_ops.PadV3(mode, contiguous)
        self.pads, self.value = pads, value

    def construct(self, x):
        return self.op(x, self.pads, self.value)


PADV3_CASES = [("constant", (1, 2), 1.5), ("constant", (1, 2, 2, 1), -2.0),
               ("constant", (0, -1, 1, 1), 0.0), ("reflect", (1, 2), None),
               ("reflect", (2, 1, 1, 2), None), ("edge", (3, 1, 0, 2), None),
               ("circular", (1, 2, 2, 1), None)]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("pmode, pads, value", PADV3_CASES)
def test_pad_v3_matches_torch(mode, pmode, pads, value):
    import torch
    context.set_context(mode=mode)
    # torch pads k trailing dims of a (k + 2)-d input in the non-constant modes
    x = np.random.default_rng(6).standard_normal((2, 3, 4, 5)[:2 + len(pads) // 2])
    got = _PadV3Net(pmode, pads, value)(Tensor(x)).asnumpy()
    tmode = {"edge": "replicate"}.get(pmode, pmode)
    kw = {"value": value} if pmode == "constant" else {}
    want = torch.nn.functional.pad(torch.tensor(x), pads, mode=tmode, **kw).numpy()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("mode", MODES)
def test_pad_v3_negative_paddings_crop_first(mode):
    # a negative padding crops that side, then the mode pads what is left (MindSpore's
    # circular example: the last dim (1, -1) of [6, 7, 8] is [7, 6, 7])
    context.set_context(mode=mode)
    x = np.arange(9.0).reshape(1, 1, 3, 3)
    got = _PadV3Net("circular", (1, -1, 1, 2), None)(Tensor(x)).asnumpy()
    cropped = x[..., :2]
    want = np.concatenate([cropped[..., 1:], cropped], -1)  # last dim: left 1
    want = np.concatenate([want[..., 2:, :], want, want[..., :2, :]], -2)  # rows: (1, 2)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got[0, 0, 0], [7, 6, 7])
    got = _PadV3Net("edge", (-1, 2), None)(Tensor(x)).asnumpy()
    np.testing.assert_array_equal(got, np.pad(x[..., 1:], [(0, 0)] * 3 + [(0, 2)], "edge"))


def test_pad_v3_gradient_and_layout():
    import torch
    x = np.random.default_rng(7).standard_normal((2, 3, 4))
    w = np.random.default_rng(8).standard_normal((2, 3, 7))
    g = ms.grad(lambda u: ops.sum(nn_ops.PadV3("reflect")(u, (1, 2)) * Tensor(w)))(Tensor(x))
    xt = torch.tensor(x, requires_grad=True)
    (torch.nn.functional.pad(xt, (1, 2), mode="reflect") * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(g.asnumpy(), xt.grad.numpy(), rtol=1e-12)
    # paddings_contiguous=False: all begins, then all ends
    a = nn_ops.PadV3("constant", False)(Tensor(x), (1, 2, 3, 4), 0.0).asnumpy()
    b = nn_ops.PadV3("constant")(Tensor(x), (1, 3, 2, 4), 0.0).asnumpy()
    np.testing.assert_array_equal(a, b)


def test_pad_v3_bad_input():
    x = Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="PadV3.*mode"):
        nn_ops.PadV3("wrap")
    with pytest.raises(TypeError, match="PadV3.*paddings_contiguous"):
        nn_ops.PadV3("constant", 1)
    with pytest.raises(ValueError, match="PadV3.*even"):
        nn_ops.PadV3()(x, (1, 2, 3))
    with pytest.raises(ValueError, match="PadV3.*reflect"):
        nn_ops.PadV3("reflect")(x, (3, 0))
    with pytest.raises(ValueError, match="PadV3.*positive"):
        nn_ops.PadV3()(x, (-2, -1))
    with pytest.raises(ValueError, match="PadV3.*constant_value"):
        nn_ops.PadV3("edge")(x, (1, 1), 2.0)
    with pytest.raises(TypeError, match="PadV3.*tuple or list of ints"):
        nn_ops.PadV3()(x, (1.5, 1))
    with pytest.raises(TypeError, match="PadV3.*tuple or list of ints"):
        nn_ops.PadV3()(x, (True, 1))
    with pytest.raises(TypeError, match="PadV3.*1-D int32 or int64"):
        nn_ops.PadV3()(x, Tensor(np.array([1.0, 1.0], np.float32)))


@pytest.mark.parametrize("mode", MODES)
def test_cumsum_float16_is_correctly_rounded(mode):
    # mycel accumulates float16 in float32 (as torch): each partial sum is the exact sum
    # rounded once to float16, within half an ulp; numpy (and MindSpore's CPU kernel) round
    # every step, which drifts by more (MindSpore's test_cumsum_op compares to numpy at 1e-5).
    context.set_context(mode=mode)
    x = np.random.default_rng(9).random((2, 3, 4, 5, 3)).astype(np.float16)
    for axis in (1, 3, -1):
        got = ms.jit(lambda t: ops.cumsum(t, axis))(Tensor(x)) if mode == context.GRAPH_MODE \
            else ops.cumsum(Tensor(x), axis)
        exact = np.cumsum(x.astype(np.float64), axis=axis)
        ulp = np.spacing(exact.astype(np.float16)).astype(np.float64)
        assert got.dtype == ms.float16
        assert (np.abs(got.asnumpy().astype(np.float64) - exact) <= ulp / 2).all()


class _QrNet(nn.Cell):
    def construct(self, x):
        q, r = x.qr()
        qc, rc = x.qr(False)
        return q, r, qc, rc, ops.qr(x, "complete")[0]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape", [(3, 3), (5, 3), (3, 5), (2, 4, 3)])
def test_qr_matches_numpy(mode, shape):
    context.set_context(mode=mode)
    a = np.random.default_rng(10).standard_normal(shape)
    q, r, qc, rc, qc2 = _QrNet()(Tensor(a))
    for (gq, gr), m in (((q, r), "reduced"), ((qc, rc), "complete")):
        wq, wr = np.linalg.qr(a, m)  # LAPACK's signs, as geqrf's
        np.testing.assert_allclose(gq.asnumpy(), wq, atol=1e-12)
        np.testing.assert_allclose(gr.asnumpy(), wr, atol=1e-12)
    np.testing.assert_array_equal(qc2.asnumpy(), qc.asnumpy())
    with pytest.raises(ValueError, match="qr.*mode"):
        ops.qr(Tensor(a), "r")
