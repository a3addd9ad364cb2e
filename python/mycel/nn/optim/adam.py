"""Adam, AdamWeightDecay and AdamW: MindSpore's ``nn.Adam`` and ``nn.AdamWeightDecay``, and
AdamW as PyTorch (and ``mindspore.experimental.optim.AdamW``) define it."""
import numpy as np

from mycel import _mycel as _C
from mycel.common.parameter import Parameter
from mycel.nn.optim.optimizer import Optimizer, _check_float, check_grad_count
from mycel.ops.function._util import prim


def _check_betas(name, beta1, beta2, eps):
    b1 = _check_float(name, "beta1", beta1, 0.0, 1.0)
    b2 = _check_float(name, "beta2", beta2, 0.0, 1.0)
    if b1 >= 1.0 or b2 >= 1.0:
        raise ValueError(f"For '{name}', beta1 and beta2 must be in [0, 1), but got {b1} and "
                         f"{b2}.")
    e = _check_float(name, "eps", eps, 0.0)
    if e <= 0.0:
        raise ValueError(f"For '{name}', the 'eps' must be positive, but got {e}.")
    return b1, b2, e


def b1_of(opt):
    return float(opt.beta1.asnumpy())


def b2_of(opt):
    return float(opt.beta2.asnumpy())


def e_of(opt):
    return float(opt.eps.asnumpy())


def _scalar(v, name):
    return Parameter(_C.Tensor(np.float32(v)), name, requires_grad=False)


class _AdamBase(Optimizer):
    """Moments m ("moment1.<name>") and v ("moment2.<name>"), the betas, and the running
    powers beta1**t, beta2**t ("beta1_power", "beta2_power")."""

    def __init__(self, name, params, learning_rate, beta1, beta2, eps, weight_decay,
                 loss_scale):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        b1, b2, e = _check_betas(name, beta1, beta2, eps)
        self.beta1, self.beta2, self.eps = _scalar(b1, "beta1"), _scalar(b2, "beta2"), \
            _scalar(e, "eps")
        self.beta1_power = _scalar(1.0, "beta1_power")
        self.beta2_power = _scalar(1.0, "beta2_power")
        self.moment1 = self._state("moment1")
        self.moment2 = self._state("moment2")

    def _next_powers(self):
        """beta1**t and beta2**t of this step (t counted from 1), stored for the next."""
        b1p = self.beta1_power * self.beta1
        b2p = self.beta2_power * self.beta2
        return prim("Assign")(self.beta1_power, b1p), prim("Assign")(self.beta2_power, b2p)


