"""MindSpore ops composed from table ops (ops/function/compat_func.py and the primitives of
ops/operations/composed_ops.py): std/var (and _mean), linspace, unstack, masked_fill, mish,
P.KLDivLoss, P.BinaryCrossEntropy, P.DepthToSpace, P.SpaceToDepth; against numpy and
PyTorch, values and gradients, in PYNATIVE and GRAPH mode."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import nn, ops
from mycel.ops import operations as P
from ms_cell import run

RNG = np.random.default_rng(11)


@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2)])
@pytest.mark.parametrize("ddof", [0, 1, True])
@pytest.mark.parametrize("keepdims", [False, True])
def test_std_var_and_their_means_match_numpy(mode, axis, ddof, keepdims):
    x = RNG.standard_normal((3, 4, 5))
    d = int(ddof)
    ws, wv = np.std(x, axis, ddof=d, keepdims=keepdims), np.var(x, axis, ddof=d, keepdims=keepdims)
    wm = np.mean(x, axis, keepdims=keepdims)
    np.testing.assert_allclose(run(lambda t: ops.std(t, axis, ddof, keepdims), x), ws, rtol=1e-12)
    np.testing.assert_allclose(run(lambda t: ops.var(t, axis, ddof, keepdims), x), wv, rtol=1e-12)
    s, m = run(lambda t: ops.std_mean(t, axis, ddof, keepdims), x)
    np.testing.assert_allclose(s, ws, rtol=1e-12)
    np.testing.assert_allclose(m, wm, rtol=1e-12, atol=1e-15)
    v, m = run(lambda t: ops.var_mean(t, axis, ddof, keepdims), x)
    np.testing.assert_allclose(v, wv, rtol=1e-12)
    np.testing.assert_allclose(m, wm, rtol=1e-12, atol=1e-15)


def test_std_gradient_matches_torch():
    x = RNG.standard_normal((4, 6))
    g = ms.grad(lambda t: ops.std(t, 1, 1).sum())(ms.Tensor(x)).asnumpy()
    tx = torch.from_numpy(x).requires_grad_()
    torch.std(tx, 1, correction=1).sum().backward()
    np.testing.assert_allclose(g, tx.grad.numpy(), rtol=1e-10)


def test_std_errors():
    with pytest.raises(TypeError, match="For 'std'.*float tensor"):
        ops.std(ms.Tensor(np.ones(3, np.int32)))
    with pytest.raises(TypeError, match="For 'var'.*'ddof'"):
        ops.var(ms.Tensor(np.ones(3, np.float32)), ddof=0.5)


@pytest.mark.parametrize("start, end, steps", [(1.0, 10.0, 5), (-3.0, 3.0, 7), (2.0, -2.0, 4),
                                               (0.5, 0.5, 3), (4.0, 9.0, 1), (0.0, 1.0, 100)])
def test_linspace_matches_numpy(mode, start, end, steps):
    want = np.linspace(start, end, steps, dtype=np.float32)
    got = ops.linspace(start, end, steps).asnumpy()
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    assert got[0] == np.float32(start) and got[-1] == np.float32(end if steps > 1 else start)
    got_p = run(lambda s, e: P.LinSpace()(s, e, steps), np.array(start, np.float32),
                np.array(end, np.float32))
    np.testing.assert_allclose(got_p, want, rtol=1e-6, atol=1e-6)


def test_linspace_errors():
    with pytest.raises(ValueError, match="linspace.*positive"):
        ops.linspace(0.0, 1.0, 0)
    with pytest.raises(TypeError, match="linspace.*int"):
        ops.linspace(0.0, 1.0, 2.5)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_unstack_matches_numpy(mode, axis):
    x = RNG.standard_normal((3, 4, 2)).astype(np.float32)
    for got in (run(lambda t: ops.unstack(t, axis), x), run(P.Unstack(axis), x)):
        want = [np.take(x, i, axis) for i in range(x.shape[axis])]
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


def test_unstack_gradient_and_errors():
    x = ms.Tensor(RNG.standard_normal((3, 2)))
    g = ms.grad(lambda t: ops.unstack(t, 1)[1].sum() * 2)(x).asnumpy()
    np.testing.assert_array_equal(g, [[0, 2], [0, 2], [0, 2]])
    with pytest.raises(ValueError, match="unstack.*axis"):
        ops.unstack(x, 2)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float16])
def test_masked_fill_matches_torch(mode, dtype):
    x = (RNG.standard_normal((3, 4)) * 5).astype(dtype)
    mask = RNG.random((4,)) > 0.5
    want = torch.from_numpy(x).masked_fill(torch.from_numpy(mask), 7).numpy()
    for fn in (lambda a, m: ops.masked_fill(a, m, 7.0), lambda a, m: P.MaskedFill()(a, m, 7)):
        got = run(fn, x, mask)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, want)


def test_mish_matches_torch(mode):
    x = RNG.standard_normal((5, 7)) * 4
    want = torch.nn.functional.mish(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(run(P.Mish(), x), want, rtol=1e-12)
    np.testing.assert_allclose(run(ops.mish, x), want, rtol=1e-12)
    tx = torch.from_numpy(x).requires_grad_()
    torch.nn.functional.mish(tx).sum().backward()
    g = ms.grad(lambda t: ops.mish(t).sum())(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(g, tx.grad.numpy(), rtol=1e-10)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum", "batchmean"])
def test_kl_div_loss_matches_torch(mode, reduction):
    logits = np.log(RNG.uniform(0.05, 1, (4, 3)))
    labels = RNG.uniform(0, 1, (4, 3))
    labels[0, 0] = 0.0
    want = torch.nn.functional.kl_div(torch.from_numpy(logits), torch.from_numpy(labels),
                                      reduction=reduction).numpy()
    np.testing.assert_allclose(run(P.KLDivLoss(reduction), logits, labels), want, rtol=1e-12)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_binary_cross_entropy_matches_torch(mode, reduction):
    p = RNG.uniform(0.01, 0.99, (4, 3))
    y = RNG.uniform(0, 1, (4, 3))
    w = RNG.uniform(0.5, 2, (4, 3))
    want = torch.nn.functional.binary_cross_entropy(torch.from_numpy(p), torch.from_numpy(y),
                                                    torch.from_numpy(w),
                                                    reduction=reduction).numpy()
    np.testing.assert_allclose(run(P.BinaryCrossEntropy(reduction), p, y, w), want, rtol=1e-12)


def np_depth_to_space(x, bs):
    n, c, h, w = x.shape
    co = c // (bs * bs)
    out = np.empty((n, co, h * bs, w * bs), x.dtype)
    for i in range(h * bs):
        for j in range(w * bs):
            for k in range(co):
                out[:, k, i, j] = x[:, ((i % bs) * bs + j % bs) * co + k, i // bs, j // bs]
    return out


@pytest.mark.parametrize("bs", [2, 3])
def test_depth_to_space_and_back(mode, bs):
    x = RNG.standard_normal((2, 2 * bs * bs, 3, 2)).astype(np.float32)
    y = run(P.DepthToSpace(bs), x)
    np.testing.assert_array_equal(y, np_depth_to_space(x, bs))
    np.testing.assert_array_equal(run(P.SpaceToDepth(bs), y), x)


def test_depth_to_space_errors():
    with pytest.raises(ValueError, match="DepthToSpace.*divisible"):
        P.DepthToSpace(2)(ms.Tensor(np.ones((1, 3, 2, 2), np.float32)))
    with pytest.raises(ValueError, match="SpaceToDepth.*divisible"):
        P.SpaceToDepth(2)(ms.Tensor(np.ones((1, 3, 3, 2), np.float32)))
    with pytest.raises(ValueError, match="DepthToSpace.*4-D"):
        P.DepthToSpace(2)(ms.Tensor(np.ones((4, 2, 2), np.float32)))


def test_kl_div_labels_that_are_not_probabilities_contribute_nothing(mode):
    # MindSpore's KLDivLoss: the loss and its gradient are 0 where labels <= 0
    logits = np.log(np.array([[0.3, 0.7], [0.5, 0.5]]))
    labels = np.array([[-1.0, 1.0], [1.0, 0.0]])
    want = np.where(labels > 0, labels * (np.log(np.where(labels > 0, labels, 1)) - logits), 0)
    np.testing.assert_allclose(run(P.KLDivLoss("none"), logits, labels), want, rtol=1e-12)
    g = ms.grad(lambda x: ops.kl_div(x, ms.Tensor(labels), "sum"))(ms.Tensor(logits)).asnumpy()
    np.testing.assert_array_equal(g, np.where(labels > 0, -labels, 0))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
def test_inv_of_integers_stays_integer(mode, dtype):
    # MindSpore's Inv keeps the dtype: 1 / x rounded toward zero, as numpy's reciprocal
    x = np.array([1, -1, 2, -3, 100, 7], dtype)
    want = np.reciprocal(x)
    for fn in (ops.inv, P.Inv()):
        got = run(fn, x)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(run(P.Inv(), np.array([2.0, -4.0])), [0.5, -0.25])


TF = torch.nn.functional
# name -> (primitive, functional, torch reference)
ACTIVATIONS = {
    "elu": (P.Elu(), ops.elu, TF.elu),
    "elu-0.3": (P.Elu(0.3), lambda t: ops.elu(t, 0.3), lambda t: TF.elu(t, 0.3)),
    "celu-0.5": (P.CeLU(0.5), lambda t: ops.celu(t, 0.5), lambda t: TF.celu(t, 0.5)),
    "celu-2": (P.CeLU(2.0), lambda t: ops.celu(t, 2.0), lambda t: TF.celu(t, 2.0)),
    "selu": (P.SeLU(), ops.selu, TF.selu),
    "hardsigmoid": (P.HSigmoid(), ops.hardsigmoid, TF.hardsigmoid),
    "hardswish": (P.HSwish(), ops.hardswish, TF.hardswish),
    "hardshrink": (P.HShrink(), ops.hardshrink, TF.hardshrink),
    "hardshrink-1": (P.HShrink(1.0), lambda t: ops.hardshrink(t, 1.0),
                     lambda t: TF.hardshrink(t, 1.0)),
    "softshrink": (P.SoftShrink(), ops.softshrink, TF.softshrink),
    "softshrink-0.2": (P.SoftShrink(0.2), lambda t: ops.softshrink(t, 0.2),
                       lambda t: TF.softshrink(t, 0.2)),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activations_match_torch(mode, name):
    prim_, fn, ref = ACTIVATIONS[name]
    x = RNG.standard_normal((6, 7)) * 4
    x[0, :4] = [0.0, 1e3, -1e3, 0.5]
    want = ref(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(run(prim_, x), want, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(run(fn, x), want, rtol=1e-12, atol=1e-15)
    x32 = x.astype(np.float32)
    got32 = run(prim_, x32)
    assert got32.dtype == np.float32
    np.testing.assert_allclose(got32, want, rtol=1e-5, atol=1e-6)
    # gradients, away from the kinks
    xg = RNG.standard_normal((5, 4)) * 3
    xg[np.abs(np.abs(xg) - 0.5) < 0.05] += 0.2
    tx = torch.from_numpy(xg).requires_grad_()
    ref(tx).sum().backward()
    g = ms.grad(lambda t: fn(t).sum())(ms.Tensor(xg)).asnumpy()
    # torch's hardsigmoid backward rounds 1/6 to float32
    np.testing.assert_allclose(g, tx.grad.numpy(), rtol=1e-7, atol=1e-12)


def test_nn_activation_cells_use_the_same_functions(mode):
    x = RNG.standard_normal((3, 5))
    for cell, fn in ((nn.ELU(0.7), lambda t: ops.elu(t, 0.7)), (nn.HSigmoid(), ops.hardsigmoid),
                     (nn.HSwish(), ops.hardswish), (nn.Mish(), ops.mish)):
        np.testing.assert_array_equal(cell(ms.Tensor(x)).asnumpy(), fn(ms.Tensor(x)).asnumpy())


def test_activation_errors():
    with pytest.raises(ValueError, match="celu.*must not be 0"):
        ops.celu(ms.Tensor(np.ones(2, np.float32)), 0.0)
    with pytest.raises(ValueError, match="softshrink.*no less than 0"):
        ops.softshrink(ms.Tensor(np.ones(2, np.float32)), -1.0)


def test_xdivy_real_div_and_approximate_equal(mode):
    x = np.array([0.0, 1.0, -2.0, 0.0, 3.0])
    y = np.array([0.0, 4.0, 0.5, 2.0, 0.0])
    with np.errstate(divide="ignore", invalid="ignore"):
        want = np.where(x == 0, 0.0, x / y)
        np.testing.assert_array_equal(run(P.Xdivy(), x, y), want)
        np.testing.assert_array_equal(run(ops.xdivy, x, y), want)
        np.testing.assert_array_equal(run(P.RealDiv(), x, y[::-1].copy()), x / y[::-1])
    a = np.array([1.0, 2.0, 3.0], np.float32)
    b = np.array([1.0 + 1e-6, 2.1, 3.0 - 1e-3], np.float32)
    np.testing.assert_array_equal(run(P.ApproximateEqual(), a, b), [True, False, False])
    np.testing.assert_array_equal(run(P.ApproximateEqual(0.01), a, b), [True, False, True])
    np.testing.assert_array_equal(ops.approximate_equal(ms.Tensor(a), ms.Tensor(b), 0.2).asnumpy(),
                                  [True, True, True])


class RankSize(nn.Cell):
    def __init__(self):
        super().__init__()
        self.rank, self.size = P.Rank(), P.Size()

    def construct(self, x):
        return x.reshape((-1,))[: self.rank(x)] * self.size(x)


def test_rank_and_size_are_python_ints(mode):
    x = np.arange(24.0).reshape(2, 3, 4)
    assert P.Rank()(ms.Tensor(x)) == 3 and ops.Rank()(ms.Tensor(x)) == 3
    assert P.Size()(ms.Tensor(x)) == 24
    # in GRAPH mode they fold to constants the rest of the program uses
    np.testing.assert_array_equal(RankSize()(ms.Tensor(x)).asnumpy(), x.reshape(-1)[:3] * 24)


def test_tensor_methods_and_the_math_func_path(mode):
    from mycel.ops.function.math_func import approximate_equal
    assert approximate_equal is ops.approximate_equal
    x = RNG.standard_normal((3, 4))
    t = ms.Tensor(x)
    np.testing.assert_array_equal(t.hardshrink(0.7).asnumpy(), np.where(np.abs(x) > 0.7, x, 0))
    np.testing.assert_allclose(t.std().asnumpy(), np.std(x), rtol=1e-12)
    np.testing.assert_allclose(t.var(1, 1, True).asnumpy(), np.var(x, 1, ddof=1, keepdims=True),
                               rtol=1e-12)
