"""Ops whose output shape depends on the input values (the op table's DYN_OUT entries: Unique,
MaskedSelect, NonZero) and MaskedScatter, in PYNATIVE and GRAPH mode: against numpy (and
PyTorch for MaskedScatter and the gradients), chained with ops that see the run-time shape, one
compilation for inputs whose values give different output sizes, gradients, vmap, errors."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import Tensor, nn, ops
from mycel.ops import operations as P

from ms_cell import Fn


def run(fn, *args):
    return Fn(fn)(*args)


def first_occurrence_unique(x):
    """numpy's unique reordered by first occurrence, with the inverse and counts."""
    flat = x.reshape(-1)
    vals, first, inv, counts = np.unique(flat, return_index=True, return_inverse=True,
                                         return_counts=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return vals[order], rank[inv].reshape(x.shape), counts[order]


# ------------------------------------------------------------------ Unique
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64, np.int32, np.int64,
                                   np.uint8, np.int8])
def test_unique_matches_numpy_first_occurrence(mode, dtype):
    rng = np.random.RandomState(0)
    x = rng.randint(0, 7, size=(5, 6)).astype(dtype)
    y, idx = run(ops.unique, Tensor(x))
    want_y, want_idx, _ = first_occurrence_unique(x)
    np.testing.assert_array_equal(y.asnumpy(), want_y)
    np.testing.assert_array_equal(idx.asnumpy(), want_idx)
    assert idx.shape == x.shape
    assert idx.dtype == (ms.int64 if dtype == np.int64 else ms.int32)
    # The values rebuild x.
    np.testing.assert_array_equal(y.asnumpy()[idx.asnumpy()], x)


def test_primitive_unique_returns_values_and_indices(mode):
    y, idx = run(P.Unique(), Tensor(np.array([1, 5, 2, 2], np.float32)))
    np.testing.assert_array_equal(y.asnumpy(), [1, 5, 2])
    np.testing.assert_array_equal(idx.asnumpy(), [0, 1, 2, 2])


@pytest.mark.parametrize("sorted_", [True, False])
def test_unique_ext_matches_numpy_with_nan_and_counts(mode, sorted_):
    x = np.array([2., np.nan, -0., 1., 0., np.nan, 2., -1., 1.], np.float32)
    y, inv, counts = run(lambda t: t.unique(sorted_, True, True), Tensor(x))
    if sorted_:
        # numpy: NaNs last, each its own value (Debian's torch.unique puts them before 2).
        wy, winv, wcounts = np.unique(x, return_inverse=True, return_counts=True,
                                      equal_nan=False)
        np.testing.assert_array_equal(y.asnumpy(), wy)
        np.testing.assert_array_equal(inv.asnumpy(), winv)
        np.testing.assert_array_equal(counts.asnumpy(), wcounts)
    else:
        np.testing.assert_array_equal(y.asnumpy(), [2., np.nan, 0., 1., np.nan, -1.])
        np.testing.assert_array_equal(inv.asnumpy(), [0, 1, 2, 3, 2, 4, 0, 5, 3])
        np.testing.assert_array_equal(counts.asnumpy(), [2, 1, 2, 2, 1, 1])
    assert inv.dtype == ms.int64 and counts.dtype == ms.int64
    only = run(lambda t: t.unique(), Tensor(np.array([3, 1, 3], np.int32)))
    np.testing.assert_array_equal(only.asnumpy(), [1, 3])


def test_unique_of_empty_and_0d(mode):
    y, idx = run(ops.unique, Tensor(np.zeros((0,), np.float32)))
    assert y.shape == (0,) and idx.shape == (0,)
    y, idx = run(ops.unique, Tensor(np.array(4, np.int64)))
    np.testing.assert_array_equal(y.asnumpy(), [4])
    assert idx.shape == () and int(idx.asnumpy()) == 0


# ------------------------------------------------------------------ the shape decided at run time
class UniqueThen(nn.Cell):
    """The later ops see the run-time size of Unique's output."""

    def __init__(self):
        super().__init__()
        self.unique = P.Unique()

    def construct(self, x):
        y, idx = self.unique(x)
        z = y * 2 + 1
        return z, z.sum(), ops.reshape(y, (-1, 1)) + ops.zeros((1, 2), ms.float32), idx


