"""The particle swarm black-box attack (Mosli et al. 2019, following Kennedy and Eberhart's
PSO), MindArmour's ``PSOAttack``: particles (perturbed copies of the input) move towards
their own and the swarm's best positions, scored only by the model's predictions; a found
adversarial example is then reduced."""
import numpy as np

from mycel.armour.adv_robustness._util import (check_bounds, check_inputs_labels, check_positive,
                                               check_rate, label_indices)
from mycel.armour.adv_robustness.attacks.attack import Attack
from mycel.armour.adv_robustness.attacks.black.black_model import QueryCounter, attack_each
from mycel.armour.adv_robustness.attacks.black.genetic_attack import (check_classification,
                                                                     fitness_margin)
from mycel.nn.layer._check import bool_, positive_int


class PSOAttack(Attack):
    """PSOAttack(model, model_type='classification', step_size=0.5, per_bounds=0.6, c1=2.0,
    c2=2.0, c=2.0, pop_size=6, t_max=1000, pm=0.5, bounds=None, targeted=False,
    reduction_iters=3, sparse=True).

    ``generate(inputs, labels)`` returns (is_adversarial [N] bool, adversarial examples,
    query counts [N]); labels are the true labels, or the targets with targeted. Per sample,
    pop_size particles start at uniform perturbations within +-per_bounds of the range (the
    range is max - min of the sample without bounds) and zero velocity; fitness is the
    log-odds margin of the label minus c * the l2 norm of the perturbation per input
    element's root (``c * ||d||_2 / sqrt(size)``). Each of t_max steps sets
    ``v = w v + c1 r1 (personal best - x) + c2 r2 (global best - x)`` with the inertia w
    falling from 0.9 to 0.4, moves ``x += step_size * v``, mutates each particle with
    probability pm by uniform noise in +-per_bounds / 10 of the range, and clips the
    perturbation to per_bounds and the point to bounds. Once the swarm's best is adversarial,
    reduction_iters rounds try to halve the perturbation, keeping each halving that stays
    adversarial. A failed sample returns the swarm's best."""

    def __init__(self, model, model_type="classification", step_size=0.5, per_bounds=0.6,
                 c1=2.0, c2=2.0, c=2.0, pop_size=6, t_max=1000, pm=0.5, bounds=None,
                 targeted=False, reduction_iters=3, sparse=True):
        who = "PSOAttack"
        self._model = QueryCounter(who, model)
        check_classification(who, model_type, 0.3)
        self._step_size = check_positive(who, "step_size", step_size)
        self._per_bounds = check_positive(who, "per_bounds", per_bounds)
        self._c1 = check_positive(who, "c1", c1, allow_zero=True)
        self._c2 = check_positive(who, "c2", c2, allow_zero=True)
        self._c = check_positive(who, "c", c, allow_zero=True)
        self._pop_size = positive_int(pop_size, "pop_size", who)
        self._t_max = positive_int(t_max, "t_max", who)
        self._pm = check_rate(who, "pm", pm)
        self._bounds = check_bounds(who, bounds)
        self._targeted = bool_(targeted, "targeted", who)
        self._reduction_iters = positive_int(reduction_iters, "reduction_iters", who)
        self._sparse = bool_(sparse, "sparse", who)

    def _score(self, x, cand, label):
        """(fitness, adversarial?) of each candidate."""
        probs = self._model.probs(cand)
        pred = probs.argmax(axis=1)
        hit = pred == label if self._targeted else pred != label
        d = (cand - x).reshape(len(cand), -1)
        fit = (fitness_margin(probs, label, self._targeted)
               - self._c * np.sqrt((d ** 2).sum(axis=1) / d.shape[1]))
        return fit, hit

    def _reduce(self, x, adv, label, lo, hi):
        for _ in range(self._reduction_iters):
            cand = np.clip(x + (adv - x) / 2, lo, hi).astype(x.dtype)
            if not self._score(x, cand[None], label)[1][0]:
                break
            adv = cand
        return adv

    def _attack_one(self, _, x, label, rng):
        if self._bounds is not None:
            lo, hi = self._bounds
        else:
            lo, hi = -np.inf, np.inf
        width = (hi - lo) if self._bounds is not None else float(x.max() - x.min()) or 1.0
        r = self._per_bounds * width
        pos = np.clip(x + rng.uniform(-r, r, (self._pop_size,) + x.shape), lo, hi)
        pos = pos.astype(x.dtype)
        vel = np.zeros_like(pos)
        fit, hit = self._score(x, pos, label)
        pbest, pbest_fit = pos.copy(), fit.copy()
        g = int(fit.argmax())
        gbest, gbest_fit, ghit = pos[g].copy(), fit[g], hit[g]
        for t in range(self._t_max):
            if ghit:
                return True, self._reduce(x, gbest, label, lo, hi)
            inertia = 0.9 - 0.5 * t / self._t_max
            r1, r2 = rng.random(pos.shape), rng.random(pos.shape)
            vel = inertia * vel + self._c1 * r1 * (pbest - pos) + self._c2 * r2 * (gbest - pos)
            pos = pos + self._step_size * vel
            mutate = (rng.random(self._pop_size) < self._pm).reshape((-1,) + (1,) * x.ndim)
            pos = pos + mutate * rng.uniform(-r / 10, r / 10, pos.shape)
            pos = np.clip(x + np.clip(pos - x, -r, r), lo, hi).astype(x.dtype)
            fit, hit = self._score(x, pos, label)
            better = fit > pbest_fit
            pbest[better], pbest_fit[better] = pos[better], fit[better]
            # an adversarial particle becomes the swarm's best even at a lower fitness
            cand = np.flatnonzero(hit) if hit.any() else np.array([int(fit.argmax())])
            g = cand[fit[cand].argmax()]
            if hit[g] and not ghit or fit[g] > gbest_fit and (hit[g] or not ghit):
                gbest, gbest_fit, ghit = pos[g].copy(), fit[g], hit[g]
        if ghit:
            return True, self._reduce(x, gbest, label, lo, hi)
        return False, gbest

    def generate(self, inputs, labels):
        """(is_adversarial, adversarial examples, query counts) for inputs [N, ...]."""
        inputs, labels = check_inputs_labels("PSOAttack", inputs, labels)
        y = label_indices("PSOAttack", labels, self._sparse)
        return attack_each(self._model, inputs, y, self._attack_one)
