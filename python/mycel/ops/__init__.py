"""mycel.ops: the functional API (ops.add, ops.matmul, ...), the primitive classes
(``ops.operations``, also re-exported here as ``ops.Mul`` and friends) and
``ops.functional``."""
from mycel.ops import operations
from mycel.ops.operations import *  # noqa: F401,F403  (ops.Mul, ops.ReduceSum, ...)
from mycel.ops.primitive import Primitive  # noqa: F401
