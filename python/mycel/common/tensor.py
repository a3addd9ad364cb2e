"""Tensor methods written on top of mycel.ops (the operators, indexing, construction and
numpy interop are in C++). Imported for its effect: it attaches the methods to Tensor."""
from mycel import _mycel as _C
from mycel.ops.function import math_func as _m, array_func as _a, nn_func as _n
from mycel.ops.function import sort_scan_func as _s, layout_func as _l, compat_func as _c
from mycel.ops.function import math_ext_func as _x, array_ext_func as _ax, linalg_func as _la
from mycel.ops.function import bitwise_func as _bw
from mycel.ops.function import norm_func as _nf
from mycel.common import _flatten as _flat, _inplace
from mycel.ops.function import index_add_func as _ia
from mycel.ops.function import tensor_ext_func as _te
from mycel.ops.function import select_func as _sel
from mycel.ops.primitive import constexpr

Tensor = _C.Tensor


def _shape_args(shape):
    if len(shape) == 1 and not isinstance(shape[0], int):
        if isinstance(shape[0], (set, frozenset, dict, str, float)):  # unordered or not ints
            raise TypeError(f"a shape must be ints or one sequence of ints, but got "
                            f"{type(shape[0]).__name__}.")
        return tuple(shape[0])
    return tuple(shape)


def _no_out(out, name):
    # numpy's np.sum(t) / np.all(t) ... call the method with out=None: accepted, nothing else
    if out is not None:
        raise TypeError(f"For 'Tensor.{name}', 'out' is not supported (it must be None).")


def _transpose(self, *axes):
    """Permutes the dims (reversed when none are given)."""
    axes = _shape_args(axes) if axes else tuple(reversed(range(self.ndim)))
    return _a.transpose(self, axes)


def _flatten(self, *args, order="C", start_dim=0, end_dim=-1):
    """Flattened to 1-d by default (Tensor.flatten), or dims start_dim..end_dim. MindSpore's
    two forms: flatten(order='C', *, start_dim=0, end_dim=-1) (a str first) and
    flatten(start_dim=0, end_dim=-1) (ints, positional or by name)."""
    if args and isinstance(args[0], str):
        order, args = args[0], args[1:]
        _flatten_arity(len(args), 0)
    else:
        _flatten_arity(len(args), 2)
        if args:
            start_dim = args[0]
        if len(args) > 1:
            end_dim = args[1]
    return _a.flatten(self, order, start_dim=start_dim, end_dim=end_dim)


@constexpr
def _flatten_arity(n, most):
    if n > most:
        raise TypeError(f"Tensor.flatten() takes at most {most} more positional arguments "
                        f"(order='C' takes start_dim and end_dim by name), but got {n}.")


def _tolist(self):
    """The elements as nested Python lists."""
    return self.asnumpy().tolist()


def _all(self, axis=None, keep_dims=False, out=None, keepdims=None, *, dim=None, keepdim=None):
    """True where every element along axis (or dim) is nonzero."""
    _no_out(out, "all")
    axis = axis if dim is None else dim
    keep_dims = keepdims if keepdims is not None else keepdim if keepdim is not None \
        else keep_dims
    return _m.amin(self.astype(_C.bool).astype(_C.int32), axis, keep_dims).astype(_C.bool)


def _any(self, axis=None, keep_dims=False, out=None, keepdims=None, *, dim=None, keepdim=None):
    """True where some element along axis (or dim) is nonzero."""
    _no_out(out, "any")
    axis = axis if dim is None else dim
    keep_dims = keepdims if keepdims is not None else keepdim if keepdim is not None \
        else keep_dims
    return _m.amax(self.astype(_C.bool).astype(_C.int32), axis, keep_dims).astype(_C.bool)


