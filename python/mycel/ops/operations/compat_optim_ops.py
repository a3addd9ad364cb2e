"""Optimizer primitives of MindSpore 2.x that its CPU op tests use, composed from op-table
primitives and written into the Parameters with Assign (so vmap batches them when the
Parameters are batched, compiler/vmap/batch_optim.cc):

- the sparse updates FusedSparseAdam, FusedSparseLazyAdam, FusedSparseFtrl, SparseApplyFtrl,
  FusedSparseProximalAdagrad, SparseApplyAdagrad(V2), SparseApplyRMSProp
  (ops/function/sparse_optim_func.py);
- ApplyPowerSign, ApplyGradientDescent, ApplyProximalGradientDescent, ApplyProximalAdagrad,
  ApplyAdagradV2.
"""
from mycel import _mycel as _C
from mycel.ops.function._util import prim as _prim
from mycel.ops.function import sparse_optim_func as _so
from mycel.ops.operations.composed_ops import _Composed
from mycel.ops.primitive import constexpr
from mycel.ops.operations._compat_checks import (_check_float, _check_bool, _check_tensor,
                                                 _F16_32, _INDEX)

__all__ = []


# The sparse optimizer updates (ops/function/sparse_optim_func.py).



def _check_sparse(op, states, grad, indices, dtypes):
    """MindSpore's checks of a sparse update: states (name, tensor) of var's shape and a dtype
    in dtypes, grad [k] + var.shape[1:] of var's dtype, indices 1-D int32/int64 of length k."""
    name0, var = states[0]
    for name, t in states:
        _check_tensor(op, name, t, dtypes)
    for name, t in states[1:]:
        if tuple(t.shape) != tuple(var.shape):
            raise ValueError(f"For '{op}', the shape of '{name}' must be the shape of "
                             f"'{name0}' {tuple(var.shape)}, but got {tuple(t.shape)}.")
        if t.dtype != var.dtype:
            raise TypeError(f"For '{op}', '{name}' must have the dtype of '{name0}' "
                            f"({var.dtype}), but got {t.dtype}.")
    _check_tensor(op, "grad", grad, dtypes)
    _check_tensor(op, "indices", indices, _INDEX)
    if len(var.shape) == 0:
        raise ValueError(f"For '{op}', '{name0}' must be at least 1-D, but got a scalar.")
    if len(indices.shape) != 1:
        raise ValueError(f"For '{op}', 'indices' must be 1-D, but got shape "
                         f"{tuple(indices.shape)}.")
    if len(grad.shape) != len(var.shape) or tuple(grad.shape[1:]) != tuple(var.shape[1:]):
        raise ValueError(f"For '{op}', the shape of 'grad' must be [k] + {tuple(var.shape[1:])}"
                         f", but got {tuple(grad.shape)}.")
    if grad.shape[0] != indices.shape[0]:
        raise ValueError(f"For '{op}', grad.shape[0] ({grad.shape[0]}) must equal "
                         f"indices.shape[0] ({indices.shape[0]}).")


class _SparseAdam(_Composed):
    _fn = None

    def __init__(self, use_locking=False, use_nesterov=False):
        op = type(self).__name__
        self.use_locking = _check_bool(op, "use_locking", use_locking)
        self.use_nesterov = _check_bool(op, "use_nesterov", use_nesterov)
        super().__init__(use_locking=use_locking, use_nesterov=use_nesterov)

    def __call__(self, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
                 indices):
        _check_sparse(type(self).__name__, (("var", var), ("m", m), ("v", v)), grad, indices,
                      (_C.float32,))
        return type(self)._fn(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon,
                              grad, indices, self.use_nesterov)


class FusedSparseAdam(_SparseAdam):
    """FusedSparseAdam(use_locking=False, use_nesterov=False)(var, m, v, beta1_power,
    beta2_power, lr, beta1, beta2, epsilon, grad, indices): Adam with a sparse gradient (rows
    `indices`, repeated rows summed); m and v decay and var moves on every row. Updates the
    Parameters var, m, v in place and returns them."""
    _fn = staticmethod(_so.fused_sparse_adam)


