"""Cells that wrap a network for training (MindSpore's ``nn.WithLossCell``), the loss-scaling
training step and its update cells, and gradient accumulation over micro-batches."""
from mycel import _mycel as _C
from mycel._mycel import Tensor
from mycel.common.parameter import Parameter
from mycel.nn.cell import Cell
from mycel.ops.composite import GradOperation, depend
from mycel.ops.function import array_func as _array
from mycel.ops.function import math_func as _math
from mycel.ops.primitive import constexpr

_FLOATS = (_C.float16, _C.bfloat16, _C.float32, _C.float64)


class WithLossCell(Cell):
    """``loss_fn(backbone(data), label)``: the network and its loss as one Cell, the usual
    target of ``value_and_grad(..., weights=net.trainable_params())``."""

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)  # the backbone's parameter names stay as they are
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        return self._loss_fn(self._backbone(data), label)

    @property
    def backbone_network(self):
        """The wrapped network."""
        return self._backbone


def check_step_args(who, network, optimizer):
    """TypeErrors naming `who` unless network is a Cell and optimizer an nn Optimizer."""
    from mycel.nn.optim.optimizer import Optimizer
    if not isinstance(network, Cell):
        raise TypeError(f"For '{who}', the 'network' must be a Cell, but got "
                        f"{type(network).__name__}.")
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"For '{who}', the 'optimizer' must be an nn Optimizer, but got "
                        f"{type(optimizer).__name__}.")


class WithEvalCell(Cell):
    """(loss, outputs, label) of the network on (data, label): what Model.eval measures.
    With add_cast_fp32 (a network in low precision) the outputs are cast to float32 first."""

    def __init__(self, network, loss_fn, add_cast_fp32=False):
        super().__init__(auto_prefix=False)
        self._network = network
        self._loss_fn = loss_fn
        self._add_cast_fp32 = add_cast_fp32

    def construct(self, data, label):
        outputs = self._network(data)
        if self._add_cast_fp32:
            outputs = outputs.astype(_C.float32)
        return self._loss_fn(outputs, label), outputs, label


class TrainOneStepCell(Cell):
    """TrainOneStepCell(network, optimizer, sens=None): one training step as a Cell. Called
    with the network's inputs, it computes the loss and the gradients of the optimizer's
    parameters in one pass (value_and_grad), scales them by `sens` when given (loss scaling),
    updates the parameters with ``optimizer(grads)`` and returns the loss. In GRAPH mode the
    whole step is one compiled graph.

    In data parallelism (``set_auto_parallel_context(parallel_mode="data_parallel")`` in a
    job that ``communication.init()`` joined) the gradients are all-reduced over the ranks by
    a ``DistributedGradReducer`` before the update (averaged with gradients_mean), each
    bucket as soon as the backward pass has computed its gradients (in both modes), and with
    parameter_broadcast every rank starts from rank 0's parameters; with
    enable_parallel_optimizer each rank keeps and updates its rows of the optimizer state
    (gradients reduce-scattered, weights all-gathered: parallel/optimizer_shard.py). A
    ``PipelineCell`` network trains by its schedule (its ``_train_step``)."""

    def __init__(self, network, optimizer, sens=None):
        super().__init__(auto_prefix=False)
        from mycel.ops.composite import value_and_grad
        check_step_args("TrainOneStepCell", network, optimizer)
        self.network = network
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self.sens = None if sens is None else float(sens)
        self.grad_fn = value_and_grad(network, None, self.weights)
        # A step run by Python instead of construct: a PipelineCell's schedule, or the
        # sharded optimizer's (parallel/optimizer_shard.py).
        stepper = None
        if hasattr(network, "_train_step"):
            if type(self) is not TrainOneStepCell:
                raise TypeError(f"For '{type(self).__name__}', a PipelineCell trains with "
                                "nn.TrainOneStepCell only (loss scaling is not built for it).")
            stepper = lambda inputs: network._train_step(optimizer, self.sens, inputs)  # noqa
        from mycel.parallel import context as pctx
        self.reducer_flag = pctx.is_data_parallel()
        self.grad_reducer = None
        if self.reducer_flag:
            from mycel.nn.grad_reducer import DistributedGradReducer, broadcast_parameters
            from mycel.parallel import optimizer_shard
            if pctx.get_auto_parallel_context("parameter_broadcast"):
                params = list(network.get_parameters())  # and the optimizer's state
                seen = {id(p) for p in params}
                broadcast_parameters(params + [p for p in optimizer.get_parameters()
                                               if id(p) not in seen])
            if optimizer_shard.enabled():
                if type(self) is not TrainOneStepCell:
                    raise ValueError(f"For '{type(self).__name__}', enable_parallel_optimizer "
                                     "is not built (nn.TrainOneStepCell has it).")
                stepper = optimizer_shard.ShardedStep(self.grad_fn, self.weights, optimizer,
                                                      self.sens)
            else:
                self.grad_reducer = DistributedGradReducer(self.weights)
                self._overlap_reduction()
        object.__setattr__(self, "_stepper", stepper)

    def _overlap_reduction(self):
        """PYNATIVE data parallelism: the reducer's buckets start while the backward pass
        of self.grad_fn runs. The reducer must then be given the gradients exactly as the
        backward pass computed them, so any scaling comes after the reduction (a mean over
        the ranks commutes with it)."""
        self.grad_fn._weight_ready = self.grad_reducer._step

    def __call__(self, *inputs):
        stepper = self.__dict__.get("_stepper")
        if stepper is not None:
            return stepper(inputs)
        return super().__call__(*inputs)

    def construct(self, *inputs):
        loss, grads = self.loss_and_grads(*inputs)
        return depend(loss, self.optimizer(grads))

    def loss_and_grads(self, *inputs):
        """The loss and the gradients the optimizer is given: reduced over the ranks in data
        parallelism, scaled by sens."""
        loss, grads = self.grad_fn(*inputs)
        if self.reducer_flag:
            grads = self.grad_reducer(grads)
        if self.sens is not None:
            scaled = ()
            for g in grads:
                scaled = scaled + (g * self.sens,)
            grads = scaled
        return loss, grads


