"""Cell: the base class of networks, as MindSpore's nn.Cell. Subclasses define
``construct``; calling the cell runs it. In PYNATIVE mode every op inside runs eagerly.
Sub-cells and Parameters assigned as attributes are tracked, in assignment order. As in
MindSpore, an unnamed Parameter takes its attribute's name, and assigning a cell into another
(with auto_prefix, the default) prefixes its parameters' names with the attribute path
("fc1.weight").

Mixed precision, as MindSpore's ``Cell.to_float(dst_type)``: a cell so marked (and each of its
sub-cells) casts its floating-point tensor inputs (also inside tuples and lists) and the
Parameters it reads to dst_type before running construct. Outputs keep the dtype construct
gives them; gradients reach the float32 Parameters through the casts. A cell class whose ops
update Parameters in place sets ``_to_float_params = False``: only its inputs are cast
(BatchNorm: half-precision input, float32 parameters and moving statistics, which a cast
copy would not update). In PYNATIVE mode ``__call__`` casts the inputs and, while construct
runs, shows the cast Parameters as the cell's attributes; in GRAPH mode the compiler inserts
the same casts where a cell is called and where construct reads a Parameter of a marked cell
(see compiler/host.h, Host::mixed_precision)."""
from collections import OrderedDict

from mycel import _mycel as _C
from mycel.common import _flatten
from mycel.common.parameter import Parameter, _is_parameter_generated
from mycel.parallel.context import _context as _parallel_context

# Bumped by every set_train() and to_float(): compiled cells re-read their phase then.
_TRAIN_VERSION = [0]

_FLOAT_TYPES = (_C.float16, _C.bfloat16, _C.float32, _C.float64)


def _cast_inputs(inputs, dst_type):
    """inputs with every floating-point Tensor (also inside tuples and lists) cast to
    dst_type; everything else as it is."""
    out = []
    for x in inputs:
        if isinstance(x, (tuple, list)):
            x = type(x)(_cast_inputs(x, dst_type))
        elif isinstance(x, _C.Tensor) and x.dtype != dst_type and x.dtype in _FLOAT_TYPES:
            x = x.astype(dst_type)
        out.append(x)
    return out


_HAS_BPROP = {}


def _defines_bprop(cls):
    """Whether a Cell subclass (or a base other than Cell) defines bprop (memoised)."""
    r = _HAS_BPROP.get(cls)
    if r is None:
        r = _HAS_BPROP[cls] = any("bprop" in c.__dict__ for c in cls.__mro__ if c is not Cell)
    return r



_FIRST_SELF = {}


def _first_param_is_self(cls):
    """Whether cls.construct's first parameter is named 'self' (memoised)."""
    r = _FIRST_SELF.get(cls)
    if r is None:
        code = getattr(cls.construct, "__code__", None)
        r = code is None or (code.co_argcount > 0 and code.co_varnames[0] == "self")
        _FIRST_SELF[cls] = r
    return r


def _check_construct_call(cell, inputs, kwargs):
    """For a construct whose first parameter is not 'self': a TypeError saying so when the
    call's arguments do not fit it (``def construct(x)`` takes x as the cell)."""
    import inspect
    fn = type(cell).construct
    try:
        inspect.signature(fn).bind(cell, *inputs, **kwargs)
    except TypeError as e:
        raise TypeError(f"For '{type(cell).__name__}', construct{inspect.signature(fn)} does "
                        f"not take these {len(inputs) + len(kwargs)} argument(s) ({e}): a "
                        f"method's first parameter is the cell itself, 'self'.") from None


