"""ASGD, Rprop and Lamb: MindSpore's ``nn.ASGD``, ``nn.Rprop`` and ``nn.Lamb``. As in MindSpore
they have no fused update op: each step is composed from elementwise ops and reductions, and
the new values are written with Assign. The step number t (1 on the first step) is read from
``global_step``, which advances once per step whether or not the learning rate is dynamic."""
from mycel import _mycel as _C
from mycel.nn.optim.adaptive import _check_betas
from mycel.nn.optim.optimizer import Optimizer, _check_float, _const, check_grad_count
from mycel.ops.function.array_func import assign_add
from mycel.ops.function._util import prim


class _StepCounted(Optimizer):
    """An optimizer whose update reads the step number."""

    def step_and_lr(self):
        """(t, lr): this step's number t as a float32 0-d tensor, counted from 1, and
        ``get_lr()``; global_step advances by one."""
        t = self.global_step.reshape(()).astype(_C.float32) + 1.0
        lr = self.get_lr()
        if not (self.dynamic_lr or self.dynamic_weight_decay):  # (else get_lr advanced it)
            assign_add(self.global_step, 1)
        return t, lr


class ASGD(_StepCounted):
    """ASGD(params, learning_rate=0.1, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0):
    averaged SGD, MindSpore's (and PyTorch's) ASGD. Per parameter, at step t::

        g = grad + weight_decay * param
        eta = lr on the first step
        param = param * (1 - lambd * eta) - eta * g
        ax = param if mu == 1 else ax + (param - ax) * mu
        eta = lr / (1 + lambd * lr * t) ** alpha;   mu = 1 / max(1, t - t0)

    ax, the running average of the parameter, is "ax_.<name>"; eta and mu are 0-d float32
    Parameters "eta_<name>" and "mu_<name>".
    """

    def __init__(self, params, learning_rate=0.1, lambd=1e-4, alpha=0.75, t0=1e6,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        self.lambd = _check_float("ASGD", "lambd", lambd, strict=True)
        self.alpha = _check_float("ASGD", "alpha", alpha, strict=True)
        self.t0 = _check_float("ASGD", "t0", t0, strict=True)
        # float32 whatever the parameters' dtype, as MindSpore's
        self.mu = self._state("mu", init="ones", scalar=True, sep="_", dtype=_C.float32)
        self.eta = self._state("eta", init="zeros", scalar=True, sep="_", dtype=_C.float32)
        self.ax = self._state("ax_")

    def construct(self, gradients):
        check_grad_count("ASGD", gradients, len(self.ax))
        gradients = self.decay_weight(gradients)
        t, lrs = self.step_and_lr()
        first = prim("Equal")(t, 1.0)
        assign, select = prim("Assign"), prim("Select")
        out = ()
        for i, (p, g, mu, eta, ax) in enumerate(zip(self.parameters, gradients, self.mu,
                                                    self.eta, self.ax)):
            lr = self.lr_of(lrs, i)
            eta_t = select(first, lr, eta)
            new = p * (1.0 - self.lambd * eta_t) - eta_t * g
            out = out + (assign(p, new),)
            assign(ax, select(prim("Equal")(mu, 1.0), new, ax + (new - ax) * mu))
            assign(eta, lr / prim("Pow")(1.0 + self.lambd * lr * t, self.alpha))
            assign(mu, 1.0 / prim("Maximum")(t - self.t0, 1.0))
        return out


class Rprop(_StepCounted):
    """Rprop(params, learning_rate=0.1, etas=(0.5, 1.2), step_sizes=(1e-6, 50.),
    weight_decay=0.0): resilient backpropagation, MindSpore's (and PyTorch's) Rprop. Per
    parameter, elementwise, with the step sizes starting at the learning rate::

        g = grad + weight_decay * param
        factor = etaplus if g * prev > 0, etaminus if g * prev < 0, else 1
        step_size = clip(step_size * factor, min_step, max_step)
        g = 0 where g * prev < 0
        param -= sign(g) * step_size;   prev = g

    State: "prev.<name>" and "step_size.<name>".
    """

    def __init__(self, params, learning_rate=0.1, etas=(0.5, 1.2), step_sizes=(1e-6, 50.),
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        for arg, v in (("etas", etas), ("step_sizes", step_sizes)):
            if not isinstance(v, tuple):
                raise TypeError(f"For 'Rprop', the '{arg}' must be a tuple, but got "
                                f"{type(v).__name__}.")
            if len(v) != 2:
                raise ValueError(f"For 'Rprop', the '{arg}' must be a tuple of 2 floats, but got "
                                 f"{len(v)} elements.")
        etaminus = _check_float("Rprop", "etaminus", etas[0])
        etaplus = _check_float("Rprop", "etaplus", etas[1])
        if not 0.0 < etaminus < 1.0:
            raise ValueError(f"For 'Rprop', the 'etaminus' must be in (0.0, 1.0), but got "
                             f"{etaminus}.")
        if etaplus <= 1.0:
            raise ValueError(f"For 'Rprop', the 'etaplus' must be greater than 1.0, but got "
                             f"{etaplus}.")
        lo = _check_float("Rprop", "min_step_size", step_sizes[0])
        hi = _check_float("Rprop", "max_step_size", step_sizes[1])
        if lo > hi:
            raise ValueError(f"For 'Rprop', the maximal step size must not be less than the "
                             f"minimal one, but got {lo} > {hi}.")
        self.etaminus, self.etaplus = _const(etaminus), _const(etaplus)
        self.step_size_min, self.step_size_max = lo, hi
        self._one, self._zero = _const(1.0), _const(0.0)
        self.prev = self._state("prev")
        self.step_size = self._state("step_size")

    def construct(self, gradients):
        check_grad_count("Rprop", gradients, len(self.prev))
        gradients = self.decay_weight(gradients)
        t, lrs = self.step_and_lr()
        first = prim("Equal")(t, 1.0)
        assign, select = prim("Assign"), prim("Select")
        out = ()
        for i, (p, g, prev, size) in enumerate(zip(self.parameters, gradients, self.prev,
                                                   self.step_size)):
            old = select(first, self.lr_of(lrs, i), size)  # sizes start at the learning rate
            prod = g * prev
            fell = prim("Less")(prod, 0.0)  # the gradient changed sign
            factor = select(prim("Greater")(prod, 0.0), self.etaplus,
                            select(fell, self.etaminus, self._one))
            new = prim("Minimum")(prim("Maximum")(old * factor, self.step_size_min),
                                  self.step_size_max)
            g = select(fell, self._zero, g)
            out = out + (assign(p, p - prim("Sign")(g) * new),)
            assign(prev, g)
            assign(size, new)
        return out


class Lamb(_StepCounted):
    """Lamb(params, learning_rate, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0):
    layer-wise adaptive moments, MindSpore's Lamb. Per parameter w at step t::

        m = beta1 * m + (1 - beta1) * g;   v = beta2 * v + (1 - beta2) * g * g
        m_hat = m / (1 - beta1**t);        v_hat = v / (1 - beta2**t)
        update = m_hat / (sqrt(v_hat) + eps) + weight_decay * w
        trust = ||w|| / ||m_hat / sqrt(v_hat + eps) + weight_decay * w||
                (1 where ||w|| or ||g|| is 0), clipped to [0, 10]
        w -= lr * trust * update

    (The norm in the trust ratio adds eps inside the square root, as MindSpore's does.)
    weight_decay is decoupled: it enters the update, not the gradient (a fixed number: a
    dynamic weight decay, a Cell, is a TypeError). State: "lamb_m.<name>" and "lamb_v.<name>".
    """
    _dynamic_decay_ok = False

    def __init__(self, params, learning_rate, beta1=0.9, beta2=0.999, eps=1e-6,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        b1, b2, e = _check_betas("Lamb", beta1, beta2, eps)
        self.beta1, self.beta2, self.eps = _const(b1), _const(b2), _const(e)
        self._one_minus_beta1, self._one_minus_beta2 = _const(1.0 - b1), _const(1.0 - b2)
        self._one = _const(1.0)
        self.moments1 = self._state("lamb_m")
        self.moments2 = self._state("lamb_v")

    def _norm(self, x):
        """The L2 norm of all of x (0-d)."""
        return prim("Sqrt")(prim("ReduceSum", keep_dims=False)(x * x, ()))

    def construct(self, gradients):
        check_grad_count("Lamb", gradients, len(self.moments1))
        t, lrs = self.step_and_lr()
        bc1 = 1.0 - prim("Pow")(self.beta1, t)
        bc2 = 1.0 - prim("Pow")(self.beta2, t)
        assign, select = prim("Assign"), prim("Select")
        out = ()
        for i, (p, m, v, g) in enumerate(zip(self.parameters, self.moments1, self.moments2,
                                             gradients)):
            wd = self._decay[i]
            m_new = self.beta1 * m + self._one_minus_beta1 * g
            v_new = self.beta2 * v + self._one_minus_beta2 * g * g
            m_hat, v_hat = m_new / bc1, v_new / bc2
            update = m_hat / (prim("Sqrt")(v_hat) + self.eps)
            r = m_hat * prim("Rsqrt")(v_hat + self.eps)
            if wd > 0:
                update = update + wd * p
                r = r + wd * p
            w_norm, g_norm = self._norm(p), self._norm(g)
            ratio = select(prim("Greater")(g_norm, 0.0), w_norm / self._norm(r), self._one)
            ratio = select(prim("Greater")(w_norm, 0.0), ratio, self._one)
            ratio = prim("Minimum")(prim("Maximum")(ratio, 0.0), 10.0)
            assign(m, m_new)
            assign(v, v_new)
            out = out + (assign(p, p - self.lr_of(lrs, i) * ratio * update),)
        return out
