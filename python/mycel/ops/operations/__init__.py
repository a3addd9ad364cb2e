"""Primitive classes, MindSpore's ``mindspore.ops.operations`` (imported as ``P``).

One class per op of the C++ op table, generated from it: ``P.Mul()(x, y)``,
``P.ReduceSum(keep_dims=True)(x, axis)``, ``P.Conv2D(6, 5)(x, w)``. The few whose MindSpore call
signature is not "tensors, then call-time attributes" are written out below.
"""
from mycel import _mycel as _C
from mycel.ops.primitive import Primitive, make_primitive_class, _SCHEMA

__all__ = ["Primitive"]

for _name in _SCHEMA:
    globals()[_name] = make_primitive_class(_name)
    __all__.append(_name)


def _scalar(v):
    """A Python number from a number or a one-element tensor."""
    if isinstance(v, _C.Tensor):
        return v.item()
    return v


class GatherD(Primitive):
    """GatherD()(x, dim, index): out[i][j] = x[index[i][j]][j] for dim 0 (and so on)."""
    _op = "GatherD"

    def __call__(self, x, dim, index):
        return self._handle(x, index, dim)


class Fill(Primitive):
    """Fill()(dtype, shape, value): a new tensor of `shape` filled with `value`."""
    _op = "Fill"

    def __call__(self, type, shape, value):  # noqa: A002 (MindSpore's argument name)
        return self._handle(type, tuple(shape), float(_scalar(value)))


class OneHot(Primitive):
    """OneHot(axis=-1)(indices, depth, on_value, off_value); on/off values may be tensors,
    whose dtype the output takes."""
    _op = "OneHot"

    def __init__(self, axis=-1):
        super().__init__(axis=axis)
        self._axis = axis

    def __call__(self, indices, depth, on_value=1.0, off_value=0.0):
        dtype = on_value.dtype if isinstance(on_value, _C.Tensor) else _C.float32
        h = _C.OpHandle("OneHot", {"axis": self._axis, "dtype": dtype})
        return h(indices, int(depth), float(_scalar(on_value)), float(_scalar(off_value)))


class Range(Primitive):
    """Range()(start, limit, delta): [start, limit) by delta; int64 when all are ints."""
    _op = "Range"

    def __call__(self, start, limit, delta=1):
        vals = [_scalar(v) for v in (start, limit, delta)]
        is_int = all(isinstance(v, int) and not isinstance(v, bool) for v in vals)
        h = _C.OpHandle("Range", {"dtype": _C.int64 if is_int else _C.float32})
        return h(*[float(v) for v in vals])


class Argmax(Primitive):
    """Argmax(axis=-1, output_type=mycel.int32)(x)."""
    _op = "Argmax"


class Argmin(Primitive):
    """Argmin(axis=-1, output_type=mycel.int32)(x)."""
    _op = "Argmin"


from mycel.ops.operations.composed_ops import _Composed  # noqa: E402
from mycel.ops.function import unique_func as _unique_func  # noqa: E402
from mycel.ops.function.random_func import _poisson  # noqa: E402


class RandomPoisson(Primitive):
    """RandomPoisson(seed=0, seed2=0, dtype=mycel.int64)(shape, rate): Poisson counts of shape
    shape + rate.shape; `shape` is a 1-D int32/int64 tensor (ops.random_poisson). Seeds 0, 0
    draw from the global generator; other seeds give the instance its own stream."""
    _op = "RandomPoisson"

    def __call__(self, shape, rate):
        return _poisson(shape, rate, self._handle, "RandomPoisson")


class UniqueWithPad(_Composed):
    """UniqueWithPad()(x, pad_num): (y, idx), the unique values of x in first-occurrence
    order padded with pad_num to x's length, and x's indices into y (ops.unique_with_pad)."""

    def __init__(self):
        super().__init__()

    def __call__(self, x, pad_num):
        return _unique_func.unique_with_pad(x, pad_num)


__all__ += ["UniqueWithPad"]


class Unique(Primitive):
    """Unique()(x): (y, idx), the distinct values of x (flattened) in order of first
    occurrence and each element's position in them (idx has x's shape; int64 for an int64 x,
    else int32). The op's third output, the counts, is ops.unique_ext's (return_counts)."""
    _op = "Unique"

    def __call__(self, x):
        y, idx, _ = self._handle(x)
        return y, idx


