"""MindSpore's ``mindspore.ops.operations.array_ops``: shape and data-movement primitives that programs import
from there (``from mindspore.ops.operations.array_ops import ...``). The classes are those of
mycel.ops.operations; this module lists the ones MindSpore defines in array_ops and mycel has."""
from mycel.ops import operations as _P

__all__ = ["Argmax", "Argmin", "BroadcastTo", "Cast", "Concat", "ExpandDims", "Fill", "Gather",
           "GatherD", "OnesLike", "Range", "Reshape", "ReverseV2", "ScatterNd", "Select", "Sort",
           "Split", "Squeeze", "Stack", "StridedSlice", "TensorScatterUpdate", "Tile", "TopK",
           "Transpose", "Tril", "Triu", "UnsortedSegmentSum", "ZerosLike"]
__all__ += ["Unstack", "SpaceToDepth", "DepthToSpace", "Padding", "MatrixBandPart"]
__all__ += ["ScatterNdAdd", "ScatterNdSub", "ScatterNdMul", "ScatterNdDiv", "ScatterNdMax",
            "ScatterNdMin", "ScatterNdUpdate"]
__all__ += ["UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd"]
__all__ += ["Unique", "MaskedSelect", "MaskedScatter", "NonZero"]

globals().update((_n, getattr(_P, _n)) for _n in __all__)
__all__ += ["MatrixDiagPartV3"]
globals().update((_n, getattr(_P, _n)) for _n in __all__)
from mycel.ops.operations.compat_cpu_ops import MatrixDiagV3  # noqa: E402
__all__ += ["MatrixDiagV3"]
# MindSpore's array_ops classes that mycel composes (operations/composed_*_ops.py).
from mycel.ops import operations as _bo  # noqa: E402
_BREADTH = ["Ones", "Zeros", "Eye", "FillV2", "TrilIndices", "TriuIndices", "Meshgrid",
            "GatherNd", "TensorScatterAdd", "TensorScatterSub", "TensorScatterMul",
            "TensorScatterDiv", "TensorScatterMax", "TensorScatterMin", "ScatterAdd",
            "ScatterSub", "ScatterMul", "ScatterDiv", "ScatterMax", "ScatterMin",
            "ScatterUpdate", "ScatterNonAliasingAdd", "InplaceAdd", "InplaceSub",
            "InplaceUpdate", "InplaceUpdateV2", "ReverseSequence", "SpaceToBatchND",
            "BatchToSpaceND", "BatchToSpace", "ParallelConcat", "TensorShape", "ScalarToTensor",
            "TupleToArray", "InvertPermutation", "IndexFill", "IndexAdd", "Cummin", "Cummax",
            "FillDiagonal", "MatrixSetDiagV3", "Diag",
            "ScalarCast", "LeftShift", "RightShift"]
globals().update((_n, getattr(_bo, _n)) for _n in _BREADTH)
__all__ += _BREADTH
# ExtractVolumePatches (composed_array_ops.py), which MindSpore defines in array_ops
__all__ += ["ExtractVolumePatches"]
globals().update((_n, getattr(_bo, _n)) for _n in ["ExtractVolumePatches"])
# Classes MindSpore also defines in array_ops (its ops test table imports them from there).
_BREADTH = ["ConjugateTranspose", "Col2Im", "IndexPut", "Mvlgamma", "HammingWindow",
            "AffineGrid", "Bincount"]
globals().update((_n, getattr(_bo, _n)) for _n in _BREADTH)
__all__ += _BREADTH
# ListDiff (list_ops.py)
from mycel.ops.operations.list_ops import ListDiff  # noqa: E402
__all__ += ["ListDiff"]
# Classes of MindSpore's ops test table composed in mycel (composed_array_ops.py).
_BREADTH = ["SegmentSum", "SegmentMax", "SegmentMin", "SegmentProd", "SegmentMean", "IdentityN"]
globals().update((_n, getattr(_bo, _n)) for _n in _BREADTH)
__all__ += _BREADTH
_BREADTH = ["RangeV2", "Expand", "CheckNumerics", "UnravelIndex", "Im2Col", "SpaceToBatch"]
globals().update((_n, getattr(_bo, _n)) for _n in _BREADTH)
__all__ += _BREADTH
# ScatterAddWithAxis and ConcatOffsetV1 (composed_linalg_ext_ops.py)
from mycel.ops.operations.composed_linalg_ext_ops import (ScatterAddWithAxis,  # noqa: E402
                                                          ConcatOffsetV1)
__all__ += ["ScatterAddWithAxis", "ConcatOffsetV1"]
# ResizeNearestNeighborV2 (pool_compat_ops.py; MindSpore's array_ops holds it)
from mycel.ops.operations.pool_compat_ops import ResizeNearestNeighborV2  # noqa: E402
__all__ += ["ResizeNearestNeighborV2"]
