"""Momentum and SGD: MindSpore's ``nn.Momentum`` and ``nn.SGD``."""
import numpy as np

from mycel import _mycel as _C
from mycel.common.parameter import Parameter
from mycel.nn.optim.optimizer import Optimizer, _check_float, check_grad_count
from mycel.ops.function._util import prim


class Momentum(Optimizer):
    """Momentum(params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0,
    use_nesterov=False): SGD with momentum (the ApplyMomentum op), per parameter::

        g = grad / loss_scale + weight_decay * param
        moment = momentum * moment + g
        param -= lr * (g + momentum * moment if use_nesterov else moment)

    The moments are Parameters named "moments.<param name>".
    """

    def __init__(self, params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0,
                 use_nesterov=False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        m = _check_float("Momentum", "momentum", momentum, 0.0)
        if not isinstance(use_nesterov, bool):
            raise TypeError(f"For 'Momentum', the 'use_nesterov' must be a bool, but got "
                            f"{type(use_nesterov).__name__}.")
        self.momentum = Parameter(_C.Tensor(np.float32(m)), "momentum", requires_grad=False)
        self.moments = self._state("moments")
        self.use_nesterov = use_nesterov
        self._op = prim("ApplyMomentum", use_nesterov=use_nesterov)

    def construct(self, gradients):
        check_grad_count("Momentum", gradients, len(self.moments))
        gradients = self.decay_weight(self.scale_grad(gradients))
        lr = self.get_lr()
        out = ()
        for i, (p, m, g) in enumerate(zip(self.parameters, self.moments, gradients)):
            out = out + (self._op(p, m, self.lr_of(lr, i), g, self.momentum),)
        return out


class SGD(Optimizer):
    """SGD(params, learning_rate=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0,
    nesterov=False, loss_scale=1.0): stochastic gradient descent as PyTorch's (the SGD op)::

        g = grad / loss_scale + weight_decay * param
        accum = g on the first step, else momentum * accum + (1 - dampening) * g
        param -= lr * (g + momentum * accum if nesterov else accum)

    The accumulators are Parameters "accum.<param name>", the first-step flags "stat.<...>".
    The decay is fused into the SGD op: a dynamic weight decay (a Cell) is a TypeError.
    """
    _dynamic_decay_ok = False

    def __init__(self, params, learning_rate=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0,
                 nesterov=False, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        m = _check_float("SGD", "momentum", momentum, 0.0)
        d = _check_float("SGD", "dampening", dampening, 0.0)
        if not isinstance(nesterov, bool):
            raise TypeError(f"For 'SGD', the 'nesterov' must be a bool, but got "
                            f"{type(nesterov).__name__}.")
        if nesterov and (m <= 0.0 or d != 0.0):
            raise ValueError("For 'SGD', nesterov needs a positive momentum and zero dampening, "
                             f"but got momentum {m} and dampening {d}.")
        self.momentum = Parameter(_C.Tensor(np.float32(m)), "momentum", requires_grad=False)
        self.accum = self._state("accum")
        self.stat = self._state("stat", init="ones", scalar=True)
        # The weight decay is fused into the op (one per group's decay).
        self._ops = tuple(prim("SGD", dampening=d, weight_decay=wd, nesterov=nesterov)
                          for wd in self._decay)

    def construct(self, gradients):
        check_grad_count("SGD", gradients, len(self.accum))
        gradients = self.scale_grad(gradients)
        lr = self.get_lr()
        out = ()
        for i, (p, g, a, s) in enumerate(zip(self.parameters, gradients, self.accum, self.stat)):
            out = out + (self._ops[i](p, g, self.lr_of(lr, i), a, self.momentum, s),)
        return out
