"""Optimizer-step primitives of MindSpore 2.x composed from table ops: ApplyAddSign,
ApplyAdamWithAmsgradV2, SparseApplyProximalAdagrad, SparseApplyFtrlV2 and LARSUpdate
(nn.LARS's gradient rescaling).

Attributes in ``__init__``, inputs in ``__call__``, as MindSpore's. Each is a
_Composed primitive whose __call__ graph mode parses like any function, so both modes
and gradients come from the ops it is built of. The family modules (array_ops, math_ops,
nn_ops, ...) list these classes where MindSpore defines them.
"""
from mycel import _mycel as _C
from mycel.ops.function import sparse_optim_func as _so
from mycel.ops.function._util import prim
from mycel.ops.function._util import prim as _prim
from mycel.ops.operations._compat_checks import _check_bool
from mycel.ops.operations._compat_checks import _check_float
from mycel.ops.operations._compat_checks import _check_tensor
from mycel.ops.operations.compat_optim_ops import FusedSparseProximalAdagrad
from mycel.ops.operations.composed_ops import _Composed, _exporter
from mycel.ops.primitive import constexpr

__all__ = ["LARSUpdate"]


_export = _exporter(__all__, globals())


_OPT_FLOATS = (_C.float16, _C.float32, _C.float64)


@_export
class ApplyAddSign(_Composed):
    """ApplyAddSign(use_locking=False)(var, m, lr, alpha, sign_decay, beta, grad) -> (var,
    m): m = beta m + (1 - beta) grad, var -= lr (alpha + sign_decay sign(grad) sign(m)) grad;
    var and m updated in place."""

    def __init__(self, use_locking=False):
        self.use_locking = _check_bool("ApplyAddSign", "use_locking", use_locking)
        super().__init__(use_locking=use_locking)

    def __call__(self, var, m, lr, alpha, sign_decay, beta, grad):
        op = "ApplyAddSign"
        for name, t in (("var", var), ("m", m), ("grad", grad)):
            _check_tensor(op, name, t, _OPT_FLOATS)
        if tuple(m.shape) != tuple(var.shape) or tuple(grad.shape) != tuple(var.shape):
            raise ValueError(f"For '{op}', var, m and grad must have the same shape, but got "
                             f"{tuple(var.shape)}, {tuple(m.shape)} and {tuple(grad.shape)}.")
        dt = var.dtype
        lr, alpha = _so.scalar(lr, dt), _so.scalar(alpha, dt)
        decay, beta = _so.scalar(sign_decay, dt), _so.scalar(beta, dt)
        g = _prim("Cast")(grad, dt)
        m_new = beta * m + (1.0 - beta) * g
        update = (alpha + decay * _prim("Sign")(g) * _prim("Sign")(m_new)) * g
        return _prim("Assign")(var, var - lr * update), _prim("Assign")(m, m_new)


@_export
class ApplyAdamWithAmsgradV2(_Composed):
    """ApplyAdamWithAmsgradV2(use_locking=False)(var, m, v, vhat, beta1_power, beta2_power,
    lr, beta1, beta2, epsilon, grad) -> (var, m, v, vhat): ApplyAdamWithAmsgrad's step with
    beta1, beta2 and epsilon given as inputs."""

    def __init__(self, use_locking=False):
        self.use_locking = _check_bool("ApplyAdamWithAmsgradV2", "use_locking", use_locking)
        super().__init__(use_locking=use_locking)

    def __call__(self, var, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2, epsilon,
                 grad):
        dt = var.dtype
        b1, b2, eps = _so.scalar(beta1, dt), _so.scalar(beta2, dt), _so.scalar(epsilon, dt)
        b1p, b2p, lr = _so.scalar(beta1_power, dt), _so.scalar(beta2_power, dt), \
            _so.scalar(lr, dt)
        g = _prim("Cast")(grad, dt)
        m_new = b1 * m + (1.0 - b1) * g
        v_new = b2 * v + (1.0 - b2) * g * g
        vhat_new = _prim("Maximum")(vhat, v_new)
        lr_t = lr * _prim("Sqrt")(1.0 - b2p) / (1.0 - b1p)
        var_new = var - lr_t * m_new / (_prim("Sqrt")(vhat_new) + eps)
        return (_prim("Assign")(var, var_new), _prim("Assign")(m, m_new),
                _prim("Assign")(v, v_new), _prim("Assign")(vhat, vhat_new))


@_export
class SparseApplyProximalAdagrad(FusedSparseProximalAdagrad):
    """SparseApplyProximalAdagrad(use_locking=False)(var, accum, lr, l1, l2, grad, indices)
    -> (var, accum): FusedSparseProximalAdagrad's update (float16 or float32)."""

    def __call__(self, var, accum, lr, l1, l2, grad, indices):
        return _so.sparse_proximal_adagrad(var, accum, lr, l1, l2, grad, indices)


