"""The genetic black-box attack (Alzantot et al. 2019, GenAttack), MindArmour's
``GeneticAttack``: a population of perturbations evolved by fitness-proportional selection,
crossover and mutation, using only the model's predictions."""
import numpy as np

from mycel.armour.adv_robustness._util import (check_bounds, check_inputs_labels, check_positive,
                                               check_rate, check_type, label_indices)
from mycel.armour.adv_robustness.attacks.attack import Attack
from mycel.armour.adv_robustness.attacks.black.black_model import QueryCounter, attack_each
from mycel.nn.layer._check import bool_, positive_int


def check_classification(who, model_type, reserve_ratio):
    """Only classification models; reserve_ratio (detection models') is only checked."""
    check_type(who, "model_type", model_type, str)
    if model_type != "classification":
        raise ValueError(f"For '{who}', only model_type='classification' is supported, but "
                         f"got {model_type!r}.")
    check_rate(who, "reserve_ratio", reserve_ratio)


def fitness_margin(probs, label, targeted):
    """log p_label - log(1 - p_label) (targeted) or its negation: how far each candidate is
    into (targeted) or out of (untargeted) the label's region."""
    p = np.clip(probs[:, label], 1e-30, 1.0)
    rest = np.clip(1.0 - probs[:, label], 1e-30, 1.0)
    margin = np.log(p) - np.log(rest)
    return margin if targeted else -margin


class GeneticAttack(Attack):
    """GeneticAttack(model, model_type='classification', targeted=True, reserve_ratio=0.3,
    sparse=True, pop_size=6, mutation_rate=0.005, per_bounds=0.15, max_steps=1000,
    step_size=0.20, temp=0.3, bounds=(0, 1.0), adaptive=False, c=0.1).

    ``generate(inputs, labels)`` returns (is_adversarial [N] bool, adversarial examples,
    query counts [N]); labels are the targets (targeted) or the true labels. Per sample, a
    population of pop_size perturbations, uniform in +-per_bounds of the data range, is
    evaluated (one query per member); fitness is the log-odds margin of the label minus
    c * the l2 norm of the perturbation. The fittest member survives; the others are children
    of two parents drawn with probabilities softmax(fitness / temp), each element taken from
    the first parent with probability p1 / (p1 + p2), then mutated with probability
    mutation_rate by a uniform step in +-step_size of the range, and clipped to per_bounds.
    With adaptive, GenAttack's schedule: after k plateaus (20 steps each without a better
    fitness) the mutation rate is max(mutation_rate, 0.5 * 0.9^k) and the step
    max(step_size / 10, step_size * 0.9^k). The attack stops at the
    first adversarial member; a failed sample returns its fittest member."""

    def __init__(self, model, model_type="classification", targeted=True, reserve_ratio=0.3,
                 sparse=True, pop_size=6, mutation_rate=0.005, per_bounds=0.15,
                 max_steps=1000, step_size=0.20, temp=0.3, bounds=(0, 1.0), adaptive=False,
                 c=0.1):
        who = "GeneticAttack"
        self._model = QueryCounter(who, model)
        check_classification(who, model_type, reserve_ratio)
        self._targeted = bool_(targeted, "targeted", who)
        self._sparse = bool_(sparse, "sparse", who)
        self._pop_size = positive_int(pop_size, "pop_size", who)
        if self._pop_size < 2:
            raise ValueError(f"For '{who}', 'pop_size' must be >= 2, but got {pop_size}.")
        self._mutation_rate = check_rate(who, "mutation_rate", mutation_rate)
        self._per_bounds = check_positive(who, "per_bounds", per_bounds)
        self._max_steps = positive_int(max_steps, "max_steps", who)
        self._step_size = check_positive(who, "step_size", step_size)
        self._temp = check_positive(who, "temp", temp)
        self._bounds = check_bounds(who, bounds)
        self._adaptive = bool_(adaptive, "adaptive", who)
        self._c = check_positive(who, "c", c, allow_zero=True)

    def _children(self, pop, fit, rate, step, width, rng):
        """pop_size - 1 children of fitness-proportional parents, mutated."""
        sel = np.exp((fit - fit.max()) / self._temp)
        sel /= sel.sum()
        k = self._pop_size - 1
        p1 = rng.choice(self._pop_size, size=k, p=sel)
        p2 = rng.choice(self._pop_size, size=k, p=sel)
        share = (sel[p1] / (sel[p1] + sel[p2])).reshape((k,) + (1,) * (pop.ndim - 1))
        kids = np.where(rng.random(pop[p1].shape) < share, pop[p1], pop[p2])
        mutate = rng.random(kids.shape) < rate
        kids = kids + mutate * rng.uniform(-step, step, kids.shape) * width
        r = self._per_bounds * width
        return np.clip(kids, -r, r)

    def _attack_one(self, _, x, label, rng):
        lo, hi = self._bounds if self._bounds is not None else (-np.inf, np.inf)
        width = hi - lo if self._bounds is not None else 1.0
        r = self._per_bounds * width
        pop = rng.uniform(-r, r, (self._pop_size,) + x.shape).astype(x.dtype)
        rate, step, best, plateau, plateaus = self._mutation_rate, self._step_size, -np.inf, 0, 0
        for _ in range(self._max_steps):
            cand = np.clip(x + pop, lo, hi).astype(x.dtype)
            probs = self._model.probs(cand)
            pred = probs.argmax(axis=1)
            hit = pred == label if self._targeted else pred != label
            norms = np.sqrt(((cand - x).reshape(self._pop_size, -1) ** 2).sum(axis=1))
            if hit.any():
                return True, cand[np.flatnonzero(hit)[norms[hit].argmin()]]
            fit = fitness_margin(probs, label, self._targeted) - self._c * norms
            elite = fit.argmax()
            if self._adaptive:
                plateau = 0 if fit[elite] > best + 1e-6 else plateau + 1
                if plateau >= 20:
                    plateaus, plateau = plateaus + 1, 0
                rate = max(self._mutation_rate, 0.5 * 0.9 ** plateaus)
                step = max(self._step_size / 10, self._step_size * 0.9 ** plateaus)
            best = max(best, fit[elite])
            pop = np.concatenate([pop[elite:elite + 1],
                                  self._children(pop, fit, rate, step, width, rng)])
            pop = pop.astype(x.dtype)
        cand = np.clip(x + pop[0], lo, hi).astype(x.dtype)
        return False, cand

    def generate(self, inputs, labels):
        """(is_adversarial, adversarial examples, query counts) for inputs [N, ...]."""
        inputs, labels = check_inputs_labels("GeneticAttack", inputs, labels)
        y = label_indices("GeneticAttack", labels, self._sparse)
        return attack_each(self._model, inputs, y, self._attack_one)
