"""``mindspore.mint.fft``: PyTorch's ``torch.fft`` names over mycel's transforms
(ops/function/fft_func.py; the op table's FFTN)."""
from mycel.ops.function.fft_func import (fft, ifft, fft2, ifft2, fftn, ifftn,  # noqa: F401
                                         rfft, irfft, rfft2, irfft2, rfftn, irfftn, hfft, ihfft,
                                         hfft2, ihfft2, hfftn, ihfftn, fftshift, ifftshift,
                                         fftfreq, rfftfreq)

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
           "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftshift",
           "ifftshift", "fftfreq", "rfftfreq"]
