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
from mycel.dataset._serdes_record import record_init
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


# The modules of mindspore.dataset.vision's transforms (vision.py, vision_color.py, ...): as
# MindSpore's ImageTensorOperation, called directly they take numpy arrays or PIL images only.
_IMAGE_MODULES = ("mycel.dataset.vision",)


def _check_image_inputs(inputs):
    """TypeError, in MindSpore's words, for an input that is not a numpy array or a PIL image
    (lists, numbers, strings and mycel Tensors included)."""
    for x in inputs:
        if not (isinstance(x, np.ndarray) or _is_pil(x)):
            raise TypeError(f"Input should be NumPy or PIL image, got {type(x)}.")


class TensorOperation:
    """Base of the built-in transforms: a C++ transform (``self._op``) run on numpy arrays.

    Subclasses validate their arguments and set ``self._op`` in ``__init__``. ``_batchable``
    and ``_random`` are the C++ transform's flags; ``_c_ops()`` is what the pipeline runs."""

    _op = None

    def __init_subclass__(cls, **kwargs):
        """Subclasses record their constructor arguments (for dataset/serialize.py)."""
        super().__init_subclass__(**kwargs)
        record_init(cls)

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
        if type(self).__module__.startswith(_IMAGE_MODULES):
            _check_image_inputs(inputs)
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
    name = "transforms" if func == "Compose" else "operations"  # MindSpore's words below
    if not ops:
        raise ValueError(f"{func}: operations must not be empty: {name} list can not be "
                         "empty.")
    for i, op in enumerate(ops):
        check_not_class(func, name, i, op)
        if not callable(op):
            raise TypeError(f"{func}: {name}[{i}] is neither a transforms op (TensorOperation) "
                            f"nor a callable pyfunc. Got {type(op).__name__} {op!r}.")
    return ops


def check_not_class(func, name, i, op):
    """A class given where a transform is expected (vision.HWC2CHW for vision.HWC2CHW()) is
    MindSpore's ValueError, not a callable to run on the rows."""
    if isinstance(op, type):
        raise ValueError(f"{func}: Parameter {name}'s element of method {func} should be a "
                         f"callable object (a transform instance or a function), but "
                         f"{name}[{i}] is the class {op.__name__}: instantiate it.")


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
        if not inputs:  # MindSpore's RuntimeError
            raise RuntimeError("Compose: Input Tensor is not valid. It was called with no "
                               "input.")
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


# ----- tensor transforms written in Python -----
# MindSpore's general tensor transforms below run in Python (numpy) under the GIL: each is a
# TensorOperation without a C++ transform (``_op`` None), which a map calls as a Python
# callable. Strings are numpy str or bytes arrays, as the engine hands them out.

def _sample(func, x):
    """One input as a numpy array (TypeError for what numpy cannot read as one)."""
    a = _as_array(x)
    if a.dtype == object:
        raise TypeError(f"{func}: the input must be a numeric or string array, but got "
                        f"{type(x).__name__}.")
    return a


def _is_str(a):
    return a.dtype.kind in "US"


class Duplicate(TensorOperation):
    """Duplicate(): one column in, two out: the input and a copy of it."""

    def __call__(self, x):
        a = _sample("Duplicate", x)
        return a, a.copy()


class Fill(TensorOperation):
    """Fill(fill_value): an array of the input's shape and dtype, every element fill_value
    (a number for numeric inputs, str or bytes for string inputs)."""

    def __init__(self, fill_value):
        if isinstance(fill_value, bool) or not isinstance(fill_value, (int, float, str, bytes)):
            raise TypeError(f"Fill: fill_value must be an int, float, str or bytes, but got "
                            f"{type(fill_value).__name__} {fill_value!r}.")
        self.fill_value = fill_value

    def __call__(self, x):
        a = _sample("Fill", x)
        if _is_str(a) != isinstance(self.fill_value, (str, bytes)):
            raise RuntimeError(f"Fill: fill_value and the input tensor must be of the same data "
                               f"type: fill_value {self.fill_value!r}, the input {a.dtype}.")
        if _is_str(a):
            v = self.fill_value
            v = v.decode() if isinstance(v, bytes) and a.dtype.kind == "U" else v
            return np.full(a.shape, v)
        return np.full(a.shape, self.fill_value).astype(a.dtype)


