"""mindspore.numpy.fft: numpy.fft's names and arguments (a, n / s, axis / axes, norm) over
mycel.ops' FFTs (whose arguments are input, n / s, dim, norm): the complex transforms fft,
ifft, fft2, ifft2, fftn, ifftn, the real ones rfft, irfft, rfft2, irfft2, rfftn, irfftn,
hfft / ihfft and fftshift / ifftshift."""
from mycel import ops as _ops


def _one(name, doc):
    op = getattr(_ops, name)

    def f(a, n=None, axis=-1, norm=None):
        return op(a, n, axis, norm)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc + " (mycel.ops." + name + " with axis as dim)."
    return f


def _many(name, default_axes, doc):
    op = getattr(_ops, name)

    def f(a, s=None, axes=default_axes, norm=None):
        return op(a, s, axes, norm)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc + " (mycel.ops." + name + " with axes as dim)."
    return f


fft = _one("fft", "The 1-D discrete Fourier transform along axis")
ifft = _one("ifft", "The inverse of fft")
rfft = _one("rfft", "The 1-D transform of real input (the non-negative frequencies)")
irfft = _one("irfft", "The inverse of rfft (n real outputs, 2 (m - 1) by default)")
hfft = _one("hfft", "The transform of a Hermitian-symmetric signal (real output)")
ihfft = _one("ihfft", "The inverse of hfft")
fft2 = _many("fft2", (-2, -1), "The 2-D transform over axes")
ifft2 = _many("ifft2", (-2, -1), "The inverse of fft2")
rfft2 = _many("rfft2", (-2, -1), "The 2-D transform of real input")
irfft2 = _many("irfft2", (-2, -1), "The inverse of rfft2")
fftn = _many("fftn", None, "The N-D transform over axes (all by default)")
ifftn = _many("ifftn", None, "The inverse of fftn")
rfftn = _many("rfftn", None, "The N-D transform of real input")
irfftn = _many("irfftn", None, "The inverse of rfftn")


def fftshift(x, axes=None):
    """The zero frequency moved to the centre along axes (all by default)."""
    return _ops.fftshift(x, axes)


def ifftshift(x, axes=None):
    """The inverse of fftshift."""
    return _ops.ifftshift(x, axes)
