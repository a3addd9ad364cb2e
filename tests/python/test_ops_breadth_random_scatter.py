"""The composed random and window functions (random_func.py), the scatter family
(scatter_func.py) and the misc functions (image_func.py, array_ext_func.py, ...) with their
primitives: windows against scipy/torch, random draws against their distributions (moments
and frequencies with wide margins, seeds reproducible), scatters against numpy loops, boxes
against hand-written references of MindSpore's documented formulas; PYNATIVE and GRAPH mode
where the result is deterministic."""
import numpy as np
import pytest
import scipy.signal
import scipy.stats
import torch

import mycel as ms
from mycel import ops
from ms_cell import run

RNG = np.random.default_rng(37)


def _f(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


# ---- windows -----------------------------------------------------------------------------

@pytest.mark.parametrize("n", [0, 1, 2, 7, 10])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows_match_torch(mode, n, periodic):
    for name in ("hann_window", "hamming_window", "bartlett_window", "blackman_window"):
        got = run(lambda: getattr(ops, name)(n, periodic, dtype=ms.float64))
        want = getattr(torch, name)(n, periodic, dtype=torch.float64).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    got = run(lambda: ops.kaiser_window(n, periodic, 6.0, dtype=ms.float64))
    want = torch.kaiser_window(n, periodic, 6.0, dtype=torch.float64).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-15)
    got = run(lambda: ops.hamming_window(n, periodic, 0.5, 0.4))
    assert got.dtype == np.float32
    if n > 1:
        np.testing.assert_allclose(got, scipy.signal.get_window(("general_hamming", 0.5), n,
                                                                fftbins=periodic) * 0 +
                                   0.5 - 0.4 * np.cos(2 * np.pi * np.arange(n) /
                                                      (n if periodic else n - 1)), rtol=1e-6)
    np.testing.assert_allclose(run(lambda: ops.BartlettWindow(periodic)(n)),
                               torch.bartlett_window(n, periodic).numpy(), atol=3e-7)


# ---- random ------------------------------------------------------------------------------

def test_like_draws_and_randint():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = ms.Tensor(np.zeros((200, 50), np.float64))
    u = ops.rand_like(x).asnumpy()
    assert u.dtype == np.float64 and u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.02
    z = ops.randn_like(x, dtype=ms.float32).asnumpy()
    assert z.dtype == np.float32 and abs(z.mean()) < 0.03 and abs(z.std() - 1) < 0.03
    r = ops.randint_like(ms.Tensor(np.zeros((4000,), np.int32)), -3, 4).asnumpy()
    assert r.dtype == np.int32 and set(np.unique(r)) == set(range(-3, 4))
    r = ops.randint(2, 5, (3, 4)).asnumpy()
    assert r.dtype == np.int64 and r.shape == (3, 4) and r.min() >= 2 and r.max() <= 4


def test_bernoulli_and_multinomial_frequencies():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    b = ops.bernoulli(ms.Tensor(np.zeros(20000, np.float32)), 0.3).asnumpy()
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.3) < 0.015
    p = ms.Tensor(np.array([0.0, 0.3, 0.5], np.float32))
    pb = ops.bernoulli(ms.Tensor(np.zeros((6000, 3), np.float32)), p).asnumpy()
    np.testing.assert_allclose(pb.mean(0), [0.0, 0.3, 0.5], atol=0.03)
    w = np.array([[1.0, 2.0, 0.0, 7.0], [5.0, 5.0, 0.0, 0.0]], np.float32)
    s = ops.multinomial(ms.Tensor(w), 20000, True).asnumpy()
    assert s.shape == (2, 20000) and s.dtype == np.int64
    np.testing.assert_allclose(np.bincount(s[0], minlength=4) / 20000, w[0] / w[0].sum(),
                               atol=0.015)
    np.testing.assert_allclose(np.bincount(s[1], minlength=4) / 20000, [0.5, 0.5, 0, 0],
                               atol=0.015)
    s = ops.multinomial(ms.Tensor(w[0]), 3, False).asnumpy()
    assert sorted(s.tolist()) == [0, 1, 3]  # every category of nonzero weight, once
    firsts = np.array([ops.multinomial(ms.Tensor(w[0]), 1, False).asnumpy()[0]
                       for _ in range(800)])  # tolerance: about 5 standard deviations
    np.testing.assert_allclose(np.bincount(firsts, minlength=4) / 800, w[0] / 10, atol=0.08)


