"""line_search: a step size along pk satisfying the strong Wolfe conditions (Nocedal & Wright,
Numerical Optimization, algorithms 3.5 and 3.6: a bracketing phase that doubles the step,
then a zoom that shrinks the bracket by cubic or quadratic interpolation, falling back to
bisection), the algorithm and defaults of scipy.optimize's line_search_wolfe2 (c1 = 1e-4,
c2 = 0.9, the first trial step from the previous decrease when old_old_fval is given).

phi(a) = f(xk + a pk) and derphi(a) = f'(xk + a pk) . pk are evaluated with mycel (the
gradient by autodiff unless jac is given); the scalar control flow runs in Python."""
import collections
import math

from mycel import _mycel as _C
from mycel import ops as _ops
from mycel.ops.composite import value_and_grad as _value_and_grad

_LineSearchResults = collections.namedtuple(
    "_LineSearchResults", ["failed", "nit", "nfev", "ngev", "k", "a_k", "f_k", "g_k", "status"])


class _Phi:
    """phi and derphi of f along pk from xk, counting evaluations and keeping the last
    gradient."""

    def __init__(self, fun, xk, pk, jac):
        self.fun, self.xk, self.pk, self.jac = fun, xk, pk, jac
        self.nfev = self.ngev = 0
        self.cache = {}

    def _eval(self, a):
        if a not in self.cache:
            x = self.xk + a * self.pk
            if self.jac is None:
                f, g = _value_and_grad(self.fun)(x)
            else:
                f, g = self.fun(x), self.jac(x)
            self.nfev += 1
            self.ngev += 1
            self.cache[a] = (float(f.asnumpy()) if isinstance(f, _C.Tensor) else float(f), g)
        return self.cache[a]

    def phi(self, a):
        return self._eval(a)[0]

    def derphi(self, a):
        g = self._eval(a)[1]
        return float(_ops.sum(g * self.pk).asnumpy()), g


def _cubic_min(a, fa, fpa, b, fb, c, fc):
    """The minimizer of the cubic through (a, fa) with slope fpa at a, (b, fb) and (c, fc);
    None when it does not exist."""
    try:
        db, dc = b - a, c - a
        denom = (db * dc) ** 2 * (db - dc)
        if denom == 0:
            return None
        r1 = fb - fa - fpa * db
        r2 = fc - fa - fpa * dc
        ca = (dc * dc * r1 - db * db * r2) / denom
        cb = (-dc ** 3 * r1 + db ** 3 * r2) / denom
        radical = cb * cb - 3 * ca * fpa
        if ca == 0 or radical < 0:
            return None
        x = a + (-cb + math.sqrt(radical)) / (3 * ca)
    except (ArithmeticError, ValueError):
        return None
    return x if math.isfinite(x) else None


def _quad_min(a, fa, fpa, b, fb):
    """The minimizer of the parabola through (a, fa) with slope fpa at a and (b, fb)."""
    try:
        db = b - a
        curv = (fb - fa - fpa * db) / (db * db)
        x = a - fpa / (2.0 * curv)
    except (ArithmeticError, ValueError):
        return None
    return x if math.isfinite(x) else None


def _zoom(lo, hi, p, phi0, derphi0, c1, c2):
    """Algorithm 3.6 on the bracket lo = (a, phi, derphi), hi = (a, phi): the step and its
    phi / derphi / gradient, or None after 10 rounds."""
    a_lo, phi_lo, dphi_lo = lo
    a_hi, phi_hi = hi
    a_rec, phi_rec = 0.0, phi0
    for i in range(11):
        d = a_hi - a_lo
        left, right = (a_hi, a_lo) if d < 0 else (a_lo, a_hi)
        cchk, qchk = 0.2 * d, 0.1 * d  # signed, as scipy's checks
        a_j = _cubic_min(a_lo, phi_lo, dphi_lo, a_hi, phi_hi, a_rec, phi_rec) if i else None
        if a_j is None or a_j > right - cchk or a_j < left + cchk:
            a_j = _quad_min(a_lo, phi_lo, dphi_lo, a_hi, phi_hi)
            if a_j is None or a_j > right - qchk or a_j < left + qchk:
                a_j = a_lo + 0.5 * d
        phi_j = p.phi(a_j)
        if phi_j > phi0 + c1 * a_j * derphi0 or phi_j >= phi_lo:
            a_rec, phi_rec = a_hi, phi_hi
            a_hi, phi_hi = a_j, phi_j
            continue
        dphi_j, g_j = p.derphi(a_j)
        if abs(dphi_j) <= -c2 * derphi0:
            return a_j, phi_j, g_j, i + 1
        if dphi_j * (a_hi - a_lo) >= 0:
            a_rec, phi_rec = a_hi, phi_hi
            a_hi, phi_hi = a_lo, phi_lo
        else:
            a_rec, phi_rec = a_lo, phi_lo
        a_lo, phi_lo, dphi_lo = a_j, phi_j, dphi_j
    return None, None, None, 11


