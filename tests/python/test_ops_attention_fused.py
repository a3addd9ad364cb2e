"""ops.flash_attention_score, prompt_flash_attention, incre_flash_attention,
fused_infer_attention_score and speed_fusion_attention (ops/function/attention_func.py)
against a numpy oracle and torch's softmax attention (autograd for the gradients): layouts,
grouped heads, position shifts, masks and sparse modes, dropout masks, key lengths,
log-sum-exp; PYNATIVE and GRAPH mode; gradients; errors."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import ops
from ms_cell import run

RNG = np.random.default_rng(31)


def _oracle(q, k, v, scale, pse=None, discard=None, keep=None, keep_prob=1.0, pse_first=False):
    """q [B, N1, S1, D], k/v [B, N2, S2, D] in float64; discard/keep broadcast to scores."""
    g = q.shape[1] // k.shape[1]
    k, v = np.repeat(k, g, 1), np.repeat(v, g, 1)
    s = q @ k.transpose(0, 1, 3, 2)
    if pse is not None:
        s = (s + pse) * scale if pse_first else s * scale + pse
    else:
        s = s * scale
    if discard is not None:
        s = np.where(np.broadcast_to(discard, s.shape), -np.inf, s)
    m = s.max(-1, keepdims=True)
    msafe = np.where(np.isneginf(m), 0, m)
    e = np.exp(s - msafe)
    tot = e.sum(-1, keepdims=True)
    p = e / np.where(tot == 0, 1, tot)
    if keep is not None:
        p = p * keep / keep_prob
    with np.errstate(divide="ignore"):
        return p @ v, np.log(tot) + msafe


def _to_layout(x, layout):  # x [B, N, S, D]
    b, n, s, d = x.shape
    if layout == "BNSD":
        return x
    if layout == "BSND":
        return x.transpose(0, 2, 1, 3).copy()
    bsh = x.transpose(0, 2, 1, 3).reshape(b, s, n * d)
    return bsh.transpose(1, 0, 2).copy() if layout == "SBH" else bsh


@pytest.mark.parametrize("layout", ["BSH", "BNSD", "BSND", "SBH"])
@pytest.mark.parametrize("n2", [4, 2, 1])
def test_flash_attention_score_layouts_and_grouped_heads(mode, layout, n2):
    b, n1, s1, s2, d = 2, 4, 5, 7, 8
    q = RNG.standard_normal((b, n1, s1, d))
    k, v = RNG.standard_normal((b, n2, s2, d)), RNG.standard_normal((b, n2, s2, d))
    pse = RNG.standard_normal((1, n1, s1, s2))
    mask = RNG.random((b, 1, s1, s2)) < 0.3
    got = run(lambda a, c, e, f, g: ops.flash_attention_score(
        a, c, e, n1, real_shift=f, attn_mask=g, scalar_value=0.3, input_layout=layout),
        _to_layout(q, layout), _to_layout(k, layout), _to_layout(v, layout), pse,
        mask.astype(np.uint8))
    want, _ = _oracle(q, k, v, 0.3, pse, mask)
    np.testing.assert_allclose(got, _to_layout(want, layout), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("sparse,pre,nxt", [(2, 2147483647, 2147483647), (3, 5, 5),
                                            (0, 1, 2), (1, 1, 2)])
def test_sparse_modes(mode, sparse, pre, nxt):
    b, n, s1, s2, d = 1, 2, 4, 6, 3
    q = RNG.standard_normal((b, n, s1, d))
    k, v = RNG.standard_normal((b, n, s2, d)), RNG.standard_normal((b, n, s2, d))
    user = RNG.random((s1, s2)) < 0.2
    got = run(lambda a, c, e, f: ops.flash_attention_score(
        a, c, e, n, attn_mask=f, pre_tokens=pre, next_tokens=nxt, input_layout="BNSD",
        sparse_mode=sparse), q, k, v, user)
    i, j = np.arange(s1)[:, None], np.arange(s2)[None, :]
    discard = {2: j > i, 3: j > i + s2 - s1, 0: user | (j < i - pre) | (j > i + nxt),
               1: user}[sparse]
    want, _ = _oracle(q, k, v, 1.0, None, discard)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_causal_matches_torch_and_gradient(mode):
    b, n, s, d = 2, 3, 6, 4
    q, k, v = (RNG.standard_normal((b, n, s, d)) for _ in range(3))
    scale = 1 / np.sqrt(d)

    def f(a, c, e):
        return ops.flash_attention_score(a, c, e, n, scalar_value=scale, input_layout="BNSD",
                                         sparse_mode=2)
    got = run(f, q, k, v)
    tq, tk, tv = (torch.tensor(x, requires_grad=True) for x in (q, k, v))
    causal = torch.ones(s, s, dtype=torch.bool).triu(1)
    want = torch.softmax((tq @ tk.transpose(-1, -2) * scale).masked_fill(causal, -np.inf),
                         -1) @ tv
    np.testing.assert_allclose(got, want.detach().numpy(), rtol=1e-10, atol=1e-12)
    sens = RNG.standard_normal(want.shape)
    (want * torch.tensor(sens)).sum().backward()
    grads = ms.grad(lambda a, c, e: (f(a, c, e) * ms.Tensor(sens)).sum(), (0, 1, 2))(
        ms.Tensor(q), ms.Tensor(k), ms.Tensor(v))
    for g, t in zip(grads, (tq, tk, tv)):
        np.testing.assert_allclose(g.asnumpy(), t.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_float16_and_fully_masked_rows(mode):
    q = RNG.standard_normal((1, 2, 3, 4)).astype(np.float16)
    mask = np.zeros((3, 5), bool)
    mask[1] = True  # row 1 sees nothing
    kv = RNG.standard_normal((1, 2, 5, 4)).astype(np.float16)
    got = run(lambda a, c, e: ops.flash_attention_score(a, c, c, 2, attn_mask=e,
                                                        input_layout="BNSD"), q, kv, mask)
    assert got.dtype == np.float16
    want, _ = _oracle(q.astype(np.float64), kv.astype(np.float64), kv.astype(np.float64), 1.0,
                      None, mask)
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=3e-3, atol=3e-3)
    assert np.all(got[:, :, 1] == 0)


def test_drop_mask_bits_and_random_dropout(mode):
    b, n, s1, s2, d = 1, 2, 3, 16, 4
    q = RNG.standard_normal((b, n, s1, d))
    k, v = RNG.standard_normal((b, n, s2, d)), RNG.standard_normal((b, n, s2, d))
    keep = RNG.random((b, n, s1, s2)) < 0.7
    packed = np.packbits(keep, axis=-1, bitorder="little")
    got = run(lambda a, c, e, f: ops.flash_attention_score(
        a, c, e, n, drop_mask=f, keep_prob=0.7, input_layout="BNSD"), q, k, v, packed)
    want, _ = _oracle(q, k, v, 1.0, None, None, keep, 0.7)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    # a drawn keep mask: with v = 1 every output is sum_j p_j keep_j / keep_prob, mean 1
    ones = np.ones((1, 1, 256, 1))
    qq = np.zeros((1, 1, 400, 1))
    out = ops.flash_attention_score(ms.Tensor(qq), ms.Tensor(ones), ms.Tensor(ones), 1,
                                    keep_prob=0.5, input_layout="BNSD").asnumpy()
    assert abs(out.mean() - 1) < 0.02 and out.std() > 0.01


def test_prompt_flash_attention(mode):
    b, n, s, d = 2, 2, 5, 4
    q, k, v = (RNG.standard_normal((b, s, n * d)) for _ in range(3))
    mask = np.zeros((s, s), bool)
    got = run(lambda a, c, e, f: ops.prompt_flash_attention(
        a, c, e, attn_mask=f, actual_seq_lengths=(5, 3), actual_seq_lengths_kv=(5, 4),
        num_heads=n, scale_value=0.5), q, k, v, mask)
    qb, kb, vb = (x.reshape(b, s, n, d).transpose(0, 2, 1, 3) for x in (q, k, v))
    i, j = np.arange(s)[:, None], np.arange(s)[None, :]
    discard = (j > i)[None, None] | (j[None, None] >= np.array([5, 4])[:, None, None, None])
    want, _ = _oracle(qb, kb, vb, 0.5, None, discard)  # next_tokens=0: causal
    want[1, :, 3:] = 0
    np.testing.assert_allclose(got, want.transpose(0, 2, 1, 3).reshape(b, s, n * d),
                               rtol=1e-10, atol=1e-12)


def test_incre_flash_attention(mode):
    b, n, kvn, s, d = 3, 4, 2, 6, 5
    q = RNG.standard_normal((b, n, 1, d))
    k, v = RNG.standard_normal((b, kvn, s, d)), RNG.standard_normal((b, kvn, s, d))
    mask = RNG.random((b, 1, 1, s)) < 0.2
    pse = RNG.standard_normal((1, n, 1, s))
    got = run(lambda a, c, e, f, g: ops.incre_flash_attention(
        a, [c], [e], attn_mask=f, actual_seq_lengths=(6, 2, 4), pse_shift=g, num_heads=n,
        input_layout="BNSD", scale_value=0.7, num_key_value_heads=kvn), q, k, v, mask, pse)
    lens = np.array([6, 2, 4])[:, None, None, None]
    want, _ = _oracle(q, k, v, 0.7, pse, mask | (np.arange(s) >= lens))
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_fused_infer_attention_score_lse_and_layouts(mode):
    b, n, s1, s2, d = 2, 2, 3, 4, 5
    q = RNG.standard_normal((b, n, s1, d))
    k, v = RNG.standard_normal((b, n, s2, d)), RNG.standard_normal((b, n, s2, d))
    out, lse = run(lambda a, c, e: ops.fused_infer_attention_score(
        a, c, e, num_heads=n, scale=0.4, input_layout="BNSD_BSND", softmax_lse_flag=True),
        q, k, v)
    want, wlse = _oracle(q, k, v, 0.4)
    np.testing.assert_allclose(out, want.transpose(0, 2, 1, 3), rtol=1e-10, atol=1e-12)
    assert lse.dtype == np.float32 and lse.shape == (b, n, s1, 1)
    np.testing.assert_allclose(lse, wlse, rtol=1e-6)
    out, lse = run(lambda a, c, e: ops.fused_infer_attention_score(
        a, c, e, num_heads=n, input_layout="BSND"), q.transpose(0, 2, 1, 3).copy(),
        k.transpose(0, 2, 1, 3).copy(), v.transpose(0, 2, 1, 3).copy())
    np.testing.assert_allclose(out, _oracle(q, k, v, 1.0)[0].transpose(0, 2, 1, 3), rtol=1e-10)
    np.testing.assert_array_equal(lse, np.zeros(1, np.float32))


@pytest.mark.parametrize("pse_type", [0, 1])
def test_speed_fusion_attention(mode, pse_type):
    b, n, s, d = 1, 2, 4, 3
    q, k, v = (RNG.standard_normal((b, s, n * d)) for _ in range(3))
    pse = RNG.standard_normal((b, n, s, s))
    outs = run(lambda a, c, e, f: ops.speed_fusion_attention(
        a, c, e, n, "BSH", pse=f, scale=0.6, pse_type=pse_type), q, k, v, pse)
    qb, kb, vb = (x.reshape(b, s, n, d).transpose(0, 2, 1, 3) for x in (q, k, v))
    want, _ = _oracle(qb, kb, vb, 0.6, pse, pse_first=pse_type == 1)
    np.testing.assert_allclose(outs[0], want.transpose(0, 2, 1, 3).reshape(b, s, n * d),
                               rtol=1e-10, atol=1e-12)
    sc = qb @ kb.transpose(0, 1, 3, 2)
    sc = (sc + pse) * 0.6 if pse_type == 1 else sc * 0.6 + pse
    mx = sc.max(-1, keepdims=True)
    np.testing.assert_allclose(outs[1], np.repeat(mx, 8, -1), rtol=1e-6)
    np.testing.assert_allclose(outs[2], np.repeat(np.exp(sc - mx).sum(-1, keepdims=True), 8, -1),
                               rtol=1e-6)
    assert outs[3].shape == (0,) and outs[6] == 0


def test_errors():
    q = ms.Tensor(np.zeros((1, 2, 8), np.float32))
    with pytest.raises(ValueError, match="flash_attention_score.*input_layout"):
        ops.flash_attention_score(q, q, q, 2, input_layout="TND")
    with pytest.raises(ValueError, match="sparse_mode"):
        ops.flash_attention_score(q, q, q, 2, sparse_mode=4)
    with pytest.raises(ValueError, match="divisible"):
        ops.flash_attention_score(q, q, q, 3)
    with pytest.raises(ValueError, match="prefix"):
        ops.flash_attention_score(q, q, q, 2, prefix=(1,))
    with pytest.raises(ValueError, match="quant_scale1"):
        ops.prompt_flash_attention(q, q, q, quant_scale1=q, num_heads=2)
    with pytest.raises(ValueError, match="attn_mask"):
        ops.flash_attention_score(q, q, q, 2, attn_mask=ms.Tensor(np.zeros((3, 3), np.bool_)))
    with pytest.raises(ValueError, match="pse_type"):
        ops.speed_fusion_attention(q, q, q, 2, "BSH", pse_type=2)
    with pytest.raises(ValueError, match="keep_prob"):
        ops.flash_attention_score(q, q, q, 2, keep_prob=0.0)
