"""Gradient transforms with MindSpore 2.x names: ``grad``, ``value_and_grad``,
``GradOperation``, ``vjp``, ``jvp``, ``jacfwd``, ``jacrev`` (also ``mycel.grad`` & co.).

Each returns a function. Calling it compiles ``fn`` through the graph front end (the same
compiler as GRAPH mode) and differentiates it by source transformation on the IR
(src/compiler/ad): one AD for both modes, to any order, through control flow, closures and
recursion. Inside graph code (a jit function, a Cell's construct in GRAPH mode), the
compiler expands these calls directly, so gradients of gradients compose.

The compiled gradient is cached per call signature (dtypes and shapes of tensor arguments,
values of the others, the training flags of a Cell), like ``jit``.
"""
import inspect

from mycel import _mycel as _C
from mycel._mycel import Tensor
from mycel.common import api as _api
from mycel.common import tensor_hooks as _tensor_hooks
from mycel.common.parameter import Parameter
from mycel.ops.function.array_func import ones_like, zeros_like
from mycel.ops.function._util import prim as _prim
from mycel.ops.function.array_func import stack as _stack_fn
from mycel.ops.primitive import Primitive
from mycel.ops.primitive import constexpr as _constexpr


def _train_key(fn):
    """The training flags and to_float types of a Cell tree (part of the cache key), or
    None."""
    from mycel.nn.cell import Cell
    if isinstance(fn, Cell):
        return tuple((c.training, c._mixed_precision_type) for _, c in fn.cells_and_names())
    return None


def _weights_tuple(weights):
    if weights is None:
        return None
    from mycel.common.parameter import Parameter
    if isinstance(weights, Parameter):
        return (weights,)
    if isinstance(weights, (list, tuple)):
        return tuple(weights)
    if hasattr(weights, "__iter__") and not isinstance(weights, Tensor):
        return tuple(weights)
    return (weights,)  # the rules (grad_spec.h) report what is not a Parameter


def _weights_arg(weights):
    """The weights as the grad rules take them: one Parameter as itself (its gradient is
    returned bare, as MindSpore), a sequence as a tuple, None as None."""
    from mycel.common.parameter import Parameter
    return weights if isinstance(weights, Parameter) else _weights_tuple(weights)


def _name_after(obj, prefix, fn):
    """obj.__name__ = prefix + fn's name (a transform's function: grad_f, vmap_f), if it can be
    set."""
    try:
        obj.__name__ = prefix + getattr(fn, "__name__", type(fn).__name__)
    except (AttributeError, TypeError):
        pass


def _has_source(fn):
    """Whether the front end can read fn's source (a Cell's construct, a function's def)."""
    import linecache
    from mycel.nn.cell import Cell
    f = type(fn).construct if isinstance(fn, Cell) else fn
    f = getattr(f, "__func__", f)
    code = getattr(f, "__code__", None)
    if code is None:
        return True  # not a Python function (a primitive, a GraphCell): the compiler decides
    return bool(linecache.getlines(code.co_filename, getattr(f, "__globals__", None)))


