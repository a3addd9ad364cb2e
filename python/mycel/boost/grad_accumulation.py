"""Gradient accumulation over successive steps (MindSpore's boost ``grad_accumulation``).

Each step adds its gradients to an accumulator; every ``max_accumulation_step``-th step the
optimizer is called with their mean and the accumulator is cleared. For a loss that is a mean
over its batch, k steps on batches of b rows update the weights exactly as one step on the k*b
rows would (one big batch), with the memory of a batch of b. The other steps leave the weights
and the optimizer's state untouched: the optimizer runs on every step and a select puts back
what it wrote unless the step applies (``nn.wrap.update_unless``), so a step is one graph in
GRAPH mode. (nn.GradAccumulationCell splits one batch into micro-batches within a step.)
"""
from mycel import _mycel as _C
from mycel._mycel import Tensor
from mycel.common.parameter import Parameter, ParameterTuple
from mycel.nn.cell import Cell
from mycel.nn.wrap import TrainOneStepCell, optimizer_state, update_unless
from mycel.ops.composite import depend
from mycel.ops.function import array_func as _array
from mycel.ops.function import math_func as _math

_ALGORITHMS = ("less_bn", "grad_freeze", "adasum", "grad_accumulation", "dim_reduce")


def _check_steps(who, value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"For '{who}', the 'grad_accumulation_step' must be a positive int, "
                         f"but got {value!r}.")
    return value


class GradientAccumulation(Cell):
    """GradientAccumulation(max_accumulation_step, optimizer): called with (loss, grads) on
    each step, accumulates the gradients and, every `max_accumulation_step`-th call, updates
    the parameters with ``optimizer(mean of the accumulated gradients)`` and clears the
    accumulator (MindSpore's ``boost.GradientAccumulation``). Returns the loss. The
    accumulators are Parameters ``grad_accumulation.<name>`` (zeros of each parameter's
    shape) and the step count ``accumulation_step``, so checkpoints keep them."""

    def __init__(self, max_accumulation_step, optimizer):
        super().__init__(auto_prefix=False)
        from mycel.nn.optim.optimizer import Optimizer
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"For 'GradientAccumulation', the 'optimizer' must be an nn "
                            f"Optimizer, but got {type(optimizer).__name__}.")
        self._max_accumulation_step = _check_steps("GradientAccumulation",
                                                   max_accumulation_step)
        self.optimizer = optimizer
        params = optimizer.parameters
        self._grad_accumulation = ParameterTuple(
            Parameter(Tensor(p.asnumpy() * 0), name=f"grad_accumulation.{p.name}",
                      requires_grad=False) for p in params)
        self._accumulation_step = Parameter(Tensor(0, _C.int32), name="accumulation_step",
                                            requires_grad=False)
        self._state = optimizer_state(params, optimizer)

    def construct(self, loss, grads):
        k = self._max_accumulation_step
        count = self._accumulation_step + 1
        apply = count >= k
        sums = ()
        for acc, g in zip(self._grad_accumulation, grads):
            sums = sums + (acc + g,)
        means = ()
        for total in sums:
            means = means + (total / k,)
        skip = _math.logical_not(apply)
        loss = depend(loss, update_unless(self.optimizer, self._state, means, skip))
        for acc, total in zip(self._grad_accumulation, sums):
            loss = depend(loss, _array.assign(acc, _math.select(apply, total * 0, total)))
        loss = depend(loss, _array.assign(self._accumulation_step,
                                          _math.select(apply, count * 0, count)))
        return loss


class BoostTrainOneStepCell(TrainOneStepCell):
    """BoostTrainOneStepCell(network, optimizer, sens=None, grad_accumulation_step=1): a
    training step (as TrainOneStepCell: the loss and the gradients of the optimizer's
    parameters, scaled by sens) whose update goes through ``GradientAccumulation``: with
    grad_accumulation_step k the parameters change every k-th step, by the mean gradient of
    the last k (k = 1 is TrainOneStepCell's step). Returns the loss. ``Model`` builds it from
    ``boost_config_dict`` (see AutoBoost)."""

    def __init__(self, network, optimizer, sens=None, grad_accumulation_step=1):
        super().__init__(network, optimizer, sens)
        if self.__dict__.get("_stepper") is not None:
            raise ValueError("For 'BoostTrainOneStepCell', gradient accumulation is not built "
                             "for pipeline stages or enable_parallel_optimizer.")
        self.grad_accumulation = GradientAccumulation(grad_accumulation_step, optimizer)

    def construct(self, *inputs):
        loss, grads = self.loss_and_grads(*inputs)
        return self.grad_accumulation(loss, grads)


class AutoBoost:
    """AutoBoost(level="O0", boost_config_dict=""): which boost algorithms a training step
    uses (MindSpore's ``boost.AutoBoost``). Built here: gradient accumulation, chosen by
    ``{"boost": {"mode": "manual", "grad_accumulation": True}, "grad_accumulation":
    {"grad_accumulation_step": k}}`` with level "O1" or "O2". Level "O0" uses none. The
    "auto" mode (level O1/O2 choosing LessBN, gradient freezing ...), "enable_all", and any
    other algorithm are ValueErrors: not built. ``grad_accumulation_step`` is the k to use (1:
    no accumulation)."""

    def __init__(self, level="O0", boost_config_dict=""):
        if level not in ("O0", "O1", "O2"):
            raise ValueError(f"For 'AutoBoost', the 'level' must be O0, O1 or O2, but got "
                             f"{level!r}.")
        cfg = boost_config_dict or {}
        if not isinstance(cfg, dict):
            raise TypeError(f"For 'AutoBoost', the 'boost_config_dict' must be a dict, but got "
                            f"{type(cfg).__name__}.")
        self.level = level
        self.grad_accumulation_step = 1
        if level == "O0":
            return
        boost = cfg.get("boost", {})
        mode = boost.get("mode", "auto")
        if mode != "manual":
            raise ValueError(f"For 'AutoBoost', boost mode {mode!r} (at level {level}) selects "
                             "MindSpore's LessBN, gradient-freezing and other algorithms, which "
                             "are not built here; use mode 'manual' with 'grad_accumulation'.")
        for name in _ALGORITHMS:
            if boost.get(name, False) and name != "grad_accumulation":
                raise ValueError(f"For 'AutoBoost', the boost algorithm {name!r} is not built "
                                 "here (only 'grad_accumulation' is).")
        if boost.get("grad_accumulation", False):
            section = cfg.get("grad_accumulation", {})
            self.grad_accumulation_step = _check_steps(
                "AutoBoost", section.get("grad_accumulation_step", 1))

    def network_auto_process_train(self, network, optimizer):
        """(network, optimizer) as they are: no algorithm built here rewrites them."""
        return network, optimizer
