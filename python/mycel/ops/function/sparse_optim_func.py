"""Sparse optimizer updates (MindSpore's FusedSparse* and SparseApply* primitives), composed from
op-table primitives and written into the Parameters with Assign.

A sparse update gets `grad` [k, ...] for rows `indices` [k] of `var` [n, ...]. As MindSpore's CPU
kernels, rows that appear several times have their gradients summed first, and only the rows
in indices change (FusedSparseAdam, the non-lazy one, decays m and v and moves var everywhere).
The composition: the summed gradient as a dense [n, ...] tensor (ScatterNd, which sums repeated
indices and raises IndexError for an index outside [0, n)), the update's formula on every row,
and a Select that keeps the untouched rows as they were. The formulas keep the kernels' order
of float operations, so float32 results equal MindSpore's. Scalars (learning rate, betas...)
are taken in var's dtype.
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim
from mycel.ops.primitive import constexpr

@constexpr
def _const(v, dtype):
    return _C.Tensor(np.array(v, dtype=np.float64)).astype(dtype)


def scalar(x, dtype):
    """A 0-d tensor of dtype from a Python number or a tensor (cast)."""
    if isinstance(x, _C.Tensor):
        return prim("Reshape")(prim("Cast")(x, dtype), ())
    return _const(x, dtype)


def _idx2(indices):
    return prim("ExpandDims")(indices, 1)


def summed_grad(var, grad, indices):
    """(dense [n, ...] gradient with repeated rows summed, [n, 1, ...] bool mask of the rows
    in indices)."""
    idx = _idx2(indices)
    dense = prim("ScatterNd")(idx, grad, var.shape)
    ones = prim("OnesLike")(prim("Cast")(indices, var.dtype))
    count = prim("ScatterNd")(idx, ones, (var.shape[0],))
    rows = (var.shape[0],) + (1,) * (len(var.shape) - 1)
    mask = prim("Reshape")(prim("Greater")(count, 0.0), rows)
    return dense, prim("BroadcastTo", shape=var.shape)(mask)


def _keep(mask, new, old):
    return prim("Select")(mask, new, old)


def _sqrt(x):
    return prim("Sqrt")(x)


def fused_sparse_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
                      indices, use_nesterov):
    """Adam on every row with the summed sparse gradient (0 on rows not in indices)."""
    dt = var.dtype
    b1p, b2p, lr = scalar(beta1_power, dt), scalar(beta2_power, dt), scalar(lr, dt)
    b1, b2, eps = scalar(beta1, dt), scalar(beta2, dt), scalar(epsilon, dt)
    g, _ = summed_grad(var, grad, indices)
    m_new = m * b1 + (1.0 - b1) * g
    v_new = v * b2 + (1.0 - b2) * g * g
    lr_t = lr * _sqrt(1.0 - b2p) / (1.0 - b1p)
    step_m = m_new * b1 + (1.0 - b1) * g if use_nesterov else m_new
    var_new = var - lr_t * step_m / (_sqrt(v_new) + eps)
    return (prim("Assign")(var, var_new), prim("Assign")(m, m_new), prim("Assign")(v, v_new))


def fused_sparse_lazy_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
                           indices, use_nesterov):
    """Adam on the rows in indices only."""
    dt = var.dtype
    b1p, b2p, lr = scalar(beta1_power, dt), scalar(beta2_power, dt), scalar(lr, dt)
    b1, b2, eps = scalar(beta1, dt), scalar(beta2, dt), scalar(epsilon, dt)
    g, mask = summed_grad(var, grad, indices)
    m_new = b1 * m + (1.0 - b1) * g
    v_new = b2 * v + (1.0 - b2) * g * g
    lr_t = lr * _sqrt(1.0 - b2p) / (1.0 - b1p)
    step_m = m_new * b1 + (1.0 - b1) * g if use_nesterov else m_new
    var_new = var - lr_t * step_m / (_sqrt(v_new) + eps)
    return (prim("Assign")(var, _keep(mask, var_new, var)),
            prim("Assign")(m, _keep(mask, m_new, m)), prim("Assign")(v, _keep(mask, v_new, v)))


def sparse_ftrl(var, accum, linear, grad, indices, lr, l1, l2, lr_power):
    """FTRL-proximal on the rows in indices (MindSpore's ApplyFtrl formula)."""
    dt = var.dtype
    lr_t, l1_t, l2x2 = scalar(lr, dt), scalar(l1, dt), scalar(2.0 * l2, dt)
    g, mask = summed_grad(var, grad, indices)
    accum_new = accum + g * g
    if lr_power == -0.5:
        y, y_old = _sqrt(accum_new), _sqrt(accum)
    else:
        p = scalar(-lr_power, dt)
        y, y_old = prim("Pow")(accum_new, p), prim("Pow")(accum, p)
    linear_new = linear + (g - (y - y_old) / lr_t * var)
    x = prim("Sign")(linear_new) * l1_t - linear_new
    denom = y / lr_t + l2x2
    var_new = prim("Select")(prim("Greater")(prim("Abs")(linear_new), l1_t), x / denom,
                             prim("ZerosLike")(x))
    return (prim("Assign")(var, _keep(mask, var_new, var)),
            prim("Assign")(accum, _keep(mask, accum_new, accum)),
            prim("Assign")(linear, _keep(mask, linear_new, linear)))


def sparse_proximal_adagrad(var, accum, lr, l1, l2, grad, indices):
    """Proximal Adagrad on the rows in indices."""
    dt = var.dtype
    lr, l1, l2 = scalar(lr, dt), scalar(l1, dt), scalar(l2, dt)
    g, mask = summed_grad(var, grad, indices)
    accum_new = accum + g * g
    rate = lr * (1.0 / _sqrt(accum_new))
    prox = var - g * rate
    shrink = prim("Maximum")(prim("Abs")(prox) - rate * l1, 0.0)
    with_l1 = prim("Sign")(prox) * shrink / (1.0 + l2 * rate)
    without = prox / (1.0 + l2 * rate)
    var_new = prim("Select")(prim("BroadcastTo", shape=var.shape)(prim("Greater")(l1, 0.0)),
                             with_l1, without)
    return (prim("Assign")(var, _keep(mask, var_new, var)),
            prim("Assign")(accum, _keep(mask, accum_new, accum)))


def sparse_adagrad(var, accum, grad, indices, lr, update_slots, epsilon=None):
    """Adagrad on the rows in indices: accum += g^2 (with update_slots), var -= lr g /
    sqrt(accum) (V2: / (sqrt(accum) + epsilon))."""
    dt = var.dtype
    lr = scalar(lr, dt)
    g, mask = summed_grad(var, grad, indices)
    accum_new = accum + g * g if update_slots else accum
    denom = _sqrt(accum_new) if epsilon is None else _sqrt(accum_new) + scalar(epsilon, dt)
    var_new = var - lr * g / denom
    return (prim("Assign")(var, _keep(mask, var_new, var)),
            prim("Assign")(accum, _keep(mask, accum_new, accum)))


def sparse_rms_prop(var, ms, mom, lr, grad, indices, rho, momentum, epsilon):
    """RMSProp on the rows in indices, computed in float32 (float16 states are cast back):
    ms = ms rho + g^2 (1 - rho) where |g| > float32's epsilon (elsewhere ms stays), mom = mom
    momentum + lr g / sqrt(ms + epsilon), var -= mom."""
    dt = var.dtype
    f32 = _C.float32
    lr = scalar(lr, f32)
    rho, mo, eps = _const(rho, f32), _const(momentum, f32), _const(epsilon, f32)
    g, mask = summed_grad(var, grad, indices)
    g, ms32, mom32 = prim("Cast")(g, f32), prim("Cast")(ms, f32), prim("Cast")(mom, f32)
    moved = prim("Greater")(prim("Abs")(g), float(np.finfo(np.float32).eps))
    ms_new = prim("Select")(moved, ms32 * rho + g * g * (1.0 - rho), ms32)
    mom_new = prim("Cast")(mom32 * mo + 1.0 / _sqrt(ms_new + eps) * lr * g, dt)
    var_new = var - mom_new
    ms_new = prim("Cast")(ms_new, dt)
    return (prim("Assign")(var, _keep(mask, var_new, var)),
            prim("Assign")(ms, _keep(mask, ms_new, ms)),
            prim("Assign")(mom, _keep(mask, mom_new, mom)))


# Dense updates (every element), the same formulas.
def _prox(v, rate, l1, l2, dt):
    """sign(v) max(|v| - rate l1, 0) / (1 + rate l2) where l1 > 0, else v / (1 + rate l2)."""
    shrunk = prim("Sign")(v) * prim("Maximum")(prim("Abs")(v) - rate * l1, 0.0) / (1.0 + l2 * rate)
    plain = v / (1.0 + l2 * rate)
    return prim("Select")(prim("BroadcastTo", shape=v.shape)(prim("Greater")(l1, 0.0)), shrunk,
                          plain)


def apply_gradient_descent(var, alpha, delta):
    """var -= alpha delta."""
    new = var - scalar(alpha, var.dtype) * prim("Cast")(delta, var.dtype)
    return prim("Assign")(var, new)


def apply_proximal_gradient_descent(var, alpha, l1, l2, delta):
    """var = prox(var - alpha delta) with rate alpha."""
    dt = var.dtype
    alpha, l1, l2 = scalar(alpha, dt), scalar(l1, dt), scalar(l2, dt)
    return prim("Assign")(var, _prox(var - alpha * prim("Cast")(delta, dt), alpha, l1, l2, dt))


def apply_proximal_adagrad(var, accum, lr, l1, l2, grad):
    """accum += g^2, rate = lr / sqrt(accum), var = prox(var - g rate) with that rate."""
    dt = var.dtype
    lr, l1, l2 = scalar(lr, dt), scalar(l1, dt), scalar(l2, dt)
    g = prim("Cast")(grad, dt)
    accum_new = accum + g * g
    rate = lr / _sqrt(accum_new)
    var_new = _prox(var - g * rate, rate, l1, l2, dt)
    return prim("Assign")(var, var_new), prim("Assign")(accum, accum_new)


def apply_adagrad_v2(var, accum, lr, grad, epsilon, update_slots):
    """accum += g^2 (with update_slots), var -= lr g / (sqrt(accum) + epsilon)."""
    dt = var.dtype
    lr = scalar(lr, dt)
    g = prim("Cast")(grad, dt)
    accum_new = accum + g * g if update_slots else accum
    var_new = var - lr * g / (_sqrt(accum_new) + scalar(epsilon, dt))
    return prim("Assign")(var, var_new), prim("Assign")(accum, accum_new)


def apply_adagrad_da(var, grad_accum, grad_sq_accum, grad, lr, l1, l2, global_step):
    """Adagrad dual averaging: ga += g, gsa += g^2, var = -lr shrink(ga) / (l2 step lr +
    sqrt(gsa)), shrink(ga) = sign(ga) max(|ga| - l1 step, 0) where l1 > 0, else ga."""
    dt = var.dtype
    lr, l1, l2 = scalar(lr, dt), scalar(l1, dt), scalar(l2, dt)
    step = scalar(global_step, dt)
    g = prim("Cast")(grad, dt)
    ga = grad_accum + g
    gsa = grad_sq_accum + g * g
    shrunk = prim("Sign")(ga) * prim("Maximum")(prim("Abs")(ga) - l1 * step, 0.0)
    tmp = prim("Select")(prim("BroadcastTo", shape=ga.shape)(prim("Greater")(l1, 0.0)), shrunk,
                         ga)
    var_new = -lr * tmp / (l2 * step * lr + _sqrt(gsa))
    out = prim("Assign")(var, var_new)
    prim("Assign")(grad_accum, ga)
    prim("Assign")(grad_sq_accum, gsa)
    return out


# TensorFlow-style sparse updates (SparseApplyMomentum, SparseApplyProximalGradientDescent,
# SparseApplyAdagradDA, SparseApplyCenteredRMSProp): the formula on the rows in indices, with a
# repeated row's gradients summed first (MindSpore's kernels apply a repeated row's gradients
# one after another; the two agree when indices has no repeats). Scalars in var's dtype.
def sparse_momentum(var, accum, lr, grad, indices, momentum, use_nesterov):
    """accum = accum momentum + g; var -= lr accum (nesterov: lr g + lr momentum accum)."""
    dt = var.dtype
    lr, mo = scalar(lr, dt), scalar(momentum, dt)
    g, mask = summed_grad(var, grad, indices)
    accum_new = accum * mo + g
    step = g * lr + accum_new * mo * lr if use_nesterov else accum_new * lr
    out = prim("Assign")(var, _keep(mask, var - step, var))
    prim("Assign")(accum, _keep(mask, accum_new, accum))
    return out


def sparse_proximal_gradient_descent(var, alpha, l1, l2, grad, indices):
    """var = prox(var - alpha g) with rate alpha on the rows in indices."""
    dt = var.dtype
    alpha, l1, l2 = scalar(alpha, dt), scalar(l1, dt), scalar(l2, dt)
    g, mask = summed_grad(var, grad, indices)
    return prim("Assign")(var, _keep(mask, _prox(var - alpha * g, alpha, l1, l2, dt), var))


def sparse_adagrad_da(var, grad_accum, grad_square_accum, grad, indices, lr, l1, l2,
                      global_step):
    """ApplyAdagradDA's update on the rows in indices."""
    dt = var.dtype
    lr, l1, l2 = scalar(lr, dt), scalar(l1, dt), scalar(l2, dt)
    step = scalar(global_step, dt)
    g, mask = summed_grad(var, grad, indices)
    ga = grad_accum + g
    gsa = grad_square_accum + g * g
    shrunk = prim("Sign")(ga) * prim("Maximum")(prim("Abs")(ga) - l1 * step, 0.0)
    tmp = prim("Select")(prim("BroadcastTo", shape=ga.shape)(prim("Greater")(l1, 0.0)), shrunk,
                         ga)
    var_new = -lr * tmp / (l2 * step * lr + _sqrt(gsa))
    out = prim("Assign")(var, _keep(mask, var_new, var))
    prim("Assign")(grad_accum, _keep(mask, ga, grad_accum))
    prim("Assign")(grad_square_accum, _keep(mask, gsa, grad_square_accum))
    return out


def sparse_centered_rms_prop(var, mg, ms, mom, lr, rho, momentum, epsilon, grad, indices):
    """ms = rho ms + (1 - rho) g^2, mg = rho mg + (1 - rho) g, mom = momentum mom + lr g /
    sqrt(ms - mg^2 + epsilon), var -= mom, on the rows in indices."""
    dt = var.dtype
    lr, rho, mo, eps = scalar(lr, dt), scalar(rho, dt), scalar(momentum, dt), scalar(epsilon, dt)
    g, mask = summed_grad(var, grad, indices)
    ms_new = ms * rho + g * g * (1.0 - rho)
    mg_new = mg * rho + g * (1.0 - rho)
    mom_new = mom * mo + lr * g / _sqrt(ms_new - mg_new * mg_new + eps)
    out = prim("Assign")(var, _keep(mask, var - mom_new, var))
    prim("Assign")(mg, _keep(mask, mg_new, mg))
    prim("Assign")(ms, _keep(mask, ms_new, ms))
    prim("Assign")(mom, _keep(mask, mom_new, mom))
    return out