def test_ops_after_unique_see_the_run_time_shape_with_one_compilation():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = UniqueThen()
        for vals in ([1, 2, 5, 2], [3, 3, 3, 3], [4, 1, 2, 3]):  # 3, 1 and 4 distinct values
            x = np.array(vals, np.float32)
            z, s, col, idx = net(Tensor(x))
            want, want_idx, _ = first_occurrence_unique(x)
            np.testing.assert_array_equal(z.asnumpy(), want * 2 + 1)
            assert float(s.asnumpy()) == float((want * 2 + 1).sum())
            np.testing.assert_array_equal(col.asnumpy(), np.repeat(want[:, None], 2, axis=1))
            np.testing.assert_array_equal(idx.asnumpy(), want_idx)
        assert net._mycel_graph._graph.num_compiles == 1
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_unique_then_reshape_to_a_static_shape(mode):
    # MindSpore's tests make a shape dynamic this way: Unique, then a reshape to what it is.
    def f(x):
        y, _ = ops.unique(x)
        return ops.reshape(y, (3, 3)) * 2

    x = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 1], np.float32)
    np.testing.assert_array_equal(run(f, Tensor(x)).asnumpy(), np.arange(1, 10).reshape(3, 3) * 2)
    with pytest.raises(ValueError):
        run(f, Tensor(np.array([1, 2, 2], np.float32)))


# ------------------------------------------------------------------ MaskedSelect
@pytest.mark.parametrize("xs,ms_", [((3, 4), (3, 4)), ((4,), (2, 3, 1)), ((2, 3, 4), (4,)),
                                    ((0, 3), (3,))])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.bool_, np.float16])
def test_masked_select_matches_numpy(mode, xs, ms_, dtype):
    rng = np.random.RandomState(1)
    x = (rng.randn(*xs) * 5).astype(dtype)
    m = rng.rand(*ms_) > 0.5
    xb, mb = np.broadcast_arrays(x, m)
    want = xb[mb]
    for fn in (ops.masked_select, P.MaskedSelect(), lambda a, b: a.masked_select(b)):
        got = run(fn, Tensor(x), Tensor(m))
        assert got.shape == want.shape
        np.testing.assert_array_equal(got.asnumpy(), want)


def grad_all_with_sens(fn):
    return ops.GradOperation(get_all=True, sens_param=True)(fn)


@pytest.mark.parametrize("xs,ms_", [((3, 4), (3, 4)), ((4,), (4, 1)), ((2, 1, 3), (4, 1))])
def test_masked_select_gradient_matches_torch(mode, xs, ms_):
    rng = np.random.RandomState(2)
    x = rng.randn(*xs).astype(np.float32)
    m = rng.rand(*ms_) > 0.4
    k = int(np.broadcast_arrays(x, m)[1].sum())
    dy = rng.randn(k).astype(np.float32)
    dx = run(grad_all_with_sens(P.MaskedSelect()), Tensor(x), Tensor(m), Tensor(dy))[0]
    tx = torch.tensor(x, requires_grad=True)
    torch.masked_select(tx, torch.tensor(m)).backward(torch.tensor(dy))
    np.testing.assert_allclose(dx.asnumpy(), tx.grad.numpy(), rtol=1e-6, atol=1e-6)


class GradOfMaskedSelect(nn.Cell):
    def __init__(self):
        super().__init__()
        self.grad = grad_all_with_sens(P.MaskedSelect())

    def construct(self, x, mask, dy):
        return self.grad(x, mask, dy)


def test_masked_select_gradient_with_a_dynamic_input_shape():
    # x compiled as [None]: the broadcast shape, the selection and its gradient at run time.
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        grad = GradOfMaskedSelect()
        m = np.array([[0], [1], [0], [1]], np.bool_)
        grad.set_inputs(Tensor(shape=[None], dtype=ms.float32), Tensor(m),
                        Tensor(shape=[None], dtype=ms.float32))
        for n in (4, 1, 6):
            x = np.arange(1, n + 1, dtype=np.float32)
            dy = np.arange(2 * n, dtype=np.float32)
            dx = grad(Tensor(x), Tensor(m), Tensor(dy))[0]
            tx = torch.tensor(x, requires_grad=True)
            torch.masked_select(tx, torch.tensor(m)).backward(torch.tensor(dy))
            np.testing.assert_array_equal(dx.asnumpy(), tx.grad.numpy())
        assert grad._mycel_graph._graph.num_compiles == 1
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


