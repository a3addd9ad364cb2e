"""More basic cells of MindSpore 2.x's ``mindspore.nn``: Identity, Unflatten, Dropout2d,
Dropout3d, BiDense, TimeDistributed and the CellDict container. Each is composed from
op-table primitives, so both modes and the gradients come from the ops used."""
import math
import numbers
from collections import OrderedDict

from mycel import _mycel as _C
from mycel.common.initializer import initializer, Uniform
from mycel.common.parameter import Parameter
from mycel.nn.cell import Cell
from mycel.nn.layer import _check
from mycel.ops.function import compat_func as _cf
from mycel.ops.function._util import prim
from mycel.ops.primitive import Primitive, constexpr

__all__ = ["Identity", "Unflatten", "Dropout2d", "Dropout3d", "BiDense", "TimeDistributed",
           "CellDict", "LRN", "Unfold"]


class Identity(Cell):
    """Returns its input unchanged (a placeholder layer)."""

    def construct(self, x):
        return x


@constexpr
def _unflatten_shape(shape, axis, sizes):
    ndim = len(shape)
    if not -ndim <= axis < ndim:
        raise ValueError(f"For 'Unflatten', 'axis' must be in [{-ndim}, {ndim}), but got "
                         f"{axis}.")
    axis %= ndim
    sizes = list(sizes)
    known = 1
    for s in sizes:
        if s != -1:
            known *= s
    if sizes.count(-1) == 1 and known and shape[axis] % known == 0:
        sizes[sizes.index(-1)] = shape[axis] // known
    if sizes.count(-1) or math.prod(sizes) != shape[axis]:
        raise ValueError(f"For 'Unflatten', the product of 'unflattened_size' {tuple(sizes)} "
                         f"must equal the size of axis {axis} ({shape[axis]}).")
    return tuple(shape[:axis]) + tuple(sizes) + tuple(shape[axis + 1:])


class Unflatten(Cell):
    """Splits axis `axis` of the input into the dimensions `unflattened_size` (a tuple or list
    of ints whose product is that axis's size; one entry may be -1)."""

    def __init__(self, axis, unflattened_size):
        super().__init__()
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"For 'Unflatten', 'axis' must be an int, but got "
                            f"{type(axis).__name__}.")
        if not isinstance(unflattened_size, (tuple, list)) or not all(
                isinstance(s, int) and not isinstance(s, bool) for s in unflattened_size):
            raise TypeError(f"For 'Unflatten', 'unflattened_size' must be a tuple or list of "
                            f"ints, but got {unflattened_size!r}.")
        if any(s < -1 or s == 0 for s in unflattened_size):
            raise ValueError(f"For 'Unflatten', 'unflattened_size' must hold positive sizes "
                             f"(or one -1), but got {tuple(unflattened_size)}.")
        self.axis = axis
        self.unflattened_size = tuple(unflattened_size)
        self.reshape = prim("Reshape")

    def construct(self, input_x):
        return self.reshape(input_x, _unflatten_shape(input_x.shape, self.axis,
                                                      self.unflattened_size))


class _DropoutNd(Cell):
    """In training, zeroes whole channels (all of one [n, c]'s spatial values) with
    probability p and scales the rest by 1 / (1 - p); the identity in evaluation."""

    _rank = 4

    def __init__(self, p=0.5):
        super().__init__()
        name = type(self).__name__
        if isinstance(p, bool) or not isinstance(p, numbers.Real):
            raise TypeError(f"For '{name}', 'p' must be a float, but got {type(p).__name__}.")
        if not 0 <= p <= 1:
            raise ValueError(f"For '{name}', 'p' must be in [0, 1], but got {p}.")
        self.p = float(p)
        self.uniform = prim("UniformReal")

    def construct(self, x):
        if x.ndim != self._rank:
            raise ValueError(f"For '{type(self).__name__}', the input must be "
                             f"{self._rank}-d, but got shape {x.shape}.")
        if not self.training or self.p == 0.0:
            return x
        if self.p == 1.0:
            return x * 0.0
        keep = self.uniform(x.shape[:2] + (1,) * (self._rank - 2)) >= self.p
        return x * prim("Cast", dtype=x.dtype)(keep) * (1.0 / (1.0 - self.p))

    def extend_repr(self):
        return f"p={self.p}"


class Dropout2d(_DropoutNd):
    """Channel dropout of [N, C, H, W] input (see _DropoutNd)."""

    _rank = 4


class Dropout3d(_DropoutNd):
    """Channel dropout of [N, C, D, H, W] input (see _DropoutNd)."""

    _rank = 5


