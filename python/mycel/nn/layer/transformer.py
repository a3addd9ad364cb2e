"""Attention and Transformer layers (MindSpore 2.x ``mindspore.nn``): MultiheadAttention,
TransformerEncoderLayer, TransformerEncoder, TransformerDecoderLayer, TransformerDecoder and
Transformer, composed from MatMul/BatchMatMul, Softmax, LayerNorm and Dropout.

Signatures, defaults and Parameter names are MindSpore's (which mirror PyTorch's):
MultiheadAttention holds ``in_proj_weight`` [3E, E] (or ``q_proj_weight``, ``k_proj_weight``,
``v_proj_weight`` when kdim or vdim differs from embed_dim), ``in_proj_bias`` [3E], the Dense
``out_proj`` and, with add_bias_kv, ``bias_k`` and ``bias_v`` [1, 1, E]; the layers hold
``self_attn`` (and ``multihead_attn`` in the decoder), ``dense1``, ``dense2``, ``norm1``..
``norm3`` and ``dropout``, ``dropout1``..``dropout3``. Initial values follow MindSpore:
XavierUniform projection weights, zero in_proj_bias, nn.Dense defaults for out_proj and the
feed-forward layers, XavierNormal bias_k/bias_v; nn.Transformer re-draws every parameter of
2 or more dimensions from XavierUniform.

Masks follow PyTorch's rules: a bool mask is True where attention is not allowed (it becomes
-inf before the softmax); a float mask is added to the attention scores. attn_mask is
[L, S] or [N * num_heads, L, S], key_padding_mask [N, S] ([S] for unbatched input); both may
be given, and they add up. A query row whose every key is masked gives NaN, as in PyTorch.

TransformerEncoder/TransformerDecoder hold num_layers independent copies of the layer they
are given (each starts from the given layer's parameter values), as PyTorch and MindSpore
2.0 do. A Cell given as `activation` is shared by the copies (use a parameter-free one).
Construct-time checks of shapes and dtypes are constexpr, so they run at compile time in
GRAPH mode and raise the same errors as in PYNATIVE mode.
"""
import math
import numbers

from mycel import _mycel as _C
from mycel.common.initializer import initializer, XavierNormal, XavierUniform
from mycel.common.parameter import Parameter
from mycel.nn.cell import Cell
from mycel.nn.layer import _check
from mycel.nn.layer.activation import ReLU, GELU
from mycel.nn.layer.basic import Dense, Dropout
from mycel.nn.layer.container import CellList
from mycel.nn.layer.normalization import LayerNorm
from mycel.ops.function._util import prim
from mycel.ops.primitive import constexpr

_FLOATS = (_C.float16, _C.bfloat16, _C.float32, _C.float64)


# ---- argument checks -------------------------------------------------------------------------

def _prob(value, name, cls):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For '{cls}', '{name}' must be a float, but got "
                        f"{type(value).__name__}.")
    if not 0.0 <= value < 1.0:
        raise ValueError(f"For '{cls}', '{name}' must be in [0.0, 1.0), but got {value}.")
    return float(value)


def _positive_float(value, name, cls):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For '{cls}', '{name}' must be a float, but got "
                        f"{type(value).__name__}.")
    if not value > 0:
        raise ValueError(f"For '{cls}', '{name}' must be positive, but got {value}.")
    return float(value)


def _heads(embed_dim, num_heads, cls, names=("embed_dim", "num_heads")):
    embed_dim = _check.positive_int(embed_dim, names[0], cls)
    num_heads = _check.positive_int(num_heads, names[1], cls)
    if embed_dim % num_heads:
        raise ValueError(f"For '{cls}', '{names[0]}' ({embed_dim}) must be divisible by "
                         f"'{names[1]}' ({num_heads}).")
    return embed_dim, num_heads


def _activation(activation, cls):
    """The feed-forward activation: 'relu' -> nn.ReLU(), 'gelu' -> nn.GELU(approximate=False)
    (MindSpore's ops.gelu and PyTorch's 'gelu' are the exact erf form), a Cell or a callable
    as given."""
    if isinstance(activation, str):
        name = activation.lower()
        if name == "relu":
            return ReLU()
        if name == "gelu":
            return GELU(approximate=False)
        raise ValueError(f"For '{cls}', the activation must be 'relu' or 'gelu' when it is a "
                         f"str, but got {activation!r}.")
    if isinstance(activation, Cell) or callable(activation):
        return activation
    raise TypeError(f"For '{cls}', the activation must be a str, a Cell or a callable, but got "
                    f"{type(activation).__name__}.")