class _GradFunction:
    """The function ``grad(fn, ...)`` returns. ``_mycel_grad`` tells the compiler what it is:
    ``(fn, (positions, weights, has_aux, return_value, sens_param))``, the options the grad
    API's rules made and check (src/compiler/grad_spec.h, shared with GRAPH mode)."""

    # PYNATIVE only: a callable returning, for each backward pass, a hook told (i, gradient
    # of weight i) as soon as the backward graph has computed it (data parallelism's reducer
    # starts a bucket's AllReduce then, while the backward goes on: nn.grad_reducer).
    _weight_ready = None
    _written = ()  # GRAPH mode: the attributes fn's graph assigns (common/api.py, _written_key)

    def __init__(self, fn, options):
        self._fn = fn
        self._mycel_grad = (fn, options)
        self._rules = _C._GradRules(options)
        self._graph = None
        self._has_source = None  # whether GRAPH mode can compile fn (known at the first call)
        _name_after(self, "grad_", fn)

    def __call__(self, *args, **kwargs):
        if kwargs:
            from mycel.nn.cell import Cell
            # a Cell's inputs are its construct's (its __call__ takes *inputs, **kwargs)
            sig_of = self._fn.construct if isinstance(self._fn, Cell) else self._fn
            try:
                bound = inspect.signature(sig_of).bind(*args, **kwargs)
            except (TypeError, ValueError) as e:
                raise TypeError(f"{self.__name__}: {e}") from None
            bound.apply_defaults()
            args = tuple(bound.args)
            kw_names = tuple(bound.kwargs)  # keyword-only and **kwargs: inputs after args
            args = args + tuple(bound.kwargs.values())
        else:
            kw_names = ()
        from mycel import context
        from mycel.common._no_grad import in_no_grad
        if in_no_grad():
            raise RuntimeError(f"In no_grad context, you can not calculate gradient: "
                               f"{self.__name__} was called inside mycel._no_grad().")
        pynative = context._context["mode"] == context.PYNATIVE_MODE
        if kw_names and not pynative:
            # the compiler takes keyword inputs in graph code (a grad called in a construct)
            raise TypeError(f"{self.__name__}: keyword-only arguments ({', '.join(kw_names)}) "
                            "of a gradient function called from Python are supported in "
                            "PYNATIVE mode, or in graph code (a grad called in a construct)")
        if not pynative and self._has_source is None:
            self._has_source = _has_source(self._fn)
        if not pynative and not self._has_source:
            # Graph mode compiles from source; without it (a lambda typed at a prompt or in
            # `python -c`) the same gradient comes from the PYNATIVE path, with a warning,
            # as a jit function without source falls back to the interpreter.
            import warnings
            warnings.warn(f"mycel: the source of {self.__name__[5:]!r} cannot be read, so "
                          "GRAPH mode cannot compile its gradient; it runs in PYNATIVE mode",
                          stacklevel=2)
            pynative = True
        # The wanted inputs (checked in PYNATIVE mode; the compiler checks GRAPH calls, naming
        # the line). A Python float there is taken as an f32 tensor.
        wanted = self._rules.call(args, pynative)
        if pynative:
            return self._run_pynative(args, wanted, kw_names)
        if not _scalar_grads():  # with GRAD_FOR_SCALAR the compiler takes numbers itself
            args = tuple(Tensor(a, _C.float32) if isinstance(a, float) and i in wanted else a
                         for i, a in enumerate(args))
        if self._graph is None:
            self._graph = _C.GraphFunction(self)
        try:
            result = self._graph.call_keyed(
                _api._written_key(self._written, _train_key(self._fn)), *args)
        finally:  # attributes the graph assigns key the later calls (common/graph_attr.py)
            if _api._ATTR_WRITES:
                self._written = _api._take_written(self._written)
        if _tensor_hooks.has_hooks():  # Tensor.register_hook on an input or a weight
            result = _tensor_hooks.apply_leaf_hooks(result, self._mycel_grad[1], args, wanted)
        return result

    def _run_pynative(self, args, wanted, kw_names=()):
        """Runs fn eagerly while its ops are recorded into IR, then the compiled backward
        graph of that op sequence (mycel/src/compiler/ad/pynative.h)."""
        sens = None
        if self._mycel_grad[1][4]:  # sens_param: the sensitivity is the last argument
            sens, args = args[-1], args[:-1]
        return self._pull(self._record(args, wanted, kw_names), sens)

    def _record(self, args, wanted, kw_names=()):
        """The forward half of _run_pynative: fn run once on args (without the sensitivity)
        while its ops are recorded. Its result goes to _pull, once or more (ops.vjp)."""
        fn, options = self._mycel_grad
        weights = options[1]
        given = args
        # A Python float whose gradient is wanted is an f32 tensor; with GRAD_FOR_SCALAR every
        # number in a wanted input is a 0-d tensor (int64, float32) whose gradient comes back
        # as a number (compiler/grad_spec.h).
        scalars = _scalar_grads()
        convert = _numbers_to_tensors if scalars else \
            (lambda a: Tensor(a, _C.float32) if isinstance(a, float) else a)
        converted = tuple(convert(a) if i in wanted else a for i, a in enumerate(args))
        # fn runs on aliases of the wanted inputs' tensors (_alias)
        args = tuple(_alias_leaves(a) if i in wanted else a for i, a in enumerate(converted))
        # The tensors whose gradients are wanted, flattened (an input may be a tuple), as fn
        # sees them and as given (their hooks apply to their gradients).
        flat, given_flat, slots = [], [], []
        for p in wanted:
            leaves = _leaves(args[p])
            slots.append([len(flat) + i if _has_grad(leaf) else None
                          for i, leaf in enumerate(leaves)])
            flat.extend(leaf for leaf in leaves if _has_grad(leaf))
            given_flat.extend(leaf for leaf in _leaves(converted[p]) if _has_grad(leaf))
        rec = _C.OpRecorder(flat, list(weights or ()))
        try:
            n = len(args) - len(kw_names)
            out = fn(*args[:n], **dict(zip(kw_names, args[n:])))
        finally:
            rec.stop()
        return _Recording(rec, out, given, args, wanted, (flat, given_flat), slots, scalars)

    def _pull(self, r, sens):
        """The backward half of _run_pynative: the gradients of recording r's output pulled
        back from sens (None: ones), as the gradient function returns them. The recording is
        not changed: it can be pulled back again with another sens."""
        positions, weights = self._mycel_grad[1][0], self._mycel_grad[1][1]
        out, flat = r.out, r.flat
        y = self._rules.target(out)
        if sens is not None and not any(_has_grad(leaf) for leaf in _leaves(y)):
            sens = None   # an output without a differentiable tensor ignores its sensitivity
        if sens is None:
            sens = _ones_like_tree(y)
        if not all(isinstance(leaf, Tensor) for leaf in _leaves(y)):
            # strings, None, slices, numbers in the output take no gradient: the tensors do
            # (GRAPH mode seeds them None); an output without tensors ignores its sensitivity
            yl = _leaves(y)
            sl = _leaves(sens) if _is_seq(sens) else [sens]
            if len(sl) != len(yl):
                sl = [ones_like(t) if _has_grad(t) else None for t in yl]
            keep = [(t, g) for t, g in zip(yl, sl) if isinstance(t, Tensor)]
            y, sens = tuple(t for t, _ in keep), tuple(g for _, g in keep)
            if not y:
                sens = None
        on_ready = None
        if self._weight_ready is not None:
            hook, skip = self._weight_ready(), len(flat)
            on_ready = lambda i, g: hook(i - skip, g) if i >= skip else None  # noqa: E731
        if sens is None and not any(_has_grad(leaf) for leaf in _leaves(y)):
            # No tensor output with a gradient (a Python int, a bool tensor): nothing depends on
            # the inputs differentiably, so every gradient is zero (MindSpore's rule).
            grads = [_zeros_for(t) for t in flat] + [_zeros_for(w) for w in weights or ()]
        else:
            grads = r.rec.backward(self._cache(), y, sens, on_ready)
        gin, gw = grads[:len(flat)], grads[len(flat):]
        if _tensor_hooks.has_hooks():  # Tensor.register_hook on an input or a weight
            # hooks registered before the call (on the tensor given), then during it (on the
            # alias fn saw)
            gin = [_tensor_hooks._hooked(a, _tensor_hooks._hooked(t, g))
                   for t, a, g in zip(r.given_flat, flat, gin)]
            gw = [_tensor_hooks._hooked(w, g) for w, g in zip(weights or (), gw)]
        per_input = []
        for p, slot in zip(r.wanted, r.slots):
            leaves = [None if k is None else gin[k] for k in slot]
            if positions == "all":  # zeros for tensors without a gradient and numbers
                leaves = [_zeros_for(a, numbers=True) if g is None else g
                          for g, a in zip(leaves, _leaves(r.args[p]))]
            g = _rebuild(r.args[p], iter(leaves))
            per_input.append(_tensors_to_numbers(r.given[p], g) if r.scalars else g)
        return self._rules.result(per_input, list(gw), out)

    def _cache(self):
        c = self.__dict__.get("_backward_cache")
        if c is None:
            c = self._backward_cache = _C.BackwardCache()
        return c