class FusedSparseLazyAdam(_SparseAdam):
    """FusedSparseLazyAdam(use_locking=False, use_nesterov=False)(var, m, v, beta1_power,
    beta2_power, lr, beta1, beta2, epsilon, grad, indices): as FusedSparseAdam, but only the
    rows in indices change."""
    _fn = staticmethod(_so.fused_sparse_lazy_adam)


class _SparseFtrlBase(_Composed):
    _dtypes = (_C.float32,)

    def __init__(self, lr, l1, l2, lr_power, use_locking=False):
        op = type(self).__name__
        self.lr = _check_float(op, "lr", lr, positive=True)
        self.l1 = _check_float(op, "l1", l1, non_negative=True)
        self.l2 = _check_float(op, "l2", l2, non_negative=True)
        self.lr_power = _check_float(op, "lr_power", lr_power)
        if self.lr_power > 0:
            raise ValueError(f"For '{op}', 'lr_power' must be <= 0, but got {lr_power}.")
        self.use_locking = _check_bool(op, "use_locking", use_locking)
        super().__init__(lr=self.lr, l1=self.l1, l2=self.l2, lr_power=self.lr_power,
                         use_locking=use_locking)

    def __call__(self, var, accum, linear, grad, indices):
        _check_sparse(type(self).__name__, (("var", var), ("accum", accum),
                                            ("linear", linear)), grad, indices, self._dtypes)
        return _so.sparse_ftrl(var, accum, linear, grad, indices, self.lr, self.l1, self.l2,
                               self.lr_power)


class FusedSparseFtrl(_SparseFtrlBase):
    """FusedSparseFtrl(lr, l1, l2, lr_power, use_locking=False)(var, accum, linear, grad,
    indices): FTRL-proximal (ApplyFtrl's formula) on the rows in indices, repeated rows' grads
    summed; updates var, accum, linear in place and returns them."""


class SparseApplyFtrl(_SparseFtrlBase):
    """SparseApplyFtrl(lr, l1, l2, lr_power, use_locking=False)(var, accum, linear, grad,
    indices) -> (var, accum, linear): FusedSparseFtrl's update, float16 or float32."""
    _dtypes = _F16_32


class FusedSparseProximalAdagrad(_Composed):
    """FusedSparseProximalAdagrad(use_locking=False)(var, accum, lr, l1, l2, grad, indices):
    on the rows in indices, accum += g^2, rate = lr / sqrt(accum), prox = var - g rate,
    var = sign(prox) max(|prox| - rate l1, 0) / (1 + l2 rate) (l1 > 0) or prox / (1 + l2
    rate); updates var and accum in place and returns them."""

    def __init__(self, use_locking=False):
        self.use_locking = _check_bool("FusedSparseProximalAdagrad", "use_locking", use_locking)
        super().__init__(use_locking=use_locking)

    def __call__(self, var, accum, lr, l1, l2, grad, indices):
        _check_sparse("FusedSparseProximalAdagrad", (("var", var), ("accum", accum)), grad,
                      indices, (_C.float32,))
        return _so.sparse_proximal_adagrad(var, accum, lr, l1, l2, grad, indices)


class SparseApplyAdagrad(_Composed):
    """SparseApplyAdagrad(lr, update_slots=True, use_locking=False)(var, accum, grad, indices)
    -> (var, accum): on the rows in indices, accum += g^2 (with update_slots) and var -= lr g /
    sqrt(accum); float16 or float32, in place."""

    def __init__(self, lr, update_slots=True, use_locking=False):
        op = type(self).__name__
        self.lr = _check_float(op, "lr", lr)
        self.update_slots = _check_bool(op, "update_slots", update_slots)
        self.use_locking = _check_bool(op, "use_locking", use_locking)
        super().__init__(lr=self.lr, update_slots=update_slots, use_locking=use_locking)

    def __call__(self, var, accum, grad, indices):
        _check_sparse(type(self).__name__, (("var", var), ("accum", accum)), grad, indices,
                      _F16_32)
        return _so.sparse_adagrad(var, accum, grad, indices, self.lr, self.update_slots)


