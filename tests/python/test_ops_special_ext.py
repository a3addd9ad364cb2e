"""Betainc / ops.betainc, STFT / ops.stft / ops.istft, RaggedRange, ScatterAddWithAxis,
ConcatOffsetV1, auto_generate.Diagonal and the _grad_ops MedianGrad, LogitGrad,
Minimum/MaximumGradGrad, CholeskyGrad and PdistGrad against scipy / torch / numpy, in both
modes; errors name the op."""
import numpy as np
import pytest
import scipy.special as sp
import torch

import mycel as ms
from mycel import nn, ops, Tensor, Parameter
from mycel.ops.operations import math_ops as M, array_ops as A, _grad_ops as G
from mycel.ops.auto_generate import Diagonal

RNG = np.random.default_rng(31)


class _Fn(nn.Cell):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        return self.fn(*args)


# ---- Betainc -------------------------------------------------------------------------------

@pytest.mark.parametrize("hi,tol", [(5.0, 1e-13), (100.0, 1e-12), (1e4, 1e-10)])
def test_betainc_matches_scipy(mode, hi, tol):
    a = RNG.uniform(0.01, hi, 300)
    b = RNG.uniform(0.01, hi, 300)
    x = RNG.uniform(0, 1, 300)
    got = _Fn(M.Betainc())(Tensor(a), Tensor(b), Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, sp.betainc(a, b, x), rtol=0, atol=tol)


def test_betainc_edges_float32_and_ms_case(mode):
    a = np.array([1.0, 2.0, -1.0, 2.0, 3.0, np.nan], np.float32)
    b = np.array([0.5, 3.0, 1.0, 0.0, 2.0, 1.0], np.float32)
    x = np.array([0.0, 1.0, 0.5, 0.5, 1.5, 0.5], np.float32)
    got = _Fn(lambda p, q, r: ops.betainc(p, q, r))(Tensor(a), Tensor(b), Tensor(x)).asnumpy()
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got[:2], [0.0, 1.0])
    assert np.isnan(got[2:]).all()
    one = np.ones(4, np.float32)
    half = np.full(4, 0.5, np.float32)
    got = _Fn(M.Betainc())(Tensor(one), Tensor(half), Tensor(half)).asnumpy()
    np.testing.assert_allclose(got, sp.betainc(1, 0.5, 0.5), rtol=1e-6)


def test_betainc_gradient_is_in_x_only(mode):
    a = RNG.uniform(0.5, 4, 6)
    b = RNG.uniform(0.5, 4, 6)
    x = RNG.uniform(0.05, 0.95, 6)
    ga, gb, gx = ms.grad(lambda p, q, r: ops.betainc(p, q, r).sum(), grad_position=(0, 1, 2))(
        Tensor(a), Tensor(b), Tensor(x))
    eps = 1e-6
    num = (sp.betainc(a, b, x + eps) - sp.betainc(a, b, x - eps)) / (2 * eps)
    np.testing.assert_allclose(gx.asnumpy(), num, rtol=1e-7)
    np.testing.assert_array_equal(ga.asnumpy(), 0)  # MindSpore's bprop: x only
    np.testing.assert_array_equal(gb.asnumpy(), 0)


def test_betainc_errors():
    with pytest.raises(TypeError, match="Betainc"):
        ops.betainc(Tensor(np.ones(2)), Tensor(np.ones(2, np.float32)), Tensor(np.ones(2)))
    with pytest.raises(ValueError, match="Betainc"):
        ops.betainc(Tensor(np.ones(2)), Tensor(np.ones(3)), Tensor(np.ones(2)))


# ---- STFT / stft / istft -------------------------------------------------------------------

@pytest.mark.parametrize("center,pad_mode,onesided,normalized",
                         [(True, "reflect", True, False), (False, "constant", False, True),
                          (True, "constant", None, True), (True, "replicate", True, False)])