class _Recording:
    """A forward run recorded by _GradFunction._record: the recorder (stopped), fn's output,
    the arguments as given and as run (the wanted tensors aliased), the wanted positions, the
    flattened tensors whose gradients the recorder returns (the aliases fn ran on, and the
    tensors given in their place) and where each input's leaves are among them."""

    def __init__(self, rec, out, given, args, wanted, flat, slots, scalars):
        self.rec, self.out, self.given, self.args = rec, out, given, args
        (self.flat, self.given_flat), self.wanted = flat, wanted
        self.slots, self.scalars = slots, scalars


def _scalar_grads():
    # compile_config.GRAD_FOR_SCALAR, as the compiler reads it (compiler/grad_spec.h)
    import os
    v = os.environ.get("MS_DEV_GRAD_FOR_SCALAR", "")
    return v not in ("", "0")


def _is_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _is_seq(x):
    return isinstance(x, (tuple, list, dict))


def _numbers_to_tensors(x):
    if _is_number(x):
        return Tensor(x, _C.int64 if isinstance(x, int) else _C.float32)
    if isinstance(x, (tuple, list)):
        return (list if isinstance(x, list) else tuple)(_numbers_to_tensors(e) for e in x)
    if isinstance(x, dict):
        return {k: _numbers_to_tensors(e) for k, e in x.items()}
    return x


def _tensors_to_numbers(x, g):
    # g, the gradient of input x (structured as _rebuild makes it), with the gradient of each
    # number of x a number
    if _is_number(x):
        return g.item() if isinstance(g, Tensor) else g
    if isinstance(x, (tuple, list)) and isinstance(g, (tuple, list)):
        return type(g)(_tensors_to_numbers(a, b) for a, b in zip(x, g))
    if isinstance(x, dict) and isinstance(g, dict):
        return {k: _tensors_to_numbers(x[k], g[k]) for k in g}
    return g


def _has_grad(x):
    # float and integer tensors (an integer function's gradient is computed in its dtype, as
    # MindSpore does: src/compiler/ad/ad.h); bool tensors have none
    return isinstance(x, Tensor) and x.dtype != _C.bool


def _real_tensor(x):
    return isinstance(x, Tensor) and (x.is_floating_point() or x.is_complex())


def _struct_fields(x):
    """The fields of a struct instance (a sparse tensor, common/sparse_tensor.py), else None."""
    names = None if isinstance(x, type) else getattr(type(x), "__mycel_graph_struct__", None)
    return None if names is None else [getattr(x, n) for n in names]


def _leaves(x):
    fields = _struct_fields(x)
    if fields is not None:
        return [leaf for e in fields for leaf in _leaves(e)]
    if isinstance(x, (tuple, list)):
        return [leaf for e in x for leaf in _leaves(e)]
    if isinstance(x, dict):
        return [leaf for e in x.values() for leaf in _leaves(e)]
    return [x]


