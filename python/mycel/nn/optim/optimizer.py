"""Optimizer: the base of mycel's optimizers, MindSpore's ``nn.Optimizer``.

An optimizer is a Cell called with the gradients (a tuple, one per parameter, in the order
of ``parameters``); its ``construct`` updates the parameters in place with the op-table's
update ops (ApplyMomentum, SGD, Adam, ApplyAdagrad, ApplyFtrl...), or composes elementwise ops
and Assign (ASGD, Rprop, Lamb), in PYNATIVE mode and inside compiled
training steps alike. Its own state (moments, the step counter, the learning rate) is held in
Parameters, so it is saved by checkpoints with the network's.

The learning rate is a float, a 0-d Tensor, a list / 1-d Tensor of per-step values (the last
one holds after the end), or a LearningRateSchedule cell called with the step. Parameters
may be given as groups, ``[{'params': [...], 'lr': ..., 'weight_decay': ...}, ...]``, each
group overriding the optimizer's learning rate and weight decay. ``weight_decay`` is L2
regularisation added to the gradient (``g + wd * param``) unless an optimizer says otherwise.
It is a number, or (dynamic weight decay, as MindSpore's) a Cell called with the step counter
``global_step`` (a 0-d int32 tensor) that returns this step's decay; the counter then advances
each step as with a dynamic learning rate. An optimizer that fuses a fixed decay into its
update op (SGD, Lamb, AdaFactor, LARS) refuses a Cell with a TypeError.
"""
import numbers

import numpy as np

from mycel import _mycel as _C
from mycel.common import _flatten
from mycel.common.parameter import Parameter, ParameterTuple
from mycel.nn.cell import Cell
from mycel.nn.learning_rate_schedule import LearningRateSchedule
from mycel.ops.function.array_func import assign_add
from mycel.ops.function._util import prim
from mycel.ops.primitive import constexpr
from mycel.ops._multitype import HyperMap, Map

Tensor = _C.Tensor


def _lr_values(name, lr):
    """(static value or None, per-step values or None, schedule or None) from a learning rate."""
    if isinstance(lr, LearningRateSchedule):
        return None, None, lr
    if isinstance(lr, bool) or not isinstance(lr, (numbers.Real, Tensor, list, tuple)):
        raise TypeError(f"For '{name}', the 'learning_rate' must be a float, a Tensor, a list of "
                        f"floats or a LearningRateSchedule, but got {type(lr).__name__}.")
    arr = np.asarray(lr.asnumpy() if isinstance(lr, Tensor) else lr, dtype=np.float64)
    if arr.ndim > 1 or arr.size == 0:
        raise ValueError(f"For '{name}', the 'learning_rate' must be a scalar or a non-empty 1-d "
                         f"sequence, but got shape {arr.shape}.")
    if np.any(arr < 0) or not np.all(np.isfinite(arr)):
        raise ValueError(f"For '{name}', the 'learning_rate' must be finite and non-negative, "
                         f"but got {arr.tolist()}.")
    if arr.ndim == 0:
        return float(arr), None, None
    return None, arr.astype(np.float32), None


def _check_float(name, arg, v, low=None, high=None, strict=False):
    """A real number in [low, high] as a float; `strict` refuses ints too, where MindSpore's
    optimizer takes only a float (ASGD's lambd, RMSProp's momentum, ...)."""
    if isinstance(v, bool) or not isinstance(v, (float if strict else numbers.Real)):
        raise TypeError(f"For '{name}', the '{arg}' must be a float, but got "
                        f"{type(v).__name__}.")
    v = float(v)
    if (low is not None and v < low) or (high is not None and v > high):
        rng = f"[{low}, {high}]" if high is not None else f">= {low}"
        raise ValueError(f"For '{name}', the '{arg}' must be in {rng}, but got {v}.")
    return v


def _check_bool(name, arg, v):
    if not isinstance(v, bool):
        raise TypeError(f"For '{name}', the '{arg}' must be a bool, but got {type(v).__name__}.")
    return v


