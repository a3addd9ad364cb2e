"""Scans and sorts along an axis (MindSpore 2.x names): cumulative sums and products, sorting,
argsort and top-k. Each is one primitive of the op table (CumSum, CumProd, Sort, TopK), so
both modes and gradients come from it."""
from mycel.ops.function._util import prim, as_tensor
from mycel.ops.primitive import constexpr


@constexpr
def _check_int(v, name, op):
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"For '{op}', the '{name}' must be an int, but got {v!r} of type "
                        f"{type(v).__name__}.")
    return v


def cumsum(x, axis, dtype=None):
    """Cumulative sum of x along axis: out[i] = x[0] + ... + x[i]. dtype (optional) casts x
    first. A bool input sums as int64."""
    x = as_tensor(x)
    if dtype is not None:
        x = prim("Cast")(x, dtype)
    return prim("CumSum")(x, _check_int(axis, "axis", "cumsum"))


def cumprod(input, dim, dtype=None):  # noqa: A002 (MindSpore's argument names)
    """Cumulative product of input along dim: out[i] = input[0] * ... * input[i]. dtype
    (optional) casts the input first. Its gradient is exact where the input has zeros."""
    x = as_tensor(input)
    if dtype is not None:
        x = prim("Cast")(x, dtype)
    return prim("CumProd")(x, _check_int(dim, "dim", "cumprod"))


def sort(input_x, axis=-1, descending=False):
    """(values, indices) of input_x sorted along axis; indices are int32. The sort is stable
    (equal values keep their order) and NaN sorts as the largest value (last ascending)."""
    return prim("Sort", axis=_check_int(axis, "axis", "sort"),
                descending=bool(descending))(as_tensor(input_x))


def argsort(input, axis=-1, descending=False):  # noqa: A002
    """The int32 indices that sort input along axis (stable; NaN largest)."""
    return sort(input, axis, descending)[1]


def topk(input, k, dim=None, largest=True, sorted=True):  # noqa: A002
    """(values, int32 indices) of the k largest (largest=False: smallest) elements along dim
    (None: the last). sorted: in order, largest first (smallest first when largest=False);
    otherwise in the order they appear in input. NaN counts as the largest value; equal
    values are taken by lower index first."""
    x = as_tensor(input)
    k = _check_int(k, "k", "topk")
    perm = _topk_perm(x.shape, dim, k, largest)
    if perm is not None:
        x = prim("Transpose")(x, perm)
    if largest:
        values, indices = prim("TopK", sorted=bool(sorted))(x, k)
    else:  # the first k of a stable ascending sort
        values, indices = prim("Sort", axis=-1)(x)
        if x.ndim > 0:
            values, indices = values[..., :k], indices[..., :k]
            if not sorted:  # back in input order, as TopK(sorted=False)
                indices, order = prim("Sort", axis=-1)(indices)
                values = prim("GatherD")(values, order, -1)
    if perm is not None:
        values, indices = prim("Transpose")(values, perm), prim("Transpose")(indices, perm)
    return values, indices


@constexpr
def _topk_perm(shape, dim, k, largest):
    # Checks dim (and k, where TopK does not) and gives the permutation that swaps dim with
    # the last axis, or None when dim is the last axis.
    nd = len(shape)
    d = -1 if dim is None else _check_int(dim, "dim", "topk")
    if nd > 0 and not -nd <= d < nd:
        raise ValueError(f"For 'topk', the 'dim' must be in range [{-nd}, {nd}), but got {d}.")
    if nd == 0 and k != 1:
        raise ValueError(f"For 'topk', a 0-d input has one element, so 'k' must be 1, but got "
                         f"{k}.")
    if not largest:
        n = shape[d] if nd > 0 else 1
        if not 0 <= k <= n:
            raise ValueError(f"For 'topk', the 'k' must be in range [0, {n}] (the size of dim "
                             f"{d} of the input of shape {tuple(shape)}), but got {k}.")
    if nd == 0 or d % nd == nd - 1:
        return None
    perm = list(range(nd))
    perm[d], perm[-1] = perm[-1], perm[d]
    return tuple(perm)


__all__ = ["cumsum", "cumprod", "sort", "argsort", "topk"]
