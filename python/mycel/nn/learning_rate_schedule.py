"""Learning-rate schedules as Cells (MindSpore's ``nn.learning_rate_schedule``): called with
the step (an int32 tensor) they return that step's learning rate (a 0-d float32 tensor).
Optimizers take one as ``learning_rate`` and call it with their step counter, in PYNATIVE and
inside compiled training steps alike."""
import math
import numbers

from mycel import _mycel as _C
from mycel.nn.cell import Cell
from mycel.ops.function._util import prim


def _step(global_step):
    return prim("Cast", dtype=_C.float32)(global_step)


def _positive(name, arg, v, allow_zero=False):
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"For '{name}', the '{arg}' must be a number, but got "
                        f"{type(v).__name__}.")
    if v < 0 or (v == 0 and not allow_zero):
        raise ValueError(f"For '{name}', the '{arg}' must be {'non-negative' if allow_zero else 'positive'}, but got {v}.")
    return v


def _is_bool(name, arg, v):
    if not isinstance(v, bool):
        raise TypeError(f"For '{name}', the '{arg}' must be a bool, but got {type(v).__name__}.")
    return v


class LearningRateSchedule(Cell):
    """Base class: subclasses implement ``construct(global_step)``."""

    def construct(self, global_step):
        raise NotImplementedError(f"{type(self).__name__} must define construct(global_step)")


class ExponentialDecayLR(LearningRateSchedule):
    """lr * decay_rate ** (step / decay_steps), the exponent floored when is_stair."""

    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        self.learning_rate = float(_positive("ExponentialDecayLR", "learning_rate", learning_rate))
        self.decay_rate = float(_positive("ExponentialDecayLR", "decay_rate", decay_rate))
        self.decay_steps = int(_positive("ExponentialDecayLR", "decay_steps", decay_steps))
        self.is_stair = _is_bool("ExponentialDecayLR", "is_stair", is_stair)

    def construct(self, global_step):
        s = _step(global_step)
        p = prim("FloorDiv")(s, float(self.decay_steps)) if self.is_stair else \
            s / self.decay_steps
        return self.learning_rate * prim("Pow")(prim("Cast", dtype=_C.float32)(self.decay_rate), p)


class CosineDecayLR(LearningRateSchedule):
    """min_lr + (max_lr - min_lr) * (1 + cos(pi * min(step, decay_steps) / decay_steps)) / 2."""

    def __init__(self, min_lr, max_lr, decay_steps):
        super().__init__()
        self.min_lr = float(_positive("CosineDecayLR", "min_lr", min_lr, allow_zero=True))
        self.max_lr = float(_positive("CosineDecayLR", "max_lr", max_lr))
        if self.min_lr >= self.max_lr:
            raise ValueError(f"For 'CosineDecayLR', the 'max_lr' must be greater than the "
                             f"'min_lr', but got max_lr {max_lr} and min_lr {min_lr}.")
        self.decay_steps = int(_positive("CosineDecayLR", "decay_steps", decay_steps))

    def construct(self, global_step):
        p = prim("Minimum")(_step(global_step), float(self.decay_steps)) / self.decay_steps
        return self.min_lr + 0.5 * (self.max_lr - self.min_lr) * (1.0 + prim("Cos")(math.pi * p))


class PiecewiseConstantLR(LearningRateSchedule):
    """learning_rates[i] for milestone[i-1] <= step < milestone[i] (the last holds after)."""

    def __init__(self, milestone, learning_rates):
        super().__init__()
        _check_piecewise("PiecewiseConstantLR", milestone, learning_rates)
        self.milestone = tuple(int(m) for m in milestone)
        self.learning_rates = tuple(float(v) for v in learning_rates)

    def construct(self, global_step):
        s = _step(global_step)
        lr = s * 0.0 + self.learning_rates[-1]
        for m, v in zip(self.milestone[::-1][1:], self.learning_rates[::-1][1:]):
            lr = prim("Select")(s < float(m), s * 0.0 + v, lr)
        return lr


class NaturalExpDecayLR(LearningRateSchedule):
    """lr * exp(-decay_rate * p), p = step / decay_steps (floored when is_stair)."""

    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        self.learning_rate = float(_positive("NaturalExpDecayLR", "learning_rate", learning_rate))
        self.decay_rate = float(_positive("NaturalExpDecayLR", "decay_rate", decay_rate))
        self.decay_steps = int(_positive("NaturalExpDecayLR", "decay_steps", decay_steps))
        self.is_stair = _is_bool("NaturalExpDecayLR", "is_stair", is_stair)

    def construct(self, global_step):
        s = _step(global_step)
        p = prim("FloorDiv")(s, float(self.decay_steps)) if self.is_stair else \
            s / self.decay_steps
        return self.learning_rate * prim("Exp")(p * -self.decay_rate)