# ---- MultiheadAttention ----------------------------------------------------------------------

@constexpr
def _qkv_plan(qs, ks, vs, embed_dim, kdim, vdim, batch_first):
    """Checks query/key/value shapes; gives (batched, L, S, N) in (L, N, E) terms."""
    cls = "MultiheadAttention"
    if len(qs) not in (2, 3) or len(ks) != len(qs) or len(vs) != len(qs):
        raise ValueError(f"For '{cls}', query, key and value must all be 3-d (batched) or all "
                         f"2-d (unbatched), but got shapes {qs}, {ks} and {vs}.")
    for name, shape, dim in (("query", qs, embed_dim), ("key", ks, kdim), ("value", vs, vdim)):
        if shape[-1] != dim:
            raise ValueError(f"For '{cls}', the last dimension of {name} must be {dim}, but "
                             f"got shape {shape}.")
    batched = len(qs) == 3
    if not batched:
        qs, ks, vs = (qs[0], 1, qs[1]), (ks[0], 1, ks[1]), (vs[0], 1, vs[1])
    elif batch_first:
        qs, ks, vs = ((s[1], s[0], s[2]) for s in (qs, ks, vs))
    if ks[:2] != vs[:2] or qs[1] != ks[1]:
        raise ValueError(f"For '{cls}', key and value must have the same sequence length and "
                         f"query, key and value the same batch size, but got shapes {qs}, "
                         f"{ks} and {vs} (as (seq, batch, feature)).")
    return batched, qs[0], ks[0], qs[1]


@constexpr
def _mask_dtype(dtype, name):
    if dtype != _C.bool and dtype not in _FLOATS:
        raise TypeError(f"For 'MultiheadAttention', {name} must be a bool or floating-point "
                        f"tensor, but got {dtype}.")
    return dtype == _C.bool


@constexpr
def _attn_mask_shape(shape, batch, heads, tgt_len, src_len):
    """The 4-d shape [N or 1, H or 1, L, S] a 2-d or 3-d attn_mask is viewed as."""
    if shape == (tgt_len, src_len):
        return (1, 1, tgt_len, src_len)
    if shape == (batch * heads, tgt_len, src_len):
        return (batch, heads, tgt_len, src_len)
    raise ValueError(f"For 'MultiheadAttention', attn_mask must have shape {(tgt_len, src_len)}"
                     f" or {(batch * heads, tgt_len, src_len)}, but got {shape}.")


@constexpr
def _kpm_shape(shape, batched, batch, src_len):
    want = (batch, src_len) if batched else (src_len,)
    if shape != want:
        raise ValueError(f"For 'MultiheadAttention', key_padding_mask must have shape {want}, "
                         f"but got {shape}.")
    return (batch, 1, 1, src_len)


def _float_mask(mask, is_bool, dtype):
    """A bool mask as 0 / -inf of dtype; a float one cast to dtype."""
    if is_bool:
        zeros = prim("Fill")(dtype, mask.shape, 0.0)
        return prim("Select")(mask, prim("Fill")(dtype, mask.shape, -math.inf), zeros)
    return mask.astype(dtype)


def _linear(x, weight, bias):
    """x [..., in] @ weight[out, in].T + bias."""
    shape = x.shape
    y = prim("MatMul", transpose_b=True)(prim("Reshape")(x, (-1, shape[-1])), weight)
    if bias is not None:
        y = prim("BiasAdd")(y, bias)
    return prim("Reshape")(y, shape[:-1] + (weight.shape[0],))


def _seq_first(query, key, value, unbatched):
    """query, key, value as [T, N, E]: an unbatched [T, E] gets N = 1; [N, T, E] is swapped."""
    if unbatched:
        expand = prim("ExpandDims")
        return expand(query, 1), expand(key, 1), expand(value, 1)
    swap = prim("Transpose")
    return swap(query, (1, 0, 2)), swap(key, (1, 0, 2)), swap(value, (1, 0, 2))


