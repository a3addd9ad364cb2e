"""What the attacks, defences and detectors share: the gradient cells (MindArmour's
``GradWrapWithLoss`` and ``GradWrap``), compiled once per network and reused for every
iteration and batch, and the argument checks and norm helpers, each rule written once.

The gradient cells are ordinary Cells whose ``construct`` calls ``mycel.grad``: in GRAPH mode
the first call compiles the forward and backward pass into one graph (per input shape), later
calls only run it; in PYNATIVE mode the recorder's backward cache compiles the backward once
per op sequence. They are built with ``auto_prefix=False`` so that wrapping a user's network
does not rename its Parameters."""
import numbers

import numpy as np

from mycel import _mycel as _C
from mycel.nn.cell import Cell
from mycel.ops.composite import grad as _grad

_EPS_DIV = 1e-12


class GradWrapWithLoss(Cell):
    """GradWrapWithLoss(network): the gradient of ``network(inputs, labels)`` (a loss: a
    network with its loss function, e.g. ``nn.WithLossCell``) with respect to ``inputs``; a
    non-scalar loss is summed (the sensitivity is ones), as MindArmour's."""

    def __init__(self, network):
        super().__init__(auto_prefix=False)
        self._network = network
        self._grad = _grad(network, grad_position=0)

    def construct(self, inputs, labels):
        """d loss / d inputs."""
        return self._grad(inputs, labels)


class _WeightedOutput(Cell):
    """sum(network(inputs) * weight): one row combination of the network's Jacobian."""

    def __init__(self, network):
        super().__init__(auto_prefix=False)
        self._network = network

    def construct(self, inputs, weight):
        return (self._network(inputs) * weight).sum()


class GradWrap(Cell):
    """GradWrap(network): ``d sum(network(inputs) * weight) / d inputs``, the vector-Jacobian
    product of the network's outputs [N, C] with ``weight`` [N, C]. A one-hot weight gives
    one row of the Jacobian for every sample; the difference of two one-hots the gradient of
    a logit difference (DeepFool, JSMA)."""

    def __init__(self, network):
        super().__init__(auto_prefix=False)
        self._weighted = _WeightedOutput(network)
        self._grad = _grad(self._weighted, grad_position=0)

    def construct(self, inputs, weight):
        """weight^T (d network(inputs) / d inputs), per sample."""
        return self._grad(inputs, weight)


def tensor(x):
    """A mycel Tensor of the numpy array x (float64 inputs stay float64)."""
    return _C.Tensor(np.ascontiguousarray(x))


def predict(network, inputs):
    """network(inputs) as a numpy array."""
    return network(tensor(inputs)).asnumpy()


def jacobian(grad_wrap, inputs, num_classes):
    """The Jacobian of the network's outputs w.r.t. inputs, [num_classes, N, ...], one
    vector-Jacobian product per class (GradWrap)."""
    n = inputs.shape[0]
    rows = []
    x = tensor(inputs)
    for k in range(num_classes):
        weight = np.zeros((n, num_classes), inputs.dtype)
        weight[:, k] = 1
        rows.append(grad_wrap(x, tensor(weight)).asnumpy())
    return np.stack(rows)


# ---- argument checks: typed errors that name the class and the argument --------------------

def check_type(who, name, value, types):
    """value, or a TypeError naming who, name and the types wanted."""
    if isinstance(value, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
        raise TypeError(f"For '{who}', '{name}' must be {_names(types)}, but got bool.")
    if not isinstance(value, types):
        raise TypeError(f"For '{who}', '{name}' must be {_names(types)}, but got "
                        f"{type(value).__name__}.")
    return value


def _names(types):
    types = types if isinstance(types, tuple) else (types,)
    return " or ".join(t.__name__ for t in types)


def check_positive(who, name, value, allow_zero=False):
    """value (a real number) if > 0 (>= 0 with allow_zero), else a ValueError."""
    check_type(who, name, value, numbers.Real)
    if value < 0 or (value == 0 and not allow_zero) or not np.isfinite(value):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"For '{who}', '{name}' must be a finite number {bound}, but got "
                         f"{value}.")
    return value


def check_rate(who, name, value, low=0.0, high=1.0):
    """value (a real number) within [low, high], else a ValueError."""
    check_type(who, name, value, numbers.Real)
    if not low <= value <= high:
        raise ValueError(f"For '{who}', '{name}' must be in [{low}, {high}], but got {value}.")
    return float(value)


def check_box(who, low, high, names=("box_min", "box_max")):
    """(low, high) as floats if both are real numbers with low < high, else a TypeError or
    ValueError naming the two arguments."""
    check_type(who, names[0], low, numbers.Real)
    check_type(who, names[1], high, numbers.Real)
    if not low < high:
        raise ValueError(f"For '{who}', '{names[0]}' must be < '{names[1]}', but got {low} "
                         f"and {high}.")
    return float(low), float(high)