class Concatenate(TensorOperation):
    """Concatenate(axis=0, prepend=None, append=None): prepend, the 1-D inputs (one or more
    columns, in order) and append (1-D arrays of the inputs' kind), joined."""

    def __init__(self, axis=0, prepend=None, append=None):
        axis = check_int("Concatenate", "axis", axis)
        if axis not in (0, -1):
            raise ValueError(f"Concatenate: only 1D concatenation supported. axis must be 0 or "
                             f"-1, but got {axis}.")
        self.axis = axis
        self.prepend = None if prepend is None else np.asarray(prepend)
        self.append = None if append is None else np.asarray(append)
        for name, v in (("prepend", self.prepend), ("append", self.append)):
            if v is not None and v.ndim != 1:
                raise ValueError(f"Concatenate: can only {name} 1D arrays. Got shape "
                                 f"{list(v.shape)}.")

    def __call__(self, *xs):
        if not xs:
            raise TypeError("Concatenate: expected at least one input.")
        ins = [_sample("Concatenate", x) for x in xs]
        for a in ins:
            if a.ndim != 1:
                raise RuntimeError(f"Concatenate: only 1D input supported, but got shape "
                                   f"{list(a.shape)}.")
        a = ins[0]
        parts = [p for p in [self.prepend] + ins + [self.append] if p is not None]
        for p in parts:
            if _is_str(p) != _is_str(a) or (not _is_str(a) and p.dtype != a.dtype):
                raise RuntimeError(f"Concatenate: input datatype does not match: the input is "
                                   f"{a.dtype}, prepend/append {p.dtype}.")
        return np.concatenate(parts)


class Slice(TensorOperation):
    """Slice(*slices): index the input, one entry per leading dimension: an int (that index,
    the dimension kept), a list of ints (those indices), a slice, or None / Ellipsis / True
    (all)."""

    def __init__(self, *slices):
        index = []
        for s in slices:
            if s is None or s is Ellipsis or s is True:
                index.append(slice(None))
            elif isinstance(s, bool):
                raise TypeError(f"Slice: an index must be an int, a list of ints, a slice, None "
                                f"or Ellipsis, but got {s!r}.")
            elif isinstance(s, int):
                index.append([s])
            elif isinstance(s, (list, tuple)) and all(
                    isinstance(i, int) and not isinstance(i, bool) for i in s):
                index.append(list(s))
            elif isinstance(s, slice):
                index.append(s)
            else:
                raise TypeError(f"Slice: an index must be an int, a list of ints, a slice, None "
                                f"or Ellipsis, but got {s!r}.")
        self.slices = index

    def __call__(self, x):
        a = _sample("Slice", x)
        if len(self.slices) > a.ndim:
            raise RuntimeError(f"Slice: {len(self.slices)} indices for an input of shape "
                               f"{list(a.shape)}.")
        out = a
        for axis, s in enumerate(self.slices):
            try:
                out = np.take(out, s, axis=axis) if isinstance(s, list) else \
                    out[(slice(None),) * axis + (s,)]
            except IndexError as err:
                raise IndexError(f"Slice: index out of range for shape {list(a.shape)}: "
                                 f"{err}") from None
        return out


