"""FTRL: MindSpore's ``nn.FTRL`` (Follow The Regularized Leader, proximal form), one ApplyFtrl op
per parameter."""
import numbers

from mycel.nn.optim.optimizer import (Optimizer, _check_bool, _check_float, _const,
                                      check_grad_count)
from mycel.ops.function._util import prim


class FTRL(Optimizer):
    """FTRL(params, initial_accum=0.1, learning_rate=0.001, lr_power=-0.5, l1=0.0, l2=0.0,
    use_locking=False, loss_scale=1.0, weight_decay=0.0): MindSpore's FTRL (the ApplyFtrl op),
    per parameter, with p = -lr_power::

        g = grad / loss_scale + weight_decay * param
        accum_new = accum + g * g
        linear += g - (accum_new**p - accum**p) / lr * param
        param = (sign(linear) * l1 - linear) / (accum_new**p / lr + 2 * l2)  if |linear| > l1
                0                                                             otherwise
        accum = accum_new

    The learning rate is a fixed positive float: a dynamic rate, or a rate per parameter
    group, is a ValueError (groups may still set 'weight_decay'). State: "moments.<name>"
    (the accumulators, starting at initial_accum) and "linear.<name>".
    """

    def __init__(self, params, initial_accum=0.1, learning_rate=0.001, lr_power=-0.5, l1=0.0,
                 l2=0.0, use_locking=False, loss_scale=1.0, weight_decay=0.0):
        if isinstance(learning_rate, bool) or not isinstance(learning_rate, numbers.Real):
            raise TypeError(f"For 'FTRL', the 'learning_rate' must be a float (a dynamic learning "
                            f"rate is not supported), but got {type(learning_rate).__name__}.")
        super().__init__(learning_rate, params, weight_decay, loss_scale=loss_scale)
        group_lr = self.is_group and any(lr is not learning_rate for lr in self.group_lr)
        if self.dynamic_lr or group_lr:
            raise ValueError("For 'FTRL', dynamic learning rate and group learning rate are not "
                             f"supported, but got dynamic learning rate {self.dynamic_lr} and "
                             f"group learning rate {group_lr}.")
        a = _check_float("FTRL", "initial_accum", initial_accum, 0.0)
        if float(learning_rate) <= 0.0:
            raise ValueError(f"For 'FTRL', the 'learning_rate' must be positive, but got "
                             f"{float(learning_rate)}.")
        p = _check_float("FTRL", "lr_power", lr_power)
        if p > 0.0:
            raise ValueError(f"For 'FTRL', the 'lr_power' must be <= 0, but got {p}.")
        l1 = _check_float("FTRL", "l1", l1, 0.0)
        l2 = _check_float("FTRL", "l2", l2, 0.0)
        _check_bool("FTRL", "use_locking", use_locking)
        self.l1, self.l2, self.lr_power = _const(l1), _const(l2), _const(p)
        self.moments = self._state("moments", init=a)
        self.linear = self._state("linear")
        self.use_locking = use_locking
        self._op = prim("ApplyFtrl", use_locking=use_locking)

    def construct(self, grads):
        check_grad_count("FTRL", grads, len(self.moments))
        grads = self.decay_weight(self.scale_grad(grads))
        lr = self.get_lr()
        out = ()
        for i, (p, m, lin, g) in enumerate(zip(self.parameters, self.moments, self.linear,
                                               grads)):
            out = out + (self._op(p, m, lin, g, self.lr_of(lr, i), self.l1, self.l2,
                                  self.lr_power),)
        return out
