"""Primitive classes of MindSpore 2.x that are a shape query, a check or a renamed op, and so
need no kernel of their own: Shape, SameTypeShape, Print, SparseGatherV2. Like composed_ops,
they are Primitives with their own __call__, which GRAPH mode parses as a function."""
from mycel import _mycel as _C
from mycel.common import print_file as _print_file
from mycel.context import get_context
from mycel.ops.operations.composed_ops import _Composed
from mycel.ops.primitive import constexpr
from mycel.ops.function import array_func as _a


class Shape(_Composed):
    """Shape()(input_x): the tensor's shape as a tuple of ints (ops.shape: in GRAPH mode a
    dimension unknown at compile time is read at run time)."""

    def __call__(self, input_x):
        return _a.shape(input_x)


class SameTypeShape(_Composed):
    """SameTypeShape()(input_x, input_y): input_x when both tensors have the same dtype and
    shape; a TypeError (dtype) or ValueError (shape) naming both otherwise."""

    def __call__(self, input_x, input_y):
        if not isinstance(input_x, _C.Tensor) or not isinstance(input_y, _C.Tensor):
            raise TypeError(f"For 'SameTypeShape', both inputs must be Tensors, but got "
                            f"{type(input_x).__name__} and {type(input_y).__name__}.")
        if input_x.dtype != input_y.dtype:
            raise TypeError(f"For 'SameTypeShape', the dtypes differ: {input_x.dtype} and "
                            f"{input_y.dtype}.")
        if input_x.shape != input_y.shape:
            raise ValueError(f"For 'SameTypeShape', the shapes differ: {input_x.shape} and "
                             f"{input_y.shape}.")
        return input_x


@constexpr
def _print_to_file():
    return bool(get_context("print_file_path"))


class Print(_Composed):
    """Print()(*inputs): prints the inputs (tensors and strings) when the step runs, in
    program order in GRAPH mode too (Python's print, which graph mode keeps as an effect).
    With set_context(print_file_path=...) the values are appended to that file instead
    (common/print_file.py; mycel.parse_print reads them back); GRAPH mode decides between
    the screen and the file when it compiles."""

    def __call__(self, *inputs):
        if _print_to_file():
            _print_file.print_writer(*inputs)
        else:
            print(*inputs)


class SparseGatherV2(_Composed):
    """SparseGatherV2()(input_params, input_indices, axis): the slices of input_params at
    input_indices along axis (Gather; MindSpore's sparse-gradient variant of it, whose
    gradient mycel gives dense)."""

    def __call__(self, input_params, input_indices, axis):
        return _a.gather(input_params, input_indices, axis)
