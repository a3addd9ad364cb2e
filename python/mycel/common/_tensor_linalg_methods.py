"""MindSpore 2.x Tensor methods on the composites of ops/function/cholesky_func.py and
stats_ext_func.py, and the random fills ``cauchy`` / ``log_normal`` (common/tensor.py
attaches them to Tensor; GRAPH mode compiles the same functions):

- ``addr`` (as ops.addr), ``cross(other, dim=None)`` (as ops.cross),
  ``multinomial(num_samples, replacement=True, seed=None)``, ``orgqr(input2)``,
  ``lu_solve(LU_data, LU_pivots)`` (self is b), as the ops of those names, ``qr(some=True)``
  (ops.qr, 'reduced' when some else 'complete'); ``mvlgamma``,
  ``cholesky``, ``cholesky_inverse``, ``cholesky_solve``, ``geqrf``;
- ``cauchy(median=0, sigma=1)``: a tensor of self's shape and dtype of Cauchy samples,
  median + sigma * tan(pi (u - 1/2)) with u ~ U[0, 1);
- ``log_normal(mean=1, std=2)``: exp(mean + std * z) with z ~ N(0, 1), self's shape and dtype;
- ``__isub__(other, *, alpha=1)``: self - alpha * other, a new tensor (``x -= y`` rebinds, as
  Python's other augmented operators on tensors do); ``x.__sub__(other, alpha=a)`` computes
  the same (GRAPH_FORMS gives graph code that form).
"""
import math

from mycel import _mycel as _C
from mycel.ops.function import math_func as _m, random_func as _r
from mycel.ops.function import cholesky_func as _ch, stats_ext_func as _st
from mycel.ops.function import linalg_func as _la
from mycel.ops.primitive import constexpr


@constexpr
def _check_float(op, dtype):
    if dtype not in (_C.float16, _C.float32, _C.float64):
        raise TypeError(f"For 'Tensor.{op}', the tensor must be float16, float32 or float64, "
                        f"but got {dtype}.")


@constexpr
def _check_positive(op, name, v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"For 'Tensor.{op}', '{name}' must be a float, but got "
                        f"{type(v).__name__}.")
    if not v > 0:
        raise ValueError(f"For 'Tensor.{op}', '{name}' must be positive, but got {v}.")


@constexpr
def _check_number(op, name, v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"For 'Tensor.{op}', '{name}' must be a float, but got "
                        f"{type(v).__name__}.")


def cauchy(self, median=0.0, sigma=1.0):
    """Samples of the Cauchy distribution (median, sigma), of self's shape and dtype."""
    _check_float("cauchy", self.dtype)
    _check_number("cauchy", "median", median)
    _check_positive("cauchy", "sigma", sigma)
    u = _r.rand(self.shape, dtype=_C.float32)
    x = _m.add(_m.mul(_m.tan(_m.mul(_m.sub(u, 0.5), math.pi)), float(sigma)), float(median))
    return x.astype(self.dtype)


def log_normal(self, mean=1.0, std=2.0):
    """Samples of exp(N(mean, std^2)), of self's shape and dtype."""
    _check_float("log_normal", self.dtype)
    _check_number("log_normal", "mean", mean)
    _check_positive("log_normal", "std", std)
    z = _r.randn(self.shape, dtype=_C.float32)
    return _m.exp(_m.add(_m.mul(z, float(std)), float(mean))).astype(self.dtype)


def _addr(self, vec1, vec2, beta=1, alpha=1):
    """beta * self + alpha * outer(vec1, vec2): ops.addr (math_func.py)."""
    return _m.addr(self, vec1, vec2, beta=beta, alpha=alpha)


def _isub(self, other, *, alpha=1):
    return _m.sub(self, other if alpha == 1 else _m.mul(other, alpha))


# Graph code's form of x.__sub__(other, alpha=...) (the eager one is a C++ overload).
GRAPH_FORMS = {"__sub__": _isub}


METHODS = {
    "addr": _addr,
    "cross": lambda self, other, dim=None: _la.cross(self, other, dim),
    "multinomial": lambda self, num_samples, replacement=True, seed=None:
        _r.multinomial(self, num_samples, replacement, seed),
    "orgqr": lambda self, input2: _la.orgqr(self, input2),
    "qr": lambda self, some=True: _la.qr(self, "reduced" if some else "complete"),
    "lu_solve": lambda self, LU_data, LU_pivots: _la.lu_solve(self, LU_data, LU_pivots),  # noqa
    "mvlgamma": lambda self, p: _st.mvlgamma(self, p),
    "cholesky": lambda self, upper=False: _ch.cholesky(self, upper),
    "cholesky_inverse": lambda self, upper=False: _ch.cholesky_inverse(self, upper),
    "cholesky_solve": lambda self, input2, upper=False: _ch.cholesky_solve(self, input2, upper),
    "geqrf": _ch.geqrf,
    "cauchy": cauchy,
    "log_normal": log_normal,
    "__isub__": _isub,
}