class SparseApplyAdagradV2(SparseApplyAdagrad):
    """SparseApplyAdagradV2(lr, epsilon, use_locking=False, update_slots=True)(var, accum, grad,
    indices) -> (var, accum): SparseApplyAdagrad with var -= lr g / (sqrt(accum) + epsilon)."""

    def __init__(self, lr, epsilon, use_locking=False, update_slots=True):
        super().__init__(lr, update_slots, use_locking)
        self.epsilon = _check_float("SparseApplyAdagradV2", "epsilon", epsilon)
        self._attrs["epsilon"] = self.epsilon

    def __call__(self, var, accum, grad, indices):
        _check_sparse("SparseApplyAdagradV2", (("var", var), ("accum", accum)), grad, indices,
                      _F16_32)
        return _so.sparse_adagrad(var, accum, grad, indices, self.lr, self.update_slots,
                                  self.epsilon)


class SparseApplyRMSProp(_Composed):
    """SparseApplyRMSProp(rho, momentum, epsilon, use_locking=False)(var, ms, mom, lr, grad,
    indices) -> (var, ms, mom): on the rows in indices, ms = rho ms + (1 - rho) g^2, mom =
    momentum mom + lr g / sqrt(ms + epsilon), var -= mom (ms moves only where |g| exceeds
    float32's epsilon, as MindSpore's kernel); float16 or float32, in place."""

    def __init__(self, rho, momentum, epsilon, use_locking=False):
        op = "SparseApplyRMSProp"
        self.rho = _check_float(op, "rho", rho)
        if not 0.0 <= self.rho <= 1.0:
            raise ValueError(f"For '{op}', 'rho' must be in [0, 1], but got {rho}.")
        self.momentum = _check_float(op, "momentum", momentum, non_negative=True)
        self.epsilon = _check_float(op, "epsilon", epsilon, positive=True)
        self.use_locking = _check_bool(op, "use_locking", use_locking)
        super().__init__(rho=self.rho, momentum=self.momentum, epsilon=self.epsilon,
                         use_locking=use_locking)

    def __call__(self, var, ms, mom, lr, grad, indices):
        _check_sparse("SparseApplyRMSProp", (("var", var), ("ms", ms), ("mom", mom)), grad,
                      indices, _F16_32)
        return _so.sparse_rms_prop(var, ms, mom, lr, grad, indices, self.rho, self.momentum,
                                   self.epsilon)


__all__ += ["FusedSparseAdam", "FusedSparseLazyAdam", "FusedSparseFtrl", "SparseApplyFtrl",
            "FusedSparseProximalAdagrad", "SparseApplyAdagrad", "SparseApplyAdagradV2",
            "SparseApplyRMSProp"]


class ApplyPowerSign(_Composed):
    """ApplyPowerSign(use_locking=False)(var, m, lr, logbase, sign_decay, beta, grad) -> (var,
    m): m = beta m + (1 - beta) grad, var -= lr exp(logbase sign_decay sign(grad) sign(m))
    grad (the AddSign family's PowerSign); float16/32/64, var and m updated in place."""

    def __init__(self, use_locking=False):
        self.use_locking = _check_bool("ApplyPowerSign", "use_locking", use_locking)
        super().__init__(use_locking=use_locking)

    def __call__(self, var, m, lr, logbase, sign_decay, beta, grad):
        op = "ApplyPowerSign"
        floats = (_C.float16, _C.float32, _C.float64)
        for name, t in (("var", var), ("m", m), ("grad", grad)):
            _check_tensor(op, name, t, floats)
        if tuple(m.shape) != tuple(var.shape) or tuple(grad.shape) != tuple(var.shape):
            raise ValueError(f"For '{op}', var, m and grad must have the same shape, but got "
                             f"{tuple(var.shape)}, {tuple(m.shape)} and {tuple(grad.shape)}.")
        dt = var.dtype
        lr, logbase = _so.scalar(lr, dt), _so.scalar(logbase, dt)
        decay, beta = _so.scalar(sign_decay, dt), _so.scalar(beta, dt)
        g = _prim("Cast")(grad, dt)
        m_new = beta * m + (1.0 - beta) * g
        power = _prim("Exp")(logbase * decay * _prim("Sign")(g) * _prim("Sign")(m_new))
        var_new = var - lr * power * g
        return _prim("Assign")(var, var_new), _prim("Assign")(m, m_new)


__all__ += ["ApplyPowerSign"]


_FLOATS = (_C.float16, _C.float32, _C.float64)