def check_bounds(who, bounds, name="bounds"):
    """(clip_min, clip_max) as floats with clip_min < clip_max, or None."""
    if bounds is None:
        return None
    check_type(who, name, bounds, (tuple, list))
    if len(bounds) != 2:
        raise ValueError(f"For '{who}', '{name}' must be (clip_min, clip_max), but got "
                         f"{bounds!r}.")
    return check_box(who, bounds[0], bounds[1], (f"{name}[0]", f"{name}[1]"))


def check_network(who, network, name="network"):
    """network if it is a Cell, else a TypeError."""
    if not isinstance(network, Cell):
        raise TypeError(f"For '{who}', '{name}' must be a Cell, but got "
                        f"{type(network).__name__}.")
    return network


_NORMS = {1: 1, "1": 1, "l1": 1, 2: 2, "2": 2, "l2": 2, np.inf: np.inf, "inf": np.inf,
          "linf": np.inf}


def check_norm_level(who, norm_level):
    """1, 2 or np.inf for MindArmour's spellings (1, 2, np.inf, '1', '2', 'inf', 'l1', 'l2',
    'linf'), else a ValueError."""
    key = norm_level.lower() if isinstance(norm_level, str) else norm_level
    try:
        return _NORMS[key]
    except (KeyError, TypeError):
        raise ValueError(f"For '{who}', 'norm_level' must be 1, 2 or np.inf ('l1', 'l2', "
                         f"'inf'), but got {norm_level!r}.") from None


def check_inputs(who, inputs, name="inputs"):
    """inputs as a floating numpy array with a batch axis, else a TypeError/ValueError."""
    if not isinstance(inputs, np.ndarray):
        raise TypeError(f"For '{who}', '{name}' must be a numpy.ndarray, but got "
                        f"{type(inputs).__name__}.")
    if inputs.ndim < 1 or inputs.shape[0] == 0:
        raise ValueError(f"For '{who}', '{name}' must be a non-empty batch, but got shape "
                         f"{inputs.shape}.")
    if inputs.dtype.kind != "f":
        raise TypeError(f"For '{who}', '{name}' must be a floating-point array, but got "
                        f"{inputs.dtype}.")
    return inputs


def check_inputs_labels(who, inputs, labels):
    """(inputs, labels) as numpy arrays with the same batch size, else a TypeError or
    ValueError naming the shapes."""
    check_inputs(who, inputs)
    if not isinstance(labels, np.ndarray):
        raise TypeError(f"For '{who}', 'labels' must be a numpy.ndarray, but got "
                        f"{type(labels).__name__}.")
    if labels.ndim < 1 or labels.shape[0] != inputs.shape[0]:
        raise ValueError(f"For '{who}', 'inputs' and 'labels' must have the same batch size, "
                         f"but got shapes {inputs.shape} and {labels.shape}.")
    return inputs, labels


def label_indices(who, labels, sparse, num_classes=None):
    """Class indices [N] of labels: the labels themselves when sparse, else the argmax of
    one-hot rows [N, C]; a ValueError for the wrong rank or an index out of range."""
    labels = np.asarray(labels)
    if sparse:
        if labels.ndim != 1 or labels.dtype.kind not in "iu":
            raise ValueError(f"For '{who}', sparse labels must be a 1-D integer array, but "
                             f"got shape {labels.shape} and dtype {labels.dtype}.")
        idx = labels.astype(np.int64)
    else:
        if labels.ndim != 2:
            raise ValueError(f"For '{who}', one-hot labels (sparse=False) must be 2-D [N, C], "
                             f"but got shape {labels.shape}.")
        idx = labels.argmax(axis=1)
    if num_classes is not None and idx.size and (idx.min() < 0 or idx.max() >= num_classes):
        raise ValueError(f"For '{who}', labels must be in [0, {num_classes}), but got "
                         f"{idx.min()}..{idx.max()}.")
    return idx


def normalize_value(value, norm_level):
    """Each sample of value divided by its norm (l1: sum of |v|, l2: Euclidean, inf: max |v|),
    plus 1e-12 so that a zero gradient stays zero: MindArmour's normalize_value."""
    flat = value.reshape(value.shape[0], -1)
    if norm_level == 1:
        norm = np.abs(flat).sum(axis=1, keepdims=True)
    elif norm_level == 2:
        norm = np.sqrt((flat.astype(np.float64) ** 2).sum(axis=1, keepdims=True))
    else:
        norm = np.abs(flat).max(axis=1, keepdims=True)
    return (flat / (norm + _EPS_DIV)).astype(value.dtype).reshape(value.shape)


def softmax(logits):
    """Row-wise softmax of a numpy array [N, C]."""
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def jensen_shannon(p, q):
    """Jensen-Shannon divergence (natural log) of each pair of rows of p and q [N, C]."""
    p = p / (p.sum(axis=1, keepdims=True) + 1e-12)
    q = q / (q.sum(axis=1, keepdims=True) + 1e-12)
    m = (p + q) / 2

    def kl(a, b):
        return np.where(a > 0, a * np.log(np.maximum(a, 1e-300) / np.maximum(b, 1e-300)),
                        0.0).sum(axis=1)
    return 0.5 * kl(p, m) + 0.5 * kl(q, m)
