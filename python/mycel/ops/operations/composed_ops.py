"""Primitive classes of MindSpore 2.x that mycel composes from op-table primitives (the
functional forms in mycel.ops.function do the work): Tril, Triu, ReverseV2, Roll, Einsum,
Invert, Inv, Softsign, MatrixBandPart, Padding, ArgMaxWithValue, ArgMinWithValue, L2Loss,
LinSpace, Unstack, MaskedFill, Mish, KLDivLoss, BinaryCrossEntropy, DepthToSpace,
SpaceToDepth, Elu, CeLU, SeLU, HSigmoid, HSwish, HShrink, SoftShrink, Xdivy, RealDiv,
ApproximateEqual, Rank, Size. They are Primitives with their own __call__, which graph mode parses
like any function, so both modes and gradients come from the ops they are built of."""
from mycel.ops.primitive import Primitive
from mycel import _mycel as _C
from mycel.ops.function import (layout_func as _l, einsum_func as _e, unary_func as _u,
                                math_func as _m, compat_func as _c, loss_func as _loss,
                                array_func as _a, scatter_func as _sc,
                                resample_func as _rs, segment_func as _seg,
                                math_ext_func as _mx, linalg_func as _la,
                                array_ext_func as _ax)
from mycel.ops.function._util import prim as _prim
from mycel.ops.function import eig_func as _eig


class _Composed(Primitive):
    """A primitive that is a composition: no op-table entry, attributes kept on the object."""

    def __init__(self, **attrs):  # noqa: D107 (no op-table handle to build)
        self.name = type(self).__name__
        self._attrs = dict(attrs)

    @property
    def attrs(self):
        return dict(self._attrs)


class _Triangle(_Composed):
    _lower = True

    def __init__(self, diagonal=0):
        super().__init__(diagonal=diagonal)
        self.diagonal = diagonal

    def __call__(self, x):
        return _l.tril(x, self.diagonal) if self._lower else _l.triu(x, self.diagonal)


class Tril(_Triangle):
    """Tril(diagonal=0)(x): the lower triangle of the last two dims (ops.tril)."""
    _lower = True


class Triu(_Triangle):
    """Triu(diagonal=0)(x): the upper triangle of the last two dims (ops.triu)."""
    _lower = False


class ReverseV2(_Composed):
    """ReverseV2(axis)(input_x): the elements reversed along each axis in axis (ops.flip)."""

    def __init__(self, axis):
        super().__init__(axis=axis)
        self.axis = tuple(axis) if isinstance(axis, (list, tuple)) else axis

    def __call__(self, input_x):
        return _l.flip(input_x, self.axis)


class Roll(_Composed):
    """Roll(shift, axis)(input_x): elements shifted by shift along axis, wrapping (ops.roll)."""

    def __init__(self, shift, axis):
        super().__init__(shift=shift, axis=axis)
        self.shift = tuple(shift) if isinstance(shift, list) else shift
        self.axis = tuple(axis) if isinstance(axis, list) else axis

    def __call__(self, input_x):
        return _l.roll(input_x, self.shift, self.axis)


class Einsum(_Composed):
    """Einsum(equation)(x): Einstein summation over the tuple of tensors x (ops.einsum)."""

    def __init__(self, equation):
        if not isinstance(equation, str):
            raise TypeError(f"For 'Einsum', the 'equation' must be a str, but got "
                            f"{type(equation).__name__}.")
        super().__init__(equation=equation)
        self.equation = equation

    def __call__(self, x):
        return _e.einsum(self.equation, *x)


class Invert(_Composed):
    """Invert()(x): bitwise not of an integer or bool tensor (ops.invert)."""

    def __call__(self, x):
        return _u.invert(x)


class Inv(_Composed):
    """Inv()(x): 1 / x elementwise (ops.inv)."""

    def __call__(self, x):
        return _u.inv(x)


class Softsign(_Composed):
    """Softsign()(x): x / (1 + |x|) elementwise (ops.softsign)."""

    def __call__(self, x):
        return _u.softsign(x)


__all__ = ["Tril", "Triu", "ReverseV2", "Roll", "Einsum", "Invert", "Inv", "Softsign"]