class PadEnd(TensorOperation):
    """PadEnd(pad_shape, pad_value=None): pad the input at the end of each dimension to
    pad_shape (None keeps a dimension; a smaller size cuts it) with pad_value (default 0, or
    the empty string)."""

    def __init__(self, pad_shape, pad_value=None):
        if not isinstance(pad_shape, list):
            raise TypeError(f"PadEnd: Argument pad_shape with value {pad_shape!r} is not of type "
                            f"[<class 'list'>], but got {type(pad_shape)}.")
        for d in pad_shape:
            if d is not None and (isinstance(d, bool) or not isinstance(d, int)):
                raise TypeError("PadEnd: pad_shape must hold ints or None: a value in the list "
                                "is not an integer.")
            if d is not None and d < 0:
                raise ValueError(f"PadEnd: pad_shape must not be negative, but got {pad_shape}.")
        self.pad_shape, self.pad_value = pad_shape, pad_value

    def __call__(self, x):
        a = _sample("PadEnd", x)
        if len(self.pad_shape) != a.ndim:
            raise RuntimeError(f"PadEnd: pad_shape {self.pad_shape} has {len(self.pad_shape)} "
                               f"dimensions, the input {a.ndim} ({list(a.shape)}).")
        v = self.pad_value
        if v is not None and _is_str(a) != isinstance(v, (str, bytes)):
            raise RuntimeError(f"PadEnd: pad_value {v!r} and the input ({a.dtype}): can not pad "
                               "numeric and string tensors together.")
        if v is None:
            v = ("" if a.dtype.kind == "U" else b"") if _is_str(a) else 0
        shape = [n if d is None else d for n, d in zip(a.shape, self.pad_shape)]
        cut = a[tuple(slice(0, d) for d in shape)]
        if _is_str(a):
            v = v.decode() if isinstance(v, bytes) and a.dtype.kind == "U" else v
            out = np.full(shape, v, dtype=np.result_type(a.dtype, np.asarray(v).dtype))
        else:
            out = np.full(shape, v).astype(a.dtype)
        out[tuple(slice(0, n) for n in cut.shape)] = cut
        return out


class Relational:
    """The comparisons of Mask: EQ, NE, GT, GE, LT, LE."""

    EQ, NE, GT, GE, LT, LE = "EQ", "NE", "GT", "GE", "LT", "LE"


_RELATIONS = {"EQ": np.equal, "NE": np.not_equal, "GT": np.greater, "GE": np.greater_equal,
              "LT": np.less, "LE": np.less_equal}


class Mask(TensorOperation):
    """Mask(operator, constant, dtype=mstype.bool_): input `operator` constant, element-wise
    (a Relational), as dtype (bool by default)."""

    def __init__(self, operator, constant, dtype=None):
        if operator not in _RELATIONS:
            raise TypeError(f"Mask: operator must be a Relational, but got {operator!r}.")
        if isinstance(constant, bool) or not isinstance(constant, (int, float, str, bytes)):
            raise TypeError(f"Mask: constant must be a number, str or bytes, but got "
                            f"{constant!r}.")
        self.operator, self.constant = operator, constant
        self.dtype = np.dtype(np.bool_) if dtype is None else _numpy_dtype("Mask", dtype)

    def __call__(self, x):
        a = _sample("Mask", x)
        c = self.constant
        if _is_str(a) != isinstance(c, (str, bytes)):
            raise RuntimeError(f"Mask: the constant {c!r} and the input ({a.dtype}) must be both "
                               "numbers or both strings.")
        if isinstance(c, bytes) and a.dtype.kind == "U":
            c = c.decode()
        return _RELATIONS[self.operator](a, c).astype(self.dtype)


class Unique(TensorOperation):
    """Unique(): the input's distinct values (read flattened) in order of first appearance,
    each element's index among them (int32) and each value's count (int32): three outputs."""

    def __call__(self, x):
        a = _sample("Unique", x).reshape(-1)
        values, first, inverse, counts = np.unique(a, return_index=True, return_inverse=True,
                                                   return_counts=True)
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        return values[order], rank[inverse].astype(np.int32), counts[order].astype(np.int32)
