"""Higher-order forward differentiation along a curve: MindSpore's ``ops.functional.jet`` and
``derivative`` (Taylor mode).

``jet(fn, primals, series)``: each input follows the curve
``x(t) = primal + sum_k series[k] * t**(k+1) / (k+1)!`` and the result is
``(fn(primals), out_series)`` with ``out_series[k] = d^(k+1)/dt^(k+1) fn(x(t))`` at t = 0,
stacked on a new first axis (a tuple of such stacks when fn returns a tuple). series holds
one row per order (shape ``(order,) + primal.shape``); with several inputs, primals and series
are tuples. ``derivative(fn, primals, order)``: ``(fn(primals), d^order/dt^order fn(x(t)))``
along x(t) = primals + t (every input moved at once), i.e. jet's last row for series
(ones, zeros, ...).

How: the derivatives of g(t) = fn(x(t)) in the scalar t are nested forward-mode derivatives
(``jvp``, itself the transpose of reverse mode on the IR): the k-th is the jvp of the
(k-1)-th. That is exact (no finite differences) and composes with everything jvp does, in
both modes and inside graph code; its cost grows with the order (each level differentiates
the one below), which suits the low orders Taylor mode is used for. The powers of t in x(t)
are products (t * t * ...), not pow, whose derivatives at t = 0 divide by zero.
"""
from mycel import _mycel as _C
from mycel.ops.composite import jvp
from mycel.ops.function.array_func import ones_like, stack, zeros

__all__ = ["jet", "derivative"]


def _factorial(n):
    r = 1.0
    for i in range(2, n + 1):
        r = r * i
    return r


def _curve_point(primal, series, t):
    """primal + sum_k series[k] t^(k+1)/(k+1)!, the powers of t as products."""
    x = primal + series[0] * t
    power = t
    for k in range(1, series.shape[0]):
        power = power * t
        x = x + series[k] * power / _factorial(k + 1)
    return x


def _nth_derivative(g, n):
    """t -> d^n g / dt^n (t a scalar tensor)."""
    if n == 0:
        return g
    lower = _nth_derivative(g, n - 1)

    def d(t):
        return jvp(lower, (t,), (ones_like(t),))[1]
    return d


def _stack_orders(rows, tuple_out):
    """rows[k] is the (k+1)-th derivative (a tensor, or a tuple of them): one stack per
    output."""
    if not tuple_out:
        return stack(rows)
    out = ()
    for i in range(len(rows[0])):
        col = ()
        for r in rows:
            col = col + (r[i],)
        out = out + (stack(col),)
    return out


def _check(primals, series, name):
    if len(primals) != len(series):
        raise ValueError(f"For '{name}', primals and series must have the same number of "
                         f"inputs, but got {len(primals)} and {len(series)}.")
    for p, s in zip(primals, series):
        if not isinstance(p, _C.Tensor) or not isinstance(s, _C.Tensor):
            raise TypeError(f"For '{name}', primals and series must be Tensors, but got "
                            f"{type(p).__name__} and {type(s).__name__}.")
        if len(s.shape) != len(p.shape) + 1 or tuple(s.shape[1:]) != tuple(p.shape):
            raise ValueError(f"For '{name}', each series must be (order,) + its primal's shape "
                             f"{tuple(p.shape)}, but got {tuple(s.shape)}.")
        if s.shape[0] < 1:
            raise ValueError(f"For '{name}', the series must hold at least one order.")


def jet(fn, primals, series):
    """``(fn(*primals), out_series)``: the derivatives of fn along the curve the series
    describe (see the module's docstring)."""
    single = not isinstance(primals, (tuple, list))
    ps = (primals,) if single else tuple(primals)
    ss = (series,) if single else tuple(series)
    _check(ps, ss, "jet")

    def g(t):
        xs = ()
        for i in range(len(ps)):
            xs = xs + (_curve_point(ps[i], ss[i], t),)
        return fn(*xs)

    out = fn(*ps)
    t0 = zeros((), ps[0].dtype)
    rows = ()  # tuples, not lists: graph code builds them too
    for k in range(1, ss[0].shape[0] + 1):
        rows = rows + (_nth_derivative(g, k)(t0),)
    return out, _stack_orders(rows, isinstance(out, tuple))


def derivative(fn, primals, order):
    """``(fn(*primals), d^order/dt^order fn(primals + t))`` at t = 0 (see the module's
    docstring)."""
    if not isinstance(order, int) or isinstance(order, bool) or order < 1:
        raise ValueError(f"For 'derivative', 'order' must be a positive int, but got {order!r}.")
    single = not isinstance(primals, (tuple, list))
    ps = (primals,) if single else tuple(primals)

    def g(t):
        xs = ()
        for i in range(len(ps)):
            xs = xs + (ps[i] + t,)
        return fn(*xs)

    out = fn(*ps)
    return out, _nth_derivative(g, order)(zeros((), ps[0].dtype))
