"""nn.LARS (MindSpore's): layer-wise adaptive rate scaling around another optimizer (You,
Gitman and Ginsburg, "Large Batch Training of Convolutional Networks", 2017)."""
from mycel.nn.optim.optimizer import Optimizer, _check_float, _const, check_grad_count
from mycel.ops.function._util import prim


def _default_filter(param):
    return "LayerNorm" not in param.name and "bias" not in param.name


class LARS(Optimizer):
    """LARS(optimizer, epsilon=1e-05, coefficient=0.001, use_clip=False,
    lars_filter=lambda x: 'LayerNorm' not in x.name and 'bias' not in x.name).

    Called with the gradients of ``optimizer.parameters``, it rescales each gradient g of a
    parameter w that ``lars_filter`` accepts, with theta = coefficient, delta = the weight
    decay of w's group and alpha = the learning rate:

        lambda = theta * ||w|| / (||g|| + delta * ||w|| + epsilon)   (1 where ||w|| or ||g|| is 0)
        lambda = min(lambda / alpha, 1)                               with use_clip
        g' = lambda * (g + delta * w)

    and runs ``optimizer`` on the result. The weight decay is LARS's: the wrapped optimizer
    no longer applies it; the parameters lars_filter rejects keep plain L2 decay
    (g + delta * w), as the optimizer would have applied it."""

    def __init__(self, optimizer, epsilon=1e-05, coefficient=0.001, use_clip=False,
                 lars_filter=_default_filter):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"For 'LARS', the 'optimizer' must be an nn Optimizer, but got "
                            f"{type(optimizer).__name__}.")
        if not isinstance(use_clip, bool):
            raise TypeError(f"For 'LARS', the 'use_clip' must be a bool, but got "
                            f"{type(use_clip).__name__}.")
        if not callable(lars_filter):
            raise TypeError("For 'LARS', the 'lars_filter' must be callable.")
        eps = _check_float("LARS", "epsilon", epsilon, 0.0)
        coef = _check_float("LARS", "coefficient", coefficient, 0.0)
        if optimizer.dynamic_weight_decay:
            raise TypeError("For 'LARS', dynamic weight decay is currently not supported: the "
                            "wrapped optimizer's 'weight_decay' must be float or int type.")
        # The same parameters and rates as the wrapped optimizer (one group each way).
        super().__init__(0.0, optimizer.parameters)
        # LARS has no rate or step of its own: its learning_rate and global_step are the
        # wrapped optimizer's (one Parameter each, so a checkpoint holds one of each name)
        del self.learning_rate, self.global_step
        self.learning_rate, self.global_step = optimizer.learning_rate, optimizer.global_step
        self.opt = optimizer
        self.epsilon, self.coefficient, self.use_clip = _const(eps), _const(coef), use_clip
        self._one = _const(1.0)
        self._lars = tuple(bool(lars_filter(p)) for p in optimizer.parameters)
        self._decay = optimizer._decay  # LARS applies it ...
        optimizer._decay = (0.0,) * len(optimizer._decay)  # ... instead of the optimizer

    def _norm(self, x):
        return prim("Sqrt")(prim("ReduceSum", keep_dims=False)(x * x, ()))

    def construct(self, gradients):
        check_grad_count("LARS", gradients, len(self._lars))
        select, greater = prim("Select"), prim("Greater")
        lrs = self.opt._current_lr()
        out = ()
        for i, (p, g) in enumerate(zip(self.parameters, gradients)):
            wd = self._decay[i]
            if wd > 0:
                decayed = g + wd * p
            else:
                decayed = g
            if not self._lars[i]:
                out = out + (decayed,)
                continue
            w_norm, g_norm = self._norm(p), self._norm(g)
            ratio = self.coefficient * w_norm / (g_norm + wd * w_norm + self.epsilon)
            ratio = select(greater(g_norm, 0.0), ratio, self._one)
            ratio = select(greater(w_norm, 0.0), ratio, self._one)
            if self.use_clip:
                ratio = prim("Minimum")(ratio / lrs[self.opt._group_of[i]], self._one)
            out = out + (ratio * decayed,)
        return self.opt(out)
