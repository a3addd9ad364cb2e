"""nn.FractionalMaxPool2d / FractionalMaxPool3d (MindSpore 2.x): fractional max pooling with a
fixed window (``ops.fractional_max_pool2d/3d``, ops/function/fractional_fixed_func.py)."""
from mycel.nn.cell import Cell
from mycel.ops.function import fractional_fixed_func as _ff

__all__ = ["FractionalMaxPool2d", "FractionalMaxPool3d"]


class _FractionalMaxPoolNd(Cell):
    _dims = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None,
                 return_indices=False, _random_samples=None):
        super().__init__()
        if not isinstance(return_indices, bool):
            raise TypeError(f"For '{type(self).__name__}', 'return_indices' must be a bool, but "
                            f"got {type(return_indices).__name__}.")
        self.kernel_size = kernel_size
        self.output_size = output_size
        self.output_ratio = output_ratio
        self.return_indices = return_indices
        self._random_samples = _random_samples

    def construct(self, input_x):
        return _ff.fractional_max_pool_nd(type(self).__name__, input_x, self._dims,
                                          self.kernel_size, self.output_size,
                                          self.output_ratio, self.return_indices,
                                          self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Fractional max pooling of [N, C, H, W] or [C, H, W] input: windows of kernel_size at
    pseudo-random steps giving output_size (or output_ratio of the input); returns the values,
    and their flat indices h * W + w with return_indices. _random_samples [N, C, 2] (w, h)
    in [0, 1) fixes the steps (else drawn per call)."""
    _dims = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Fractional max pooling of [N, C, D, H, W] or [C, D, H, W] input (FractionalMaxPool2d's
    arguments; _random_samples [N, C, 3] (d, h, w); indices d * H * W + h * W + w)."""
    _dims = 3
