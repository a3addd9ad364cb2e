"""MindSpore's ``mindspore.ops.operations._quant_ops``: the quantisation primitives with a CPU
meaning, composed from mycel's ops (MindSpore's tests import the module as ``Q``).

- ``FakeQuantWithMinMaxVars(num_bits=8, narrow_range=False)(x, min, max)`` and its
  ``PerChannel`` form (min/max one value per entry of x's last dimension): TensorFlow's
  fake quantisation. The range [min, max] is nudged so that zero is exactly representable:
  with quant_min = 1 if narrow_range else 0, quant_max = 2**num_bits - 1,
  scale = (max - min) / (quant_max - quant_min) and zero point
  clamp(round(quant_min - min / scale), quant_min, quant_max), nudged_min =
  (quant_min - zero_point) * scale and nudged_max = (quant_max - zero_point) * scale; x is
  clamped to them and rounded to the nearest multiple of scale from nudged_min
  (floor(. + 0.5): a tie rounds up).
- ``FakeQuantWithMinMaxVarsGradient`` / ``...PerChannelGradient`` (gradients, x, min, max) ->
  (dx, dmin, dmax): the straight-through gradient: gradients where nudged_min <= x <=
  nudged_max, else 0 for x; the gradients below the range summed into min, above it into max
  (per channel: summed over all but the last dimension).

The forward's own gradient (GRAPH and PYNATIVE) is the same straight-through rule.

- ``FakeQuantParam(quant_dtype, quant_algo_name, is_per_channel, **kwargs)``: MindSpore's
  marker that carries quantisation parameters through a network (for export); its value is
  its input (identity). ``FakeQuantParam.linear_quant_param(quant_dtype, scale, zp,
  is_per_channel=False, **kwargs)`` makes one for the linear algorithm ("linear_quant_algo",
  attributes ``linear_quant_scale`` / ``linear_quant_zero_point`` as lists).

Left out: ``FakeQuantPerLayer`` / ``FakeQuantPerChannel`` (+Grad) and the other training-time
quantisers (``MinMaxUpdatePerLayer``, ``BatchNormFold``, ...), whose results depend on
MindSpore's global-step state (quant_delay, ema) and kernel-specific nudging not pinned down by
its documentation; ``IFMR`` (Ascend only in MindSpore, no CPU kernel: calling it is a
RuntimeError saying so, as MindSpore's CPU run fails).
"""
from mycel import _mycel as _C
from mycel.ops.function._util import prim, stop_gradient
from mycel.ops.operations.composed_ops import _Composed, Identity as _Identity
from mycel.ops.primitive import constexpr

__all__ = ["FakeQuantWithMinMaxVars", "FakeQuantWithMinMaxVarsPerChannel",
           "FakeQuantWithMinMaxVarsGradient", "FakeQuantWithMinMaxVarsPerChannelGradient",
           "FakeQuantParam", "IFMR"]


def _check_attrs(op, num_bits, narrow_range):
    if isinstance(num_bits, bool) or not isinstance(num_bits, int) or not 2 <= num_bits <= 16:
        raise ValueError(f"For '{op}', 'num_bits' must be an int in [2, 16], but got "
                         f"{num_bits!r}.")
    if not isinstance(narrow_range, bool):
        raise TypeError(f"For '{op}', 'narrow_range' must be a bool, but got "
                        f"{type(narrow_range).__name__}.")


@constexpr
def _check_inputs(op, per_channel, x_shape, x_dtype, mn_shape, mn_dtype, mx_shape, mx_dtype):
    if x_dtype not in (_C.float16, _C.float32):
        raise TypeError(f"For '{op}', x must be float16 or float32, but got {x_dtype}.")
    if mn_dtype != x_dtype or mx_dtype != x_dtype:
        raise TypeError(f"For '{op}', min and max must have x's dtype {x_dtype}, but got "
                        f"{mn_dtype} and {mx_dtype}.")
    if per_channel:
        if not x_shape:
            raise ValueError(f"For '{op}', x must have at least one dimension.")
        want = (x_shape[-1],)
    else:
        want = None
    for name, s in (("min", mn_shape), ("max", mx_shape)):
        ok = tuple(s) == want if per_channel else tuple(s) in ((), (1,))
        if not ok:
            raise ValueError(f"For '{op}', '{name}' must have shape "
                             f"{want if per_channel else '(1,) or ()'}, but got {tuple(s)}.")