def _check_decay(name, wd):
    """A weight decay: a non-negative number (as a float) or a Cell (dynamic weight decay)."""
    if isinstance(wd, Cell):
        return wd
    if isinstance(wd, bool) or not isinstance(wd, numbers.Real):
        raise TypeError(f"For '{name}', the 'weight_decay' must be a float, an int or a Cell "
                        f"(dynamic weight decay), but got {type(wd).__name__}.")
    return _check_float(name, "weight_decay", wd, 0.0)


def _const(v):
    """A hyperparameter as a float32 0-d tensor (as MindSpore keeps betas and epsilons): exact
    enough for every parameter dtype, and no underflow of a small epsilon in float16."""
    return Tensor(np.float32(v))


class _Parameters(ParameterTuple):
    """Optimizer.parameters: the Parameters an optimizer updates, as MindSpore's
    ParameterTuple (``clone(prefix, init)`` makes its state); the names need not be
    distinct (the groups' checks have run)."""

    def __new__(cls, items):
        return tuple.__new__(cls, items)


class Optimizer(Cell):
    """Optimizer(learning_rate, parameters, weight_decay=0.0, loss_scale=1.0): the base class.

    Subclasses set up their state in __init__ and implement ``construct(gradients)`` with
    ``self.get_lr()``, ``self.decay_weight(gradients)`` and ``self.scale_grad(gradients)``.
    """

    # Whether the subclass reads the decay through decay_weight()/_current_decays() (so a
    # dynamic weight decay, a Cell, works); those fusing a fixed float set False.
    _dynamic_decay_ok = True

    @property
    def _mixed_precision_type(self):
        """None always: an optimizer updates its Parameters in their own dtype, so to_float
        on a network holding it (MindSpore's ``TrainStepWrap(net).to_float(float16)``) does
        not cast the gradients it is given (MindSpore casts them to float16 and its update
        ops convert them back to the Parameters' float32)."""
        return None

    @_mixed_precision_type.setter
    def _mixed_precision_type(self, value):
        pass  # (to_float's mark, ignored: see the getter)

    def __init__(self, learning_rate, parameters, weight_decay=0.0, loss_scale=1.0):
        super().__init__(auto_prefix=False)
        name = type(self).__name__
        params, groups, self.is_group = self._parse_groups(name, parameters, learning_rate,
                                                           weight_decay)
        group_of = [gi for gi, (_, _, ps) in enumerate(groups) for _ in ps]
        order = self._order_params(name, parameters, params)
        self.is_group_params_ordered = order is not None
        if order is not None:
            gid = {id(p): g for p, g in zip(params, group_of)}
            params, group_of = order, [gid[id(p)] for p in order]
        # whether any group sets its own learning rate (MindSpore's is_group_lr)
        self.is_group_lr = self.is_group and any(
            isinstance(g, dict) and "lr" in g for g in parameters)
        self._params_list = params
        self.parameters = _Parameters(params)  # what it updates, in gradient order
        self._set_flattened(params)
        # MindSpore's mapping helpers, which subclasses' construct use to update each
        # parameter (map_reverse runs the last parameter first)
        self.map_, self.map_reverse, self.hyper_map = Map(), Map(None, True), HyperMap()
        self.loss_scale = _check_float(name, "loss_scale", loss_scale)
        if self.loss_scale <= 0:
            raise ValueError(f"For '{name}', the 'loss_scale' must be positive, but got "
                             f"{self.loss_scale}.")
        self.group_lr = [g[0] for g in groups]
        self.group_weight_decay = [g[1] for g in groups]
        # One learning-rate source per group (usually one for all): attribute learning_rate
        # (or learning_rate_group<i>), a Parameter or a schedule cell.
        # MindSpore's names: a group with its own 'lr' has learning_rate_group_<i>; the others
        # share learning_rate (the optimizer's).
        own = [self.is_group and isinstance(g, dict) and "lr" in g for g in
               [g for g in parameters if isinstance(g, dict) and set(g) != {"order_params"}]] \
            if self.is_group else [False]
        self._lr_names = tuple(f"learning_rate_group_{gi}" if own[gi] else "learning_rate"
                               for gi in range(len(groups)))
        lr_static, lr_is_schedule, made, steps_len = [], [], {}, set()
        values = [_lr_values(name, lr) for lr in self.group_lr]
        # A fixed group rate beside a per-step list is held as that list's length of copies
        # (MindSpore's rule: every group's rate then reads the step counter).
        n_steps = next((len(v[1]) for v in values if v[1] is not None), None)
        for attr, (static, steps, sched) in zip(self._lr_names, values):
            if static is not None and n_steps is not None:
                static, steps = None, np.full(n_steps, static, np.float32)
            if steps is not None:
                steps_len.add(len(steps))
                if len(steps_len) > 1:  # MindSpore's rule: one length for all groups
                    raise ValueError(f"For '{name}', the dynamic learning rates of the groups "
                                     f"must have one length, but got lengths "
                                     f"{sorted(steps_len)}.")
            if attr in made:
                sched = made[attr]
            elif sched is None:
                value = np.float32(static) if static is not None else steps
                sched = Parameter(Tensor(value), attr, requires_grad=False)
            made[attr] = sched
            setattr(self, attr, sched)
            lr_static.append(static is not None)
            lr_is_schedule.append(isinstance(sched, LearningRateSchedule))
        self._lr_static, self._lr_is_schedule = tuple(lr_static), tuple(lr_is_schedule)
        self.dynamic_lr = not all(self._lr_static)
        self.global_step = Parameter(Tensor(np.array([0], np.int32)), "global_step",
                                     requires_grad=False)
        self._group_of = group_of
        if self.is_group_lr:
            self._set_lr_view(made.get("learning_rate"))
        self._decay = tuple(self.group_weight_decay[g] for g in self._group_of)
        self._init_decay(name)

    def _set_flattened(self, params):
        """MindSpore's view of flattened weights (Tensor._flatten_tensors, common/_flatten.py):
        without groups, when the parameters are exactly the views of some chunks,
        ``_use_flattened_params`` is True and ``_parameters`` holds the chunks as Parameters
        (``_grad_fusion_size`` the chunks' fusion size); otherwise ``_parameters`` is
        ``parameters``. The update itself runs on the parameters, which share the chunks'
        memory, so it is the same either way. ``cache_enable`` (one False per entry of
        ``_parameters``: mycel has no embedding cache) follows MindSpore."""
        chunks = [] if self.is_group else _flatten._get_flattened_tensors(params)
        object.__setattr__(self, "_use_flattened_params", bool(chunks))
        object.__setattr__(self, "_grad_fusion_size",
                           _flatten._get_fusion_size(chunks) if chunks else 0)
        # not registered: the chunks' memory is the parameters', which the cell holds
        object.__setattr__(self, "_parameters", ParameterTuple(
            Parameter._from_tensor(c, name=f"_chunk_param{i}_{c.dtype}", requires_grad=False)
            for i, c in enumerate(chunks)) if chunks else self.parameters)
        object.__setattr__(self, "_chunk_sizes", tuple(
            tuple(_flatten._entry(p)[3] for p in params if _flatten._entry(p)[1] is c)
            for c in chunks))
        self.cache_enable = (False,) * len(self._parameters)

    def flatten_gradients(self, gradients):
        """The gradients as the flattened chunks (one 1-d tensor per chunk of
        ``_parameters``, each the concatenation of its parameters' gradients) when the
        parameters are flattened, else as they are (MindSpore's flatten_gradients)."""
        if not self._use_flattened_params:
            return gradients
        out, k = (), 0
        for shapes in self._chunk_sizes:
            parts = ()
            for _ in shapes:
                parts = parts + (gradients[k].reshape((-1,)),)
                k += 1
            out = out + (prim("Concat", axis=0)(parts),)
        return out

    def _set_lr_view(self, shared):
        """MindSpore's ``learning_rate`` with per-group rates: one entry per parameter, in the
        order of ``parameters``: a ParameterTuple of the groups' rate Parameters when every
        rate is fixed, else a tuple of the rates as MindSpore builds them (a per-step list as
        a cell whose ``learning_rate`` Parameter holds the values, a schedule as itself). A
        view, not registered: the optimizer's own rate (`shared`, that of the groups without
        'lr') stays registered as "learning_rate" and is read as ``_learning_rate_shared``."""
        if shared is not None:
            object.__setattr__(self, "_learning_rate_shared", shared)
            self._lr_names = tuple("_learning_rate_shared" if n == "learning_rate" else n
                                   for n in self._lr_names)
        sources = [getattr(self, n) for n in self._lr_names]
        if not self.dynamic_lr:
            view = ParameterTuple(sources[g] for g in self._group_of)
        else:
            per_group = [src if self._lr_is_schedule[gi] else _IteratorLearningRate(src)
                         for gi, src in enumerate(sources)]
            view = tuple(per_group[g] for g in self._group_of)
        object.__setattr__(self, "learning_rate", view)

    def _init_decay(self, name):
        """The weight-decay views (MindSpore's): ``weight_decay`` (one float or Cell without
        groups; with groups one 0-d tensor or Cell per parameter), ``decay_flags`` (whether
        each parameter decays), ``dynamic_weight_decay``; each distinct decay Cell is a
        sub-cell ``weight_decay_cell_<k>`` (so graph code calls it)."""
        cells = []
        for wd in self._decay:
            if isinstance(wd, Cell) and all(wd is not c for c in cells):
                cells.append(wd)
        self.dynamic_weight_decay = bool(cells)
        if cells and not self._dynamic_decay_ok:
            raise TypeError(f"For '{name}', dynamic weight decay is currently not supported, the "
                            f"argument 'weight_decay' or 'weight_decay' set in grouped 'params' "
                            f"must be float or int type.")
        self._decay_cells = tuple(f"weight_decay_cell_{k}" for k in range(len(cells)))
        for attr, c in zip(self._decay_cells, cells):
            setattr(self, attr, c)
        # per parameter: the index of its decay Cell, or -1 for a fixed decay
        self._decay_cell_of = tuple(
            next((k for k, c in enumerate(cells) if c is wd), -1) for wd in self._decay)
        # MindSpore's views: one float (no groups) or one 0-d tensor per parameter, in the
        # parameters' order, and whether each parameter decays
        gwd = self.group_weight_decay[0]
        self.weight_decay = gwd if not self.is_group else tuple(
            wd if isinstance(wd, Cell) else Tensor(np.float32(wd)) for wd in self._decay)
        self.decay_flags = tuple(isinstance(wd, Cell) or wd > 0 for wd in self._decay)

    @staticmethod
    def _parse_groups(name, parameters, learning_rate, weight_decay):
        """(parameters in order, [(lr, weight_decay, group's parameters)], given as groups)."""
        if parameters is None:
            raise ValueError(f"For '{name}', the 'parameters' must be a list of Parameters (e.g. "
                             f"net.trainable_params()), but got None.")
        if isinstance(parameters, Parameter):
            raise TypeError(f"For '{name}', the 'parameters' must be a list of Parameters (e.g. "
                            f"net.trainable_params()), not one Parameter.")
        try:
            items = list(parameters)
        except TypeError:
            raise TypeError(f"For '{name}', the 'parameters' must be a list of Parameters or of "
                            f"group dicts, but got {type(parameters).__name__}.") from None
        if not items:
            raise ValueError(f"For 'Optimizer', the argument parameters must not be empty "
                             f"(building '{name}').")
        wd = _check_decay(name, weight_decay)
        is_group = isinstance(items[0], dict)
        groups = [] if is_group else [(learning_rate, wd, items)]
        for g in items if is_group else ():
            if isinstance(g, dict) and set(g) == {"order_params"}:
                continue  # the order of the parameters, read by _order_params
            if not isinstance(g, dict) or "params" not in g:
                raise TypeError(f"For '{name}', a parameter group must be a dict with "
                                f"'params', but got {g!r}.")
            unknown = set(g) - {"params", "lr", "weight_decay", "grad_centralization",
                                "order_params"}
            if unknown:
                raise ValueError(f"For '{name}', unknown parameter-group keys "
                                 f"{sorted(unknown)}.")
            gwd = _check_decay(name, g.get("weight_decay", wd))
            groups.append((g.get("lr", learning_rate), gwd, list(g["params"])))
        params, seen = [], set()
        for _, _, ps in groups:
            for p in ps:
                if not isinstance(p, Parameter):
                    where = "a group's 'params'" if is_group else "'parameters'"
                    raise TypeError(f"For '{name}', every element of {where} must be a "
                                    f"Parameter, but got {type(p).__name__}.")
                if id(p) in seen:  # MindSpore's type for a repeated parameter
                    raise RuntimeError(f"For '{name}', the parameter '{p.name}' is given "
                                       f"twice.")
                seen.add(id(p))
                params.append(p)
        return params, groups, is_group

    @staticmethod
    def _order_params(name, parameters, params):
        """The parameters in the order of a group ``{'order_params': [...]}`` (MindSpore's way
        of giving the gradients' order when groups split the network's parameters), or None
        without one. It must list exactly the groups' parameters."""
        if isinstance(parameters, Parameter):
            return None
        orders = [g["order_params"] for g in parameters
                  if isinstance(g, dict) and set(g) == {"order_params"}]
        if not orders:
            return None
        order = list(orders[-1])
        given = {id(p) for p in params}
        if len(order) != len(params) or {id(p) for p in order} != given:
            extra = [getattr(p, "name", repr(p)) for p in order if id(p) not in given]
            raise ValueError(f"For '{name}', 'order_params' must list exactly the parameters "
                             f"of the groups ({len(params)}), but got {len(order)}"
                             + (f"; not in any group: {extra}" if extra else "") + ".")
        return order

    def construct(self, *gradients):
        """A subclass's update; the base class has none."""
        raise NotImplementedError(f"For '{type(self).__name__}', an optimizer must implement "
                                  f"construct(gradients).")

    def _state(self, prefix, init="zeros", scalar=False, sep=".", dtype=None):
        """One new Parameter per parameter (of its shape and dtype, or 0-d with `scalar`, or of
        `dtype`) named prefix + sep + its name (MindSpore's ``parameters.clone(prefix, init)``),
        registered on this cell; returns them as a tuple. `init` is "zeros", "ones" or a
        number."""
        out = []
        value = {"zeros": 0.0, "ones": 1.0}[init] if isinstance(init, str) else float(init)
        for i, p in enumerate(self._params_list):
            t = Tensor(np.full(() if scalar else tuple(p.shape), value, np.float64))
            t = t.astype(p.dtype if dtype is None else dtype)
            s = Parameter(t, f"{prefix}{sep}{p.name}", requires_grad=False)
            if not scalar and getattr(p, "_spmd_layout", None) is not None:
                # p holds its slice (semi_auto_parallel): so does its state, laid out alike.
                s._spmd_layout, s._spmd_global_shape = p._spmd_layout, p._spmd_global_shape
            if not scalar:
                s._state_of = i  # the state of parameter i, read by optimizer parallelism
            self.insert_param_to_cell(f"{prefix}_{i}", s)
            s.name = f"{prefix}{sep}{p.name}"
            out.append(s)
        return tuple(out)

    def _current_lr(self):
        """The learning rates of this step, one per group (a tuple), without a side effect."""
        lrs = ()
        for gi, name in enumerate(self._lr_names):
            lr = getattr(self, name)
            if self._lr_static[gi]:
                lrs = lrs + (lr,)
            elif self._lr_is_schedule[gi]:
                lrs = lrs + (lr(self.global_step.reshape(())),)
            else:
                step = prim("Minimum")(self.global_step.reshape(()), lr.shape[0] - 1)
                lrs = lrs + (prim("Gather", axis=0)(lr, step),)
        return lrs

    def get_lr(self):
        """The learning rate of this step (a tuple, one per group, with groups): a 0-d float32
        tensor. A dynamic rate (or a dynamic weight decay) reads the step counter, which is
        then incremented."""
        lrs = self._current_lr()
        if self.dynamic_lr or self.dynamic_weight_decay:
            assign_add(self.global_step, 1)
        return lrs[0] if len(lrs) == 1 else lrs

    def get_lr_parameter(self, param):
        """The learning rate of the group holding `param` (a Parameter, or a list of them for
        a list), as MindSpore's: the group's learning-rate Parameter (0-d for a fixed rate,
        the per-step values for a list, read by the step counter) or its
        LearningRateSchedule cell. It has no side effect (get_lr() gives this step's rate)."""
        idx = {id(p): i for i, p in enumerate(self._params_list)}
        for p in (param,) if isinstance(param, Parameter) else param:
            if not isinstance(p, Parameter):
                raise TypeError(f"For 'get_lr_parameter', the parameter must be a Parameter or "
                                f"a list of Parameters, but got {type(p).__name__}.")
            if id(p) not in idx:
                raise ValueError(f"For 'get_lr_parameter', the parameter '{p.name}' is not "
                                 f"updated by this optimizer.")

        def rate(p):
            return getattr(self, self._lr_names[self._group_of[idx[id(p)]]])
        if isinstance(param, Parameter):
            return rate(param)
        return [rate(p) for p in param]

    def lr_of(self, lrs, i):
        """The learning rate of parameter i from get_lr()'s result."""
        return lrs[self._group_of[i]] if isinstance(lrs, tuple) else lrs

    def _current_decays(self):
        """This step's weight decay of each parameter (a tuple): its float, or its decay
        Cell's value at the step counter (a 0-d tensor; each Cell runs once). Optimizers read
        it before get_lr(), which advances the counter."""
        if not self.dynamic_weight_decay:
            return self._decay
        step = self.global_step.reshape(())
        values = ()
        for attr in self._decay_cells:
            values = values + (getattr(self, attr)(step),)
        out = ()
        for i in range(len(self._decay)):
            k = self._decay_cell_of[i]
            out = out + ((self._decay[i] if k < 0 else values[k]),)
        return out

    def get_weight_decay(self):
        """This step's weight decay (MindSpore's get_weight_decay): without groups one value
        (a float, or a 0-d tensor from the decay Cell), with groups a tuple of one per
        parameter."""
        decays = self._current_decays()
        return decays if self.is_group else decays[0]

    def decay_weight(self, gradients):
        """gradients + weight_decay * parameters, for parameters that decay (a dynamic
        decay at this step's value, cast to each parameter's dtype)."""
        decays = self._current_decays()
        out = ()
        for i, (p, g) in enumerate(zip(self.parameters, gradients)):
            wd = decays[i]
            if self._decay_cell_of[i] >= 0:
                out = out + (g + prim("Cast", dtype=p.dtype)(wd) * p,)
            elif wd > 0:
                out = out + (g + wd * p,)
            else:
                out = out + (g,)
        return out

    def scale_grad(self, gradients):
        """gradients / loss_scale (when loss_scale is not 1)."""
        if self.loss_scale == 1.0:
            return gradients
        out = ()
        for g in gradients:
            out = out + (g * (1.0 / self.loss_scale),)
        return out



