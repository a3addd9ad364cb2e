"""Noise and clipping mechanisms of DP training (MindArmour's ``NoiseMechanismsFactory``,
``NoiseGaussianRandom``, ``NoiseAdaGaussianRandom``, ``ClipMechanismsFactory``,
``AdaClippingWithGaussianRandom``), as Cells that run in both modes.

The noise is drawn from mycel's global generator (``mycel.set_seed`` makes a run
reproducible): an op-level seed in mycel repeats the same draw at every call, which would add
the same noise at every step and void the guarantee, so only ``seed=0`` is accepted.
"""
import math

import numpy as np

from mycel._mycel import Tensor
from mycel.armour.privacy.diff_privacy import _accounting as acc
from mycel.common.parameter import Parameter
from mycel.nn.cell import Cell
from mycel.ops.function import array_func as _array
from mycel.ops.function import math_func as _math
from mycel.ops.function import random_func as _random


def check_number(value, name, who, low=0.0, low_open=True, high=None):
    """value as a float, or a ValueError naming `who` unless it is a finite number above low
    (or at least low) and below high."""
    ok = not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)
    ok = ok and (value > low if low_open else value >= low) and (high is None or value < high)
    if not ok:
        rng = f"{'>' if low_open else '>='} {low}" + (f" and < {high}" if high is not None else "")
        raise ValueError(f"For '{who}', the '{name}' must be a finite number {rng}, but got "
                         f"{value!r}.")
    return float(value)


def _check_seed(seed, who):
    if seed != 0:
        raise ValueError(f"For '{who}', only seed=0 is supported: the noise comes from mycel's "
                         f"global generator (set it with mycel.set_seed); a fixed op seed would "
                         f"repeat the same noise at every step. Got seed={seed!r}.")


class NoiseGaussianRandom(Cell):
    """NoiseGaussianRandom(norm_bound=1.0, initial_noise_multiplier=1.0, seed=0,
    decay_policy=None): Gaussian noise of mean 0 and standard deviation
    ``norm_bound * initial_noise_multiplier``. ``mech(gradients)`` returns noise of the
    gradient's shape (float32)."""

    _who = "NoiseGaussianRandom"

    def __init__(self, norm_bound=1.0, initial_noise_multiplier=1.0, seed=0, decay_policy=None):
        super().__init__()
        self._norm_bound = check_number(norm_bound, "norm_bound", self._who)
        self._initial_noise_multiplier = check_number(
            initial_noise_multiplier, "initial_noise_multiplier", self._who, low_open=False)
        _check_seed(seed, self._who)
        if decay_policy is not None and type(self) is NoiseGaussianRandom:
            raise ValueError(f"For '{self._who}', the 'decay_policy' must be None, but got "
                             f"{decay_policy!r}; use 'AdaGaussian' for decaying noise.")
        self._decay_policy = decay_policy
        self._noise_multiplier = Parameter(
            Tensor(np.float32(self._initial_noise_multiplier)), name="noise_multiplier",
            requires_grad=False)

    def noise(self, gradients, norm_bound):
        """Noise of the gradients' shape with standard deviation norm_bound times the current
        noise multiplier (the DP step passes its current clipping bound)."""
        return _random.standard_normal(gradients.shape) * (norm_bound * self._noise_multiplier)

    def update(self):
        """Advances the noise schedule by one step (nothing for constant noise); returns the
        multiplier."""
        return self._noise_multiplier

    def construct(self, gradients):
        return self.noise(gradients, self._norm_bound)


class NoiseAdaGaussianRandom(NoiseGaussianRandom):
    """NoiseAdaGaussianRandom(norm_bound=1.0, initial_noise_multiplier=1.0, seed=0,
    noise_decay_rate=6e-6, decay_policy='Exp'): Gaussian noise whose multiplier decays once per
    training step, MindArmour's schedules: after t steps it is sigma_0 / (1 + rate t) ('Time'),
    sigma_0 (1 - rate)^t ('Step') or sigma_0 exp(-rate t) ('Exp'). A privacy monitor given the
    same noise_decay_mode and rate accounts the same schedule."""

    _who = "NoiseAdaGaussianRandom"

    def __init__(self, norm_bound=1.0, initial_noise_multiplier=1.0, seed=0,
                 noise_decay_rate=6e-6, decay_policy="Exp"):
        super().__init__(norm_bound, initial_noise_multiplier, seed, decay_policy)
        if decay_policy is None:
            raise ValueError(f"For '{self._who}', the 'decay_policy' must be one of "
                             f"{sorted(acc.DECAY_MODES)}, but got None.")
        rate = check_number(noise_decay_rate, "noise_decay_rate", self._who, high=1.0)
        self._noise_decay_rate = rate
        acc.check_decay_mode(decay_policy, self._who)

    def update(self):
        return _array.assign(self._noise_multiplier, acc.next_multiplier(
            self._decay_policy, self._initial_noise_multiplier, self._noise_decay_rate,
            self._noise_multiplier))


