"""MindSpore's ``mindspore.ops.operations.spectral_ops``: the window primitives programs import
from there (``from mindspore.ops.operations.spectral_ops import BartlettWindow``). The classes
are those of mycel.ops.operations (composed_math_ops.py); this module lists the ones MindSpore
defines in spectral_ops and mycel has."""
from mycel.ops import operations as _P

__all__ = ["BartlettWindow", "BlackmanWindow"]
globals().update((_n, getattr(_P, _n)) for _n in __all__)