# The collectives: MindSpore's signatures (their group's size read when made).
from mycel.ops.operations.comm_ops import (ReduceOp, AllReduce, AllGather,  # noqa: E402
                                           ReduceScatter, AlltoAll, Broadcast, Barrier, Send,
                                           Receive)
__all__ += ["ReduceOp"]

# MindSpore spellings that differ from the table name.
Gelu = globals()["GeLU"]
__all__ += ["Gelu"]

# Primitives composed from the table's (ops/operations/composed_ops.py).
from mycel.ops.operations.composed_ops import (Tril, Triu, ReverseV2, Roll,  # noqa: E402
                                               Einsum, Invert, Inv, Softsign, MatrixBandPart,
                                               Padding, ArgMaxWithValue, ArgMinWithValue,
                                               L2Loss, LinSpace, Unstack, MaskedFill, Mish,
                                               KLDivLoss, BinaryCrossEntropy, DepthToSpace,
                                               SpaceToDepth, Elu, CeLU, SeLU, HSigmoid, HSwish,
                                               HShrink, SoftShrink, Xdivy, RealDiv,
                                               ApproximateEqual, Rank, Size)
__all__ += ["Tril", "Triu", "ReverseV2", "Roll", "Einsum", "Invert", "Inv", "Softsign",
            "MatrixBandPart", "Padding", "ArgMaxWithValue", "ArgMinWithValue", "L2Loss",
            "LinSpace", "Unstack", "MaskedFill", "Mish", "KLDivLoss", "BinaryCrossEntropy",
            "DepthToSpace", "SpaceToDepth", "Elu", "CeLU", "SeLU", "HSigmoid", "HSwish",
            "HShrink", "SoftShrink", "Xdivy", "RealDiv", "ApproximateEqual", "Rank", "Size"]
from mycel.ops.operations.composed_ops import (ScatterNdAdd, ScatterNdSub,  # noqa: E402
                                               ScatterNdMul, ScatterNdDiv, ScatterNdMax,
                                               ScatterNdMin, ScatterNdUpdate)
__all__ += ["ScatterNdAdd", "ScatterNdSub", "ScatterNdMul", "ScatterNdDiv", "ScatterNdMax",
            "ScatterNdMin", "ScatterNdUpdate"]
from mycel.ops.operations.composed_ops import (ResizeNearestNeighbor,  # noqa: E402
                                               TruncateMod, EmbeddingLookup, DType, Ger,
                                               Renorm, LRN, ApplyAdamWithAmsgrad)
__all__ += ["ResizeNearestNeighbor", "TruncateMod", "EmbeddingLookup", "DType", "Ger",
            "Renorm", "LRN", "ApplyAdamWithAmsgrad"]
from mycel.ops.operations.composed_ops import (UnsortedSegmentMax,  # noqa: E402
                                               UnsortedSegmentMin, UnsortedSegmentProd)
__all__ += ["UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd"]
from mycel.ops.operations.composed_ops import (Identity, Slice,  # noqa: E402
                                               SquaredDifference, IsFinite, IsNan, IsInf,
                                               LogicalXor, Atan2, Xlogy, Trunc, Lerp,
                                               Heaviside, AssignSub, MatrixInverse, Eig)
__all__ += ["Identity", "Slice", "SquaredDifference", "IsFinite", "IsNan", "IsInf",
            "LogicalXor", "Atan2", "Xlogy", "Trunc", "Lerp", "Heaviside", "AssignSub",
            "MatrixInverse"]  # Eig: the table's name, already listed
from mycel.ops.operations.host_ops import (Shape, SameTypeShape, Print,  # noqa: E402
                                           SparseGatherV2)
__all__ += ["Shape", "SameTypeShape", "Print", "SparseGatherV2"]


class TensorAdd(Add):  # noqa: F405 (Add: an op-table primitive defined above)
    """TensorAdd()(x, y): x + y (MindSpore's deprecated name of Add)."""


__all__ += ["TensorAdd"]
from mycel.ops.operations.debug_ops import (ScalarSummary, TensorSummary,  # noqa: E402
                                            ImageSummary, HistogramSummary)
