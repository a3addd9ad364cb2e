"""MindSpore's fused attention functions as CPU compositions of their documented math:
``ops.flash_attention_score``, ``ops.prompt_flash_attention``, ``ops.incre_flash_attention``,
``ops.fused_infer_attention_score`` and ``ops.speed_fusion_attention`` (Ascend kernels in
MindSpore). All compute

    out = Dropout(Softmax(Mask(scale * (Q K^T) + pse)), keep_prob) V

per head (speed_fusion_attention's pse_type 1 adds pse before the scale), in float32 (float64
for float64 inputs), with:

- layouts 'BSH' [B, S, N * D], 'BNSD' [B, N, S, D], 'BSND' [B, S, N, D] and 'SBH' [S, B, N * D]
  (the output in the query's layout);
- grouped key/value heads (N2 dividing N1: query head h reads key/value head h // (N1 / N2));
- masks where True / 1 discards a position: attn_mask (broadcast to [B, N1, S1, S2]), and
  the sparse modes 0 (attn_mask, and when one is given the band i - pre_tokens <= j <=
  i + next_tokens), 1 (attn_mask only), 2 (causal from the top left: j <= i) and 3 (causal
  from the bottom right: j <= i + S2 - S1); per-example key lengths mask the keys past them;
- a row with every key masked outputs zeros (its log-sum-exp is -inf).

The options that belong to Ascend's kernels (quantisation, paged key/value blocks, the TND
layout, prefix and band sparse modes 4-8, internally generated ALiBi) are refused with a
ValueError naming them rather than ignored. Gradients come from the ops they are built of.
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim, as_tensor
from mycel.ops.primitive import constexpr

__all__ = ["flash_attention_score", "prompt_flash_attention", "incre_flash_attention",
           "fused_infer_attention_score", "speed_fusion_attention"]

_INT_MAX = 2147483647
_LAYOUTS = ("BSH", "BNSD", "BSND", "SBH")


# ------------------------------------------------------------------ plans (static)
@constexpr
def _layout_plan(op, layout, q_shape, k_shape, v_shape, n1, n2, allowed):
    """(B, S1, S2, N1, N2, D) from the shapes in `layout`, after the checks."""
    if not isinstance(layout, str) or layout not in allowed:
        raise ValueError(f"For '{op}', 'input_layout' must be one of {allowed} in mycel (the "
                         f"CPU composition), but got {layout!r}.")
    want = 3 if layout in ("BSH", "SBH") else 4
    if len(q_shape) != want or len(k_shape) != want or tuple(k_shape) != tuple(v_shape):
        raise ValueError(f"For '{op}', query, key and value must be {want}-D in layout "
                         f"{layout} (key and value alike), but got {tuple(q_shape)}, "
                         f"{tuple(k_shape)} and {tuple(v_shape)}.")
    if isinstance(n1, bool) or not isinstance(n1, int) or n1 < 1:
        raise ValueError(f"For '{op}', the head number must be a positive int, but got {n1!r}.")
    if layout == "BSH":
        b, s1, h1 = q_shape
        _, s2, h2 = k_shape
    elif layout == "SBH":
        s1, b, h1 = q_shape
        s2, _, h2 = k_shape
    elif layout == "BNSD":
        b, q_n, s1, d = q_shape
        _, k_n, s2, _ = k_shape
        h1, h2 = q_n * d, k_n * d
    else:
        b, s1, q_n, d = q_shape
        _, s2, k_n, _ = k_shape
        h1, h2 = q_n * d, k_n * d
    if h1 % n1:
        raise ValueError(f"For '{op}', the query's hidden size {h1} is not divisible by the head "
                         f"number {n1}.")
    d = h1 // n1
    if layout in ("BNSD", "BSND") and q_n != n1:
        raise ValueError(f"For '{op}', the query has {q_n} heads but the head number is {n1}.")
    if h2 % d:
        raise ValueError(f"For '{op}', the key's hidden size {h2} is not a multiple of the head "
                         f"size {d}.")
    kv_n = h2 // d
    if n2 and n2 != kv_n:
        raise ValueError(f"For '{op}', the key/value have {kv_n} heads but num_key_value_heads "
                         f"is {n2}.")
    if n1 % kv_n:
        raise ValueError(f"For '{op}', the query's {n1} heads must be a multiple of the key/value "
                         f"heads {kv_n}.")
    if (layout in ("BSH", "BNSD", "BSND") and k_shape[0] != b) or \
            (layout == "SBH" and k_shape[1] != b):
        raise ValueError(f"For '{op}', query and key must have the same batch size, but got "
                         f"{tuple(q_shape)} and {tuple(k_shape)}.")
    return b, s1, s2, n1, kv_n, d


@constexpr
def _refuse(op, names_values):
    for name, v in names_values:
        if v is not None:
            raise ValueError(f"For '{op}', '{name}' (an Ascend kernel option) is not supported "
                             f"by mycel's CPU composition; pass None.")
    return True


@constexpr
def _band_mask(op, mode, s1, s2, pre, nxt, has_mask):
    """[S1, S2] bool (True discards) for the sparse mode, or None when it adds nothing."""
    if isinstance(mode, bool) or not isinstance(mode, int) or mode not in (0, 1, 2, 3):
        raise ValueError(f"For '{op}', 'sparse_mode' must be 0, 1, 2 or 3 in mycel (the band and "
                         f"prefix modes 4-8 are not supported), but got {mode!r}.")
    i = np.arange(s1)[:, None]
    j = np.arange(s2)[None, :]
    if mode == 2:
        return _C.Tensor(j > i)
    if mode == 3:
        return _C.Tensor(j > i + (s2 - s1))
    if mode == 0 and has_mask and (pre < _INT_MAX or nxt < _INT_MAX):
        return _C.Tensor((j < i - pre) | (j > i + nxt))
    return None


@constexpr
def _mask_view(op, shape, b, n1, s1, s2):
    """The attn_mask's shape as a [B or 1, N1 or 1, S1 or 1, S2] view."""
    shape = tuple(shape)
    if len(shape) == 2 and shape == (s1, s2):
        return (1, 1, s1, s2)
    if len(shape) == 2 and shape == (b, s2):
        return (b, 1, 1, s2)
    if len(shape) == 3 and shape[0] in (1, b) and shape[1:] in ((s1, s2), (1, s2)):
        return (shape[0], 1) + shape[1:]
    if len(shape) == 4 and shape[0] in (1, b) and shape[1] in (1, n1) and \
            shape[2] in (1, s1) and shape[3] == s2:
        return shape
    raise ValueError(f"For '{op}', 'attn_mask' of shape {shape} does not fit [B, N1, S1, S2] = "
                     f"[{b}, {n1}, {s1}, {s2}] (or [S1, S2], [B, S1, S2], [B, S2]).")


