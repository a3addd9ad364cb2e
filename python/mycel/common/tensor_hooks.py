"""``Tensor.register_hook(hook_fn)`` and ``Parameter.register_hook`` (MindSpore 2.x):
``hook_fn(grad)`` sees the gradient of the tensor and may return a replacement (a Tensor of
the same shape and dtype; None keeps it). Several hooks on one tensor run in the order
registered. The call
returns a handle whose ``remove()`` unregisters the hook.

Where a hook acts:

- on a tensor a gradient function differentiates with respect to (an input of the call, or
  one of its weights), registered before or during the call: the gradient returned for it is
  passed through the tensor's hooks, in PYNATIVE and GRAPH mode alike (``_GradFunction`` in
  ops/composite/__init__.py calls ``apply_leaf_hooks``). The hooks stay on the tensor until removed.
  fn receives its inputs as aliases (PYNATIVE ``_alias``; GRAPH code, as parameters), so a hook
  fn registers on an input acts on that call's gradient only: in PYNATIVE mode after the
  hooks registered before the call, in GRAPH code before them (it is compiled into the graph).
- on a tensor made by the ops of a PYNATIVE gradient's recording (an intermediate value in a
  construct run eagerly): the recording routes the whole gradient of that tensor (from every
  use, earlier uses included) through the hook (``_C._hook_recorded``, compiler/ad/pynative.h).
  Such a hook belongs to that recording only.

- on a tensor made inside graph code (GRAPH mode, a @jit function): the front end compiles
  the hook into the graph's backward (see the end of this file). A @jit function with such a
  hook, differentiated in PYNATIVE mode, runs eagerly (common/api.py, _JitFunction), so the
  recording sees the hook.

Registering a hook on a Parameter inside graph code is a ValueError (as in MindSpore), and two
hooks on one tensor inside graph code a RuntimeError. A graph that takes a gradient itself
(a grad inside a @jit function or a GRAPH-mode construct, TrainOneStepCell in GRAPH mode)
does not run the hooks of its arguments or weights: calling it with a hooked one is a
TypeError (common/api.py)."""
import itertools
import weakref

from mycel import _mycel as _C
from mycel.common.grad_hooks import _check_grad

__all__ = ["register_hook", "apply_leaf_hooks", "has_hooks", "hooked_in", "RemovableHandle"]

# id(tensor) -> (weak reference to it, {handle id: hook_fn}); entries go with their tensor.
_registry = {}
_ids = itertools.count(1)


class RemovableHandle:
    """What ``register_hook`` returns: ``remove()`` unregisters the hook (a second call does
    nothing)."""

    def __init__(self, key, hid):
        self._key = key
        self.id = hid

    def remove(self):
        entry = _registry.get(self._key)
        if entry is not None:
            entry[1].pop(self.id, None)
            if not entry[1]:
                del _registry[self._key]


class _RecordedHandle:
    """The handle of a hook held by a PYNATIVE recording: the recording ends with the call,
    so there is nothing left to remove afterwards."""

    id = 0

    def remove(self):
        pass


def _drop(key):
    def gone(_ref):
        _registry.pop(key, None)
    return gone


def register_hook(tensor, hook_fn):
    """Registers ``hook_fn(grad)`` on `tensor` (see the module's docstring)."""
    if not isinstance(tensor, _C.Tensor):
        raise TypeError(f"For 'register_hook', the hooked object must be a Tensor, but got "
                        f"{type(tensor).__name__}.")
    if not callable(hook_fn):
        raise TypeError(f"For 'Tensor.register_hook(hook_fn)', the 'hook_fn' must be a "
                        f"function, but got {type(hook_fn).__name__}.")
    if _C._recording():
        def rule(_x, _out, dout):
            new = hook_fn(dout)
            return (dout if new is None else _check_grad(new, dout, "register_hook"),)

        if _C._hook_recorded(tensor, rule):
            return _RecordedHandle()
    key = id(tensor)
    entry = _registry.get(key)
    if entry is None or entry[0]() is not tensor:
        entry = _registry[key] = (weakref.ref(tensor, _drop(key)), {})
    hid = next(_ids)
    entry[1][hid] = hook_fn
    return RemovableHandle(key, hid)


def hooked_in(values):
    """The first Tensor among `values` (a list, nested in tuples, lists and dict values) that
    has a hook, or None."""
    for v in values:
        if isinstance(v, (tuple, list)):
            found = hooked_in(v)
        elif isinstance(v, dict):
            found = hooked_in(list(v.values()))
        else:
            entry = _registry.get(id(v))
            found = v if entry is not None and entry[0]() is v and entry[1] else None
        if found is not None:
            return found
    return None


def has_hooks():
    """Whether any tensor has a hook (the gradient functions' fast path checks this)."""
    return bool(_registry)


def _hooked(tensor, grad):
    entry = _registry.get(id(tensor))
    if entry is None or entry[0]() is not tensor or grad is None:
        return grad
    for fn in list(entry[1].values()):
        new = fn(grad)
        if new is not None:
            grad = _check_grad(new, grad, "register_hook")
    return grad


def _map_tree(tensors, grads):
    """grads (a gradient, or a tuple of them shaped as `tensors`) with each one passed through
    its tensor's hooks."""
    if isinstance(tensors, (tuple, list)) and isinstance(grads, (tuple, list)) and \
            len(tensors) == len(grads):
        return type(grads)(_map_tree(t, g) for t, g in zip(tensors, grads))
    if isinstance(tensors, _C.Tensor):
        return _hooked(tensors, grads)
    return grads


def apply_leaf_hooks(result, options, args, positions):
    """A gradient function's result (its structure as compiler/grad_spec.h's grad_result
    makes it, from `options` = (positions, weights, has_aux, return_value, sens_param)) with
    the gradient of each input at `positions` and of each weight passed through the hooks
    registered on that tensor."""
    pos_opt, weights, has_aux, return_value = options[0], options[1], options[2], options[3]
    if return_value:
        out, grads = result
    elif has_aux:
        grads, aux = result
    else:
        grads = result
    inputs = pos_opt is not None
    if inputs and weights:
        gin, gw = grads
    elif inputs:
        gin, gw = grads, None
    else:
        gin, gw = None, grads
    if inputs:
        single = pos_opt == "first" or (isinstance(pos_opt, int) and
                                        not isinstance(pos_opt, bool))
        if single and positions:
            gin = _map_tree(args[positions[0]], gin)
        elif single:
            pass  # the one wanted input has no gradient (a constant number): ()
        else:
            gin = tuple(_map_tree(args[p], g) for p, g in zip(positions, gin))
    if weights:
        gw = tuple(_hooked(w, g) for w, g in zip(weights, gw))
    grads = gw if not inputs else ((gin, gw) if weights else gin)
    if return_value:
        return (out, grads)
    if has_aux:
        return (grads, aux)
    return grads


# Graph code's `x.register_hook(fn)` (src/frontend/parse_stmt.cc, parse_register_hook) becomes
# custom_vjp(_graph_hook_forward, partial(_graph_hook_bprop, fn), x): both are compiled as
# graph code, so the hook runs inside the backward graph (a hook returning None leaves the
# gradient as it is).
def _graph_hook_forward(x):
    return x


def _graph_hook_bprop(hook_fn, x, out, dout):
    new = hook_fn(dout)
    if new is None:
        return (dout,)
    return (new,)
