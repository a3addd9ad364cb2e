"""HopSkipJumpAttack (Chen, Jordan and Wainwright 2020), MindArmour's ``HopSkipJumpAttack``:
a decision-based attack that walks along the decision boundary using only predicted labels:
binary search to the boundary, a Monte-Carlo estimate of the boundary's normal, a
geometric (or grid) step size search, repeat."""
import numpy as np

from mycel.armour.adv_robustness._util import (check_box, check_inputs, check_inputs_labels,
                                               check_positive, label_indices)
from mycel.armour.adv_robustness.attacks.attack import Attack
from mycel.armour.adv_robustness.attacks.black.black_model import QueryCounter, attack_each
from mycel.nn.layer._check import bool_, positive_int


class HopSkipJumpAttack(Attack):
    """HopSkipJumpAttack(model, init_num_evals=100, max_num_evals=1000,
    stepsize_search='geometric_progression', num_iterations=20, gamma=1.0, constraint='l2',
    batch_size=32, clip_min=0.0, clip_max=1.0, sparse=True).

    ``generate(inputs, labels)`` returns (is_adversarial [N] bool, adversarial examples,
    query counts [N]). Untargeted by default (labels: the true labels); after
    ``set_target_images(images)`` it is targeted (labels: the targets, images: one starting
    point of the target class per input). The untargeted start is uniform noise in the box
    (up to 100 draws) that is misclassified. Each iteration: a binary search between the
    input and the current point to within theta of the boundary (theta = gamma / d^1.5 for
    l2, gamma / d^2 for linf, d the input size); the boundary normal estimated from
    init_num_evals * sqrt(t) (at most max_num_evals) random unit directions at radius
    delta (sqrt(d) * theta * distance for l2, d * theta * distance for linf; 0.1 * range at
    the first iteration), with their mean decision subtracted as a baseline; a step of
    distance / sqrt(t) along it (its sign for linf), halved until adversarial
    ('geometric_progression'), or the best of 20 sizes log-spaced from 1e-4 to 1 times the
    distance ('grid_search'). Queries are batches of at
    most batch_size samples."""

    def __init__(self, model, init_num_evals=100, max_num_evals=1000,
                 stepsize_search="geometric_progression", num_iterations=20, gamma=1.0,
                 constraint="l2", batch_size=32, clip_min=0.0, clip_max=1.0, sparse=True):
        who = "HopSkipJumpAttack"
        self._model = QueryCounter(who, model)
        self._init_num_evals = positive_int(init_num_evals, "init_num_evals", who)
        self._max_num_evals = positive_int(max_num_evals, "max_num_evals", who)
        if self._init_num_evals > self._max_num_evals:
            raise ValueError(f"For '{who}', 'init_num_evals' must be <= 'max_num_evals', but "
                             f"got {init_num_evals} and {max_num_evals}.")
        if stepsize_search not in ("geometric_progression", "grid_search"):
            raise ValueError(f"For '{who}', 'stepsize_search' must be "
                             f"'geometric_progression' or 'grid_search', but got "
                             f"{stepsize_search!r}.")
        self._stepsize_search = stepsize_search
        self._num_iterations = positive_int(num_iterations, "num_iterations", who)
        self._gamma = check_positive(who, "gamma", gamma)
        if constraint not in ("l2", "linf"):
            raise ValueError(f"For '{who}', 'constraint' must be 'l2' or 'linf', but got "
                             f"{constraint!r}.")
        self._constraint = constraint
        self._batch_size = positive_int(batch_size, "batch_size", who)
        self._clip = check_box(who, clip_min, clip_max, ("clip_min", "clip_max"))
        self._sparse = bool_(sparse, "sparse", who)
        self._target_images = None

    def set_target_images(self, target_images):
        """Makes the attack targeted: target_images [N, ...] start the search of each input
        (each classified as that input's target label)."""
        self._target_images = check_inputs("HopSkipJumpAttack", target_images,
                                           "target_images")

    def _decisions(self, batch, label):
        """1 for the adversarial samples of the batch, 0 for the others (batched queries)."""
        out = [self._model.labels(batch[i:i + self._batch_size])
               for i in range(0, len(batch), self._batch_size)]
        pred = np.concatenate(out)
        hit = pred == label if self._target_images is not None else pred != label
        return hit.astype(np.float64)

    def _dist(self, a, b):
        d = (a - b).ravel()
        return float(np.sqrt(d @ d)) if self._constraint == "l2" else float(np.abs(d).max())

    def _blend(self, x, adv, alpha):
        """Points between x (alpha 0) and adv (alpha 1): a line for l2, a box shrink for
        linf."""
        alpha = np.asarray(alpha).reshape((-1,) + (1,) * x.ndim)
        if self._constraint == "l2":
            return (1 - alpha) * x + alpha * adv
        return np.clip(adv, x - alpha * np.abs(adv - x).max(), x + alpha * np.abs(adv - x).max())

    def _binary_search(self, x, adv, label, theta):
        """The point between x and adv closest to x that is still adversarial, to within
        theta (in blend units)."""
        lo, hi = 0.0, 1.0
        while hi - lo > theta:
            mid = (lo + hi) / 2
            if self._decisions(self._blend(x, adv, mid).astype(x.dtype), label)[0]:
                hi = mid
            else:
                lo = mid
        return self._blend(x, adv, hi)[0].astype(x.dtype)

    def _normal(self, point, label, delta, num_evals, rng):
        """Monte-Carlo estimate of the boundary normal at point, unit l2 norm."""
        shape = (num_evals,) + point.shape
        u = rng.standard_normal(shape) if self._constraint == "l2" else rng.uniform(-1, 1, shape)
        u /= np.sqrt((u.reshape(num_evals, -1) ** 2).sum(axis=1)).reshape(
            (-1,) + (1,) * point.ndim)
        probes = np.clip(point + delta * u, *self._clip)
        u = (probes - point) / delta
        phi = 2 * self._decisions(probes.astype(point.dtype), label) - 1
        if abs(phi.mean()) < 1.0:
            phi = phi - phi.mean()
        g = (phi.reshape((-1,) + (1,) * point.ndim) * u).mean(axis=0)
        if self._constraint == "linf":
            g = np.sign(g)
        return g / max(np.sqrt((g ** 2).sum()), 1e-12)

    def _step(self, point, g, label, dist, t):
        if self._stepsize_search == "geometric_progression":
            eps = dist / np.sqrt(t)
            while eps > 1e-12:
                cand = np.clip(point + eps * g, *self._clip).astype(point.dtype)
                if self._decisions(cand[None], label)[0]:
                    return cand
                eps /= 2
            return point
        sizes = dist * np.logspace(-4, 0, 20)
        cands = np.clip(point[None] + sizes.reshape((-1,) + (1,) * point.ndim) * g[None],
                        *self._clip).astype(point.dtype)
        hit = np.flatnonzero(self._decisions(cands, label))
        return cands[hit[-1]] if hit.size else point

    def _start(self, x, label, i, rng):
        if self._target_images is not None:
            start = self._target_images[i].astype(x.dtype)
            return start if self._decisions(start[None], label)[0] else None
        for _ in range(100):
            noise = rng.uniform(*self._clip, size=x.shape).astype(x.dtype)
            if self._decisions(noise[None], label)[0]:
                return noise
        return None

    def _attack_one(self, i, x, label, rng):
        adv = self._start(x, label, i, rng)
        if adv is None:
            return False, x
        d = x.size
        theta = self._gamma / (d ** 1.5 if self._constraint == "l2" else d ** 2)
        adv = self._binary_search(x, adv, label, theta)
        dist = self._dist(adv, x)
        width = self._clip[1] - self._clip[0]
        for t in range(1, self._num_iterations + 1):
            scale = np.sqrt(d) if self._constraint == "l2" else d
            delta = 0.1 * width if t == 1 else scale * theta * dist
            num_evals = int(min(self._init_num_evals * np.sqrt(t), self._max_num_evals))
            g = self._normal(adv, label, max(delta, 1e-12), num_evals, rng)
            adv = self._binary_search(x, self._step(adv, g, label, dist, t), label, theta)
            dist = self._dist(adv, x)
        return True, adv

    def generate(self, inputs, labels):
        """(is_adversarial, adversarial examples, query counts) for inputs [N, ...]."""
        inputs, labels = check_inputs_labels("HopSkipJumpAttack", inputs, labels)
        y = label_indices("HopSkipJumpAttack", labels, self._sparse)
        if self._target_images is not None and len(self._target_images) != len(inputs):
            raise ValueError(f"For 'HopSkipJumpAttack', 'target_images' must have one image "
                             f"per input, but got {len(self._target_images)} for "
                             f"{len(inputs)} inputs.")
        return attack_each(self._model, inputs, y, self._attack_one)