def _rebuild(x, it):
    # the gradient of a container as MindSpore returns it (its default syntax level, LAX) and
    # GRAPH mode does (specialize_grad.cc): a list for a list, a tuple for a tuple, a dict with
    # the same keys for a dict
    fields = _struct_fields(x)
    if fields is not None:  # a sparse tensor: its values' gradient in its own structure
        grads = [_rebuild(f, it) for f in fields]
        return type(x)(*[g if _real_tensor(f) and g is not None else f
                         for f, g in zip(fields, grads)])
    if isinstance(x, list):
        return [_rebuild(e, it) for e in x]
    if isinstance(x, tuple):
        return tuple(_rebuild(e, it) for e in x)
    if isinstance(x, dict):
        return {k: _rebuild(e, it) for k, e in x.items()}
    return next(it)


def _alias(t):
    """A new tensor sharing t's storage (a Reshape to its own shape: a view; recorded as an op
    by an enclosing PYNATIVE gradient, so a gradient of a gradient differentiates through it).

    PYNATIVE gradients record tensors by identity, so each differentiated input is run as an
    alias: the gradient is with respect to the argument, as in GRAPH mode, torch.func and jax,
    and a tensor fn also reads otherwise (a closure, a Cell's attribute, a weight, another
    input) is a separate value that happens to be equal, not the input itself. Writes into
    the alias (in place ops) reach t, which shares its storage."""
    return _RESHAPE(t, tuple(t.shape))


_RESHAPE = _prim("Reshape")  # the op's handle (ops.reshape's checks cost 2 us a call)


def _alias_leaves(x):
    """x with each tensor that takes a gradient (_has_grad) an alias (containers and struct
    instances rebuilt; _leaves finds the aliases in the order of the originals)."""
    fields = _struct_fields(x)
    if fields is not None:
        return type(x)(*[_alias_leaves(f) for f in fields])
    if isinstance(x, list):
        return [_alias_leaves(e) for e in x]
    if isinstance(x, tuple):
        return tuple(_alias_leaves(e) for e in x)
    if isinstance(x, dict):
        return {k: _alias_leaves(e) for k, e in x.items()}
    return _alias(x) if _has_grad(x) else x


def _zeros_for(x, numbers=False):
    """Zeros like tensor x; with `numbers`, a zero of a number's kind (GradOperation(get_all=
    True)'s gradient of a number input, as MindSpore and GRAPH mode give it); else None."""
    if isinstance(x, Tensor):
        return zeros_like(x)
    if numbers and isinstance(x, bool):
        return False
    if numbers and isinstance(x, (int, float)):
        return type(x)(0)
    return None


def _ones_like_tree(x):
    if isinstance(x, (tuple, list)):
        return tuple(_ones_like_tree(e) for e in x)
    return ones_like(x) if _has_grad(x) else None  # as GRAPH seeds a non-float output


def _single_position(grad_position):
    """A tuple of one position is that position: MindSpore returns its gradient bare (a
    Tensor, not a 1-tuple), as for an int."""
    if isinstance(grad_position, (tuple, list)) and len(grad_position) == 1:
        return grad_position[0]
    return grad_position


def grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False):
    """The gradient function of ``fn`` (MindSpore's ``mindspore.grad``).

    grad_position: an int (the gradient of that input), a tuple of ints (a tuple of
    gradients; a tuple of one int gives that gradient bare, as MindSpore) or None (no input gradients; `weights` needed). weights: Parameters (for
    example ``net.trainable_params()``) whose gradients are returned, in that order, after
    the input gradients: ``(input_grads, weight_grads)``. has_aux: ``fn`` returns a tuple
    whose first element is differentiated; the others are returned as ``(grads, aux)``, aux
    the tuple of them (``grads, (z,) = grad_fn(x)`` for one, as MindSpore). return_ids: each
    gradient comes as a pair (its input position or its Parameter's name, gradient), for
    ``get_grad`` (in graph code too)."""
    grad_position = _single_position(grad_position)
    g = _GradFunction(fn, _C._grad_options(False, grad_position, _weights_arg(weights),
                                           bool(has_aux)))
    if not return_ids:
        return g
    return _GradWithIds(g, grad_position, _weights_arg(weights), bool(has_aux))


class _GradWithIds:
    """grad(..., return_ids=True): the gradients of the wrapped gradient function, each paired
    with its id (MindSpore's layout: (position, g) or a tuple of them for the inputs,
    a tuple of (name, g) for the weights, and (inputs, weights) for both). Graph code calls
    it through ``_mycel_fn`` (compiled like a @jit method of this object), so a grad with
    return_ids also works inside a construct."""

    def __init__(self, g, positions, weights, has_aux, with_value=False):
        self._g = g
        self._with_value = with_value
        self._positions = positions
        # one Parameter (not a sequence): its gradient comes bare, its id pair bare too
        self._single = weights is not None and not isinstance(weights, tuple)
        self._names = None if weights is None else \
            (weights.name,) if self._single else tuple(w.name for w in weights)
        self._has_aux = has_aux
        self.__name__ = getattr(g, "__name__", "grad")
        self._mycel_fn = _grad_with_ids_call
        self._instance = self

    def __call__(self, *args, **kwargs):
        return _finish_ids(self, self._g(*args, **kwargs))


def _grad_with_ids_call(self, *args):
    return _finish_ids(self, self._g(*args))