__all__ += ["ScalarSummary", "TensorSummary", "ImageSummary", "HistogramSummary"]

# Median, Mvlgamma, Assert, ParameterizedTruncatedNormal, CropAndResize (compat_misc_ops.py).
# (mycel.ops imports the family modules random_ops and sparse_ops, so that programs reach them
# as P.random_ops / P.sparse_ops.)
from mycel.ops.operations.compat_misc_ops import (Median, Mvlgamma, Assert,  # noqa: E402
                                                  ParameterizedTruncatedNormal, CropAndResize)
__all__ += ["Median", "Mvlgamma", "Assert", "ParameterizedTruncatedNormal", "CropAndResize"]


def __getattr__(name):
    # P.HookBackward / P.InsertGradientOf (ops/hooks.py) need mycel.nn: loaded on first use.
    if name in ("HookBackward", "InsertGradientOf"):
        from mycel.ops import hooks
        return getattr(hooks, name)
    raise AttributeError(f"module 'mycel.ops.operations' has no attribute '{name}'")
# Primitives of MindSpore's CPU op tests, composed from the table's (compat_cpu_ops.py).
from mycel.ops.operations.compat_cpu_ops import PSROIPooling  # noqa: E402
__all__ += ["PSROIPooling"]
from mycel.ops.operations.compat_optim_ops import (FusedSparseAdam,  # noqa: E402
                                                   FusedSparseLazyAdam, FusedSparseFtrl,
                                                   SparseApplyFtrl, FusedSparseProximalAdagrad,
                                                   SparseApplyAdagrad, SparseApplyAdagradV2,
                                                   SparseApplyRMSProp)
__all__ += ["FusedSparseAdam", "FusedSparseLazyAdam", "FusedSparseFtrl", "SparseApplyFtrl",
            "FusedSparseProximalAdagrad", "SparseApplyAdagrad", "SparseApplyAdagradV2",
            "SparseApplyRMSProp"]
from mycel.ops.operations.compat_cpu_ops import NLLLoss  # noqa: E402
from mycel.ops.operations.compat_optim_ops import ApplyPowerSign  # noqa: E402
__all__ += ["NLLLoss", "ApplyPowerSign"]
from mycel.ops.operations.compat_cpu_ops import MatrixDiagPartV3  # noqa: E402
__all__ += ["MatrixDiagPartV3"]
from mycel.ops.operations.compat_cpu_ops import ResizeLinear1D  # noqa: E402
__all__ += ["ResizeLinear1D"]
from mycel.ops.operations.compat_cpu_ops import MaxPoolWithArgmax  # noqa: E402
__all__ += ["MaxPoolWithArgmax"]
from mycel.ops.operations.compat_cpu_ops import AvgPool3D  # noqa: E402
__all__ += ["AvgPool3D"]
from mycel.ops.operations.compat_cpu_ops import RandomCategorical  # noqa: E402
__all__ += ["RandomCategorical"]
from mycel.ops.operations.compat_cpu_ops import CTCLossV2  # noqa: E402
__all__ += ["CTCLossV2"]
from mycel.ops.operations.compat_cpu_ops import Conv3DTranspose  # noqa: E402
__all__ += ["Conv3DTranspose"]
from mycel.ops.operations.compat_cpu_ops import MaxPoolWithArgmaxV2  # noqa: E402
__all__ += ["MaxPoolWithArgmaxV2"]
from mycel.ops.operations.compat_optim_ops import (ApplyGradientDescent,  # noqa: E402
                                                   ApplyProximalGradientDescent,
                                                   ApplyProximalAdagrad, ApplyAdagradV2)
__all__ += ["ApplyGradientDescent", "ApplyProximalGradientDescent", "ApplyProximalAdagrad",
            "ApplyAdagradV2"]