def test_stft_matches_torch(mode, center, pad_mode, onesided, normalized):
    x = RNG.standard_normal((2, 300))
    w = np.hanning(48)
    got = _Fn(lambda s, win: ops.stft(s, 64, 16, 48, win, center, pad_mode, normalized,
                                      onesided, True))(Tensor(x), Tensor(w)).asnumpy()
    want = torch.stft(torch.tensor(x), 64, 16, 48, torch.tensor(w), center, pad_mode,
                      normalized, onesided, return_complex=True).numpy()
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_stft_primitive_real_output_and_complex_input(mode):
    x = RNG.standard_normal((2, 500)).astype(np.float32)
    net = _Fn(M.STFT(n_fft=64, hop_length=16, win_length=64, normalized=False, onesided=True,
                     return_complex=False))
    got = net(Tensor(x), Tensor(np.ones(64, np.float32))).asnumpy()
    want = torch.view_as_real(torch.stft(torch.tensor(x), 64, 16, 64, torch.ones(64),
                                         center=False, return_complex=True)).numpy()
    assert got.shape == want.shape == (2, 33, 28, 2)
    np.testing.assert_allclose(got, want, atol=2e-4)
    z = RNG.standard_normal(200) + 1j * RNG.standard_normal(200)
    got = _Fn(lambda s: ops.stft(s, 32, 8))(Tensor(z)).asnumpy()
    want = torch.stft(torch.tensor(z), 32, 8, return_complex=True).numpy()
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_istft_inverts_and_matches_torch(mode):
    x = RNG.standard_normal((2, 300))
    w = np.hanning(48)
    spec = torch.stft(torch.tensor(x), 64, 16, 48, torch.tensor(w), return_complex=True)
    got = _Fn(lambda s, win: ops.istft(s, 64, 16, 48, win, length=300))(
        Tensor(spec.numpy()), Tensor(w)).asnumpy()
    np.testing.assert_allclose(got, x, atol=1e-12)
    got = _Fn(lambda s, win: ops.istft(s, 64, 16, 48, win))(Tensor(spec.numpy()),
                                                           Tensor(w)).asnumpy()
    want = torch.istft(spec, 64, 16, 48, torch.tensor(w)).numpy()
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, atol=1e-12)
    full = torch.stft(torch.tensor(x[0]), 32, 8, return_complex=True, onesided=False)
    got = _Fn(lambda s: ops.istft(s, 32, 8, onesided=False))(Tensor(full.numpy())).asnumpy()
    np.testing.assert_allclose(got, torch.istft(full, 32, 8, onesided=False).numpy(),
                               atol=1e-12)


def test_stft_gradient_matches_torch():
    x = RNG.standard_normal(128)
    w = np.hanning(32)
    c = RNG.standard_normal((17, 9))

    def loss(s):
        return (ops.abs(ops.stft(s, 32, 16, window=Tensor(w), return_complex=True)) *
                Tensor(c)).sum()
    got = ms.grad(loss)(Tensor(x)).asnumpy()
    xt = torch.tensor(x, requires_grad=True)
    (torch.stft(xt, 32, 16, window=torch.tensor(w), return_complex=True).abs() *
     torch.tensor(c)).sum().backward()
    np.testing.assert_allclose(got, xt.grad.numpy(), atol=1e-10)


def test_stft_errors():
    with pytest.raises(ValueError, match="stft"):
        ops.stft(Tensor(np.ones(100)), 64, 16, 80)
    with pytest.raises(ValueError, match="stft"):
        ops.stft(Tensor(np.ones(100)), 64, 16, 48, Tensor(np.ones(40)))
    with pytest.raises(TypeError, match="stft"):
        ops.stft(Tensor(np.ones(100, np.int32)), 64)
    with pytest.raises(ValueError, match="istft"):
        ops.istft(Tensor(np.ones((10, 5), np.complex64)), 64)
    with pytest.raises(ValueError, match="istft"):
        ops.istft(Tensor(np.ones((33, 5), np.complex64)), 64, 80, 32)  # gaps: no envelope