def _finish_ids(self, out):
    if self._with_value:  # value_and_grad: (value, gradients)
        return out[0], _attach_ids(out[1], self._positions, self._names, self._single)
    if self._has_aux:
        return _attach_ids(out[0], self._positions, self._names, self._single), out[1]
    return _attach_ids(out, self._positions, self._names, self._single)


def _attach_ids(grads, p, names, single=False):
    """grads paired with their ids (loops building tuples: graph code compiles this too); a
    single Parameter's gradient (not in a tuple) pairs bare."""
    has_w = names is not None
    pos = None
    if isinstance(p, int):
        gp = grads[0] if has_w else grads
        # an input without a gradient (a constant number) is left out with its id
        pos = () if isinstance(gp, tuple) and len(gp) == 0 else (p, gp)
    elif p is not None:
        gp = grads[0] if has_w else grads
        pos = ()
        for i in range(len(p)):
            pos = pos + ((p[i], gp[i]),)
    if not has_w:
        return pos
    gw = grads if p is None else grads[1]
    if single:
        return (names[0], gw) if p is None else (pos, (names[0], gw))
    wid = ()
    for i in range(len(names)):
        wid = wid + ((names[i], gw[i]),)
    return wid if p is None else (pos, wid)


def get_grad(gradients, identifier):
    """The gradient of `identifier` (an input position, or a Parameter, matched by its name)
    in the result of grad(..., return_ids=True). RuntimeError when it is not there. Written
    for graph code too (get_grad inside a construct), where the identifier is an input
    position: a Parameter read in graph code is a tensor whose name the compiler does not know."""
    if isinstance(identifier, int) and not isinstance(identifier, bool):
        key = identifier
    elif isinstance(identifier, Parameter):
        key = identifier.name
    else:
        raise TypeError(f"For 'get_grad', the identifier must be an input position (int) or a "
                        f"Parameter, but got {type(identifier).__name__}.")
    hit = _find_grad(gradients, key)
    if hit is None:
        raise RuntimeError(f"For 'get_grad', there is no gradient for {key!r} in the "
                           f"gradients given (grad(..., return_ids=True) results).")
    return hit[0]


def _same_id(a, key):
    if isinstance(a, str) != isinstance(key, str):
        return False
    return a == key


def _find_grad(node, key):
    """(gradient,) of the (id, gradient) pair in `node` whose id is key, or None."""
    found = None
    if isinstance(node, tuple):
        if len(node) == 2 and isinstance(node[0], (int, str)) and \
                not isinstance(node[1], tuple):
            if _same_id(node[0], key):
                found = (node[1],)
        else:
            for e in node:
                if found is None:
                    found = _find_grad(e, key)
    return found


def value_and_grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False):
    """Like ``grad``, but the function returns ``(fn(*args), gradients)`` (with return_ids, the
    gradients paired with their ids as ``grad`` pairs them)."""
    grad_position = _single_position(grad_position)
    g = _GradFunction(fn, _C._grad_options(True, grad_position, _weights_arg(weights),
                                           bool(has_aux)))
    if not return_ids:
        return g
    return _GradWithIds(g, grad_position, _weights_arg(weights), False, with_value=True)


_MISSING = object()  # GradOperation()() given no function


class GradOperation:
    """MindSpore's ``ops.GradOperation(get_all=False, get_by_list=False, sens_param=False)``:
    ``GradOperation(...)(fn[, weights])`` is the gradient function. Without get_all it
    returns the first input's gradient; with get_all, a tuple of all inputs' gradients;
    with get_by_list, the gradients of `weights` (both: ``(inputs, weights)``). With
    sens_param, the last argument is the output's sensitivity (the cotangent to pull
    back) instead of ones."""

    def __init__(self, get_all=False, get_by_list=False, sens_param=False):
        for arg, v in (("get_all", get_all), ("get_by_list", get_by_list),
                       ("sens_param", sens_param)):
            if not isinstance(v, bool):
                raise TypeError(f"For 'GradOperation', the '{arg}' should be bool, but got "
                                f"{type(v).__name__}.")
        self.get_all = get_all
        self.get_by_list = get_by_list
        self.sens_param = sens_param

    def __call__(self, fn=_MISSING, weights=None):
        if fn is _MISSING:
            raise TypeError("'GradOperation' requires a forward network or function as an "
                            "input, while the input is empty.")
        if not callable(fn):
            raise TypeError(f"For 'GradOperation', the first argument must be a 'Function' or "
                            f"'Cell', but got {type(fn).__name__}.")
        return grad_operation(fn, weights, self.get_all, self.get_by_list, self.sens_param)


def grad_operation(fn, weights, get_all, get_by_list, sens_param):
    """What ``GradOperation(get_all, get_by_list, sens_param)(fn, weights)`` returns (the
    compiler models this function by name, so it also works inside graph code)."""
    return _GradFunction(fn, _C._grad_operation_options(
        bool(get_all), bool(get_by_list), bool(sens_param), _weights_arg(weights)))


