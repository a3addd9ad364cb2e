"""ops.operations.sparse_ops (SparseDenseCwiseAdd/Mul/Div, SparseReshape,
SparseMatrixSoftmax) and ops.function.csr_softmax (composed, ops/function/sparse_cwise_func.py)
against numpy on the dense forms, in both modes, with dynamic numbers of values; gradients;
errors."""
import numpy as np
import pytest

import mycel as ms
from mycel import nn, Tensor, CSRTensor
from mycel.ops.function import csr_softmax
from mycel.ops.operations import sparse_ops as S

RNG = np.random.default_rng(31)


class _Fn(nn.Cell):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        return self.fn(*args)


def _sparse(shape, nnz):
    flat = RNG.choice(int(np.prod(shape)), nnz, replace=False)
    idx = np.stack(np.unravel_index(np.sort(flat), shape), axis=1).astype(np.int64)
    return idx, RNG.standard_normal(nnz)


@pytest.mark.parametrize("dense_shape", [(3, 4, 5), (4, 5), (5,), (1, 5), (4, 1), (3, 1, 5), ()])
def test_sparse_dense_cwise_matches_numpy(mode, dense_shape):
    shape = (3, 4, 5)
    idx, vals = _sparse(shape, 7)
    x2 = RNG.standard_normal(dense_shape) + 3.0
    full = np.broadcast_to(x2, shape)
    at = full[tuple(idx.T)]
    for op, want in ((S.SparseDenseCwiseAdd(), vals + at), (S.SparseDenseCwiseMul(), vals * at),
                     (S.SparseDenseCwiseDiv(), vals / at)):
        got = _Fn(lambda *a: op(*a))(Tensor(idx), Tensor(vals),
                                     Tensor(np.array(shape, np.int64)), Tensor(x2)).asnumpy()
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_sparse_dense_cwise_dynamic_count_and_gradient():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = _Fn(lambda i, v, s, d: S.SparseDenseCwiseMul()(i, v, s, d))
        net.set_inputs(Tensor(shape=[None, 2], dtype=ms.int64), Tensor(shape=[None],
                                                                         dtype=ms.float32),
                       Tensor(np.array([3, 3], np.int64)), Tensor(shape=[3], dtype=ms.float32))
        d = np.array([1.0, 2.0, 3.0], np.float32)
        for nnz in (2, 5):
            idx, vals = _sparse((3, 3), nnz)
            got = net(Tensor(idx), Tensor(vals.astype(np.float32)),
                      Tensor(np.array([3, 3], np.int64)), Tensor(d)).asnumpy()
            np.testing.assert_allclose(got, vals * d[idx[:, 1]], rtol=1e-6)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    idx, vals = _sparse((3, 4), 5)
    d = RNG.standard_normal((3, 4))
    gv, gd = ms.grad(lambda v, x: S.SparseDenseCwiseMul()(Tensor(idx), v,
                                                          Tensor(np.array([3, 4], np.int64)),
                                                          x).sum(), (0, 1))(Tensor(vals),
                                                                            Tensor(d))
    np.testing.assert_allclose(gv.asnumpy(), d[tuple(idx.T)])
    want = np.zeros_like(d)
    np.add.at(want, tuple(idx.T), vals)
    np.testing.assert_allclose(gd.asnumpy(), want)


def test_sparse_dense_cwise_errors():
    idx = Tensor(np.zeros((2, 2), np.int64))
    v = Tensor(np.ones(2, np.float32))
    s = Tensor(np.array([3, 3], np.int64))
    with pytest.raises(TypeError, match="SparseDenseCwiseAdd"):
        S.SparseDenseCwiseAdd()(Tensor(np.zeros((2, 2), np.int32)), v, s,
                                Tensor(np.ones(3, np.float32)))
    with pytest.raises(TypeError, match="SparseDenseCwiseAdd"):
        S.SparseDenseCwiseAdd()(idx, v, s, Tensor(np.ones(3, np.float64)))
    with pytest.raises(ValueError, match="SparseDenseCwiseMul"):
        S.SparseDenseCwiseMul()(idx, v, s, Tensor(np.ones((1, 3, 3), np.float32)))


@pytest.mark.parametrize("old,new", [((2, 3, 6), (9, -1)), ((2, 3, 6), (6, 6)),
                                     ((4, 6), (2, 2, -1, 3)), ((5,), (-1,))])
def test_sparse_reshape_matches_numpy(mode, old, new):
    idx, _ = _sparse(old, 4)
    yi, ys = _Fn(lambda a, b, c: S.SparseReshape()(a, b, c))(
        Tensor(idx), Tensor(np.array(old, np.int64)), Tensor(np.array(new, np.int64)))
    want_shape = np.empty(old).reshape(new).shape
    np.testing.assert_array_equal(ys.asnumpy(), want_shape)
    flat = np.ravel_multi_index(tuple(idx.T), old)
    np.testing.assert_array_equal(yi.asnumpy(), np.stack(np.unravel_index(flat, want_shape), 1))