class InverseDecayLR(LearningRateSchedule):
    """lr / (1 + decay_rate * p), p = step / decay_steps (floored when is_stair)."""

    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        self.learning_rate = float(_positive("InverseDecayLR", "learning_rate", learning_rate))
        self.decay_rate = float(_positive("InverseDecayLR", "decay_rate", decay_rate))
        self.decay_steps = int(_positive("InverseDecayLR", "decay_steps", decay_steps))
        self.is_stair = _is_bool("InverseDecayLR", "is_stair", is_stair)

    def construct(self, global_step):
        s = _step(global_step)
        p = prim("FloorDiv")(s, float(self.decay_steps)) if self.is_stair else \
            s / self.decay_steps
        return self.learning_rate / (p * self.decay_rate + 1.0)


class PolynomialDecayLR(LearningRateSchedule):
    """(lr - end_lr) * (1 - s / d) ** power + end_lr with s = min(step, decay_steps) and
    d = decay_steps; with update_decay_steps, s = step and d = decay_steps times
    max(ceil(step / decay_steps), 1) (the decay restarts)."""

    def __init__(self, learning_rate, end_learning_rate, decay_steps, power,
                 update_decay_steps=False):
        super().__init__()
        name = "PolynomialDecayLR"
        self.learning_rate = float(_positive(name, "learning_rate", learning_rate))
        self.end_learning_rate = float(_positive(name, "end_learning_rate", end_learning_rate,
                                                 allow_zero=True))
        if isinstance(decay_steps, bool) or not isinstance(decay_steps, int):
            raise TypeError(f"For '{name}', the 'decay_steps' must be an int, but got "
                            f"{type(decay_steps).__name__}.")
        self.decay_steps = int(_positive(name, "decay_steps", decay_steps))
        self.power = float(_positive(name, "power", power))
        if not isinstance(update_decay_steps, bool):
            raise TypeError(f"For '{name}', the 'update_decay_steps' must be a bool, but got "
                            f"{type(update_decay_steps).__name__}.")
        self.update_decay_steps = update_decay_steps

    def construct(self, global_step):
        s = _step(global_step)
        d = float(self.decay_steps)
        if self.update_decay_steps:
            d = prim("Maximum")(prim("Ceil")(s / d), 1.0) * d
        else:
            s = prim("Minimum")(s, d)
        base = 1.0 - s / d
        return (self.learning_rate - self.end_learning_rate) * \
            prim("Pow")(base, base * 0.0 + self.power) + self.end_learning_rate


class WarmUpLR(LearningRateSchedule):
    """lr * min(step, warmup_steps) / warmup_steps."""

    def __init__(self, learning_rate, warmup_steps):
        super().__init__()
        self.learning_rate = float(_positive("WarmUpLR", "learning_rate", learning_rate))
        self.warmup_steps = int(_positive("WarmUpLR", "warmup_steps", warmup_steps))

    def construct(self, global_step):
        s = prim("Minimum")(_step(global_step), float(self.warmup_steps))
        return self.learning_rate * s / self.warmup_steps


def _check_piecewise(name, milestone, learning_rates):
    if not isinstance(milestone, (list, tuple)) or not isinstance(learning_rates, (list, tuple)):
        raise TypeError(f"For '{name}', the 'milestone' and 'learning_rates' must be lists.")
    if len(milestone) != len(learning_rates) or not milestone:
        raise ValueError(f"For '{name}', the 'milestone' and 'learning_rates' must be non-empty "
                         f"and of one length, but got {len(milestone)} and "
                         f"{len(learning_rates)}.")
    if any(not isinstance(m, int) or isinstance(m, bool) for m in milestone):
        raise TypeError(f"For '{name}', the 'milestone' must be a list of ints, but got "
                        f"{list(milestone)}.")
    if any(not isinstance(v, float) for v in learning_rates):
        raise TypeError(f"For '{name}', the 'learning_rates' must be a list of floats, but got "
                        f"{list(learning_rates)}.")
    if any(m <= 0 for m in milestone) or list(milestone) != sorted(set(milestone)):
        raise ValueError(f"For '{name}', the 'milestone' must be increasing positive ints, but "
                         f"got {list(milestone)}.")