def _check_jvp_args(inputs, v):
    """jvp's inputs and tangents are each a Tensor or a tuple of Tensors (a TypeError
    otherwise, as MindSpore's; decided at compile time in graph code). (The arguments
    themselves, not their elements: a loop over them here would be differentiated by nested
    forward mode, e.g. jet's.)"""
    if not isinstance(inputs, (Tensor, tuple, list)):
        raise TypeError(f"For 'jvp', the inputs must be a Tensor or a tuple of Tensors, but got "
                        f"{type(inputs).__name__}.")
    if not isinstance(v, (Tensor, tuple, list)):
        raise TypeError(f"For 'jvp', v must be a Tensor or a tuple of Tensors, but got "
                        f"{type(v).__name__}.")


def vjp(fn, *inputs, weights=None, has_aux=False):
    """``(fn(*inputs), vjp_fn)`` where ``vjp_fn(v)`` pulls the cotangent `v` of the output
    back to the inputs: a tuple of one gradient per input, a one-element tuple for a single
    input too (as MindSpore's vjp_fn returns, ``vjp_fn(v)[0]``); with `weights` (Parameters)
    ``(input_grads, weight_grads)``, both tuples; for several outputs
    ``vjp_fn(v1, v2, ...)`` or ``vjp_fn((v1, v2, ...))``. With has_aux, ``fn``
    returns ``(out, aux...)`` and this returns ``(out, vjp_fn, aux)``.

    fn runs once, here, as in MindSpore and torch.func.vjp: its effects (a Parameter
    written, a random draw, a print) happen once, and vjp_fn, called any number of times,
    runs only the backward on what that forward kept (a Dropout's mask included). Called
    from Python (either mode) fn's ops are recorded as PYNATIVE grad records them
    (_vjp_forward); in graph code the compiler splits the gradient at its vjp node."""
    for i in range(len(inputs)):
        _check_vjp_input(inputs[i], i)
    if weights is not None:  # (a constant in graph code: the branch folds away)
        weights = _weights_tuple(weights)
    forward = _vjp_forward(fn, weights, *inputs)
    outputs = forward[0]
    aux = None  # assigned on every path: graph mode compiles both branches' uses
    if has_aux:
        out, aux = outputs[0], outputs[1:] if len(outputs) > 2 else outputs[1]
    else:
        out = outputs

    def vjp_fn(*v):
        # one cotangent per output: a function of several outputs takes them as a tuple or
        # as separate arguments (MindSpore's vjp_fn(v1, v2))
        sens = v[0] if len(v) == 1 else v
        if has_aux:  # the aux outputs pull nothing back
            sens = (sens,) + _aux_sens(outputs[1:])
        g = _vjp_backward(forward, sens, weights, *inputs)
        return tuple(g) if weights is None else (tuple(g[0]), tuple(g[1]))

    if has_aux:
        return out, vjp_fn, aux
    return out, vjp_fn


def _check_vjp_input(x, i):
    """MindSpore's rule: vjp's inputs are Tensors, or tuples or lists of them (a TypeError
    otherwise, decided at compile time in graph code)."""
    if isinstance(x, (tuple, list)):
        for e in x:
            _check_vjp_input(e, i)
    elif not isinstance(x, Tensor):
        raise TypeError(f"For 'vjp', the inputs must be Tensors (or tuples or lists of "
                        f"Tensors), but input {i} is {type(x).__name__}.")


def _vjp_grad(fn, weights):
    """The gradient function whose recording ops.vjp pulls back through:
    GradOperation(get_all=True, get_by_list=weights given, sens_param=True)(fn, weights)."""
    if weights is None:
        return GradOperation(get_all=True, sens_param=True)(fn)
    return GradOperation(get_all=True, get_by_list=True, sens_param=True)(fn, weights)


def _vjp_forward(fn, weights, *inputs):
    """ops.vjp's forward half: ``(fn(*inputs), state)``, fn run once while its ops are
    recorded (PYNATIVE grad's recorder, src/compiler/ad/pynative.h: fn runs as a call from
    Python runs it, a Cell in GRAPH mode compiled, its graph's ops reported to the recorder).
    _vjp_backward pulls cotangents back through the state any number of times. In graph code
    the compiler expands this name instead (specialize_grad.cc, vjp_half): the state is the
    bprop of vjp(@W, (weights...), inputs...)."""
    g = _vjp_grad(fn, weights)
    args = tuple(inputs)
    r = g._record(args, g._rules.call(args + (None,), True))  # None: where sens will be
    return r.out, (g, r)


def _vjp_backward(forward, sens, weights, *inputs):
    """ops.vjp's backward half: what ``_vjp_grad(fn, weights)(*inputs, sens)`` returns,
    computed from _vjp_forward's state without running fn again. In graph code the compiler
    expands this name (the state's bprop called on sens)."""
    g, r = forward[1]
    return g._pull(r, sens)


def _aux_sens(x):
    """The sensitivity of has_aux's extra outputs: zeros for their tensors, None for
    anything else (they are not differentiated)."""
    if isinstance(x, (tuple, list)):
        out = ()  # a loop, not tuple(generator): graph code too
        for e in x:
            out = out + (_aux_sens(e),)
        return out
    if isinstance(x, Tensor):
        return zeros_like(x)
    return None


