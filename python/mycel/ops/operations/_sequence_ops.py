"""MindSpore's primitives over tuples and lists (``mindspore.ops.operations._sequence_ops``),
composed from Python's sequence operations and mycel's ops. In graph code a tuple or list has
a length known at compile time, so these are the operations Python gives sequences, which the
compiler already runs (``seq * n``, ``seq.index(x)``, slicing); PYNATIVE mode runs the same
Python. They are Primitives with their own ``__call__`` (as ``composed_ops``), so both modes
give the same answers and gradients come from the ops they are built of.

Not here: the primitives whose point is a sequence of length known only at run time
(``TensorToTuple``, ``TensorToList``, ``TensorToScalar``, ``SequenceSliceSetItem`` with
run-time bounds): mycel's graph values have lengths known at compile time.
"""
from mycel.common.tensor import Tensor
from mycel.ops.function import array_func as _a
from mycel.ops.function.graph_compat_func import addn as _addn
from mycel.ops.operations.composed_ops import _Composed

__all__ = ["SequenceAdd", "SequenceAddN", "SequenceConcat", "SequenceCount", "SequenceIndex",
           "SequenceLen", "SequenceMax", "SequenceMin", "SequenceMul", "SequenceSlice",
           "SequenceStack", "InSequence", "TupleToTensor", "ListToTensor", "ScalarToTensor"]


def _check_seq(op, x, what="input"):
    if not isinstance(x, (tuple, list)):
        raise TypeError(f"For '{op}', the {what} must be a tuple or a list, but got "
                        f"{type(x).__name__}.")


class SequenceAdd(_Composed):
    """SequenceAdd()(x, y): the concatenation ``x + y`` of two tuples (or two lists)."""

    def __call__(self, input_1, input_2):
        _check_seq("SequenceAdd", input_1, "first input")
        _check_seq("SequenceAdd", input_2, "second input")
        return input_1 + input_2


class SequenceMul(_Composed):
    """SequenceMul()(seq, n): ``seq * n``, the items repeated n times (n an int)."""

    def __call__(self, input_1, input_2):
        _check_seq("SequenceMul", input_1, "first input")
        if isinstance(input_2, bool) or not isinstance(input_2, int):
            raise TypeError(f"For 'SequenceMul', the second input must be an int, but got "
                            f"{type(input_2).__name__}.")
        return input_1 * input_2


class SequenceAddN(_Composed):
    """SequenceAddN()(seq): the elementwise sum of the tensors of seq (ops.addn)."""

    def __call__(self, input_1):
        return _addn(input_1)


class SequenceCount(_Composed):
    """SequenceCount()(seq, target): how many items of seq equal target."""

    def __call__(self, sequence, target):
        _check_seq("SequenceCount", sequence)
        return sequence.count(target)


class SequenceIndex(_Composed):
    """SequenceIndex()(seq, target, start=0, end=len(seq)): the first position of target in
    ``seq[start:end]``, counted from the start of seq; a ValueError when it is absent."""

    def __call__(self, sequence, target, start=0, end=None):
        _check_seq("SequenceIndex", sequence)
        if end is None:
            end = len(sequence)
        return sequence.index(target, start, end)


class SequenceLen(_Composed):
    """SequenceLen()(seq): the number of items."""

    def __call__(self, sequence):
        _check_seq("SequenceLen", sequence)
        return len(sequence)


class SequenceMax(_Composed):
    """SequenceMax()(seq): the largest item of a sequence of numbers."""

    def __call__(self, sequence):
        _check_seq("SequenceMax", sequence)
        return max(sequence)


class SequenceMin(_Composed):
    """SequenceMin()(seq): the smallest item of a sequence of numbers."""

    def __call__(self, sequence):
        _check_seq("SequenceMin", sequence)
        return min(sequence)


class SequenceSlice(_Composed):
    """SequenceSlice()(seq, start, stop, step): ``seq[start:stop:step]``."""

    def __call__(self, seq, start, stop, step):
        _check_seq("SequenceSlice", seq)
        return seq[start:stop:step]


class InSequence(_Composed):
    """InSequence()(element, seq): ``element in seq``."""

    def __call__(self, element, sequence):
        _check_seq("InSequence", sequence, "second input")
        return element in sequence


class SequenceConcat(_Composed):
    """SequenceConcat(axis=0)(seq): the tensors of seq joined along axis (ops.concat)."""

    def __init__(self, axis=0):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, tuple_of_tensor):
        _check_seq("SequenceConcat", tuple_of_tensor)
        return _a.concat(tuple_of_tensor, self.axis)


class SequenceStack(_Composed):
    """SequenceStack(axis=0)(seq): the tensors of seq stacked on a new axis (ops.stack)."""

    def __init__(self, axis=0):
        super().__init__(axis=axis)
        self.axis = axis

    def __call__(self, tuple_of_tensor):
        _check_seq("SequenceStack", tuple_of_tensor)
        return _a.stack(tuple_of_tensor, self.axis)


def _to_tensor(x, dtype):
    if dtype is None:
        return Tensor(x)
    return Tensor(x, dtype)


class TupleToTensor(_Composed):
    """TupleToTensor()(input_tuple, dtype=None): a 1-D tensor of the tuple's numbers."""

    def __call__(self, input_tuple, dtype=None):
        if not isinstance(input_tuple, tuple):
            raise TypeError(f"For 'TupleToTensor', the input must be a tuple, but got "
                            f"{type(input_tuple).__name__}.")
        return _to_tensor(input_tuple, dtype)


class ListToTensor(_Composed):
    """ListToTensor()(input_list, dtype=None): a 1-D tensor of the list's numbers."""

    def __call__(self, input_list, dtype=None):
        if not isinstance(input_list, list):
            raise TypeError(f"For 'ListToTensor', the input must be a list, but got "
                            f"{type(input_list).__name__}.")
        return _to_tensor(input_list, dtype)


class ScalarToTensor(_Composed):
    """ScalarToTensor()(x, dtype=None): a 0-d tensor of the number x."""

    def __call__(self, input_x, dtype=None):
        if isinstance(input_x, (tuple, list)):
            raise TypeError("For 'ScalarToTensor', the input must be a number, but got "
                            f"{type(input_x).__name__}.")
        return _to_tensor(input_x, dtype)