class MatrixBandPart(_Composed):
    """MatrixBandPart()(x, lower, upper): the band of the last two dims
    (ops.matrix_band_part)."""

    def __call__(self, x, lower, upper):
        return _l.matrix_band_part(x, lower, upper)


class Padding(_Composed):
    """Padding(pad_dim_size=8)(x): the last dim (of size 1) extended with zeros to
    pad_dim_size (ops.padding)."""

    def __init__(self, pad_dim_size=8):
        super().__init__(pad_dim_size=pad_dim_size)
        self.pad_dim_size = pad_dim_size

    def __call__(self, x):
        return _l.padding(x, self.pad_dim_size)


class _ArgWithValue(_Composed):
    _arg, _reduce = "Argmax", "ReduceMax"

    def __init__(self, axis=0, keep_dims=False):
        super().__init__(axis=axis, keep_dims=keep_dims)
        self.axis, self.keep_dims = axis, keep_dims

    def __call__(self, x):
        index = _prim(self._arg, axis=self.axis, output_type=_C.int32,
                      keep_dims=self.keep_dims)(x)
        return index, _prim(self._reduce, keep_dims=self.keep_dims)(x, (self.axis,))


class ArgMaxWithValue(_ArgWithValue):
    """ArgMaxWithValue(axis=0, keep_dims=False)(x): (index (int32), value) of the maxima
    along axis; the gradient flows through the value."""
    _arg, _reduce = "Argmax", "ReduceMax"


class ArgMinWithValue(_ArgWithValue):
    """ArgMinWithValue(axis=0, keep_dims=False)(x): (index (int32), value) of the minima
    along axis; the gradient flows through the value."""
    _arg, _reduce = "Argmin", "ReduceMin"


class L2Loss(_Composed):
    """L2Loss()(x): sum(x ** 2) / 2, a 0-d tensor of x's dtype."""

    def __call__(self, x):
        return _m.sum(_m.square(x)) / 2


class LinSpace(_Composed):
    """LinSpace()(start, stop, num): num evenly spaced float32 values from start to stop, both
    included (ops.linspace)."""

    def __call__(self, start, stop, num):
        return _c.linspace(start, stop, num)


class Unstack(_Composed):
    """Unstack(axis=0)(input_x): the slices along axis, as a tuple (ops.unstack)."""

    def __init__(self, axis=0):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, input_x):
        return _c.unstack(input_x, self.axis)


class MaskedFill(_Composed):
    """MaskedFill()(input, mask, value): value where mask is True (ops.masked_fill)."""

    def __call__(self, input, mask, value):  # noqa: A002
        return _c.masked_fill(input, mask, value)


class Mish(_Composed):
    """Mish()(x): x * tanh(softplus(x)) (ops.mish)."""

    def __call__(self, x):
        return _c.mish(x)


class KLDivLoss(_Composed):
    """KLDivLoss(reduction='mean')(logits, labels): labels * (log(labels) - logits), reduced
    by 'none', 'mean', 'sum' or 'batchmean' (ops.kl_div)."""

    def __init__(self, reduction="mean"):
        super().__init__(reduction=reduction)
        self.reduction = reduction

    def __call__(self, logits, labels):
        return _loss.kl_div(logits, labels, self.reduction)


class BinaryCrossEntropy(_Composed):
    """BinaryCrossEntropy(reduction='mean')(logits, labels, weight=None): the binary cross
    entropy of probabilities (ops.binary_cross_entropy)."""

    def __init__(self, reduction="mean"):
        super().__init__(reduction=reduction)
        self.reduction = reduction

    def __call__(self, logits, labels, weight=None):
        return _loss.binary_cross_entropy(logits, labels, weight, self.reduction)


class DepthToSpace(_Composed):
    """DepthToSpace(block_size)(x): NCHW channel blocks moved into spatial tiles."""

    def __init__(self, block_size):
        super().__init__(block_size=block_size)
        self.block_size = block_size

    def __call__(self, x):
        return _c.depth_to_space(x, self.block_size)


