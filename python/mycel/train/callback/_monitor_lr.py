"""Callbacks that watch a monitored value or the step count: EarlyStopping, ReduceLROnPlateau
and LearningRateScheduler (MindSpore 2.x's ``mindspore.train`` callbacks).

The monitored value is the training loss for monitor "loss" (the step's output, averaged)
and otherwise the entry of that name in ``cb_params.eval_results`` (what ``Model.fit``
evaluates every valid_frequency epochs); when it is missing the epoch is skipped with a
warning naming the available choices. mode 'min' or 'max' says which direction improves;
'auto' takes 'max' for names containing "acc" and 'min' otherwise. Learning rates change by
assigning the optimizer's learning_rate Parameter (a constant learning rate: a schedule or
per-group rates are refused with a ValueError, as in MindSpore)."""
import copy
import math
import numbers
import warnings

import numpy as np

from mycel import _mycel as _C
from mycel.common.parameter import Parameter
from mycel.train.callback._base import Callback, _loss_value


def _number(cls, name, v):
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"For '{cls}', '{name}' must be an int or a float, but got "
                        f"{type(v).__name__}.")
    return float(v)


def _non_negative_int(cls, name, v):
    if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 0:
        raise ValueError(f"For '{cls}', '{name}' must be a non-negative int, but got {v!r}.")
    return int(v)


def _bool(cls, name, v):
    if not isinstance(v, bool):
        raise TypeError(f"For '{cls}', '{name}' must be a bool, but got {type(v).__name__}.")
    return v


def _maximize(cls, monitor, mode):
    if not isinstance(monitor, str):
        raise TypeError(f"For '{cls}', 'monitor' must be a str, but got "
                        f"{type(monitor).__name__}.")
    if mode not in ("auto", "min", "max"):
        raise ValueError(f"For '{cls}', 'mode' must be 'auto', 'min' or 'max', but got "
                         f"{mode!r}.")
    return mode == "max" or (mode == "auto" and "acc" in monitor)


def _monitor_value(cls, monitor, p):
    """The monitored value of this epoch, or None (with a warning) when it is not there."""
    if monitor == "loss":
        outputs = getattr(p, "net_outputs", None)
        return None if outputs is None else _loss_value(outputs)
    results = getattr(p, "eval_results", None) or {}
    value = results.get(monitor)
    if value is None:
        choices = ["loss"] + sorted(results)
        warnings.warn(f"{cls} is conditioned on '{monitor}', which is not available; the "
                      f"available choices are {choices}.", stacklevel=3)
        return None
    if isinstance(value, _C.Tensor):
        value = value.asnumpy()
    return float(np.mean(value))


class EarlyStopping(Callback):
    """Stops training when the monitored value has not improved by more than min_delta for
    `patience` epochs (improvement: lower for mode 'min', higher for 'max'). With `baseline`,
    the count restarts only for values better than it too. With restore_best_weights, the
    network's parameters go back to the best epoch's values when it stops."""

    def __init__(self, monitor="eval_loss", min_delta=0, patience=0, verbose=False,
                 mode="auto", baseline=None, restore_best_weights=False):
        cls = "EarlyStopping"
        self.monitor = monitor
        self._max = _maximize(cls, monitor, mode)
        self.mode = mode
        self.min_delta = abs(_number(cls, "min_delta", min_delta))
        self.patience = _non_negative_int(cls, "patience", patience)
        self.verbose = _bool(cls, "verbose", verbose)
        self.baseline = None if baseline is None else _number(cls, "baseline", baseline)
        self.restore_best_weights = _bool(cls, "restore_best_weights", restore_best_weights)
        self.wait = 0
        self.stopped_epoch = 0
        # the worst value, as on_train_begin sets it (a run that starts at an epoch end,
        # without on_train_begin, compares against it too)
        self.best = -math.inf if self._max else math.inf
        self._best_weights = None

    def _better(self, value, reference):
        if self._max:
            return value - self.min_delta > reference
        return value + self.min_delta < reference

    def on_train_begin(self, run_context):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = -math.inf if self._max else math.inf
        self._best_weights = None

    def on_train_epoch_end(self, run_context):
        p = run_context.original_args()
        value = _monitor_value("EarlyStopping", self.monitor, p)
        if value is None:
            return
        self.wait += 1
        if self._better(value, self.best):
            self.best = value
            if self.restore_best_weights:
                self._best_weights = {name: copy.deepcopy(param.asnumpy()) for name, param
                                      in p.train_network.parameters_dict().items()}
            if self.baseline is None or self._better(value, self.baseline):
                self.wait = 0
        if self.wait >= self.patience:
            self.stopped_epoch = p.cur_epoch_num
            run_context.request_stop()
            if self.restore_best_weights and self._best_weights is not None:
                params = p.train_network.parameters_dict()
                for name, value in self._best_weights.items():
                    params[name].set_data(_C.Tensor(value))

    def on_train_end(self, run_context):
        if self.stopped_epoch > 0 and self.verbose:
            print(f"Epoch {self.stopped_epoch}: early stopping.", flush=True)