def test_permutations_and_shuffle():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    p = ops.randperm(50).asnumpy()
    assert sorted(p.tolist()) == list(range(50)) and p.dtype == np.int64
    assert sorted(ops.randperm(20, seed=3).asnumpy().tolist()) == list(range(20))
    x = np.arange(30, dtype=np.float32).reshape(10, 3)
    y = ops.shuffle(ms.Tensor(x)).asnumpy()
    assert sorted(y[:, 0].tolist()) == x[:, 0].tolist()
    np.testing.assert_array_equal(y[:, 1] - y[:, 0], 1)
    out = ops.Randperm(8, -1)(ms.Tensor(np.array([5], np.int32))).asnumpy()
    assert sorted(out[:5].tolist()) == list(range(5)) and (out[5:] == -1).all()


def test_laplace_and_gamma_distributions():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = ops.laplace((40000,), ms.Tensor(np.float32(1.5)), ms.Tensor(np.float32(2.0))).asnumpy()
    assert scipy.stats.kstest(x, "laplace", args=(1.5, 2.0)).pvalue > 1e-4
    s = ops.StandardLaplace()((30000,)).asnumpy()
    assert scipy.stats.kstest(s, "laplace").pvalue > 1e-4
    for alpha, beta in ((0.4, 1.0), (2.5, 3.0), (9.0, 0.5)):
        g = ops.gamma((30000,), ms.Tensor(np.array([alpha], np.float32)),
                      ms.Tensor(np.array([beta], np.float32))).asnumpy().reshape(-1)
        assert g.min() > 0
        assert scipy.stats.kstest(g, "gamma", args=(alpha, 0, 1 / beta)).pvalue > 1e-4
    g = ops.gamma((5, 2), ms.Tensor(np.array([1.0, 2.0, 3.0], np.float32)),
                  ms.Tensor(np.array([[1.0], [2.0]], np.float32))).asnumpy()
    assert g.shape == (5, 2, 2, 3)


# ---- scatter -----------------------------------------------------------------------------

SCATTER_REF = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
               "max": np.maximum, "min": np.minimum}


@pytest.mark.parametrize("op", sorted(SCATTER_REF))
def test_tensor_scatter_family_matches_numpy(mode, op):
    x = _f(4, 3, 2, dtype=np.float64) + 3
    idx = np.array([[0, 1], [2, 2], [0, 1], [3, 0]], np.int32)  # (0, 1) twice
    upd = _f(4, 2, dtype=np.float64) + 2
    want = x.copy()
    for (i, j), u in zip(idx, upd):
        want[i, j] = SCATTER_REF[op](want[i, j], u)
    fn = getattr(ops, "tensor_scatter_" + op)
    np.testing.assert_allclose(run(fn, x, idx, upd), want, rtol=1e-12)
    prim = getattr(ops, "TensorScatter" + op.capitalize())()
    np.testing.assert_allclose(run(prim, x, idx, upd), want, rtol=1e-12)


def test_tensor_scatter_int_div_and_gradient():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = np.array([100, -100, 7], np.int32)
    idx = np.array([[0], [0], [1]], np.int64)
    upd = np.array([3, 4, 3], np.int32)
    got = ops.tensor_scatter_div(ms.Tensor(x), ms.Tensor(idx), ms.Tensor(upd)).asnumpy()
    np.testing.assert_array_equal(got, [8, -33, 7])  # 100 / 3 -> 33, / 4 -> 8 (truncating)
    xf, uf = _f(5, 3, dtype=np.float64), _f(2, 3, dtype=np.float64)
    i2 = np.array([[1], [3]], np.int32)
    tx, tu = torch.tensor(xf, requires_grad=True), torch.tensor(uf, requires_grad=True)
    w = RNG.standard_normal((5, 3))
    (tx.index_add(0, torch.tensor([1, 3]), tu) * torch.tensor(w)).sum().backward()
    gx, gu = ms.grad(lambda a, b: (ops.tensor_scatter_add(a, ms.Tensor(i2), b) *
                                   ms.Tensor(w)).sum(), grad_position=(0, 1))(
        ms.Tensor(xf), ms.Tensor(uf))
    np.testing.assert_allclose(gx.asnumpy(), tx.grad.numpy())
    np.testing.assert_allclose(gu.asnumpy(), tu.grad.numpy())


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "max", "min", "update"])
def test_scatter_on_parameters(op):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = _f(5, 3) + 4
    idx = np.array([[1, 3], [1, 0]], np.int32)
    upd = _f(2, 2, 3) + 2
    p = ms.Parameter(ms.Tensor(x), name="p")
    out = getattr(ops, "scatter_" + op)(p, ms.Tensor(idx), ms.Tensor(upd))
    want = x.copy()
    ref = SCATTER_REF.get(op, lambda a, b: b)
    for i, u in zip(idx.reshape(-1), upd.reshape(-1, 3)):
        want[i] = ref(want[i], u)
    np.testing.assert_allclose(p.asnumpy(), want, rtol=1e-5)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5)
    q = ms.Parameter(ms.Tensor(x), name="q")
    getattr(ops, "Scatter" + op.capitalize())()(q, ms.Tensor(idx), ms.Tensor(upd))
    np.testing.assert_allclose(q.asnumpy(), want, rtol=1e-5)


