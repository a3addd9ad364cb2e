"""The composed array functions of ops/function/array_func.py (ops.eye ... ops.cummax)
and their primitives, against numpy and PyTorch, in PYNATIVE and GRAPH mode (a Cell whose
construct calls the function: the `mode` fixture), gradients against torch, argument
errors typed."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import ops
from ms_cell import run

RNG = np.random.default_rng(13)


def _f(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def _grad(fn, *arrays):
    """mycel's gradients of sum(fn(*xs) * w) for a fixed random w, and torch's of the same
    function given as torch code by the caller (returned as the first element)."""
    xs = [ms.Tensor(a) for a in arrays]
    out = fn(*xs)
    w = RNG.standard_normal(tuple(out.shape)).astype(out.asnumpy().dtype)
    g = ms.grad(lambda *a: (fn(*a) * ms.Tensor(w)).sum(), grad_position=tuple(range(len(xs))))(
        *xs)
    g = g if isinstance(g, tuple) else (g,)
    return [t.asnumpy() for t in g], w


def test_eye_full_like_and_triangle_indices(mode):
    np.testing.assert_array_equal(run(lambda: ops.eye(3, 5, ms.int32)), np.eye(3, 5))
    assert run(lambda: ops.eye(4)).dtype == np.float32
    x = _f(2, 3)
    got = run(lambda a: ops.full_like(a, 7.5), x)
    np.testing.assert_array_equal(got, np.full((2, 3), 7.5, np.float32))
    got = run(lambda a: ops.full_like(a, 3, dtype=ms.int64), x)
    assert got.dtype == np.int64 and (got == 3).all()
    for r, c, o in ((4, 3, 0), (3, 5, 1), (5, 4, -2)):
        np.testing.assert_array_equal(run(lambda: ops.tril_indices(r, c, o)),
                                      torch.tril_indices(r, c, o).numpy())
        np.testing.assert_array_equal(run(lambda: ops.triu_indices(r, c, o)),
                                      torch.triu_indices(r, c, o).numpy())
    np.testing.assert_array_equal(run(lambda: ops.TrilIndices(4, 3)()),
                                  torch.tril_indices(4, 3).numpy())


def test_vander_and_logspace(mode):
    x = np.array([1.5, -2.0, 0.5, 3.0], np.float64)
    np.testing.assert_allclose(run(ops.vander, x), np.vander(x), rtol=1e-12)
    np.testing.assert_allclose(run(lambda a: ops.vander(a, N=6), x), np.vander(x, 6),
                               rtol=1e-12)
    got = run(lambda: ops.logspace(-1.0, 2.0, 7, 2, dtype=ms.float64))
    np.testing.assert_allclose(got, np.logspace(-1, 2, 7, base=2), rtol=1e-12)
    got = run(lambda s, e: ops.logspace(s, e, 5), np.array(0.0, np.float32),
              np.array(3.0, np.float32))
    np.testing.assert_allclose(got, np.logspace(0, 3, 5), rtol=1e-5)


def test_views_and_joins(mode):
    a, b, c = _f(3), _f(3), _f(3)
    m, n = _f(2, 3), _f(4, 3)
    np.testing.assert_array_equal(run(ops.t, m), m.T)
    np.testing.assert_array_equal(run(ops.t, a), a)
    np.testing.assert_array_equal(run(ops.ravel, _f(2, 3, 4) * 0 + m.reshape(2, 3, 1)),
                                  np.broadcast_to(m.reshape(2, 3, 1), (2, 3, 4)).ravel())
    np.testing.assert_array_equal(run(lambda x, y, z: ops.hstack((x, y, z)), a, b, c),
                                  np.hstack((a, b, c)))
    np.testing.assert_array_equal(run(lambda x, y: ops.vstack([x, y]), m, n), np.vstack((m, n)))
    np.testing.assert_array_equal(run(lambda x, y: ops.vstack((x, y)), a, b), np.vstack((a, b)))
    np.testing.assert_array_equal(run(lambda x, y: ops.row_stack((x, y)), a, b),
                                  np.vstack((a, b)))
    np.testing.assert_array_equal(run(lambda x, y: ops.dstack((x, y)), m, m), np.dstack((m, m)))
    np.testing.assert_array_equal(run(lambda x, y: ops.dstack((x, y)), a, b), np.dstack((a, b)))
    p = _f(3, 2)
    np.testing.assert_array_equal(run(lambda x, y, z: ops.column_stack((x, y, z)), a, p, b),
                                  np.column_stack((a, p, b)))
    for k, f in ((1, np.atleast_1d), (2, np.atleast_2d), (3, np.atleast_3d)):
        fn = getattr(ops, f"atleast_{k}d")
        for arr in (np.array(2.5, np.float32), a, m, _f(2, 3, 4)):
            assert run(fn, arr).shape == f(arr).shape
        outs = run(lambda x, y: fn((x, y)), a, m)
        assert [o.shape for o in outs] == [f(a).shape, f(m).shape]


@pytest.mark.parametrize("n,chunks,axis", [(7, 3, 0), (6, 3, 1), (5, 2, -1), (2, 5, 0)])
def test_chunk_matches_torch(mode, n, chunks, axis):
    x = _f(n, n + 1) if axis == 0 else _f(3, n)
    got = run(lambda a: ops.chunk(a, chunks, axis), x)
    want = torch.chunk(torch.from_numpy(x), chunks, axis)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w.numpy())


def test_meshgrid_both_indexings(mode):
    x, y, z = _f(3), _f(4), _f(2)
    for ind in ("xy", "ij"):
        got = run(lambda a, b, c: ops.meshgrid(a, b, c, indexing=ind), x, y, z)
        want = np.meshgrid(x, y, z, indexing=ind)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    got = run(lambda a, b: ops.Meshgrid("ij")((a, b)), x, y)
    for g, w in zip(got, np.meshgrid(x, y, indexing="ij")):
        np.testing.assert_array_equal(g, w)


def test_block_diag_rot90_kron(mode):
    a, b, c = _f(2, 3), _f(1, 2), _f(3)
    got = run(lambda x, y, z: ops.block_diag(x, y, z), a, b, c)
    want = torch.block_diag(*(torch.from_numpy(v) for v in (a, b, c))).numpy()
    np.testing.assert_array_equal(got, want)
    x = _f(2, 3, 4)
    for k in (-1, 0, 1, 2, 3, 5):
        for dims in ((0, 1), (1, 2), (2, 0)):
            np.testing.assert_array_equal(run(lambda t: ops.rot90(t, k, dims), x),
                                          np.rot90(x, k, dims))
    p, q = _f(2, 3), _f(3, 1, 2)
    np.testing.assert_allclose(run(ops.kron, p, q), np.kron(p, q), rtol=1e-6)
    ip, iq = np.arange(6).reshape(2, 3), np.arange(4).reshape(2, 2)
    np.testing.assert_array_equal(run(ops.kron, ip, iq), np.kron(ip, iq))


def test_products(mode):
    a, b, v = _f(3, 4), _f(4, 5), _f(4)
    np.testing.assert_allclose(run(ops.mm, a, b), a @ b, rtol=1e-5)
    np.testing.assert_allclose(run(ops.mv, a, v), a @ v, rtol=1e-5)
    x, y = _f(2, 3, 4), _f(5, 4, 6)
    np.testing.assert_allclose(run(ops.dot, x, y), np.dot(x, y), rtol=1e-5, atol=1e-6)
    p, q = _f(3, 4, 5), _f(4, 5, 2)
    np.testing.assert_allclose(run(lambda s, t: ops.tensor_dot(s, t, 2), p, q),
                               np.tensordot(p, q, 2), rtol=1e-5, atol=1e-5)
    m1, m2 = _f(4, 3), _f(2, 4)
    np.testing.assert_allclose(run(lambda s, t: ops.tensor_dot(s, t, ((0,), (1,))), m1, m2),
                               np.tensordot(m1, m2, ((0,), (1,))), rtol=1e-5, atol=1e-6)
    u, w = _f(3, 2, 4), _f(3, 4, 5)
    np.testing.assert_allclose(run(ops.batch_dot, u, w), np.einsum("bik,bkj->bij", u, w),
                               rtol=1e-5, atol=1e-6)
    s, t = _f(4, 6), _f(4, 6)
    got = run(lambda m, n: ops.batch_dot(m, n, (1, 1)), s, t)
    np.testing.assert_allclose(got, (s * t).sum(1, keepdims=True), rtol=1e-5)
    c1, c2 = _f(4, 3, 2), _f(4, 3, 2)
    np.testing.assert_allclose(run(ops.cross, c1, c2), np.cross(c1, c2, axis=1), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(run(lambda m, n: ops.cross(m, n, -2), c1, c2),
                               np.cross(c1, c2, axis=1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(run(lambda m, n: ops.vecdot(m, n, axis=0), c1, c2),
                               (c1 * c2).sum(0), rtol=1e-5)


def test_product_gradients_match_torch():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x, y = _f(2, 3).astype(np.float64), _f(3, 3).astype(np.float64)
    (gx, gy), w = _grad(ops.kron, x, y)
    tx, ty = (torch.tensor(v, requires_grad=True) for v in (x, y))
    (torch.kron(tx, ty) * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(gx, tx.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(gy, ty.grad.numpy(), rtol=1e-10)
    a, b = _f(4, 3).astype(np.float64), _f(4, 3).astype(np.float64)
    (ga, gb), w = _grad(ops.cross, a, b)
    ta, tb = (torch.tensor(v, requires_grad=True) for v in (a, b))
    (torch.cross(ta, tb, dim=1) * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(ga, ta.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(gb, tb.grad.numpy(), rtol=1e-10)


def test_diag_and_diag_embed(mode):
    v = _f(4)
    np.testing.assert_array_equal(run(ops.diag, v), np.diag(v))
    m = _f(2, 3)
    want = np.zeros((2, 3, 2, 3), np.float32)
    for i in range(2):
        for j in range(3):
            want[i, j, i, j] = m[i, j]
    np.testing.assert_array_equal(run(ops.diag, m), want)
    np.testing.assert_array_equal(run(ops.Diag(), m), want)
    x = _f(2, 3)
    for off, d1, d2 in ((0, -2, -1), (1, 0, 2), (-2, 2, 0), (2, 1, 0)):
        got = run(lambda t: ops.diag_embed(t, off, d1, d2), x)
        want = torch.diag_embed(torch.from_numpy(x), off, d1, d2).numpy()
        np.testing.assert_array_equal(got, want)


def test_gather_nd_sequence_mask_reverse_sequence(mode):
    x = _f(3, 4, 5)
    idx = np.array([[0, 1], [2, 3], [-1, 0]], np.int32)
    np.testing.assert_array_equal(run(ops.gather_nd, x, idx),
                                  np.stack([x[0, 1], x[2, 3], x[-1, 0]]))
    np.testing.assert_array_equal(run(ops.GatherNd(), x, np.array([[[1]], [[2]]], np.int64)),
                                  x[[[1], [2]]])
    lengths = np.array([[1, 3], [2, 0]], np.int32)
    got = run(lambda L: ops.sequence_mask(L, 4), lengths)
    np.testing.assert_array_equal(got, np.arange(4) < lengths[..., None])
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    sl = np.array([2, 6, 0, 4], np.int64)
    got = run(lambda a, s: ops.reverse_sequence(a, s, 1, 0), x, sl)
    want = x.copy()
    for b, n in enumerate(sl):
        want[b, :n] = x[b, :n][::-1]
    np.testing.assert_array_equal(got, want)
    got = run(lambda a, s: ops.ReverseSequence(0, 1)(a, s), x.T.copy(), sl)
    np.testing.assert_array_equal(got, want.T)
    np.testing.assert_array_equal(run(lambda a: ops.repeat_elements(a, 3, 1), x[:2]),
                                  np.repeat(x[:2], 3, 1))


def test_predicates_and_numel():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    t = ms.Tensor(_f(2, 3))
    assert ops.is_tensor(t) and not ops.is_tensor(np.zeros(2))
    assert ops.is_floating_point(t) and not ops.is_floating_point(ms.Tensor(np.int32(3)))
    assert ops.numel(t) == 6
    assert ops.is_nonzero(ms.Tensor(np.array([[0.5]]))) is True
    assert ops.is_nonzero(ms.Tensor(np.array(0))) is False
    with pytest.raises(RuntimeError, match="is_nonzero"):
        ops.is_nonzero(t)


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_cummax_cummin_match_torch(mode, dtype):
    x = RNG.integers(-4, 5, (4, 7)).astype(dtype)  # ties on purpose
    for axis in (0, 1, -1):
        for name in ("cummax", "cummin"):
            vals, idx = run(lambda a: getattr(ops, name)(a, axis), x)
            tv, ti = getattr(torch, name)(torch.from_numpy(x), axis)
            np.testing.assert_array_equal(vals, tv.numpy())
            np.testing.assert_array_equal(idx, ti.numpy())
    vals, idx = run(lambda a: ops.Cummax(1)(a), x)
    np.testing.assert_array_equal(vals, np.maximum.accumulate(x, 1))


@pytest.mark.parametrize("dtype", [np.uint64, np.uint32, np.uint16, np.uint8, np.int8, np.bool_])
def test_cummax_cummin_of_every_integer_width(mode, dtype):
    # the running extreme starts at the dtype's own bound (for uint64 it was int64's, cast:
    # 2**63, which a cummax of small values returned)
    x = RNG.integers(0, 120, (3, 6)).astype(dtype)
    if dtype == np.uint64:
        x[1, 2] = 2 ** 64 - 3
    for name, acc in (("cummax", np.maximum), ("cummin", np.minimum)):
        vals, _ = run(lambda a: getattr(ops, name)(a, 1), x)
        np.testing.assert_array_equal(vals, acc.accumulate(x, 1))


def test_cummax_gradient_matches_torch():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    x = RNG.standard_normal((3, 6))
    (g,), w = _grad(lambda a: ops.cummax(a, 1)[0], x)
    tx = torch.tensor(x, requires_grad=True)
    (torch.cummax(tx, 1)[0] * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(g, tx.grad.numpy(), rtol=1e-12)


def test_combinations(mode):
    import itertools
    x = _f(5)
    got = run(lambda a: ops.combinations(a, 3), x)
    np.testing.assert_array_equal(got, np.array(list(itertools.combinations(x, 3))))


def test_argument_errors():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    t = ms.Tensor(_f(2, 3))
    with pytest.raises(ValueError, match="'t'"):
        ops.t(ms.Tensor(_f(2, 2, 2)))
    with pytest.raises(ValueError, match="'mm'"):
        ops.mm(t, t)
    with pytest.raises(TypeError, match="'dot'"):
        ops.dot(t, ms.Tensor(_f(3, 2).astype(np.float64)))
    with pytest.raises(ValueError, match="'cross'"):
        ops.cross(ms.Tensor(_f(2, 4)), ms.Tensor(_f(2, 4)))
    with pytest.raises(TypeError, match="'eye'"):
        ops.eye(2.5)
    with pytest.raises(ValueError, match="'chunk'"):
        ops.chunk(t, 0)
    with pytest.raises(ValueError, match="'meshgrid'"):
        ops.meshgrid(t, t)
    with pytest.raises(ValueError, match="'rot90'"):
        ops.rot90(t, 1, (0, 0))
    with pytest.raises(TypeError, match="'GatherNd'"):
        ops.gather_nd(t, ms.Tensor(np.array([[0.0]], np.float32)))
    with pytest.raises(TypeError, match="'hstack'"):
        ops.hstack(t)


def test_range_takes_maxlen(mode):
    # MindSpore's ops.range(start, end, step, maxlen): the output as numpy's arange, and at
    # most maxlen elements
    np.testing.assert_array_equal(run(lambda: ops.range(0, 10, 2, maxlen=10)), np.arange(0, 10, 2))
    np.testing.assert_array_equal(run(lambda: ops.range(1.0, 2.0, 0.25)),
                                  np.arange(1.0, 2.0, 0.25, dtype=np.float32))
    with pytest.raises(ValueError, match="more than maxlen"):
        run(lambda: ops.range(0, 10, 1, maxlen=5))
    with pytest.raises(TypeError, match="maxlen"):
        run(lambda: ops.range(0, 10, 1, maxlen=0))


class _Cummax(ms.nn.Cell):
    def construct(self, x):
        return ops.cummax(x, 1)[0]


def test_cummax_along_a_dynamic_axis_says_so():
    old = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.GRAPH_MODE)
        net = _Cummax()
        net.set_inputs(ms.Tensor(shape=[2, None], dtype=ms.float32))
        with pytest.raises(ValueError, match="cummax.*axis 1 must be known at compile time"):
            net(ms.Tensor(np.ones((2, 3), np.float32)))
        # along a static axis a dynamic batch is fine
        net.set_inputs(ms.Tensor(shape=[None, 3], dtype=ms.float32))
        x = RNG.standard_normal((4, 3)).astype(np.float32)
        np.testing.assert_array_equal(net(ms.Tensor(x)).asnumpy(), np.maximum.accumulate(x, 1))
    finally:
        ms.set_context(mode=old)


def test_vecdot_conjugates_complex_x(mode):
    # torch.linalg.vecdot (and MindSpore's): sum(conj(x) * y); the real case is unchanged
    x = (RNG.standard_normal((3, 4)) + 1j * RNG.standard_normal((3, 4))).astype(np.complex64)
    y = (RNG.standard_normal((4,)) + 1j * RNG.standard_normal((4,))).astype(np.complex64)
    got = run(lambda a, b: ops.vecdot(a, b, axis=-1), x, y)
    want = torch.linalg.vecdot(torch.from_numpy(x), torch.from_numpy(y)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    xr = RNG.standard_normal((2, 5)).astype(np.float32)
    np.testing.assert_allclose(run(lambda a: ops.vecdot(a, a), xr), (xr * xr).sum(-1),
                               rtol=1e-5)
