"""Power-average pooling and max unpooling layers (MindSpore 2.x ``nn.LPPool1d``,
``nn.LPPool2d``, ``nn.MaxUnpool1d/2d/3d``): thin cells over ``ops.lp_pool*`` and
``ops.max_unpool*`` (see ops/function/unpool_func.py for the semantics)."""
from mycel.nn.cell import Cell
from mycel.ops.function import unpool_func as _U


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
