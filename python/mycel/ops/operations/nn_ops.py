"""MindSpore"s ``mindspore.ops.operations.nn_ops``: neural-network primitives that programs import
from there (``from mindspore.ops.operations.nn_ops import ...``). The classes are those of
mycel.ops.operations; this module lists the ones MindSpore defines in nn_ops and mycel has."""
from mycel.ops import operations as _P

__all__ = ["Adam", "AdamWeightDecay", "ApplyAdaMax", "ApplyAdadelta", "ApplyAdagrad",
           "ApplyCenteredRMSProp", "ApplyFtrl", "ApplyMomentum", "ApplyRMSProp", "AvgPool",
           "BatchNorm", "BiasAdd", "Conv2D", "Conv2DBackpropInput", "Dropout", "Flatten", "GeLU",
           "Gelu", "LayerNorm", "LogSoftmax", "MaxPool", "OneHot", "Pad", "ReLU", "ReLU6", "SGD",
           "Sigmoid", "Softmax", "SoftmaxCrossEntropyWithLogits", "Softplus", "Softsign",
           "SparseSoftmaxCrossEntropyWithLogits", "Tanh"]
__all__ += ["Mish", "KLDivLoss", "L2Loss", "Elu", "CeLU", "SeLU", "HSigmoid", "HSwish",
            "HShrink", "SoftShrink"]

globals().update((_n, getattr(_P, _n)) for _n in __all__)
__all__ += ["PSROIPooling", "FusedSparseAdam", "FusedSparseLazyAdam", "FusedSparseFtrl",
            "FusedSparseProximalAdagrad", "SparseApplyAdagrad", "SparseApplyAdagradV2",
            "SparseApplyRMSProp", "SparseApplyFtrl", "NLLLoss", "ApplyPowerSign",
            "MaxPoolWithArgmax", "AvgPool3D", "CTCLossV2"]
globals().update((_n, getattr(_P, _n)) for _n in __all__)
# FractionalMaxPool is MindSpore"s nn_ops class only (not in ops.operations).
from mycel.ops.operations.compat_cpu_ops import FractionalMaxPool  # noqa: E402
__all__ += ["FractionalMaxPool"]
from mycel.ops.operations.compat_cpu_ops import DeformableOffsets  # noqa: E402
__all__ += ["DeformableOffsets"]
from mycel.ops.operations.compat_cpu_ops import FractionalAvgPool  # noqa: E402
__all__ += ["FractionalAvgPool"]
# MindSpore"s nn_ops classes that mycel composes (operations/composed_*_ops.py).
from mycel.ops import operations as _bo  # noqa: E402
_BREADTH = ["FastGeLU", "PReLU", "GLU", "Dropout2D", "Dropout3D", "ChannelShuffle",
            "SmoothL1Loss", "SoftMarginLoss", "MultilabelMarginLoss", "MultiMarginLoss",
            "TripletMarginLoss", "BCEWithLogitsLoss", "SigmoidCrossEntropyWithLogits",
            "L2Normalize", "MirrorPad", "IOU", "BoundingBoxEncode", "BoundingBoxDecode",
            "InTopK", "DataFormatDimMap", "Conv2DTranspose", "Dense", "Pdist", "CheckValid"]
globals().update((_n, getattr(_bo, _n)) for _n in _BREADTH)
__all__ += _BREADTH
_BREADTH = ["GridSampler2D", "AdaptiveAvgPool2D", "AdaptiveAvgPool3D", "MaxPool3D",
            "MaxUnpool2D", "MaxUnpool3D"]
globals().update((_n, getattr(_bo, _n)) for _n in _BREADTH)
__all__ += _BREADTH
_BREADTH = ["ApplyAddSign", "ApplyAdamWithAmsgradV2", "SparseApplyProximalAdagrad",
            "NMSWithMask", "ROIAlign"]
globals().update((_n, getattr(_bo, _n)) for _n in _BREADTH)
__all__ += _BREADTH
_BREADTH = ["MaxPool3DWithArgmax", "UpsampleNearest3D", "UpsampleTrilinear3D"]
globals().update((_n, getattr(_bo, _n)) for _n in _BREADTH)
__all__ += _BREADTH
_BREADTH = ["CTCGreedyDecoder", "GridSampler3D", "SparseApplyFtrlV2",
            "ComputeAccidentalHits"]
globals().update((_n, getattr(_bo, _n)) for _n in _BREADTH)
__all__ += _BREADTH
# FractionalMaxPool3DWithFixedKsize, CTCLoss, LSTM, DynamicRNN, DynamicGRUV2
# (composed_nn_ops.py, composed_loss_ops.py, rnn_ops.py)
__all__ += ["FractionalMaxPool3DWithFixedKsize", "CTCLoss", "LSTM", "DynamicRNN", "DynamicGRUV2"]
globals().update((_n, getattr(_P, _n)) for _n in __all__)
__all__ += ["LARSUpdate"]
globals().update((_n, getattr(_P, _n)) for _n in ["LARSUpdate"])
# PadV3 (composed in _grad_ops.py beside PadV3Grad; ops/function/pad_v3_func.py)
from mycel.ops.operations._grad_ops import PadV3  # noqa: E402
__all__ += ["PadV3"]
# Classes of MindSpore's ops test table composed in mycel (composed_nn_ops.py).
__all__ += ["ReLUV3", "NthElement", "DataFormatVecPermute"]
globals().update((_n, getattr(_P, _n)) for _n in ["ReLUV3", "NthElement", "DataFormatVecPermute"])
__all__ += ["DepthwiseConv2dNative"]
globals().update((_n, getattr(_P, _n)) for _n in ["DepthwiseConv2dNative"])
# NuclearNorm (composed_linalg_ext_ops.py), which MindSpore defines in nn_ops
from mycel.ops.operations.composed_linalg_ext_ops import NuclearNorm  # noqa: E402
__all__ += ["NuclearNorm"]
# Pooling and normalisation classes of MindSpore's nn_ops composed in pool_compat_ops.py.
from mycel.ops.operations.pool_compat_ops import (MaxPoolV1, AvgPoolV1,  # noqa: E402
                                                  AdaptiveMaxPool3D,
                                                  FractionalMaxPoolWithFixedKsize,
                                                  InstanceNormV2,
                                                  SparseSoftmaxCrossEntropyWithLogitsV2)
__all__ += ["MaxPoolV1", "AvgPoolV1", "AdaptiveMaxPool3D", "FractionalMaxPoolWithFixedKsize",
            "InstanceNormV2", "SparseSoftmaxCrossEntropyWithLogitsV2"]
# TensorFlow-style sparse updates (compat_optim_ops.py)
__all__ += ["SparseApplyMomentum", "SparseApplyProximalGradientDescent", "SparseApplyAdagradDA",
            "SparseApplyCenteredRMSProp"]
globals().update((_n, getattr(_P, _n)) for _n in ["SparseApplyMomentum",
                                                   "SparseApplyProximalGradientDescent",
                                                   "SparseApplyAdagradDA",
                                                   "SparseApplyCenteredRMSProp"])