def test_inplace_rows_and_index_fill(mode):
    x = _f(5, 3)
    v = _f(2, 3)
    want = x.copy()
    want[[1, 4]] += v
    np.testing.assert_allclose(run(lambda a, b: ops.inplace_add(a, b, (1, 4)), x, v), want,
                               rtol=1e-6)
    want = x.copy()
    want[[1, 4]] -= v
    np.testing.assert_allclose(run(ops.InplaceSub((1, 4)), x, v), want, rtol=1e-6)
    want = x.copy()
    want[2] = v[0]
    np.testing.assert_array_equal(run(lambda a, b: ops.inplace_update(a, b, 2), x, v[:1]),
                                  want)
    want = x.copy()
    want[[0, 3]] = v
    np.testing.assert_array_equal(run(lambda a, i, b: ops.InplaceUpdateV2()(a, i, b), x,
                                      np.array([0, 3], np.int32), v), want)
    idx = np.array([0, 2], np.int32)
    want = x.copy()
    want[:, [0, 2]] = -1.5
    np.testing.assert_array_equal(run(lambda a, i: ops.index_fill(a, 1, i, -1.5), x, idx), want)
    got = run(lambda a, i, v: ops.IndexFill()(a, 0, i, v), x, np.array([-1], np.int64),
              np.array(7.0, np.float32))
    want = x.copy()
    want[-1] = 7
    np.testing.assert_array_equal(got, want)


# ---- misc --------------------------------------------------------------------------------

def _iou_ref(a, g, mode):
    out = np.zeros((len(g), len(a)))
    for m, gb in enumerate(g):
        for n, ab in enumerate(a):
            w = max(0, min(ab[2], gb[2]) - max(ab[0], gb[0]) + 1)
            h = max(0, min(ab[3], gb[3]) - max(ab[1], gb[1]) + 1)
            ov = w * h
            aa = (ab[2] - ab[0] + 1) * (ab[3] - ab[1] + 1)
            ag = (gb[2] - gb[0] + 1) * (gb[3] - gb[1] + 1)
            out[m, n] = ov / (aa + ag - ov + 1e-10) if mode == "iou" else ov / (ag + 1e-10)
    return out


def _boxes(n):
    xy = RNG.uniform(0, 20, (n, 2))
    wh = RNG.uniform(1, 15, (n, 2))
    return np.concatenate([xy, xy + wh], 1).astype(np.float32)


