"""Pooling layers (MindSpore 2.x ``mindspore.nn``): MaxPool2d, AvgPool2d over NCHW input,
MaxPool1d, AvgPool1d over [N, C, L] or [C, L] input (the 2-d ops on a unit height), and the
adaptive poolings AdaptiveAvgPool1d/2d/3d, AdaptiveMaxPool1d/2d/3d (``ops.adaptive_*``, see
``ops/function/resample_func.py``).

MindSpore's defaults: kernel_size=1, stride=1, pad_mode='valid' ('same': output H =
ceil(H / stride); 'pad': explicit `padding`)."""
from mycel.nn.cell import Cell
from mycel.nn.layer import _check
from mycel.ops.function._util import prim
from mycel.ops.function import resample_func as _R
from mycel.ops.primitive import constexpr


class _Pool2d(Cell):
    _op = None

    def __init__(self, kernel_size, stride, pad_mode, padding, ceil_mode, data_format,
                 **extra):
        super().__init__()
        cls = type(self).__name__
        self.kernel_size = _check.pair(kernel_size, "kernel_size", cls, allow_four=True)
        self.stride = _check.pair(stride, "stride", cls, allow_four=True)
        self.pad_mode = _check.pad_mode(pad_mode, cls)
        self.padding = _check.padding4(padding, self.pad_mode, cls)
        self.ceil_mode = _check.bool_(ceil_mode, "ceil_mode", cls)
        _check.data_format(data_format, cls)
        self.pool = prim(self._op, kernel_size=self.kernel_size, strides=self.stride,
                         pad_mode=self.pad_mode, pad=self.padding, ceil_mode=self.ceil_mode,
                         **extra)

    def construct(self, x):
        return self.pool(x)

    def extend_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"pad_mode={self.pad_mode}")


class MaxPool2d(_Pool2d):
    """Maximum over kernel_size windows moved by stride."""

    _op = "MaxPool"

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False, data_format="NCHW"):
        if dilation not in (1, (1, 1)):
            raise ValueError(f"For 'MaxPool2d', only dilation 1 is supported, but got "
                             f"{dilation}.")
        if return_indices:
            raise ValueError("For 'MaxPool2d', return_indices=True is not supported.")
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, data_format)


class AvgPool2d(_Pool2d):
    """Mean over kernel_size windows moved by stride (count_include_pad: padded zeros count
    in the divisor)."""

    _op = "AvgPool"

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None, data_format="NCHW"):
        if divisor_override is not None:
            raise ValueError("For 'AvgPool2d', divisor_override is not supported.")
        _check.bool_(count_include_pad, "count_include_pad", "AvgPool2d")
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, data_format,
                         count_include_pad=count_include_pad)


@constexpr
def _shape4(shape, cls):
    """[N, C, 1, L] for a [N, C, L] input, [1, C, 1, L] for [C, L]."""
    if len(shape) not in (2, 3):
        raise ValueError(f"For '{cls}', the input must be 2-d [C, L] or 3-d [N, C, L], but got "
                         f"shape {tuple(shape)}.")
    return (shape[0] if len(shape) == 3 else 1, shape[-2], 1, shape[-1])


@constexpr
def _shape_back(shape, out4):
    return tuple(shape[:-1]) + (out4[-1],)


class _Pool1d(_Pool2d):
    """A 2-d pooling over [N, C, 1, L]: kernel (1, k), stride (1, s), padding (0, 0, l, r)."""

    def __init__(self, kernel_size, stride, pad_mode, padding, ceil_mode, **extra):
        cls = type(self).__name__
        k = _check.positive_int(kernel_size, "kernel_size", cls)
        s = _check.positive_int(stride, "stride", cls)
        pad = _check.padding2(padding, _check.pad_mode(pad_mode, cls), cls)
        super().__init__((1, k), (1, s), pad_mode, (0, 0) + pad, ceil_mode, "NCHW", **extra)
        self.kernel_size, self.stride, self.padding = k, s, pad

    def construct(self, x):
        shape = x.shape
        out = self.pool(x.reshape(_shape4(shape, type(self).__name__)))
        return out.reshape(_shape_back(shape, out.shape))