def _vjp_out_zeros(fn, *inputs):
    """Zeros shaped as fn(*inputs)'s output, in graph code only: the compiler expands this
    name from fn's abstract, without running fn (specialize_grad.cc, vjp_out_zeros)."""
    raise RuntimeError("_vjp_out_zeros is expanded by the graph compiler only")


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _check_tangents(inputs, v):
    if len(inputs) != len(v):
        raise ValueError(f"jvp: {len(inputs)} inputs but {len(v)} tangents")


def _linear_push(fn, inputs, has_aux):
    """Called from Python: fn run once at inputs (_vjp_forward), ``(outputs, push)`` where
    push(v) is J·v of fn's output (its first, with has_aux): the vjp of the vjp (the pullback
    u -> J^T u is linear in u; its own pullback along v is J v), recorded and differentiated
    as PYNATIVE grad does, so each push runs only backward passes on what the forward kept."""
    forward = _vjp_forward(fn, None, *inputs)
    outputs = forward[0]
    out = outputs[0] if has_aux else outputs

    def pullback(u):  # u -> J^T u
        sens = (u,) + _aux_sens(outputs[1:]) if has_aux else u
        return _vjp_backward(forward, sens, None, *inputs)

    def push(v):
        _check_tangents(inputs, v)
        g = GradOperation(get_all=True, sens_param=True)(pullback)
        u = _zeros_like_tree(out)
        return g._run_pynative((u, v), g._rules.call((u, v), True))[0]

    return outputs, push


def _jvp_python(fn, inputs, v, has_aux=False):
    """jvp called from Python (either mode): _linear_push's recording, pushed once."""
    _check_jvp_args(inputs, v)
    inputs, v = _as_tuple(inputs), _as_tuple(v)
    _check_tangents(inputs, v)
    outputs, push = _linear_push(fn, inputs, has_aux)
    tangent = push(v)
    if has_aux:
        return outputs[0], tangent, outputs[1:] if len(outputs) > 2 else outputs[1]
    return outputs, tangent


def _jvp_graph(fn, inputs, v, has_aux=False):
    """jvp in graph code: the vjp, at zeros u0 shaped as fn's output (made from its abstract,
    fn not run), of w(u, x...) = (fn's pullback of u at x, fn's outputs), along (v, 0). fn
    runs once, inside w's forward; the gradient in u is J v (the pullback is linear in u).
    (fn may close over a pullback made outside: expand_vjp passes the K of such function
    values into the differentiated graph.)"""
    _check_jvp_args(inputs, v)
    inputs, v = _as_tuple(inputs), _as_tuple(v)
    _check_tangents(inputs, v)
    u0 = _vjp_out_zeros(fn, *inputs)

    def w(u, *xs):
        forward = _vjp_forward(fn, None, *xs)
        return _vjp_backward(forward, u, None, *xs), forward[0]

    outer = _vjp_forward(w, None, u0, *inputs)
    outputs = outer[0][1]
    tangent = _vjp_backward(outer, (tuple(v), _aux_sens(outputs)), None, u0, *inputs)[0]
    if has_aux:
        return outputs[0], tangent[0], outputs[1:] if len(outputs) > 2 else outputs[1]
    return outputs, tangent


class _Jvp:
    """``ops.jvp(fn, inputs, v, has_aux=False)``: forward mode, ``(fn(*inputs), J·v)`` for
    tangents `v` (one per input), computed as the vjp of the vjp (the pullback is linear in
    its cotangent, and its own pullback is the Jacobian-vector product). fn runs once, as in
    MindSpore (its effects happen once). With has_aux: ``(out, jvp, aux)``. Called from
    Python, _jvp_python (PYNATIVE grad's recorder); in graph code (the host compiles an
    object's ``_mycel_fn``), _jvp_graph."""
    _mycel_fn = staticmethod(_jvp_graph)
    _instance = None
    __call__ = staticmethod(_jvp_python)
    __name__ = "jvp"

    def __repr__(self):
        return "<function mycel.ops.jvp>"


jvp = _Jvp()
jvp.__doc__ = _Jvp.__doc__


def _linearize_python(fn, primals):
    output, push = _linear_push(fn, primals, False)

    def jvp_fn(v):
        return push(_as_tuple(v))

    return output, jvp_fn


def _linearize_graph(fn, primals):
    """linearize in graph code: fn runs once, here (_vjp_forward); each jvp_fn(v) is the vjp
    of fn's pullback (u -> J^T u, linear in u) at zeros along v, which runs only backward
    passes on what that forward kept (the pullback, a closure over the forward's residuals,
    is differentiated as any closure a gradient receives)."""
    forward = _vjp_forward(fn, None, *primals)
    output = forward[0]
    u0 = _zeros_like_tree(output)

    def pullback(u):
        return _vjp_backward(forward, u, None, *primals)

    def jvp_fn(v):
        tangents = _as_tuple(v)
        _check_tangents(primals, tangents)
        outer = _vjp_forward(pullback, None, u0)
        return _vjp_backward(outer, tuple(tangents), None, u0)[0]

    return output, jvp_fn


class _Linearize:
    """linearize's body: from Python, _linearize_python (fn runs once); in graph code,
    _linearize_graph."""
    _mycel_fn = staticmethod(_linearize_graph)
    _instance = None
    __call__ = staticmethod(_linearize_python)


_linearize_core = _Linearize()