@constexpr
def _check_same_shape(op, name0, shape0, name, shape):
    """A ValueError unless the shapes agree (a dynamic dimension, -1 here, agrees with any)."""
    same = len(shape0) == len(shape) and all(a == b or a == -1 or b == -1
                                             for a, b in zip(shape0, shape))
    if not same:
        raise ValueError(f"For '{op}', '{name}' must have the shape of '{name0}' "
                         f"{tuple(shape0)}, but got {tuple(shape)}.")


def _check_dense(op, states, grad_name, grad):
    """States (name, tensor) of one shape and float dtype, grad of that shape."""
    name0, var = states[0]
    for name, t in states + ((grad_name, grad),):
        _check_tensor(op, name, t, _FLOATS)
        _check_same_shape(op, name0, var.shape, name, t.shape)


class ApplyGradientDescent(_Composed):
    """ApplyGradientDescent()(var, alpha, delta) -> var: var -= alpha * delta, in place."""

    def __init__(self):
        super().__init__()

    def __call__(self, var, alpha, delta):
        _check_dense("ApplyGradientDescent", (("var", var),), "delta", delta)
        return _so.apply_gradient_descent(var, alpha, delta)


class ApplyProximalGradientDescent(_Composed):
    """ApplyProximalGradientDescent()(var, alpha, l1, l2, delta) -> var: prox_v = var - alpha
    delta; var = sign(prox_v) max(|prox_v| - alpha l1, 0) / (1 + alpha l2) (l1 > 0) or
    prox_v / (1 + alpha l2); in place."""

    def __init__(self):
        super().__init__()

    def __call__(self, var, alpha, l1, l2, delta):
        _check_dense("ApplyProximalGradientDescent", (("var", var),), "delta", delta)
        return _so.apply_proximal_gradient_descent(var, alpha, l1, l2, delta)


class ApplyProximalAdagrad(_Composed):
    """ApplyProximalAdagrad(use_locking=False)(var, accum, lr, l1, l2, grad) -> (var, accum):
    accum += grad^2, rate = lr / sqrt(accum), then ApplyProximalGradientDescent's step with
    that rate; in place."""

    def __init__(self, use_locking=False):
        self.use_locking = _check_bool("ApplyProximalAdagrad", "use_locking", use_locking)
        super().__init__(use_locking=use_locking)

    def __call__(self, var, accum, lr, l1, l2, grad):
        _check_dense("ApplyProximalAdagrad", (("var", var), ("accum", accum)), "grad", grad)
        return _so.apply_proximal_adagrad(var, accum, lr, l1, l2, grad)


class ApplyAdagradV2(_Composed):
    """ApplyAdagradV2(epsilon, update_slots=True)(var, accum, lr, grad) -> (var, accum):
    accum += grad^2 (with update_slots), var -= lr * grad / (sqrt(accum) + epsilon); in
    place."""

    def __init__(self, epsilon, update_slots=True):
        self.epsilon = _check_float("ApplyAdagradV2", "epsilon", epsilon)
        self.update_slots = _check_bool("ApplyAdagradV2", "update_slots", update_slots)
        super().__init__(epsilon=self.epsilon, update_slots=update_slots)

    def __call__(self, var, accum, lr, grad):
        _check_dense("ApplyAdagradV2", (("var", var), ("accum", accum)), "grad", grad)
        return _so.apply_adagrad_v2(var, accum, lr, grad, self.epsilon, self.update_slots)


__all__ += ["ApplyGradientDescent", "ApplyProximalGradientDescent", "ApplyProximalAdagrad",
            "ApplyAdagradV2"]


class ApplyAdagradDA(_Composed):
    """ApplyAdagradDA(use_locking=False)(var, gradient_accumulator,
    gradient_squared_accumulator, grad, lr, l1, l2, global_step) -> var: Adagrad dual
    averaging; the accumulators gain grad and grad^2, var = -lr * shrink(ga) / (l2 * step * lr
    + sqrt(gsa)) with shrink the l1 soft threshold l1 * step; all three updated in place."""

    def __init__(self, use_locking=False):
        self.use_locking = _check_bool("ApplyAdagradDA", "use_locking", use_locking)
        super().__init__(use_locking=use_locking)

    def __call__(self, var, gradient_accumulator, gradient_squared_accumulator, grad, lr, l1,
                 l2, global_step):
        _check_dense("ApplyAdagradDA", (("var", var),
                                        ("gradient_accumulator", gradient_accumulator),
                                        ("gradient_squared_accumulator",
                                         gradient_squared_accumulator)), "grad", grad)
        return _so.apply_adagrad_da(var, gradient_accumulator, gradient_squared_accumulator,
                                    grad, lr, l1, l2, global_step)