def check_loss_scale(value, who, name="loss_scale"):
    """value as a float, or a ValueError naming `who` unless it is a number >= 1."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 1:
        raise ValueError(f"For '{who}', the '{name}' must be a number >= 1, but got "
                         f"{value!r}.")
    return float(value)


def check_dynamic_scale(who, scale_factor, scale_window):
    """ValueErrors naming `who` unless scale_factor is a number > 1 and scale_window a
    positive int (a dynamic loss scale's settings)."""
    if isinstance(scale_factor, bool) or not isinstance(scale_factor, (int, float)) or \
            not scale_factor > 1:
        raise ValueError(f"For '{who}', the 'scale_factor' must be a number greater than 1, but "
                         f"got {scale_factor!r}.")
    if isinstance(scale_window, bool) or not isinstance(scale_window, int) or scale_window <= 0:
        raise ValueError(f"For '{who}', the 'scale_window' must be a positive int, but got "
                         f"{scale_window!r}.")


def all_finite_flag(tensors):
    """A bool scalar Tensor: whether every element of every floating-point tensor in
    `tensors` is finite. ``sum(t * 0)`` is 0 when all of t is finite and NaN as soon as one
    element is inf or NaN, so each tensor costs one multiply and one (float32-accumulated)
    reduction; there is no branch, so it compiles in GRAPH mode."""
    total = None
    for t in tensors:
        if t.dtype not in _FLOATS:
            continue
        s = _math.sum(t * 0.0).astype(_C.float32)
        total = s if total is None else total + s
    if total is None:
        return Tensor(True)
    return total == total


class FixedLossScaleUpdateCell(Cell):
    """FixedLossScaleUpdateCell(loss_scale_value): the update cell of a fixed loss scale, a
    `scale_sense` for TrainOneStepWithLossScaleCell. The scale never changes; an overflowing
    step still skips its update. ``cell(loss_scale, overflow)`` returns overflow."""

    def __init__(self, loss_scale_value):
        super().__init__()
        self.loss_scale_value = check_loss_scale(loss_scale_value, "FixedLossScaleUpdateCell")

    def get_loss_scale(self):
        """The loss scale."""
        return self.loss_scale_value

    def construct(self, loss_scale, overflow):
        return overflow


class DynamicLossScaleUpdateCell(Cell):
    """DynamicLossScaleUpdateCell(loss_scale_value, scale_factor, scale_window): the update
    cell of a dynamic loss scale, as MindSpore's. ``cell(loss_scale, overflow)``, given the
    scale Parameter and the step's overflow flag, updates the scale in place: on overflow it
    becomes ``max(scale / scale_factor, 1)`` and the count of good steps restarts; after
    `scale_window` consecutive steps without overflow it is multiplied by scale_factor (and
    the count restarts). Returns overflow. Selects, no branches: it compiles in GRAPH mode."""

    def __init__(self, loss_scale_value, scale_factor, scale_window):
        super().__init__()
        self.loss_scale_value = check_loss_scale(loss_scale_value, "DynamicLossScaleUpdateCell")
        check_dynamic_scale("DynamicLossScaleUpdateCell", scale_factor, scale_window)
        self.scale_factor = float(scale_factor)
        self.scale_window = scale_window
        # Good steps since the last overflow or growth of the scale.
        self.good_steps = Parameter(Tensor(0, _C.int32), name="good_steps", requires_grad=False)

    def get_loss_scale(self):
        """The initial loss scale."""
        return self.loss_scale_value

    def construct(self, loss_scale, overflow):
        good = self.good_steps + 1
        grow = _math.logical_and(_math.logical_not(overflow), good >= self.scale_window)
        lowered = _math.maximum(loss_scale / self.scale_factor, 1.0)
        grown = _math.select(grow, loss_scale * self.scale_factor, loss_scale)
        _array.assign(self.good_steps, _math.select(_math.logical_or(overflow, grow),
                                                    good * 0, good))
        _array.assign(loss_scale, _math.select(overflow, lowered, grown))
        return overflow


class TrainOneStepWithLossScaleCell(TrainOneStepCell):
    """TrainOneStepWithLossScaleCell(network, optimizer, scale_sense): a training step with
    loss scaling, as MindSpore's. The gradients are taken of ``loss * scale`` (the sens of
    the backward pass is the scale), divided by the scale, and checked: if any element is
    inf or NaN the step overflows, the update is skipped (the parameters and the optimizer's
    state are left exactly as they were) and an update cell lowers the scale.

    `scale_sense` is a Tensor (a fixed scale, shape () or (1,)) or an update cell
    (DynamicLossScaleUpdateCell, FixedLossScaleUpdateCell); the scale lives in the Parameter
    ``self.scale_sense``. Returns (loss, overflow, scale): the loss, the bool overflow flag
    and the scale this step used. The skip is a select on the overflow flag (the step keeps
    copies of what the optimizer writes and puts them back on overflow), so it is one graph
    in GRAPH mode as in PYNATIVE."""

    def __init__(self, network, optimizer, scale_sense):
        super().__init__(network, optimizer)
        from mycel.ops.composite import value_and_grad
        self.loss_scaling_manager = None
        if isinstance(scale_sense, Cell):
            if not hasattr(scale_sense, "get_loss_scale"):
                raise TypeError("For 'TrainOneStepWithLossScaleCell', a Cell 'scale_sense' "
                                "must be a loss-scale update cell (with get_loss_scale).")
            self.loss_scaling_manager = scale_sense
            value = Tensor(scale_sense.get_loss_scale(), _C.float32)
        elif isinstance(scale_sense, Tensor):
            if tuple(scale_sense.shape) not in ((), (1,)):
                raise ValueError(f"For 'TrainOneStepWithLossScaleCell', the 'scale_sense' must "
                                 f"have shape () or (1,), but got {tuple(scale_sense.shape)}.")
            value = scale_sense.astype(_C.float32).reshape(())
        else:
            raise TypeError(f"For 'TrainOneStepWithLossScaleCell', the 'scale_sense' must be a "
                            f"Tensor or a Cell, but got {type(scale_sense).__name__}.")
        self.scale_sense = Parameter(value, name="scale_sense", requires_grad=False)
        # The gradient with the scale as the backward pass's seed (sens).
        self.grad_fn = value_and_grad(_ScaledLoss(network), None, self.weights, has_aux=True)
        if self.grad_reducer is not None:
            self._overlap_reduction()
        self._state = optimizer_state(self.weights, optimizer)

    def set_sense_scale(self, sens):
        """Sets the loss scale (a Tensor of shape () or (1,))."""
        if not isinstance(sens, Tensor):
            raise TypeError(f"For 'set_sense_scale', the 'sens' must be a Tensor, but got "
                            f"{type(sens).__name__}.")
        self.scale_sense.set_data(sens.astype(_C.float32).reshape(()))

    def get_overflow_status(self, status, compute_output):
        """A bool Tensor: whether some element of the tensors in compute_output (the
        gradients) is inf or NaN. `status` (start_overflow_check's) is not needed here."""
        return _math.logical_not(all_finite_flag(compute_output))

    def start_overflow_check(self, pre_cond, compute_input):
        """(status, compute_input): this backend keeps no overflow status, so the status is a
        placeholder and compute_input comes back as it is."""
        return Tensor(0, _C.int32), compute_input

    def process_loss_scale(self, overflow):
        """Runs the update cell on the scale (if there is one) and returns overflow."""
        if self.loss_scaling_manager is not None:
            return self.loss_scaling_manager(self.scale_sense, overflow)
        return overflow

    def construct(self, *inputs):
        scale = self.scale_sense * 1.0  # this step's scale, before the update cell moves it
        (_, loss), grads = self.grad_fn(scale, *inputs)
        if self.reducer_flag:
            grads = self.grad_reducer(grads)
        unscaled = ()
        for g in grads:
            unscaled = unscaled + ((g / scale).astype(g.dtype),)
        grads = unscaled
        overflow = self.process_loss_scale(self.get_overflow_status(None, grads))
        loss = depend(loss, update_unless(self.optimizer, self._state, grads, overflow))
        return loss, overflow, scale


def optimizer_state(weights, optimizer):
    """What `optimizer` writes when called: the weights and its own state (moments, step,
    ...), each Parameter once, as a tuple."""
    seen, state = set(), []
    for p in list(weights) + list(optimizer.get_parameters()):
        if id(p) not in seen:
            seen.add(id(p))
            state.append(p)
    return tuple(state)


def update_unless(optimizer, state, grads, skip):
    """Runs ``optimizer(grads)`` and then puts back the old values of `state` (see
    optimizer_state) where the bool Tensor `skip` is true: the update happens or leaves no
    trace. A select, not a branch, so it compiles in GRAPH mode (the optimizer's loop over a
    tuple of differently-shaped Parameters cannot yet be compiled inside a run-time branch).
    Returns a value to `depend` on."""
    saved = ()
    for p in state:
        saved = saved + (p * 1,)
    # The copies are taken before the update: the optimizer's inputs depend on them (the
    # compiler orders reads before writes only for an update op's first outputs, and
    # ApplyMomentum/Adam also write their moments).
    ordered = ()
    for g in grads:
        ordered = ordered + (depend(g, saved),)
    done = optimizer(ordered)
    for p, old in zip(state, saved):
        done = depend(done, _array.assign(p, _math.select(skip, old, p)))
    return done


class _ScaledLoss(Cell):
    """``(network(*inputs) * scale, loss)``: differentiated by TrainOneStepWithLossScaleCell
    (the loss as aux), so the backward pass starts from the scale."""

    def __init__(self, network):
        super().__init__(auto_prefix=False)
        self.network = network

    def construct(self, scale, *inputs):
        loss = self.network(*inputs)
        return loss * scale, loss


class GradAccumulationCell(Cell):
    """GradAccumulationCell(network, micro_size): gradient accumulation over micro-batches.
    Called with a batch (network's inputs), it splits every Tensor input along axis 0 into
    `micro_size` equal micro-batches, runs `network` (which returns a loss) on each and
    returns the mean of their losses, so the gradient a training step takes of it (e.g.
    ``TrainOneStepCell(GradAccumulationCell(net_with_loss, k), opt)``) is the average of the
    micro-batches' gradients: for a loss that is a mean over the batch, exactly the full
    batch's gradient. Inputs that are not Tensors, or 0-d ones, go to every micro-batch as
    they are; the batch size must be a multiple of micro_size. The micro-batches run one after
    another in one step (one graph in GRAPH mode); the backward pass keeps each micro-batch's
    activations until it reaches it, so the peak memory is not lowered."""

    def __init__(self, network, micro_size):
        super().__init__(auto_prefix=False)
        if not isinstance(network, Cell):
            raise TypeError(f"For 'GradAccumulationCell', the 'network' must be a Cell, but "
                            f"got {type(network).__name__}.")
        if isinstance(micro_size, bool) or not isinstance(micro_size, int) or micro_size <= 0:
            raise ValueError(f"For 'GradAccumulationCell', the 'micro_size' must be a positive "
                             f"int, but got {micro_size!r}.")
        self.network = network
        self.micro_size = micro_size

    def construct(self, *inputs):
        return _micro_sum(self.network, inputs, self.micro_size,
                          "GradAccumulationCell") / self.micro_size


class MicroBatchInterleaved(Cell):
    """MicroBatchInterleaved(network, interleave_num=2) (MindSpore's
    ``nn.MicroBatchInterleaved``): splits every Tensor input along axis 0 into
    `interleave_num` equal slices, runs `network` on each and returns the *sum* of its
    outputs (MindSpore's semantics: a network returning a batch-mean loss gives
    interleave_num times the whole batch's mean; a sum loss gives the whole batch's sum).
    In model parallelism the slices' programs are independent, so one slice's collectives
    can overlap the other's compute; mycel runs them one after another in one graph (GRAPH
    mode) or eagerly, and the result is the same. Inputs that are not Tensors, or 0-d ones,
    go to every slice as they are; the batch size must be a multiple of interleave_num (a
    ValueError naming the shape). The network must return one Tensor."""

    def __init__(self, network, interleave_num=2):
        super().__init__(auto_prefix=False)
        if not isinstance(network, Cell):
            raise TypeError(f"For 'MicroBatchInterleaved', the 'network' must be a Cell, but "
                            f"got {type(network).__name__}.")
        if isinstance(interleave_num, bool) or not isinstance(interleave_num, int) or \
                interleave_num <= 0:
            raise ValueError(f"For 'MicroBatchInterleaved', the 'interleave_num' must be a "
                             f"positive int, but got {interleave_num!r}.")
        self.network = network
        self.interleave_num = interleave_num

    def construct(self, *inputs):
        return _micro_sum(self.network, inputs, self.interleave_num, "MicroBatchInterleaved")


def _micro_sum(network, inputs, k, who):
    """The sum of network(*micro-batch i) over the k micro-batches of the inputs."""
    total = None
    for i in range(k):
        micro = ()
        for x in inputs:
            micro = micro + (_micro_batch(x, i, k, who),)
        out = network(*micro)
        total = out if total is None else total + out
    return total


def _micro_batch(x, i, k, who):
    """Micro-batch i of k of x along axis 0 (x itself when it is not a Tensor or is 0-d)."""
    if not isinstance(x, Tensor) or x.ndim == 0:
        return x
    m = _micro_rows(x.shape, k, who)
    return x[i * m:(i + 1) * m]


@constexpr
def _micro_rows(shape, k, who):
    """Rows per micro-batch of a batch of `shape` (checked at compile time in GRAPH mode)."""
    if shape[0] % k != 0:
        what = "micro_size" if who == "GradAccumulationCell" else "interleave_num"
        raise ValueError(f"For '{who}', the batch size {shape[0]} of an input of "
                         f"shape {tuple(shape)} is not a multiple of {what} {k}.")
    return shape[0] // k


class ParameterUpdate(Cell):
    """Assigns its input to the Parameter `param` (MindSpore's ``nn.ParameterUpdate``):
    ``ParameterUpdate(opt.learning_rate)(Tensor(0.01))`` sets a learning rate from outside
    a compiled training step. Returns the new value; the input must fit the parameter's
    shape and dtype (Assign's rules)."""

    def __init__(self, param):
        super().__init__(auto_prefix=False)
        if not isinstance(param, Parameter):
            raise TypeError(f"For 'ParameterUpdate', 'param' must be a Parameter, but got "
                            f"{type(param).__name__}.")
        self._param = param

    def construct(self, x):
        _array.assign(self._param, x)
        return x


class ForwardValueAndGrad(Cell):
    """(network(*inputs), gradients) in one cell: MindSpore's ``nn.ForwardValueAndGrad``.

    The gradients are GradOperation(get_all, get_by_list, sens_param)'s: with respect to the
    first input (or all of them with get_all), and/or to `weights` (a ParameterTuple or list
    of Parameters) with get_by_list. With sens_param the last input is the sensitivity (the
    output's gradient) and is not passed to the network."""

    def __init__(self, network, weights=None, get_all=False, get_by_list=False,
                 sens_param=False):
        super().__init__(auto_prefix=False)
        if not isinstance(network, Cell):
            raise TypeError(f"For 'ForwardValueAndGrad', 'network' must be a Cell, but got "
                            f"{type(network).__name__}.")
        for name, v in (("get_all", get_all), ("get_by_list", get_by_list),
                        ("sens_param", sens_param)):
            if not isinstance(v, bool):
                raise TypeError(f"For 'ForwardValueAndGrad', '{name}' must be a bool, but got "
                                f"{type(v).__name__}.")
        if get_by_list and (not isinstance(weights, (list, tuple)) or not all(
                isinstance(w, Parameter) for w in weights)):
            raise TypeError(f"For 'ForwardValueAndGrad', 'weights' must be a ParameterTuple or "
                            f"a list of Parameters when 'get_by_list' is True, but got "
                            f"{type(weights).__name__}.")
        self.network = network
        self.weights = weights
        self.get_by_list = get_by_list
        self.sens_param = sens_param
        self.grad = GradOperation(get_all=get_all, get_by_list=get_by_list,
                                  sens_param=sens_param)

    def construct(self, *inputs):
        forward_inputs = inputs[:-1] if self.sens_param else inputs
        loss = self.network(*forward_inputs)
        if self.get_by_list:
            grads = self.grad(self.network, self.weights)(*inputs)
        else:
            grads = self.grad(self.network)(*inputs)
        return loss, grads
