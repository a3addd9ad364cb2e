"""Resampling layers (MindSpore 2.x ``mindspore.nn``): Upsample (``ops.interpolate``),
PixelShuffle and PixelUnshuffle (``ops.pixel_shuffle``/``pixel_unshuffle``); the functions in
``ops/function/resample_func.py`` hold the math and the checks."""
from mycel.nn.cell import Cell
from mycel.nn.layer import _check
from mycel.ops.function import resample_func as _R


class Upsample(Cell):
    """Resizes [N, C, L] or [N, C, H, W] input to `size` or by `scale_factor`; mode
    'nearest' (default), 'nearest-exact', 'linear', 'bilinear' or 'area'; align_corners for
    the linear modes."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def construct(self, x):
        return _R.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                              self.recompute_scale_factor)

    def extend_repr(self):
        return f"size={self.size}, scale_factor={self.scale_factor}, mode={self.mode}"


class _Shuffle(Cell):
    _up = True

    def __init__(self, factor, name):
        super().__init__()
        self.factor = _check.positive_int(factor, name, type(self).__name__)

    def construct(self, x):
        if self._up:
            return _R.pixel_shuffle(x, self.factor)
        return _R.pixel_unshuffle(x, self.factor)


class PixelShuffle(_Shuffle):
    """[*, C * r * r, H, W] -> [*, C, H * r, W * r] (r = upscale_factor)."""

    def __init__(self, upscale_factor):
        super().__init__(upscale_factor, "upscale_factor")
        self.upscale_factor = self.factor


class PixelUnshuffle(_Shuffle):
    """[*, C, H * r, W * r] -> [*, C * r * r, H, W] (r = downscale_factor)."""

    _up = False

    def __init__(self, downscale_factor):
        super().__init__(downscale_factor, "downscale_factor")
        self.downscale_factor = self.factor


__all__ = ["Upsample", "PixelShuffle", "PixelUnshuffle"]