def _chunk(self, chunks, axis=0, *, dim=None):
    """`chunks` pieces along axis (or dim), each ceil(n / chunks) long but the last (as
    torch.chunk)."""
    axis = axis if dim is None else dim
    n = self.shape[axis]
    size = max(1, -(-n // chunks))
    return _a.split(self, size, axis)


def _scaled(other, alpha):
    return other if alpha == 1 else _m.mul(other, alpha)


def _mean(self, axis=None, keep_dims=False, *, dim=None, keepdim=None, dtype=None):
    """Mean over axis (or dim; None: all), in dtype when given."""
    axis = axis if dim is None else dim
    keep_dims = keep_dims if keepdim is None else keepdim
    x = self if dtype is None else self.astype(dtype)
    return _m.mean(x, axis, keep_dims)


def _split(self, split_size_or_sections=None, axis=0, *, split_size=None, dim=None):
    """Pieces of split_size (or the sizes in a list) along axis (or dim)."""
    size = split_size_or_sections if split_size is None else split_size
    return _a.split(self, size, axis if dim is None else dim)


def _remainder(self, other=None, *, divisor=None):
    """Python's %: the result takes the sign of the divisor."""
    return _m.remainder(self, other if divisor is None else divisor)


def _gather(self, input_indices=None, axis=None, batch_dims=0, *, dim=None, index=None):
    """MindSpore's two forms: gather(input_indices, axis, batch_dims=0) takes whole slices
    (ops.gather); gather(dim, index), with an int first, takes elements (ops.gather_elements,
    torch's gather)."""
    if dim is not None or index is not None:
        return _a.gather_elements(self, dim, index)
    if isinstance(input_indices, int):
        return _a.gather_elements(self, input_indices, axis)
    return _a.gather(self, input_indices, axis, batch_dims)


def _select(self, condition, y):
    """MindSpore's two forms: select(condition, y): self where condition, else y (a Python
    int y needs an int32 tensor, a float y a float32 one, as MindSpore's);
    select(dim, index), with ints: the slice at index along dim, that dim removed."""
    if isinstance(condition, int) and not isinstance(condition, bool):
        if isinstance(y, bool) or not isinstance(y, int):
            raise TypeError(f"For 'Tensor.select', select(dim, index) takes an int index, but "
                            f"got {type(y).__name__}.")
        dim = _a._check_axis(condition, self.ndim, "Tensor.select", "dim")
        return _a.squeeze(_ax.narrow(self, dim, y, 1), dim)
    if isinstance(y, int) and not isinstance(y, bool) and self.dtype != _C.int32:
        raise TypeError(f"For 'Tensor.select', if the argument 'y' is int, then the tensor type "
                        f"should be int32 but got {self.dtype}.")
    if isinstance(y, float) and self.dtype != _C.float32:
        raise TypeError(f"For 'Tensor.select', if the argument 'y' is float, then the tensor "
                        f"type should be float32 but got {self.dtype}.")
    return _m.where(condition, self, y)


def _norm(self, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """ops.norm of this tensor (norm_func.py)."""
    return _nf.norm(self, ord, dim, keepdim, dtype=dtype)


def _dot(self, other):
    """numpy.dot: the sum over self's last axis and other's second-to-last (its only one when
    1-D); the result's shape is self.shape[:-1] + other.shape[:-2] + other.shape[-1:]."""
    return _te.dot(self, other)


def _cumsum(self, axis=None, dtype=None, *, dim=None):
    """Cumulative sum along axis (None: of the flattened tensor); dtype casts first. `dim` is
    the newer spelling of axis (MindSpore's overloaded Tensor.cumsum)."""
    if dim is not None:
        if axis is not None:
            raise TypeError("For 'Tensor.cumsum', give axis or dim, not both.")
        axis = dim
    if axis is None:
        return _s.cumsum(_a.reshape(self, (-1,)), 0, dtype)
    return _s.cumsum(self, axis, dtype)


def _axis_or_dim(axis, dim, op):
    """axis, or its other spelling dim (MindSpore's Tensor.argmax(dim=, keepdim=) form);
    None for both means all elements."""
    if axis is not None and dim is not None:
        raise TypeError(f"For '{op}', give axis or dim, not both.")
    return axis if dim is None else dim


def _one_of(a, b, name_a, name_b, op):
    """The one of two spellings of an argument that is given."""
    if (a is None) == (b is None):
        raise TypeError(f"For '{op}', give exactly one of '{name_a}' and '{name_b}'.")
    return a if b is None else b


def _t(self):
    """The transpose of a tensor of at most 2 dims."""
    if self.ndim > 2:
        raise ValueError(f"For 'Tensor.t', the tensor must have at most 2 dims, but got "
                         f"{self.ndim}.")
    return self if self.ndim < 2 else _a.transpose(self, (1, 0))


_METHODS = {
    "mean": _mean,
    "prod": lambda self, axis=None, keep_dims=False: _m.prod(self, axis, keep_dims),
    "argmax": lambda self, axis=None, keepdims=False, dim=None, keepdim=None: _m.argmax(
        self, _axis_or_dim(axis, dim, "Tensor.argmax"), keepdims if keepdim is None else keepdim),
    "argmin": lambda self, axis=None, keepdims=False, dim=None, keepdim=None: _m.argmin(
        self, _axis_or_dim(axis, dim, "Tensor.argmin"), keepdims if keepdim is None else keepdim),
    "all": _all,
    "any": _any,
    "reshape": lambda self, *shape: _a.reshape(self, _shape_args(shape)),
    "view": lambda self, *shape: _a.reshape(self, _shape_args(shape)),
    "transpose": _transpose,
    "permute": lambda self, *axes: _a.transpose(self, _shape_args(axes)),
    "swapaxes": lambda self, a0, a1: _a.swapaxes(self, a0, a1),
    "flatten": _flatten,
    "ravel": lambda self: _a.reshape(self, (-1,)),
    "expand_dims": lambda self, axis: _a.expand_dims(self, axis),
    "unsqueeze": lambda self, dim: _a.expand_dims(self, dim),
    "squeeze": lambda self, axis=None: _a.squeeze(self, axis),
    "broadcast_to": lambda self, shape: _a.broadcast_to(self, shape),
    "expand_as": lambda self, other=None, *, x=None: _a.broadcast_to(
        self, (other if x is None else x).shape),
    "tile": lambda self, multiples: _a.tile(self, multiples),
    "repeat": lambda self, *multiples: _a.tile(self, _shape_args(multiples)),
    "abs": _m.abs,
    "neg": _m.neg,
    "exp": _m.exp,
    "log": _m.log,
    "log1p": _m.log1p,
    "sqrt": _m.sqrt,
    "rsqrt": _m.rsqrt,
    "square": _m.square,
    "reciprocal": _m.reciprocal,
    "sin": _m.sin,
    "cos": _m.cos,
    "tanh": _m.tanh,
    "sigmoid": _m.sigmoid,
    "erf": _m.erf,
    "acos": _m.acos,
    "arccos": _m.arccos,
    "asin": _m.asin,
    "arcsin": _m.arcsin,
    "atan": _m.atan,
    "arctan": _m.arctan,
    "acosh": _m.acosh,
    "arccosh": _m.arccosh,
    "asinh": _m.asinh,
    "arcsinh": _m.arcsinh,
    "atanh": _m.atanh,
    "arctanh": _m.arctanh,
    "sinh": _m.sinh,
    "cosh": _m.cosh,
    "tan": _m.tan,
    "expm1": _m.expm1,
    "erfc": _m.erfc,
    "floor": _m.floor,
    "ceil": _m.ceil,
    "rint": _m.rint,
    "round": lambda self, decimals=0: _m.round(self, decimals=decimals),
    "hardshrink": lambda self, lambd=0.5: _c.hardshrink(self, lambd),
    "ger": _c.ger,
    "renorm": lambda self, p, axis, maxnorm: _c.renorm(self, p, axis, maxnorm),
    "std": lambda self, axis=None, ddof=0, keepdims=False: _c.std(self, axis, ddof, keepdims),
    "var": lambda self, axis=None, ddof=0, keepdims=False: _c.var(self, axis, ddof, keepdims),
    "sign": _m.sign,
    "relu": _n.relu,
    "softmax": lambda self, axis=-1: _n.softmax(self, axis),
    "pow": _m.pow,
    "add": lambda self, other, *, alpha=1: _m.add(self, _scaled(other, alpha)),
    "sub": lambda self, other, *, alpha=1: _m.sub(self, _scaled(other, alpha)),
    "mul": _m.mul,
    "div": _m.div,
    "maximum": _m.maximum,
    "minimum": _m.minimum,
    "matmul": _m.matmul,
    "clip": lambda self, xmin=None, xmax=None: _m.clamp(self, xmin, xmax),
    "clamp": lambda self, min=None, max=None: _m.clamp(self, min, max),  # noqa: A002
    "equal": _m.equal,
    "eq": _m.equal,
    "ne": _m.not_equal,
    "not_equal": _m.not_equal,
    "lt": _m.less,
    "less": _m.less,
    "le": _m.less_equal,
    "less_equal": _m.less_equal,
    "gt": _m.greater,
    "greater": _m.greater,
    "ge": _m.greater_equal,
    "greater_equal": _m.greater_equal,
    "split": _split,
    "chunk": _chunk,
    "t": _t,
    "mm": _m.matmul,
    "dot": _dot,
    "norm": _norm,
    "new_ones": lambda self, size, dtype=None: _a.ones(size, dtype or self.dtype),
    "new_zeros": lambda self, size, dtype=None: _a.zeros(size, dtype or self.dtype),
    "type_as": lambda self, other: self.astype(other.dtype),
    "where": lambda self, condition, y: _m.where(condition, self, y),
    "gather": _gather,
    "float": lambda self: self.astype(_C.float32),
    "half": lambda self: self.astype(_C.float16),
    "double": lambda self: self.astype(_C.float64),
    "int": lambda self: self.astype(_C.int32),
    "long": lambda self: self.astype(_C.int64),
    "bool": lambda self: self.astype(_C.bool),
    "to": lambda self, dtype: self.astype(dtype),
    "tolist": _tolist,
    "dim": lambda self: self.ndim,
    "numel": lambda self: self.size,
    "nelement": lambda self: self.size,
    "zeros_like": lambda self: _a.zeros_like(self),
    "cumsum": _cumsum,
    "cumprod": lambda self, dim, dtype=None: _s.cumprod(self, dim, dtype),
    "sort": lambda self, axis=-1, descending=False: _s.sort(self, axis, descending),
    "argsort": lambda self, axis=-1, descending=False: _s.argsort(self, axis, descending),
    "topk": lambda self, k, dim=None, largest=True, sorted=True: _s.topk(  # noqa: A002
        self, k, dim, largest, sorted),
    "tril": lambda self, diagonal=0: _l.tril(self, diagonal),
    "triu": lambda self, diagonal=0: _l.triu(self, diagonal),
    "flip": lambda self, dims: _l.flip(self, dims),
    "roll": lambda self, shifts, dims=None: _l.roll(self, shifts, dims),
    "ones_like": lambda self: _a.ones_like(self),
}


def _deepcopy(self, memo):
    """copy.deepcopy(t): a tensor with its own copy of the data."""
    out = self.copy()
    memo[id(self)] = out
    return out


# MindSpore's methods over the functional forms of ops/function/math_ext_func.py and
# array_ext_func.py (argument names as MindSpore's Tensor methods).
_METHODS.update({
    "absolute": _m.abs,
    "negative": _m.neg,
    "positive": _x.positive,
    "isnan": _x.isnan,
    "isinf": _x.isinf,
    "isfinite": _x.isfinite,
    "isneginf": _x.isneginf,
    "isposinf": _x.isposinf,
    "signbit": _x.signbit,
    "logical_xor": _x.logical_xor,
    "log2": _x.log2,
    "log10": _x.log10,
    "sinc": _x.sinc,
    "deg2rad": _x.deg2rad,
    "rad2deg": _x.rad2deg,
    "trunc": _m.trunc,
    "fix": _m.trunc,
    "frac": _x.frac,
    "hypot": _x.hypot,
    "atan2": _x.atan2,
    "arctan2": _x.atan2,
    "logaddexp": _x.logaddexp,
    "logaddexp2": _x.logaddexp2,
    "xlogy": _x.xlogy,
    "copysign": _x.copysign,
    "heaviside": _x.heaviside,
    "fmax": _x.fmax,
    "fmin": _x.fmin,
    "lerp": _x.lerp,
    "float_power": _x.float_power,
    "divide": lambda self, value, *, rounding_mode=None: _m.div(self, value,
                                                              rounding_mode=rounding_mode),
    "true_divide": _x.true_divide,
    "multiply": _m.mul,
    "subtract": _x.subtract,
    "remainder": _remainder,
    "floor_divide": _m.floor_divide,
    "fmod": _m.fmod,
    "masked_fill": _c.masked_fill,
    "nansum": _x.nansum,
    "nanmean": _x.nanmean,
    "logsumexp": lambda self, axis, keepdims=False: _x.logsumexp(self, axis, keepdims),
    "count_nonzero": _x.count_nonzero,
    "isclose": _x.isclose,
    "nan_to_num": _x.nan_to_num,
    "addmm": _x.addmm,
    "addmv": _x.addmv,
    "addbmm": _x.addbmm,
    "baddbmm": _x.baddbmm,
    "addcdiv": _x.addcdiv,
    "addcmul": _x.addcmul,
    "inner": _x.inner,
    "outer": _x.outer,
    "trace": _x.trace,
    "index_select": lambda self, axis=None, index=None, *, dim=None: _ax.index_select(
        self, _one_of(axis, dim, "axis", "dim", "Tensor.index_select"), index),
    "narrow": _ax.narrow,
    "moveaxis": _ax.moveaxis,
    "movedim": _ax.moveaxis,
    "swapdims": _ax.swapdims,
    "fliplr": _ax.fliplr,
    "flipud": _ax.flipud,
    "unbind": _ax.unbind,
    "diagonal": lambda self, offset=0, axis1=0, axis2=1: _ax.diagonal(self, offset, axis1,
                                                                      axis2),
    "is_floating_point": lambda self: self.dtype.is_floating_point,
    "is_signed": lambda self: self.dtype not in (_C.uint8, _C.uint16, _C.uint32, _C.uint64,
                                                 getattr(_C, "bool")),
    "ndimension": lambda self: self.ndim,
    "reshape_as": lambda self, other: _a.reshape(self, other.shape),
    "view_as": lambda self, other: _a.reshape(self, other.shape),
    "new_full": lambda self, size, fill_value, *, dtype=None: _a.full(
        size, fill_value, dtype=dtype or self.dtype),
    "clone": lambda self: self.copy(),
    "select": _select,
    "logical_and": lambda self, other: _m.logical_and(self, other),
    "logical_or": lambda self, other: _m.logical_or(self, other),
    "logical_not": lambda self: _m.logical_not(self),
    "inverse": lambda self: _la.inverse(self),
    "squared_difference": _x.squared_difference,
    "__deepcopy__": _deepcopy,
})

# Bitwise methods (ops/function/bitwise_func.py); &, | and ^ on integer tensors too (bool
# with bool stays LogicalAnd/LogicalOr; the operations commute, so the reflected forms are the
# same functions).
_METHODS.update({_n: getattr(_bw, _n) for _n in _bw.__all__})
_METHODS.update({"__and__": _bw.bitwise_and, "__rand__": _bw.bitwise_and,
                 "__or__": _bw.bitwise_or, "__ror__": _bw.bitwise_or,
                 "__xor__": _bw.bitwise_xor, "__rxor__": _bw.bitwise_xor})

_METHODS.update({"slogdet": lambda self: _la.slogdet(self), "det": lambda self: _la.det(self),
                 "repeat_interleave": _ia.repeat_interleave, "scatter": _ia.scatter,
                 "approximate_equal": _c.approximate_equal})

# Selections whose output size depends on the values (ops/function/select_func.py).
_METHODS.update({
    "nonzero": lambda self, *, as_tuple=False: _sel.nonzero(self, as_tuple=as_tuple),
    "argwhere": lambda self: _sel.argwhere(self),
    "masked_select": lambda self, mask: _sel.masked_select(self, mask),
    "masked_scatter": lambda self, mask, source: _sel.masked_scatter(self, mask, source),
    "unique": lambda self, sorted=True, return_inverse=False, return_counts=False, dim=None:
        _sel.unique_ext(self, sorted, return_inverse, return_counts, dim),
})

# In-place methods (common/_inplace.py).
_METHODS.update({_n: getattr(_inplace, _n) for _n in _inplace.__all__})

for _name, _fn in _METHODS.items():
    setattr(Tensor, _name, _fn)
Tensor.from_numpy = staticmethod(_C.from_numpy)
Tensor.T = property(lambda self: _transpose(self))
# MindSpore fills an initializer's tensor lazily, at init_data(); mycel's initializer fills it
# at once, so init_data() returns the tensor itself.
Tensor.init_data = lambda self, slice_index=None, shape=None, opt_shard_group=None: self
# Flattened weights (common/_flatten.py): MindSpore's static helpers of Tensor.
Tensor._flatten_tensors = staticmethod(_flat._flatten_tensors)
Tensor._is_flattened = staticmethod(_flat._is_flattened)
Tensor._get_flattened_tensors = staticmethod(_flat._get_flattened_tensors)
Tensor._get_fusion_size = staticmethod(_flat._get_fusion_size)


# ------------------------------------------------------------------ dynamic-shape placeholders
class _DynamicTensor(Tensor):
    """A placeholder of MindSpore's ``Tensor(shape=[None, 1, 28, 28], dtype=...)``: a dtype and
    a shape whose None (or -1) dimensions are known only at run time, and no data. It is what
    ``Cell.set_inputs`` and ``jit(input_signature=...)`` take; its ``shape`` shows the dynamic
    dimensions as -1 (as MindSpore's); a dimension may also be a ``Symbol`` (common/symbol.py):
    dynamic, with the rules it states checked on each call. Underneath it is an empty tensor (its dynamic dimensions
    0), so reading its values gives nothing. ``Tensor(shape=None, dtype=...)`` is one of any
    rank (shape ``(-2,)``, as MindSpore's): set_inputs compiles such an input for the shapes
    of each call, as it would without set_inputs."""

    def __init__(self, input_data=None, dtype=None, shape=None, init=None, *args, **kwargs):
        if shape is None:  # Tensor(shape=None, dtype=...): any rank (MindSpore's [-2])
            Tensor.__init__(self, None, dtype, (0,))
            self._mycel_dyn_shape = (-2,)
            return
        from mycel.common.symbol import Symbol
        dims, symbols = [], []
        for d in shape:
            symbols.append(d if isinstance(d, Symbol) else None)
            if d is None or isinstance(d, Symbol) or \
                    (isinstance(d, int) and not isinstance(d, bool) and d == -1):
                dims.append(-1)
            elif isinstance(d, int) and not isinstance(d, bool) and d >= 0:
                dims.append(int(d))
            else:
                raise TypeError(f"For 'Tensor', the shape of a placeholder must hold ints >= 0, "
                                f"None or Symbols, but got {tuple(shape)!r}.")
        Tensor.__init__(self, None, _C.float32 if dtype is None else dtype,
                        tuple(max(d, 0) for d in dims))
        self._mycel_dyn_shape = tuple(dims)
        # The Symbol of each dimension (None where there is none): common/symbol.py checks
        # each GRAPH-mode call's inputs against them.
        self._mycel_symbols = tuple(symbols) if any(symbols) else None

    @property
    def shape(self):
        """The shape, -1 for each dynamic dimension."""
        return self._mycel_dyn_shape

    def __repr__(self):
        return f"Tensor(shape={list(self._mycel_dyn_shape)}, dtype={self.dtype}, value=None)"

    __str__ = __repr__


# Tensor(shape=[None, ...], dtype=...) without data makes a _DynamicTensor (Tensor's tp_new,
# src/python/py_tensor.cc); everything else constructs as before.
_C._set_placeholder_type(_DynamicTensor)


def _input_spec(t):
    """(dtype, shape with -1 for dynamic dims) of a set_inputs / input_signature entry, or
    None for an entry that is not a Tensor (an argument compiled by value, as without one)."""
    if isinstance(t, _DynamicTensor):
        if t._mycel_dyn_shape == (-2,):
            return None  # any rank: compiled for each call's shapes, as without set_inputs
        return (t.dtype, list(t._mycel_dyn_shape))
    if isinstance(t, Tensor):
        return (t.dtype, list(t.shape))
    if t is None:
        return None
    # A tuple or list of tensors, placeholders or numbers (MindSpore's mutable sequences), a
    # number or a dtype: that argument is compiled for each call's value, as without
    # set_inputs. (A list such as [None, 20], a shape where a placeholder belongs, stays an
    # error.)
    if isinstance(t, (int, float, type(_C.float32))) or \
            (isinstance(t, (tuple, list)) and all(_tensor_leaves(e) for e in t)):
        return None
    raise TypeError(f"For 'set_inputs', each input must be a Tensor (Tensor(shape=[None, ...], "
                    f"dtype=...) for a dynamic shape), a tuple or list of them, a number or "
                    f"a dtype (compiled by value) or None, but got {t!r}.")


def _tensor_leaves(t):
    """Whether every leaf of t is a tensor or a number (None, as in a shape, is not)."""
    if isinstance(t, (tuple, list)):
        return all(_tensor_leaves(e) for e in t)
    return isinstance(t, (Tensor, int, float))


def _register_hook(self, hook_fn):
    """Registers ``hook_fn(grad)`` on this tensor's gradient; returns a handle whose
    ``remove()`` unregisters it (common/tensor_hooks.py says where hooks act)."""
    from mycel.common import tensor_hooks
    return tensor_hooks.register_hook(self, hook_fn)


Tensor.register_hook = _register_hook

# MindSpore 2.x methods composed from existing ops (ops/function/tensor_ext_func.py).
_METHODS_EXT = {_n: getattr(_te, _n) for _n in _te.__all__}
_METHODS_EXT.update({
    "short": lambda self: self.astype(_C.int16),
    "type": lambda self, dtype=None: str(self.dtype) if dtype is None else self.astype(dtype),
})
for _name, _fn in _METHODS_EXT.items():
    setattr(Tensor, _name, _fn)
Tensor.mH = property(_te.adjoint)  # graph code: specialize_builtins.cc (as T)
Tensor.mT = property(_te.matrix_transpose)

# MindSpore's overloaded methods (numpy and torch forms; common/_tensor_overloads.py).
from mycel.common import _tensor_overloads  # noqa: E402
for _name, _fn in _tensor_overloads.METHODS.items():
    setattr(Tensor, _name, _fn)
Tensor._mycel_graph_forms = _tensor_overloads.GRAPH_FORMS  # read by graph code's method lookup

# Linear-algebra and random-fill methods (common/_tensor_linalg_methods.py).
from mycel.common import _tensor_linalg_methods  # noqa: E402
for _name, _fn in _tensor_linalg_methods.METHODS.items():
    setattr(Tensor, _name, _fn)
Tensor._mycel_graph_forms.update(_tensor_linalg_methods.GRAPH_FORMS)

# numpy-style methods on mycel.numpy (common/_tensor_numpy_methods.py).
from mycel.common import _tensor_numpy_methods  # noqa: E402
for _name, _fn in _tensor_numpy_methods.METHODS.items():
    if not hasattr(Tensor, _name):
        setattr(Tensor, _name, _fn)

def _set_const_arg(self, const_arg=True):
    """MindSpore's ``Tensor.set_const_arg(const_arg=True)``: whether the tensor, given to a
    compiled network, is compiled into it as a constant. Checked and accepted; it changes no
    result: mycel passes every tensor argument as a run-time value (as ``Tensor(...,
    const_arg=...)``). Returns the tensor."""
    if not isinstance(const_arg, bool):
        raise TypeError(f"For 'set_const_arg', the type of 'const_arg' must be bool, but got "
                        f"{type(const_arg).__name__}.")
    return self


Tensor.set_const_arg = _set_const_arg
# Complex numbers (ops/function/complex_func.py): real() and imag() are methods, as
# MindSpore's (PyTorch's are properties), .H (conjugate transpose of a matrix), conj() ...
from mycel.ops.function import complex_func as _cx  # noqa: E402
Tensor.real = _cx.real
Tensor.imag = _cx.imag


def _conj_t(self):
    """Tensor.H: the conjugate transpose of a matrix (a 0-d tensor is itself)."""
    if self.ndim not in (0, 2):
        raise ValueError(f"Tensor.H needs a 2-d (or 0-d) tensor, but the tensor has "
                         f"{self.ndim} dimensions.")
    return _cx.conj(_transpose(self))


Tensor.H = property(_conj_t)
for _name in ("conj", "angle", "is_complex", "conj_physical", "resolve_conj", "isreal", "sgn"):
    setattr(Tensor, _name, getattr(_cx, _name))
Tensor.is_conj = lambda self: False  # no lazy conjugate bit