def _lr_parameter(cls, p):
    lr = getattr(p.optimizer, "learning_rate", None) if p.optimizer is not None else None
    if not isinstance(lr, Parameter) or getattr(p.optimizer, "is_group", False):
        raise ValueError(f"For '{cls}', the optimizer must have one constant learning rate (a "
                         f"Parameter); a learning-rate schedule or per-group rates are not "
                         f"supported.")
    return lr


def _assign_lr(param, value):
    param.set_data(_C.Tensor(np.array(value, dtype=param.asnumpy().dtype).reshape(
        param.shape)))


class ReduceLROnPlateau(Callback):
    """Multiplies the learning rate by `factor` (at least min_lr) when the monitored value has
    not improved by more than min_delta for `patience` epochs, then waits `cooldown` epochs
    before counting again."""

    def __init__(self, monitor="eval_loss", factor=0.1, patience=10, verbose=False,
                 mode="auto", min_delta=1e-4, cooldown=0, min_lr=0):
        cls = "ReduceLROnPlateau"
        self.monitor = monitor
        self._max = _maximize(cls, monitor, mode)
        self.mode = mode
        self.factor = _number(cls, "factor", factor)
        if not 0.0 <= self.factor < 1.0:
            raise ValueError(f"For '{cls}', 'factor' must be in [0, 1), but got {factor}.")
        self.patience = _non_negative_int(cls, "patience", patience)
        self.verbose = _bool(cls, "verbose", verbose)
        self.min_delta = abs(_number(cls, "min_delta", min_delta))
        self.cooldown = _non_negative_int(cls, "cooldown", cooldown)
        self.min_lr = _number(cls, "min_lr", min_lr)
        if self.min_lr < 0:
            raise ValueError(f"For '{cls}', 'min_lr' must be non-negative, but got {min_lr}.")
        self.cooldown_counter = 0
        self.wait = 0
        self.best = -math.inf if self._max else math.inf  # as on_train_begin sets it

    def on_train_begin(self, run_context):
        self.cooldown_counter = 0
        self.wait = 0
        self.best = -math.inf if self._max else math.inf

    def on_train_epoch_end(self, run_context):
        p = run_context.original_args()
        lr = _lr_parameter("ReduceLROnPlateau", p)
        value = _monitor_value("ReduceLROnPlateau", self.monitor, p)
        if value is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        better = (value > self.best + self.min_delta if self._max
                  else value < self.best - self.min_delta)
        if better:
            self.best = value
            self.wait = 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                old = float(np.asarray(lr.asnumpy()).reshape(-1)[0])
                if old > self.min_lr:
                    new = max(old * self.factor, self.min_lr)
                    _assign_lr(lr, new)
                    if self.verbose:
                        print(f"Epoch {p.cur_epoch_num}: ReduceLROnPlateau reducing the "
                              f"learning rate from {old} to {new}.", flush=True)
                    self.cooldown_counter = self.cooldown
                    self.wait = 0


class LearningRateScheduler(Callback):
    """After every training step, sets the learning rate to
    learning_rate_function(current_lr, cur_step_num) (when it differs)."""

    def __init__(self, learning_rate_function):
        if not callable(learning_rate_function):
            raise TypeError(f"For 'LearningRateScheduler', 'learning_rate_function' must be "
                            f"callable, but got {type(learning_rate_function).__name__}.")
        self.learning_rate_function = learning_rate_function

    def on_train_step_end(self, run_context):
        p = run_context.original_args()
        lr = _lr_parameter("LearningRateScheduler", p)
        old = float(np.asarray(lr.asnumpy()).reshape(-1)[0])
        new = self.learning_rate_function(old, p.cur_step_num)
        if isinstance(new, _C.Tensor):
            new = float(new.asnumpy())
        if not math.isclose(old, float(new), rel_tol=1e-10):
            _assign_lr(lr, float(new))
