"""Pooling layers (MindSpore 2.x ``mindspore.nn``): MaxPool2d, AvgPool2d over NCHW input.

MindSpore's defaults: kernel_size=1, stride=1, pad_mode='valid' ('same': output H =
ceil(H / stride); 'pad': explicit `padding`)."""
from mycel.nn.cell import Cell
from mycel.nn.layer import _check
from mycel.ops.function._util import prim


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


__all__ = ["MaxPool2d", "AvgPool2d"]