# ---- RaggedRange, ScatterAddWithAxis, ConcatOffsetV1, Diagonal ------------------------------

def test_ragged_range_pynative():
    splits, vals = M.RaggedRange(Tsplits=ms.int32)(
        Tensor(np.array([2, 5, 8], np.int32)), Tensor(np.array([3, 5, 12], np.int32)),
        Tensor(np.array([1, 1, 1], np.int32)))
    np.testing.assert_array_equal(splits.asnumpy(), [0, 1, 1, 5])
    np.testing.assert_array_equal(vals.asnumpy(), [2, 8, 9, 10, 11])
    splits, vals = M.RaggedRange(Tsplits=ms.int64)(
        Tensor(np.array([0.0, 5.0], np.float32)), Tensor(np.array([-1.0, -1.0], np.float32)),
        Tensor(np.array([0.5, -2.5], np.float32)))
    assert splits.dtype == ms.int64 and vals.dtype == ms.float32
    np.testing.assert_array_equal(splits.asnumpy(), [0, 0, 3])
    np.testing.assert_allclose(vals.asnumpy(), [5.0, 2.5, 0.0])
    with pytest.raises(ValueError, match="RaggedRange"):
        M.RaggedRange(Tsplits=ms.int32)(*(Tensor(np.array([1, 2], np.int32)),) * 2,
                                        Tensor(np.array([1, 0], np.int32)))
    with pytest.raises(ValueError, match="RaggedRange"):  # MindSpore broadcasts no scalar
        M.RaggedRange(Tsplits=ms.int32)(Tensor(1, ms.int32), Tensor(3, ms.int32),
                                        Tensor(np.array([2, 5], np.int32)))
    splits, vals = M.RaggedRange(Tsplits=ms.int32)(Tensor(1, ms.int32), Tensor(7, ms.int32),
                                                   Tensor(2, ms.int32))
    np.testing.assert_array_equal(splits.asnumpy(), [0, 3])
    np.testing.assert_array_equal(vals.asnumpy(), [1, 3, 5])
    with pytest.raises(TypeError, match="RaggedRange"):
        M.RaggedRange(Tsplits=ms.float32)


def test_ragged_range_graph_returns_its_results():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = _Fn(M.RaggedRange(Tsplits=ms.int32))
        with pytest.warns(UserWarning, match="JIT fallback"):
            splits, vals = net(Tensor(np.array([0, 5], np.int32)),
                               Tensor(np.array([3, 9], np.int32)),
                               Tensor(np.array([1, 2], np.int32)))
        np.testing.assert_array_equal(splits.asnumpy(), [0, 3, 5])
        np.testing.assert_array_equal(vals.asnumpy(), [0, 1, 2, 5, 7])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