@constexpr
def _bidense_rows(shape1, shape2, in1, in2):
    if shape1[:-1] != shape2[:-1] or shape1[-1] != in1 or shape2[-1] != in2:
        raise ValueError(f"For 'BiDense', the inputs must be [..., {in1}] and [..., {in2}] with "
                         f"the same leading dimensions, but got {shape1} and {shape2}.")
    return math.prod(shape1[:-1])


class BiDense(Cell):
    """The bilinear layer y = x1^T A x2 + b: inputs [..., in1_channels] and
    [..., in2_channels], weight A [out_channels, in1_channels, in2_channels], output
    [..., out_channels]. Weight and bias default to U(-1/sqrt(in1), 1/sqrt(in1)) (MindSpore's
    default). Computed as one MatMul of x1 with A laid out [in1, out * in2], then a product
    with x2 summed over in2."""

    def __init__(self, in1_channels, in2_channels, out_channels, weight_init=None,
                 bias_init=None, has_bias=True, dtype=_C.float32):
        super().__init__()
        cls = "BiDense"
        self.in1_channels = _check.positive_int(in1_channels, "in1_channels", cls)
        self.in2_channels = _check.positive_int(in2_channels, "in2_channels", cls)
        self.out_channels = _check.positive_int(out_channels, "out_channels", cls)
        self.has_bias = _check.bool_(has_bias, "has_bias", cls)
        bound = 1.0 / math.sqrt(in1_channels)
        shape = (out_channels, in1_channels, in2_channels)
        self.weight = Parameter(initializer(Uniform(bound) if weight_init is None
                                            else weight_init, shape, dtype), name="weight")
        self.bias = None
        if has_bias:
            self.bias = Parameter(initializer(Uniform(bound) if bias_init is None
                                              else bias_init, (out_channels,), dtype),
                                  name="bias")
        self.reshape = prim("Reshape")
        self.transpose = prim("Transpose")
        self.matmul = prim("MatMul")
        self.reduce_sum = prim("ReduceSum", keep_dims=False)

    def construct(self, input1, input2):
        rows = _bidense_rows(input1.shape, input2.shape, self.in1_channels, self.in2_channels)
        out, in1, in2 = self.out_channels, self.in1_channels, self.in2_channels
        a = self.reshape(self.transpose(self.weight, (1, 0, 2)), (in1, out * in2))
        t = self.reshape(self.matmul(self.reshape(input1, (rows, in1)), a), (rows, out, in2))
        y = self.reduce_sum(t * self.reshape(input2, (rows, 1, in2)), 2)
        if self.has_bias:
            y = y + self.bias
        return self.reshape(y, input1.shape[:-1] + (out,))

    def extend_repr(self):
        return (f"in1_channels={self.in1_channels}, in2_channels={self.in2_channels}, "
                f"output_channels={self.out_channels}, has_bias={self.has_bias}")


@constexpr
def _time_merge(shape, time_axis, reshape_axis):
    """(perm moving the time axis right after reshape_axis, the shape with the two merged,
    the position of the merged axis once the time axis is gone)."""
    ndim = len(shape)
    t, r = time_axis % ndim, reshape_axis % ndim
    if t == r:
        raise ValueError("For 'TimeDistributed', 'reshape_with_axis' must differ from "
                         "'time_axis'.")
    perm = [i for i in range(ndim) if i != t]
    perm.insert(perm.index(r) + 1, t)
    merged = [shape[i] for i in perm]
    r_out = perm.index(r)
    merged[r_out:r_out + 2] = [shape[r] * shape[t]]
    return tuple(perm), tuple(merged), r_out


