"""MindSpore's ``mindspore.ops.operations.random_ops``: random primitives that programs import
from there (``from mindspore.ops.operations.random_ops import ...``). The classes are those of
mycel.ops.operations; this module lists the ones MindSpore defines in random_ops and mycel has."""
from mycel.ops import operations as _P

__all__ = ["StandardNormal", "UniformReal", "RandomPoisson"]

globals().update((_n, getattr(_P, _n)) for _n in __all__)
# ParameterizedTruncatedNormal (compat_misc_ops.py; also in ops.operations).
from mycel.ops.operations.compat_misc_ops import ParameterizedTruncatedNormal  # noqa: E402
__all__ += ["ParameterizedTruncatedNormal"]

# Uniform is MindSpore's random_ops class only (not in ops.operations).
from mycel.ops.operations.compat_cpu_ops import Uniform, RandomCategorical  # noqa: E402
__all__ += ["Uniform", "RandomCategorical"]
# MindSpore's random_ops classes that mycel composes (operations/composed_*_ops.py).
from mycel.ops import operations as _bo  # noqa: E402
_BREADTH = ["Multinomial", "Randperm", "Gamma", "RandomGamma", "StandardLaplace",
            "RandomShuffle"]
globals().update((_n, getattr(_bo, _n)) for _n in _BREADTH)
__all__ += _BREADTH
_BREADTH = ["MultinomialWithReplacement"]
globals().update((_n, getattr(_bo, _n)) for _n in _BREADTH)
__all__ += _BREADTH
# Classes of MindSpore's ops test table composed in mycel (composed_random_ops.py).
_BREADTH = ["LogNormalReverse"]
globals().update((_n, getattr(_bo, _n)) for _n in _BREADTH)
__all__ += _BREADTH
__all__ += ["TruncatedNormal", "NonDeterministicInts"]
globals().update((_n, getattr(_bo, _n)) for _n in ["TruncatedNormal", "NonDeterministicInts"])
