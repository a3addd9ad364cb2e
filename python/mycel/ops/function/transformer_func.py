"""Transformer building blocks of MindSpore 2.x composed from op-table primitives (both modes;
gradients from the ops they are built of): rotary_position_embedding and the mixture-of-experts
token routing moe_token_permute / moe_token_unpermute."""
from mycel import _mycel as _C
from mycel.ops.function._util import prim
from mycel.ops.function import array_func as _a
from mycel.ops.function.array_ext_func import narrow
from mycel.ops.function._util import as_tensor
from mycel.ops.primitive import constexpr


__all__ = ["rotary_position_embedding", "moe_token_permute", "moe_token_unpermute"]


def _t(x, op, name="input"):
    if not isinstance(x, _C.Tensor):
        raise TypeError(f"For '{op}', '{name}' must be a Tensor, but got {type(x).__name__}.")
    return x


def rotary_position_embedding(x, cos, sin, mode=0):
    """Rotary position embedding: x cos + rotate(x) sin, rotate(x) = (-x2, x1) of the last
    dimension's halves (mode 0) or of its interleaved pairs (mode 1)."""
    x = _t(x, "rotary_position_embedding", "x")
    d = x.shape[-1]
    if d % 2:
        raise ValueError(f"For 'rotary_position_embedding', the last dimension must be even, "
                         f"but got {d}.")
    nd = x.ndim
    if mode == 0:
        a, b = narrow(x, nd - 1, 0, d // 2), narrow(x, nd - 1, d // 2, d // 2)
        rot = _a.concat((-b, a), nd - 1)
    elif mode == 1:
        pairs = prim("Reshape")(x, tuple(x.shape[:-1]) + (d // 2, 2))
        a = narrow(pairs, nd, 0, 1)
        b = narrow(pairs, nd, 1, 1)
        rot = prim("Reshape")(_a.concat((-b, a), nd), x.shape)
    else:
        raise ValueError(f"For 'rotary_position_embedding', mode must be 0 or 1, but got "
                         f"{mode!r}.")
    return x * cos + rot * sin


# ------------------------------------------------------------------ MoE token permutation
@constexpr
def _permute_plan(t_shape, t_dtype, i_shape, i_dtype, num_out_tokens, padded_mode):
    op = "moe_token_permute"
    if not isinstance(padded_mode, bool):
        raise TypeError(f"For '{op}', 'padded_mode' must be a bool, but got "
                        f"{type(padded_mode).__name__}.")
    if padded_mode:
        raise ValueError(f"For '{op}', padded_mode=True is not supported (as MindSpore).")
    if i_dtype not in (_C.int32, _C.int64):
        raise TypeError(f"For '{op}', 'indices' must be int32 or int64, but got {i_dtype}.")
    if len(t_shape) != 2 or len(i_shape) not in (1, 2) or i_shape[0] != t_shape[0]:
        raise ValueError(f"For '{op}', tokens must be [num_tokens, hidden] and indices "
                         f"[num_tokens] or [num_tokens, topk], but got {tuple(t_shape)} and "
                         f"{tuple(i_shape)}.")
    topk = i_shape[1] if len(i_shape) == 2 else 1
    if topk > 512:
        raise ValueError(f"For '{op}', topk (indices' second dim) must be at most 512, but got "
                         f"{topk}.")
    total = t_shape[0] * topk
    if num_out_tokens is None:
        return topk, total
    if isinstance(num_out_tokens, bool) or not isinstance(num_out_tokens, int) or \
            num_out_tokens < 0:
        raise TypeError(f"For '{op}', 'num_out_tokens' must be a non-negative int or None, but "
                        f"got {num_out_tokens!r}.")
    return topk, min(num_out_tokens, total)


def moe_token_permute(tokens, indices, num_out_tokens=None, padded_mode=False):
    """(permuted_tokens, sorted_indices int32): the rows of tokens [num_tokens, hidden] grouped
    by their expert index (indices [num_tokens] or [num_tokens, topk]; row i appears once per
    choice): order = the stable argsort of the flattened indices, permuted_tokens[p] =
    tokens[order[p] // topk] for the first num_out_tokens positions p (all when None), and
    sorted_indices = the inverse of order (where each choice i * topk + k landed)."""
    t, idx = as_tensor(tokens), as_tensor(indices)
    topk, n_out = _permute_plan(t.shape, t.dtype, idx.shape, idx.dtype, num_out_tokens,
                                padded_mode)
    flat = prim("Reshape")(prim("Cast")(idx, _C.int64), (-1,))
    _, order = prim("Sort", axis=0)(flat)
    order = prim("Cast")(order, _C.int64)
    _, inverse = prim("Sort", axis=0)(order)
    rows = prim("FloorDiv")(order[:n_out], topk)
    return prim("Gather")(t, rows, 0), prim("Cast")(inverse, _C.int32)


@constexpr
def _unpermute_plan(p_shape, s_shape, s_dtype, pr_shape, padded_mode, restore_shape):
    op = "moe_token_unpermute"
    if padded_mode:
        raise ValueError(f"For '{op}', padded_mode=True is not supported (as MindSpore).")
    if restore_shape is not None:
        raise ValueError(f"For '{op}', 'restore_shape' is only used in padded mode; pass None.")
    if s_dtype != _C.int32 or len(s_shape) != 1 or len(p_shape) != 2:
        raise ValueError(f"For '{op}', permuted_tokens must be 2-D and sorted_indices int32 "
                         f"1-D, but got {tuple(p_shape)} and {s_dtype} {tuple(s_shape)}.")
    topk = 1 if pr_shape is None else (pr_shape[1] if len(pr_shape) == 2 else -1)
    if topk < 1 or s_shape[0] % topk or \
            (pr_shape is not None and pr_shape[0] * topk != s_shape[0]):
        raise ValueError(f"For '{op}', probs must be [num_tokens, topk] with num_tokens * topk "
                         f"= {s_shape[0]} (the sorted_indices), but got {pr_shape}.")
    return topk, s_shape[0] // topk


def moe_token_unpermute(permuted_tokens, sorted_indices, probs=None, padded_mode=False,
                        restore_shape=None):
    """The inverse of moe_token_permute: out[i] = sum_k permuted_tokens[sorted_indices[i * topk
    + k]] * probs[i, k] (weight 1 without probs, topk = 1), [num_tokens, hidden]; a choice
    whose position lies past permuted_tokens (dropped by num_out_tokens) adds nothing."""
    p, s = as_tensor(permuted_tokens), as_tensor(sorted_indices)
    pr_shape = None if probs is None else as_tensor(probs).shape
    topk, n = _unpermute_plan(p.shape, s.shape, s.dtype, pr_shape, padded_mode, restore_shape)
    rows = p.shape[0]
    pos = prim("Cast")(s, _C.int64)
    kept = prim("Less")(pos, rows)
    picked = prim("Gather")(p, prim("Select")(kept, pos, prim("ZerosLike")(pos)), 0)
    weight = prim("Cast")(kept, p.dtype)
    if probs is not None:
        weight = prim("Mul")(weight, prim("Reshape")(prim("Cast")(probs, p.dtype), (-1,)))
    picked = prim("Mul")(picked, prim("ExpandDims")(weight, 1))
    return prim("ReduceSum", keep_dims=False)(prim("Reshape")(picked, (n, topk, p.shape[1])),
                                              (1,))
