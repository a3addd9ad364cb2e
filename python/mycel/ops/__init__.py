"""mycel.ops: the functional API (``ops.add``, ``ops.matmul``, ``ops.conv2d``, ...), the
primitive classes (``mycel.ops.operations``, also re-exported here as ``ops.Mul`` and
friends) and ``mycel.ops.functional`` (``F.tensor_add``, ...).

Every call runs eagerly: it goes from Python straight to the C++ kernel.
"""
from mycel.ops import operations  # noqa: F401
from mycel.ops.operations import *  # noqa: F401,F403  (ops.Mul, ops.ReduceSum, ...)
from mycel.ops.primitive import Primitive, constexpr  # noqa: F401
from mycel.ops.custom_prim import (PrimitiveWithInfer, PrimitiveWithCheck,  # noqa: F401
                                   prim_attr_register)
from mycel.ops.function import *  # noqa: F401,F403
from mycel.ops.function import math_func as _m, array_func as _a
from mycel.ops import functional  # noqa: F401
# ops.operations.random_ops / sparse_ops as attributes of ops.operations (P.random_ops), which
# cannot import them itself (random_ops imports it).
from mycel.ops.operations import random_ops as _random_ops  # noqa: F401
from mycel.ops.operations import sparse_ops as _sparse_ops  # noqa: F401
# ops.auto_generate (MindSpore's generated primitives) as an attribute of ops, as programs reach
# it (mindspore.ops.auto_generate.PReLUGrad()).
from mycel.ops import auto_generate  # noqa: F401,E402
from mycel.ops.operations.sparse_ops import SparseToDense, SparseTensorDenseMatmul  # noqa: F401
from mycel.ops.composite import (GradOperation, grad, value_and_grad,  # noqa: F401
                                 stop_gradient, depend, Depend, vjp, jvp, jacfwd, jacrev)
from mycel.ops._vmap import vmap  # noqa: F401
from mycel.ops.composite import get_grad  # noqa: F401

# Python builtins shadowed above stay reachable as ops.sum, ops.max, ... like MindSpore's.
sum, max, min, abs, pow, range = _m.sum, _m.max, _m.min, _m.abs, _m.pow, _a.range  # noqa: A001


def __getattr__(name):
    # The gradient hooks (ops/hooks.py) need mycel.nn, which imports this package: on first use.
    if name in ("HookBackward", "InsertGradientOf"):
        from mycel.ops import hooks
        return getattr(hooks, name)
    raise AttributeError(f"module 'mycel.ops' has no attribute '{name}'")
# MindSpore's math_func module holds `F` (ops.functional), which some programs import from
# there (`from mindspore.ops.function.math_func import F`).
from mycel.ops.function import math_func as _math_func  # noqa: E402
_math_func.F = functional
# ops.addn / all / any / dtype (function/graph_compat_func.py), as MindSpore's ops has them
from mycel.ops.function.graph_compat_func import addn, all, any, dtype  # noqa: E402,F401,A004
# MultitypeFuncGraph, HyperMap and Map (ops/_multitype.py; also in ops.composite)
from mycel.ops._multitype import MultitypeFuncGraph, HyperMap, Map  # noqa: E402,F401
# lgamma, digamma, i0 (function/special_func.py)
from mycel.ops.function.special_func import lgamma, digamma, i0  # noqa: E402,F401
# conv3d (function/conv3d_func.py; the Conv3D class comes with operations)
from mycel.ops.function.conv3d_func import conv3d  # noqa: E402,F401
# fractional_max_pool2d/3d with a fixed window (function/fractional_fixed_func.py)
from mycel.ops.function.fractional_fixed_func import (  # noqa: E402,F401
    fractional_max_pool2d, fractional_max_pool3d)
from mycel.ops.morph import Morph  # noqa: E402,F401  (ops/morph.py)
# The functional names that live beside their primitives (operations/composed_*_ops.py).
from mycel.ops.operations.composed_array_ops import (scalar_to_tensor,  # noqa: E402,F401
                                                  tuple_to_array, diagonal_scatter)
from mycel.ops.operations.composed_math_ops import eps  # noqa: E402,F401
from mycel.ops.operations.composed_random_ops import (random_categorical,  # noqa: E402,F401
                                                   uniform_candidate_sampler)
from mycel.ops._taylor import jet, derivative  # noqa: E402,F401
# complex numbers: real, imag, conj, angle, complex, polar, ... (function/complex_func.py)
from mycel.ops.function.complex_func import (real, imag, conj, angle, complex, polar,  # noqa: E402,F401,A004
                                             view_as_real, view_as_complex, is_complex, adjoint,
                                             conj_physical, resolve_conj, isreal, sgn)
# discrete Fourier transforms: fft, ifft, rfft, ..., fftshift, fftfreq (function/fft_func.py)
from mycel.ops.function.fft_func import (fft, ifft, fft2, ifft2, fftn, ifftn,  # noqa: E402,F401
                                         rfft, irfft, rfft2, irfft2, rfftn, irfftn, hfft, ihfft,
                                         hfft2, ihfft2, hfftn, ihfftn, fftshift, ifftshift,
                                         fftfreq, rfftfreq)
# ops.log_uniform_candidate_sampler lives beside its primitive (operations/composed_random_ops.py)
from mycel.ops.operations.composed_random_ops import (  # noqa: E402,F401
    log_uniform_candidate_sampler)
