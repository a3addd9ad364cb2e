"""General transforms, MindSpore's ``mindspore.dataset.transforms``: TypeCast, OneHot, Compose.

Built-in transforms (subclasses of TensorOperation) map one numpy array to one numpy array.
Called directly (``TypeCast(ms.int32)(x)``) they work on one sample; the pipeline may also run
them on a whole batch at once (``_apply_batch``, a leading batch axis), which gives exactly the
stacked per-sample results and is what makes ``map(...).batch(n)`` fast (see engine.py).
"""
import numpy as np

import mycel
from mycel.dataset._validate import check_int, check_number


def _as_array(x):
    """A sample as a numpy array (mycel Tensors are read through asnumpy)."""
    return x.asnumpy() if isinstance(x, mycel.Tensor) else np.asarray(x)


class TensorOperation:
    """Base of the built-in transforms: one array in, one array out, per sample or batched.

    Subclasses implement ``_compute(x, lead)``, where the first ``lead`` axes of x (0 or 1)
    are batch axes and the rest is one sample; errors must depend on the sample only."""

    _batchable = True

    def __call__(self, *inputs):
        """Apply the transform to one sample (a numpy array, a Tensor or a number)."""
        return self._compute(self._single(inputs), 0)

    def _apply_batch(self, *inputs):
        """Apply the transform to a batch (axis 0): the stacked per-sample results."""
        return self._compute(self._single(inputs), 1)

    def _single(self, inputs):
        if len(inputs) != 1:
            raise TypeError(f"{type(self).__name__}: expects one input column, but got "
                            f"{len(inputs)}.")
        return _as_array(inputs[0])

    def _compute(self, x, lead):
        raise NotImplementedError


def _numpy_dtype(func, data_type):
    """A mycel dtype or a numpy dtype-like as a numpy dtype."""
    if isinstance(data_type, mycel.DType):
        if data_type == mycel.bfloat16:
            raise TypeError(f"{func}: bfloat16 has no numpy type; cast to float32 here and to "
                            "bfloat16 in the network.")
        return np.dtype(data_type.name)
    try:
        dtype = np.dtype(data_type)
    except TypeError:
        raise TypeError(f"{func}: data_type must be a mycel dtype or a numpy dtype, but got "
                        f"{data_type!r}.") from None
    if dtype.kind not in "biuf":
        raise TypeError(f"{func}: data_type must be a bool, int or float type, but got {dtype}.")
    return dtype


class TypeCast(TensorOperation):
    """TypeCast(data_type): cast to a mycel dtype (``mycel.int32``) or a numpy dtype."""

    def __init__(self, data_type):
        self.data_type = _numpy_dtype("TypeCast", data_type)

    def _compute(self, x, lead):
        return x.astype(self.data_type, copy=False)


class OneHot(TensorOperation):
    """OneHot(num_classes, smoothing_rate=0.0): one-hot encode integer labels.

    A scalar label (or any shape with one element) gives [num_classes]; a 1-D [k] label gives
    [k, num_classes] (size-1 axes squeezed, as MindSpore). The output keeps the label's dtype;
    with smoothing it is float32 ``(1 - smoothing_rate) * onehot + smoothing_rate / num_classes``.
    """

    def __init__(self, num_classes, smoothing_rate=0.0):
        self.num_classes = check_int("OneHot", "num_classes", num_classes, 1)
        self.smoothing_rate = check_number("OneHot", "smoothing_rate", smoothing_rate)
        if not 0.0 <= self.smoothing_rate <= 1.0:
            raise ValueError(f"OneHot: smoothing_rate must be in [0.0, 1.0], but got "
                             f"{smoothing_rate}.")

    def _compute(self, x, lead):
        sample = x.shape[lead:]
        kept = [d for d in sample if d != 1]
        if len(kept) > 1:
            raise ValueError(f"OneHot: the label must be a scalar or 1-D, but got shape "
                             f"{list(sample)}.")
        if x.dtype.kind not in "iu":
            raise TypeError(f"OneHot: the label must be an integer type, but got {x.dtype}.")
        c = self.num_classes
        if x.size and (x.min() < 0 or x.max() >= c):
            bad = x[(x < 0) | (x >= c)].flat[0]
            raise ValueError(f"OneHot: label {bad} is out of range [0, {c}).")
        hot = x.reshape(x.shape[:lead] + (-1, 1)) == np.arange(c)
        out_shape = x.shape[:lead] + tuple(d for d in (int(np.prod(sample)), c) if d != 1)
        if self.smoothing_rate == 0.0:
            return hot.astype(x.dtype).reshape(out_shape)
        s = np.float32(self.smoothing_rate)
        out = hot.astype(np.float32) * (np.float32(1) - s) + s / np.float32(c)
        return out.reshape(out_shape)


def _op_name(op):
    """A transform's name for messages: its class, or a function's qualified name."""
    return getattr(op, "__qualname__", None) or type(op).__name__


def _check_operations(func, operations):
    """operations (one callable or a non-empty list) as a list."""
    ops = list(operations) if isinstance(operations, (list, tuple)) else [operations]
    if not ops:
        raise ValueError(f"{func}: operations must not be empty.")
    for op in ops:
        if not callable(op):
            raise TypeError(f"{func}: every operation must be a transform or a callable, but "
                            f"got {type(op).__name__} {op!r}.")
    return ops


class Compose(TensorOperation):
    """Compose(transforms): apply transforms in order as one (a tuple result feeds the next
    transform's arguments). Runs batched when every transform is a built-in one."""

    def __init__(self, transforms):
        self.transforms = _check_operations("Compose", transforms)
        self._batchable = all(getattr(t, "_batchable", False) for t in self.transforms)

    def __call__(self, *inputs):
        """Apply the transforms to one sample; returns an array or a tuple of arrays."""
        return _chain(self.transforms, inputs, False)

    def _apply_batch(self, *inputs):
        """Apply the (built-in) transforms to a batch."""
        return _chain(self.transforms, inputs, True)


def _chain(ops, args, batched):
    """Run ops in order on args; returns the last result (an array or a tuple of arrays)."""
    out = None
    for op in ops:
        out = op._apply_batch(*args) if batched else op(*args)
        args = out if isinstance(out, tuple) else (out,)
    return out