from mycel.ops.operations.compat_cpu_ops import UniformCandidateSampler  # noqa: E402
__all__ += ["UniformCandidateSampler"]
from mycel.ops.operations.compat_cpu_ops import UniformInt  # noqa: E402
from mycel.ops.operations.compat_optim_ops import ApplyAdagradDA  # noqa: E402
__all__ += ["UniformInt", "ApplyAdagradDA"]
# MindSpore's family-module classes are ops.operations names too (random_ops.Uniform,
# nn_ops.FractionalMaxPool / FractionalAvgPool / DeformableOffsets, array_ops.MatrixDiagV3).
from mycel.ops.operations.compat_cpu_ops import (Uniform, FractionalMaxPool,  # noqa: E402
                                                 MatrixDiagV3,
                                                 FractionalAvgPool, DeformableOffsets)
__all__ += ["Uniform", "FractionalMaxPool", "FractionalAvgPool", "DeformableOffsets",
            "MatrixDiagV3"]
from mycel.ops.operations.conv3d_ops import Conv3D  # noqa: E402
__all__ += ["Conv3D"]
# MindSpore 2.x's primitives composed from the functional forms, one module per domain
# (composed_<domain>_ops.py).
from mycel.ops.operations import (composed_array_ops, composed_math_ops,  # noqa: E402
                                  composed_linalg_ops, composed_nn_ops, composed_loss_ops,
                                  composed_random_ops, composed_image_ops, composed_optim_ops,
                                  composed_other_ops, composed_linalg_ext_ops)
from mycel.ops.operations.composed_array_ops import *  # noqa: F401,F403,E402
from mycel.ops.operations.composed_math_ops import *  # noqa: F401,F403,E402
from mycel.ops.operations.composed_linalg_ops import *  # noqa: F401,F403,E402
from mycel.ops.operations.composed_nn_ops import *  # noqa: F401,F403,E402
from mycel.ops.operations.composed_loss_ops import *  # noqa: F401,F403,E402
from mycel.ops.operations.composed_random_ops import *  # noqa: F401,F403,E402
from mycel.ops.operations.composed_image_ops import *  # noqa: F401,F403,E402
from mycel.ops.operations.composed_optim_ops import *  # noqa: F401,F403,E402
from mycel.ops.operations.composed_other_ops import *  # noqa: F401,F403,E402
from mycel.ops.operations.composed_linalg_ext_ops import *  # noqa: F401,F403,E402
for _m in (composed_array_ops, composed_math_ops, composed_linalg_ops, composed_nn_ops,
           composed_loss_ops, composed_random_ops, composed_image_ops, composed_optim_ops,
           composed_other_ops, composed_linalg_ext_ops):
    __all__ += _m.__all__
del _m

# ConjugateTranspose(x, perm): Transpose then Conj (complex; a real x is transposed).
from mycel.ops.operations.composed_ops import _Composed as _ComposedCT  # noqa: E402
from mycel.ops.function import complex_func as _cx, array_func as _af  # noqa: E402


class ConjugateTranspose(_ComposedCT):
    """ConjugateTranspose()(x, perm): conj(transpose(x, perm))."""

    def __call__(self, x, perm):
        return _cx.conj(_af.transpose(x, perm))


__all__ += ["ConjugateTranspose"]

# FFTWithSize (MindSpore's primitive over FFT/IFFT/RFFT/IRFFT), composed of the transforms
# of function/fft_func.py (the op table's FFTN).
from mycel.ops.function import fft_func as _fftf  # noqa: E402
from mycel.ops.primitive import constexpr as _constexpr_fft  # noqa: E402


