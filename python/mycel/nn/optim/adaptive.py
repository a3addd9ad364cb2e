"""Adagrad, RMSProp, AdaMax and Adadelta: MindSpore's ``nn.Adagrad``, ``nn.RMSProp``,
``nn.AdaMax`` and ``nn.Adadelta``, each one update op per parameter (ApplyAdagrad,
ApplyRMSProp / ApplyCenteredRMSProp, ApplyAdaMax, ApplyAdadelta) with MindSpore's formula,
defaults and state names."""
import numpy as np

from mycel.common.parameter import Parameter
from mycel.nn.optim.optimizer import (Optimizer, Tensor, _check_bool, _check_float, _const,
                                      check_grad_count)
from mycel.ops.function._util import prim


class Adagrad(Optimizer):
    """Adagrad(params, accum=0.1, learning_rate=0.001, update_slots=True, loss_scale=1.0,
    weight_decay=0.0): MindSpore's Adagrad (the ApplyAdagrad op), per parameter::

        g = grad / loss_scale + weight_decay * param
        accum += g * g                       (only with update_slots)
        param -= lr * g / sqrt(accum)

    The accumulators start at `accum` and are Parameters "accum.<param name>". There is no
    epsilon: PyTorch's Adagrad with ``initial_accumulator_value=accum, eps=0`` is the same
    update.
    """

    def __init__(self, params, accum=0.1, learning_rate=0.001, update_slots=True, loss_scale=1.0,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        a = _check_float("Adagrad", "accum", accum, 0.0)
        _check_bool("Adagrad", "update_slots", update_slots)
        self.accum = self._state("accum", init=a)
        self.update_slots = update_slots
        self._op = prim("ApplyAdagrad", update_slots=update_slots)

    def construct(self, grads):
        check_grad_count("Adagrad", grads, len(self.accum))
        grads = self.decay_weight(self.scale_grad(grads))
        lr = self.get_lr()
        out = ()
        for i, (p, a, g) in enumerate(zip(self.parameters, self.accum, grads)):
            out = out + (self._op(p, a, self.lr_of(lr, i), g)[0],)
        return out


class RMSProp(Optimizer):
    """RMSProp(params, learning_rate=0.1, decay=0.9, momentum=0.0, epsilon=1e-10,
    use_locking=False, centered=False, loss_scale=1.0, weight_decay=0.0): MindSpore's RMSProp
    (ApplyRMSProp, or ApplyCenteredRMSProp when centered), per parameter::

        g = grad / loss_scale + weight_decay * param
        mean_grad = decay * mean_grad + (1 - decay) * g                 (centered only)
        mean_square = decay * mean_square + (1 - decay) * g * g
        moment = momentum * moment + lr * g / sqrt(mean_square [- mean_grad^2] + epsilon)
        param -= moment

    Unlike PyTorch's RMSprop, mean_square starts at one (not zero), epsilon is added under the
    square root (not to it) and the rate is inside the moment. State: Parameters
    "mean_square.<name>", "moment.<name>" and, centered, "mean_grad.<name>".
    """

    def __init__(self, params, learning_rate=0.1, decay=0.9, momentum=0.0, epsilon=1e-10,
                 use_locking=False, centered=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        d = _check_float("RMSProp", "decay", decay, 0.0, strict=True)
        m = _check_float("RMSProp", "momentum", momentum, 0.0, strict=True)
        e = _check_float("RMSProp", "epsilon", epsilon, strict=True)
        if e <= 0.0:
            raise ValueError(f"For 'RMSProp', the 'epsilon' must be positive, but got {e}.")
        _check_bool("RMSProp", "use_locking", use_locking)
        _check_bool("RMSProp", "centered", centered)
        self.centered = centered
        self.decay, self.momentum, self.epsilon = _const(d), _const(m), _const(e)
        if centered:
            self.mg = self._state("mean_grad")
            self._op = prim("ApplyCenteredRMSProp", use_locking=use_locking)
        else:
            self._op = prim("ApplyRMSProp", use_locking=use_locking)
        self.ms = self._state("mean_square", init="ones")
        self.moment = self._state("moment")

    def construct(self, gradients):
        check_grad_count("RMSProp", gradients, len(self.ms))
        gradients = self.decay_weight(self.scale_grad(gradients))
        lr = self.get_lr()
        out = ()
        for i, (p, ms, mom, g) in enumerate(zip(self.parameters, self.ms, self.moment,
                                                gradients)):
            lr_i = self.lr_of(lr, i)
            if self.centered:
                r = self._op(p, self.mg[i], ms, mom, g, lr_i, self.decay, self.momentum,
                             self.epsilon)
            else:
                r = self._op(p, ms, mom, lr_i, g, self.decay, self.momentum, self.epsilon)
            out = out + (r,)
        return out


def _check_betas(name, beta1, beta2, eps):
    """MindSpore's AdaMax/Lamb checks: betas in the open interval (0, 1), a positive eps."""
    b1 = _check_float(name, "beta1", beta1)
    b2 = _check_float(name, "beta2", beta2)
    for arg, b in (("beta1", b1), ("beta2", b2)):
        if not 0.0 < b < 1.0:
            raise ValueError(f"For '{name}', the '{arg}' must be in (0.0, 1.0), but got {b}.")
    e = _check_float(name, "eps", eps)
    if e <= 0.0:
        raise ValueError(f"For '{name}', the 'eps' must be positive, but got {e}.")
    return b1, b2, e


class AdaMax(Optimizer):
    """AdaMax(params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-08, weight_decay=0.0,
    loss_scale=1.0): MindSpore's AdaMax (the ApplyAdaMax op), per parameter, t counted from 1::

        g = grad / loss_scale + weight_decay * param
        m = beta1 * m + (1 - beta1) * g;   v = max(beta2 * v, |g|)
        param -= lr / (1 - beta1**t) * m / (v + eps)

    (PyTorch's Adamax adds eps to |g| inside the max instead: the results differ by eps-sized
    amounts.) State: "moment1.<name>", "moment2.<name>" and "beta1_power" (beta1**t).
    """

    def __init__(self, params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-08,
                 weight_decay=0.0, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        b1, b2, e = _check_betas("AdaMax", beta1, beta2, eps)
        self.beta1, self.beta2, self.eps = _const(b1), _const(b2), _const(e)
        self.beta1_power = Parameter(Tensor(np.float32(1.0)), "beta1_power", requires_grad=False)
        self.moment1 = self._state("moment1")
        self.moment2 = self._state("moment2")
        self._op = prim("ApplyAdaMax")

    def construct(self, gradients):
        check_grad_count("AdaMax", gradients, len(self.moment1))
        gradients = self.decay_weight(self.scale_grad(gradients))
        lr = self.get_lr()
        b1p = prim("Assign")(self.beta1_power, self.beta1_power * self.beta1)
        out = ()
        for i, (p, m, v, g) in enumerate(zip(self.parameters, self.moment1, self.moment2,
                                             gradients)):
            out = out + (self._op(p, m, v, b1p, self.lr_of(lr, i), self.beta1, self.beta2,
                                  self.eps, g)[0],)
        return out


class Adadelta(Optimizer):
    """Adadelta(params, learning_rate=1.0, rho=0.9, epsilon=1e-6, loss_scale=1.0,
    weight_decay=0.0): MindSpore's Adadelta (the ApplyAdadelta op), per parameter::

        g = grad / loss_scale + weight_decay * param
        accum = rho * accum + (1 - rho) * g * g
        update = sqrt(accum_update + epsilon) / sqrt(accum + epsilon) * g
        accum_update = rho * accum_update + (1 - rho) * update * update
        param -= lr * update

    PyTorch's Adadelta is the same update. State: "accum.<name>", "accum_update.<name>".
    """

    def __init__(self, params, learning_rate=1.0, rho=0.9, epsilon=1e-6, loss_scale=1.0,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        r = _check_float("Adadelta", "rho", rho, 0.0, 1.0)
        e = _check_float("Adadelta", "epsilon", epsilon, 0.0)
        self.rho, self.epsilon = _const(r), _const(e)
        self.accum = self._state("accum")
        self.accum_update = self._state("accum_update")
        self._op = prim("ApplyAdadelta")

    def construct(self, grads):
        check_grad_count("Adadelta", grads, len(self.accum))
        grads = self.decay_weight(self.scale_grad(grads))
        lr = self.get_lr()
        out = ()
        for i, (p, a, u, g) in enumerate(zip(self.parameters, self.accum, self.accum_update,
                                             grads)):
            out = out + (self._op(p, a, u, self.lr_of(lr, i), self.rho, self.epsilon, g)[0],)
        return out