def _nudged(mn, mx, num_bits, narrow_range):
    """(nudged_min, nudged_max, scale) of TensorFlow's fake quantisation (module docstring),
    elementwise over min and max."""
    qmin = 1.0 if narrow_range else 0.0
    qmax = float(2 ** num_bits - 1)
    scale = (mx - mn) / (qmax - qmin)
    zp_from_min = qmin - mn / scale
    zp = prim("Floor")(zp_from_min + 0.5)
    zp = prim("Minimum")(prim("Maximum")(zp, qmin), qmax)
    return (qmin - zp) * scale, (qmax - zp) * scale, scale


def _fake_quant(x, mn, mx, num_bits, narrow_range):
    lo, hi, scale = _nudged(mn, mx, num_bits, narrow_range)
    clamped = prim("Minimum")(prim("Maximum")(x, lo), hi)
    return prim("Floor")((clamped - lo) / scale + 0.5) * scale + lo


def _fake_quant_grad(g, x, mn, mx, num_bits, narrow_range, per_channel):
    lo, hi, _ = _nudged(mn, mx, num_bits, narrow_range)
    zero = prim("ZerosLike")(g)
    below, above = prim("Less")(x, lo), prim("Greater")(x, hi)
    dx = prim("Select")(prim("LogicalOr")(below, above), zero, g)
    axes = tuple(range(len(x.shape) - 1)) if per_channel else ()
    dmin = prim("ReduceSum")(prim("Select")(below, g, zero), axes)
    dmax = prim("ReduceSum")(prim("Select")(above, g, zero), axes)
    return dx, prim("Reshape")(dmin, mn.shape), prim("Reshape")(dmax, mx.shape)


class _FakeQuantBase(_Composed):
    _per_channel = False

    def __init__(self, num_bits=8, narrow_range=False):
        _check_attrs(type(self).__name__, num_bits, narrow_range)
        super().__init__(num_bits=num_bits, narrow_range=narrow_range)
        self.num_bits, self.narrow_range = num_bits, narrow_range

    def _check(self, x, mn, mx):
        op = type(self).__name__
        for name, t in (("x", x), ("min", mn), ("max", mx)):
            if not isinstance(t, _C.Tensor):
                raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got "
                                f"{type(t).__name__}.")
        _check_inputs(op, self._per_channel, x.shape, x.dtype, mn.shape, mn.dtype, mx.shape,
                      mx.dtype)


class FakeQuantWithMinMaxVars(_FakeQuantBase):
    """FakeQuantWithMinMaxVars(num_bits=8, narrow_range=False)(x, min, max): x fake-quantised
    to num_bits over the nudged [min, max] (module docstring); min and max of shape (1,).
    Its gradient is the straight-through rule of FakeQuantWithMinMaxVarsGradient."""

    def __call__(self, x, min, max):  # noqa: A002 (MindSpore's input names)
        self._check(x, min, max)
        return _with_grad(self, x, min, max)


class FakeQuantWithMinMaxVarsPerChannel(FakeQuantWithMinMaxVars):
    """FakeQuantWithMinMaxVarsPerChannel(num_bits=8, narrow_range=False)(x, min, max): as
    FakeQuantWithMinMaxVars with one range per entry of x's last dimension (min, max of shape
    (d,))."""
    _per_channel = True


class FakeQuantWithMinMaxVarsGradient(_FakeQuantBase):
    """FakeQuantWithMinMaxVarsGradient(num_bits=8, narrow_range=False)(gradients, x, min, max)
    -> (backprops_wrt_x, backprop_wrt_min, backprop_wrt_max) (module docstring)."""

    def __call__(self, gradients, x, min, max):  # noqa: A002
        self._check(x, min, max)
        if not isinstance(gradients, _C.Tensor) or gradients.shape != x.shape:
            raise ValueError(f"For '{type(self).__name__}', gradients must be a Tensor of x's "
                             f"shape {x.shape}.")
        return _fake_quant_grad(gradients, x, min, max, self.num_bits, self.narrow_range,
                                self._per_channel)


