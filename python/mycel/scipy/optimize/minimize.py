"""minimize(func, x0, method='BFGS' | 'LBFGS'): unconstrained minimization of a scalar
function of a 1-d Tensor, its gradient by autodiff (or jac), each step's size from
line_search (strong Wolfe), stopping when the gradient's largest entry is at most gtol or
after maxiter steps (200 per variable by default), scipy.optimize.minimize's BFGS:

- BFGS keeps the inverse Hessian H (the identity at first) and updates it with
  H <- (I - rho s y^T) H (I - rho y s^T) + rho s s^T, rho = 1 / (y . s) (1000 when y . s is
  0, as scipy). H is kept in float64 for float32 x too: on a badly scaled problem the first
  term cancels along g and the step lives in the small second one, which float32 H loses;
  hess_inv is returned in x's dtype;
- LBFGS (options history_size, 20 by default) keeps the last pairs (s, y) and applies H by
  the two-loop recursion, the initial matrix scaled by (s . y) / (y . y).

The first trial step comes from the previous decrease (old_old_fval = f + |g| / 2 at the
start, as scipy). Returns OptimizeResults(x, success, status, fun, jac, hess_inv, nfev,
njev, nit); status 0 converged, 1 maxiter reached, 3 the line search failed."""
import collections

from mycel import _mycel as _C
from mycel import ops as _ops
from mycel.ops.composite import value_and_grad as _value_and_grad
from mycel.scipy.optimize.line_search import line_search

OptimizeResults = collections.namedtuple(
    "OptimizeResults", ["x", "success", "status", "fun", "jac", "hess_inv", "nfev", "njev",
                        "nit"])


def _value_grad(func, jac):
    if jac is None:
        return _value_and_grad(func)
    if not callable(jac):
        raise TypeError(f"For 'minimize', jac must be None or a function, but got {jac!r}.")
    return lambda x: (func(x), jac(x))


def _scalar(t):
    return float(t.asnumpy()) if isinstance(t, _C.Tensor) else float(t)


def _gnorm(g):
    return _scalar(_ops.amax(_ops.abs(g)))


def _dot(a, b):
    return _scalar(_ops.sum(a * b))


def _bfgs_direction(state, g):
    return -_ops.mv(state["H"], g.astype(_C.float64)).astype(g.dtype)


def _bfgs_update(state, s, y):
    n = s.shape[0]
    s, y = s.astype(_C.float64), y.astype(_C.float64)
    ys = _dot(y, s)
    rho = 1000.0 if ys == 0 else 1.0 / ys
    eye = _ops.eye(n, n, _C.float64)
    a = eye - rho * _ops.outer(s, y)
    state["H"] = _ops.matmul(a, _ops.matmul(state["H"], _ops.transpose(a, (1, 0)))) + \
        rho * _ops.outer(s, s)


def _lbfgs_direction(state, g):
    q = g
    alphas = []
    pairs = state["pairs"]
    for s, y, rho in reversed(pairs):
        a = rho * _dot(s, q)
        alphas.append(a)
        q = q - a * y
    if pairs:
        s, y, _ = pairs[-1]
        q = q * (_dot(s, y) / _dot(y, y))
    for (s, y, rho), a in zip(pairs, reversed(alphas)):
        b = rho * _dot(y, q)
        q = q + (a - b) * s
    return -q


def _lbfgs_update(state, s, y):
    ys = _dot(y, s)
    if ys <= 0:  # not a descent pair: the curvature condition failed, skip it
        return
    state["pairs"].append((s, y, 1.0 / ys))
    if len(state["pairs"]) > state["history"]:
        state["pairs"].pop(0)


def _check_x0(x0):
    if not isinstance(x0, _C.Tensor):
        raise TypeError(f"For 'minimize', x0 must be a Tensor, but got {type(x0).__name__}.")
    if x0.ndim != 1:
        raise ValueError(f"For 'minimize', x0 must be 1-D, but got shape {tuple(x0.shape)}.")
    if x0.dtype not in (_C.float32, _C.float64):
        raise TypeError(f"For 'minimize', x0 must be float32 or float64, but got {x0.dtype}.")


def minimize(func, x0, args=(), method="BFGS", jac=None, hess=None, hessp=None, bounds=None,
             constraints=None, tol=None, callback=None, options=None):
    """The minimum of func(x, *args) from x0 by BFGS or LBFGS (see the module docstring);
    options: maxiter, gtol (1e-5), line_search_maxiter (10), history_size (LBFGS, 20)."""
    if not isinstance(method, str) or method.lower() not in ("bfgs", "lbfgs"):
        raise ValueError(f"For 'minimize', method must be 'BFGS' or 'LBFGS', but got "
                         f"{method!r}.")
    for name, v in (("hess", hess), ("hessp", hessp), ("bounds", bounds),
                    ("constraints", constraints), ("callback", callback)):
        if v is not None:
            raise ValueError(f"For 'minimize', {name} is not supported by BFGS / LBFGS.")
    _check_x0(x0)
    options = dict(options or {})
    maxiter = options.pop("maxiter", None)
    gtol = options.pop("gtol", 1e-5 if tol is None else tol)
    ls_maxiter = options.pop("line_search_maxiter", 10)
    history = options.pop("history_size", 20)
    options.pop("norm", None)
    if options:
        raise ValueError(f"For 'minimize', unknown options {sorted(options)}.")
    n = x0.shape[0]
    maxiter = 200 * n if maxiter is None else int(maxiter)
    fun = (lambda x: func(x, *args)) if args else func
    jfun = (lambda x: jac(x, *args)) if (args and callable(jac)) else jac
    vg = _value_grad(fun, jfun)
    lbfgs = method.lower() == "lbfgs"
    state = {"pairs": [], "history": int(history)} if lbfgs else \
        {"H": _ops.eye(n, n, _C.float64)}  # float64 whatever x's dtype (see the docstring)
    direction = _lbfgs_direction if lbfgs else _bfgs_direction
    update = _lbfgs_update if lbfgs else _bfgs_update

    x = x0
    f, g = vg(x)
    nfev = njev = 1
    old_old = _scalar(f) + _scalar(_ops.norm(g)) / 2
    status, k = 1, 0
    while k < maxiter:
        if _gnorm(g) <= gtol:
            status = 0
            break
        p = direction(state, g)
        ls = line_search(fun, x, p, jfun, g, f, old_old, maxiter=ls_maxiter)
        nfev += ls.nfev
        njev += ls.ngev
        if ls.failed:
            status = 3
            break
        s = ls.a_k.astype(x.dtype) * p
        x_new = x + s
        g_new = ls.g_k
        update(state, s, g_new - g)
        old_old = _scalar(f)
        x, f, g = x_new, ls.f_k, g_new
        k += 1
    if status == 1 and _gnorm(g) <= gtol:
        status = 0
    hess_inv = None if lbfgs else state["H"].astype(x0.dtype)
    return OptimizeResults(x, status == 0, status, f, g, hess_inv, nfev, njev, k)
