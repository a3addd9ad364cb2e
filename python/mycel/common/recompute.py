"""``mycel.recompute(block, *args)``: MindSpore 2.x's PYNATIVE recompute function.

In a PYNATIVE gradient (``mycel.grad``, ``value_and_grad``, ``GradOperation``), the ops a
block runs are recorded and their outputs kept until the backward pass. Called through
``recompute``, the block runs unrecorded, so its intermediate activations are freed as soon
as the forward is done; the recording gets one call (the custom-bprop seam,
``_C._call_custom_bprop``) whose gradient runs the block again under a gradient of its own
and returns the gradients of its Tensor inputs and of its trainable parameters. Random ops
draw the same numbers again (the global generator is rewound to where the forward drew
them), so the gradients are those of the forward that ran. GRAPH mode has
``Cell.recompute()`` (the recompute pass) instead.
"""
from mycel import _mycel as _C
from mycel import context as _context
from mycel.nn.cell import Cell as _Cell
from mycel.ops.composite import GradOperation as _GradOperation

_GRAPH_MODE_ERROR = ("For 'recompute', the function runs in PYNATIVE mode only; in GRAPH mode "
                     "mark the cell with Cell.recompute().")


def _recompute(block, *args, **kwargs):
    """Runs ``block(*args, **kwargs)`` without keeping its intermediate activations for the
    backward pass: a gradient recomputes them when it reaches the block (MindSpore 2.x's
    ``mindspore.recompute``, its reentrant form). Outside a PYNATIVE gradient it is the plain
    call.

    Args:
        block (Cell): the block to recompute; it returns one Tensor.
        args: its inputs; the gradient flows to those that are Tensors, and to the block's
            trainable parameters.
        kwargs: other inputs, passed as they are (not Tensors: they get no gradient).

    Returns:
        The block's output.

    Raises:
        TypeError: block is not a Cell, a keyword input is a Tensor, or the block does not
            return one Tensor.
        ValueError: called in GRAPH mode (use ``Cell.recompute()`` there).
    """
    if not isinstance(block, _Cell):
        raise TypeError(f"For 'recompute', the 'block' must be a Cell, but got "
                        f"{type(block).__name__}.")
    if _context.get_context("mode") != _context.PYNATIVE_MODE:
        raise ValueError(_GRAPH_MODE_ERROR)
    for k, v in kwargs.items():
        if isinstance(v, _C.Tensor):
            raise TypeError(f"For 'recompute', the Tensor input '{k}' must be given "
                            "positionally (keyword inputs get no gradient).")
    if not _C._recording():
        return block(*args, **kwargs)
    pos = [i for i, a in enumerate(args) if isinstance(a, _C.Tensor)]
    params = list(block.trainable_params())
    if not pos and not params:
        return block(*args, **kwargs)
    state = _C._random_state()

    def forward():
        out = block(*args, **kwargs)
        if not isinstance(out, _C.Tensor):
            raise TypeError(f"For 'recompute', the block {type(block).__name__} must return "
                            f"one Tensor, but it returns {type(out).__name__}.")
        return out

    def rule(*values):
        xs, dout = values[:len(pos)], values[-1]

        def again(*inputs):
            full = list(args)
            for i, t in zip(pos, inputs):
                full[i] = t
            return block(*full, **kwargs)

        return _backward(again, xs, params, dout, state)

    return _C._call_custom_bprop(forward, rule, [args[i] for i in pos] + params)


def _in_graph(block, *args, **kwargs):
    """What a compiled (GRAPH mode) program calling recompute runs: the same error."""
    raise ValueError(_GRAPH_MODE_ERROR)


class _Recompute:
    """``mycel.recompute``: called from Python, _recompute; compiled into a GRAPH mode
    program (the host compiles an object's ``_mycel_fn``), _in_graph's error."""
    _mycel_fn = staticmethod(_in_graph)
    _instance = None
    __doc__ = _recompute.__doc__
    __call__ = staticmethod(_recompute)

    def __repr__(self):
        return "<function mycel.recompute>"


recompute = _Recompute()


def _backward(again, xs, params, dout, state):
    """The gradients of again(*xs) with cotangent dout: those of xs, then those of params,
    the forward run again with the random generator where the first run found it."""
    now = _C._random_state()
    _C._set_random_state(state)
    try:
        if not xs:  # only weights: a wrapper gives the gradient an input to hold
            grads = _GradOperation(get_by_list=True, sens_param=True)(again, params)(dout)
            return tuple(grads)
        if not params:
            return tuple(_GradOperation(get_all=True, sens_param=True)(again)(*xs, dout))
        gin, gw = _GradOperation(get_all=True, get_by_list=True, sens_param=True)(
            again, params)(*xs, dout)
        return tuple(gin) + tuple(gw)
    finally:
        _C._set_random_state(now)


__all__ = ["recompute"]