class _IteratorLearningRate(Cell):
    """A per-step learning rate (MindSpore's ``_IteratorLearningRate``): ``learning_rate`` is
    the Parameter of the values; called with the step counter it gives that step's value (the
    last one after the end)."""

    def __init__(self, values):
        super().__init__(auto_prefix=False)
        object.__setattr__(self, "learning_rate", values)  # the optimizer's Parameter

    def construct(self, global_step):
        step = prim("Minimum")(global_step.reshape(()), self.learning_rate.shape[0] - 1)
        return prim("Gather", axis=0)(self.learning_rate, step)


def check_grad_count(name, gradients, want):
    """Raises unless an optimizer got a tuple (or list) of one gradient per parameter: a
    TypeError for anything else (a bare Tensor would be iterated by rows), a ValueError for
    another count; at compile time in graphs."""
    is_seq = isinstance(gradients, (tuple, list))
    _check_grads(name, is_seq, len(gradients) if is_seq else -1, want)


@constexpr
def _check_grads(name, is_seq, got, want):
    if not is_seq:
        raise TypeError(f"For '{name}', the gradients must be a tuple of {want} tensors (one "
                        f"per parameter, in the order of 'parameters'), not a single value.")
    if got != want:
        raise ValueError(f"For '{name}', the gradients must be a tuple of {want} tensors (one per "
                         f"parameter, in the order of 'parameters'), but got {got}.")
