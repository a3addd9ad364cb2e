"""Convolution layers (MindSpore 2.x ``mindspore.nn``): Conv2d, Conv1d, Conv2dTranspose,
Conv1dTranspose, Conv3d, Conv3dTranspose.

Defaults are MindSpore 2.x's: pad_mode='same', has_bias=False, weight_init=None meaning
HeUniform(math.sqrt(5)) (U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = weight.shape[1] *
kernel elements) and bias_init=None meaning Uniform(1/sqrt(fan_in)); MindSpore 1.x used
'normal' and 'zeros'.

The 1-d layers are the 2-d ones on an inserted unit height (input [N, C, 1, L], weight [..., 1,
k]); their weights are 3-d, [out, in/group, k] (transposed: [in, out/group, k]), as in
MindSpore 2.x. A transposed convolution is the input gradient of the convolution with the same
arguments, the Conv2DBackpropInput op, whose output size the layer computes from the input's
(MindSpore's rule, ``ops.function.nn_func._conv_transpose_shape``).
"""
import math

from mycel import _mycel as _C
from mycel.common.initializer import (initializer, HeUniform, Uniform,
                                      _calculate_fan_in_and_fan_out)
from mycel.common.parameter import Parameter
from mycel.nn.cell import Cell
from mycel.nn.layer import _check
from mycel.ops import operations as P
from mycel.ops.function._util import prim, three_ints
from mycel.ops.function.nn_func import _conv_transpose_shape, _check_rank