class SpaceToDepth(_Composed):
    """SpaceToDepth(block_size)(x): NCHW spatial tiles moved into channels."""

    def __init__(self, block_size):
        super().__init__(block_size=block_size)
        self.block_size = block_size

    def __call__(self, x):
        return _c.space_to_depth(x, self.block_size)


class _Activation(_Composed):
    """A composed elementwise op with one float attribute (alpha or lambd)."""
    _attr, _default, _fn = "alpha", 1.0, None

    def __init__(self, value=None):
        value = self._default if value is None else value
        super().__init__(**{self._attr: value})
        self.value = float(value)

    def __call__(self, x):
        return type(self)._fn(x, self.value)


class Elu(_Activation):
    """Elu(alpha=1.0)(input_x): x where x > 0, else alpha * (exp(x) - 1) (ops.elu)."""
    _fn = staticmethod(_c.elu)


class CeLU(_Activation):
    """CeLU(alpha=1.0)(x): max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) (ops.celu)."""
    _fn = staticmethod(_c.celu)


class HShrink(_Activation):
    """HShrink(lambd=0.5)(input_x): x where |x| > lambd, else 0 (ops.hardshrink)."""
    _attr, _default, _fn = "lambd", 0.5, staticmethod(_c.hardshrink)


class SoftShrink(_Activation):
    """SoftShrink(lambd=0.5)(input_x): x shrunk toward 0 by lambd, 0 within it
    (ops.softshrink)."""
    _attr, _default, _fn = "lambd", 0.5, staticmethod(_c.softshrink)


class SeLU(_Composed):
    """SeLU()(input_x): scale * elu(x, alpha) with SELU's constants (ops.selu)."""

    def __call__(self, input_x):
        return _c.selu(input_x)


class HSigmoid(_Composed):
    """HSigmoid()(input_x): relu6(x + 3) / 6 (ops.hardsigmoid)."""

    def __call__(self, input_x):
        return _c.hardsigmoid(input_x)


class HSwish(_Composed):
    """HSwish()(x): x * relu6(x + 3) / 6 (ops.hardswish)."""

    def __call__(self, x):
        return _c.hardswish(x)


class Xdivy(_Composed):
    """Xdivy()(x, y): x / y, 0 where x is 0 (ops.xdivy)."""

    def __call__(self, x, y):
        return _c.xdivy(x, y)


class RealDiv(_Composed):
    """RealDiv()(x, y): x / y, broadcasting (the table's Div)."""

    def __call__(self, x, y):
        return _m.div(x, y)


class ApproximateEqual(_Composed):
    """ApproximateEqual(tolerance=1e-5)(x, y): |x - y| < tolerance (ops.approximate_equal)."""

    def __init__(self, tolerance=1e-5):
        if not isinstance(tolerance, float):
            raise TypeError(f"For 'ApproximateEqual', the type of 'tolerance' should be "
                            f"'float', but got {tolerance!r} with type "
                            f"'{type(tolerance).__name__}'.")
        super().__init__(tolerance=tolerance)
        self.tolerance = tolerance

    def __call__(self, x, y):
        return _c.approximate_equal(x, y, self.tolerance)


class Rank(_Composed):
    """Rank()(input_x): the number of dimensions, a Python int (ops.rank)."""

    def __call__(self, input_x):
        return _a.rank(input_x)


class Size(_Composed):
    """Size()(input_x): the number of elements, a Python int (ops.size)."""

    def __call__(self, input_x):
        return _a.size(input_x)


class _ScatterNdInPlace(_Composed):
    """ScatterNd<Op> and Scatter<Op> (composed_array_ops)(use_locking=False)(input_x, indices,
    updates): updates combined into the Parameter input_x at indices, in place; returns
    input_x (ops/function/scatter_func.py: repeated indices apply in order). ``use_locking``
    is kept as an attribute: mycel applies the updates of one call in order."""
    _fn = None

    def __init__(self, use_locking=False):
        if not isinstance(use_locking, bool):
            raise TypeError(f"For '{type(self).__name__}', 'use_locking' must be a bool, but "
                            f"got {type(use_locking).__name__}.")
        super().__init__(use_locking=use_locking)
        self.use_locking = use_locking

    def __call__(self, input_x, indices, updates):
        return type(self)._fn(input_x, indices, updates)