# ------------------------------------------------------------------ MaskedScatter
@pytest.mark.parametrize("ms_", [(3, 4), (4,), (3, 1)])
def test_masked_scatter_and_its_gradient_match_torch(mode, ms_):
    rng = np.random.RandomState(3)
    x = rng.randn(3, 4).astype(np.float32)
    m = rng.rand(*ms_) > 0.5
    src = rng.randn(2, 7).astype(np.float32)
    want = torch.tensor(x).masked_scatter(torch.tensor(m), torch.tensor(src))
    for fn in (ops.masked_scatter, P.MaskedScatter(), lambda a, b, c: a.masked_scatter(b, c)):
        np.testing.assert_array_equal(run(fn, Tensor(x), Tensor(m), Tensor(src)).asnumpy(),
                                      want.numpy())
    dout = rng.randn(3, 4).astype(np.float32)
    dx, _, dsrc = run(grad_all_with_sens(P.MaskedScatter()), Tensor(x), Tensor(m), Tensor(src),
                      Tensor(dout))
    tx = torch.tensor(x, requires_grad=True)
    ts = torch.tensor(src, requires_grad=True)
    tx.masked_scatter(torch.tensor(m), ts).backward(torch.tensor(dout))
    np.testing.assert_allclose(dx.asnumpy(), tx.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(dsrc.asnumpy(), ts.grad.numpy(), rtol=1e-6)


# ------------------------------------------------------------------ NonZero / argwhere
@pytest.mark.parametrize("shape", [(2, 3, 4), (7,), (), (3, 0)])
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_, np.float16])
def test_nonzero_and_argwhere_match_numpy(mode, shape, dtype):
    rng = np.random.RandomState(4)
    x = np.where(rng.rand(*shape) > 0.5, rng.randn(*shape) + 3, 0).astype(dtype)
    want = np.argwhere(x)
    for fn in (ops.nonzero, ops.argwhere, P.NonZero(), lambda t: t.nonzero(),
               lambda t: t.argwhere()):
        got = run(fn, Tensor(x))
        assert got.dtype == ms.int64 and got.shape == want.shape
        np.testing.assert_array_equal(got.asnumpy(), want)


def test_nonzero_as_tuple_matches_numpy(mode):
    x = np.array([[0, 1.5, 0], [2, 0, -1]], np.float32)
    got = run(lambda t: t.nonzero(as_tuple=True), Tensor(x))
    want = np.nonzero(x)
    assert len(got) == 2
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.asnumpy(), w)
    # as_tuple is keyword-only, as MindSpore's.
    with pytest.raises(TypeError):
        Tensor(x).nonzero(False)
    with pytest.raises(TypeError):
        ops.nonzero(Tensor(x), True)


def test_nonzero_counts_nan_and_not_negative_zero(mode):
    x = np.array([0., np.nan, -0., 1.], np.float32)
    np.testing.assert_array_equal(run(ops.nonzero, Tensor(x)).asnumpy(), [[1], [3]])


# ------------------------------------------------------------------ vmap
def test_vmap_of_masked_select_with_a_shared_mask_equals_a_loop():
    x = np.random.RandomState(5).randn(4, 3, 5).astype(np.float32)
    m = np.random.RandomState(6).rand(3, 5) > 0.5
    mt = Tensor(m)
    got = ms.vmap(lambda a: ops.masked_select(a, mt))(Tensor(x))
    np.testing.assert_array_equal(got.asnumpy(), np.stack([xi[m] for xi in x]))


def test_vmap_refuses_unique_and_nonzero():
    x = Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="NonZero"):
        ms.vmap(ops.nonzero)(x)
    with pytest.raises(ValueError, match="Unique"):
        ms.vmap(lambda t: ops.unique(t)[0])(x)


# ------------------------------------------------------------------ errors
def test_bad_inputs_are_typed_errors_naming_the_op(mode):
    x = Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(TypeError, match="MaskedSelect"):
        run(ops.masked_select, x, Tensor(np.ones((2, 3), np.int32)))
    with pytest.raises(ValueError, match="MaskedSelect"):
        run(ops.masked_select, x, Tensor(np.ones((4,), np.bool_)))
    with pytest.raises(ValueError, match="MaskedScatter"):
        run(ops.masked_scatter, x, Tensor(np.ones((2, 3), np.bool_)),
            Tensor(np.ones((5,), np.float32)))
    with pytest.raises(TypeError, match="MaskedScatter"):
        run(ops.masked_scatter, x, Tensor(np.ones((3,), np.bool_)),
            Tensor(np.ones((6,), np.float64)))
    with pytest.raises(ValueError, match="MaskedScatter"):
        run(ops.masked_scatter, Tensor(np.ones((3,), np.float32)),
            Tensor(np.ones((2, 3), np.bool_)), Tensor(np.ones((6,), np.float32)))