class NoiseMechanismsFactory:
    """Factory of noise mechanisms: ``create('Gaussian', norm_bound=1.0,
    initial_noise_multiplier=1.0, seed=0, noise_decay_rate=6e-6, decay_policy=None)`` gives a
    NoiseGaussianRandom, ``create('AdaGaussian', ...)`` a NoiseAdaGaussianRandom (decay_policy
    defaults to 'Exp' there)."""

    @staticmethod
    def create(mech_name, norm_bound=1.0, initial_noise_multiplier=1.0, seed=0,
               noise_decay_rate=6e-6, decay_policy=None):
        """The mechanism named mech_name ('Gaussian' or 'AdaGaussian')."""
        if mech_name == "Gaussian":
            return NoiseGaussianRandom(norm_bound, initial_noise_multiplier, seed, decay_policy)
        if mech_name == "AdaGaussian":
            return NoiseAdaGaussianRandom(norm_bound, initial_noise_multiplier, seed,
                                          noise_decay_rate, decay_policy or "Exp")
        raise ValueError(f"For 'NoiseMechanismsFactory.create', the 'mech_name' must be "
                         f"'Gaussian' or 'AdaGaussian', but got {mech_name!r}.")


class AdaClippingWithGaussianRandom(Cell):
    """AdaClippingWithGaussianRandom(decay_policy='Linear', learning_rate=0.001,
    target_unclipped_quantile=0.9, fraction_stddev=0.01, seed=0): adaptive clipping (Andrew
    et al. 2019). ``mech(empirical_fraction, norm_bound)``, given the fraction of micro-batch
    gradients not clipped at this step, returns the next bound: with the fraction noised by
    N(0, fraction_stddev^2) as b, 'Linear' gives ``norm_bound - learning_rate * (b - target)``
    (at least 1e-6), 'Geometric' ``norm_bound * exp(-learning_rate * (b - target))``, so the
    bound moves toward the target quantile of the gradient norms."""

    _who = "AdaClippingWithGaussianRandom"

    def __init__(self, decay_policy="Linear", learning_rate=0.001, target_unclipped_quantile=0.9,
                 fraction_stddev=0.01, seed=0):
        super().__init__()
        if decay_policy not in ("Linear", "Geometric"):
            raise ValueError(f"For '{self._who}', the 'decay_policy' must be 'Linear' or "
                             f"'Geometric', but got {decay_policy!r}.")
        self._linear = decay_policy == "Linear"
        self._learning_rate = check_number(learning_rate, "learning_rate", self._who)
        self._target = check_number(target_unclipped_quantile, "target_unclipped_quantile",
                                     self._who, high=1.0)
        self._fraction_stddev = check_number(fraction_stddev, "fraction_stddev", self._who,
                                              low_open=False)
        _check_seed(seed, self._who)

    def construct(self, empirical_fraction, norm_bound):
        noisy = empirical_fraction + _random.standard_normal(()) * self._fraction_stddev
        step = self._learning_rate * (noisy - self._target)
        if self._linear:
            return _math.maximum(norm_bound - step, 1e-6)
        return norm_bound * _math.exp(-step)


class ClipMechanismsFactory:
    """Factory of clipping mechanisms: ``create('Gaussian', decay_policy='Linear',
    learning_rate=0.001, target_unclipped_quantile=0.9, fraction_stddev=0.01, seed=0)`` gives an
    AdaClippingWithGaussianRandom."""

    @staticmethod
    def create(mech_name, decay_policy="Linear", learning_rate=0.001,
               target_unclipped_quantile=0.9, fraction_stddev=0.01, seed=0):
        """The clipping mechanism named mech_name (only 'Gaussian')."""
        if mech_name != "Gaussian":
            raise ValueError(f"For 'ClipMechanismsFactory.create', the 'mech_name' must be "
                             f"'Gaussian', but got {mech_name!r}.")
        return AdaClippingWithGaussianRandom(decay_policy, learning_rate,
                                             target_unclipped_quantile, fraction_stddev, seed)


def noised_mean(grad_sum, mech, norm_bound, micro_batches):
    """The private gradient of a step: each gradient of `grad_sum` (the sum of the clipped
    micro-batch gradients) plus the mechanism's noise at `norm_bound`, divided by the number
    of micro-batches. DPModel's step and the DP optimizers both apply it."""
    out = ()
    for g in grad_sum:
        out = out + ((g + mech.noise(g, norm_bound)) / micro_batches,)
    return out