__all__ += ["ApplyAdagradDA"]


# TensorFlow-style sparse updates of MindSpore's nn_ops (ops/function/sparse_optim_func.py).
_F16_32_64 = (_C.float16, _C.float32, _C.float64)


class _SparseTF(_Composed):
    def __init__(self, use_locking=False):
        self.use_locking = _check_bool(type(self).__name__, "use_locking", use_locking)
        super().__init__(use_locking=use_locking)


class SparseApplyMomentum(_SparseTF):
    """SparseApplyMomentum(use_locking=False, use_nesterov=False)(var, accum, lr, grad,
    indices, momentum) -> var: on the rows in indices, accum = accum * momentum + grad, var -=
    lr * accum (Nesterov: lr * grad + lr * momentum * accum); var and accum in place (float16,
    float32, float64; repeated rows' grads summed first)."""

    def __init__(self, use_locking=False, use_nesterov=False):
        super().__init__(use_locking)
        self.use_nesterov = _check_bool("SparseApplyMomentum", "use_nesterov", use_nesterov)
        self._attrs["use_nesterov"] = use_nesterov

    def __call__(self, var, accum, lr, grad, indices, momentum):
        _check_sparse("SparseApplyMomentum", (("var", var), ("accum", accum)), grad, indices,
                      _F16_32_64)
        return _so.sparse_momentum(var, accum, lr, grad, indices, momentum, self.use_nesterov)


class SparseApplyProximalGradientDescent(_SparseTF):
    """SparseApplyProximalGradientDescent(use_locking=False)(var, alpha, l1, l2, grad, indices)
    -> var: ApplyProximalGradientDescent's step on the rows in indices, in place."""

    def __call__(self, var, alpha, l1, l2, grad, indices):
        _check_sparse("SparseApplyProximalGradientDescent", (("var", var),), grad, indices,
                      _F16_32_64)
        return _so.sparse_proximal_gradient_descent(var, alpha, l1, l2, grad, indices)


class SparseApplyAdagradDA(_SparseTF):
    """SparseApplyAdagradDA(use_locking=False)(var, grad_accum, grad_square_accum, grad,
    indices, lr, l1, l2, global_step) -> var: ApplyAdagradDA's update on the rows in indices;
    var and both accumulators in place."""

    def __call__(self, var, grad_accum, grad_square_accum, grad, indices, lr, l1, l2,
                 global_step):
        _check_sparse("SparseApplyAdagradDA", (("var", var), ("grad_accum", grad_accum),
                                               ("grad_square_accum", grad_square_accum)),
                      grad, indices, _F16_32_64)
        return _so.sparse_adagrad_da(var, grad_accum, grad_square_accum, grad, indices, lr, l1,
                                     l2, global_step)


class SparseApplyCenteredRMSProp(_SparseTF):
    """SparseApplyCenteredRMSProp(use_locking=False)(var, mg, ms, mom, lr, rho, momentum,
    epsilon, grad, indices) -> var: centered RMSProp on the rows in indices (ms and mg decay
    by rho toward g^2 and g, mom = momentum * mom + lr * g / sqrt(ms - mg^2 + epsilon), var -=
    mom); var, mg, ms, mom in place."""

    def __call__(self, var, mg, ms, mom, lr, rho, momentum, epsilon, grad, indices):
        _check_sparse("SparseApplyCenteredRMSProp", (("var", var), ("mg", mg), ("ms", ms),
                                                     ("mom", mom)), grad, indices, _F16_32_64)
        return _so.sparse_centered_rms_prop(var, mg, ms, mom, lr, rho, momentum, epsilon, grad,
                                            indices)


__all__ += ["SparseApplyMomentum", "SparseApplyProximalGradientDescent", "SparseApplyAdagradDA",
            "SparseApplyCenteredRMSProp"]