class FFTWithSize(_ComposedCT):
    """FFTWithSize(signal_ndim, inverse, real, norm="backward", onesided=True,
    signal_sizes=())(x): the transform over the last signal_ndim (1, 2 or 3) dims: fftn /
    ifftn (real False), rfftn (real, not inverse; the full spectrum when not onesided) or
    irfftn (real and inverse; output lengths signal_sizes, default 2 * (m - 1) on the last
    dim; a full spectrum's real inverse when not onesided)."""

    def __init__(self, signal_ndim, inverse, real, norm="backward", onesided=True,
                 signal_sizes=()):
        super().__init__()
        if isinstance(signal_ndim, bool) or signal_ndim not in (1, 2, 3):
            raise ValueError(f"For 'FFTWithSize', signal_ndim must be 1, 2 or 3, but got "
                             f"{signal_ndim!r}.")
        self.signal_ndim, self.inverse, self.real = signal_ndim, bool(inverse), bool(real)
        self.norm, self.onesided = norm, bool(onesided)
        self.signal_sizes = tuple(int(s) for s in signal_sizes)
        if self.signal_sizes and len(self.signal_sizes) != signal_ndim:
            raise ValueError(f"For 'FFTWithSize', signal_sizes must have signal_ndim "
                             f"({signal_ndim}) entries, but got {self.signal_sizes}.")

    def __call__(self, x):
        dim = tuple(range(-self.signal_ndim, 0))
        if not self.real:
            f = _fftf.ifftn if self.inverse else _fftf.fftn
            return f(x, None, dim, self.norm)
        if not self.inverse:
            if self.onesided:
                return _fftf.rfftn(x, None, dim, self.norm)
            return _fftf.fftn(x, None, dim, self.norm)
        if not self.onesided:
            return _cx.real(_fftf.ifftn(x, None, dim, self.norm))
        s = self.signal_sizes if self.signal_sizes else None
        if s is None:
            _check_irfft_last_dim(x.shape)
        return _fftf.irfftn(x, s, dim, self.norm)


@_constexpr_fft
def _check_irfft_last_dim(shape):
    if len(shape) and shape[-1] == 1:
        raise ValueError(f"For 'FFTWithSize', the last dimension of the input cannot be 1 for "
                         f"a real inverse without signal_sizes (its output length would be "
                         f"2 * (1 - 1) = 0), but got input shape {tuple(shape)}.")


__all__ += ["FFTWithSize"]

# SparseToDense, SparseTensorDenseMatmul (sparse_ops.py; P.SparseToDense as in MindSpore)
from mycel.ops.operations.sparse_ops import (SparseToDense,  # noqa: E402,F401
                                             SparseTensorDenseMatmul)
from mycel.ops.operations import _csr_ops  # noqa: E402,F401  (P._csr_ops, MindSpore's path)
# LSTM (the CPU op's packed weight), DynamicRNN, DynamicGRUV2 (rnn_ops.py)
from mycel.ops.operations import rnn_ops as _rnn_ops  # noqa: E402
from mycel.ops.operations.rnn_ops import *  # noqa: F401,F403,E402
__all__ += _rnn_ops.__all__
# ListDiff (list_ops.py; MindSpore's array_ops holds it too)
from mycel.ops.operations.list_ops import ListDiff  # noqa: E402,F401
__all__ += ["ListDiff"]
# PadV3 (composed in _grad_ops.py beside PadV3Grad; MindSpore's nn_ops holds it too)
from mycel.ops.operations._grad_ops import PadV3  # noqa: E402,F401
__all__ += ["PadV3"]
# MindSpore's pooling / resizing / normalisation classes of its ops test table
# (pool_compat_ops.py; the gradients are _grad_ops names)
from mycel.ops.operations.pool_compat_ops import (MaxPoolV1, AvgPoolV1,  # noqa: E402,F401
                                                  AdaptiveMaxPool3D,
                                                  FractionalMaxPoolWithFixedKsize,
                                                  InstanceNormV2,
                                                  SparseSoftmaxCrossEntropyWithLogitsV2,
                                                  ResizeNearestNeighborV2)
__all__ += ["MaxPoolV1", "AvgPoolV1", "AdaptiveMaxPool3D", "FractionalMaxPoolWithFixedKsize",
            "InstanceNormV2", "SparseSoftmaxCrossEntropyWithLogitsV2", "ResizeNearestNeighborV2"]
# TensorFlow-style sparse updates of MindSpore's nn_ops (compat_optim_ops.py) and
# SparseTensorDenseAdd (sparse_compat_ops.py)
from mycel.ops.operations.compat_optim_ops import (SparseApplyMomentum,  # noqa: E402,F401
                                                   SparseApplyProximalGradientDescent,
                                                   SparseApplyAdagradDA,
                                                   SparseApplyCenteredRMSProp)
from mycel.ops.operations.sparse_compat_ops import SparseTensorDenseAdd  # noqa: E402,F401
__all__ += ["SparseApplyMomentum", "SparseApplyProximalGradientDescent", "SparseApplyAdagradDA",
            "SparseApplyCenteredRMSProp", "SparseTensorDenseAdd"]
from mycel.ops.operations import manually_defined  # noqa: E402,F401
