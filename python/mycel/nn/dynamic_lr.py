"""Per-step learning-rate lists (MindSpore's ``nn.dynamic_lr``): each function returns a list
of floats, one per step, that an optimizer takes as ``learning_rate``."""
import math

from mycel.nn.learning_rate_schedule import _check_piecewise, _positive


def piecewise_constant_lr(milestone, learning_rates):
    """learning_rates[i] for the steps in [milestone[i-1], milestone[i]); milestone[-1] steps."""
    _check_piecewise("piecewise_constant_lr", milestone, learning_rates)
    out, last = [], 0
    for m, v in zip(milestone, learning_rates):
        out += [float(v)] * (m - last)
        last = m
    return out


def _steps(name, total_step, step_per_epoch, decay_epoch):
    for arg, v in (("total_step", total_step), ("step_per_epoch", step_per_epoch),
                   ("decay_epoch", decay_epoch)):
        if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
            raise ValueError(f"For '{name}', the '{arg}' must be a positive int, but got {v!r}.")


def exponential_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                         is_stair=False):
    """lr * decay_rate ** (epoch / decay_epoch) per step, epoch = step // step_per_epoch
    (the exponent floored when is_stair)."""
    _positive("exponential_decay_lr", "learning_rate", learning_rate)
    _positive("exponential_decay_lr", "decay_rate", decay_rate)
    _steps("exponential_decay_lr", total_step, step_per_epoch, decay_epoch)
    out = []
    for i in range(total_step):
        p = (i // step_per_epoch) / decay_epoch
        out.append(learning_rate * decay_rate ** (math.floor(p) if is_stair else p))
    return out


def cosine_decay_lr(min_lr, max_lr, total_step, step_per_epoch, decay_epoch):
    """min_lr + (max_lr - min_lr) * (1 + cos(pi * epoch / decay_epoch)) / 2 per step, with
    epoch = min(step // step_per_epoch, decay_epoch)."""
    _positive("cosine_decay_lr", "min_lr", min_lr, allow_zero=True)
    _positive("cosine_decay_lr", "max_lr", max_lr)
    _steps("cosine_decay_lr", total_step, step_per_epoch, decay_epoch)
    out = []
    for i in range(total_step):
        e = min(i // step_per_epoch, decay_epoch)
        out.append(min_lr + 0.5 * (max_lr - min_lr) * (1 + math.cos(math.pi * e / decay_epoch)))
    return out
