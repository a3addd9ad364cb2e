"""The sparse optimizer primitives (FusedSparseAdam, FusedSparseLazyAdam, FusedSparseFtrl,
SparseApplyFtrl, FusedSparseProximalAdagrad, SparseApplyAdagrad(V2), SparseApplyRMSProp;
composed, ops/function/sparse_optim_func.py) against numpy loops over the rows written here
from the update formulas, in PYNATIVE and GRAPH mode: repeated indices (gradients summed),
rows not in indices unchanged, the Parameters updated in place; shape, dtype and index
errors."""
import numpy as np
import pytest

import mycel as ms
from mycel import nn
from mycel.ops import operations as P

RNG = np.random.default_rng(7)
IDX = np.array([3, 0, 3, 5], np.int32)  # row 3 twice; rows 1, 2, 4 untouched


class Step(nn.Cell):
    """op applied to Parameters made from `states`, the other inputs given at call time."""

    def __init__(self, op, states):
        super().__init__()
        self.op = op
        self.names = [f"s{i}" for i in range(len(states))]
        for name, s in zip(self.names, states):
            setattr(self, name, ms.Parameter(ms.Tensor(s), name))

    def construct(self, *args):
        return self.op(*([getattr(self, n) for n in self.names] + list(args)))


def _summed(shape, grad, idx):
    g = np.zeros(shape)
    for row, i in enumerate(idx):
        g[i] += grad[row]
    touched = np.zeros(shape[0], bool)
    touched[idx] = True
    return g, touched


def _states(k, shape=(6, 2, 3)):
    return [RNG.uniform(0.1, 1.0, shape).astype(np.float32) for _ in range(k)]


def _grad(shape=(4, 2, 3)):
    return RNG.standard_normal(shape).astype(np.float32)


def _check(net, want, rtol=1e-5, atol=1e-6):
    for name, w in zip(net.names, want):
        np.testing.assert_allclose(getattr(net, name).asnumpy(), w, rtol=rtol, atol=atol)


@pytest.mark.parametrize("lazy", [False, True])
@pytest.mark.parametrize("nesterov", [False, True])
def test_fused_sparse_adam_and_lazy_adam(mode, lazy, nesterov):
    var, m, v = _states(3)
    grad = _grad()
    b1p, b2p, lr, b1, b2, eps = 0.9, 0.99, 0.01, 0.8, 0.95, 1e-6
    op = (P.FusedSparseLazyAdam if lazy else P.FusedSparseAdam)(use_nesterov=nesterov)
    net = Step(op, [var, m, v])
    net(b1p, b2p, lr, b1, b2, eps, ms.Tensor(grad), ms.Tensor(IDX))
    g, touched = _summed(var.shape, grad, IDX)
    m2 = b1 * m + (1 - b1) * g
    v2 = b2 * v + (1 - b2) * g * g
    step = m2 * b1 + (1 - b1) * g if nesterov else m2
    var2 = var - lr * np.sqrt(1 - b2p) / (1 - b1p) * step / (np.sqrt(v2) + eps)
    if lazy:
        keep = ~touched
        m2[keep], v2[keep], var2[keep] = m[keep], v[keep], var[keep]
    _check(net, [var2, m2, v2])


@pytest.mark.parametrize("cls", [P.FusedSparseFtrl, P.SparseApplyFtrl])
@pytest.mark.parametrize("lr_power", [-0.5, -0.3])
def test_sparse_ftrl(mode, cls, lr_power):
    var, accum, linear = _states(3)
    var -= 0.5
    linear = (linear - 0.5) * 4
    grad = _grad()
    lr, l1, l2 = 0.1, 0.05, 0.2
    net = Step(cls(lr=lr, l1=l1, l2=l2, lr_power=lr_power), [var, accum, linear])
    net(ms.Tensor(grad), ms.Tensor(IDX))
    g, touched = _summed(var.shape, grad, IDX)
    acc2 = accum + g * g
    lin2 = linear + g - (acc2 ** -lr_power - accum ** -lr_power) / lr * var
    var2 = np.where(np.abs(lin2) > l1,
                    (np.sign(lin2) * l1 - lin2) / (acc2 ** -lr_power / lr + 2 * l2), 0.0)
    keep = ~touched
    acc2[keep], lin2[keep], var2[keep] = accum[keep], linear[keep], var[keep]
    _check(net, [var2, acc2, lin2], rtol=1e-4)


@pytest.mark.parametrize("l1", [0.0, 0.3])
def test_fused_sparse_proximal_adagrad(mode, l1):
    var, accum = _states(2)
    grad = _grad()
    lr, l2 = 0.5, 0.1
    net = Step(P.FusedSparseProximalAdagrad(), [var, accum])
    net(lr, l1, l2, ms.Tensor(grad), ms.Tensor(IDX))
    g, touched = _summed(var.shape, grad, IDX)
    acc2 = accum + g * g
    rate = lr / np.sqrt(acc2)
    prox = var - g * rate
    if l1 > 0:
        var2 = np.sign(prox) * np.maximum(np.abs(prox) - rate * l1, 0) / (1 + l2 * rate)
    else:
        var2 = prox / (1 + l2 * rate)
    keep = ~touched
    acc2[keep], var2[keep] = accum[keep], var[keep]
    _check(net, [var2, acc2])