class _ScatterNet(nn.Cell):
    def __init__(self, axis):
        super().__init__()
        self.op = A.ScatterAddWithAxis(axis)
        self.ref = Parameter(Tensor(np.ones((3, 3), np.float32)), name="ref")

    def construct(self, indices, updates):
        return self.op(self.ref, indices, updates)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_scatter_add_with_axis_matches_torch(mode, axis):
    idx = np.array([[0, 1], [1, 2], [1, 1]], np.int32)  # repeated positions add up
    upd = RNG.standard_normal((3, 2)).astype(np.float32)
    net = _ScatterNet(axis)
    got = net(Tensor(idx), Tensor(upd)).asnumpy()
    want = torch.ones(3, 3).scatter_add(axis, torch.tensor(idx, dtype=torch.int64),
                                        torch.tensor(upd)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_allclose(net.ref.asnumpy(), want, rtol=1e-6)  # written in place
    with pytest.raises(ValueError, match="ScatterAddWithAxis"):
        _ScatterNet(axis)(Tensor(idx[:, :, None]), Tensor(upd[:, :, None]))


def test_concat_offset_v1(mode):
    shapes = (Tensor(np.array([1, 2, 3], np.int32)), Tensor(np.array([1, 5, 3], np.int32)),
              Tensor(np.array([1, 4, 3], np.int32)))
    for axis in (1, -2):
        out = _Fn(A.ConcatOffsetV1())(Tensor(axis, ms.int32), shapes)
        np.testing.assert_array_equal([o.asnumpy() for o in out],
                                      [[0, 0, 0], [0, 2, 0], [0, 7, 0]])
    out = _Fn(A.ConcatOffsetV1())(Tensor(0, ms.int32), shapes)
    np.testing.assert_array_equal([o.asnumpy() for o in out], [[0, 0, 0], [1, 0, 0],
                                                               [2, 0, 0]])
    with pytest.raises(ValueError, match="ConcatOffsetV1"):
        A.ConcatOffsetV1()(Tensor(0, ms.int32), (shapes[0], Tensor(np.array([1, 2], np.int32))))


def test_auto_generate_diagonal(mode):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)  # MindSpore's test case
    got = _Fn(Diagonal(offset=1, dim1=-1, dim2=1))(Tensor(x)).asnumpy()
    np.testing.assert_array_equal(got, np.diagonal(x, 1, -1, 1))


# ---- _grad_ops -----------------------------------------------------------------------------

def test_median_grad_matches_torch(mode):
    x = RNG.permutation(12).reshape(3, 4).astype(np.float32)
    xt = torch.tensor(x, requires_grad=True)
    vals, idx = torch.median(xt, 0)
    g = RNG.standard_normal(4).astype(np.float32)
    (vals * torch.tensor(g)).sum().backward()
    got = _Fn(G.MedianGrad(global_median=False, axis=0, keep_dims=False))(
        Tensor(g), Tensor(x), Tensor(vals.detach().numpy()), Tensor(idx.numpy())).asnumpy()
    np.testing.assert_allclose(got, xt.grad.numpy())
    # keep_dims, int input (float32 out), and the global median split among equal elements
    xi = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]], np.int32)
    got = _Fn(G.MedianGrad(axis=1, keep_dims=True))(
        Tensor(np.array([[21], [56], [31]], np.int32)), Tensor(xi),
        Tensor(np.array([[2], [5], [8]], np.int32)),
        Tensor(np.array([[1], [1], [1]], np.int64))).asnumpy()
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, [[0, 21, 0], [0, 56, 0], [0, 31, 0]])
    xg = np.array([[1.0, 3.0, 3.0], [0.0, 5.0, 3.0]])
    got = _Fn(G.MedianGrad(global_median=True))(
        Tensor(np.array(6.0)), Tensor(xg), Tensor(np.array(3.0)),
        Tensor(np.array(0, np.int64))).asnumpy()
    np.testing.assert_allclose(got, [[0, 2, 2], [0, 0, 2]])


