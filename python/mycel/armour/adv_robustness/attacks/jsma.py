"""The Jacobian-based Saliency Map Attack (Papernot et al. 2016), MindArmour's
``JSMAAttack``: a targeted L0 attack that changes two features at a time, the pair whose
joint effect raises the target logit most while lowering the others."""
import numpy as np

from mycel.armour.adv_robustness._util import (GradWrap, check_box, check_inputs_labels,
                                               check_network, check_positive, jacobian,
                                               label_indices, predict)
from mycel.armour.adv_robustness.attacks.attack import Attack
from mycel.nn.layer._check import bool_, positive_int


class JSMAAttack(Attack):
    """JSMAAttack(network, num_classes, box_min=0.0, box_max=1.0, theta=1.0,
    max_iteration=1000, max_count=3, increase=True, sparse=True): targeted; ``generate``'s
    labels are the targets.

    Each iteration computes the Jacobian of the logits (num_classes vector-Jacobian products
    through one compiled cell) and, per sample still not classified as its target, scores
    every pair (p, q) of features in the search domain by alpha = dZ_t/dx_p + dZ_t/dx_q and
    beta = sum over j != t of dZ_j/dx_p + dZ_j/dx_q: with increase, a pair qualifies when
    alpha > 0 and beta < 0 and scores alpha * |beta| (decrease: alpha < 0, beta > 0). Both
    features of the best pair move by theta * (box_max - box_min), clipped to the box. The
    domain is the features that can still move that way and were changed fewer than
    max_count times; a sample stops at its target, with an empty domain or no qualifying
    pair, or after max_iteration iterations."""

    def __init__(self, network, num_classes, box_min=0.0, box_max=1.0, theta=1.0,
                 max_iteration=1000, max_count=3, increase=True, sparse=True):
        who = "JSMAAttack"
        self._network = check_network(who, network)
        self._num_classes = positive_int(num_classes, "num_classes", who)
        self._box = check_box(who, box_min, box_max)
        self._theta = check_positive(who, "theta", theta)
        self._max_iteration = positive_int(max_iteration, "max_iteration", who)
        self._max_count = positive_int(max_count, "max_count", who)
        self._increase = bool_(increase, "increase", who)
        self._sparse = bool_(sparse, "sparse", who)
        self._grad = GradWrap(network)

    def _best_pair(self, alpha, beta, domain):
        """The best qualifying pair (p, q) of one sample, or None."""
        idx = np.flatnonzero(domain)
        if idx.size < 2:
            return None
        a = alpha[idx][:, None] + alpha[idx][None, :]
        b = beta[idx][:, None] + beta[idx][None, :]
        ok = (a > 0) & (b < 0) if self._increase else (a < 0) & (b > 0)
        np.fill_diagonal(ok, False)
        if not ok.any():
            return None
        score = np.where(ok, np.abs(a * b), -1.0)
        p, q = np.unravel_index(score.argmax(), score.shape)
        return idx[p], idx[q]

    def generate(self, inputs, labels):
        """Adversarial examples for inputs [N, ...] and target labels."""
        inputs, labels = check_inputs_labels("JSMAAttack", inputs, labels)
        t = label_indices("JSMAAttack", labels, self._sparse, self._num_classes)
        n = len(t)
        lo, hi = self._box
        adv = inputs.reshape(n, -1).copy()
        counts = np.zeros(adv.shape, np.int64)
        active = np.ones(n, bool)
        step = self._theta * (hi - lo) * (1 if self._increase else -1)
        for _ in range(self._max_iteration):
            x = adv.reshape(inputs.shape)
            active &= predict(self._network, x).argmax(axis=1) != t
            if not active.any():
                break
            jac = jacobian(self._grad, x, self._num_classes).reshape(self._num_classes, n, -1)
            total = jac.sum(axis=0)
            for i in np.flatnonzero(active):
                alpha = jac[t[i], i]
                movable = adv[i] < hi if self._increase else adv[i] > lo
                pair = self._best_pair(alpha, total[i] - alpha,
                                       movable & (counts[i] < self._max_count))
                if pair is None:
                    active[i] = False
                    continue
                for f in pair:
                    adv[i, f] = np.clip(adv[i, f] + step, lo, hi)
                    counts[i, f] += 1
        return adv.reshape(inputs.shape)
