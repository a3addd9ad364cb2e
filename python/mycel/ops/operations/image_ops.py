"""MindSpore's ``mindspore.ops.operations.image_ops``: the image primitives programs import from
there (``from mindspore.ops.operations.image_ops import ResizeBicubic``). The classes are those
of mycel.ops.operations; this module lists the ones MindSpore defines in image_ops and mycel
has."""
from mycel.ops import operations as _P

__all__ = ["ResizeBicubic", "CropAndResize", "ResizeBilinearV2", "RGBToHSV", "AdjustHue",
           "AdjustSaturation", "AdjustContrastv2"]
globals().update((_n, getattr(_P, _n)) for _n in __all__)
# ResizeArea and the CropAndResize gradients, composed (image_compat_ops.py)
from mycel.ops.operations.image_compat_ops import (ResizeArea, ResizeV2,  # noqa: E402,F401
                                                   CropAndResizeGradImage,
                                                   CropAndResizeGradBoxes, ScaleAndTranslate)
__all__ += ["ResizeArea", "ResizeV2", "CropAndResizeGradImage", "CropAndResizeGradBoxes",
            "ScaleAndTranslate"]
# NonMaxSuppressionWithOverlaps, CombinedNonMaxSuppression: run on the host (image_host_ops.py)
from mycel.ops.operations.image_host_ops import (NonMaxSuppressionWithOverlaps,  # noqa: E402,F401
                                                 CombinedNonMaxSuppression, ExtractGlimpse)
__all__ += ["NonMaxSuppressionWithOverlaps", "CombinedNonMaxSuppression", "ExtractGlimpse"]
