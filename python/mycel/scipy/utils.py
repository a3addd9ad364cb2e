"""mindspore.scipy.utils' helpers that MindSpore's scipy code and tests use."""
from mycel import _mycel as _C
from mycel import ops as _ops

float_types = (_C.float32, _C.float64)


def _nd_transpose(a):
    """a with its last two axes swapped."""
    n = a.ndim
    if n < 2:
        raise ValueError(f"For '_nd_transpose', the input must be at least 2-D, but got shape "
                         f"{tuple(a.shape)}.")
    return _ops.transpose(a, tuple(range(n - 2)) + (n - 1, n - 2))