class FakeQuantWithMinMaxVarsPerChannelGradient(FakeQuantWithMinMaxVarsGradient):
    """FakeQuantWithMinMaxVarsPerChannelGradient(num_bits=8, narrow_range=False)(gradients, x,
    min, max): the per-channel gradient (min/max of shape (d,), sums over all dims but the
    last)."""
    _per_channel = True


def _with_grad(p, x, mn, mx):
    """The forward with the straight-through gradient (a Cell-free custom VJP: the value of the
    rounding, the gradient of the clamp)."""
    y = _fake_quant(x, mn, mx, p.num_bits, p.narrow_range)
    lo, hi, _ = _nudged(mn, mx, p.num_bits, p.narrow_range)
    # y = ste + stop_gradient(y - ste): ste's gradient is gradients inside [lo, hi] for x and
    # the sums outside it for min / max; its value cancels.
    inside = prim("LogicalAnd")(prim("GreaterEqual")(x, lo), prim("LessEqual")(x, hi))
    ste = prim("Select")(inside, x, prim("Select")(prim("Less")(x, lo), mn + x * 0.0,
                                                    mx + x * 0.0))
    return ste + stop_gradient(y - ste)


class FakeQuantParam(_Composed):
    """FakeQuantParam(quant_dtype, quant_algo_name, is_per_channel, **kwargs)(x): x itself; the
    quantisation parameters are the primitive's attributes (module docstring)."""

    attr_key_linear_quant_scale = "linear_quant_scale"
    attr_key_linear_quant_zero_point = "linear_quant_zero_point"
    attr_value_linear_quant_algo_name = "linear_quant_algo"

    def __init__(self, quant_dtype, quant_algo_name, is_per_channel, **kwargs):
        if not isinstance(quant_algo_name, str):
            raise TypeError(f"For 'FakeQuantParam', 'quant_algo_name' must be a str, but got "
                            f"{type(quant_algo_name).__name__}.")
        if not isinstance(is_per_channel, bool):
            raise TypeError(f"For 'FakeQuantParam', 'is_per_channel' must be a bool, but got "
                            f"{type(is_per_channel).__name__}.")
        super().__init__(quant_dtype=quant_dtype, quant_algo_name=quant_algo_name,
                         is_per_channel=is_per_channel, **kwargs)
        self.quant_dtype, self.quant_algo_name = quant_dtype, quant_algo_name
        self.is_per_channel = is_per_channel

    @classmethod
    def linear_quant_param(cls, quant_dtype, scale, zp, is_per_channel=False, **kwargs):
        """A FakeQuantParam of the linear algorithm with scale and zero point (numbers or
        lists of them)."""
        as_list = lambda v: list(v) if isinstance(v, (list, tuple)) else [v]  # noqa: E731
        kwargs[cls.attr_key_linear_quant_scale] = as_list(scale)
        kwargs[cls.attr_key_linear_quant_zero_point] = as_list(zp)
        return cls(quant_dtype, cls.attr_value_linear_quant_algo_name, is_per_channel, **kwargs)

    def __call__(self, x):
        if not isinstance(x, _C.Tensor):
            raise TypeError(f"For 'FakeQuantParam', 'x' must be a Tensor, but got "
                            f"{type(x).__name__}.")
        return _Identity()(x)


class IFMR(_Composed):
    """IFMR(min_percentile=0.999999, max_percentile=0.999999, search_range=(0.7, 1.3),
    search_step=0.01, with_offset=True): MindSpore's input-feature-map reconstruction runs on
    Ascend only (no CPU kernel); mycel keeps the attributes and raises when it is called."""

    def __init__(self, min_percentile=0.999999, max_percentile=0.999999,
                 search_range=(0.7, 1.3), search_step=0.01, with_offset=True):
        super().__init__(min_percentile=min_percentile, max_percentile=max_percentile,
                         search_range=search_range, search_step=search_step,
                         with_offset=with_offset)

    def __call__(self, data, data_min, data_max, cumsum):
        raise RuntimeError("For 'IFMR', MindSpore runs this primitive on Ascend only (it has "
                           "no CPU kernel); mycel does not implement it.")