def line_search(f, xk, pk, jac=None, gfk=None, old_fval=None, old_old_fval=None, c1=1e-4,
                c2=0.9, maxiter=20):
    """A step a_k along pk from xk with f(xk + a_k pk) <= f(xk) + c1 a_k f'(xk).pk and
    |f'(xk + a_k pk).pk| <= c2 |f'(xk).pk| (strong Wolfe). Returns
    (failed, nit, nfev, ngev, k, a_k, f_k, g_k, status): a_k, f_k as 0-d Tensors, g_k the
    gradient there; failed (status 1) when no step was found: after maxiter doublings a_k is
    the last trial step (as scipy's result then), after a failed zoom 0."""
    if not isinstance(xk, _C.Tensor) or not isinstance(pk, _C.Tensor):
        raise TypeError("For 'line_search', xk and pk must be Tensors.")
    if not 0 < c1 < c2 < 1:
        raise ValueError(f"For 'line_search', 0 < c1 < c2 < 1 must hold, but got c1={c1}, "
                         f"c2={c2}.")
    p = _Phi(f, xk, pk, jac)
    phi0 = p.phi(0.0) if old_fval is None else float(_float(old_fval))
    if gfk is None:
        derphi0, g0 = p.derphi(0.0)
    else:
        g0 = gfk
        derphi0 = float(_ops.sum(gfk * pk).asnumpy())
    a1 = 1.0
    if old_old_fval is not None and derphi0 != 0:
        a1 = min(1.0, 1.01 * 2 * (phi0 - float(_float(old_old_fval))) / derphi0)
        if a1 < 0:
            a1 = 1.0
    a0, phi_a0, dphi_a0 = 0.0, phi0, derphi0
    found = None
    k = 0
    for k in range(1, maxiter + 1):
        if a1 == 0:
            break
        phi_a1 = p.phi(a1)
        if phi_a1 > phi0 + c1 * a1 * derphi0 or (k > 1 and phi_a1 >= phi_a0):
            found = _zoom((a0, phi_a0, dphi_a0), (a1, phi_a1), p, phi0, derphi0, c1, c2)
            break
        dphi_a1, g_a1 = p.derphi(a1)
        if abs(dphi_a1) <= -c2 * derphi0:
            found = (a1, phi_a1, g_a1, 0)
            break
        if dphi_a1 >= 0:
            found = _zoom((a1, phi_a1, dphi_a1), (a0, phi_a0), p, phi0, derphi0, c1, c2)
            break
        a0, phi_a0, dphi_a0 = a1, phi_a1, dphi_a1
        a1 = 2 * a1
    dtype = xk.dtype
    if found is None and a1 != 0:  # maxiter rounds without a bracket: scipy's last trial
        phi_a1 = p.phi(a1)
        return _LineSearchResults(True, k, p.nfev, p.ngev, k, _C.Tensor(a1, dtype),
                                  _C.Tensor(phi_a1, dtype), p._eval(a1)[1], 1)
    if found is None or found[0] is None:
        return _LineSearchResults(True, k, p.nfev, p.ngev, k, _C.Tensor(0.0, dtype),
                                  _C.Tensor(phi0, dtype), g0, 1)
    a_k, f_k, g_k, _ = found
    return _LineSearchResults(False, k, p.nfev, p.ngev, k, _C.Tensor(a_k, dtype),
                              _C.Tensor(f_k, dtype), g_k, 0)


def _float(v):
    return v.asnumpy() if isinstance(v, _C.Tensor) else v
