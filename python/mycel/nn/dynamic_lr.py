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
    """TypeError for a non-int, ValueError for an int <= 0 (MindSpore's check_positive_int)."""
    for arg, v in (("total_step", total_step), ("step_per_epoch", step_per_epoch),
                   ("decay_epoch", decay_epoch)):
        if not isinstance(v, int) or isinstance(v, bool):
            raise TypeError(f"For '{name}', the '{arg}' must be an int, but got "
                            f"{type(v).__name__}.")
        if v <= 0:
            raise ValueError(f"For '{name}', the '{arg}' must be a positive int, but got {v!r}.")


def _flag(name, arg, v):
    if not isinstance(v, bool):
        raise TypeError(f"For '{name}', the '{arg}' must be a bool, but got {type(v).__name__}.")
    return v


def exponential_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                         is_stair=False):
    """lr * decay_rate ** (epoch / decay_epoch) per step, epoch = step // step_per_epoch
    (the exponent floored when is_stair)."""
    _positive("exponential_decay_lr", "learning_rate", learning_rate)
    _positive("exponential_decay_lr", "decay_rate", decay_rate)
    _steps("exponential_decay_lr", total_step, step_per_epoch, decay_epoch)
    _flag("exponential_decay_lr", "is_stair", is_stair)
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
    if min_lr >= max_lr:
        raise ValueError(f"For 'cosine_decay_lr', 'min_lr' must be less than 'max_lr', but got "
                         f"{min_lr} and {max_lr}.")
    out = []
    for i in range(total_step):
        e = min(i // step_per_epoch, decay_epoch)
        out.append(min_lr + 0.5 * (max_lr - min_lr) * (1 + math.cos(math.pi * e / decay_epoch)))
    return out


def natural_exp_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                         is_stair=False):
    """lr * exp(-decay_rate * epoch) per step, epoch = step // step_per_epoch (MindSpore's
    definition: the epoch itself, not divided by decay_epoch); is_stair rounds the epoch down
    to a multiple of decay_epoch."""
    _positive("natural_exp_decay_lr", "learning_rate", learning_rate)
    _positive("natural_exp_decay_lr", "decay_rate", decay_rate)
    _steps("natural_exp_decay_lr", total_step, step_per_epoch, decay_epoch)
    _flag("natural_exp_decay_lr", "is_stair", is_stair)
    out = []
    for i in range(total_step):
        e = i // step_per_epoch
        if is_stair:
            e = e // decay_epoch * decay_epoch
        out.append(learning_rate * math.exp(-decay_rate * e))
    return out


def inverse_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                     is_stair=False):
    """lr / (1 + decay_rate * epoch / decay_epoch) per step, epoch = step // step_per_epoch
    (the quotient floored when is_stair)."""
    _positive("inverse_decay_lr", "learning_rate", learning_rate)
    _positive("inverse_decay_lr", "decay_rate", decay_rate)
    _steps("inverse_decay_lr", total_step, step_per_epoch, decay_epoch)
    _flag("inverse_decay_lr", "is_stair", is_stair)
    out = []
    for i in range(total_step):
        p = (i // step_per_epoch) / decay_epoch
        out.append(learning_rate / (1.0 + decay_rate * (math.floor(p) if is_stair else p)))
    return out


def polynomial_decay_lr(learning_rate, end_learning_rate, total_step, step_per_epoch,
                        decay_epoch, power, update_decay_epoch=False):
    """(lr - end_lr) * (1 - e / d) ** power + end_lr per step, epoch = step // step_per_epoch:
    e = min(epoch, decay_epoch) and d = decay_epoch; with update_decay_epoch, e = epoch and d
    is decay_epoch raised to its first multiple >= the epoch (the decay restarts)."""
    _positive("polynomial_decay_lr", "learning_rate", learning_rate)
    _positive("polynomial_decay_lr", "end_learning_rate", end_learning_rate, allow_zero=True)
    _steps("polynomial_decay_lr", total_step, step_per_epoch, decay_epoch)
    _positive("polynomial_decay_lr", "power", power)
    _flag("polynomial_decay_lr", "update_decay_epoch", update_decay_epoch)
    out, delta = [], learning_rate - end_learning_rate
    for i in range(total_step):
        epoch = i // step_per_epoch
        if update_decay_epoch:
            d, e = decay_epoch * max(math.ceil(epoch / decay_epoch), 1), epoch
        else:
            d, e = decay_epoch, min(epoch, decay_epoch)
        out.append(delta * (1.0 - e / d) ** power + end_learning_rate)
    return out


def warmup_lr(learning_rate, total_step, step_per_epoch, warmup_epoch):
    """lr * min(epoch, warmup_epoch) / warmup_epoch per step, epoch = step // step_per_epoch
    (0 in the first epoch, as MindSpore defines it)."""
    _positive("warmup_lr", "learning_rate", learning_rate)
    _steps("warmup_lr", total_step, step_per_epoch, warmup_epoch)
    return [learning_rate * min(i // step_per_epoch, warmup_epoch) / warmup_epoch
            for i in range(total_step)]