@constexpr
def _work_dtype(dtype):
    return _C.float64 if dtype == _C.float64 else _C.float32


@constexpr
def _lengths_tensor(op, name, v, b):
    """A per-example length tuple as an int64 [B] tensor (None passes)."""
    if v is None or isinstance(v, _C.Tensor):
        return v
    v = tuple(v)
    if len(v) != b:
        raise ValueError(f"For '{op}', '{name}' must hold {b} lengths, but got {v}.")
    return _C.Tensor(np.array(v, np.int64))


@constexpr
def _positions(n):
    return _C.Tensor(np.arange(n, dtype=np.int64))


# ------------------------------------------------------------------ the math
def _to_bnsd(x, layout, n):
    if layout == "BNSD":
        return x
    if layout == "BSND":
        return prim("Transpose")(x, (0, 2, 1, 3))
    if layout == "SBH":
        x = prim("Transpose")(x, (1, 0, 2))
    b, s, h = x.shape
    return prim("Transpose")(prim("Reshape")(x, (b, s, n, h // n)), (0, 2, 1, 3))


def _from_bnsd(x, layout):
    if layout == "BNSD":
        return x
    y = prim("Transpose")(x, (0, 2, 1, 3))  # B, S, N, D
    if layout == "BSND":
        return y
    b, s, n, d = y.shape
    y = prim("Reshape")(y, (b, s, n * d))
    return prim("Transpose")(y, (1, 0, 2)) if layout == "SBH" else y


def _repeat_heads(x, groups):
    """[B, N2, S, D] -> [B, N2 * groups, S, D], head h from head h // groups."""
    if groups == 1:
        return x
    b, n2, s, d = x.shape
    x = prim("BroadcastTo", shape=(b, n2, groups, s, d))(prim("ExpandDims")(x, 2))
    return prim("Reshape")(x, (b, n2 * groups, s, d))


def _attend(q, k, v, scale, pse, pse_first, discard, keep, keep_prob):
    """(out [B, N1, S1, D], row max, row sum of exp, lse [B, N1, S1, 1]) for q [B, N1, S1, D]
    and k, v [B, N2, S2, D]; discard: a bool mask broadcasting to [B, N1, S1, S2] or None;
    keep: the dropout keep mask (bool, same broadcast) or None."""
    groups = q.shape[1] // k.shape[1]
    k, v = _repeat_heads(k, groups), _repeat_heads(v, groups)
    s = prim("BatchMatMul", transpose_b=True)(q, k)
    if pse is not None and pse_first:
        s = prim("Mul")(prim("Add")(s, pse), scale)
    elif pse is not None:
        s = prim("Add")(prim("Mul")(s, scale), pse)
    else:
        s = prim("Mul")(s, scale)
    if discard is not None:
        full = prim("BroadcastTo", shape=tuple(s.shape))(discard)
        s = prim("Select")(full, prim("Fill")(s.dtype, tuple(s.shape), float("-inf")), s)
    m = prim("ReduceMax", keep_dims=True)(s, (3,))
    empty = prim("Equal")(m, float("-inf"))
    m_safe = prim("Select")(empty, prim("ZerosLike")(m), m)
    e = prim("Exp")(prim("Sub")(s, m_safe))
    total = prim("ReduceSum", keep_dims=True)(e, (3,))
    p = prim("Div")(e, prim("Select")(empty, prim("OnesLike")(total), total))
    if keep is not None:
        p = prim("Mul")(p, prim("Div")(prim("Cast")(keep, p.dtype), keep_prob))
    out = prim("BatchMatMul")(p, v)
    lse = prim("Add")(prim("Log")(total), m_safe)
    return out, m, total, lse


def _combine(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return prim("LogicalOr")(a, b)


def _discard(op, attn_mask, mode, pre, nxt, kv_len, dims):
    """The bool mask (True discards) of attn_mask, the sparse mode and per-example key lengths,
    broadcasting to [B, N1, S1, S2]."""
    b, n1, s1, s2 = dims
    out = None
    if attn_mask is not None and mode in (0, 1):
        view = _mask_view(op, attn_mask.shape, b, n1, s1, s2)
        out = prim("Reshape")(prim("Cast")(attn_mask, _C.bool), view)
    out = _combine(out, _band_mask(op, mode, s1, s2, pre, nxt, attn_mask is not None))
    if kv_len is not None:
        past = prim("GreaterEqual")(prim("Reshape")(_positions(s2), (1, 1, 1, s2)),
                                    prim("Reshape")(prim("Cast")(kv_len, _C.int64),
                                                    (b, 1, 1, 1)))
        out = _combine(out, past)
    return out


def _keep_from_bits(drop_mask, dims):
    """drop_mask uint8 [B, N1, S1, S2 / 8] -> bool [B, N1, S1, S2]: bit k (least significant
    first) of byte j keeps column 8 j + k."""
    b, n1, s1, s2 = dims
    bits = prim("Cast")(drop_mask, _C.int32)
    shifts = _C.Tensor(np.array([1 << k for k in range(8)], np.int32))
    planes = prim("FloorMod")(prim("FloorDiv")(prim("ExpandDims")(bits, 4), shifts), 2)
    return prim("Reshape")(prim("Equal")(planes, 1), (b, n1, s1, s2))


@constexpr
def _keep_prob_ok(op, keep_prob, s2, has_mask, mask_shape, dims):
    if isinstance(keep_prob, bool) or not isinstance(keep_prob, (int, float)) or \
            not 0 < keep_prob <= 1:
        raise ValueError(f"For '{op}', 'keep_prob' must be a float in (0, 1], but got "
                         f"{keep_prob!r}.")
    if has_mask:
        b, n1, s1, _ = dims
        if s2 % 8 or tuple(mask_shape) != (b, n1, s1, s2 // 8):
            raise ValueError(f"For '{op}', 'drop_mask' must be uint8 [B, N1, S1, S2 / 8] = "
                             f"[{b}, {n1}, {s1}, {s2 // 8}] with S2 a multiple of 8, but got "
                             f"{tuple(mask_shape)}.")
    return float(keep_prob)


def _dropout_keep(op, keep_prob, drop_mask, dims):
    """The keep mask of the dropout, or None without dropout."""
    keep_prob = _keep_prob_ok(op, keep_prob, dims[3], drop_mask is not None,
                              None if drop_mask is None else drop_mask.shape, dims)
    if drop_mask is not None:
        return _keep_from_bits(drop_mask, dims), keep_prob
    if keep_prob < 1:
        return prim("Less")(_uniform(dims), keep_prob), keep_prob
    return None, keep_prob


def _uniform(shape):
    return prim("UniformReal", seed=0, seed2=0, dtype=_C.float32)(shape)


def _run(op, query, key, value, n1, n2, layout, allowed, scale, pse, pse_first, attn_mask,
         mode, pre, nxt, kv_len, keep_prob=1.0, drop_mask=None):
    """(out in the query's layout and dtype, row max, row sum, lse) of the attention."""
    q, k, v = as_tensor(query), as_tensor(key), as_tensor(value)
    b, s1, s2, n1, kv_n, _ = _layout_plan(op, layout, q.shape, k.shape, v.shape, n1, n2,
                                          allowed)
    work = _work_dtype(q.dtype)
    qb = _to_bnsd(prim("Cast")(q, work), layout, n1)
    kb = _to_bnsd(prim("Cast")(k, work), layout, kv_n)
    vb = _to_bnsd(prim("Cast")(v, work), layout, kv_n)
    dims = (b, n1, s1, s2)
    discard = _discard(op, attn_mask, mode, pre, nxt, _lengths_tensor(op, "actual_seq_lengths_kv",
                                                                      kv_len, b), dims)
    keep, kp = _dropout_keep(op, keep_prob, drop_mask, dims)
    pse_w = None if pse is None else prim("Cast")(pse, work)
    out, m, total, lse = _attend(qb, kb, vb, float(scale), pse_w, pse_first, discard, keep, kp)
    return prim("Cast")(_from_bnsd(out, layout), q.dtype), m, total, lse


# ------------------------------------------------------------------ the functions
def flash_attention_score(query, key, value, head_num, real_shift=None, drop_mask=None,
                          padding_mask=None, attn_mask=None, prefix=None, actual_seq_qlen=None,
                          actual_seq_kvlen=None, keep_prob=1.0, scalar_value=1.0,
                          pre_tokens=2147483647, next_tokens=2147483647, inner_precise=0,
                          input_layout="BSH", sparse_mode=0):
    """attention_out (the query's shape and dtype): Dropout(Softmax(Mask(scalar_value *
    Q K^T + real_shift, attn_mask)), keep_prob) V (module docstring). drop_mask, uint8
    [B, N1, S1, S2 / 8], keeps column 8 j + k where bit k of byte j is set (least significant
    first); with keep_prob < 1 and no drop_mask the keep mask is drawn. head_num is N1;
    real_shift broadcasts to [B, N1, S1, S2]."""
    op = "flash_attention_score"
    _refuse(op, (("padding_mask", padding_mask), ("prefix", prefix),
                 ("actual_seq_qlen", actual_seq_qlen), ("actual_seq_kvlen", actual_seq_kvlen)))
    return _run(op, query, key, value, head_num, 0, input_layout, _LAYOUTS, scalar_value,
                real_shift, False, attn_mask, sparse_mode, pre_tokens, next_tokens, None,
                keep_prob, drop_mask)[0]


def prompt_flash_attention(query, key, value, attn_mask=None, actual_seq_lengths=None,
                           actual_seq_lengths_kv=None, pse_shift=None, deq_scale1=None,
                           quant_scale1=None, deq_scale2=None, quant_scale2=None,
                           quant_offset2=None, num_heads=1, scale_value=1.0,
                           pre_tokens=2147483647, next_tokens=0, input_layout="BSH",
                           num_key_value_heads=0, sparse_mode=0, inner_precise=1):
    """Full-sequence inference attention: Softmax(Mask(scale_value Q K^T + pse_shift)) V in
    layout 'BSH' or 'BNSD' (module docstring; next_tokens defaults to 0, so a given attn_mask
    with sparse_mode 0 is also causal). actual_seq_lengths_kv masks each example's keys past
    its length; actual_seq_lengths zeroes its query rows past its length."""
    op = "prompt_flash_attention"
    _refuse(op, (("deq_scale1", deq_scale1), ("quant_scale1", quant_scale1),
                 ("deq_scale2", deq_scale2), ("quant_scale2", quant_scale2),
                 ("quant_offset2", quant_offset2)))
    out = _run(op, query, key, value, num_heads, num_key_value_heads, input_layout,
               ("BSH", "BNSD"), scale_value, pse_shift, False, attn_mask, sparse_mode,
               pre_tokens, next_tokens, actual_seq_lengths_kv)[0]
    return _zero_rows(op, out, actual_seq_lengths, input_layout, num_heads)


def _zero_rows(op, out, q_len, layout, n):
    """out with each example's query rows at or past q_len set to 0."""
    if q_len is None:
        return out
    ob = _to_bnsd(out, layout, n)
    b, _, s1, _ = ob.shape
    lens = _lengths_tensor(op, "actual_seq_lengths", q_len, b)
    live = prim("Less")(prim("Reshape")(_positions(s1), (1, 1, s1, 1)),
                        prim("Reshape")(prim("Cast")(lens, _C.int64), (b, 1, 1, 1)))
    ob = prim("Mul")(ob, prim("Cast")(live, ob.dtype))
    return _from_bnsd(ob, layout)


@constexpr
def _one(op, name, n):
    if n != 1:
        raise ValueError(f"For '{op}', '{name}' as a list must hold one tensor in mycel (the "
                         f"per-batch list form is not supported), but got {n}.")
    return True


def incre_flash_attention(query, key, value, attn_mask=None, actual_seq_lengths=None,
                          pse_shift=None, dequant_scale1=None, quant_scale1=None,
                          dequant_scale2=None, quant_scale2=None, quant_offset2=None,
                          antiquant_scale=None, antiquant_offset=None, block_table=None,
                          num_heads=1, input_layout="BSH", scale_value=1.0,
                          num_key_value_heads=0, block_size=0, inner_precise=1,
                          kv_padding_size=None):
    """Incremental inference attention of a one-step query [B, 1, H] / [B, N, 1, D] over
    key/value [B, S, kvH] / [B, kvN, S, D] (or a list of one such tensor):
    Softmax(Mask(scale_value Q K^T + pse_shift)) V. attn_mask [B, S] / [B, 1, S] /
    [B, 1, 1, S] (True / 1 discards); actual_seq_lengths masks each example's keys past its
    length."""
    op = "incre_flash_attention"
    _refuse(op, (("dequant_scale1", dequant_scale1), ("quant_scale1", quant_scale1),
                 ("dequant_scale2", dequant_scale2), ("quant_scale2", quant_scale2),
                 ("quant_offset2", quant_offset2), ("antiquant_scale", antiquant_scale),
                 ("antiquant_offset", antiquant_offset), ("block_table", block_table),
                 ("kv_padding_size", kv_padding_size)))
    if isinstance(key, (tuple, list)):
        _one(op, "key", len(key))
        key = key[0]
    if isinstance(value, (tuple, list)):
        _one(op, "value", len(value))
        value = value[0]
    return _run(op, query, key, value, num_heads, num_key_value_heads, input_layout,
                ("BSH", "BNSD"), scale_value, pse_shift, False, attn_mask, 1, _INT_MAX,
                _INT_MAX, actual_seq_lengths)[0]


@constexpr
def _fias_layout(layout):
    if layout == "BNSD_BSND":
        return "BNSD", "BSND"
    return layout, layout


def fused_infer_attention_score(query, key, value, *, pse_shift=None, atten_mask=None,
                                actual_seq_lengths=None, actual_seq_lengths_kv=None,
                                dequant_scale1=None, quant_scale1=None, dequant_scale2=None,
                                quant_scale2=None, quant_offset2=None, antiquant_scale=None,
                                antiquant_offset=None, key_antiquant_scale=None,
                                key_antiquant_offset=None, value_antiquant_scale=None,
                                value_antiquant_offset=None, block_table=None,
                                query_padding_size=None, kv_padding_size=None,
                                key_shared_prefix=None, value_shared_prefix=None,
                                actual_shared_prefix_len=None, num_heads=1, scale=1.0,
                                pre_tokens=2147483647, next_tokens=2147483647,
                                input_layout="BSH", num_key_value_heads=0, sparse_mode=0,
                                inner_precise=1, block_size=0, antiquant_mode=0,
                                key_antiquant_mode=0, value_antiquant_mode=0,
                                softmax_lse_flag=False):
    """(attention_out, softmax_lse): prompt or incremental inference attention
    Softmax(Mask(scale Q K^T + pse_shift)) V in layout 'BSH', 'BNSD', 'BSND' or 'BNSD_BSND'
    (BNSD in, BSND out); softmax_lse is each row's log-sum-exp of the masked scores, float32
    [B, N, S1, 1] with softmax_lse_flag, else float32 zeros [1]. key/value may be a list of one
    tensor."""
    op = "fused_infer_attention_score"
    _refuse(op, (("dequant_scale1", dequant_scale1), ("quant_scale1", quant_scale1),
                 ("dequant_scale2", dequant_scale2), ("quant_scale2", quant_scale2),
                 ("quant_offset2", quant_offset2), ("antiquant_scale", antiquant_scale),
                 ("antiquant_offset", antiquant_offset),
                 ("key_antiquant_scale", key_antiquant_scale),
                 ("key_antiquant_offset", key_antiquant_offset),
                 ("value_antiquant_scale", value_antiquant_scale),
                 ("value_antiquant_offset", value_antiquant_offset),
                 ("block_table", block_table), ("query_padding_size", query_padding_size),
                 ("kv_padding_size", kv_padding_size), ("key_shared_prefix", key_shared_prefix),
                 ("value_shared_prefix", value_shared_prefix),
                 ("actual_shared_prefix_len", actual_shared_prefix_len)))
    if isinstance(key, (tuple, list)):
        _one(op, "key", len(key))
        key = key[0]
    if isinstance(value, (tuple, list)):
        _one(op, "value", len(value))
        value = value[0]
    lay_in, lay_out = _fias_layout(input_layout)
    out, _, _, lse = _run(op, query, key, value, num_heads, num_key_value_heads, lay_in,
                          ("BSH", "BNSD", "BSND"), scale, pse_shift, False, atten_mask,
                          sparse_mode, pre_tokens, next_tokens, actual_seq_lengths_kv)
    out = _zero_rows(op, out, actual_seq_lengths, lay_in, num_heads)
    if lay_out != lay_in:
        out = prim("Transpose")(out, (0, 2, 1, 3))
    if softmax_lse_flag:
        return out, prim("Cast")(lse, _C.float32)
    return out, prim("Fill")(_C.float32, (1,), 0.0)


@constexpr
def _pse_type(op, pse_type):
    if pse_type not in (0, 1):
        raise ValueError(f"For '{op}', 'pse_type' must be 0 or 1 in mycel (2 and 3, the "
                         f"internally generated ALiBi, are not supported), but got "
                         f"{pse_type!r}.")
    return pse_type == 1


@constexpr
def _numels(keep_prob, dims):
    if keep_prob >= 1:
        return 0
    b, n1, s1, s2 = dims
    return b * n1 * s1 * s2


def speed_fusion_attention(query, key, value, head_num, input_layout, *, pse=None,
                           padding_mask=None, atten_mask=None, scale=1.0, keep_prob=1.0,
                           pre_tokens=2147483647, next_tokens=2147483647, inner_precise=0,
                           prefix=None, actual_seq_qlen=None, actual_seq_kvlen=None,
                           sparse_mode=0, gen_mask_parallel=True, sync=False, pse_type=1,
                           q_start_idx=None, kv_start_idx=None):
    """(attention_out, softmax_max, softmax_sum, softmax_out, seed, offset, numels):
    Dropout(Softmax(Mask(scale (pse + Q K^T)))) V with pse_type 1, or with the pse added after
    the scale for pse_type 0 (module docstring). softmax_max and softmax_sum are each row's
    maximum score and sum of exp(score - max), float32 [B, N1, S1, 8] (the value repeated 8
    times, the Ascend kernel's layout); softmax_out is float32 zeros [0] (reserved); the
    dropout's keep mask is mycel's own draw, so seed and offset are int64 zeros and numels is
    B * N1 * S1 * S2 when keep_prob < 1 (else 0)."""
    op = "speed_fusion_attention"
    _refuse(op, (("padding_mask", padding_mask), ("prefix", prefix),
                 ("actual_seq_qlen", actual_seq_qlen), ("actual_seq_kvlen", actual_seq_kvlen),
                 ("q_start_idx", q_start_idx), ("kv_start_idx", kv_start_idx)))
    first = _pse_type(op, pse_type)
    out, m, total, _ = _run(op, query, key, value, head_num, 0, input_layout, _LAYOUTS, scale,
                            pse, first, atten_mask, sparse_mode, pre_tokens, next_tokens, None,
                            keep_prob, None)
    rows = tuple(m.shape[:3]) + (8,)
    smax = prim("BroadcastTo", shape=rows)(prim("Cast")(m, _C.float32))
    ssum = prim("BroadcastTo", shape=rows)(prim("Cast")(total, _C.float32))
    dims = (m.shape[0], m.shape[1], m.shape[2], _s2(as_tensor(key).shape, input_layout))
    zero = prim("Fill")(_C.int64, (), 0.0)
    return (out, smax, ssum, prim("Fill")(_C.float32, (0,), 0.0), zero, zero,
            prim("Fill")(_C.int64, (), float(_numels(keep_prob, dims))))


@constexpr
def _s2(k_shape, layout):
    if layout == "SBH":
        return k_shape[0]
    return k_shape[2] if layout == "BNSD" else k_shape[1]
