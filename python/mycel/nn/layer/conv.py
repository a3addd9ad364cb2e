"""Convolution layers (MindSpore 2.x ``mindspore.nn``): Conv2d.

Defaults are MindSpore 2.x's: pad_mode='same', has_bias=False, weight_init=None meaning
HeUniform(math.sqrt(5)) (U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = in/group * kh * kw)
and bias_init=None meaning Uniform(1/sqrt(fan_in)); MindSpore 1.x used 'normal' and 'zeros'.
"""
import math

from mycel import _mycel as _C
from mycel.common.initializer import (initializer, HeUniform, Uniform,
                                      _calculate_fan_in_and_fan_out)
from mycel.common.parameter import Parameter
from mycel.nn.cell import Cell
from mycel.nn.layer import _check
from mycel.ops.function._util import prim


class Conv2d(Cell):
    """2-d convolution of NCHW input with weight [out_channels, in_channels/group, kh, kw].

    pad_mode: 'same' (output H = ceil(H / stride)), 'valid' (no padding) or 'pad' (explicit
    `padding`: an int or (top, bottom, left, right))."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None,
                 bias_init=None, data_format="NCHW", dtype=_C.float32):
        super().__init__()
        cls = "Conv2d"
        self.in_channels = _check.positive_int(in_channels, "in_channels", cls)
        self.out_channels = _check.positive_int(out_channels, "out_channels", cls)
        self.kernel_size = _check.pair(kernel_size, "kernel_size", cls)
        self.stride = _check.pair(stride, "stride", cls, allow_four=True)
        self.dilation = _check.pair(dilation, "dilation", cls, allow_four=True)
        self.pad_mode = _check.pad_mode(pad_mode, cls)
        self.padding = _check.padding4(padding, self.pad_mode, cls)
        self.group = _check.positive_int(group, "group", cls)
        self.has_bias = _check.bool_(has_bias, "has_bias", cls)
        self.data_format = _check.data_format(data_format, cls)
        if in_channels % group or out_channels % group:
            raise ValueError(f"For 'Conv2d', in_channels ({in_channels}) and out_channels "
                             f"({out_channels}) must be divisible by group ({group}).")
        shape = (out_channels, in_channels // group) + self.kernel_size
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight = Parameter(initializer(weight_init, shape, dtype), name="weight")
        self.bias = None
        if has_bias:
            if bias_init is None:
                fan_in, _ = _calculate_fan_in_and_fan_out(shape)
                bias_init = Uniform(1 / math.sqrt(fan_in))
            self.bias = Parameter(initializer(bias_init, (out_channels,), dtype), name="bias")
        self.conv2d = prim("Conv2D", out_channel=out_channels, kernel_size=self.kernel_size,
                           pad_mode=self.pad_mode, pad=self.padding, stride=self.stride,
                           dilation=self.dilation, group=group)
        self.bias_add = prim("BiasAdd")

    def construct(self, x):
        output = self.conv2d(x, self.weight)
        if self.has_bias:
            output = self.bias_add(output, self.bias)
        return output

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"pad_mode={self.pad_mode}, padding={self.padding}, dilation={self.dilation}, "
                f"group={self.group}, has_bias={self.has_bias}")


__all__ = ["Conv2d"]
