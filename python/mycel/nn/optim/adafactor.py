"""AdaFactor: MindSpore's ``nn.AdaFactor`` (Shazeer and Stern, "Adafactor: Adaptive Learning
Rates with Sublinear Memory Cost", 2018), composed from elementwise and reduction prims."""
import numpy as np

from mycel import _mycel as _C
from mycel.common.parameter import Parameter
from mycel.nn.optim.optimizer import Optimizer, _check_float, _check_bool, check_grad_count
from mycel.ops.composite import depend
from mycel.ops.function._util import prim


class AdaFactor(Optimizer):
    """AdaFactor(params, learning_rate=None, eps=(1e-30, 1e-3), clip_threshold=1.0,
    decay_rate=0.8, beta1=0.9, weight_decay=0.0, scale_parameter=True, relative_step=True,
    warmup_init=False, compression=False, loss_scale=1.0). At step t (from 1), per parameter
    p with gradient g::

        lr = min(1e-6 t if warmup_init else 1e-2, 1 / sqrt(t))   (relative_step)
             or the given learning rate
        lr *= max(eps[1], rms(p))                                 (scale_parameter)
        beta2 = 1 - t ** -decay_rate
        u = g * g + eps[0]
        p of rank >= 2 (factored second moment, over the last two axes):
            r = beta2 r + (1 - beta2) mean(u, -1);  c = beta2 c + (1 - beta2) mean(u, -2)
            v = r / mean(r, -1) outer c
        otherwise: v = beta2 v + (1 - beta2) u
        update = g / sqrt(v);  update /= max(1, rms(update) / clip_threshold);  update *= lr
        m = beta1 m + (1 - beta1) update; update = m                (beta1 > 0)
        p -= weight_decay * lr * p + update

    State: "exp_avg_sq_row.<name>", "exp_avg_sq_col.<name>" (factored) or "exp_avg_sq.<name>",
    "exp_avg.<name>" (beta1 > 0; float16 with compression) and the step "step". The weight
    decay is a fixed number (a dynamic one, a Cell, is a TypeError).
    """
    _dynamic_decay_ok = False

    def __init__(self, params, learning_rate=None, eps=(1e-30, 1e-3), clip_threshold=1.0,
                 decay_rate=0.8, beta1=0.9, weight_decay=0.0, scale_parameter=True,
                 relative_step=True, warmup_init=False, compression=False, loss_scale=1.0):
        name = "AdaFactor"
        for arg, v in (("scale_parameter", scale_parameter), ("relative_step", relative_step),
                       ("warmup_init", warmup_init), ("compression", compression)):
            _check_bool(name, arg, v)
        if learning_rate is not None and relative_step:
            raise ValueError("For 'AdaFactor', give a 'learning_rate' only with "
                             "relative_step=False (relative_step computes the rate).")
        if learning_rate is None and not relative_step:
            raise ValueError("For 'AdaFactor', relative_step=False needs a 'learning_rate'.")
        if warmup_init and not relative_step:
            raise ValueError("For 'AdaFactor', warmup_init needs relative_step=True.")
        if not isinstance(eps, (tuple, list)) or len(eps) != 2:
            raise TypeError(f"For 'AdaFactor', 'eps' must be a pair of floats, but got "
                            f"{eps!r}.")
        super().__init__(0.0 if learning_rate is None else learning_rate, params, weight_decay,
                         loss_scale)
        self.eps1 = _check_float(name, "eps[0]", eps[0], 0.0)
        self.eps2 = _check_float(name, "eps[1]", eps[1], 0.0)
        self.clip_threshold = _check_float(name, "clip_threshold", clip_threshold)
        if self.clip_threshold <= 0:
            raise ValueError(f"For 'AdaFactor', 'clip_threshold' must be positive, but got "
                             f"{clip_threshold}.")
        self.decay_rate = _check_float(name, "decay_rate", decay_rate, 0.0)
        self.beta1 = _check_float(name, "beta1", beta1, 0.0, 1.0)
        self.scale_parameter, self.relative_step = scale_parameter, relative_step
        self.warmup_init, self.compression = warmup_init, compression
        self._factored = tuple(len(p.shape) >= 2 for p in self._params_list)
        self.step = Parameter(_C.Tensor(np.float32(0.0)), "step", requires_grad=False)
        rows, cols, sq, avg = [], [], [], []
        for i, p in enumerate(self._params_list):
            shape = tuple(p.shape)
            if self._factored[i]:
                rows.append(self._slot("exp_avg_sq_row", i, p, shape[:-1]))
                cols.append(self._slot("exp_avg_sq_col", i, p, shape[:-2] + shape[-1:]))
                sq.append(self._slot("exp_avg_sq", i, p, ()))
            else:
                rows.append(self._slot("exp_avg_sq_row", i, p, ()))
                cols.append(self._slot("exp_avg_sq_col", i, p, ()))
                sq.append(self._slot("exp_avg_sq", i, p, shape))
            avg.append(self._slot("exp_avg", i, p, shape if self.beta1 > 0 else (),
                                  _C.float16 if compression else None))
        self.exp_avg_sq_row, self.exp_avg_sq_col = tuple(rows), tuple(cols)
        self.exp_avg_sq, self.exp_avg = tuple(sq), tuple(avg)

    def _slot(self, prefix, i, p, shape, dtype=None):
        t = _C.Tensor(np.zeros(shape, np.float32)).astype(dtype or p.dtype)
        s = Parameter(t, f"{prefix}.{p.name}", requires_grad=False)
        self.insert_param_to_cell(f"{prefix}_{i}", s)
        s.name = f"{prefix}.{p.name}"
        return s

    @staticmethod
    def _rms(x):
        return prim("Sqrt")(prim("ReduceMean", keep_dims=False)(x * x, ()))

    def _update(self, i, p, g, t, lr, beta2):
        """Assigns the new state of parameter i; returns (update, state assignments)."""
        mean = prim("ReduceMean", keep_dims=False)
        u = g * g + self.eps1
        if self._factored[i]:
            r = prim("Assign")(self.exp_avg_sq_row[i], self.exp_avg_sq_row[i] * beta2
                               + mean(u, (-1,)) * (1.0 - beta2))
            c = prim("Assign")(self.exp_avg_sq_col[i], self.exp_avg_sq_col[i] * beta2
                               + mean(u, (-2,)) * (1.0 - beta2))
            r_factor = prim("Rsqrt")(r / prim("ReduceMean", keep_dims=True)(r, (-1,)))
            c_factor = prim("Rsqrt")(c)
            update = prim("ExpandDims")(r_factor, -1) * prim("ExpandDims")(c_factor, -2) * g
            written = (r, c)
        else:
            v = prim("Assign")(self.exp_avg_sq[i], self.exp_avg_sq[i] * beta2 + u * (1.0 - beta2))
            update = prim("Rsqrt")(v) * g
            written = (v,)
        update = update / prim("Maximum")(self._rms(update) / self.clip_threshold, 1.0)
        update = update * lr
        if self.beta1 > 0:
            m = self.exp_avg[i]
            m_new = prim("Cast", dtype=m.dtype)(
                prim("Cast", dtype=p.dtype)(m) * self.beta1 + update * (1.0 - self.beta1))
            m_new = prim("Assign")(m, m_new)
            update = prim("Cast", dtype=p.dtype)(m_new)
            written = written + (m_new,)
        return update, written

    def construct(self, gradients):
        check_grad_count("AdaFactor", gradients, len(self.exp_avg))
        gradients = self.scale_grad(gradients)
        t = prim("Assign")(self.step, self.step + 1.0)
        lrs = self.get_lr()
        beta2 = 1.0 - prim("Pow")(t, -self.decay_rate)
        base = t * 1e-6 if self.warmup_init else 1e-2
        rel = prim("Minimum")(prim("Rsqrt")(t) * 1.0, base)  # the relative step size
        out = ()
        for i, (p, g) in enumerate(zip(self.parameters, gradients)):
            lr = rel if self.relative_step else self.lr_of(lrs, i)
            if self.scale_parameter:
                lr = lr * prim("Maximum")(self._rms(p), self.eps2)
            lr = prim("Cast", dtype=p.dtype)(lr)
            update, written = self._update(i, p, prim("Cast", dtype=p.dtype)(g), t, lr,
                                           prim("Cast", dtype=p.dtype)(beta2))
            wd = self._decay[i]
            new = p - update - p * (lr * wd) if wd > 0 else p - update
            out = out + (depend(prim("Assign")(p, new), written),)
        return out

