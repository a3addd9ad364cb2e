"""Selections whose output size depends on the values: unique, masked_select, nonzero,
argwhere (the op table's DYN_OUT entries Unique, MaskedSelect, NonZero: PYNATIVE runs them
eagerly; GRAPH mode compiles their outputs with a dynamic dimension that the kernel decides
when it runs, and the ops after them run on the run-time shape), and masked_scatter, which
fills back what masked_select takes (MaskedSelect's gradient)."""
from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor
from mycel.ops.primitive import constexpr


def unique(input):  # noqa: A002 (MindSpore's argument name)
    """(output, idx): the distinct values of input (flattened) in order of first occurrence,
    and the position in output of each element of input (idx has input's shape; int64 for
    an int64 input, else int32), as MindSpore's ops.unique."""
    y, idx, _ = prim("Unique")(as_tensor(input))
    return y, idx


@constexpr
def _check_unique_dim(dim):
    if dim is not None:
        raise ValueError("For 'unique', unique slices along a dimension ('dim') are not "
                         "supported; leave dim None to take unique elements.")


def unique_ext(input, sorted=True, return_inverse=False, return_counts=False,  # noqa: A002
               dim=None):
    """The distinct values of input (flattened): ascending when sorted (NaNs last), else in
    order of first occurrence; with return_inverse, each element's position in them (input's
    shape, int64), with return_counts, how often each occurs (int64). Returns the values alone
    or a tuple of what was asked (mint.unique / Tensor.unique)."""
    _check_unique_dim(dim)
    y, idx, counts = prim("Unique", sorted=sorted)(as_tensor(input))
    if not return_inverse and not return_counts:
        return y
    i64 = _C.int64
    if return_inverse and return_counts:
        return y, prim("Cast", dtype=i64)(idx), prim("Cast", dtype=i64)(counts)
    if return_inverse:
        return y, prim("Cast", dtype=i64)(idx)
    return y, prim("Cast", dtype=i64)(counts)


def masked_select(input, mask):  # noqa: A002
    """The elements of input where mask (bool) is true, input and mask broadcast together,
    as a 1-D tensor in row-major order."""
    return prim("MaskedSelect")(as_tensor(input), as_tensor(mask))


def masked_scatter(input, mask, source):  # noqa: A002
    """input with the positions where mask (bool, broadcast to input's shape) is true filled,
    in row-major order, from source's first elements (a ValueError when it has fewer)."""
    return prim("MaskedScatter")(as_tensor(input), as_tensor(mask), as_tensor(source))


@constexpr
def _rank(shape):
    return len(shape)


def nonzero(input, *, as_tuple=False):  # noqa: A002
    """The indices of input's nonzero (true) elements in row-major order: an int64 tensor
    [N, input.ndim]; with as_tuple, a tuple of input.ndim 1-D tensors, one per dimension (a
    0-d input counts as 1-D there)."""
    x = as_tensor(input)
    if not as_tuple:
        return prim("NonZero")(x)
    n = _rank(x.shape)
    if n == 0:
        return (prim("Reshape")(prim("NonZero")(prim("Reshape")(x, (1,))), (-1,)),)
    parts = prim("Split", axis=1, output_num=n)(prim("NonZero")(x))
    out = ()
    for p in parts:
        out = out + (prim("Squeeze", axis=(1,))(p),)
    return out


def argwhere(input):  # noqa: A002
    """The indices of input's nonzero elements, [N, input.ndim] int64 (ops.argwhere)."""
    return prim("NonZero")(as_tensor(input))


__all__ = ["unique", "masked_select", "masked_scatter", "nonzero", "argwhere"]
