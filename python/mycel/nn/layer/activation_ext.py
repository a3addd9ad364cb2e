"""More activation cells of MindSpore 2.x's ``mindspore.nn``: ReLU6, SeLU, CELU, GLU, HShrink,
SoftShrink, LogSigmoid, FastGelu. Each calls the function of ``mycel.ops`` that holds the math
and the argument checks, so both modes and the gradients come from the ops used."""
import numbers

from mycel.nn.cell import Cell
from mycel.ops.function import compat_func as _cf
from mycel.ops.function._util import prim

__all__ = ["ReLU6", "SeLU", "CELU", "GLU", "HShrink", "SoftShrink", "LogSigmoid", "FastGelu"]


def _real(value, arg, cls):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For '{cls}', '{arg}' must be a float, but got "
                        f"{type(value).__name__}.")
    return float(value)


class ReLU6(Cell):
    """min(max(x, 0), 6), elementwise."""

    def __init__(self):
        super().__init__()
        self.relu6 = prim("ReLU6")

    def construct(self, x):
        return self.relu6(x)


class SeLU(Cell):
    """scale * (max(0, x) + min(0, alpha * (exp(x) - 1))) with SELU's fixed alpha and scale."""

    def construct(self, input_x):
        return _cf.selu(input_x)


class CELU(Cell):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)), elementwise (alpha != 0)."""

    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = _real(alpha, "alpha", "CELU")
        if self.alpha == 0.0:
            raise ValueError("For 'CELU', the 'alpha' must not be 0.")

    def construct(self, x):
        return _cf.celu(x, self.alpha)

    def extend_repr(self):
        return f"alpha={self.alpha}"


class GLU(Cell):
    """a * sigmoid(b), a and b the two halves of the input along `axis` (its size even)."""

    def __init__(self, axis=-1):
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"For 'GLU', 'axis' must be an int, but got {type(axis).__name__}.")
        self.axis = axis
        self.split = prim("Split", axis=axis, output_num=2)
        self.sigmoid = prim("Sigmoid")

    def construct(self, x):
        n = x.shape[self.axis]
        if n % 2 != 0:
            raise ValueError(f"For 'GLU', the size of axis {self.axis} must be even, but got "
                             f"{n}.")
        a, b = self.split(x)
        return a * self.sigmoid(b)


class HShrink(Cell):
    """x where |x| > lambd, else 0 (ops.hardshrink)."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = _real(lambd, "lambd", "HShrink")

    def construct(self, input_x):
        return _cf.hardshrink(input_x, self.lambd)


class SoftShrink(Cell):
    """x - lambd where x > lambd, x + lambd where x < -lambd, else 0 (ops.softshrink;
    lambd >= 0)."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = _real(lambd, "lambd", "SoftShrink")
        if self.lambd < 0:
            raise ValueError(f"For 'SoftShrink', the 'lambd' must be no less than 0, but got "
                             f"{self.lambd}.")

    def construct(self, input_x):
        return _cf.softshrink(input_x, self.lambd)


class LogSigmoid(Cell):
    """log(sigmoid(x)) computed as -softplus(-x), which does not overflow for large |x|."""

    def __init__(self):
        super().__init__()
        self.softplus = prim("Softplus")

    def construct(self, input_x):
        return -self.softplus(-input_x)


class FastGelu(Cell):
    """MindSpore's fast GeLU approximation, elementwise:
    x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|)), which is x * sigmoid(1.702 x) written so
    that no exp overflows (for x < 0 it is x * exp(1.702 x) / (1 + exp(1.702 x)))."""

    def __init__(self):
        super().__init__()
        self.abs = prim("Abs")
        self.exp = prim("Exp")

    def construct(self, x):
        a = self.abs(x)
        return x / (1.0 + self.exp(a * -1.702)) * self.exp((x - a) * 0.851)
