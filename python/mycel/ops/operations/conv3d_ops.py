"""The Conv3D primitive class (MindSpore's ``ops.Conv3D``), composed from Conv2D by
``ops/function/conv3d_func.py``."""
from mycel.ops.function import conv3d_func as _c3
from mycel.ops.function._util import three_ints as _three_ints
from mycel.ops.operations._compat_checks import _check_int, _check_tensor, _F16_32
from mycel.ops.operations.composed_ops import _Composed


class Conv3D(_Composed):
    """Conv3D(out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1, dilation=1,
    group=1, data_format="NCDHW")(x, weight, bias=None): the 3-D convolution of x
    [N, C, D, H, W] with weight [out_channel, C / group, kd, kh, kw] (float16/32), plus bias
    [out_channel] when given. pad_mode 'valid', 'same' or 'pad' (pad: an int or (head, tail,
    top, bottom, left, right)). The positional order is MindSpore 2.x's; MindSpore 1.x's
    (mode, stride, pad_mode, pad, ...) is recognised by its 4th argument being a stride (an int
    or a tuple) rather than a pad_mode string."""

    def __init__(self, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1,
                 dilation=1, group=1, data_format="NCDHW"):
        op = "Conv3D"
        if not isinstance(pad_mode, str):  # MindSpore 1.x's order: (..., mode, stride, ...)
            if isinstance(pad, str):  # (... stride, pad_mode, pad ...) given by position
                stride, pad_mode, pad = pad_mode, pad, stride
            else:
                stride, pad_mode = pad_mode, "valid"
        self.out_channel = _check_int(op, "out_channel", out_channel)
        self.kernel_size = _three_ints(kernel_size, "kernel_size", op)
        if mode != 1:
            raise ValueError(f"For '{op}', 'mode' must be 1, but got {mode!r}.")
        self.group = _check_int(op, "group", group)
        if data_format != "NCDHW":
            raise ValueError(f"For '{op}', only data_format 'NCDHW' is supported, but got "
                             f"{data_format!r}.")
        self.pad_mode, self.pad, self.stride, self.dilation = _c3.conv3d_args(
            op, pad_mode, pad, stride, dilation)
        super().__init__(out_channel=out_channel, kernel_size=self.kernel_size, mode=mode,
                         stride=self.stride, pad_mode=self.pad_mode, pad=self.pad,
                         dilation=self.dilation, group=group, data_format=data_format)

    def __call__(self, x, weight, bias=None):
        op = "Conv3D"
        _check_tensor(op, "x", x, _F16_32)
        _check_tensor(op, "weight", weight, (x.dtype,))
        want = (self.out_channel,) + self.kernel_size
        got = tuple(weight.shape)
        if len(got) != 5 or (got[0],) + got[2:] != want:
            raise ValueError(f"For '{op}', the weight must have shape [{self.out_channel}, "
                             f"C / group, {', '.join(map(str, self.kernel_size))}], but got "
                             f"{got}.")
        out = _c3.conv3d_nd(x, weight, self.pad_mode, self.pad, self.stride, self.dilation,
                            self.group)
        return out if bias is None else _c3.prim("BiasAdd")(out, bias)
