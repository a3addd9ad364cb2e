"""ProximalAdagrad: MindSpore's ``nn.ProximalAdagrad`` (the ApplyProximalAdagrad update),
composed from elementwise prims."""
from mycel.nn.optim.optimizer import Optimizer, _check_float, check_grad_count
from mycel.ops.composite import depend
from mycel.ops.function._util import prim


class ProximalAdagrad(Optimizer):
    """ProximalAdagrad(params, accum=0.1, learning_rate=0.001, l1=0.0, l2=0.0,
    use_locking=False, loss_scale=1.0, weight_decay=0.0): Adagrad followed by the proximal
    step of the l1 and l2 penalties (Duchi et al.), per parameter::

        g = grad / loss_scale + weight_decay * param
        accum += g * g
        v = param - lr * g / sqrt(accum)
        param = sign(v) * max(|v| - lr * l1, 0) / (1 + lr * l2)

    The accumulators start at `accum` (> 0) and are Parameters "accum.<param name>"."""

    def __init__(self, params, accum=0.1, learning_rate=0.001, l1=0.0, l2=0.0,
                 use_locking=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        a = _check_float("ProximalAdagrad", "accum", accum, 0.0)
        if a <= 0.0:
            raise ValueError(f"For 'ProximalAdagrad', 'accum' must be positive, but got {a}.")
        self.l1 = _check_float("ProximalAdagrad", "l1", l1, 0.0)
        self.l2 = _check_float("ProximalAdagrad", "l2", l2, 0.0)
        self.use_locking = bool(use_locking)
        self.accum = self._state("accum", init=a)

    def construct(self, grads):
        check_grad_count("ProximalAdagrad", grads, len(self.accum))
        grads = self.decay_weight(self.scale_grad(grads))
        lr = self.get_lr()
        out = ()
        for i, (p, a, g) in enumerate(zip(self.parameters, self.accum, grads)):
            lr_i = prim("Cast", dtype=p.dtype)(self.lr_of(lr, i))
            a_new = prim("Assign")(a, a + g * g)
            v = p - lr_i * g / prim("Sqrt")(a_new)
            shrunk = prim("ReLU")(prim("Abs")(v) - lr_i * self.l1)
            p_new = prim("Sign")(v) * shrunk / (1.0 + lr_i * self.l2)
            out = out + (depend(prim("Assign")(p, p_new), a_new),)
        return out