def _scatter_nd_class(name, fn, use_locking_default, doc):
    """The primitive class `name` running the in-place scatter function fn."""
    def __init__(self, use_locking=use_locking_default):
        _ScatterNdInPlace.__init__(self, use_locking)
    return type(name, (_ScatterNdInPlace,), {"__doc__": doc, "__module__": __name__,
                                             "__init__": __init__, "_fn": staticmethod(fn)})


ScatterNdAdd = _scatter_nd_class("ScatterNdAdd", _sc.scatter_nd_add, False,
                                 "input_x[indices] += updates (ops.scatter_nd_add).")
ScatterNdSub = _scatter_nd_class("ScatterNdSub", _sc.scatter_nd_sub, False,
                                 "input_x[indices] -= updates (ops.scatter_nd_sub).")
ScatterNdMul = _scatter_nd_class("ScatterNdMul", _sc.scatter_nd_mul, False,
                                 "input_x[indices] *= updates (ops.scatter_nd_mul).")
ScatterNdDiv = _scatter_nd_class("ScatterNdDiv", _sc.scatter_nd_div, False,
                                 "input_x[indices] /= updates (ops.scatter_nd_div).")
ScatterNdMax = _scatter_nd_class("ScatterNdMax", _sc.scatter_nd_max, False,
                                 "input_x[indices] = maximum(input_x[indices], updates) "
                                 "(ops.scatter_nd_max).")
ScatterNdMin = _scatter_nd_class("ScatterNdMin", _sc.scatter_nd_min, False,
                                 "input_x[indices] = minimum(input_x[indices], updates) "
                                 "(ops.scatter_nd_min).")
ScatterNdUpdate = _scatter_nd_class("ScatterNdUpdate", _sc.scatter_nd_update, True,
                                    "input_x[indices] = updates (ops.scatter_nd_update).")


class ResizeNearestNeighbor(_Composed):
    """ResizeNearestNeighbor(size, align_corners=False)(input_x): [N, C, H, W] resized to
    size = (new_height, new_width), each output pixel a copy of the nearest input pixel
    (floor(i * H / new_height); with align_corners the corners' centres map onto each
    other)."""

    def __init__(self, size, align_corners=False):
        if not isinstance(align_corners, bool):
            raise TypeError(f"For 'ResizeNearestNeighbor', 'align_corners' must be a bool, but "
                            f"got {type(align_corners).__name__}.")
        super().__init__(size=size, align_corners=align_corners)
        self.size = tuple(size) if isinstance(size, (list, tuple)) else size
        self.align_corners = align_corners

    def __call__(self, input_x):
        return _rs.resize_nearest_neighbor(input_x, self.size, self.align_corners)


class TruncateMod(_Composed):
    """TruncateMod()(x, y): x - trunc(x / y) * y, the remainder taking x's sign (C's fmod,
    ops.fmod)."""

    def __call__(self, x, y):
        return _m.fmod(x, y)


class EmbeddingLookup(_Composed):
    """EmbeddingLookup()(input_params, input_indices, offset): the rows
    input_params[input_indices - offset]; an index outside [0, rows) after the offset gives
    a row of zeros (one shard of a table split by rows, as MindSpore's)."""

    def __call__(self, input_params, input_indices, offset):
        return _a._embedding_rows(input_params, input_indices, offset)


class DType(_Composed):
    """DType()(input_x): the tensor's dtype (``input_x.dtype``; a constant in GRAPH mode)."""

    def __call__(self, input_x):
        return input_x.dtype


class Ger(_Composed):
    """Ger()(x1, x2): the outer product of two 1-d float tensors (ops.ger)."""

    def __call__(self, x1, x2):
        return _c.ger(x1, x2)


class Renorm(_Composed):
    """Renorm(p, dim, maxnorm)(input_x): slices along dim with p-norm above maxnorm scaled
    down to it (ops.renorm)."""

    def __init__(self, p, dim, maxnorm):
        super().__init__(p=p, dim=dim, maxnorm=maxnorm)
        self.p, self.dim, self.maxnorm = p, dim, maxnorm

    def __call__(self, input_x):
        return _c.renorm(input_x, self.p, self.dim, self.maxnorm)


