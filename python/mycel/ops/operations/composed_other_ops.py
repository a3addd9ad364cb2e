"""Control and debugging primitives of MindSpore 2.x (its other_ops and debug_ops):
Partial, the loop primitives ForiLoop, WhileLoop and Scan, and TensorDump.

Attributes in ``__init__``, inputs in ``__call__``, as MindSpore's. Each is a
_Composed primitive whose __call__ graph mode parses like any function, so both modes
and gradients come from the ops it is built of. The family modules (array_ops, math_ops,
nn_ops, ...) list these classes where MindSpore defines them.
"""
import functools
from mycel import _mycel as _C
from mycel.ops.function import debug_func as _dbg
from mycel.ops.function._util import prim as _prim
from mycel.ops.operations.composed_ops import _Composed, _exporter

__all__ = []


_export = _exporter(__all__, globals())


@_export
class Partial(_Composed):
    """Partial()(func, *args, **kwargs): func with its first arguments (and keyword
    arguments, MindSpore 2.x) bound; keywords of the later call add to them."""

    def __init__(self):
        super().__init__()

    def __call__(self, func, *args, **kwargs):
        if not kwargs:
            return functools.partial(func, *args)

        def bound(*rest, **more):
            return func(*args, *rest, **kwargs, **more)
        return bound


@_export
class ForiLoop(_Composed):
    """ForiLoop()(lower, upper, loop_func, init_val, unroll=True): val = loop_func(i, val)
    for i in [lower, upper). The bounds are Python ints (the loop runs in Python, or unrolls
    in graph mode)."""

    def __init__(self):
        super().__init__()

    def __call__(self, lower, upper, loop_func, init_val, unroll=True):
        val = init_val
        for i in range(int(lower), int(upper)):
            val = loop_func(i, val)
        return val


@_export
class WhileLoop(_Composed):
    """WhileLoop()(cond_func, loop_func, init_val): val = loop_func(val) while
    cond_func(val) (PYNATIVE: the condition is read each time)."""

    def __init__(self):
        super().__init__()

    def __call__(self, cond_func, loop_func, init_val):
        val = init_val
        while bool(_truth(cond_func(val))):
            val = loop_func(val)
        return val


def _truth(c):
    return c.asnumpy().all() if isinstance(c, _C.Tensor) else c


@_export
class Scan(_Composed):
    """Scan()(loop_func, init, xs, length=None, unroll=True): (carry, ys) with carry, y =
    loop_func(carry, x) for each x of xs (or length steps of None); ys stacked when they
    are tensors."""

    def __init__(self):
        super().__init__()

    def __call__(self, loop_func, init, xs, length=None, unroll=True):
        n = length if xs is None else (xs.shape[0] if isinstance(xs, _C.Tensor) else len(xs))
        carry, ys = init, []
        for i in range(n):
            carry, y = loop_func(carry, None if xs is None else xs[i])
            ys.append(y)
        if ys and all(isinstance(y, _C.Tensor) for y in ys):
            return carry, _prim("Stack", axis=0)(tuple(ys))
        return carry, ys


@_export
class TensorDump(_Composed):
    """TensorDump(input_output='out')()(file, input_x): saves input_x as file.npy."""

    def __init__(self, input_output="out"):
        super().__init__(input_output=input_output)
        self.input_output = input_output

    def __call__(self, file, input_x):
        _dbg.tensordump(file, input_x, self.input_output)
