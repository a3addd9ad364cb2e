"""Carlini and Wagner's L2 attack (2017), MindArmour's ``CarliniWagnerL2Attack``: Adam on
the tanh-space variable w (x = tanh(w) * half + mid stays in the box) minimising
``||x - x0||^2 + c * max(z_y - max_{j != y} z_j + confidence, 0)`` (untargeted; targeted:
``max(max_{j != t} z_j - z_t + confidence, 0)``), with a binary search over c per sample.
The loss and its gradient w.r.t. w are one mycel cell (value_and_grad, compiled once)."""
import numpy as np

from mycel.armour.adv_robustness._util import (check_box, check_inputs_labels, check_network,
                                               check_positive, check_rate, label_indices, tensor)
from mycel.armour.adv_robustness.attacks.attack import Attack
from mycel.nn.cell import Cell
from mycel.nn.layer._check import bool_, positive_int
from mycel.ops.composite import value_and_grad
from mycel.ops.function import math_func as _m

_BIG = 1e10


class _CWLoss(Cell):
    """The C&W objective summed over the batch, with the per-sample l2 distance and the
    logits as auxiliary outputs (not differentiated)."""

    def __init__(self, network, mid, half, confidence, targeted):
        super().__init__(auto_prefix=False)
        self._network = network
        self._mid, self._half = mid, half
        self._confidence = confidence
        self._sign = -1.0 if targeted else 1.0

    def construct(self, w, x0, onehot, const):
        x = _m.tanh(w) * self._half + self._mid
        diff = x - x0
        l2 = (diff * diff).reshape(x.shape[0], -1).sum(axis=1)
        logits = self._network(x)
        real = (logits * onehot).sum(axis=1)
        other = (logits - onehot * _BIG).max(axis=1)
        margin = self._sign * (real - other) + self._confidence
        adv_loss = _m.maximum(margin, 0.0)
        return (l2 + const * adv_loss).sum(), l2, logits


class CarliniWagnerL2Attack(Attack):
    """CarliniWagnerL2Attack(network, num_classes, box_min=0.0, box_max=1.0,
    bin_search_steps=5, max_iterations=1000, confidence=0, learning_rate=5e-3,
    initial_const=1e-2, abort_early_check_ratio=5e-2, targeted=False, fast=True,
    abort_early=True, sparse=True).

    generate(inputs, labels): labels are the true labels (untargeted) or the targets
    (targeted). For each of bin_search_steps rounds, w starts at arctanh of the input and Adam
    (beta1 0.9, beta2 0.999, eps 1e-8) runs max_iterations steps; every
    max_iterations * abort_early_check_ratio steps the round stops early (abort_early) when
    the loss did not fall below 0.9999 of its previous check. The smallest-l2 successful point
    of each sample is kept (the input itself where none succeeded); c is halved towards the
    last success or, before any, multiplied by 10. ``fast`` is accepted for MindArmour's
    signature: the gradient is always the exact one of the objective."""

    def __init__(self, network, num_classes, box_min=0.0, box_max=1.0, bin_search_steps=5,
                 max_iterations=1000, confidence=0, learning_rate=5e-3, initial_const=1e-2,
                 abort_early_check_ratio=5e-2, targeted=False, fast=True, abort_early=True,
                 sparse=True):
        who = "CarliniWagnerL2Attack"
        self._network = check_network(who, network)
        self._num_classes = positive_int(num_classes, "num_classes", who)
        box_min, box_max = check_box(who, box_min, box_max)
        self._bin_search_steps = positive_int(bin_search_steps, "bin_search_steps", who)
        self._max_iterations = positive_int(max_iterations, "max_iterations", who)
        self._confidence = check_positive(who, "confidence", confidence, allow_zero=True)
        self._lr = check_positive(who, "learning_rate", learning_rate)
        self._initial_const = check_positive(who, "initial_const", initial_const)
        self._check_ratio = check_rate(who, "abort_early_check_ratio", abort_early_check_ratio)
        self._targeted = bool_(targeted, "targeted", who)
        bool_(fast, "fast", who)
        self._abort_early = bool_(abort_early, "abort_early", who)
        self._sparse = bool_(sparse, "sparse", who)
        self._mid = (box_max + box_min) / 2.0
        self._half = (box_max - box_min) / 2.0
        self._loss_grad = value_and_grad(
            _CWLoss(network, self._mid, self._half, float(confidence), targeted),
            grad_position=0, has_aux=True)

    def _succeeded(self, logits, y):
        z = logits.copy()
        rows = np.arange(len(y))
        if self._targeted:
            z[rows, y] -= self._confidence
            return z.argmax(axis=1) == y
        z[rows, y] += self._confidence
        return z.argmax(axis=1) != y

    def _round(self, inputs, w0, onehot, const, y, best):
        """One round of Adam at constants const; updates best (l2, adv) in place and returns
        which samples succeeded in it."""
        best_l2, best_adv = best
        w = w0.copy()
        m, v = np.zeros_like(w), np.zeros_like(w)
        x0_t, onehot_t, const_t = tensor(inputs), tensor(onehot), tensor(const)
        success = np.zeros(len(y), bool)
        check_every = max(int(self._max_iterations * self._check_ratio), 1)
        prev = np.inf
        for it in range(1, self._max_iterations + 1):
            (loss, l2, logits), g = self._loss_grad(tensor(w), x0_t, onehot_t, const_t)
            l2, logits, g = l2.asnumpy(), logits.asnumpy(), g.asnumpy()
            # the point w evaluated this step: record it before stepping on
            ok = self._succeeded(logits, y)
            better = ok & (l2 < best_l2)
            if better.any():
                best_l2[better] = l2[better]
                best_adv[better] = np.tanh(w[better]) * self._half + self._mid
            success |= ok
            m = 0.9 * m + 0.1 * g
            v = 0.999 * v + 0.001 * g * g
            m_hat, v_hat = m / (1 - 0.9 ** it), v / (1 - 0.999 ** it)
            w = (w - self._lr * m_hat / (np.sqrt(v_hat) + 1e-8)).astype(w.dtype)
            if self._abort_early and it % check_every == 0:
                loss = float(loss.asnumpy())
                if loss > prev * 0.9999:
                    break
                prev = loss
        return success

    def generate(self, inputs, labels):
        """Adversarial examples for inputs [N, ...] (inside [box_min, box_max])."""
        inputs, labels = check_inputs_labels("CarliniWagnerL2Attack", inputs, labels)
        y = label_indices("CarliniWagnerL2Attack", labels, self._sparse, self._num_classes)
        n = len(y)
        onehot = np.eye(self._num_classes, dtype=inputs.dtype)[y]
        scaled = np.clip((inputs - self._mid) / self._half, -1, 1) * 0.999999
        w0 = np.arctanh(scaled).astype(inputs.dtype)
        const = np.full(n, self._initial_const, inputs.dtype)
        lower, upper = np.zeros(n), np.full(n, _BIG)
        best = (np.full(n, np.inf), inputs.copy())
        for _ in range(self._bin_search_steps):
            success = self._round(inputs, w0, onehot, const, y, best)
            upper = np.where(success, np.minimum(upper, const), upper)
            lower = np.where(success, lower, np.maximum(lower, const))
            const = np.where(upper < _BIG, (lower + upper) / 2, const * 10).astype(const.dtype)
        return best[1]
