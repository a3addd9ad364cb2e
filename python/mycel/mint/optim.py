"""``mindspore.mint.optim``: AdamW, Adam and SGD with PyTorch's argument names
(``params``, ``lr``, ``betas``, ``eps``, ``weight_decay``, ``momentum``), over mycel.nn's
optimizers of the same update rules."""
from mycel import nn as _nn


class AdamW(_nn.AdamW):
    """Adam with decoupled weight decay."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False):
        if amsgrad or maximize:
            raise ValueError("For 'mint.optim.AdamW', amsgrad and maximize are not supported.")
        super().__init__(params, lr, betas[0], betas[1], eps, weight_decay)


class Adam(_nn.Adam):
    """Adam (weight_decay added to the gradient, as PyTorch's)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 amsgrad=False):
        super().__init__(params, lr, betas[0], betas[1], eps, weight_decay=weight_decay,
                         use_amsgrad=amsgrad)


class SGD(_nn.SGD):
    """Stochastic gradient descent with momentum."""

    def __init__(self, params, lr=1e-3, momentum=0.0, dampening=0.0, weight_decay=0.0,
                 nesterov=False):
        super().__init__(params, lr, momentum, dampening, weight_decay, nesterov)


__all__ = ["AdamW", "Adam", "SGD"]