@pytest.mark.parametrize("eps", [-1.0, 0.1])
def test_logit_grad_matches_torch(mode, eps):
    x = np.array([-0.2, 0.05, 0.3, 0.6, 0.95, 1.3], np.float32)
    g = RNG.standard_normal(6).astype(np.float32)
    got = _Fn(G.LogitGrad(eps))(Tensor(g), Tensor(x)).asnumpy()
    xt = torch.tensor(x, requires_grad=True)
    (torch.logit(xt, None if eps < 0 else eps) * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(got, xt.grad.numpy(), rtol=1e-6, equal_nan=True)


@pytest.mark.parametrize("name,op", [("MinimumGradGrad", np.less_equal),
                                     ("MaximumGradGrad", np.greater_equal)])
def test_extremum_grad_grad(mode, name, op):
    x1 = RNG.integers(0, 3, (2, 3, 3)).astype(np.float32)
    x2 = RNG.integers(0, 3, (3, 3)).astype(np.float32)
    g1 = RNG.standard_normal(x1.shape).astype(np.float32)
    g2 = RNG.standard_normal(x2.shape).astype(np.float32)
    s1, s2, sg = _Fn(getattr(G, name)())(Tensor(x1), Tensor(x2), Tensor(g1), Tensor(g2))
    np.testing.assert_array_equal(s1.asnumpy(), np.zeros_like(x1))
    np.testing.assert_array_equal(s2.asnumpy(), np.zeros_like(x2))
    np.testing.assert_array_equal(sg.asnumpy(), np.where(op(x1, x2), g1,
                                                         np.broadcast_to(g2, x1.shape)))
    with pytest.raises(ValueError, match=name):
        getattr(G, name)()(Tensor(x1), Tensor(x2), Tensor(g2), Tensor(g2))


def test_cholesky_grad_matches_torch(mode):
    a = RNG.standard_normal((2, 4, 4))
    a = a @ np.swapaxes(a, -1, -2) + 4 * np.eye(4)
    at = torch.tensor(a, requires_grad=True)
    low = torch.linalg.cholesky(at)
    gl = RNG.standard_normal((2, 4, 4))
    (low * torch.tensor(gl)).sum().backward()
    got = _Fn(G.CholeskyGrad())(Tensor(low.detach().numpy()), Tensor(gl)).asnumpy()
    np.testing.assert_allclose(got, at.grad.numpy(), rtol=1e-10, atol=1e-12)
    # MindSpore's own expectation for A = [[10, 22], [22, 50]] and the identity cotangent
    lm = np.linalg.cholesky(np.array([[10.0, 22], [22, 50]]))
    got = _Fn(G.CholeskyGrad())(Tensor(lm), Tensor(np.eye(2))).asnumpy()
    np.testing.assert_allclose(got, [[2.071291, -0.869626], [-0.869626, 0.39528453]],
                               rtol=1e-5)


@pytest.mark.parametrize("p", [2.0, 1.0, 0.5, 3.0, float("inf"), 0.0])
def test_pdist_grad_matches_torch(mode, p):
    x = RNG.standard_normal((5, 3))
    x[3] = x[1]  # a zero distance
    xt = torch.tensor(x, requires_grad=True)
    y = torch.pdist(xt, p)
    g = RNG.standard_normal(y.shape[0])
    (y * torch.tensor(g)).sum().backward()
    got = _Fn(G.PdistGrad(p=p))(Tensor(g), Tensor(x), Tensor(y.detach().numpy())).asnumpy()
    np.testing.assert_allclose(got, np.nan_to_num(xt.grad.numpy()), rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match="PdistGrad"):
        G.PdistGrad(p=p)(Tensor(g[:3]), Tensor(x), Tensor(g[:3]))


def test_non_tensor_inputs_are_typed_errors_naming_the_op():
    t = Tensor(np.ones(3, np.float32))
    cases = [("RaggedRange", lambda: M.RaggedRange(Tsplits=ms.int32)([1], [2], [1])),
             ("ScatterAddWithAxis", lambda: A.ScatterAddWithAxis(0)(np.ones(3), t, t)),
             ("ConcatOffsetV1", lambda: A.ConcatOffsetV1()(Tensor(0, ms.int32), t)),
             ("MedianGrad", lambda: G.MedianGrad()(t, [1.0, 2.0, 3.0], t, t)),
             ("LogitGrad", lambda: G.LogitGrad()(t, 0.5)),
             ("MinimumGradGrad", lambda: G.MinimumGradGrad()(t, t, t, None)),
             ("CholeskyGrad", lambda: G.CholeskyGrad()(np.eye(2), t)),
             ("PdistGrad", lambda: G.PdistGrad()(t, "x", t))]
    for name, call in cases:
        with pytest.raises(TypeError, match=name):
            call()
