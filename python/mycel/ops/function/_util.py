"""Helpers shared by the functional API: cached op handles and argument normalisation."""
import numbers
import os
from functools import lru_cache

from mycel import _mycel as _C
from mycel.ops.primitive import constexpr


def _freeze(v):
    if isinstance(v, list):
        return tuple(_freeze(x) for x in v)
    if isinstance(v, tuple):
        return tuple(_freeze(x) for x in v)
    return v


@lru_cache(maxsize=4096)
def _cached(name, frozen):
    return _C.OpHandle(name, dict(frozen))


@constexpr
def prim(name, **attrs):
    """The OpHandle of op `name` with these init-time attributes (cached)."""
    return _cached(name, tuple(sorted((k, _freeze(v)) for k, v in attrs.items())))


@constexpr
def axes(axis):
    """None -> () (all axes); int -> (int,); sequences pass."""
    if axis is None:
        return ()
    if isinstance(axis, int):
        return (axis,)
    if not isinstance(axis, (tuple, list, _C.Tensor)):  # (a float: "not iterable", no op)
        raise TypeError(f"For '{_op_name()}', the axis must be None, an int or a tuple of "
                        f"ints, but got {type(axis).__name__}.")
    return tuple(int(a) for a in axis)


def _op_name():
    from mycel.ops._caller import calling_op  # pylint: disable=import-outside-toplevel
    return calling_op() or "axis"


def _machine_bytes():
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # not POSIX: no bound but int64's
        return 2 ** 63 - 1


_MACHINE_BYTES = _machine_bytes()


@constexpr  # graph mode runs it at compile time (the sizes are static)
def host_bytes(op, nbytes):
    """Refuses, before it is made, a host (numpy or Python) table of nbytes bytes that a
    helper builds for op (an index table, a window, a list of combinations) when it is more
    than the machine's memory: a RuntimeError naming op, where numpy raised a MemoryError, a
    Python loop ran for hours or the process was killed (linspace(0, 1, 2**62) built a list of
    2**62 floats). Returns nbytes."""
    limit = _MACHINE_BYTES
    if nbytes > limit:
        raise RuntimeError(f"For '{op}', the result needs {nbytes} bytes, more than this "
                           f"machine's memory ({limit} bytes).")
    return nbytes


def tensor_arg(x, op, name):
    """x when it is a Tensor, else a TypeError naming op and the argument."""
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {type(x).__name__}.")
    return x


def number_arg(v, op, name):
    """v when it is a Python number or a Tensor, else a TypeError naming op and the argument
    (a comparison of a str or a tuple with a number raised naming neither)."""
    if not isinstance(v, (int, float, _C.Tensor)):
        raise TypeError(f"For '{op}', '{name}' must be a number, but got {type(v).__name__}.")
    return v


def one_int(n, op, name):
    """n, or the value of a one-element integer tensor n (MindSpore's int64 of shape () or
    (1,)); a TypeError naming op and the argument for another tensor (taking its first element
    turned a bool (2, 3) tensor into 0 silently). Other values pass for the caller's check."""
    if isinstance(n, _C.Tensor):
        arr = n.asnumpy()
        if arr.size != 1 or arr.dtype.kind not in "iu":
            raise TypeError(f"For '{op}', {name} given as a Tensor must hold one integer, but "
                            f"got shape {list(arr.shape)} and dtype {n.dtype}.")
        return int(arr.reshape(-1)[0])
    return n


def as_tensor(x):
    return x if isinstance(x, _C.Tensor) else _C.Tensor(x)


def _dim(v, op):
    # MindSpore's rule: shape elements are ints. A float (2.5, even 2.0) or a bool is a
    # TypeError rather than silently truncated; an int beyond int64 a ValueError.
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise TypeError(f"For '{op}', each element of the shape must be an int, but got "
                        f"{v!r} of type {type(v).__name__}.")
    v = int(v)
    if not -2**63 <= v < 2**63:
        raise ValueError(f"For '{op}', the shape element {v} does not fit in int64.")
    return v


def holds_dynamic_dim(value):
    """Whether value (an int, or a tuple/list of them, e.g. read from x.shape) holds a tensor
    dimension known only at run time. Graph code compiles it to a constant (the
    F.holds_dynamic_dim builtin, compiler/specialize_host.cc: a dimension that set_inputs left
    None, which compile-time helpers such as shape_arg see as -1); in PYNATIVE mode every
    dimension is known, so it is False."""
    return False