class _Conv(Cell):
    """The checks and Parameters shared by the convolution layers; `transposed` makes the
    weight [in_channels, out_channels/group, *kernel] instead of [out, in/group, *kernel]."""

    def __init__(self, cls, in_channels, out_channels, kernel_size, pad_mode, group, has_bias,
                 weight_init, bias_init, dtype, transposed=False):
        super().__init__()
        self.in_channels = _check.positive_int(in_channels, "in_channels", cls)
        self.out_channels = _check.positive_int(out_channels, "out_channels", cls)
        self.pad_mode = _check.pad_mode(pad_mode, cls)
        self.group = _check.positive_int(group, "group", cls)
        self.has_bias = _check.bool_(has_bias, "has_bias", cls)
        if in_channels % group or out_channels % group:
            raise ValueError(f"For '{cls}', in_channels ({in_channels}) and out_channels "
                             f"({out_channels}) must be divisible by group ({group}).")
        shape = ((in_channels, out_channels // group) if transposed else
                 (out_channels, in_channels // group)) + tuple(kernel_size)
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight = Parameter(initializer(weight_init, shape, dtype), name="weight")
        self.bias = None
        if has_bias:
            if bias_init is None:
                fan_in, _ = _calculate_fan_in_and_fan_out(shape)
                bias_init = Uniform(1 / math.sqrt(fan_in))
            self.bias = Parameter(initializer(bias_init, (out_channels,), dtype), name="bias")
        self.bias_add = P.BiasAdd()

    def _init_1d(self, cls, op_channels, stride, dilation, padding):
        """A 1-d layer's stride, dilation and padding; the attributes of the 2-d op on a unit
        height (its out_channel attribute `op_channels`)."""
        self.stride = _check.positive_int(stride, "stride", cls)
        self.dilation = _check.positive_int(dilation, "dilation", cls)
        self.padding = _check.padding2(padding, self.pad_mode, cls)
        self.expand_dims = prim("ExpandDims")
        self.squeeze = prim("Squeeze", axis=(2,))
        return _conv2d_attrs(op_channels, (1, self.kernel_size), self.pad_mode,
                             (0, 0) + self.padding, (1, self.stride), (1, self.dilation),
                             self.group)

    def extend_repr(self):
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"pad_mode={self.pad_mode}, padding={self.padding}, dilation={self.dilation}, "
                f"group={self.group}, has_bias={self.has_bias}")


def _conv2d_attrs(out_channel, kernel_size, pad_mode, pad, stride, dilation, group):
    return dict(out_channel=out_channel, kernel_size=kernel_size, pad_mode=pad_mode, pad=pad,
                stride=stride, dilation=dilation, group=group)


class Conv2d(_Conv):
    """2-d convolution of NCHW input with weight [out_channels, in_channels/group, kh, kw].

    pad_mode: 'same' (output H = ceil(H / stride)), 'valid' (no padding) or 'pad' (explicit
    `padding`: an int or (top, bottom, left, right))."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None,
                 bias_init=None, data_format="NCHW", dtype=_C.float32):
        cls = "Conv2d"
        ks = _check.pair(kernel_size, "kernel_size", cls)
        super().__init__(cls, in_channels, out_channels, ks, pad_mode, group, has_bias,
                         weight_init, bias_init, dtype)
        self.kernel_size = ks
        self.stride = _check.pair(stride, "stride", cls, allow_four=True)
        self.dilation = _check.pair(dilation, "dilation", cls, allow_four=True)
        self.padding = _check.padding4(padding, self.pad_mode, cls)
        self.data_format = _check.data_format(data_format, cls)
        # Its own primitive (as MindSpore's), so that `conv.conv2d.shard(...)` shards this
        # layer only.
        self.conv2d = P.Conv2D(**_conv2d_attrs(out_channels, ks, self.pad_mode, self.padding,
                                               self.stride, self.dilation, group))

    def construct(self, x):
        output = self.conv2d(x, self.weight)
        if self.has_bias:
            output = self.bias_add(output, self.bias)
        return output


class Conv1d(_Conv):
    """1-d convolution of [N, C, L] input with weight [out_channels, in_channels/group,
    kernel_size].

    pad_mode: 'same' (output L = ceil(L / stride)), 'valid' or 'pad' (explicit `padding`: an
    int for both sides or (left, right))."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None,
                 bias_init=None, dtype=_C.float32):
        cls = "Conv1d"
        self.kernel_size = _check.positive_int(kernel_size, "kernel_size", cls)
        super().__init__(cls, in_channels, out_channels, (kernel_size,), pad_mode, group,
                         has_bias, weight_init, bias_init, dtype)
        self.conv2d = prim("Conv2D", **self._init_1d(cls, out_channels, stride, dilation,
                                                     padding))

    def construct(self, x):
        _check_rank(x.shape, 3, "Conv1d")
        output = self.conv2d(self.expand_dims(x, 2), self.expand_dims(self.weight, 2))
        if self.has_bias:
            output = self.bias_add(output, self.bias)
        return self.squeeze(output)


def _output_padding(value, stride, dilation, mode, cls, one_d):
    pads = ((_check.non_negative_int(value, "output_padding", cls),) if one_d else
            _check.pair_non_negative(value, "output_padding", cls))
    if any(pads) and mode != "pad":
        raise ValueError(f"For '{cls}', output_padding must be 0 unless pad_mode is 'pad', but "
                         f"got {value} with pad_mode {mode!r}.")
    for p, s, d in zip(pads, stride, dilation):
        if p >= max(s, d):
            raise ValueError(f"For '{cls}', output_padding ({value}) must be smaller than "
                             f"stride or dilation, but got stride {stride} and dilation "
                             f"{dilation}.")
    return pads


class Conv2dTranspose(_Conv):
    """2-d transposed convolution (the input gradient of Conv2d) of NCHW input with weight
    [in_channels, out_channels/group, kh, kw].

    pad_mode 'same' gives H * stride, 'valid' H * stride + max(ek - stride, 0), 'pad' (explicit
    `padding`: an int or (top, bottom, left, right)) (H - 1) * stride + ek - top - bottom +
    output_padding (only with 'pad'; smaller than stride or dilation)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, output_padding=0, dilation=1, group=1, has_bias=False,
                 weight_init=None, bias_init=None, dtype=_C.float32):
        cls = "Conv2dTranspose"
        ks = _check.pair(kernel_size, "kernel_size", cls)
        super().__init__(cls, in_channels, out_channels, ks, pad_mode, group, has_bias,
                         weight_init, bias_init, dtype, transposed=True)
        self.kernel_size = ks
        self.stride = _check.pair(stride, "stride", cls)
        self.dilation = _check.pair(dilation, "dilation", cls)
        self.padding = _check.padding4(padding, self.pad_mode, cls)
        self.output_padding = _output_padding(output_padding, self.stride, self.dilation,
                                              self.pad_mode, cls, False)
        self.conv2d_transpose = prim("Conv2DBackpropInput", **_conv2d_attrs(
            in_channels, ks, self.pad_mode, self.padding, self.stride, self.dilation, group))

    def construct(self, x):
        size = _conv_transpose_shape(x.shape, self.out_channels, self.kernel_size,
                                     self.stride, self.dilation, self.pad_mode, self.padding,
                                     self.output_padding, "Conv2dTranspose")
        output = self.conv2d_transpose(x, self.weight, size)
        if self.has_bias:
            output = self.bias_add(output, self.bias)
        return output


class Conv1dTranspose(_Conv):
    """1-d transposed convolution of [N, C, L] input with weight [in_channels,
    out_channels/group, kernel_size]; pad_mode and output length as Conv2dTranspose's, with
    `padding` an int for both sides or (left, right)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, output_padding=0, dilation=1, group=1, has_bias=False,
                 weight_init=None, bias_init=None, dtype=_C.float32):
        cls = "Conv1dTranspose"
        self.kernel_size = _check.positive_int(kernel_size, "kernel_size", cls)
        super().__init__(cls, in_channels, out_channels, (kernel_size,), pad_mode, group,
                         has_bias, weight_init, bias_init, dtype, transposed=True)
        attrs = self._init_1d(cls, in_channels, stride, dilation, padding)
        self.output_padding = _output_padding(output_padding, (self.stride,), (self.dilation,),
                                              self.pad_mode, cls, True)[0]
        self._attrs2d = (attrs["kernel_size"], attrs["stride"], attrs["dilation"],
                         attrs["pad"], (0, self.output_padding))
        self.conv2d_transpose = prim("Conv2DBackpropInput", **attrs)

    def construct(self, x):
        _check_rank(x.shape, 3, "Conv1dTranspose")
        x = self.expand_dims(x, 2)
        ks, st, dil, pad, opad = self._attrs2d
        size = _conv_transpose_shape(x.shape, self.out_channels, ks, st, dil, self.pad_mode,
                                     pad, opad, "Conv1dTranspose")
        output = self.conv2d_transpose(x, self.expand_dims(self.weight, 2), size)
        if self.has_bias:
            output = self.bias_add(output, self.bias)
        return self.squeeze(output)