class Adam(_AdamBase):
    """Adam(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
    use_nesterov=False, weight_decay=0.0, loss_scale=1.0): MindSpore's Adam (the Adam op)::

        g = grad / loss_scale + weight_decay * param
        m = beta1 * m + (1 - beta1) * g;   v = beta2 * v + (1 - beta2) * g * g
        param -= lr * sqrt(1 - beta2**t) / (1 - beta1**t) * m / (sqrt(v) + eps)

    (PyTorch adds eps to sqrt(v / (1 - beta2**t)) instead: the results differ by
    eps-sized amounts.) With use_amsgrad=True it keeps the running maximum of v ("vhat.<name>")
    and divides by sqrt(vhat) + eps instead (AMSGrad; the ApplyAdamWithAmsgrad op);
    use_nesterov does not combine with it.
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
                 use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0,
                 use_amsgrad=False, **kwargs):
        use_lazy = kwargs.pop("use_lazy", False)
        use_offload = kwargs.pop("use_offload", False)
        if kwargs:
            raise TypeError(f"For 'Adam', unexpected arguments {sorted(kwargs)}.")
        for arg, v in (("use_lazy", use_lazy), ("use_offload", use_offload)):
            if not isinstance(v, bool):
                raise TypeError(f"For 'Adam', '{arg}' must be bool, but got {type(v).__name__}.")
        if use_lazy and use_offload:
            raise ValueError("For 'Adam', 'use_lazy' and 'use_offload' can not both be True.")
        if (use_lazy or use_offload) and use_amsgrad:
            raise ValueError("For lazy Adam and Adam with offload, there is no parameter named "
                             "'use_amsgrad'.")
        # Lazy Adam updates only the rows a sparse (row) gradient touches; mycel's gradients
        # are dense, every row is touched, so it is this update. Offload runs the update on
        # the host, where mycel's CPU kernels run it anyway.
        self.use_lazy, self.use_offload = use_lazy, use_offload
        if not isinstance(use_amsgrad, bool):
            raise TypeError(f"For 'Adam', 'use_amsgrad' must be bool, but got "
                            f"{type(use_amsgrad).__name__}.")
        if use_amsgrad and use_nesterov:
            raise ValueError("For 'Adam', use_amsgrad and use_nesterov cannot both be True.")
        super().__init__("Adam", params, learning_rate, beta1, beta2, eps, weight_decay,
                         loss_scale)
        self.use_nesterov = bool(use_nesterov)
        self.use_amsgrad = use_amsgrad
        self._op = prim("Adam", use_nesterov=self.use_nesterov)
        if use_amsgrad:
            from mycel.ops.operations.composed_ops import ApplyAdamWithAmsgrad
            self.vhat = self._state("vhat")
            self._amsgrad = ApplyAdamWithAmsgrad(b1_of(self), b2_of(self), e_of(self))

    def construct(self, gradients):
        check_grad_count("Adam", gradients, len(self.moment1))
        gradients = self.decay_weight(self.scale_grad(gradients))
        lr = self.get_lr()
        b1p, b2p = self._next_powers()
        out = ()
        if self.use_amsgrad:
            for i, (p, m, v, vh, g) in enumerate(zip(self.parameters, self.moment1,
                                                     self.moment2, self.vhat, gradients)):
                out = out + (self._amsgrad(p, m, v, vh, b1p, b2p, self.lr_of(lr, i), g)[0],)
            return out
        for i, (p, m, v, g) in enumerate(zip(self.parameters, self.moment1, self.moment2,
                                             gradients)):
            out = out + (self._op(p, m, v, b1p, b2p, self.lr_of(lr, i), self.beta1, self.beta2,
                                  self.eps, g)[0],)
        return out


class AdamWeightDecay(_AdamBase):
    """AdamWeightDecay(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6,
    weight_decay=0.0): MindSpore's Adam with decoupled weight decay and no bias correction::

        m = beta1 * m + (1 - beta1) * g;   v = beta2 * v + (1 - beta2) * g * g
        param -= lr * (m / (sqrt(v) + eps) + weight_decay * param)
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6,
                 weight_decay=0.0):
        super().__init__("AdamWeightDecay", params, learning_rate, beta1, beta2, eps,
                         weight_decay, 1.0)
        self._op = prim("AdamWeightDecay")

    def construct(self, gradients):
        check_grad_count("AdamWeightDecay", gradients, len(self.moment1))
        decays = self._current_decays()  # (before get_lr advances the step)
        lr = self.get_lr()
        out = ()
        for i, (p, m, v, g) in enumerate(zip(self.parameters, self.moment1, self.moment2,
                                             gradients)):
            out = out + (self._op(p, m, v, self.lr_of(lr, i), self.beta1, self.beta2, self.eps,
                                  decays[i], g)[0],)
        return out


class AdamW(_AdamBase):
    """AdamW(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=1e-2):
    Adam with decoupled weight decay and bias correction, exactly as PyTorch's AdamW::

        param *= 1 - lr * weight_decay
        m = beta1 * m + (1 - beta1) * g;   v = beta2 * v + (1 - beta2) * g * g
        param -= lr / (1 - beta1**t) * m / (sqrt(v / (1 - beta2**t)) + eps)

    It runs as one AdamWeightDecay op per parameter, with lr, eps and decay rescaled by the
    bias corrections (the same update, fused).
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
                 weight_decay=1e-2):
        super().__init__("AdamW", params, learning_rate, beta1, beta2, eps, weight_decay, 1.0)
        self._op = prim("AdamWeightDecay")

    def construct(self, gradients):
        check_grad_count("AdamW", gradients, len(self.moment1))
        decays = self._current_decays()  # (before get_lr advances the step)
        lr = self.get_lr()
        b1p, b2p = self._next_powers()
        bc1 = 1.0 - b1p
        sbc2 = prim("Sqrt")(1.0 - b2p)
        eps = self.eps * sbc2
        out = ()
        for i, (p, m, v, g) in enumerate(zip(self.parameters, self.moment1, self.moment2,
                                             gradients)):
            lr_i = self.lr_of(lr, i)
            lr_t = lr_i * sbc2 / bc1
            decay = decays[i] * bc1 / sbc2
            out = out + (self._op(p, m, v, lr_t, self.beta1, self.beta2, eps, decay, g)[0],)
        return out


class AdamOffload(Adam):
    """AdamOffload(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
    use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0): MindSpore's Adam
    whose update runs on the host CPU; mycel's optimizer kernels run there already, so it is
    Adam(use_offload=True), the same update."""

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
                 use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0):
        super().__init__(params, learning_rate, beta1, beta2, eps, use_locking, use_nesterov,
                         weight_decay, loss_scale, use_offload=True)


class LazyAdam(Adam):
    """LazyAdam(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
    use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0): MindSpore's Adam
    that updates only the rows a sparse (row) gradient touches. mycel's gradients are dense
    (every row is touched), so it is Adam(use_lazy=True), the same update."""

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
                 use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0):
        super().__init__(params, learning_rate, beta1, beta2, eps, use_locking, use_nesterov,
                         weight_decay, loss_scale, use_lazy=True)