@constexpr
def refuse_dynamic_shape(op, shape):
    """The TypeError for an op whose shape argument must be known at compile time but holds a
    dimension known only at run time (shape here shows it as -1)."""
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    raise TypeError(f"For '{op}', the shape {shape} holds a dimension known only at run "
                    f"time (a None dimension of set_inputs, shown as -1), but graph mode needs "
                    f"this shape at compile time; derive the tensor from one of that shape "
                    f"instead (ops.zeros_like, ops.ones_like, ops.broadcast_to of it, or "
                    f"arithmetic with it).")


def shape_arg(shape, op="shape", run_time_dims=False):
    """A shape given as an int, a tuple/list of ints, or a 1-d integer tensor, as a tuple of
    ints; errors name op. In graph mode a dimension known only at run time (read from x.shape
    under set_inputs) is a TypeError (refuse_dynamic_shape), unless run_time_dims: then it is
    -1 here and the caller checks the result when it runs (reshape, broadcast_to)."""
    if not run_time_dims and holds_dynamic_dim(shape):
        refuse_dynamic_shape(op, shape)
    return _shape_arg(shape, op)


@constexpr
def _shape_arg(shape, op):
    if isinstance(shape, _C.Tensor):
        arr = shape.asnumpy()
        if arr.dtype.kind not in "iu":
            raise TypeError(f"For '{op}', a shape given as a tensor must have an integer dtype, "
                            f"but got {shape.dtype}.")
        if arr.ndim > 1:  # (a 2-d one was flattened into a shape silently)
            raise ValueError(f"For '{op}', a shape given as a tensor must be 0-d or 1-d, but "
                             f"got shape {list(arr.shape)}.")
        return tuple(_dim(v, op) for v in arr.reshape(-1).tolist())
    if isinstance(shape, (tuple, list)):
        return tuple(_dim(v, op) for v in shape)
    return (_dim(shape, op),)


@constexpr
def pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def three_ints(v, name, op, minimum=1, ncdhw=True):
    """A 3-D window/stride/dilation argument as 3 ints >= minimum: an int for all three, 3
    ints (D, H, W) or, with ncdhw, MindSpore's 5-int NCDHW form (its last three). Anything
    else is a ValueError naming the op and the argument. One rule for the 3-D convolutions
    and pools of ops and nn."""
    vals = (v,) * 3 if isinstance(v, int) and not isinstance(v, bool) else v
    if not isinstance(vals, (tuple, list)):
        vals = ()
    vals = tuple(vals)
    if ncdhw and len(vals) == 5:
        vals = vals[2:]
    if len(vals) != 3 or any(isinstance(e, bool) or not isinstance(e, int) or e < minimum
                             for e in vals):
        what = "a positive int" if minimum == 1 else f"an int >= {minimum}"
        raise ValueError(f"For '{op}', '{name}' must be {what} or 3 of them, but got {v!r}.")
    return vals


def stop_gradient(x):
    """x, through which no gradient flows: in graph code the compiler's stop_gradient
    builtin; in PYNATIVE mode a new tensor sharing x's data that a grad recording does not
    know (so it is a constant there). Tuples are handled elementwise."""
    if isinstance(x, (tuple, list)):
        return type(x)(stop_gradient(e) for e in x)
    if isinstance(x, _C.Tensor):
        return _C._detached(x)
    return x


def depend(value, expr):
    """value, returned once expr has been computed (MindSpore's ``ops.depend``): in graph code
    the compiler's depend builtin, which keeps expr (an update, a print) alive and ordered
    before value's users; in PYNATIVE mode expr has already run, and value is returned.
    (mycel.ops.composite exports it: see stop_gradient.)"""
    return value


def _raise_if(bad, message, exc):
    if bad:
        raise exc(message)
    return bad


def shape_guarded(result, shape, message):
    """result, once a run-time check has found its shape equal to shape (ints, some of them
    dimensions known only at run time, which the op computing result saw as -1):
    ValueError(message) otherwise. Graph code only (shape holds such a dimension)."""
    got = prim("Cast")(result.shape, _C.int64)
    want = prim("Cast")(shape, _C.int64)
    return guarded(result, prim("NotEqual")(got, want).any(), message)


def guarded(value, bad, message, exc=ValueError):
    """value, used only once the run-time check bad (a bool tensor) has passed: exc(message)
    when it holds. (In graph code the check's call is value's dependency, so no op reading
    value, such as a Gather at an index out of range, runs before it.)"""
    return depend(value, _raise_if(bad, message, exc))