@_export
class SparseApplyFtrlV2(_Composed):
    """SparseApplyFtrlV2(lr, l1, l2, l2_shrinkage, lr_power, use_locking=False)(var, accum,
    linear, grad, indices) -> (var, accum, linear): FTRL-proximal with L2 shrinkage on the
    rows in indices (repeated rows' grads summed): g_s = grad + 2 l2_shrinkage var,
    accum' = accum + grad^2, linear += g_s - (accum'^-p - accum^-p) / lr var,
    var = (sign(linear) l1 - linear) / (accum'^-p / lr + 2 l2) where |linear| > l1, else 0."""

    def __init__(self, lr, l1, l2, l2_shrinkage, lr_power, use_locking=False):
        for name, v in (("lr", lr), ("l1", l1), ("l2", l2), ("l2_shrinkage", l2_shrinkage),
                        ("lr_power", lr_power)):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise TypeError(f"For 'SparseApplyFtrlV2', '{name}' must be a float, but got "
                                f"{v!r}.")
        if lr <= 0 or l1 < 0 or l2 < 0 or l2_shrinkage < 0 or lr_power > 0:
            raise ValueError("For 'SparseApplyFtrlV2', need lr > 0, l1, l2, l2_shrinkage >= 0 "
                             "and lr_power <= 0.")
        super().__init__(lr=lr, l1=l1, l2=l2, l2_shrinkage=l2_shrinkage, lr_power=lr_power,
                         use_locking=use_locking)
        self.lr, self.l1, self.l2 = float(lr), float(l1), float(l2)
        self.l2_shrinkage, self.lr_power = float(l2_shrinkage), float(lr_power)

    def __call__(self, var, accum, linear, grad, indices):
        dt = var.dtype
        g, mask = _so.summed_grad(var, grad, indices)
        g_s = g + 2.0 * self.l2_shrinkage * var
        accum_new = accum + g * g
        p = -self.lr_power
        y, y_old = _prim("Pow")(accum_new, p), _prim("Pow")(accum, p)
        linear_new = linear + g_s - (y - y_old) / self.lr * var
        l1 = _so.scalar(self.l1, dt)
        x = _prim("Sign")(linear_new) * l1 - linear_new
        var_new = _prim("Select")(_prim("Greater")(_prim("Abs")(linear_new), l1),
                                  x / (y / self.lr + 2.0 * self.l2), _prim("ZerosLike")(x))
        return (_prim("Assign")(var, _prim("Select")(mask, var_new, var)),
                _prim("Assign")(accum, _prim("Select")(mask, accum_new, accum)),
                _prim("Assign")(linear, _prim("Select")(mask, linear_new, linear)))


# ------------------------------------------------------------------ LARSUpdate
class LARSUpdate(_Composed):
    """LARSUpdate(epsilon=1e-05, hyperpara=0.001, use_clip=False)(weight, gradient,
    norm_weight, norm_gradient, weight_decay, learning_rate) -> the new gradient of nn.LARS
    (layer-wise adaptive rate scaling), with ||w|| = sqrt(norm_weight) and ||g|| =
    sqrt(norm_gradient) (the inputs are sums of squares) and delta = weight_decay:
        lambda = hyperpara ||w|| / (||g|| + delta ||w|| + epsilon)  (1 where ||w|| or ||g|| is 0)
        lambda = min(lambda / learning_rate, 1)                      with use_clip
        new gradient = lambda (gradient + delta weight)."""

    def __init__(self, epsilon=1e-05, hyperpara=0.001, use_clip=False):
        op = "LARSUpdate"
        self.epsilon = _check_float(op, "epsilon", epsilon)
        self.hyperpara = _check_float(op, "hyperpara", hyperpara)
        self.use_clip = _check_bool(op, "use_clip", use_clip)
        super().__init__(epsilon=epsilon, hyperpara=hyperpara, use_clip=use_clip)

    def __call__(self, weight, gradient, norm_weight, norm_gradient, weight_decay,
                 learning_rate):
        op = "LARSUpdate"
        for name, t in (("weight", weight), ("gradient", gradient),
                        ("norm_weight", norm_weight), ("norm_gradient", norm_gradient)):
            _check_tensor(op, name, t, (_C.float16, _C.float32, _C.float64))
        _same_shape(op, weight.shape, gradient.shape)
        w_norm = prim("Sqrt")(prim("Cast")(norm_weight, weight.dtype))
        g_norm = prim("Sqrt")(prim("Cast")(norm_gradient, weight.dtype))
        wd = _as_dtype(weight_decay, weight.dtype)
        ratio = prim("Div")(prim("Mul")(w_norm, self.hyperpara),
                            prim("Add")(prim("Add")(g_norm, prim("Mul")(wd, w_norm)),
                                        self.epsilon))
        one = prim("OnesLike")(ratio)
        both = prim("LogicalAnd")(prim("Greater")(w_norm, 0.0), prim("Greater")(g_norm, 0.0))
        ratio = prim("Select")(both, ratio, one)
        if self.use_clip:
            lr = _as_dtype(learning_rate, weight.dtype)
            ratio = prim("Minimum")(prim("Div")(ratio, lr), one)
        return prim("Mul")(ratio, prim("Add")(gradient, prim("Mul")(wd, weight)))


def _as_dtype(v, dtype):
    """A tensor cast to dtype; a Python number as it is (exact in any dtype's arithmetic)."""
    if isinstance(v, _C.Tensor):
        return prim("Cast")(v, dtype)
    return float(v)


@constexpr
def _same_shape(op, a, b):
    if tuple(a) != tuple(b):
        raise ValueError(f"For '{op}', gradient must have weight's shape {tuple(a)}, but got "
                         f"{tuple(b)}.")
    return True