class MaxPool1d(_Pool1d):
    """Maximum over kernel_size windows of the last axis moved by stride; padding: an int or
    (left, right) with pad_mode 'pad'."""

    _op = "MaxPool"

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False):
        if dilation != 1:
            raise ValueError(f"For 'MaxPool1d', only dilation 1 is supported, but got "
                             f"{dilation}.")
        if return_indices:
            raise ValueError("For 'MaxPool1d', return_indices=True is not supported.")
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode)


class AvgPool1d(_Pool1d):
    """Mean over kernel_size windows of the last axis moved by stride (count_include_pad:
    padded zeros count in the divisor)."""

    _op = "AvgPool"

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True):
        _check.bool_(count_include_pad, "count_include_pad", "AvgPool1d")
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode,
                         count_include_pad=count_include_pad)


class _AdaptivePool(Cell):
    _fn = None

    def __init__(self, output_size, dims, return_indices=None):
        super().__init__()
        cls = type(self).__name__
        self.return_indices = return_indices
        if return_indices is not None:
            _check.bool_(return_indices, "return_indices", cls)
        if dims == 1:
            output_size = _check.positive_int(output_size, "output_size", cls)
        elif isinstance(output_size, (tuple, list)):
            output_size = tuple(None if o is None else _check.positive_int(o, "output_size", cls)
                                for o in output_size)
            if len(output_size) != dims:
                raise ValueError(f"For '{cls}', output_size must be an int or a tuple of {dims} "
                                 f"ints (or None), but got {output_size!r}.")
        else:
            output_size = _check.positive_int(output_size, "output_size", cls)
        self.output_size = output_size

    def construct(self, x):
        if self.return_indices is None:
            return self._fn(x, self.output_size)
        return self._fn(x, self.output_size, self.return_indices)

    def extend_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptivePool):
    """Mean over output_size bins of the last axis of [N, C, L] or [C, L] input, bin i
    covering [floor(i * L / out), ceil((i + 1) * L / out))."""

    _fn = staticmethod(_R.adaptive_avg_pool1d)

    def __init__(self, output_size):
        super().__init__(output_size, 1)


class AdaptiveAvgPool2d(_AdaptivePool):
    """Mean over adaptive bins of the last two axes of [N, C, H, W] or [C, H, W] input;
    output_size: an int or (h, w), None keeping that axis."""

    _fn = staticmethod(_R.adaptive_avg_pool2d)

    def __init__(self, output_size):
        super().__init__(output_size, 2)


class AdaptiveAvgPool3d(_AdaptivePool):
    """Mean over adaptive bins of the last three axes of [N, C, D, H, W] or [C, D, H, W]
    input; output_size: an int or (d, h, w), None keeping that axis."""

    _fn = staticmethod(_R.adaptive_avg_pool3d)

    def __init__(self, output_size):
        super().__init__(output_size, 3)


class AdaptiveMaxPool1d(_AdaptivePool):
    """Maximum over output_size adaptive bins of the last axis of [N, C, L] or [C, L]
    input."""

    _fn = staticmethod(_R.adaptive_max_pool1d)

    def __init__(self, output_size):
        super().__init__(output_size, 1)


class AdaptiveMaxPool2d(_AdaptivePool):
    """Maximum over adaptive bins of the last two axes of [N, C, H, W] or [C, H, W] input;
    return_indices: (output, int64 index of each maximum into H * W)."""

    _fn = staticmethod(_R.adaptive_max_pool2d)

    def __init__(self, output_size, return_indices=False):
        super().__init__(output_size, 2, return_indices)


class AdaptiveMaxPool3d(_AdaptivePool):
    """Maximum over adaptive bins of the last three axes of [N, C, D, H, W] or [C, D, H, W]
    input; return_indices: (output, int64 index of each maximum into D * H * W)."""

    _fn = staticmethod(_R.adaptive_max_pool3d)

    def __init__(self, output_size, return_indices=False):
        super().__init__(output_size, 3, return_indices)


__all__ = ["MaxPool2d", "AvgPool2d", "MaxPool1d", "AvgPool1d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
           "AdaptiveMaxPool3d"]