def test_sparse_reshape_dynamic_and_errors():
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = _Fn(lambda a, b, c: S.SparseReshape()(a, b, c))
        net.set_inputs(Tensor(shape=[None, None], dtype=ms.int64),
                       Tensor(shape=[None], dtype=ms.int64), Tensor(shape=[None], dtype=ms.int64))
        idx = np.array([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 2, 3]], np.int64)
        yi, ys = net(Tensor(idx), Tensor(np.array([2, 3, 6], np.int64)),
                     Tensor(np.array([9, -1], np.int64)))
        np.testing.assert_array_equal(ys.asnumpy(), [9, 4])
        np.testing.assert_array_equal(yi.asnumpy(), [[0, 0], [0, 1], [1, 2], [4, 2], [8, 1]])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    idx = Tensor(np.zeros((1, 2), np.int64))
    shape = Tensor(np.array([2, 3], np.int64))
    with pytest.raises(ValueError, match="SparseReshape"):
        S.SparseReshape()(idx, shape, Tensor(np.array([4, 2], np.int64)))
    with pytest.raises(ValueError, match="SparseReshape"):
        S.SparseReshape()(idx, shape, Tensor(np.array([-1, -1], np.int64)))
    with pytest.raises(TypeError, match="SparseReshape"):
        S.SparseReshape()(idx, shape, Tensor(np.array([6], np.int32)))


def _row_softmax(indptr, vals):
    out = np.empty_like(vals)
    for r in range(len(indptr) - 1):
        seg = vals[indptr[r]:indptr[r + 1]]
        if len(seg):
            e = np.exp(seg - seg.max())
            out[indptr[r]:indptr[r + 1]] = e / e.sum()
    return out


def test_csr_softmax_matches_numpy(mode):
    indptr = np.array([0, 4, 4, 6, 7], np.int32)  # an empty row
    indices = np.array([0, 2, 3, 4, 3, 4, 1], np.int32)
    vals = RNG.standard_normal(7).astype(np.float32) * 3
    logits = CSRTensor(Tensor(indptr), Tensor(indices), Tensor(vals), (4, 6))
    got = csr_softmax(logits, ms.float32)
    assert isinstance(got, CSRTensor) and got.shape == (4, 6)
    np.testing.assert_allclose(got.values.asnumpy(), _row_softmax(indptr, vals), rtol=1e-6)
    out = _Fn(lambda *a: S.SparseMatrixSoftmax(ms.float32)(*a))(
        Tensor(np.array([4, 6], np.int64)), Tensor(np.array([0, 7], np.int64)),
        Tensor(indptr.astype(np.int64)), Tensor(indices.astype(np.int64)), Tensor(vals))
    assert len(out) == 5
    np.testing.assert_allclose(out[4].asnumpy(), _row_softmax(indptr, vals), rtol=1e-6)
    np.testing.assert_array_equal(out[2].asnumpy(), indptr)


def test_sparse_matrix_softmax_batched_and_gradient():
    # two batches of 2 x 3 matrices, row pointers local to each batch's values
    bp = np.array([0, 3, 5], np.int64)
    rp = np.array([0, 2, 3, 0, 0, 2], np.int64)
    vals = RNG.standard_normal(5)
    out = S.SparseMatrixSoftmax(ms.float64)(Tensor(np.array([2, 2, 3], np.int64)), Tensor(bp),
                                            Tensor(rp), Tensor(np.array([0, 2, 1, 0, 2])),
                                            Tensor(vals))[4].asnumpy()
    want = np.concatenate([_row_softmax(rp[:3], vals[:3]), _row_softmax(rp[3:], vals[3:])])
    np.testing.assert_allclose(out, want, rtol=1e-12)
    w = RNG.standard_normal(5)

    def f(v):
        return (S.SparseMatrixSoftmax(ms.float64)(
            Tensor(np.array([2, 2, 3], np.int64)), Tensor(bp), Tensor(rp),
            Tensor(np.array([0, 2, 1, 0, 2])), v)[4] * Tensor(w)).sum()

    g = ms.grad(f)(Tensor(vals)).asnumpy()
    fd = np.zeros(5)
    for i in range(5):
        d = np.zeros(5)
        d[i] = 1e-6
        fd[i] = (f(Tensor(vals + d)).asnumpy() - f(Tensor(vals - d)).asnumpy()) / 2e-6
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-9)
    with pytest.raises(TypeError, match="SparseMatrixSoftmax"):
        S.SparseMatrixSoftmax(ms.float32)(Tensor(np.array([2, 3], np.int64)),
                                          Tensor(np.array([0, 1], np.int64)),
                                          Tensor(np.array([0, 1, 1], np.int64)),
                                          Tensor(np.array([0], np.int64)),
                                          Tensor(np.ones(1, np.int32)))
    with pytest.raises(TypeError, match="csr_softmax"):
        csr_softmax(Tensor(np.ones((2, 2), np.float32)), ms.float32)


def test_index_and_pointer_checks(mode):
    v = Tensor(np.ones(1, np.float32))
    s = Tensor(np.array([2, 3], np.int64))
    for bad in ([[0, 3]], [[0, -1]], [[2, 0]]):
        with pytest.raises(ValueError, match="SparseDenseCwiseAdd"):
            _Fn(lambda i, a, b, c: S.SparseDenseCwiseAdd()(i, a, b, c))(
                Tensor(np.array(bad, np.int64)), v, s, Tensor(np.ones(3, np.float32)))
        with pytest.raises(ValueError, match="SparseReshape"):
            _Fn(lambda i, a, b: S.SparseReshape()(i, a, b))(
                Tensor(np.array(bad, np.int64)), s, Tensor(np.array([6], np.int64)))
    for rp in ([0, 2, 1], [1, 1, 3], [0, 1, 2]):  # falling, not from 0, not ending at nnz
        with pytest.raises(ValueError, match="SparseMatrixSoftmax"):
            _Fn(lambda *a: S.SparseMatrixSoftmax(ms.float32)(*a))(
                Tensor(np.array([2, 3], np.int64)), Tensor(np.array([0, 3], np.int64)),
                Tensor(np.array(rp, np.int64)), Tensor(np.array([0, 1, 2], np.int64)),
                Tensor(np.ones(3, np.float32)))
