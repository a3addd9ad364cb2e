"""Power-average pooling, max unpooling and 3-D pooling layers (MindSpore 2.x ``nn.LPPool1d``,
``nn.LPPool2d``, ``nn.MaxUnpool1d/2d/3d``, ``nn.MaxPool3d``, ``nn.AvgPool3d``): thin cells over
``ops.lp_pool*``, ``ops.max_unpool*`` (ops/function/unpool_func.py), ``ops.max_pool3d``
(pool3d_func.py) and ``ops.avg_pool3d`` (pool_nd_func.py)."""
from mycel.nn.cell import Cell
from mycel.ops.function import unpool_func as _U
from mycel.ops.function import pool3d_func as _P3
from mycel.ops.function import pool_nd_func as _PN


class _LPPool(Cell):
    _fn = None

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        if not isinstance(ceil_mode, bool):
            raise TypeError(f"For '{type(self).__name__}', ceil_mode must be a bool, but got "
                            f"{type(ceil_mode).__name__}.")
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def construct(self, x):
        return self._fn(x, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)

    def extend_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPool):
    """(sum of x^p over each window)^(1/p) over [N, C, L] or [C, L] input."""
    _fn = staticmethod(_U.lp_pool1d)


class LPPool2d(_LPPool):
    """(sum of x^p over each window)^(1/p) over [N, C, H, W] or [C, H, W] input."""
    _fn = staticmethod(_U.lp_pool2d)


class _MaxUnpool(Cell):
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def construct(self, x, indices, output_size=None):
        return self._fn(x, indices, self.kernel_size, self.stride, self.padding,
                              output_size)

    def extend_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpool):
    """Writes x at `indices` of a zero [N, C, L_out] tensor (the inverse of max pooling)."""
    _fn = staticmethod(_U.max_unpool1d)


class MaxUnpool2d(_MaxUnpool):
    """Writes x at `indices` of a zero [N, C, H_out, W_out] tensor."""
    _fn = staticmethod(_U.max_unpool2d)


class MaxUnpool3d(_MaxUnpool):
    """Writes x at `indices` of a zero [N, C, D_out, H_out, W_out] tensor."""
    _fn = staticmethod(_U.max_unpool3d)


_PAD_MODES = ("valid", "same", "pad")


def _pad_mode(cls, pad_mode):
    if not isinstance(pad_mode, str) or pad_mode.lower() not in _PAD_MODES:
        raise ValueError(f"For '{cls}', pad_mode must be one of {list(_PAD_MODES)}, but got "
                         f"{pad_mode!r}.")
    return pad_mode.lower()


class MaxPool3d(Cell):
    """MaxPool3d(kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
    return_indices=False, ceil_mode=False): max pooling over [N, C, D, H, W] or [C, D, H, W]
    (``ops.max_pool3d``); with return_indices, also each maximum's flat index."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False):
        super().__init__()
        self.pad_mode = _pad_mode("MaxPool3d", pad_mode)
        if self.pad_mode != "pad" and padding not in (0, (0, 0, 0)):
            raise ValueError("For 'MaxPool3d', padding must be 0 unless pad_mode is 'pad'.")
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.dilation, self.return_indices, self.ceil_mode = dilation, return_indices, ceil_mode

    def construct(self, x):
        return _P3.max_pool3d(x, self.kernel_size, self.stride, self.padding, self.dilation,
                              self.ceil_mode, self.return_indices, self.pad_mode)

    def extend_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"pad_mode={self.pad_mode}")


class AvgPool3d(Cell):
    """AvgPool3d(kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
    count_include_pad=True, divisor_override=None): average pooling over [N, C, D, H, W]
    (``ops.avg_pool3d``; pad_mode "pad" with `padding`, "valid" without)."""

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.pad_mode = _pad_mode("AvgPool3d", pad_mode)
        if self.pad_mode == "same":
            raise ValueError("For 'AvgPool3d', pad_mode 'same' is not supported by mycel; give "
                             "the padding with pad_mode 'pad'.")
        if self.pad_mode == "valid" and padding not in (0, (0,) * 6):
            raise ValueError("For 'AvgPool3d', padding must be 0 unless pad_mode is 'pad'.")
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad
        self.divisor_override = divisor_override

    def construct(self, x):
        return _PN.avg_pool3d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                              self.count_include_pad, self.divisor_override)

    def extend_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, pad_mode={self.pad_mode}"
