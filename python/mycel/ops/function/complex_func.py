"""Complex numbers (MindSpore's ``ops.real``, ``ops.imag``, ``ops.conj``, ``ops.angle``,
``ops.complex``, ``ops.polar``, ``ops.view_as_real``, ``ops.is_complex``, ``ops.adjoint``).

The ops are the op table's Real, Imag, Conj, Angle, ComplexAbs and Complex (C++ kernels for
complex64/complex128, gradients in PyTorch's convention: the cotangent of z = x + iy is
dL/dx + i dL/dy). On a real tensor real() and conj() give it back, imag() zeros, angle() 0 or
pi.
"""
from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor
from mycel.ops.function import array_func as _a, math_func as _m
from mycel.ops.primitive import constexpr

_COMPLEX = (_C.complex64, _C.complex128)


def real(input):  # noqa: A002
    """The real part: float32 for complex64, float64 for complex128; a real tensor itself."""
    return prim("Real")(as_tensor(input))


def imag(input):  # noqa: A002
    """The imaginary part (zeros for a real tensor)."""
    return prim("Imag")(as_tensor(input))


def conj(input):  # noqa: A002
    """The complex conjugate (a real tensor itself)."""
    return prim("Conj")(as_tensor(input))


def angle(input):  # noqa: A002
    """The argument atan2(imag, real), in the part dtype."""
    return prim("Angle")(as_tensor(input))


def complex(real, imag):  # noqa: A001 (MindSpore's name)
    """real + i imag from float32 (complex64 out) or float64 (complex128 out) tensors, which
    broadcast."""
    return prim("Complex")(as_tensor(real), as_tensor(imag))


def polar(abs, angle):  # noqa: A002 (MindSpore's argument names)
    """abs * (cos(angle) + i sin(angle))."""
    abs, angle = as_tensor(abs), as_tensor(angle)  # noqa: A001
    return complex(abs * _m.cos(angle), abs * _m.sin(angle))


def view_as_real(input):  # noqa: A002
    """A complex tensor [..] as its parts [.., 2] (real, imag) in the part dtype (a copy, not a
    view of the same memory)."""
    x = as_tensor(input)
    _check_complex(x.dtype, "view_as_real")
    return _a.stack((real(x), imag(x)), -1)


def view_as_complex(input):  # noqa: A002
    """The inverse of view_as_real: [.., 2] float32/float64 -> complex64/complex128 [..]."""
    x = as_tensor(input)
    _check_parts(x.shape, "view_as_complex")
    return complex(x[..., 0], x[..., 1])


@constexpr
def _check_complex(dtype, op):
    if dtype not in _COMPLEX:
        raise TypeError(f"For '{op}', the input must be a complex64 or complex128 tensor, but "
                        f"got {dtype}.")


@constexpr
def _check_parts(shape, op):
    if len(shape) == 0 or shape[-1] != 2:
        raise ValueError(f"For '{op}', the last dimension must be 2, but got shape "
                         f"{tuple(shape)}.")


def is_complex(input):  # noqa: A002
    """Whether input is a complex64 or complex128 tensor."""
    return isinstance(input, _C.Tensor) and input.dtype in _COMPLEX


def adjoint(x):
    """The conjugate transpose of the last two axes."""
    x = as_tensor(x)
    return conj(_a.swapaxes(x, -1, -2))


def conj_physical(input):  # noqa: A002
    """conj (mycel tensors always hold their values; there is no lazy conjugate bit)."""
    return conj(input)


def resolve_conj(input):  # noqa: A002
    """input itself: no lazy conjugate bit to resolve."""
    return as_tensor(input)


def isreal(input):  # noqa: A002
    """Elementwise: the imaginary part is 0 (all True for a real tensor)."""
    x = as_tensor(input)
    return imag(x) == 0


def sgn(input):  # noqa: A002
    """input / |input| for complex (0 at 0), the sign for real tensors (the Sign op)."""
    return prim("Sign")(as_tensor(input))