def test_iou_and_box_coding(mode):
    a, g = _boxes(5), _boxes(3)
    for m in ("iou", "iof"):
        np.testing.assert_allclose(run(lambda p, q: ops.iou(p, q, m), a, g), _iou_ref(a, g, m),
                                   rtol=1e-5)
    g2 = _boxes(5)
    means, stds = (0.1, -0.1, 0.0, 0.2), (0.5, 0.5, 1.0, 2.0)
    deltas = run(lambda p, q: ops.bounding_box_encode(p, q, means, stds), a, g2)
    pw, gw = a[:, 2] - a[:, 0] + 1, g2[:, 2] - g2[:, 0] + 1
    px, gx = (a[:, 0] + a[:, 2]) / 2, (g2[:, 0] + g2[:, 2]) / 2
    np.testing.assert_allclose(deltas[:, 0], ((gx - px) / pw - 0.1) / 0.5, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(deltas[:, 2], np.log(gw / pw) - 0.0, rtol=1e-5, atol=1e-6)
    back = run(lambda p, d: ops.bounding_box_decode(p, d, (100, 100), means, stds, 1e-6), a,
               deltas)
    np.testing.assert_allclose(back, g2, rtol=1e-4, atol=1e-3)  # decode inverts encode
    clipped = run(lambda p, d: ops.bounding_box_decode(p, d, (10, 12)), a, deltas * 0 + 5)
    assert clipped[:, [0, 2]].max() <= 12 and clipped[:, [1, 3]].max() <= 10
    meta = np.array([20.0, 30.0, 1.0], np.float32)
    want = (a[:, 0] >= 0) & (a[:, 1] >= 0) & (a[:, 2] <= 29) & (a[:, 3] <= 19)
    np.testing.assert_array_equal(run(ops.check_valid, a, meta), want)


def test_space_batch_rearrangements(mode):
    x = _f(2, 3, 4, 6)
    y = run(lambda t: ops.space_to_batch_nd(t, (2, 3), ((0, 2), (3, 0))), x)
    p = np.pad(x, ((0, 0), (0, 0), (0, 2), (3, 0)))
    want = p.reshape(2, 3, 3, 2, 3, 3).transpose(3, 5, 0, 1, 2, 4).reshape(12, 3, 3, 3)
    np.testing.assert_array_equal(y, want)
    back = run(lambda t: ops.batch_to_space_nd(t, (2, 3), ((0, 2), (3, 0))), y)
    np.testing.assert_array_equal(back, x)


@pytest.mark.parametrize("mode_name", ["REFLECT", "SYMMETRIC"])
def test_mirror_pad(mode, mode_name):
    x = _f(3, 4, 5)
    pads = ((1, 2), (0, 3), (2, 1))
    got = run(lambda t: ops.MirrorPad(mode_name)(t, pads) if hasattr(ops, "MirrorPad")
              else ops.mirror_pad(t, pads, mode_name), x)
    np.testing.assert_array_equal(got, np.pad(x, pads, mode_name.lower()))


def test_matrix_set_diag(mode):
    x = _f(2, 4, 5)
    d = _f(2, 4)
    want = x.copy()
    for b in range(2):
        np.fill_diagonal(want[b], d[b])
    np.testing.assert_array_equal(run(lambda a, v: ops.matrix_set_diag(a, v), x, d), want)
    band = _f(2, 3, 4)  # diagonals 1, 0, -1 (RIGHT_LEFT: super right-aligned, sub left)
    got = run(lambda a, v: ops.matrix_set_diag(a, v, (-1, 1)), x, band)
    from mycel.ops.function.diag_func import matrix_diag_part
    back = matrix_diag_part(ms.Tensor(got), (-1, 1), 0.0).asnumpy()
    mask = matrix_diag_part(ms.Tensor(np.ones_like(x)), (-1, 1), 0.0).asnumpy() != 0
    np.testing.assert_array_equal(back[mask], band[mask])


def test_unique_consecutive_matches_torch():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = np.array([1, 1, 2, 2, 2, 3, 1, 1, 4], np.int32)
    out, idx, cnt = ops.unique_consecutive(ms.Tensor(x), True, True)
    tout, tidx, tcnt = torch.unique_consecutive(torch.from_numpy(x), return_inverse=True,
                                                return_counts=True)
    np.testing.assert_array_equal(out.asnumpy(), tout.numpy())
    np.testing.assert_array_equal(idx.asnumpy(), tidx.numpy())
    np.testing.assert_array_equal(cnt.asnumpy(), tcnt.numpy())
    m = np.array([[1, 2], [1, 2], [3, 4], [1, 2]], np.float32)
    out, cnt = ops.unique_consecutive(ms.Tensor(m), False, True, 0)
    tout, tcnt = torch.unique_consecutive(torch.from_numpy(m), return_counts=True, dim=0)
    np.testing.assert_array_equal(out.asnumpy(), tout.numpy())
    np.testing.assert_array_equal(cnt.asnumpy(), tcnt.numpy())


def test_intopk_bidense_sgn_and_helpers(mode):
    x = np.array([[0.1, 0.9, 0.5, 0.5], [3.0, 1.0, 2.0, 0.0]], np.float32)
    t = np.array([2, 3], np.int32)
    np.testing.assert_array_equal(run(lambda a, b: ops.intopk(a, b, 2), x, t), [True, False])
    a, b, w, bias = _f(3, 4), _f(3, 5), _f(2, 4, 5), _f(2)
    want = torch.nn.functional.bilinear(*(torch.from_numpy(v) for v in (a, b, w, bias)))
    np.testing.assert_allclose(run(ops.bidense, a, b, w, bias), want.numpy(), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_array_equal(run(ops.sgn, x - 0.5), np.sign(x - 0.5))
    np.testing.assert_array_equal(run(ops.dyn_shape, x), [2, 4])
    np.testing.assert_array_equal(run(ops.deepcopy, x), x)
    np.testing.assert_array_equal(run(ops.TensorShape(), x), [2, 4])
    np.testing.assert_array_equal(run(lambda: ops.tuple_to_array((1, 2, 3))), [1, 2, 3])
    np.testing.assert_array_equal(run(lambda: ops.scalar_to_tensor(3, ms.float32)), 3.0)
    assert ops.InvertPermutation()((2, 0, 3, 1)) == (1, 3, 0, 2)


def test_argument_errors():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = ms.Tensor(_f(4, 3))
    with pytest.raises(TypeError, match="tensor_scatter_add"):
        ops.tensor_scatter_add(x, ms.Tensor(np.array([[0]], np.float32)), ms.Tensor(_f(1, 3)))
    with pytest.raises(ValueError, match="InplaceAdd"):
        ops.inplace_add(x, ms.Tensor(_f(2, 3)), (0, 9))
    with pytest.raises(ValueError, match="'iou'"):
        ops.iou(x, ms.Tensor(_f(2, 4)))
    with pytest.raises(ValueError, match="MirrorPad"):
        ops.mirror_pad(x, ((4, 0), (0, 0)))
    with pytest.raises(ValueError, match="multinomial"):
        ops.multinomial(ms.Tensor(np.ones(3, np.float32)), 4, False)
    with pytest.raises(ValueError, match="hann_window"):
        ops.hann_window(-1)
    with pytest.raises(ValueError, match="'randint'"):
        ops.randint(5, 5, (2,))


def _nms_ref(boxes, thr):
    order = np.argsort(-boxes[:, 4], kind="stable")
    s = boxes[order]
    keep = np.ones(len(s), bool)
    for i in range(len(s)):
        if not keep[i]:
            continue
        for j in range(i + 1, len(s)):
            xa, ya = max(s[i, 0], s[j, 0]), max(s[i, 1], s[j, 1])
            xb, yb = min(s[i, 2], s[j, 2]), min(s[i, 3], s[j, 3])
            inter = max(xb - xa, 0) * max(yb - ya, 0)
            union = ((s[i, 2] - s[i, 0]) * (s[i, 3] - s[i, 1]) +
                     (s[j, 2] - s[j, 0]) * (s[j, 3] - s[j, 1]) - inter)
            if inter / union > thr:
                keep[j] = False
    return s, keep


def test_nms_with_mask(mode):
    boxes = np.concatenate([_boxes(9), RNG.permutation(9).reshape(-1, 1) / 9.0],
                           1).astype(np.float32)
    boxes[3, :4] = boxes[0, :4] + 0.5  # a near duplicate
    for thr in (0.1, 0.5):
        s, idx, keep = run(ops.NMSWithMask(thr), boxes)
        ws, wkeep = _nms_ref(boxes.astype(np.float64), thr)
        np.testing.assert_allclose(s, ws, rtol=1e-6)
        np.testing.assert_array_equal(idx, np.arange(9))
        np.testing.assert_array_equal(keep, wkeep)
        assert not wkeep.all() or thr == 0.5


def _ctc_greedy_ref(x, lengths, merge):
    t, b, c = x.shape
    idx, vals, logp = [], [], np.zeros((b, 1))
    longest = 0
    for j in range(b):
        best = x[:lengths[j], j].argmax(-1)
        logp[j, 0] = -x[:lengths[j], j].max(-1).sum()
        out, prev = [], -1
        for k in best:
            if k != c - 1 and not (merge and k == prev):
                out.append(k)
            prev = k
        idx += [[j, i] for i in range(len(out))]
        vals += out
        longest = max(longest, len(out))
    return np.array(idx).reshape(-1, 2), np.array(vals), np.array([b, longest]), logp


@pytest.mark.parametrize("merge", [True, False])
def test_ctc_greedy_decoder(merge):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = RNG.integers(0, 4, (7, 3, 4)).astype(np.float32) + RNG.random((7, 3, 4)).astype(
        np.float32) * 0.1
    x[1, 0], x[2, 0] = x[0, 0], x[0, 0]  # a repeat on purpose
    lengths = np.array([7, 4, 0], np.int32)
    got = ops.CTCGreedyDecoder(merge)(ms.Tensor(x), ms.Tensor(lengths))
    want = _ctc_greedy_ref(x, lengths, merge)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-6)
    with pytest.raises(ValueError, match="CTCGreedyDecoder"):
        ops.ctc_greedy_decoder(ms.Tensor(x), ms.Tensor(lengths[:2]))
