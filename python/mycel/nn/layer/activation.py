"""Activation cells (MindSpore 2.x ``mindspore.nn``): ReLU, Sigmoid, Tanh, GELU, Softmax, and
get_activation(name) for the ``activation=`` argument of Dense. Each holds its primitive as
an attribute and calls it in ``construct``, so it compiles in GRAPH mode."""
from mycel.nn.cell import Cell
from mycel.nn.layer import _check
from mycel.ops.function._util import prim


class ReLU(Cell):
    """max(x, 0), elementwise."""

    def __init__(self):
        super().__init__()
        self.relu = prim("ReLU")

    def construct(self, input):  # noqa: A002
        return self.relu(input)


class Sigmoid(Cell):
    """1 / (1 + exp(-x)), elementwise."""

    def __init__(self):
        super().__init__()
        self.sigmoid = prim("Sigmoid")

    def construct(self, input_x):
        return self.sigmoid(input_x)


class Tanh(Cell):
    """tanh(x), elementwise."""

    def __init__(self):
        super().__init__()
        self.tanh = prim("Tanh")

    def construct(self, x):
        return self.tanh(x)


class GELU(Cell):
    """Gaussian error linear unit, x * P(X <= x) for X ~ N(0, 1), elementwise.

    approximate=True (MindSpore's default) computes the tanh approximation
    0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))); False the exact
    0.5 * x * (1 + erf(x / sqrt(2))), which is PyTorch's default."""

    def __init__(self, approximate=True):
        super().__init__()
        self.approximate = _check.bool_(approximate, "approximate", "GELU")
        self.gelu = prim("GeLU", approximate="tanh" if approximate else "none")

    def construct(self, x):
        return self.gelu(x)

    def extend_repr(self):
        return f"approximate={self.approximate}"


class Softmax(Cell):
    """exp(x) / sum(exp(x)) along `axis` (an int or a tuple of one int; default -1)."""

    def __init__(self, axis=-1):
        super().__init__()
        if isinstance(axis, (tuple, list)) and len(axis) == 1:
            axis = axis[0]
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"For 'Softmax', axis must be an int or a tuple of one int (the "
                            f"Softmax op normalises over one axis), but got {axis!r}.")
        self.axis = axis
        self.softmax = prim("Softmax", axis=(axis,))

    def construct(self, input):  # noqa: A002
        return self.softmax(input)


_ACTIVATIONS = {"relu": ReLU, "sigmoid": Sigmoid, "tanh": Tanh, "gelu": GELU, "softmax": Softmax}


def get_activation(name, prim_name=None):
    """The activation cell registered as `name` ('relu', 'sigmoid', 'tanh', 'gelu', 'softmax'), or
    None for None."""
    if name is None:
        return None
    if not isinstance(name, str):
        raise TypeError(f"For 'get_activation', the name must be a str, but got "
                        f"{type(name).__name__}.")
    cls = _ACTIVATIONS.get(name.lower())
    if cls is None:
        raise KeyError(f"For '{prim_name or 'get_activation'}', the activation must be one of "
                       f"{sorted(_ACTIVATIONS)}, but got {name!r}.")
    return cls()


__all__ = ["ReLU", "Sigmoid", "Tanh", "GELU", "Softmax", "get_activation"]