class LRN(_Composed):
    """LRN(depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region='ACROSS_CHANNELS')(x):
    local response normalisation across channels of [N, C, H, W] (ops.lrn)."""

    def __init__(self, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5,
                 norm_region="ACROSS_CHANNELS"):
        super().__init__(depth_radius=depth_radius, bias=bias, alpha=alpha, beta=beta,
                         norm_region=norm_region)
        self.depth_radius, self.bias, self.alpha, self.beta = depth_radius, bias, alpha, beta
        self.norm_region = norm_region

    def __call__(self, x):
        return _c.lrn(x, self.depth_radius, self.bias, self.alpha, self.beta, self.norm_region)


class ApplyAdamWithAmsgrad(_Composed):
    """ApplyAdamWithAmsgrad(beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False)(var, m,
    v, vhat, beta1_power, beta2_power, lr, grad): one AMSGrad step on the Parameters, in
    place; returns (var, m, v, vhat):
    m = beta1 m + (1 - beta1) grad, v = beta2 v + (1 - beta2) grad^2, vhat = max(vhat, v),
    var -= lr sqrt(1 - beta2_power) / (1 - beta1_power) * m / (sqrt(vhat) + epsilon)."""

    def __init__(self, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False):
        for name, v in (("beta1", beta1), ("beta2", beta2), ("epsilon", epsilon)):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise TypeError(f"For 'ApplyAdamWithAmsgrad', '{name}' must be a float, but "
                                f"got {v!r}.")
        super().__init__(beta1=beta1, beta2=beta2, epsilon=epsilon, use_locking=use_locking)
        self.beta1, self.beta2, self.epsilon = float(beta1), float(beta2), float(epsilon)

    def __call__(self, var, m, v, vhat, beta1_power, beta2_power, lr, grad):
        g = _prim("Cast")(grad, var.dtype)
        m_new = _prim("Add")(_prim("Mul")(m, self.beta1), _prim("Mul")(g, 1.0 - self.beta1))
        v_new = _prim("Add")(_prim("Mul")(v, self.beta2),
                             _prim("Mul")(_prim("Square")(g), 1.0 - self.beta2))
        vhat_new = _prim("Maximum")(vhat, v_new)
        lr_t = _prim("Div")(_prim("Mul")(lr, _prim("Sqrt")(_prim("Sub")(1.0, beta2_power))),
                            _prim("Sub")(1.0, beta1_power))
        step = _prim("Div")(m_new, _prim("Add")(_prim("Sqrt")(vhat_new), self.epsilon))
        var_new = _prim("Sub")(var, _prim("Cast")(_prim("Mul")(lr_t, step), var.dtype))
        return (_prim("Assign")(var, var_new), _prim("Assign")(m, m_new),
                _prim("Assign")(v, v_new), _prim("Assign")(vhat, vhat_new))


class _UnsortedSegment(_Composed):
    _fn = None

    def __call__(self, x, segment_ids, num_segments):
        return type(self)._fn(x, segment_ids, num_segments)


class UnsortedSegmentMax(_UnsortedSegment):
    """UnsortedSegmentMax()(x, segment_ids, num_segments): the maximum of each segment's
    slices of x; empty segments hold the dtype's lowest value (ops.unsorted_segment_max)."""
    _fn = staticmethod(_seg.unsorted_segment_max)


class UnsortedSegmentMin(_UnsortedSegment):
    """UnsortedSegmentMin()(x, segment_ids, num_segments): the minimum of each segment's
    slices of x; empty segments hold the dtype's largest value (ops.unsorted_segment_min)."""
    _fn = staticmethod(_seg.unsorted_segment_min)


class UnsortedSegmentProd(_UnsortedSegment):
    """UnsortedSegmentProd()(x, segment_ids, num_segments): the product of each segment's
    slices of x; empty segments are 1 (ops.unsorted_segment_prod)."""
    _fn = staticmethod(_seg.unsorted_segment_prod)


__all__ += ["UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd"]