def linearize(fn, inputs):
    """``(fn(*inputs), jvp_fn)``, as ``jax.linearize``: jvp_fn(v) is the Jacobian of fn at
    `inputs` applied to the tangents v (a tensor, or a tuple with one per input), i.e.
    ``jvp(fn, inputs, v)[1]``. fn runs once, here, and each jvp_fn call runs only backward
    passes on what that forward kept (jvp's method), from Python (either mode) and in graph
    code alike."""
    return _linearize_core(fn, _as_tuple(inputs))


def _zeros_like_tree(x):
    if isinstance(x, (tuple, list)):
        out = ()  # a loop, not tuple(generator): graph code (jvp inside a construct) too
        for e in x:
            out = out + (_zeros_like_tree(e),)
        return out
    return zeros_like(x)


def _jacobian(fn, grad_position, has_aux, forward):
    positions = grad_position if isinstance(grad_position, tuple) else (grad_position,)

    # Written with mycel ops and constant-length loops (no numpy, no asnumpy), so graph code
    # (jacfwd inside a jit function or a construct) compiles it as PYNATIVE runs it.
    def jac(*inputs):
        # reverse mode: fn runs once (ops.vjp's halves), each row only the backward
        fwd = None if forward else _vjp_forward(fn, None, *inputs)
        outputs = fn(*inputs) if forward else fwd[0]
        out = outputs[0] if has_aux else outputs
        if isinstance(out, (tuple, list)):
            # several outputs: one Jacobian per output (outputs outside, positions inside)
            res = ()
            for k in range(len(out)):
                res = res + (_jacobian(_output_k(fn, k, has_aux), grad_position, False,
                                       forward)(*inputs),)
            if has_aux:
                return res, outputs[1:] if len(outputs) > 2 else outputs[1]
            return res
        target = _output_k(fn, None, has_aux)
        results = ()
        if forward:
            for p in positions:
                x = inputs[p]
                cols = ()
                for k in range(_count(x.shape)):
                    tangents = ()
                    for i in range(len(inputs)):
                        tangents = tangents + ((_unit(x.shape, k, x.dtype) if i == p else
                                                _zeros_like_tree(inputs[i])),)
                    cols = cols + (jvp(target, inputs, tangents)[1],)
                j = _stack_fn(cols, -1).reshape(tuple(out.shape) + tuple(x.shape))
                results = results + (j,)
        else:
            rows = ()
            for k in range(_count(out.shape)):
                u = _unit(out.shape, k, out.dtype)
                sens = (u,) + _aux_sens(outputs[1:]) if has_aux else u
                rows = rows + (_vjp_backward(fwd, sens, None, *inputs),)
            for p in positions:
                x = inputs[p]
                col = ()
                for r in rows:
                    col = col + (r[p],)
                results = results + (_stack_fn(col, 0).reshape(tuple(out.shape) +
                                                             tuple(x.shape)),)
        res = results[0] if not isinstance(grad_position, tuple) else results
        if has_aux:
            return res, outputs[1:] if len(outputs) > 2 else outputs[1]
        return res

    return jac


def _output_k(fn, k, has_aux):
    """fn's differentiated output (its first when has_aux), its k-th element unless k is
    None."""
    def target(*xs):
        r = fn(*xs)
        r = r[0] if has_aux else r
        return r if k is None else r[k]
    return target


@_constexpr
def _count(shape):
    n = 1
    for d in shape:
        n *= d
    return n if n > 1 else 1


@_constexpr
def _unit(shape, k, dtype):
    """The tensor of this shape and dtype that is 1 at flat position k, else 0."""
    import numpy as np
    e = np.zeros(_count(shape), np.float64)
    e[k] = 1
    return Tensor(e.reshape(tuple(shape))).astype(dtype)


def jacfwd(fn, grad_position=0, has_aux=False):
    """The Jacobian of ``fn`` by forward mode (one jvp per input element); shape
    ``out.shape + input.shape``."""
    return _jacobian(fn, grad_position, has_aux, forward=True)


def jacrev(fn, grad_position=0, has_aux=False):
    """The Jacobian of ``fn`` by reverse mode (one pullback per output element, of one
    forward run, as ops.vjp's); shape ``out.shape + input.shape``."""
    return _jacobian(fn, grad_position, has_aux, forward=False)


# stop_gradient and depend are defined in ops/function/_util.py (the function modules use
# them, and they must not import this module: common/tensor.py imports them); the compiler
# knows them as this module's attributes (frontend/py_host.cc), the same objects.
from mycel.ops.function._util import stop_gradient, depend  # noqa: E402,F401


class Depend(Primitive):
    """Depend()(value, expr): MindSpore's primitive form of ``ops.depend``; value, returned
    once expr has been computed (e.g. ``Depend()(x, Send(...)(x))`` keeps the send). Graph
    code compiles its call to the depend builtin."""

    def __init__(self):  # no op of the table behind it
        self.name = "Depend"

    def __call__(self, value, expr):
        return depend(value, expr)

# MindSpore's MultitypeFuncGraph, HyperMap and Map (ops/_multitype.py).
from mycel.ops._multitype import MultitypeFuncGraph, HyperMap, Map  # noqa: E402,F401
