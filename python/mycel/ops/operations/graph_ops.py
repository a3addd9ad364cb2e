"""MindSpore primitive classes that graph programs use for structure rather than numbers,
composed from mycel's functions: Shape (the static shape, as ops.shape). TensorAdd
(MindSpore's old name of Add) is defined next to Add, in ops/operations/__init__.py."""
from mycel.ops.function import array_func as _a
from mycel.ops.operations.composed_ops import _Composed

__all__ = ["Shape"]


class Shape(_Composed):
    """Shape()(input_x): the shape of input_x, a tuple of ints (ops.shape; known at compile
    time in graph mode, -1 for a dynamic dimension)."""

    def __call__(self, input_x):
        return _a.shape(input_x)

