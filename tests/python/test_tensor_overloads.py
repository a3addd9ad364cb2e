"""MindSpore's overloaded Tensor methods (common/_tensor_overloads.py): the numpy and torch
forms of max/min/sum/transpose/median/scatter/scatter_add/sort, byte, mm, bincount, and the
errors MindSpore raises for bad options; div(rounding_mode='trunc') in graph code. Oracles:
numpy and torch; each case runs in both modes through a Cell."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import Tensor, nn

MODES = (ms.GRAPH_MODE, ms.PYNATIVE_MODE)
RNG = np.random.default_rng(7)


@pytest.fixture(autouse=True)
def _pynative_after():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


class _Call(nn.Cell):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        return self.fn(*args)


def run(mode, fn, *args):
    ms.set_context(mode=mode)
    return _Call(fn)(*args)


def close(got, want):
    np.testing.assert_allclose(got.asnumpy(), np.asarray(want), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_max_min_numpy_form(mode):
    a = RNG.standard_normal((3, 4)).astype(np.float32)
    mask = np.array([True, False, True, True])
    x, m = Tensor(a), Tensor(mask)
    close(run(mode, lambda t: t.max(), x), a.max())
    close(run(mode, lambda t: t.max(0, True), x), a.max(0, keepdims=True))
    close(run(mode, lambda t, w: t.max(1, initial=0.5, where=w), x, m),
          np.max(a, 1, initial=0.5, where=mask))
    close(run(mode, lambda t, w: t.min((0, 1), initial=-0.25, where=w), x, m),
          np.min(a, (0, 1), initial=-0.25, where=mask))
    close(run(mode, lambda t: t.min(axis=1, initial=-0.1), x), np.min(a, 1, initial=-0.1))
    v, i = run(mode, lambda t: t.max(axis=0, return_indices=True), x)
    close(v, a.max(0))
    close(i, a.argmax(0))


@pytest.mark.parametrize("mode", MODES)
def test_max_min_torch_form(mode):
    a = RNG.standard_normal((3, 4)).astype(np.float32)
    for name in ("max", "min"):
        want = getattr(torch.from_numpy(a), name)(dim=1, keepdim=True)
        fn = (lambda t: t.max(dim=1, keepdim=True)) if name == "max" else \
            (lambda t: t.min(dim=1, keepdim=True))
        v, i = run(mode, fn, Tensor(a))
        close(v, want.values.numpy())
        close(i, want.indices.numpy())
        assert i.dtype == ms.int64


@pytest.mark.parametrize("mode", MODES)
def test_max_min_bad_options(mode):
    x, m = Tensor(np.ones((2, 2), np.float32)), Tensor([False, True])
    with pytest.raises(TypeError):
        run(mode, lambda t: t.min(axis=0, initial=9, where=None), x)
    with pytest.raises(TypeError):
        run(mode, lambda t, w: t.min(axis=0, initial=w, where=w), x, m)
    with pytest.raises(TypeError):
        run(mode, lambda t, w: t.max(axis=0, initial=9, where=w, return_indices=1), x, m)
    with pytest.raises(ValueError):
        run(mode, lambda t, w: t.max(axis=0, where=w), x, m)


@pytest.mark.parametrize("mode", MODES)
def test_sum_forms(mode):
    a = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    x = Tensor(a)
    close(run(mode, lambda t: t.sum(), x), a.sum())
    close(run(mode, lambda t: t.sum(axis=[0, 1], keepdims=True), x), a.sum((0, 1), keepdims=True))
    close(run(mode, lambda t: t.sum(2, None, True, 1.5), x), a.sum(2, keepdims=True) + 1.5)
    close(run(mode, lambda t: t.sum(2, True), x), a.sum(2, keepdims=True))  # sum(dim, keepdim)
    close(run(mode, lambda t: t.sum(dim=1), x), a.sum(1))
    # initial added before the cast to dtype (15 + 12 as bool is True)
    y = Tensor(np.array([[1, 2, 3], [2, 3, 4]], np.float32))
    out = run(mode, lambda t: t.sum(dtype=ms.bool_, initial=12), y)
    assert out.dtype == ms.bool_ and bool(out.asnumpy())
    out = run(mode, lambda t: t.sum(dtype=ms.float16), y)
    assert out.dtype == ms.float16
    close(out, 15.0)
    i = Tensor(np.array([1, 2], np.int32))
    out = run(mode, lambda t: t.sum(initial=3), i)
    assert out.dtype == ms.int32
    close(out, 6)


@pytest.mark.parametrize("mode", MODES)
def test_transpose_forms(mode):
    a = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    x = Tensor(a)
    close(run(mode, lambda t: t.transpose(0, 2), x), np.swapaxes(a, 0, 2))
    close(run(mode, lambda t: t.transpose(1, 1), x), a)
    close(run(mode, lambda t: t.transpose((0, 2, 1)), x), a.transpose(0, 2, 1))
    close(run(mode, lambda t: t.transpose([2, 0, 1]), x), a.transpose(2, 0, 1))
    close(run(mode, lambda t: t.transpose(1, 2, 0), x), a.transpose(1, 2, 0))
    close(run(mode, lambda t: t.transpose(), x), a.transpose())
    close(run(mode, lambda t: t.transpose(-1), Tensor(a[0, 0])), a[0, 0])


@pytest.mark.parametrize("mode", MODES)
def test_median(mode):
    a = RNG.integers(0, 5, (4, 6)).astype(np.float32)  # ties: the first index, as torch
    x, ta = Tensor(a), torch.from_numpy(a)
    close(run(mode, lambda t: t.median(), x), ta.median().numpy())
    for dim, keep in ((0, True), (1, False), (-1, False)):
        want = ta.median(dim=dim, keepdim=keep)
        v, i = run(mode, lambda t: t.median(dim=dim, keepdim=keep), x)
        close(v, want.values.numpy())
        close(i, want.indices.numpy())
        v, i = run(mode, lambda t: t.median(axis=dim, keepdims=keep), x)
        close(v, want.values.numpy())
        close(i, want.indices.numpy())


@pytest.mark.parametrize("mode", MODES)
def test_scatter_and_scatter_add(mode):
    a = RNG.standard_normal((3, 5)).astype(np.float32)
    idx = np.array([[0, 4], [2, 1], [3, 3]], np.int64)
    src = RNG.standard_normal((3, 2)).astype(np.float32)
    x, i, s = Tensor(a), Tensor(idx), Tensor(src)
    ta, ti, ts = torch.from_numpy(a), torch.from_numpy(idx), torch.from_numpy(src)
    close(run(mode, lambda t, j, u: t.scatter(dim=1, index=j, src=u), x, Tensor(idx[:, :1]), s),
          ta.scatter(1, ti[:, :1], ts).numpy())
    close(run(mode, lambda t, j: t.scatter(axis=1, index=j, src=2.0), x, Tensor(idx[:, :1])),
          ta.scatter(1, ti[:, :1], 2.0).numpy())
    # repeated indices add up
    close(run(mode, lambda t, j, u: t.scatter_add(1, j, u), x, i, s),
          ta.scatter_add(1, ti, ts).numpy())
    nd = np.array([[0, 0], [0, 0], [2, 1]], np.int32)
    upd = np.array([1.0, 2.5, -1.0], np.float32)
    want = a.copy()
    np.add.at(want, (nd[:, 0], nd[:, 1]), upd)
    close(run(mode, lambda t, j, u: t.scatter_add(j, u), x, Tensor(nd), Tensor(upd)), want)


@pytest.mark.parametrize("mode", MODES)
def test_sort_dim_byte_mm(mode):
    a = RNG.standard_normal((3, 4)).astype(np.float32)
    x = Tensor(a)
    v, i = run(mode, lambda t: t.sort(dim=0, descending=True), x)
    want = torch.from_numpy(a).sort(dim=0, descending=True)
    close(v, want.values.numpy())
    close(i, want.indices.numpy())
    out = run(mode, lambda t: t.byte(), Tensor(np.array([1.7, 3.0], np.float32)))
    assert out.dtype == ms.uint8
    close(out, [1, 3])
    b = RNG.standard_normal((4, 2)).astype(np.float32)
    close(run(mode, lambda p, q: p.mm(q), x, Tensor(b)), a @ b)
    with pytest.raises(TypeError):
        run(mode, lambda p: p.mm(3), x)
    with pytest.raises(ValueError):
        run(mode, lambda p, q: p.mm(q), x, x)


def test_bincount_pynative():
    v = np.array([2, 4, 1, 0, 0, 4], np.int64)
    w = np.array([0.0, 0.25, 0.5, 0.75, 1.0, 2.0], np.float32)
    close(Tensor(v).bincount(Tensor(w), 7), np.bincount(v, w, 7))
    close(Tensor(v).bincount(), np.bincount(v))
    close(Tensor(v).bincount(minlength=2), np.bincount(v, minlength=2))
    with pytest.raises(ValueError):
        Tensor(np.array([1, -1], np.int32)).bincount()
    with pytest.raises(TypeError):
        Tensor(np.ones((2, 2), np.int32)).bincount()


def test_bincount_refused_in_graph_mode():
    # its length depends on the values: GRAPH mode refuses it with a typed error
    with pytest.raises((TypeError, ValueError)):
        run(ms.GRAPH_MODE, lambda t: t.bincount(), Tensor(np.array([1, 2], np.int64)))


@pytest.mark.parametrize("mode", MODES)
def test_div_trunc_dtype(mode):
    a = np.array([7, -7, 9], np.int32)
    b = np.array([2, 2, -4], np.int32)
    out = run(mode, lambda p, q: p.div(q, rounding_mode="trunc"), Tensor(a), Tensor(b))
    want = torch.div(torch.from_numpy(a), torch.from_numpy(b), rounding_mode="trunc")
    assert out.dtype == ms.int32
    close(out, want.numpy())
    f = np.array([1.0, 5.0, -9.5], np.float32)
    out = run(mode, lambda p: p.div(2, rounding_mode="trunc"), Tensor(f))
    assert out.dtype == ms.float32
    close(out, np.trunc(f / 2))


@pytest.mark.parametrize("mode", MODES)
def test_clamp_clip_mean_checks(mode):
    a = RNG.standard_normal((2, 3)).astype(np.float32)
    x = Tensor(a)
    close(run(mode, lambda t: t.clamp(-0.5, 0.5), x), np.clip(a, -0.5, 0.5))
    close(run(mode, lambda t: t.clip(None, 0.1), x), np.minimum(a, 0.1))
    close(run(mode, lambda t, lo, hi: t.clamp(lo, hi), x, Tensor(np.float32(-0.2)),
              Tensor(np.float32(0.3))), np.clip(a, -0.2, 0.3))
    with pytest.raises(TypeError):
        run(mode, lambda t, lo: t.clamp(lo, 20), x, Tensor(np.float32(5)))
    with pytest.raises(ValueError):
        run(mode, lambda t: t.clip(None, None), x)
    close(run(mode, lambda t: t.mean(1, True), x), a.mean(1, keepdims=True))
    close(run(mode, lambda t: t.mean(dim=(0, 1)), x), a.mean())
    with pytest.raises(TypeError):
        run(mode, lambda t: t.mean(dim=2.0, keepdim=True), x)
    with pytest.raises(TypeError):
        run(mode, lambda t: t.mean(dim=1, keepdim=1), x)


@pytest.mark.parametrize("mode", MODES)
def test_take_gcd_lcm(mode):
    a = RNG.standard_normal((2, 3)).astype(np.float32)
    x = Tensor(a)
    idx = np.array([2, 7, -1], np.int64)
    close(run(mode, lambda t, i: t.take(i), x, Tensor(idx)), np.take(a, idx, mode="clip"))
    idx2 = np.array([[2, 4], [-1, 0]], np.int64)
    close(run(mode, lambda t, i: t.take(i, 1, "wrap"), x, Tensor(idx2)),
          np.take(a, idx2, 1, mode="wrap"))
    p = np.array([7, 8, 9, 0, -12, 0, 1071], np.int32)
    q = np.array([14, 6, 12, 5, 18, 0, 462], np.int32)
    out = run(mode, lambda u, v: u.gcd(v), Tensor(p), Tensor(q))
    assert out.dtype == ms.int32
    close(out, np.gcd(p, q))
    r = np.array([5], np.int64)
    out = run(mode, lambda u, v: u.lcm(v), Tensor(p), Tensor(r))
    assert out.dtype == ms.int64
    close(out, np.lcm(p, r))
    with pytest.raises(TypeError):
        run(mode, lambda u, v: u.gcd(v), Tensor(a), Tensor(a))


@pytest.mark.parametrize("mode", MODES)
def test_diagonal_scatter_nanmedian(mode):
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    tx = torch.from_numpy(x)
    for src_shape, off, d1, d2 in (((2, 3), 1, 1, 2), ((4, 1), -1, 0, 1), ((3, 2), 0, -1, 0)):
        src = RNG.standard_normal(src_shape).astype(np.float32)
        got = run(mode, lambda a, b: a.diagonal_scatter(b, offset=off, dim1=d1, dim2=d2),
                  Tensor(x), Tensor(src))
        close(got, torch.diagonal_scatter(tx, torch.from_numpy(src), off, d1, d2).numpy())
    with pytest.raises(ValueError):
        run(mode, lambda a, b: a.diagonal_scatter(b, 1, 1, 2), Tensor(x), Tensor(x))
    z = RNG.standard_normal((5, 6)).astype(np.float32)
    z[z > 0.6] = np.nan
    z[0] = np.nan  # a row of NaN only
    for axis, keep in ((1, False), (0, True)):
        v, i = run(mode, lambda a: a.nanmedian(axis, keep), Tensor(z))
        want = torch.from_numpy(z).nanmedian(axis, keep)
        np.testing.assert_allclose(v.asnumpy(), want.values.numpy(), equal_nan=True)
        # an all-NaN slice: mycel's index is its first NaN (torch's is not specified)
        some = ~np.all(np.isnan(z), axis=axis, keepdims=keep)
        np.testing.assert_array_equal(i.asnumpy()[some], want.indices.numpy()[some])
        np.testing.assert_array_equal(i.asnumpy()[~some], 0)


@pytest.mark.parametrize("mode", MODES)
def test_index_put_unfold(mode):
    w = RNG.integers(-5, 5, (3, 4)).astype(np.int32)
    i0, i1 = np.array([0, 2, 0], np.int32), np.array([1, 3, 1], np.int32)
    v = np.array([7, 8, 9], np.int32)
    for acc in (True, False):
        got = run(mode, lambda a, p, q, u: a.index_put([p, q], u, acc), Tensor(w), Tensor(i0),
                  Tensor(i1), Tensor(v))
        want = torch.from_numpy(w).index_put((torch.from_numpy(i0).long(),
                                              torch.from_numpy(i1).long()),
                                             torch.from_numpy(v), accumulate=acc)
        if acc:
            close(got, want.numpy())
        else:  # a position named twice takes one of its values (as torch's)
            close(got[2, 3], 8)
            assert got.asnumpy()[0, 1] in (7, 9)
    u = RNG.standard_normal((2, 3, 7, 6)).astype(np.float32)
    for k, d, p, s in ((3, 1, 0, 1), ((3, 2), (1, 2), 1, (2, 1))):
        got = run(mode, lambda a: a.unfold(k, d, p, s), Tensor(u))
        close(got, torch.nn.functional.unfold(torch.from_numpy(u), k, d, p, s).numpy())


def test_layout_queries_eager():
    x = Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    assert x.stride() == (12, 4, 1) and x.stride(1) == 4 and x.storage_offset() == 0
    y = x.transpose(0, 2)  # a view
    assert y.stride() == (1, 4, 12) and not y.is_contiguous()
    z = x[1]
    assert z.storage_offset() == 12 and z.stride() == (4, 1)
    c = y.contiguous()
    assert c.is_contiguous() and c.stride() == (6, 2, 1)
    np.testing.assert_array_equal(c.asnumpy(), np.arange(24).reshape(2, 3, 4).transpose(2, 1, 0))


def test_layout_queries_in_graph_code():
    # graph values are contiguous and row-major: the graph forms of these methods say so
    out = run(ms.GRAPH_MODE, lambda t: (t.stride(), t.stride(0), t.storage_offset(),
                                        t.is_contiguous(), t.transpose(0, 1).contiguous() * 2),
              Tensor(np.ones((2, 3), np.float32)))
    assert out[:4] == ((3, 1), 3, 0, True)
    close(out[4], np.full((3, 2), 2.0))


@pytest.mark.parametrize("mode", MODES)
def test_argmax_argmin_take_dim_and_keepdim(mode):
    # MindSpore's Tensor.argmax(dim=, keepdim=) spelling beside (axis, keepdims)
    a = RNG.standard_normal((3, 4)).astype(np.float32)
    x = Tensor(a)
    close(run(mode, lambda t: t.argmax(dim=-1), x), a.argmax(-1))
    close(run(mode, lambda t: t.argmin(dim=0, keepdim=True), x), a.argmin(0)[None])
    close(run(mode, lambda t: t.argmax(1, True), x), a.argmax(1)[:, None])
    close(run(mode, lambda t: t.argmax(), x), a.argmax())
    with pytest.raises(TypeError, match="axis or dim"):
        run(mode, lambda t: t.argmax(0, dim=1), x)