@constexpr
def _time_split(shape, steps, r_out, t):
    """(the layer's output shape with the merged axis split back into (size, steps), the perm
    putting the steps axis at position t)."""
    split = tuple(shape[:r_out]) + (shape[r_out] // steps, steps) + tuple(shape[r_out + 1:])
    back = [i for i in range(len(split)) if i != r_out + 1]
    back.insert(t, r_out + 1)
    return split, tuple(back)


class TimeDistributed(Cell):
    """Applies `layer` to every time step of the input (axis `time_axis`) and stacks the results
    along that axis. With `reshape_with_axis`, the time axis is merged into that axis for one
    call of the layer (which must keep that axis's leading size: usually the batch axis);
    otherwise the layer runs once per step."""

    def __init__(self, layer, time_axis, reshape_with_axis=None):
        super().__init__()
        if not isinstance(layer, (Cell, Primitive)):
            raise TypeError(f"For 'TimeDistributed', 'layer' must be a Cell or Primitive, but "
                            f"got {type(layer).__name__}.")
        for name, v in (("time_axis", time_axis), ("reshape_with_axis", reshape_with_axis)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
                raise TypeError(f"For 'TimeDistributed', '{name}' must be an int, but got "
                                f"{type(v).__name__}.")
        if time_axis is None:
            raise TypeError("For 'TimeDistributed', 'time_axis' must be an int, but got None.")
        self.layer = layer
        self.time_axis = time_axis
        self.reshape_with_axis = reshape_with_axis
        self.reshape = prim("Reshape")
        self.transpose = prim("Transpose")

    def construct(self, inputs):
        if inputs.ndim < 3:
            raise ValueError(f"For 'TimeDistributed', the input must be at least 3-d, but got "
                             f"shape {inputs.shape}.")
        ndim = inputs.ndim
        t = self.time_axis % ndim
        steps = inputs.shape[t]
        if self.reshape_with_axis is not None:
            perm, merged, r_out = _time_merge(inputs.shape, self.time_axis,
                                              self.reshape_with_axis)
            y = self.layer(self.reshape(self.transpose(inputs, perm), merged))
            split, back = _time_split(y.shape, steps, r_out, t)
            return self.transpose(self.reshape(y, split), back)
        outs = ()
        for step in _cf.unstack(inputs, t):
            outs = outs + (self.layer(step),)
        return prim("Stack", axis=t)(outs)


class LRN(Cell):
    """Local response normalisation across channels of [N, C, H, W] input (ops.lrn):
    x / (bias + alpha * sum of x^2 over the channels within depth_radius) ** beta."""

    def __init__(self, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5,
                 norm_region="ACROSS_CHANNELS"):
        super().__init__()
        if isinstance(depth_radius, bool) or not isinstance(depth_radius, int):
            raise TypeError(f"For 'LRN', 'depth_radius' must be an int, but got "
                            f"{type(depth_radius).__name__}.")
        if depth_radius < 0:
            raise ValueError(f"For 'LRN', 'depth_radius' must be non-negative, but got "
                             f"{depth_radius}.")
        for name, v in (("bias", bias), ("alpha", alpha), ("beta", beta)):
            if isinstance(v, bool) or not isinstance(v, numbers.Real):
                raise TypeError(f"For 'LRN', '{name}' must be a float, but got "
                                f"{type(v).__name__}.")
        if norm_region != "ACROSS_CHANNELS":
            raise ValueError(f"For 'LRN', 'norm_region' must be 'ACROSS_CHANNELS', but got "
                             f"{norm_region!r}.")
        self.depth_radius, self.bias = depth_radius, float(bias)
        self.alpha, self.beta, self.norm_region = float(alpha), float(beta), norm_region

    def construct(self, input_x):
        return _cf.lrn(input_x, self.depth_radius, self.bias, self.alpha, self.beta,
                       self.norm_region)


def _patch_arg(name, value):
    if not isinstance(value, (tuple, list)) or len(value) != 4 or value[0] != 1 or \
            value[3] != 1 or any(isinstance(v, bool) or not isinstance(v, int) or v < 1
                                 for v in value):
        raise ValueError(f"For 'Unfold', '{name}' must be [1, row, col, 1] with positive ints, "
                         f"but got {value!r}.")
    return int(value[1]), int(value[2])


@constexpr
def _unfold_plan(shape, ks, st, rt, padding):
    """((top, bottom, left, right) padding, output rows, output cols) of TensorFlow's
    ExtractImagePatches geometry."""
    if len(shape) != 4:
        raise ValueError(f"For 'Unfold', the input must be 4-d [N, C, H, W], but got shape "
                         f"{tuple(shape)}.")
    pads, outs = [], []
    for n, k, s, r in zip(shape[2:], ks, st, rt):
        ext = (k - 1) * r + 1
        if padding == "VALID":
            out = (n - ext) // s + 1 if n >= ext else 0
            pads += [0, 0]
        else:
            out = -(-n // s)
            total = max((out - 1) * s + ext - n, 0)
            pads += [total // 2, total - total // 2]
        if out <= 0:
            raise ValueError(f"For 'Unfold', the input {tuple(shape)} is smaller than the "
                             f"dilated patch {ext} with padding {padding}.")
        outs.append(out)
    return tuple(pads), outs[0], outs[1]


class Unfold(Cell):
    """Extracts image patches (MindSpore's nn.Unfold, TensorFlow's ExtractImagePatches) from
    [N, C, H, W] input: output [N, kr * kc * C, out_rows, out_cols], the depth ordered by patch
    row, patch column, then channel. ksizes, strides and rates are [1, row, col, 1]; padding
    'valid' or 'same' (TensorFlow's rule). One strided slice per patch offset, stacked, so
    the gradient adds each patch value back where it came from."""

    def __init__(self, ksizes, strides, rates, padding="valid"):
        super().__init__()
        self.ksizes = _patch_arg("ksizes", ksizes)
        self.strides = _patch_arg("strides", strides)
        self.rates = _patch_arg("rates", rates)
        if not isinstance(padding, str) or padding.upper() not in ("VALID", "SAME"):
            raise ValueError(f"For 'Unfold', 'padding' must be 'valid' or 'same', but got "
                             f"{padding!r}.")
        self.padding = padding.upper()

    def construct(self, input_x):
        pads, rows, cols = _unfold_plan(input_x.shape, self.ksizes, self.strides, self.rates,
                                        self.padding)
        x = input_x
        if any(pads):
            x = prim("Pad", paddings=((0, 0), (0, 0), (pads[0], pads[1]),
                                      (pads[2], pads[3])))(x)
        n, c, h, w = x.shape
        (kr, kc), (sr, sc), (rr, rc) = self.ksizes, self.strides, self.rates
        patches = ()
        for i in range(kr):
            for j in range(kc):
                patches = patches + (prim("StridedSlice")(
                    x, (0, 0, i * rr, j * rc),
                    (n, c, i * rr + (rows - 1) * sr + 1, j * rc + (cols - 1) * sc + 1),
                    (1, 1, sr, sc)),)
        return prim("Reshape")(prim("Stack", axis=1)(patches), (n, kr * kc * c, rows, cols))


class CellDict(Cell):
    """An ordered dict of cells, registered as this cell's sub-cells under their keys (so
    their parameters are named `key.weight`); built from a dict, an OrderedDict, a CellDict
    or an iterable of (key, cell) pairs. It has no construct of its own: a parent cell calls
    its entries."""

    def __init__(self, *args, **kwargs):
        super().__init__()
        if len(args) > 1:
            raise TypeError(f"For 'CellDict', expected at most 1 positional argument, but got "
                            f"{len(args)}.")
        if args and args[0] is not None:
            self.update(args[0])

    @staticmethod
    def _key(key):
        if not isinstance(key, str):
            raise TypeError(f"For 'CellDict', a key must be a str, but got "
                            f"{type(key).__name__}.")
        if not key or "." in key:
            raise KeyError(f"For 'CellDict', a key must be a non-empty str without '.', but got "
                           f"{key!r}.")
        return key

    def __getitem__(self, key):
        return self._cells[key]

    def __setitem__(self, key, cell):
        if not isinstance(cell, Cell):
            raise TypeError(f"For 'CellDict', a value must be a Cell, but got "
                            f"{type(cell).__name__}.")
        setattr(self, self._key(key), cell)

    def __delitem__(self, key):
        if key not in self._cells:
            raise KeyError(key)
        delattr(self, key)

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells)

    def __contains__(self, key):
        return key in self._cells

    def clear(self):
        """Removes every entry."""
        for key in list(self._cells):
            delattr(self, key)

    def pop(self, key):
        """Removes the entry `key` and returns its cell."""
        cell = self[key]
        del self[key]
        return cell

    def keys(self):
        """The keys, in insertion order."""
        return self._cells.keys()

    def values(self):
        """The cells, in insertion order."""
        return self._cells.values()

    def items(self):
        """(key, cell) pairs, in insertion order."""
        return self._cells.items()

    def update(self, cells):
        """Adds or replaces entries from a dict, OrderedDict, CellDict or iterable of
        (key, cell) pairs (a plain dict's entries in its order)."""
        if isinstance(cells, (dict, OrderedDict, CellDict)):
            pairs = list(cells.items())
        else:
            try:
                pairs = [tuple(p) for p in cells]
            except TypeError as e:
                raise TypeError(f"For 'CellDict', update needs a dict or an iterable of (key, "
                                f"cell) pairs, but got {type(cells).__name__}.") from e
            for p in pairs:
                if len(p) != 2:
                    raise ValueError(f"For 'CellDict', each update entry must be a (key, cell) "
                                     f"pair, but got one of length {len(p)}.")
        for key, cell in pairs:
            self[key] = cell

    def construct(self, *inputs):
        raise RuntimeError("For 'CellDict', it has no construct: call its cells from the "
                           "parent cell's construct.")