def _split_heads(x, heads):
    """[T, N, E] -> [N, H, T, E / H]."""
    t, n, e = x.shape
    return prim("Transpose")(prim("Reshape")(x, (t, n, heads, e // heads)), (1, 2, 0, 3))


class MultiheadAttention(Cell):
    """Multi-head attention (Attention Is All You Need): Concat(head_1, ..., head_h) W^O with
    head_i = softmax(Q W_i^Q (K W_i^K)^T / sqrt(d) + mask) V W_i^V, d = embed_dim / num_heads.

    Inputs are (query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
    average_attn_weights=True). query is [L, N, E] ([N, L, E] with batch_first, [L, E]
    unbatched), key [S, N, kdim] and value [S, N, vdim]. Returns (attn_output [L, N, E] (or as
    the input is laid out), attn_weights [N, L, S] averaged over the heads, or [N, H, L, S]
    with average_attn_weights=False; None when need_weights is False). See the module
    docstring for masks and parameters. dropout (on the attention weights) applies in
    training only. add_bias_kv appends bias_k/bias_v to the keys and values; add_zero_attn
    then appends a zero key and value; masks are extended to match (not masked)."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, has_bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False,
                 dtype=_C.float32):
        super().__init__()
        cls = "MultiheadAttention"
        self.embed_dim, self.num_heads = _heads(embed_dim, num_heads, cls)
        self.kdim = embed_dim if kdim is None else _check.positive_int(kdim, "kdim", cls)
        self.vdim = embed_dim if vdim is None else _check.positive_int(vdim, "vdim", cls)
        self.dropout = _prob(dropout, "dropout", cls)
        self.has_bias = _check.bool_(has_bias, "has_bias", cls)
        self.add_bias_kv = _check.bool_(add_bias_kv, "add_bias_kv", cls)
        self.add_zero_attn = _check.bool_(add_zero_attn, "add_zero_attn", cls)
        self.batch_first = _check.bool_(batch_first, "batch_first", cls)
        self.head_dim = self.embed_dim // self.num_heads
        self._extra_keys = int(self.add_bias_kv) + int(self.add_zero_attn)
        self.dtype = dtype
        self._init_params(dtype)
        self.attn_dropout = Dropout(p=self.dropout)

    def _init_params(self, dtype):
        e = self.embed_dim
        self._qkv_same_embed_dim = self.kdim == e and self.vdim == e
        # The Parameters this configuration lacks are None, as in MindSpore.
        self.in_proj_weight = self.q_proj_weight = self.k_proj_weight = None
        self.v_proj_weight = self.in_proj_bias = self.bias_k = self.bias_v = None
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(initializer(XavierUniform(), (3 * e, e), dtype),
                                            name="in_proj_weight")
        else:
            self.q_proj_weight = Parameter(initializer(XavierUniform(), (e, e), dtype),
                                           name="q_proj_weight")
            self.k_proj_weight = Parameter(initializer(XavierUniform(), (e, self.kdim), dtype),
                                           name="k_proj_weight")
            self.v_proj_weight = Parameter(initializer(XavierUniform(), (e, self.vdim), dtype),
                                           name="v_proj_weight")
        if self.has_bias:
            self.in_proj_bias = Parameter(initializer("zeros", (3 * e,), dtype),
                                          name="in_proj_bias")
        self.out_proj = Dense(e, e, has_bias=self.has_bias, dtype=dtype)
        if self.add_bias_kv:
            self.bias_k = Parameter(initializer(XavierNormal(), (1, 1, e), dtype), name="bias_k")
            self.bias_v = Parameter(initializer(XavierNormal(), (1, 1, e), dtype), name="bias_v")

    def _project(self, query, key, value):
        """The input projections: [L, N, E], [S, N, E], [S, N, E]."""
        split = prim("Split", axis=0, output_num=3)
        if self._qkv_same_embed_dim:
            wq, wk, wv = split(self.in_proj_weight)
        else:
            wq, wk, wv = self.q_proj_weight, self.k_proj_weight, self.v_proj_weight
        bq, bk, bv = None, None, None
        if self.has_bias:
            bq, bk, bv = split(self.in_proj_bias)
        return _linear(query, wq, bq), _linear(key, wk, bk), _linear(value, wv, bv)

    def _mask(self, attn_mask, key_padding_mask, batched, dims, dtype):
        """attn_mask and key_padding_mask merged into one additive float mask [N or 1, H or 1,
        L, S + extra keys], or None."""
        tgt_len, src_len, batch = dims
        mask = None
        if attn_mask is not None:
            is_bool = _mask_dtype(attn_mask.dtype, "attn_mask")
            shape4 = _attn_mask_shape(attn_mask.shape, batch, self.num_heads, tgt_len, src_len)
            mask = prim("Reshape")(_float_mask(attn_mask, is_bool, dtype), shape4)
        if key_padding_mask is not None:
            is_bool = _mask_dtype(key_padding_mask.dtype, "key_padding_mask")
            shape4 = _kpm_shape(key_padding_mask.shape, batched, batch, src_len)
            kpm = prim("Reshape")(_float_mask(key_padding_mask, is_bool, dtype), shape4)
            mask = kpm if mask is None else mask + kpm
        if mask is not None and self._extra_keys:
            mask = prim("Pad", paddings=(0, 0, 0, 0, 0, 0, 0, self._extra_keys))(mask)
        return mask

    def _extend_kv(self, k, v, batch):
        """k, v [S, N, E] with bias_k/bias_v appended (add_bias_kv)."""
        if self.add_bias_kv:
            concat = prim("Concat", axis=0)
            k = concat((k, prim("Tile")(self.bias_k.astype(k.dtype), (1, batch, 1))))
            v = concat((v, prim("Tile")(self.bias_v.astype(v.dtype), (1, batch, 1))))
        return k, v

    def _zero_attn(self, k, v):
        """k, v [N, H, S, D] with a zero key and value appended (add_zero_attn)."""
        if self.add_zero_attn:
            n, h, _, d = k.shape
            concat = prim("Concat", axis=2)
            k = concat((k, prim("Fill")(k.dtype, (n, h, 1, d), 0.0)))
            v = concat((v, prim("Fill")(v.dtype, (n, h, 1, d), 0.0)))
        return k, v

    def _attend(self, q, k, v, mask):
        """Scaled dot-product attention of [N, H, L, D] x [N, H, S, D]: (out, weights)."""
        scores = prim("BatchMatMul", transpose_b=True)(q * (1.0 / math.sqrt(self.head_dim)), k)
        if mask is not None:
            scores = scores + mask
        weights = self.attn_dropout(prim("Softmax", axis=(-1,))(scores))
        return prim("BatchMatMul")(weights, v), weights

    def construct(self, query, key, value, key_padding_mask=None, need_weights=True,
                  attn_mask=None, average_attn_weights=True):
        batched, tgt_len, src_len, batch = _qkv_plan(query.shape, key.shape, value.shape,
                                                     self.embed_dim, self.kdim, self.vdim,
                                                     self.batch_first)
        if not batched:
            query, key, value = _seq_first(query, key, value, 1)
        elif self.batch_first:
            query, key, value = _seq_first(query, key, value, 0)
        q, k, v = self._project(query, key, value)
        k, v = self._extend_kv(k, v, batch)
        mask = self._mask(attn_mask, key_padding_mask, batched, (tgt_len, src_len, batch),
                          q.dtype)
        k, v = self._zero_attn(_split_heads(k, self.num_heads), _split_heads(v, self.num_heads))
        out, weights = self._attend(_split_heads(q, self.num_heads), k, v, mask)
        out = prim("Reshape")(prim("Transpose")(out, (2, 0, 1, 3)),
                              (tgt_len, batch, self.embed_dim))
        out = self.out_proj(out)
        if not batched:
            out = prim("Squeeze", axis=(1,))(out)
        elif self.batch_first:
            out = prim("Transpose")(out, (1, 0, 2))
        if not need_weights:
            return out, None
        if average_attn_weights:
            weights = prim("ReduceMean", keep_dims=False)(weights, (1,))
        if not batched:
            weights = prim("Squeeze", axis=(0,))(weights)
        return out, weights

    def extend_repr(self):
        return (f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, "
                f"dropout={self.dropout}, has_bias={self.has_bias}, kdim={self.kdim}, "
                f"vdim={self.vdim}, batch_first={self.batch_first}")


# ---- encoder and decoder layers --------------------------------------------------------------

class _TransformerLayer(Cell):
    """What the encoder and decoder layers share: the configuration (kept under MindSpore's
    attribute names), the feed-forward block, LayerNorms, dropouts, and _clone()."""

    _norms = 2

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, dtype=_C.float32):
        super().__init__()
        cls = type(self).__name__
        self.d_model, self.nhead = _heads(d_model, nhead, cls, ("d_model", "nhead"))
        self.dim_feedforward = _check.positive_int(dim_feedforward, "dim_feedforward", cls)
        self.dropout_num = _prob(dropout, "dropout", cls)
        self.layernorm_eps = _positive_float(layer_norm_eps, "layer_norm_eps", cls)
        self.batch_first = _check.bool_(batch_first, "batch_first", cls)
        self.norm_first = _check.bool_(norm_first, "norm_first", cls)
        object.__setattr__(self, "activation1", activation)  # the argument, for _clone
        self.dtype = dtype
        self.self_attn = self._attention()
        if self._norms == 3:
            self.multihead_attn = self._attention()
        self.dense1 = Dense(self.d_model, self.dim_feedforward, dtype=dtype)
        self.dropout = Dropout(p=self.dropout_num)
        self.dense2 = Dense(self.dim_feedforward, self.d_model, dtype=dtype)
        for i in range(1, self._norms + 1):
            setattr(self, f"norm{i}", LayerNorm((self.d_model,), epsilon=self.layernorm_eps,
                                                dtype=dtype))
            setattr(self, f"dropout{i}", Dropout(p=self.dropout_num))
        self.activation = _activation(activation, cls)

    def _attention(self):
        return MultiheadAttention(self.d_model, self.nhead, dropout=self.dropout_num,
                                  batch_first=self.batch_first, dtype=self.dtype)

    def _clone(self):
        """A new layer of the same configuration starting from copies of this one's
        parameter values."""
        new = type(self)(self.d_model, self.nhead, self.dim_feedforward, self.dropout_num,
                         self.activation1, self.layernorm_eps, self.batch_first,
                         self.norm_first, self.dtype)
        for p, q in zip(self.get_parameters(), new.get_parameters()):
            q.set_data(p.copy())
        return new

    def _ff_block(self, x):
        x = self.dense2(self.dropout(self.activation(self.dense1(x))))
        return self.dropout2(x) if self._norms == 2 else self.dropout3(x)

    def _sa_block(self, x, attn_mask, key_padding_mask):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False)[0]
        return self.dropout1(x)

    def extend_repr(self):
        return (f"d_model={self.d_model}, nhead={self.nhead}, "
                f"dim_feedforward={self.dim_feedforward}, dropout={self.dropout_num}, "
                f"batch_first={self.batch_first}, norm_first={self.norm_first}")


class TransformerEncoderLayer(_TransformerLayer):
    """One Transformer encoder layer: self-attention, then the feed-forward block
    dense2(dropout(activation(dense1(x)))), each wrapped in a residual connection and a
    LayerNorm (after it, or before it with norm_first=True).

    Inputs (src, src_mask=None, src_key_padding_mask=None): src [S, N, E] ([N, S, E] with
    batch_first, [S, E] unbatched); src_mask [S, S] or [N * nhead, S, S]; the key padding
    mask [N, S]. activation is 'relu', 'gelu' (exact), a Cell or a callable. Dropouts apply
    in training only."""

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask))
            x = self.norm2(x + self._ff_block(x))
        return x


class TransformerDecoderLayer(_TransformerLayer):
    """One Transformer decoder layer: self-attention over the target, attention over the
    encoder's output (memory), then the feed-forward block, each with a residual connection
    and a LayerNorm (norm1..norm3; before each block with norm_first=True).

    Inputs (tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None): tgt [T, N, E], memory [S, N, E] (batch first with
    batch_first); tgt_mask [T, T] or [N * nhead, T, T], memory_mask [T, S] or
    [N * nhead, T, S]. See TransformerEncoderLayer for the other arguments."""

    _norms = 3

    def _mha_block(self, x, mem, attn_mask, key_padding_mask):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout2(x)

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask,
                                    memory_key_padding_mask)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask,
                                               memory_key_padding_mask))
            x = self.norm3(x + self._ff_block(x))
        return x


# ---- stacks and the full model ---------------------------------------------------------------

def _stack(layer, layer_cls, num_layers, norm, cls):
    """num_layers copies of layer in a CellList, after checking the arguments."""
    if not isinstance(layer, layer_cls):
        raise TypeError(f"For '{cls}', the layer must be a {layer_cls.__name__}, but got "
                        f"{type(layer).__name__}.")
    _check.positive_int(num_layers, "num_layers", cls)
    if norm is not None and not isinstance(norm, Cell):
        raise TypeError(f"For '{cls}', norm must be a Cell or None, but got "
                        f"{type(norm).__name__}.")
    return CellList([layer._clone() for _ in range(num_layers)])


class TransformerEncoder(Cell):
    """A stack of num_layers TransformerEncoderLayers (independent copies of encoder_layer),
    followed by `norm` (a Cell, e.g. a LayerNorm) when given. Inputs (src, src_mask=None,
    src_key_padding_mask=None), passed to every layer."""

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _stack(encoder_layer, TransformerEncoderLayer, num_layers, norm,
                             "TransformerEncoder")
        self.num_layers = num_layers
        self.norm = norm

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        output = src
        for layer in self.layers:
            output = layer(output, src_mask, src_key_padding_mask)
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerDecoder(Cell):
    """A stack of num_layers TransformerDecoderLayers (independent copies of decoder_layer),
    followed by `norm` when given. Inputs (tgt, memory, tgt_mask=None, memory_mask=None,
    tgt_key_padding_mask=None, memory_key_padding_mask=None), passed to every layer."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _stack(decoder_layer, TransformerDecoderLayer, num_layers, norm,
                             "TransformerDecoder")
        self.num_layers = num_layers
        self.norm = norm

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        output = tgt
        for layer in self.layers:
            output = layer(output, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                           memory_key_padding_mask)
        if self.norm is not None:
            output = self.norm(output)
        return output


@constexpr
def _check_src_tgt(src_shape, tgt_shape, d_model, batch_first):
    cls = "Transformer"
    if len(src_shape) != len(tgt_shape) or len(src_shape) not in (2, 3):
        raise ValueError(f"For '{cls}', src and tgt must both be 3-d (batched) or both 2-d, but "
                         f"got shapes {src_shape} and {tgt_shape}.")
    axis = 0 if batch_first else 1
    if len(src_shape) == 3 and src_shape[axis] != tgt_shape[axis]:
        raise ValueError(f"For '{cls}', src and tgt must have the same batch size, but got "
                         f"shapes {src_shape} and {tgt_shape} (batch_first={batch_first}).")
    if src_shape[-1] != d_model or tgt_shape[-1] != d_model:
        raise ValueError(f"For '{cls}', the feature size of src and tgt must equal d_model "
                         f"({d_model}), but got shapes {src_shape} and {tgt_shape}.")
    return True


class Transformer(Cell):
    """The encoder-decoder Transformer: a TransformerEncoder of num_encoder_layers layers and
    a TransformerDecoder of num_decoder_layers layers, each ending in a LayerNorm (or the
    given custom_encoder / custom_decoder). Every parameter of 2 or more dimensions starts
    from XavierUniform, as in MindSpore.

    Inputs (src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
    src_key_padding_mask=None, tgt_key_padding_mask=None, memory_key_padding_mask=None);
    returns the decoder's output, of tgt's shape."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation="relu", custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 dtype=_C.float32):
        super().__init__()
        args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                batch_first, norm_first, dtype)
        if custom_encoder is None:
            layer = TransformerEncoderLayer(*args)
            custom_encoder = TransformerEncoder(layer, num_encoder_layers, self._norm(layer))
        if custom_decoder is None:
            layer = TransformerDecoderLayer(*args)
            custom_decoder = TransformerDecoder(layer, num_decoder_layers, self._norm(layer))
        self.encoder, self.decoder = custom_encoder, custom_decoder
        for p in self.get_parameters():
            if p.ndim > 1:
                p.set_data(initializer("xavier_uniform", p.shape, p.dtype))
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    @staticmethod
    def _norm(layer):
        return LayerNorm((layer.d_model,), epsilon=layer.layernorm_eps, dtype=layer.dtype)

    def construct(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                  src_key_padding_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        _check_src_tgt(src.shape, tgt.shape, self.d_model, self.batch_first)
        memory = self.encoder(src, src_mask, src_key_padding_mask)
        return self.decoder(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                            memory_key_padding_mask)


__all__ = ["MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder",
           "TransformerDecoderLayer", "TransformerDecoder", "Transformer"]