class Identity(_Composed):
    """Identity()(x): a copy of x."""

    def __call__(self, x):
        # a new tensor of x's values: x * 1 keeps -0.0, NaN and infinities as they are
        if x.dtype == getattr(_C, "bool"):
            return _prim("LogicalAnd")(x, x)
        return _prim("Mul")(x, _prim("OnesLike")(x))


class Slice(_Composed):
    """Slice()(input_x, begin, size): the block starting at begin of size size (-1: to the
    end of that dimension) (ops.slice)."""

    def __call__(self, input_x, begin, size):
        return _ax.slice(input_x, begin, size)


def _composed(name, fn, doc):
    """A _Composed primitive class whose call is fn (the functional form)."""
    return type(name, (_Composed,), {"__call__": lambda self, *args: fn(*args),
                                     "__doc__": doc})


SquaredDifference = _composed("SquaredDifference", _mx.squared_difference,
                              "SquaredDifference()(x, y): (x - y) ** 2.")
IsFinite = _composed("IsFinite", _mx.isfinite, "IsFinite()(x): neither NaN nor infinite.")
IsNan = _composed("IsNan", _mx.isnan, "IsNan()(x): True where x is NaN.")
IsInf = _composed("IsInf", _mx.isinf, "IsInf()(x): True where x is +-inf.")
LogicalXor = _composed("LogicalXor", _mx.logical_xor, "LogicalXor()(x, y): x != y as bools.")
Atan2 = _composed("Atan2", _mx.atan2, "Atan2()(x, y): the angle of (y, x) (ops.atan2).")
Xlogy = _composed("Xlogy", _mx.xlogy, "Xlogy()(x, y): x * log(y), 0 where x is 0.")
Trunc = _composed("Trunc", _m.trunc, "Trunc()(x): rounded toward zero (ops.trunc).")
Lerp = _composed("Lerp", _mx.lerp, "Lerp()(start, end, weight): start + weight * (end - "
                 "start).")
Heaviside = _composed("Heaviside", _mx.heaviside, "Heaviside()(x, values): the step "
                      "function, values at 0.")
AssignSub = _composed("AssignSub", _mx.assign_sub, "AssignSub()(variable, value): variable "
                      "-= value in place; returns variable.")
MatrixInverse = _composed("MatrixInverse", _la.inverse, "MatrixInverse()(x): the inverse of "
                          "each square matrix (ops.inverse).")

__all__ += ["Identity", "Slice", "SquaredDifference", "IsFinite", "IsNan", "IsInf",
            "LogicalXor", "Atan2", "Xlogy", "Trunc", "Lerp", "Heaviside", "AssignSub",
            "MatrixInverse"]


def _exporter(names, namespace):
    """The class decorator of a composed_<domain>_ops module: adds the class to the module's
    __all__ (`names`) and namespace (its globals())."""
    def export(cls):
        names.append(cls.__name__)
        namespace[cls.__name__] = cls
        return cls
    return export


def _simple_maker(export, module):
    """simple(name, fn, doc): makes, exports and returns a primitive class without attributes
    whose call is fn(*inputs), in module `module`."""
    def simple(name, fn, doc):
        def __init__(self):
            _Composed.__init__(self)

        def __call__(self, *args):
            return fn(*args)
        return export(type(name, (_Composed,), {"__doc__": doc, "__module__": module,
                                                "__init__": __init__, "__call__": __call__}))
    return simple
class Eig(_Composed):
    """Eig(compute_v=False)(x): (eigenvalues (*, N), eigenvectors (*, N, N)) of the square
    matrices x, as ops.eig (the op table's Eig, differentiable through eig_func's backward);
    without compute_v the eigenvectors are an empty tensor (shape [0]). Written out over the
    table's Eig so that its gradient is ops.eig's."""

    def __init__(self, compute_v=False):
        if not isinstance(compute_v, bool):
            raise TypeError(f"For 'Eig', 'compute_v' must be a bool, but got "
                            f"{type(compute_v).__name__}.")
        super().__init__(compute_v=compute_v)
        self.compute_v = compute_v

    def __call__(self, x):
        if self.compute_v:
            return _eig.eig(x)
        return _eig.eigvals(x), _eig.empty_vectors(x)


__all__ += ["Eig"]