class Conv3d(_Conv):
    """3-d convolution of [N, C, D, H, W] input with weight [out_channels,
    in_channels/group, kd, kh, kw] (the Conv3D primitive: ops/function/conv3d_func.py).

    pad_mode: 'same' (output D = ceil(D / stride)), 'valid' (no padding) or 'pad' (explicit
    `padding`: an int or (head, tail, top, bottom, left, right))."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None,
                 bias_init=None, data_format="NCDHW", dtype=_C.float32):
        cls = "Conv3d"
        ks = three_ints(kernel_size, "kernel_size", cls, ncdhw=False)
        super().__init__(cls, in_channels, out_channels, ks, pad_mode, group, has_bias,
                         weight_init, bias_init, dtype)
        self.kernel_size = ks
        self.stride = three_ints(stride, "stride", cls, ncdhw=False)
        self.dilation = three_ints(dilation, "dilation", cls, ncdhw=False)
        self.padding = padding
        self.conv3d = P.Conv3D(out_channels, ks, stride=self.stride, pad_mode=self.pad_mode,
                               pad=padding, dilation=self.dilation, group=group,
                               data_format=data_format)

    def construct(self, x):
        output = self.conv3d(x, self.weight)
        if self.has_bias:
            output = self.bias_add(output, self.bias)
        return output


class Conv3dTranspose(_Conv):
    """3-d transposed convolution (the input gradient of Conv3d) of [N, C, D, H, W] input with
    weight [in_channels, out_channels/group, kd, kh, kw] (the Conv3DTranspose primitive).

    pad_mode 'same' gives D * stride, 'valid' (D - 1) * stride + dilation * (k - 1) + 1 +
    output_padding, 'pad' (explicit `padding`: an int or 6 of them) that less the padding."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, output_padding=0, has_bias=False,
                 weight_init=None, bias_init=None, data_format="NCDHW", dtype=_C.float32):
        cls = "Conv3dTranspose"
        ks = three_ints(kernel_size, "kernel_size", cls, ncdhw=False)
        super().__init__(cls, in_channels, out_channels, ks, pad_mode, group, has_bias,
                         weight_init, bias_init, dtype, transposed=True)
        self.kernel_size = ks
        self.stride = three_ints(stride, "stride", cls, ncdhw=False)
        self.dilation = three_ints(dilation, "dilation", cls, ncdhw=False)
        self.padding = padding
        self.output_padding = output_padding
        self.conv3d_transpose = P.Conv3DTranspose(
            in_channels, out_channels, ks, pad_mode=self.pad_mode, pad=padding,
            stride=self.stride, dilation=self.dilation, group=group,
            output_padding=output_padding, data_format=data_format)

    def construct(self, x):
        output = self.conv3d_transpose(x, self.weight)
        if self.has_bias:
            output = self.bias_add(output, self.bias)
        return output


__all__ = ["Conv2d", "Conv1d", "Conv2dTranspose", "Conv1dTranspose", "Conv3d",
           "Conv3dTranspose"]
