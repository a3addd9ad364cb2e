"""MindSpore's ``mindspore.ops.operations.linalg_ops``: the linear-algebra primitives programs
import from there (``from mindspore.ops.operations.linalg_ops import Geqrf``). The classes
are those of mycel.ops.operations; this module lists the ones mycel has."""
from mycel.ops import operations as _P

__all__ = ["Geqrf", "Svd", "Eigh"]
globals().update((_n, getattr(_P, _n)) for _n in __all__)
__all__ += ["Qr", "MatrixTriangularSolve"]
globals().update((_n, getattr(_P, _n)) for _n in ["Qr", "MatrixTriangularSolve"])
