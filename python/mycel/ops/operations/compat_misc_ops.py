"""Primitive classes of MindSpore 2.x composed from op-table primitives (no kernel of their
own; both modes and gradients come from the ops they are built of):

- ``Median(global_median=False, axis=0, keep_dims=False, ignore_nan=False)(x)`` -> (values,
  int64 indices) (ops/function/stats_ext_func.py);
- ``Mvlgamma(p)(x)``: the multivariate log-gamma (ops.mvlgamma);
- ``Assert(summarize=3)(condition, input_data)``: a RuntimeError "assert failed" when the
  condition (a bool or a one-element bool tensor) is false, its message holding the first
  ``summarize`` elements of each tensor of input_data; in GRAPH mode a tensor condition is
  checked when the graph runs;
- ``ParameterizedTruncatedNormal(seed=0, seed2=0)(shape, mean, stdevs, min, max)``
  (``ops.operations.random_ops``; ops/function/trunc_normal_func.py).

Arguments are validated as MindSpore's classes do: a wrong type is a TypeError, a value out
of range a ValueError, naming the op and the argument.
"""
from mycel import _mycel as _C
from mycel.ops.operations.composed_ops import _Composed
from mycel.ops.operations._compat_checks import _check_int, _check_bool
from mycel.ops.function import stats_ext_func as _st, trunc_normal_func as _tn
from mycel.ops.function import crop_resize_func as _cr
from mycel.ops.primitive import constexpr, make_primitive_class

# The table's UniformReal (ops.operations makes the same class; importing it from there would
# be an import circle with random_ops).
_UniformReal = make_primitive_class("UniformReal")

__all__ = ["Median", "Mvlgamma", "Assert", "ParameterizedTruncatedNormal"]


class Median(_Composed):
    """Median(global_median=False, axis=0, keep_dims=False, ignore_nan=False)(x): the lower
    median (of an even count, the smaller middle value) and where it sits in x (int64), along
    axis or, with global_median, over all elements (0-d outputs). A NaN in a slice makes its
    median NaN unless ignore_nan, which takes the median of the other elements."""

    def __init__(self, global_median=False, axis=0, keep_dims=False, ignore_nan=False):
        _check_bool("Median", "global_median", global_median)
        if not global_median:
            _check_int("Median", "axis", axis, positive=False)
            _check_bool("Median", "keep_dims", keep_dims)
        _check_bool("Median", "ignore_nan", ignore_nan)
        super().__init__(global_median=global_median, axis=axis, keep_dims=keep_dims,
                         ignore_nan=ignore_nan)
        self.global_median, self.axis = global_median, axis
        self.keep_dims, self.ignore_nan = keep_dims, ignore_nan

    def __call__(self, x):
        return _st.median_values(x, self.global_median, self.axis, self.keep_dims,
                                 self.ignore_nan)


class Mvlgamma(_Composed):
    """Mvlgamma(p)(x): the multivariate log-gamma of dimension p, elementwise (NaN where
    x <= (p - 1) / 2)."""

    def __init__(self, p):
        self.p = _check_int("Mvlgamma", "p", p)
        super().__init__(p=self.p)

    def __call__(self, x):
        return _st.mvlgamma(x, self.p)


@constexpr
def _summary_slice(n, summarize):
    return min(n, summarize)


class Assert(_Composed):
    """Assert(summarize=3)(condition, input_data): nothing when condition holds; a
    RuntimeError ("assert failed") otherwise, showing the first summarize elements of each
    tensor in input_data (a tuple or list of tensors)."""

    def __init__(self, summarize=3):
        self.summarize = _check_int("Assert", "summarize", summarize)
        super().__init__(summarize=self.summarize)

    def __call__(self, condition, input_data):
        if not isinstance(input_data, (tuple, list)):
            raise TypeError("For 'Assert', 'input_data' must be a tuple or a list of Tensors.")
        for t in input_data:
            if not isinstance(t, _C.Tensor):
                raise TypeError("For 'Assert', every element of 'input_data' must be a "
                                "Tensor.")
        shown = []  # made before the test: a loop under the failing branch never returns
        for t in input_data:
            shown.append(t.reshape((-1,))[:_summary_slice(t.size, self.summarize)])
        if not condition:
            raise RuntimeError(f"For 'Assert', assert failed: {shown}")
        return None


class ParameterizedTruncatedNormal(_Composed):
    """ParameterizedTruncatedNormal(seed=0, seed2=0)(shape, mean, stdevs, min, max): samples
    of N(mean, stdevs^2) truncated to [min, max], of the shape given by the 1-D int tensor
    shape, whose first entry is the batch; mean, stdevs, min and max are 1-D of one float
    dtype (float16/32/64) with 1 or batch entries (row b of the output uses entry b). Seeds
    0, 0 draw from the global generator; others give this primitive its own stream, which
    advances with each call."""

    def __init__(self, seed=0, seed2=0):
        self.seed = _check_int("ParameterizedTruncatedNormal", "seed", seed, positive=False)
        self.seed2 = _check_int("ParameterizedTruncatedNormal", "seed2", seed2,
                                positive=False)
        super().__init__(seed=self.seed, seed2=self.seed2)
        self._uniform = _UniformReal(seed=self.seed, seed2=self.seed2, dtype=_C.float64)

    def __call__(self, shape, mean, stdevs, min, max):  # noqa: A002 (MindSpore's names)
        return _tn.parameterized_truncated_normal(self._uniform, shape, mean, stdevs, min,
                                                  max)


class CropAndResize(_Composed):
    """CropAndResize(method='bilinear', extrapolation_value=0.0)(x, boxes, box_index,
    crop_size): crops of the images x [N, H, W, C] at the normalised boxes [B, 4]
    (y1, x1, y2, x2) of images box_index [B] (int32), each resized to crop_size (h, w) by
    bilinear or nearest sampling; positions outside the image take extrapolation_value.
    Float32 [B, h, w, C] (ops/function/crop_resize_func.py)."""

    def __init__(self, method="bilinear", extrapolation_value=0.0):
        if not isinstance(method, str):
            raise TypeError(f"For 'CropAndResize', 'method' must be a str, but got "
                            f"{type(method).__name__}.")
        if method not in _cr.METHODS:
            raise ValueError(f"For 'CropAndResize', 'method' must be one of {_cr.METHODS} "
                             f"(mycel has no 'bilinear_v2'), but got {method!r}.")
        if isinstance(extrapolation_value, bool) or \
                not isinstance(extrapolation_value, (int, float)):
            raise TypeError(f"For 'CropAndResize', 'extrapolation_value' must be a float, but "
                            f"got {type(extrapolation_value).__name__}.")
        super().__init__(method=method, extrapolation_value=float(extrapolation_value))
        self.method, self.extrapolation_value = method, float(extrapolation_value)

    def __call__(self, x, boxes, box_index, crop_size):
        return _cr.crop_and_resize(x, boxes, box_index, crop_size, self.method,
                                   self.extrapolation_value)


__all__ += ["CropAndResize"]
