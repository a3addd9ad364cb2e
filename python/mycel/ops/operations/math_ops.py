"""MindSpore"s ``mindspore.ops.operations.math_ops``: math primitives that programs import
from there (``from mindspore.ops.operations.math_ops import ...``). The classes are those of
mycel.ops.operations; this module lists the ones MindSpore defines in math_ops and mycel has."""
from mycel.ops import operations as _P

__all__ = ["Abs", "Add", "AssignAdd", "BatchMatMul", "Cos", "CumProd", "CumSum", "Div", "Einsum",
           "Equal", "Erf", "Exp", "FloorDiv", "FloorMod", "Greater", "GreaterEqual", "Inv",
           "Invert", "Less", "LessEqual", "Log", "Log1p", "LogicalAnd", "LogicalNot", "LogicalOr",
           "MatMul", "Maximum", "Minimum", "Mod", "Mul", "Neg", "NotEqual", "Pow", "Reciprocal",
           "ReduceMax", "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSum", "Roll", "Rsqrt",
           "Sign", "Sin", "Sqrt", "Square", "Sub"]
__all__ += ["Xdivy", "RealDiv", "ApproximateEqual"]
__all__ += ["ACos", "Asin", "Atan", "Acosh", "Asinh", "Atanh", "Sinh", "Cosh", "Tan", "Expm1", "Erfc",
            "Floor", "Ceil", "Round", "Rint"]

__all__ += ["BitwiseAnd", "BitwiseOr", "BitwiseXor"]
__all__ += ["Eig"]
globals().update((_n, getattr(_P, _n)) for _n in __all__)
# MindSpore"s math_ops classes that mycel composes (operations/composed_*_ops.py).
from mycel.ops import operations as _bo  # noqa: E402
_BREADTH = ["AddN", "AccumulateNV2", "Addcdiv", "Addcmul", "Trace", "Gcd", "Lcm", "Hypot",
            "Logit", "Sinc", "NextAfter", "DivNoNan", "MulNoNan", "TruncateDiv",
            "PopulationCount", "Erfinv", "Digamma", "Fmax", "SquareSumAll", "Cdist", "IsClose",
            "NanToNum", "ReduceAll", "ReduceAny", "LpNorm", "EqualCount", "MatrixSolve",
            "Cross", "Eps", "InplaceIndexAdd", "LogSpace",
            "SearchSorted", "BartlettWindow", "BlackmanWindow"]
globals().update((_n, getattr(_bo, _n)) for _n in _BREADTH)
__all__ += _BREADTH
_BREADTH = ["BesselJ0", "BesselJ1", "BesselY0", "BesselY1", "BesselI0", "BesselI0e",
            "BesselI1", "BesselI1e", "BesselK0", "BesselK0e", "BesselK1", "BesselK1e", "Zeta",
            "Polygamma", "Igamma", "Igammac"]
globals().update((_n, getattr(_bo, _n)) for _n in _BREADTH)
__all__ += _BREADTH
_BREADTH = ["LuUnpack", "Orgqr", "Ormqr"]
globals().update((_n, getattr(_bo, _n)) for _n in _BREADTH)
__all__ += _BREADTH
_BREADTH = ["FloatStatus"]
globals().update((_n, getattr(_bo, _n)) for _n in _BREADTH)
__all__ += _BREADTH
_BREADTH = ["Svd"]
globals().update((_n, getattr(_bo, _n)) for _n in _BREADTH)
__all__ += _BREADTH
# Polar and Cholesky (composed_math_ops.py, composed_linalg_ops.py)
_BREADTH = ["Polar", "Cholesky"]
globals().update((_n, getattr(_bo, _n)) for _n in _BREADTH)
__all__ += _BREADTH
# Classes MindSpore also defines in math_ops (its ops test table imports them from there).
_BREADTH = ["Bernoulli", "FFTWithSize", "ComplexAbs", "Imag", "Complex", "Angle", "Heaviside",
            "Median", "MatrixExp"]
globals().update((_n, getattr(_bo, _n)) for _n in _BREADTH)
__all__ += _BREADTH
# Classes of MindSpore's ops test table composed in mycel (composed_math_ops.py).
_BREADTH = ["AddV2", "Fmin", "Bucketize", "ReduceStd", "CumulativeLogsumexp", "MatrixPower",
            "CholeskySolve", "Quantile", "Histogram"]
globals().update((_n, getattr(_bo, _n)) for _n in _BREADTH)
__all__ += _BREADTH
__all__ += ["MatrixTriangularSolve"]
globals().update((_n, getattr(_P, _n)) for _n in ["MatrixTriangularSolve"])
__all__ += ["CompareAndBitpack", "TridiagonalMatMul", "Qr"]
globals().update((_n, getattr(_P, _n)) for _n in ["CompareAndBitpack", "TridiagonalMatMul", "Qr"])
# Cauchy (composed_random_ops.py), which MindSpore defines in math_ops
__all__ += ["Cauchy"]
globals().update((_n, getattr(_P, _n)) for _n in ["Cauchy"])
# The linear-algebra and special-function classes of MindSpore's ops test table
# (composed_linalg_ext_ops.py).
_BREADTH = ["SelfAdjointEig", "MatrixLogarithm", "MatrixSolveLs", "Betainc", "STFT",
            "TridiagonalSolve", "RaggedRange"]
globals().update((_n, getattr(_bo, _n)) for _n in _BREADTH)
__all__ += _BREADTH
