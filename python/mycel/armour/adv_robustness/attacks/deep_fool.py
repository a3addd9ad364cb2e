"""DeepFool (Moosavi-Dezfooli et al. 2016), MindArmour's ``DeepFool``: the smallest step to
the nearest linearised decision boundary, repeated until the prediction changes."""
import numpy as np

from mycel.armour.adv_robustness._util import (GradWrap, check_bounds, check_inputs_labels,
                                               check_network, check_positive, check_type, jacobian,
                                               label_indices, predict)
from mycel.armour.adv_robustness.attacks.attack import Attack
from mycel.nn.layer._check import bool_, positive_int

_NORM_LEVELS = {2: 2, "2": 2, "l2": 2, np.inf: np.inf, "inf": np.inf, "linf": np.inf}


class DeepFool(Attack):
    """DeepFool(network, num_classes, model_type='classification', reserve_ratio=0.3,
    max_iters=50, overshoot=0.02, norm_level=2, bounds=None, sparse=True): untargeted.

    Each iteration linearises the network at the current point: for every class k other
    than the label y, w_k = grad(logit_k - logit_y) and f_k = logit_k - logit_y; it takes the
    class with the smallest |f_k| / ||w_k||_q (q the dual norm: 2 for l2, 1 for l-inf) and
    adds the step that reaches its boundary, ``(|f_k| + 1e-4) / ||w_k||_2^2 * w_k`` (l2) or
    ``(|f_k| + 1e-4) / ||w_k||_1 * sign(w_k)`` (l-inf), to the sample's total r. The point is
    ``x + (1 + overshoot) * r``, clipped to bounds; a sample stops once it is misclassified.
    Only 'classification' models are supported (MindArmour's detection mode is not);
    reserve_ratio belongs to that mode and is only checked."""

    def __init__(self, network, num_classes, model_type="classification", reserve_ratio=0.3,
                 max_iters=50, overshoot=0.02, norm_level=2, bounds=None, sparse=True):
        who = "DeepFool"
        self._network = check_network(who, network)
        self._num_classes = positive_int(num_classes, "num_classes", who)
        check_type(who, "model_type", model_type, str)
        if model_type != "classification":
            raise ValueError(f"For '{who}', only model_type='classification' is supported, "
                             f"but got {model_type!r}.")
        check_positive(who, "reserve_ratio", reserve_ratio, allow_zero=True)
        self._max_iters = positive_int(max_iters, "max_iters", who)
        self._overshoot = check_positive(who, "overshoot", overshoot, allow_zero=True)
        key = norm_level.lower() if isinstance(norm_level, str) else norm_level
        if key not in _NORM_LEVELS:
            raise ValueError(f"For '{who}', 'norm_level' must be 2 or np.inf, but got "
                             f"{norm_level!r}.")
        self._norm_level = _NORM_LEVELS[key]
        self._bounds = check_bounds(who, bounds)
        self._sparse = bool_(sparse, "sparse", who)
        self._grad = GradWrap(network)

    def _point(self, inputs, r_tot):
        adv = inputs + (1 + self._overshoot) * r_tot
        if self._bounds is not None:
            adv = np.clip(adv, *self._bounds)
        return adv.astype(inputs.dtype)

    def _step(self, logits, jac, labels):
        """The step to the nearest linearised boundary for every sample, [N, ...]."""
        n = labels.shape[0]
        rows = np.arange(n)
        w = jac - jac[labels, rows][None]                       # [K, N, ...]
        f = (logits - logits[rows, labels][:, None]).T          # [K, N]
        w_flat = w.reshape(self._num_classes, n, -1).astype(np.float64)
        dual = (np.abs(w_flat).sum(axis=2) if self._norm_level == np.inf
                else np.sqrt((w_flat ** 2).sum(axis=2)))
        dist = np.abs(f) / (dual + 1e-12)
        dist[labels, rows] = np.inf
        k = dist.argmin(axis=0)
        wk, fk = w_flat[k, rows], np.abs(f[k, rows]) + 1e-4
        if self._norm_level == np.inf:
            step = (fk / (np.abs(wk).sum(axis=1) + 1e-12))[:, None] * np.sign(wk)
        else:
            step = (fk / ((wk ** 2).sum(axis=1) + 1e-12))[:, None] * wk
        return step.reshape(jac.shape[1:])

    def generate(self, inputs, labels):
        """Adversarial examples for inputs [N, ...] and their true labels (indices when
        sparse, one-hot rows otherwise)."""
        inputs, labels = check_inputs_labels("DeepFool", inputs, labels)
        y = label_indices("DeepFool", labels, self._sparse, self._num_classes)
        r_tot = np.zeros(inputs.shape, np.float64)
        adv = inputs
        for _ in range(self._max_iters):
            logits = predict(self._network, adv)
            active = logits.argmax(axis=1) == y
            if not active.any():
                break
            step = self._step(logits, jacobian(self._grad, adv, self._num_classes), y)
            r_tot[active] += step[active]
            adv = self._point(inputs, r_tot)
        return adv