@pytest.mark.parametrize("v2", [False, True])
@pytest.mark.parametrize("update_slots", [True, False])
def test_sparse_apply_adagrad(mode, v2, update_slots):
    var, accum = _states(2)
    grad = _grad()
    lr, eps = 0.05, 0.1
    op = (P.SparseApplyAdagradV2(lr, eps, update_slots=update_slots) if v2 else
          P.SparseApplyAdagrad(lr, update_slots=update_slots))
    net = Step(op, [var, accum])
    out_var, out_accum = net(ms.Tensor(grad), ms.Tensor(IDX))
    g, touched = _summed(var.shape, grad, IDX)
    acc2 = accum + g * g if update_slots else accum.astype(np.float64)
    var2 = var - lr * g / (np.sqrt(acc2) + (eps if v2 else 0.0))
    keep = ~touched
    acc2[keep], var2[keep] = accum[keep], var[keep]
    _check(net, [var2, acc2])
    np.testing.assert_allclose(out_var.asnumpy(), var2, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype, tol", [(np.float32, 1e-5), (np.float16, 2e-3)])
def test_sparse_apply_rms_prop(mode, dtype, tol):
    var, msq, mom = (s.astype(dtype) for s in _states(3))
    grad = _grad().astype(dtype)
    grad[1, 0, 0] = 0.0  # where the gradient is 0, ms stays (MindSpore's kernel)
    idx = np.array([3, 0, 1, 5], np.int32)
    rho, momentum, eps, lr = 0.7, 0.2, 1e-6, 0.05
    net = Step(P.SparseApplyRMSProp(rho, momentum, eps), [var, msq, mom])
    net(ms.Tensor(np.array(lr, dtype)), ms.Tensor(grad), ms.Tensor(idx))
    g, touched = _summed(var.shape, grad.astype(np.float64), idx)
    ms2 = np.where(np.abs(g) > np.finfo(np.float32).eps, msq * rho + g * g * (1 - rho), msq)
    mom2 = mom * momentum + lr * g / np.sqrt(ms2 + eps)
    var2 = var - mom2
    keep = ~touched
    ms2[keep], mom2[keep], var2[keep] = msq[keep], mom[keep], var[keep]
    _check(net, [var2, ms2, mom2], rtol=tol, atol=tol)


def test_sparse_update_errors(mode):
    var, accum = _states(2)
    grad = _grad()
    net = Step(P.SparseApplyAdagrad(0.1), [var, accum])
    with pytest.raises(IndexError):
        net(ms.Tensor(grad), ms.Tensor(np.array([0, 1, 6, 2], np.int32)))
    with pytest.raises(ValueError, match="SparseApplyAdagrad"):
        net(ms.Tensor(grad), ms.Tensor(np.array([0, 1], np.int32)))
    with pytest.raises(ValueError, match="SparseApplyAdagrad"):
        net(ms.Tensor(grad[:, :1]), ms.Tensor(IDX))
    with pytest.raises(TypeError, match="SparseApplyAdagrad"):
        net(ms.Tensor(grad), ms.Tensor(IDX.astype(np.float32)))
    bad = Step(P.FusedSparseFtrl(0.1, 0.0, 0.0, -0.5), [var, accum, accum[:, :1]])
    with pytest.raises(ValueError, match="FusedSparseFtrl"):
        bad(ms.Tensor(grad), ms.Tensor(IDX))
    f64 = Step(P.SparseApplyAdagrad(0.1), [var.astype(np.float64), accum.astype(np.float64)])
    with pytest.raises(TypeError, match="SparseApplyAdagrad"):
        f64(ms.Tensor(grad.astype(np.float64)), ms.Tensor(IDX))


@pytest.mark.parametrize("make", [lambda: P.FusedSparseFtrl(-0.1, 0.0, 0.0, -0.5),
                                  lambda: P.FusedSparseFtrl(0.1, 0.0, 0.0, 0.5),
                                  lambda: P.SparseApplyRMSProp(1.5, 0.1, 1e-6),
                                  lambda: P.SparseApplyRMSProp(0.5, 0.1, 0.0)])
def test_sparse_update_attribute_values(make):
    with pytest.raises(ValueError):
        make()


def test_sparse_update_attribute_types():
    with pytest.raises(TypeError):
        P.FusedSparseAdam(use_nesterov=1)
    with pytest.raises(TypeError):
        P.SparseApplyAdagrad(lr="0.1")


class Dense(nn.Cell):
    def __init__(self, op, states):
        super().__init__()
        self.op = op
        self.names = [f"d{i}" for i in range(len(states))]
        for name, s in zip(self.names, states):
            setattr(self, name, ms.Parameter(ms.Tensor(s), name))

    def construct(self, *args):
        return self.op(*([getattr(self, n) for n in self.names] + list(args)))


def _prox_np(v, rate, l1, l2):
    if l1 > 0:
        return np.sign(v) * np.maximum(np.abs(v) - rate * l1, 0) / (1 + l2 * rate)
    return v / (1 + l2 * rate)


@pytest.mark.parametrize("l1", [0.0, 0.2])
def test_dense_proximal_updates(mode, l1):
    var, accum = _states(2, (3, 4))
    var -= 0.5
    g = _grad((3, 4))
    lr, l2 = 0.3, 0.1
    net = Dense(P.ApplyProximalGradientDescent(), [var])
    net(lr, l1, l2, ms.Tensor(g))
    _check(net, [_prox_np(var - lr * g, lr, l1, l2)])
    net = Dense(P.ApplyProximalAdagrad(), [var, accum])
    net(lr, l1, l2, ms.Tensor(g))
    acc2 = accum + g * g
    rate = lr / np.sqrt(acc2)
    _check(net, [_prox_np(var - g * rate, rate, l1, l2), acc2])


@pytest.mark.parametrize("update_slots", [True, False])
def test_dense_gradient_descent_and_adagrad_v2(mode, update_slots):
    var, accum = _states(2, (3, 4))
    g = _grad((3, 4))
    net = Dense(P.ApplyGradientDescent(), [var])
    net(ms.Tensor(np.float32(0.1)), ms.Tensor(g))
    _check(net, [var - 0.1 * g])
    net = Dense(P.ApplyAdagradV2(0.01, update_slots=update_slots), [var, accum])
    out_var, _ = net(0.2, ms.Tensor(g))
    acc2 = accum + g * g if update_slots else accum.astype(np.float64)
    _check(net, [var - 0.2 * g / (np.sqrt(acc2) + 0.01), acc2])
    np.testing.assert_allclose(out_var.asnumpy(), var - 0.2 * g / (np.sqrt(acc2) + 0.01),
                               rtol=1e-5)


def test_dense_update_vmap_with_per_example_rates(mode):
    """vmap over Parameters batched along axis 0 and per-example learning rates: each row
    takes its own step, in place (compiler/vmap/batch_optim.cc's Assign rule)."""
    var, accum = _states(2, (3, 4))
    g = _grad((3, 4))
    lr = np.array([0.1, 0.5, 2.0], np.float32)
    pv, pa = ms.Parameter(ms.Tensor(var), "pv"), ms.Parameter(ms.Tensor(accum), "pa")
    op = P.ApplyAdagradV2(1e-6)
    f = ms.vmap(lambda v, a, r, gr: op(v, a, r, gr), in_axes=(0, 0, 0, 0))
    f(pv, pa, ms.Tensor(lr), ms.Tensor(g))
    acc2 = accum + g * g
    np.testing.assert_allclose(pa.asnumpy(), acc2, rtol=1e-6)
    np.testing.assert_allclose(pv.asnumpy(), var - lr[:, None] * g / (np.sqrt(acc2) + 1e-6),
                               rtol=1e-5)


def test_dense_update_shape_errors():
    var = ms.Parameter(ms.Tensor(np.zeros((2, 3), np.float32)), "e")
    with pytest.raises(ValueError, match="ApplyGradientDescent"):
        P.ApplyGradientDescent()(var, 0.1, ms.Tensor(np.zeros((3, 2), np.float32)))
    with pytest.raises(TypeError, match="ApplyProximalAdagrad"):
        P.ApplyProximalAdagrad()(var, var, 0.1, 0.0, 0.0, ms.Tensor(np.zeros((2, 3), np.int32)))


@pytest.mark.parametrize("l1", [0.0, 0.05])
def test_apply_adagrad_da(mode, l1):
    var, ga, gsa = _states(3, (3, 4))
    g = _grad((3, 4))
    lr, l2, step = 0.1, 0.02, 3
    net = Dense(P.ApplyAdagradDA(), [var, ga, gsa])
    out = net(ms.Tensor(g), ms.Tensor(np.float32(lr)), ms.Tensor(np.float32(l1)),
              ms.Tensor(np.float32(l2)), ms.Tensor(np.int32(step)))
    ga2, gsa2 = ga + g, gsa + g * g
    tmp = np.sign(ga2) * np.maximum(np.abs(ga2) - l1 * step, 0) if l1 > 0 else ga2
    var2 = -lr * tmp / (l2 * step * lr + np.sqrt(gsa2))
    _check(net, [var2, ga2, gsa2])
    np.testing.assert_allclose(out.asnumpy(), var2, rtol=1e-5, atol=1e-6)
