"""General transforms, MindSpore's ``mindspore.dataset.transforms``: TypeCast, OneHot, Compose.

Built-in transforms (subclasses of TensorOperation, here and in vision.py) validate their
arguments in Python and hold a C++ transform (``self._op``, a ``_mycel._data.Transform`` from
src/data/transforms*.cc) that the pipeline runs on its worker threads without the GIL. Called
directly (``TypeCast(ms.int32)(x)``) they run it on one sample. Batchable ones (per-sample,
shape-preserving, not random: Normalize, Rescale, HWC2CHW, TypeCast, OneHot) may also run on a
whole batch at once (``_apply_batch``, a leading batch axis) with exactly the stacked
per-sample results, which is what makes ``map(...).batch(n)`` fast.
"""
import numpy as np

import mycel
from mycel import _mycel
from mycel.dataset import config
from mycel.dataset._validate import check_int, check_number

_data = _mycel._data


def _is_pil(x):
    """Whether x is a PIL image (without importing PIL)."""
    return type(x).__module__.startswith("PIL.") and hasattr(x, "getbands")


def _makes_pil(operations):
    """Whether any of the operations (Compose parts included) may output a PIL image."""
    return any(getattr(op, "_makes_pil", False) or
               _makes_pil(getattr(op, "transforms", None) or []) for op in operations)


def _as_array(x):
    """A sample as a numpy array (mycel Tensors are read through asnumpy)."""
    return x.asnumpy() if isinstance(x, mycel.Tensor) else np.asarray(x)


class TensorOperation:
    """Base of the built-in transforms: a C++ transform (``self._op``) run on numpy arrays.

    Subclasses validate their arguments and set ``self._op`` in ``__init__``. ``_batchable``
    and ``_random`` are the C++ transform's flags; ``_c_ops()`` is what the pipeline runs."""

    _op = None

    # Whether the transform may output a PIL image (vision.Decode(to_pil=True), ToPIL): a map
    # holding one runs its operations as one Python chain, so that PIL images reach the next
    # operation (module vision's note on PIL images).
    _makes_pil = False

    @property
    def _batchable(self):
        """Whether the transform may run on a whole batch (see the module docstring)."""
        return self._op is not None and self._op.batchable

    @property
    def _random(self):
        """Whether the transform draws random numbers (from its row's random stream)."""
        return self._op is not None and self._op.random

    def _c_ops(self):
        """The C++ transforms the pipeline runs for this operation, in order (None: a
        transform written in Python, which the pipeline calls)."""
        return None if self._op is None else [self._op]

    def __call__(self, *inputs):
        """Apply the transform to one sample (numpy arrays, Tensors or numbers); returns a numpy
        array, or a tuple of arrays for several outputs. Random transforms draw from the
        dataset seed (``config.set_seed``), the transform's own stream (numbered by first call
        since set_seed) and the number of calls so far. A PIL image goes to the transform's
        PIL version when it has one (``_apply_pil``), else it is read as a numpy array."""
        if any(_is_pil(x) for x in inputs):
            if hasattr(self, "_apply_pil"):
                return self._apply_pil(*inputs)
            inputs = tuple(np.asarray(x) if _is_pil(x) else x for x in inputs)
        return self._run(inputs, 0)

    def _apply_batch(self, *inputs):
        """Apply a batchable transform to a batch (axis 0): the stacked per-sample results."""
        return self._run(inputs, 1)

    def _run(self, inputs, lead):
        seed = 0
        if self._random:
            if not hasattr(self, "_stream"):
                self._stream = config._next_stream()
            self._calls = getattr(self, "_calls", 0) + 1
            entropy = config._entropy(self._calls) + [self._stream]
            seed = int(np.random.SeedSequence(entropy).generate_state(1, np.uint64)[0])
        out = self._op.apply([_as_array(x) for x in inputs], lead, seed)
        return out[0] if len(out) == 1 else tuple(out)


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
    """TypeCast(data_type): cast to a mycel dtype (``mycel.int32``) or a numpy dtype.

    As numpy's ``astype``, except that float values beyond an integer type's range saturate
    (NaN gives 0) where numpy's result is undefined."""

    def __init__(self, data_type):
        self.data_type = _numpy_dtype("TypeCast", data_type)
        self._op = _data.TypeCast(self.data_type.name)


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
        self._op = _data.OneHot(self.num_classes, self.smoothing_rate)


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
    transform's arguments). Python callables may be mixed in; when every part is built-in the
    pipeline runs the parts' C++ transforms directly (and batched when all are batchable)."""

    def __init__(self, transforms):
        self.transforms = _check_operations("Compose", transforms)

    @property
    def _batchable(self):
        """Batchable when every part is."""
        return all(getattr(t, "_batchable", False) for t in self.transforms)

    @property
    def _random(self):
        """Random when any built-in part is."""
        return any(getattr(t, "_random", False) for t in self.transforms)

    def _c_ops(self):
        """Every part's C++ transforms in order, or None when a part is a Python callable (the
        pipeline then calls the Compose itself)."""
        ops = []
        for t in self.transforms:
            parts = t._c_ops() if isinstance(t, TensorOperation) else None
            if parts is None:
                return None
            ops.extend(parts)
        return ops

    def __call__(self, *inputs):
        """Apply the transforms to one sample; returns an array or a tuple of arrays."""
        return _chain(self.transforms, inputs, False)

    def _apply_batch(self, *inputs):
        """Apply the (batchable, built-in) transforms to a batch."""
        return _chain(self.transforms, inputs, True)


def _chain(ops, args, batched):
    """Run ops in order on args; returns the last result (an array or a tuple of arrays)."""
    out = None
    for op in ops:
        out = op._apply_batch(*args) if batched else op(*args)
        args = out if isinstance(out, tuple) else (out,)
    return out
