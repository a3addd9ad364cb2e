"""MindSpore primitive classes that graph programs use for structure rather than numbers,
composed from mycel's functions: Shape (the static shape, as ops.shape) and TensorAdd
(MindSpore's old name of Add)."""
from mycel.ops.function import array_func as _a
from mycel.ops.operations.composed_ops import _Composed
from mycel.ops.operations.math_ops import Add

__all__ = ["Shape", "TensorAdd"]


class Shape(_Composed):
    """Shape()(input_x): the shape of input_x, a tuple of ints (ops.shape; known at compile
    time in graph mode, -1 for a dynamic dimension)."""

    def __call__(self, input_x):
        return _a.shape(input_x)


class TensorAdd(Add):
    """TensorAdd()(x, y): x + y (MindSpore's deprecated name of Add)."""