class _KwargsHook:
    """A forward (pre-)hook registered with_kwargs: called with the call's keyword inputs."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, *args):
        return self.fn(*args)


def _with_kwargs(hook_fn, with_kwargs):
    if not isinstance(with_kwargs, bool):
        raise TypeError(f"'with_kwargs' must be a bool, but got {type(with_kwargs).__name__}.")
    return _KwargsHook(hook_fn) if with_kwargs and callable(hook_fn) else hook_fn


class HookHandle:
    """What register_forward_pre_hook/register_forward_hook return: ``remove()``
    unregisters the hook (a second remove() does nothing)."""
    _next = [0]

    def __init__(self, cell, attr):
        HookHandle._next[0] += 1
        self.id = HookHandle._next[0]
        self._cell, self._attr = cell, attr

    def remove(self):
        hooks = self._cell.__dict__.get(self._attr)
        if hooks is not None and self.id in hooks:
            del hooks[self.id]
            if not hooks:  # no hooks left: the plain call path again
                del self._cell.__dict__[self._attr]

# Cell.shard's work: mycel.parallel.shard, a layer above nn, installs it when it loads (the
# mycel package imports it), so nn never imports parallel.
_SHARD_CELL = [None]


def _construct_function(cell):
    """The function GRAPH mode compiles for cell: its class's construct, or another method of
    the cell set on the instance (``setattr(net, "construct", net.construct2)``, as
    MindSpore's test framework picks one of several constructs)."""
    own = cell.__dict__.get("construct")
    if own is not None and getattr(own, "__self__", None) is cell:
        return own.__func__
    return type(cell).construct


class Cell:
    """Base class of layers and networks: subclasses implement construct(*inputs)."""

    # The dtype set by to_float(), or None: read by __call__ and by the graph compiler.
    _mixed_precision_type = None
    # Whether to_float also casts the Parameters construct reads (not only the inputs).
    _to_float_params = True
    # Set by recompute(): None (off) or whether the outputs are recomputed too; read by the
    # graph compiler (Host::recompute).
    _recompute_output = None
    # How many times a Parameter attribute was given another Parameter object: part of the
    # GRAPH-mode cache key (a compiled graph reads the Parameter objects it was compiled with).
    _param_binding = 0

    def __init__(self, auto_prefix=True, flags=None):
        object.__setattr__(self, "_cells", OrderedDict())
        object.__setattr__(self, "_params", OrderedDict())
        object.__setattr__(self, "training", False)
        self._auto_prefix = auto_prefix
        if flags:
            self.add_flags(**flags)

    def __setattr__(self, name, value):
        cells = self.__dict__.get("_cells")
        params = self.__dict__.get("_params")
        # A Parameter or sub-cell attribute set to None keeps its kind (MindSpore's rule):
        # only a value of that kind (or None) may be assigned to it later.
        cleared = self.__dict__.get("_cleared_slots")
        kind = cleared.get(name) if cleared else None
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError(f"cannot assign parameter '{name}' before "
                                     f"Cell.__init__() is called")
            if _is_parameter_generated(value.name):
                value.name = name
            cells.pop(name, None)
            old = params.get(name)
            if old is not None and old is not value:
                # another Parameter object in this slot: the graphs that read the old one
                # are keyed off (_compiled_construct's phase), so they compile for the new one
                object.__setattr__(self, "_param_binding", self._param_binding + 1)
                _TRAIN_VERSION[0] += 1
            params[name] = value
        elif isinstance(value, Cell):
            if cells is None:
                raise AttributeError(f"cannot assign sub-cell '{name}' before "
                                     f"Cell.__init__() is called")
            if (params is not None and name in params) or kind == "Parameter":
                raise KeyError(f"For '{type(self).__name__}', the attribute '{name}' is a "
                               f"Parameter: a Cell cannot be assigned to it.")
            cells[name] = value
            if self.__dict__.get("_auto_prefix", True):
                value.update_parameters_name(name + ".")
        elif params is not None and isinstance(value, _C.Tensor) and \
                isinstance(params.get(name), Parameter):
            # A Tensor given to a Parameter attribute becomes its data (MindSpore's rule, and
            # what graph mode's `self.p = v` does): the Parameter stays registered.
            params[name].set_data(value)
            return
        elif value is None and ((params and name in params) or (cells and name in cells)):
            if cleared is None:
                cleared = {}
                object.__setattr__(self, "_cleared_slots", cleared)
            cleared[name] = "Parameter" if name in params else "Cell"
            params.pop(name, None)
            cells.pop(name, None)
        elif kind is not None and value is not None:
            raise TypeError(f"For '{type(self).__name__}', the attribute '{name}' held a {kind} "
                            f"(set to None since): it takes a {kind} or None, but got "
                            f"{type(value).__name__}.")
        else:
            if cells is not None:
                cells.pop(name, None)
            if params is not None:
                params.pop(name, None)
        if kind is not None and value is not None:
            del cleared[name]
        object.__setattr__(self, name, value)

    def __getattr__(self, name):
        # only reached when normal lookup fails: say why when __init__ skipped Cell's
        if "_cells" not in self.__dict__ and not name.startswith("__"):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}': "
                                 f"its __init__ must call super().__init__() before using the "
                                 f"Cell.")
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        self.__dict__.get("_cleared_slots", {}).pop(name, None)
        self.__dict__.get("_cells", {}).pop(name, None)
        self.__dict__.get("_params", {}).pop(name, None)
        object.__delattr__(self, name)

    def construct(self, *inputs, **kwargs):
        """The computation; subclasses override it (calling a cell that does not is an
        AttributeError, as in MindSpore)."""
        raise AttributeError(f"'{type(self).__name__}' has no construct(): a Cell must define "
                             "construct() to be called")

    def __call__(self, *inputs, **kwargs):
        d = self.__dict__
        if "_cells" not in d:
            self._cells  # noqa: B018 (__getattr__'s error: __init__ skipped Cell's)
        if "_forward_pre_hooks" in d or "_forward_hooks" in d or "_backward_hooks" in d or \
                "_backward_pre_hooks" in d:
            return self._call_hooked(inputs, kwargs)
        return self._call_unhooked(inputs, kwargs)

    def _call_unhooked(self, inputs, kwargs):
        from mycel import context
        if type(self).construct is Cell.construct:
            self.construct()  # the AttributeError, in either mode
        if not _first_param_is_self(type(self)):
            _check_construct_call(self, inputs, kwargs)
        dst = self._mixed_precision_type
        if dst is not None:
            inputs = _cast_inputs(inputs, dst)
            kwargs = dict(zip(kwargs, _cast_inputs(kwargs.values(), dst)))
        if context._context["mode"] == context.GRAPH_MODE:
            graph = self._compiled_construct()
            return graph.call_keyed(graph._phase, inputs, kwargs)
        if _parallel_context["parallel_mode"] in ("semi_auto_parallel", "auto_parallel"):
            raise ValueError(f"{_parallel_context['parallel_mode']} runs sharded networks in "
                             "GRAPH mode only "
                             "(as MindSpore): call mycel.set_context(mode=mycel.GRAPH_MODE).")
        if dst is not None and self._to_float_params:
            return self._call_cast_params(dst, inputs, kwargs)
        return self._run_construct(inputs, kwargs)

    def _compiled_construct(self):
        """The jit function compiling this Cell's construct (GRAPH mode's, and the data
        sink's), its ``_phase`` up to date: the graph reads the training flags, the to_float
        dtypes and the recompute marks as constants, and the Parameter objects the cells hold
        (their _param_binding counts rebindings), so they key the cache. They are collected again only after some
        set_train()/to_float()."""
        graph = self.__dict__.get("_mycel_graph")
        if graph is None:
            from mycel.common.api import _JitFunction
            self.check_names()
            graph = _JitFunction(_construct_function(self), self)
            object.__setattr__(self, "_mycel_graph", graph)
            inputs = self.__dict__.get("_mycel_inputs")
            if inputs is not None:
                graph._set_input_signature(inputs)
        if graph._phase_version != _TRAIN_VERSION[0]:
            graph._phase = tuple((c.training, c._mixed_precision_type, c._recompute_output,
                                  c._param_binding) for _, c in self.cells_and_names())
            graph._phase_version = _TRAIN_VERSION[0]
        return graph

    def shard(self, in_strategy, out_strategy=None, parameter_plan=None, device="Ascend",
              level=0):
        """Shards this Cell by the layouts of its inputs and outputs (MindSpore 2.x's
        ``Cell.shard``; ``mycel.shard`` has the details, ``parallel/shard.py`` the how):
        ``in_strategy`` one tuple of slices per input (None: as it arrives), ``out_strategy``
        the same for the outputs; the ops inside are laid out from them by the strategy
        search (auto_parallel, sharding_propagation) or the rewrite (semi_auto_parallel).
        Every later call of this Cell is sharded, also inside other networks. Returns the
        Cell."""
        return _SHARD_CELL[0](self, in_strategy, out_strategy, parameter_plan, device, level)

    def set_inputs(self, *inputs):
        """Declares the inputs of construct for GRAPH mode (MindSpore's ``Cell.set_inputs``):
        one entry per positional input, a placeholder ``Tensor(shape=[None, 1, 28, 28],
        dtype=ms.float32)`` whose None dimensions may change between calls, a Tensor (its
        shape fixed), or None (compiled as without set_inputs). The construct is then compiled
        once with those dimensions dynamic, so new batch sizes do not recompile; a call whose
        inputs do not fit (another dtype or rank, a fixed dimension that differs) is an error
        naming the input. In PYNATIVE mode nothing is compiled and the call is unchanged."""
        from mycel.common.tensor import _input_spec
        specs = [_input_spec(t) for t in inputs]
        object.__setattr__(self, "_mycel_inputs", tuple(inputs))
        graph = self.__dict__.get("_mycel_graph")
        if graph is not None:
            graph._set_input_signature(tuple(inputs), specs)

    def get_inputs(self):
        """The inputs given to set_inputs, or None."""
        return self.__dict__.get("_mycel_inputs")

    def register_forward_pre_hook(self, hook_fn, with_kwargs=False):
        """Registers ``hook_fn(cell, inputs)``, run before each call of this Cell from Python
        with the positional inputs as a tuple; a value it returns (a tuple, or one input)
        replaces them. With ``with_kwargs`` it is ``hook_fn(cell, inputs, kwargs)`` and returns
        None or ``(new_inputs, new_kwargs)`` (another value is a RuntimeError). Hooks run in
        PYNATIVE mode and around the outermost Cell in GRAPH mode; a Cell with hooks called
        inside graph code is a TypeError (MindSpore runs them in PYNATIVE mode only). Returns
        a handle whose ``remove()`` unregisters it."""
        return self._add_hook("_forward_pre_hooks", _with_kwargs(hook_fn, with_kwargs),
                              "register_forward_pre_hook")

    def register_forward_hook(self, hook_fn, with_kwargs=False):
        """Registers ``hook_fn(cell, inputs, output)``, run after each call of this Cell from
        Python (with ``with_kwargs``: ``hook_fn(cell, inputs, kwargs, output)``); a value it
        returns replaces the output. Where hooks run: as register_forward_pre_hook. Returns a
        handle whose ``remove()`` unregisters it."""
        return self._add_hook("_forward_hooks", _with_kwargs(hook_fn, with_kwargs),
                              "register_forward_hook")

    def register_backward_hook(self, hook_fn):
        """Registers ``hook_fn(cell, grad_input, grad_output)``, run in a PYNATIVE grad once the
        gradient of this Cell's input is known: ``grad_input`` is the tuple of the gradients of
        its Tensor inputs, ``grad_output`` that of its outputs (None for an output no gradient
        reached); a tuple it returns replaces ``grad_input`` (None keeps it). The gradients of
        the Cell's weights are unchanged. Backward hooks run in PYNATIVE mode only: calling the
        Cell inside graph code (GRAPH mode, a @jit function or construct) or differentiating it
        in GRAPH mode while it has one is a TypeError (MindSpore skips them there, which gives
        a different gradient than PYNATIVE's). mycel supports them on Cells with one Tensor input (a call with more
        is a NotImplementedError). Returns a handle whose ``remove()`` unregisters it."""
        return self._add_hook("_backward_hooks", hook_fn, "register_backward_hook")

    def register_backward_pre_hook(self, hook_fn):
        """Registers ``hook_fn(cell, grad_output)``, run in a PYNATIVE grad when the gradient
        of this Cell's output reaches it, before the gradients of its inputs are computed:
        ``grad_output`` is the tuple of the output's gradient; a value it returns (a tuple of
        one Tensor, or the Tensor) replaces it, None keeps it (torch's
        ``register_full_backward_pre_hook``). Where it runs: as register_backward_hook. mycel
        supports it on Cells with one Tensor output (a call returning more is a
        NotImplementedError). Returns a handle whose ``remove()`` unregisters it."""
        return self._add_hook("_backward_pre_hooks", hook_fn, "register_backward_pre_hook")

    def _call_backward_hooked(self, inputs, kwargs):
        """A call in a PYNATIVE grad with backward (pre-)hooks: the input and the outputs pass
        through identities whose gradient rules see the gradients (common/grad_hooks.py)."""
        from mycel.common.grad_hooks import pass_gradient
        hooks = self.__dict__.get("_backward_hooks")
        pre = self.__dict__.get("_backward_pre_hooks")
        grad_output = {}
        n_out = [0]
        inputs = list(inputs)
        if hooks:
            pos = [i for i, a in enumerate(inputs) if isinstance(a, _C.Tensor)]
            if len(pos) != 1:
                raise NotImplementedError(
                    f"For 'register_backward_hook', mycel supports Cells called with one Tensor "
                    f"input; {type(self).__name__} was called with {len(pos)}.")

            def on_input_grad(g):
                outs = tuple(grad_output.get(k) for k in range(n_out[0]))
                grads = (g,)
                for fn in list(self.__dict__.get("_backward_hooks", {}).values()):
                    new = fn(self, grads, outs)
                    if new is not None:
                        grads = tuple(new) if isinstance(new, (tuple, list)) else (new,)
                        if len(grads) != 1:
                            raise TypeError(f"For 'register_backward_hook', the hook must "
                                            f"return None or 1 gradient (one per Tensor "
                                            f"input), but it returned {len(grads)}.")
                return grads[0]

            inputs[pos[0]] = pass_gradient(inputs[pos[0]], on_input_grad,
                                           "register_backward_hook")

        def keep(k):
            def on_output_grad(g):
                for fn in list(self.__dict__.get("_backward_pre_hooks", {}).values()):
                    new = fn(self, (g,))
                    if new is not None:
                        new = tuple(new) if isinstance(new, (tuple, list)) else (new,)
                        if len(new) != 1:
                            raise TypeError(f"For 'register_backward_pre_hook', the hook must "
                                            f"return None or 1 gradient (one per output), but "
                                            f"it returned {len(new)}.")
                        g = new[0]
                grad_output[k] = g
                return g
            return on_output_grad

        out = self._call_unhooked(tuple(inputs), kwargs)
        if isinstance(out, _C.Tensor):
            n_out[0] = 1
            return pass_gradient(out, keep(0), "register_backward_hook")
        if pre:
            raise NotImplementedError(
                f"For 'register_backward_pre_hook', mycel supports Cells with one Tensor "
                f"output; {type(self).__name__} returned {type(out).__name__}.")
        if isinstance(out, tuple):
            n_out[0] = len(out)
            return tuple(pass_gradient(o, keep(k), "register_backward_hook")
                         if isinstance(o, _C.Tensor) else o for k, o in enumerate(out))
        return out

    def _add_hook(self, attr, hook_fn, who):
        if not callable(hook_fn):
            raise TypeError(f"For '{who}', the 'hook_fn' must be callable, but got "
                            f"{type(hook_fn).__name__}.")
        hooks = self.__dict__.get(attr)
        if hooks is None:
            hooks = {}
            object.__setattr__(self, attr, hooks)
        handle = HookHandle(self, attr)
        hooks[handle.id] = hook_fn
        return handle

    def _call_hooked(self, inputs, kwargs):
        """A call with forward hooks: the pre-hooks (in registration order) may replace the
        inputs, the forward hooks the output."""
        for fn in list(self.__dict__.get("_forward_pre_hooks", {}).values()):
            if isinstance(fn, _KwargsHook):
                new = fn.fn(self, inputs, kwargs)
                if new is not None:
                    if not (isinstance(new, tuple) and len(new) == 2 and
                            isinstance(new[1], dict)):
                        raise RuntimeError("forward pre hook with kwargs must return None or a "
                                           "tuple of (new_args, new_kwargs), but got "
                                           f"{type(new).__name__}.")
                    inputs = tuple(new[0]) if isinstance(new[0], (tuple, list)) else (new[0],)
                    kwargs = new[1]
                continue
            new = fn(self, inputs)
            if new is not None:
                inputs = new if isinstance(new, tuple) else (new,)
        if (self.__dict__.get("_backward_hooks") or self.__dict__.get("_backward_pre_hooks")) \
                and _C._recording():
            out = self._call_backward_hooked(inputs, kwargs)
        else:
            out = self._call_unhooked(inputs, kwargs)
        for fn in list(self.__dict__.get("_forward_hooks", {}).values()):
            new = fn.fn(self, inputs, kwargs, out) if isinstance(fn, _KwargsHook) else \
                fn(self, inputs, out)
            if new is not None:
                out = new
        return out

    def _run_construct(self, inputs, kwargs):
        """construct(*inputs, **kwargs), or in a PYNATIVE grad its bprop when it has one."""
        if _defines_bprop(type(self)) and _C._recording():
            return self._call_with_bprop(inputs, kwargs)
        return self.construct(*inputs, **kwargs)

    def _call_cast_params(self, dst, inputs, kwargs):
        """Runs construct while this cell's floating-point Parameters read as their casts to
        dst (PYNATIVE to_float; the casts are recorded, so gradients reach the Parameters)."""
        shown = {name: self.__dict__[name] for name, p in self._params.items()
                 if p.dtype != dst and p.dtype in _FLOAT_TYPES and self.__dict__.get(name) is p}
        for name, p in shown.items():
            object.__setattr__(self, name, p.astype(dst))
        try:
            return self._run_construct(inputs, kwargs)
        finally:
            for name, p in shown.items():
                object.__setattr__(self, name, p)

    def _call_with_bprop(self, inputs, kwargs):
        """PYNATIVE grad of a Cell with its own ``bprop(self, *inputs, out, dout)``: the
        forward runs unrecorded; the recording gets one call whose gradient is bprop."""
        from mycel._mycel import Tensor
        if kwargs:
            raise TypeError(f"{type(self).__name__}: a Cell with bprop takes positional inputs")
        pos = [i for i, a in enumerate(inputs) if isinstance(a, Tensor)]

        def rule(*args):
            tensors, out, dout = args[:-2], args[-2], args[-1]
            full = list(inputs)
            for i, t in zip(pos, tensors):
                full[i] = t
            grads = self.bprop(*full, out, dout)
            name = type(self).__name__
            code = type(self).bprop.__code__
            where = f'\n  File "{code.co_filename}", line {code.co_firstlineno}'

            # one gradient per input, first; values after them (MindSpore lets a bprop
            # return more, such as out and dout) are not used
            if not isinstance(grads, (tuple, list)) or len(grads) < len(inputs):
                seq = isinstance(grads, (tuple, list))
                got = len(grads) if seq else type(grads).__name__
                head = "" if seq else "For bprop function, output should be a tuple: "
                raise TypeError(f"{head}the bprop of Cell '{name}' must return a tuple of "
                                f"{len(inputs)} gradients (one per input, first), but it "
                                f"returns {got}{where}")
            for i in pos:
                g, x = grads[i], inputs[i]
                if not isinstance(g, Tensor) or tuple(g.shape) != tuple(x.shape) or \
                        g.dtype != x.dtype:
                    desc = (f"{g.dtype}{list(g.shape)}" if isinstance(g, Tensor)
                            else type(g).__name__)
                    raise TypeError(f"the bprop of Cell '{name}' returns {desc} as the gradient "
                                    f"of input {i}, which is {x.dtype}{list(x.shape)}{where}")
            return tuple(grads[i] for i in pos)

        return _C._call_custom_bprop(lambda: self.construct(*inputs), rule,
                                     [inputs[i] for i in pos])

    def extend_repr(self):
        """The layer's settings shown inside its repr ("in_channels=3, ..."); '' by default."""
        return ""

    def __repr__(self):
        """MindSpore's form: ``Dense<input_channels=3, ...>``, sub-cells one per line."""
        extra = self.extend_repr()
        if not self._cells:
            return f"{type(self).__name__}<{extra}>"
        body = "\n" + (f"{extra}\n" if extra else "")
        for name, cell in self._cells.items():
            body += f"({name}): {cell!r}\n"
        return f"{type(self).__name__}<" + body.replace("\n", "\n  ") + ">"

    def to_float(self, dst_type):
        """Mixed precision: this cell and its sub-cells cast their floating-point inputs and
        the Parameters they read to dst_type (float16, bfloat16 or float32) before computing,
        in both modes; outputs keep the dtype the computation gives (float16 for a Dense).
        The Parameters themselves stay as they are (float32 master weights) and get their
        gradients through the casts; BatchNorm keeps computing with its float32 parameters
        and moving statistics (its input is cast). A later call overwrites. Returns self."""
        if not isinstance(dst_type, _C.DType) or dst_type not in (_C.float16, _C.bfloat16,
                                                                   _C.float32):
            raise ValueError(f"For 'to_float', the argument 'dst_type' must be float16, "
                             f"bfloat16 or float32, but got {dst_type!r}.")
        for _, cell in self.cells_and_names():
            object.__setattr__(cell, "_mixed_precision_type", dst_type)
        _TRAIN_VERSION[0] += 1
        return self

    def recompute(self, mode=True, output_recompute=False, **kwargs):
        """Recomputation (MindSpore's ``Cell.recompute``): in GRAPH mode, the activations
        computed inside this cell (its sub-cells and the functions it calls included) that
        the gradient needs are not kept from the forward pass: the backward computes them
        again from the cell's inputs, just before the cell's own backward runs. Peak memory
        drops by the cell's internal activations, for one more forward of the cell per step;
        gradients are unchanged. The cell's outputs are kept unless ``output_recompute``
        (then an output that feeds another recomputed cell is recomputed with it).
        Operators that draw random numbers (Dropout), write their inputs or communicate are
        not recomputed: their outputs are kept, so a recomputed cell sees the same random
        values. ``mode=False`` turns it off. PYNATIVE mode keeps every activation (the
        gradient recorder holds the forward's tensors), so the mark has no effect there.
        Set it before the network is first compiled. Returns self.

        MindSpore's keyword options for model-parallel communication, ``mp_comm_recompute``
        and ``parallel_optimizer_comm_recompute`` (bools), are checked and accepted; mycel
        never recomputes communication operators whatever they say (their outputs are kept),
        which changes memory use only, not results."""
        for k in kwargs:
            if k not in ("mp_comm_recompute", "parallel_optimizer_comm_recompute"):
                raise TypeError(f"For 'Cell.recompute', got an unexpected keyword argument "
                                f"'{k}'.")
        for name, v in (("mode", mode), ("output_recompute", output_recompute),
                        *kwargs.items()):
            if not isinstance(v, bool):
                raise TypeError(f"For 'Cell.recompute', '{name}' must be a bool, but got "
                                f"{type(v).__name__}.")
        object.__setattr__(self, "_recompute_output", output_recompute if mode else None)
        _TRAIN_VERSION[0] += 1
        return self

    def get_scope(self):
        """The cell's scope name (MindSpore's ``Cell.get_scope``): "recompute_" while
        recompute() marks it, else None (mycel names graph nodes by the cells' attribute
        paths, so no other scope is set)."""
        return "recompute_" if self._recompute_output is not None else None

    def name_cells(self):
        """The direct sub-cells by attribute name."""
        return OrderedDict(self._cells)

    def cells(self):
        """The direct sub-cells."""
        return list(self._cells.values())

    def cells_and_names(self, cells=None, name_prefix=""):
        """(name, cell) for this cell and every sub-cell, depth first."""
        seen = set() if cells is None else cells
        if id(self) in seen:
            return
        seen.add(id(self))
        yield name_prefix, self
        for name, cell in self._cells.items():
            prefix = f"{name_prefix}.{name}" if name_prefix else name
            yield from cell.cells_and_names(seen, prefix)

    def set_train(self, mode=True):
        """Sets the training flag on this cell and all sub-cells."""
        for _, cell in self.cells_and_names():
            object.__setattr__(cell, "training", mode)
        _TRAIN_VERSION[0] += 1
        return self

    def set_grad(self, requires_grad=True):
        """MindSpore's Cell.set_grad: marks the Cell as one whose gradients are taken (MindSpore
        then records its PYNATIVE forward). mycel records whenever a gradient function runs,
        so this keeps the flag (``requires_grad``) and returns self."""
        object.__setattr__(self, "requires_grad", bool(requires_grad))
        return self

    def insert_param_to_cell(self, param_name, param, check_name_contain_dot=True):
        """Registers param under param_name (as assigning the attribute does)."""
        if not isinstance(param_name, str) or not param_name:
            raise KeyError(f"For 'insert_param_to_cell', the parameter name must be a "
                           f"non-empty str, but got {param_name!r}.")
        if check_name_contain_dot and "." in param_name:
            raise KeyError(f"For 'insert_param_to_cell', the parameter name '{param_name}' "
                           f"must not contain '.'.")
        if not isinstance(param, Parameter):
            raise TypeError(f"For 'insert_param_to_cell', the parameter must be a Parameter, "
                            f"but got {type(param).__name__}.")
        setattr(self, param_name, param)

    def insert_child_to_cell(self, child_name, child_cell):
        """Registers child_cell (a Cell, or None for no cell) under child_name, as assigning
        the attribute does; a name that is empty or holds '.' is a KeyError."""
        if not isinstance(child_name, str) or not child_name or "." in child_name:
            raise KeyError(f"For 'insert_child_to_cell', the child name must be a non-empty "
                           f"str without '.', but got {child_name!r}.")
        if child_cell is not None and not isinstance(child_cell, Cell):
            raise TypeError(f"For 'insert_child_to_cell', the child must be a Cell or None, "
                            f"but got {type(child_cell).__name__}.")
        setattr(self, child_name, child_cell)

    def add_flags(self, **flags):
        """Records compile flags on this cell (MindSpore's ``add_flags``: hints such as
        defer_inline for its graph compiler, which mycel's compiler does not read). The
        mixed-precision flags MindSpore's to_float sets, ``fp16``/``bf16``/``fp32`` = True,
        mark this cell as ``to_float`` of that dtype does (this cell only;
        add_flags_recursive marks the sub-cells too). Returns self."""
        got = self.__dict__.get("_mindspore_flags")
        if got is None:
            got = {}
            object.__setattr__(self, "_mindspore_flags", got)
        got.update(flags)
        for name, dtype in (("fp16", _C.float16), ("bf16", _C.bfloat16), ("fp32", _C.float32)):
            if flags.get(name) is True:
                object.__setattr__(self, "_mixed_precision_type", dtype)
                _TRAIN_VERSION[0] += 1
        return self

    def add_flags_recursive(self, **flags):
        """add_flags on this cell and every sub-cell. Returns self."""
        for _, cell in self.cells_and_names():
            cell.add_flags(**flags)
        return self

    def get_flags(self):
        """The flags recorded by add_flags (a dict)."""
        return dict(self.__dict__.get("_mindspore_flags") or {})

    def apply(self, fn):
        """Calls fn(cell) on this cell and every sub-cell (depth first); returns self."""
        for _, cell in self.cells_and_names():
            fn(cell)
        return self

    def parameters_and_names(self, name_prefix="", expand=True):
        """(name, parameter) for the parameters of this cell and, with expand, of every
        sub-cell, depth first in assignment order; a parameter shared by several cells comes
        once. Names are attribute paths: "fc1.weight"."""
        cells = self.cells_and_names(name_prefix=name_prefix) if expand else [
            (name_prefix, self)]
        seen = set()
        for cell_name, cell in cells:
            for par_name, par in cell._params.items():
                if id(par) in seen:
                    continue
                seen.add(id(par))
                yield (f"{cell_name}.{par_name}" if cell_name else par_name), par

    def check_names(self):
        """Raises a ValueError when two distinct Parameters of this cell (and its sub-cells)
        share a name (MindSpore checks this when it compiles a cell: checkpoints and the
        optimizers' state key Parameters by name). GRAPH mode runs it at the first compile."""
        seen = {}
        for path, par in self.parameters_and_names():
            other = seen.setdefault(par.name, path)
            if other != path:
                raise ValueError(f"For '{type(self).__name__}', the Parameters '{other}' and "
                                 f"'{path}' share the name '{par.name}': give each Parameter a "
                                 f"unique name.")

    def get_parameters(self, expand=True):
        """The parameters (an iterator), as parameters_and_names without the names."""
        for _, par in self.parameters_and_names(expand=expand):
            yield par

    @property
    def cls_name(self):
        """The Cell's class name (MindSpore's ``Cell.cls_name``, which error messages use);
        assignable, as MindSpore's attribute."""
        return self.__dict__.get("_cls_name", type(self).__name__)

    @cls_name.setter
    def cls_name(self, value):
        self.__dict__["_cls_name"] = value

    @property
    def pipeline_stage(self):
        """The pipeline stage this cell and its sub-cells run on (MindSpore's
        ``Cell.pipeline_stage``; None: its parent's). Read by ``nn.PipelineCell`` with
        ``set_auto_parallel_context(pipeline_stages=S)``; a stage must be below S."""
        return self.__dict__.get("_pipeline_stage")

    @pipeline_stage.setter
    def pipeline_stage(self, value):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"For 'Cell.pipeline_stage', the stage must be an int, but got "
                            f"{type(value).__name__}.")
        if value < 0:
            raise ValueError(f"For 'Cell.pipeline_stage', the stage must be at least 0, but "
                             f"got {value}.")
        object.__setattr__(self, "_pipeline_stage", value)

    def trainable_params(self, recurse=True):
        """The parameters with requires_grad, in order (what an optimizer updates)."""
        return [p for p in self.get_parameters(expand=recurse) if p.requires_grad]

    def flatten_weights(self, fusion_size=0):
        """Copies the trainable parameters into contiguous chunks, one or more per dtype
        (``fusion_size`` > 0: chunks of at most that many bytes), each parameter then a view
        of its chunk (MindSpore's Cell.flatten_weights; common/_flatten.py). An optimizer
        built afterwards on exactly these parameters exposes the chunks as its
        ``_parameters``."""
        _flatten._flatten_tensors(self.trainable_params(), fusion_size)

    def untrainable_params(self, recurse=True):
        """The parameters without requires_grad, in order."""
        return [p for p in self.get_parameters(expand=recurse) if not p.requires_grad]

    def parameters_dict(self, recurse=True):
        """An OrderedDict of the parameters by their names (Parameter.name)."""
        return OrderedDict((p.name, p) for p in self.get_parameters(expand=recurse))

    def init_parameters_data(self, auto_parallel_mode=False):
        """MindSpore initialises the data of parameters made with a lazy initializer here and
        returns {parameter: the parameter holding its data}. mycel's parameters get their data
        when they are made, so each maps to itself."""
        return {p: p for p in self.get_parameters()}

    def update_parameters_name(self, prefix="", recurse=True):
        """Names every parameter prefix + its attribute path ("fc1." + "weight")."""
        if not isinstance(prefix, str):
            raise TypeError(f"For 'update_parameters_name', the prefix must be a str, but "
                            f"got {type(prefix).__name__}.")
        for name, par in self.parameters_and_names(expand=recurse):
            par.name = prefix + name
